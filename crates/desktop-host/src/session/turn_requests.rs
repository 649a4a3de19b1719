//! What each turn sends to the model, told on the run's stream (`turn_request`) so the loop inspector shows the
//! model, the thinking level, the number of messages, the tools offered and the size of the context of every
//! request; and the retries of a request that failed before any answer arrived (`model_retry`).

use std::sync::Arc;

use pi_agent::StreamFn;
use pi_ai::RetryHook;
use tokio::sync::mpsc;

use crate::connection::RetryNoticeView;
use crate::inspector::TurnRequest;
use crate::wire::{ForwardItem, HostNotice};

/// `inner`, telling `forward_tx` what every request carries before it goes.
pub(crate) fn reporting_turn_requests(
    inner: StreamFn,
    forward_tx: mpsc::Sender<ForwardItem>,
) -> StreamFn {
    Arc::new(move |model, context, options| {
        let request = TurnRequest {
            model: model.id.clone(),
            thinking_level: options.reasoning.map_or_else(
                || "off".to_owned(),
                |level| format!("{level:?}").to_lowercase(),
            ),
            message_count: u64::try_from(context.messages.len()).unwrap_or(u64::MAX),
            tools: context
                .tools
                .iter()
                .flatten()
                .map(|tool| tool.name.clone())
                .collect(),
            // What a provider serialises: the system prompt, the messages and the tools' definitions.
            context_chars: serde_json::to_string(&context).map_or(0, |text| {
                u64::try_from(text.chars().count()).unwrap_or(u64::MAX)
            }),
            system_prompt: context.system_prompt.clone(),
        };
        let forward_tx = forward_tx.clone();
        let inner = Arc::clone(&inner);
        Box::pin(async move {
            let _ = forward_tx
                .send(ForwardItem::Notice(HostNotice::TurnRequest(request)))
                .await;
            inner(model, context, options).await
        })
    })
}

/// A retry hook that tells `forward_tx` of every retry before its wait. The hook cannot wait: when the channel
/// is full the notice goes on a task of its own.
pub(crate) fn retry_notices(forward_tx: mpsc::Sender<ForwardItem>) -> RetryHook {
    Arc::new(move |notice| {
        let item = ForwardItem::Notice(HostNotice::ModelRetry(RetryNoticeView::from(notice)));
        if let Err(mpsc::error::TrySendError::Full(item)) = forward_tx.try_send(item)
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let forward_tx = forward_tx.clone();
            drop(runtime.spawn(async move {
                let _ = forward_tx.send(item).await;
            }));
        }
    })
}
