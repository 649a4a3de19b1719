//! The scripted provider: pi's faux provider (spec 4.9), an offline test double that plays back queued
//! assistant messages as real, token-chunked streams.
//!
//! Each request dequeues one response (a message or a factory) and streams it: `start`, then per block
//! `*_start`, one `*_delta` per chunk (1 token = 4 characters; chunk sizes cycle through
//! [`ScriptedOptions::tokens_per_chunk`]), `*_end`, then `done` — or `error` for a scripted `error`/`aborted`
//! message. Events are produced lazily, one per pull, and the cancel token is checked before each one: a request
//! cancelled before it starts ends with a single `error(aborted)` and no `start`; a later cancellation ends the
//! stream with `error(aborted)`, the content so far and "Request was aborted" (no `*_end` for the open block).
//! Usage is estimated from the serialized context (prompt) and the answer (output), 4 characters per token.
//!
//! This file holds the provider, its queue and the message builders; `playback` turns one message into its
//! events and `usage` estimates the usage it reports.
//!
//! ```
//! use futures_util::StreamExt;
//! use pi_ai::scripted::{ScriptedProvider, text_message};
//! use pi_ai::{Context, SimpleStreamOptions, UserMessage};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let scripted = ScriptedProvider::new(vec![text_message("Hello there")]);
//! let context = Context { messages: vec![UserMessage::new("Hi").into()], ..Context::default() };
//! let mut stream = scripted.stream(context, SimpleStreamOptions::default());
//! let mut types = Vec::new();
//! while let Some(event) = stream.next().await {
//!     types.push(event.event_type());
//! }
//! assert_eq!(types, ["start", "text_start", "text_delta", "text_end", "done"]);
//! let message = stream.result().await.unwrap();
//! assert_eq!(message.text(), "Hello there");
//! # });
//! ```

mod playback;
mod usage;

use std::collections::{HashMap, VecDeque};
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::stream;

use crate::content::{AssistantBlock, ToolCall};
use crate::context::Context;
use crate::event_stream::AssistantMessageEventStream;
use crate::message::{AssistantMessage, StopReason};
use crate::model::{Api, InputModality, Model, ModelCost};
use crate::options::{ResponseInfo, SimpleStreamOptions};
use crate::provider::{ApiProvider, Provider};
use crate::stream_fn::StreamFn;

use playback::Playback;

/// errorMessage of a cancelled request.
pub const ABORTED_MESSAGE: &str = "Request was aborted";
/// errorMessage when the queue is empty.
pub const NO_MORE_RESPONSES: &str = "No more faux responses queued";
/// errorMessage when a scripted message has stopReason `pending`.
pub const NO_STOP_REASON: &str = "Faux response ended without a stop reason";

/// Characters per estimated token.
const CHARS_PER_TOKEN: usize = 4;

/// What a factory sees about the request it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptedCall {
    /// 1-based number of this request.
    pub call_count: usize,
}

/// Builds the response for one request; `Err(text)` ends the stream with a single `error` event (no `start`).
pub type ResponseFactory = Arc<
    dyn Fn(&Context, &SimpleStreamOptions, ScriptedCall, &Model) -> Result<AssistantMessage, String>
        + Send
        + Sync,
>;

/// One queued response.
#[allow(
    clippy::large_enum_variant,
    reason = "queued once per request; boxing buys nothing"
)]
#[derive(Clone)]
pub enum ScriptedResponse {
    /// Stream this message (api / provider / model are replaced by the request model's).
    Message(AssistantMessage),
    /// Compute the message at request time.
    Factory(ResponseFactory),
}

impl From<AssistantMessage> for ScriptedResponse {
    fn from(message: AssistantMessage) -> Self {
        ScriptedResponse::Message(message)
    }
}

