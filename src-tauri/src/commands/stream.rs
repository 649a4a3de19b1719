//! The window's one event stream: `subscribe` hands the host a Channel for every envelope of every
//! conversation and answers with the runs in progress, so a window that loads (or reloads) in the middle of an
//! answer shows it at once and then follows it live.

use std::sync::Arc;

use desktop_host::conversations::{Conversations, LiveSnapshot};
use desktop_host::wire::{Envelope, EnvelopeSink, SinkClosed};
use tauri::ipc::Channel;
use tauri::{Runtime, State, WebviewWindow};

/// A window's Channel as the host's sink.
struct WindowChannel(Channel<Envelope>);

impl EnvelopeSink for WindowChannel {
    fn deliver(&self, envelope: &Envelope) -> Result<(), SinkClosed> {
        self.0.send(envelope.clone()).map_err(|error| {
            tracing::warn!(%error, channel = self.0.id(), "the window stopped listening; dropping its channel");
            SinkClosed
        })
    }
}

/// Sends every envelope from now on to `on_event` and returns the runs in progress as of the last envelope
/// before it. A window subscribes once per load; subscribing again (a reload) replaces its earlier Channel.
#[tauri::command]
pub(crate) async fn subscribe<R: Runtime>(
    window: WebviewWindow<R>,
    conversations: State<'_, Conversations>,
    on_event: Channel<Envelope>,
) -> Result<LiveSnapshot, crate::CommandError> {
    Ok(conversations.subscribe(window.label(), Arc::new(WindowChannel(on_event))))
}
