//! The Channel bridge: a session's envelopes (desktop-host's bounded, ordered stream) onto the Tauri `Channel` of
//! the run in progress.
//!
//! One forwarding task per session owns the receiver. `prompt` and `continue_run` attach their `Channel` before
//! the run starts; the task sends every envelope, in receive order, to the attached channel, so the UI sees `seq`
//! increase without gaps. A channel whose `send` fails (the webview went away) is detached, and the task keeps
//! draining, so a run never blocks on a dead window. Between runs nothing needs to be attached; what arrives then
//! goes to the last attached channel, if it still works.
//!
//! Settling: [`ChannelBridge::idle_forwarded_after`] resolves once an `idle` notice went through the task, so a
//! command resolves only after the UI was handed `idle` (Send comes back on `idle`, not on `agent_end`).

use std::sync::{Arc, Mutex, PoisonError};

use desktop_host::wire::{Envelope, EnvelopePayload, HostNotice};
use tauri::async_runtime::JoinHandle;
use tauri::ipc::Channel;
use tokio::sync::{mpsc, watch};

type Attached = Arc<Mutex<Option<Channel<Envelope>>>>;

/// Forwards one session's envelopes; dropping it stops the forwarding task.
pub(crate) struct ChannelBridge {
    attached: Attached,
    idle_forwarded: watch::Receiver<u64>,
    task: JoinHandle<()>,
}

impl ChannelBridge {
    /// Starts the forwarding task over `envelopes`. Call inside the async runtime or from a command.
    pub(crate) fn spawn(mut envelopes: mpsc::Receiver<Envelope>) -> ChannelBridge {
        let attached: Attached = Arc::default();
        let (idle_tx, idle_forwarded) = watch::channel(0_u64);
        let task_attached = Arc::clone(&attached);
        let task = tauri::async_runtime::spawn(async move {
            while let Some(envelope) = envelopes.recv().await {
                let is_idle = matches!(envelope.payload, EnvelopePayload::Notice(HostNotice::Idle));
                forward(&task_attached, envelope);
                if is_idle {
                    idle_tx.send_modify(|count| *count += 1);
                }
            }
        });
        ChannelBridge {
            attached,
            idle_forwarded,
            task,
        }
    }

    /// Sends everything from now on to `channel` (replacing the previous one).
    pub(crate) fn attach(&self, channel: Channel<Envelope>) {
        *self.attached.lock().unwrap_or_else(PoisonError::into_inner) = Some(channel);
    }

    /// How many `idle` notices went out so far; pass it to [`Self::idle_forwarded_after`].
    pub(crate) fn idle_count(&self) -> u64 {
        *self.idle_forwarded.borrow()
    }

    /// Resolves once more than `count` `idle` notices went out (or the task ended).
    pub(crate) async fn idle_forwarded_after(&self, count: u64) {
        let mut idle_forwarded = self.idle_forwarded.clone();
        // An error means the task ended (the session is gone): nothing more will come.
        let _ = idle_forwarded
            .wait_for(|forwarded| *forwarded > count)
            .await;
    }
}

impl Drop for ChannelBridge {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn forward(attached: &Attached, envelope: Envelope) {
    let channel = attached
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let Some(channel) = channel else {
        return;
    };
    if let Err(error) = channel.send(envelope) {
        tracing::warn!(%error, channel = channel.id(), "the window stopped listening; detaching its channel");
        let mut attached = attached.lock().unwrap_or_else(PoisonError::into_inner);
        if attached
            .as_ref()
            .is_some_and(|current| current.id() == channel.id())
        {
            *attached = None;
        }
    }
}