/// Configuration of a [`ScriptedProvider`].
#[derive(Debug, Clone)]
pub struct ScriptedOptions {
    /// Api name (default `scripted`).
    pub api: Api,
    /// Provider id (default `scripted`).
    pub provider: String,
    /// Models (default one: `scripted-1`, "Scripted Model", text + image, 128000 context, 16384 max tokens).
    pub models: Vec<Model>,
    /// Chunk sizes in tokens, cycled deterministically (default 3..=5).
    pub tokens_per_chunk: RangeInclusive<usize>,
    /// Pacing: each chunk waits `tokens / tokens_per_second`; `None` = no waiting (one event per pull).
    pub tokens_per_second: Option<f64>,
}

impl Default for ScriptedOptions {
    fn default() -> Self {
        Self {
            api: Api::SCRIPTED,
            provider: "scripted".into(),
            models: vec![default_model(&Api::SCRIPTED, "scripted")],
            tokens_per_chunk: 3..=5,
            tokens_per_second: None,
        }
    }
}

fn default_model(api: &Api, provider: &str) -> Model {
    Model {
        id: "scripted-1".into(),
        name: "Scripted Model".into(),
        api: api.clone(),
        provider: provider.into(),
        base_url: String::new(),
        reasoning: false,
        thinking_level_map: None,
        input: vec![InputModality::Text, InputModality::Image],
        cost: ModelCost::default(),
        context_window: 128_000,
        max_tokens: 16_384,
        sampling_params: None,
        headers: None,
        compat: None,
    }
}

struct Shared {
    options: ScriptedOptions,
    responses: Mutex<VecDeque<ScriptedResponse>>,
    call_count: AtomicUsize,
    /// Previous prompt per session id, for the prompt-cache simulation.
    sessions: Mutex<HashMap<String, String>>,
}

/// The scripted (faux) provider. Cheap to clone; clones share the queue and counters.
#[derive(Clone)]
pub struct ScriptedProvider {
    shared: Arc<Shared>,
}

impl ScriptedProvider {
    /// A provider with default options and these queued responses.
    pub fn new(responses: impl IntoIterator<Item = impl Into<ScriptedResponse>>) -> Self {
        Self::with_options(ScriptedOptions::default(), responses)
    }

    /// A provider with `options` and these queued responses.
    pub fn with_options(
        options: ScriptedOptions,
        responses: impl IntoIterator<Item = impl Into<ScriptedResponse>>,
    ) -> Self {
        let mut options = options;
        for model in &mut options.models {
            model.api = options.api.clone();
            model.provider.clone_from(&options.provider);
        }
        let shared = Shared {
            options,
            responses: Mutex::new(responses.into_iter().map(Into::into).collect()),
            call_count: AtomicUsize::new(0),
            sessions: Mutex::new(HashMap::new()),
        };
        Self {
            shared: Arc::new(shared),
        }
    }

    /// The model with this id, or the first model for `None`.
    pub fn model(&self, id: Option<&str>) -> Option<Model> {
        let models = &self.shared.options.models;
        match id {
            Some(id) => models.iter().find(|model| model.id == id).cloned(),
            None => models.first().cloned(),
        }
    }

    /// Every model.
    pub fn models(&self) -> &[Model] {
        &self.shared.options.models
    }

    /// Replaces the queue.
    pub fn set_responses(&self, responses: impl IntoIterator<Item = impl Into<ScriptedResponse>>) {
        *self.queue() = responses.into_iter().map(Into::into).collect();
    }

    /// Appends to the queue.
    pub fn append_responses(
        &self,
        responses: impl IntoIterator<Item = impl Into<ScriptedResponse>>,
    ) {
        self.queue().extend(responses.into_iter().map(Into::into));
    }

    /// Responses not yet consumed.
    pub fn pending_response_count(&self) -> usize {
        self.queue().len()
    }

    /// Requests made so far.
    pub fn call_count(&self) -> usize {
        self.shared.call_count.load(Ordering::SeqCst)
    }

