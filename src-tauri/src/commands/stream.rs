//! The window's one event stream: `subscribe` hands the host a Channel for every envelope of every
//! conversation and answers with the runs in progress, so a window that loads (or reloads) in the middle of an
//! answer shows it at once and then follows it live. A window that rebuilds messages from their deltas asks for
//! the lean stream (desktop-host `wire::lean`): each block's text comes once.

use std::sync::{Arc, Mutex, PoisonError};

use desktop_host::conversations::{Conversations, LiveSnapshot};
use desktop_host::wire::{Envelope, EnvelopeSink, LeanEnvelope, LeanProjection, SinkClosed};
use tauri::ipc::Channel;
use tauri::{Manager, Runtime, State, WebviewWindow};

use crate::memory_release::MemoryRelease;

/// A window's Channel as the host's sink.
struct WindowChannel {
    channel: Channel<LeanEnvelope>,
    /// Set for a lean stream.
    lean: Option<Mutex<LeanProjection>>,
    /// Told of every envelope: a run is activity.
    release: Option<MemoryRelease>,
}

impl EnvelopeSink for WindowChannel {
    fn deliver(&self, envelope: &Envelope) -> Result<(), SinkClosed> {
        if let Some(release) = &self.release {
            release.note_activity();
        }
        let sent = match &self.lean {
            Some(projection) => projection
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .project(envelope),
            None => LeanEnvelope::Whole(envelope.clone()),
        };
        self.channel.send(sent).map_err(|error| {
            tracing::warn!(%error, channel = self.channel.id(), "the window stopped listening; dropping its channel");
            SinkClosed
        })
    }
}

/// Sends every envelope from now on to `on_event` (lean when `lean` is true) and returns the runs in progress as
/// of the last envelope before it. A window subscribes once per load; subscribing again (a reload) replaces its
/// earlier Channel.
#[tauri::command]
pub(crate) async fn subscribe<R: Runtime>(
    window: WebviewWindow<R>,
    conversations: State<'_, Conversations>,
    on_event: Channel<LeanEnvelope>,
    lean: Option<bool>,
) -> Result<LiveSnapshot, crate::CommandError> {
    let sink = WindowChannel {
        channel: on_event,
        lean: lean
            .unwrap_or(false)
            .then(|| Mutex::new(LeanProjection::new())),
        release: window
            .try_state::<MemoryRelease>()
            .map(|release| release.inner().clone()),
    };
    Ok(conversations.subscribe(window.label(), Arc::new(sink)))
}