    /// A [`Provider`] serving this provider's models, for a [`crate::Models`] registry.
    pub fn provider(&self) -> Provider {
        Provider::new(self.shared.options.provider.clone())
            .with_api(Arc::new(self.clone()))
            .with_models(self.shared.options.models.iter().cloned())
    }

    /// A [`StreamFn`] that streams from this provider whatever model it is given (it never returns `Err`).
    pub fn stream_fn(&self) -> StreamFn {
        let provider = self.clone();
        Arc::new(move |model, context, options| {
            let stream = provider.stream_simple(model, context, options);
            Box::pin(async move { Ok(stream) })
        })
    }

    /// Streams the next response for the first model.
    pub fn stream(
        &self,
        context: Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        let model = self
            .model(None)
            .unwrap_or_else(|| default_model(&self.shared.options.api, "scripted"));
        self.stream_simple(model, context, options)
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, VecDeque<ScriptedResponse>> {
        self.shared
            .responses
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl ApiProvider for ScriptedProvider {
    fn api(&self) -> Api {
        self.shared.options.api.clone()
    }

    fn stream_simple(
        &self,
        model: Model,
        context: Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        let step = self.queue().pop_front();
        let call_count = self.shared.call_count.fetch_add(1, Ordering::SeqCst) + 1;
        if let Some(on_response) = &options.base.on_response {
            on_response(
                &ResponseInfo {
                    status: 200,
                    headers: Default::default(),
                },
                &model,
            );
        }
        let resolved = match step {
            None => Err(NO_MORE_RESPONSES.to_owned()),
            Some(ScriptedResponse::Message(message)) => Ok(message),
            Some(ScriptedResponse::Factory(factory)) => {
                factory(&context, &options, ScriptedCall { call_count }, &model)
            }
        };
        let mut message = match resolved {
            Ok(message) => message,
            Err(text) => {
                return AssistantMessageEventStream::from_error(AssistantMessage::failure(
                    &model,
                    StopReason::Error,
                    text,
                ));
            }
        };
        message.api = model.api.clone();
        message.provider = model.provider.as_str().into();
        message.model = model.id.as_str().into();
        message.usage = usage::estimate(&context, &options, &message, &self.shared.sessions);
        let pacing = self
            .shared
            .options
            .tokens_per_second
            .filter(|rate| *rate > 0.0);
        let playback = Playback::new(
            model,
            message,
            options.base.signal,
            &self.shared.options.tokens_per_chunk,
            pacing,
        );
        AssistantMessageEventStream::from_events(stream::unfold(
            playback,
            |mut playback| async move {
                let event = playback.next_event().await?;
                Some((event, playback))
            },
        ))
    }
}

/// An assistant message with these blocks and stop reason (api / provider / model are filled in when streamed).
pub fn message(content: Vec<AssistantBlock>, stop_reason: StopReason) -> AssistantMessage {
    let mut message =
        AssistantMessage::empty_for(Api::SCRIPTED, "scripted".into(), "scripted-1".into());
    message.content = content.into_iter().map(Arc::new).collect();
    message.stop_reason = stop_reason;
    message
}

/// An assistant message with one text block, stopReason `stop`.
pub fn text_message(text: impl Into<String>) -> AssistantMessage {
    message(vec![AssistantBlock::text(text)], StopReason::Stop)
}

/// An assistant message with these tool calls, stopReason `toolUse`.
pub fn tool_call_message(calls: impl IntoIterator<Item = ToolCall>) -> AssistantMessage {
    message(
        calls.into_iter().map(AssistantBlock::ToolCall).collect(),
        StopReason::ToolUse,
    )
}

/// An assistant message that fails with `error_message` (stopReason `error`) after streaming `content`.
pub fn error_message(
    content: Vec<AssistantBlock>,
    error_message: impl Into<String>,
) -> AssistantMessage {
    let mut failed = message(content, StopReason::Error);
    failed.error_message = Some(error_message.into());
    failed
}

#[cfg(test)]
mod tests;
