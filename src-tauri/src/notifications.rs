//! System notifications: when a run settles or a tool call waits for approval while the user would not see it
//! (desktop-host's `run_alerts` decides both), the app shows a notification whose default action (a click on it)
//! brings the main window to the front and asks it to open that conversation ([`OPEN_CONVERSATION_EVENT`]).
//! Settings → Notifications turns them off.
//!
//! On Linux they go over D-Bus to the session's `org.freedesktop.Notifications` server with `notify-rust`
//! directly: the Tauri notification plugin sends through the same crate but drops the click on desktop.
//! Without a notification server (no session bus, or nobody owns the name) the app logs it and goes on.
//!
//! Contract: the stream's sink never blocks: each alert is decided, shown and waited on in a thread of its own
//! (the thread ends when the notification is clicked or closed).

use std::sync::{Mutex, PoisonError};

use desktop_host::conversations::Conversations;
use desktop_host::language::Language;
use desktop_host::run_alerts::{AlertText, OnScreen, RunAlert, RunAlerts};
use desktop_host::settings::SettingsService;
use desktop_host::store::ConversationId;
use desktop_host::wire::{Envelope, EnvelopeSink, SinkClosed};
use serde::Serialize;
use tauri::{AppHandle, Emitter as _, Manager as _, Runtime};

/// The event the main window gets when a notification was clicked: open `conversationId`.
pub(crate) const OPEN_CONVERSATION_EVENT: &str = "open-conversation-requested";

/// The key of the notifications' subscription to the conversations' live stream.
const SUBSCRIPTION_KEY: &str = "system-notifications";

/// The action a click on the notification invokes (the specification's name for it).
const DEFAULT_ACTION: &str = "default";

/// The payload of [`OPEN_CONVERSATION_EVENT`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OpenConversationRequest {
    pub(crate) conversation_id: ConversationId,
}

/// Subscribes the notifications to every conversation's envelopes.
pub(crate) fn watch<R: Runtime>(app: &AppHandle<R>, conversations: &Conversations) {
    conversations.subscribe(
        SUBSCRIPTION_KEY,
        std::sync::Arc::new(AlertSink {
            app: app.clone(),
            alerts: Mutex::default(),
        }),
    );
}

/// Brings the main window to the front and asks it to open `conversation_id`.
pub(crate) fn open_from_notification<R: Runtime>(
    app: &AppHandle<R>,
    conversation_id: ConversationId,
) {
    crate::single_instance::focus_main_window(app);
    if let Err(error) = app.emit_to(
        crate::MAIN_WINDOW,
        OPEN_CONVERSATION_EVENT,
        OpenConversationRequest { conversation_id },
    ) {
        tracing::warn!(%error, "cannot ask the window to open the notified conversation");
    }
}

struct AlertSink<R: Runtime> {
    app: AppHandle<R>,
    alerts: Mutex<RunAlerts>,
}

impl<R: Runtime> EnvelopeSink for AlertSink<R> {
    fn deliver(&self, envelope: &Envelope) -> Result<(), SinkClosed> {
        let alert = self
            .alerts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .observe(envelope);
        if let Some(alert) = alert {
            let app = self.app.clone();
            let spawned = std::thread::Builder::new()
                .name("notification".to_owned())
                .spawn(move || notify_if_out_of_sight(&app, &alert));
            if let Err(error) = spawned {
                tracing::warn!(%error, "cannot start a notification's thread");
            }
        }
        Ok(())
    }
}

/// Shows `alert` when notifications are on and the user would not see it, and waits for its click.
fn notify_if_out_of_sight<R: Runtime>(app: &AppHandle<R>, alert: &RunAlert) {
    let Some(text) = text_to_show(app, alert) else {
        return;
    };
    let conversation_id = alert.conversation_id.clone();
    let shown = notify_rust::Notification::new()
        .appname("Pi Desktop")
        .summary(&text.summary)
        .body(&text.body)
        .icon("pi-desktop")
        .hint(notify_rust::Hint::DesktopEntry("pi-desktop".to_owned()))
        .action(DEFAULT_ACTION, &text.open_label)
        .show();
    match shown {
        Ok(handle) => {
            tracing::info!(conversation = %conversation_id, "notification shown");
            handle.wait_for_action(|action| {
                if action == DEFAULT_ACTION {
                    open_from_notification(app, conversation_id);
                }
            });
        }
        Err(error) => {
            tracing::warn!(%error, "cannot show a notification (no notification server on the session bus?)");
        }
    }
}

/// The texts of `alert` if it is to be shown now: notifications are on and its conversation is out of sight.
fn text_to_show<R: Runtime>(app: &AppHandle<R>, alert: &RunAlert) -> Option<AlertText> {
    let settings = app.try_state::<SettingsService>()?;
    let conversations = app.try_state::<Conversations>()?;
    let file = match settings.load() {
        Ok(file) => file,
        Err(error) => {
            tracing::warn!(%error, "cannot read the settings; no notification");
            return None;
        }
    };
    if !file.notifications.unwrap_or(true) {
        return None;
    }
    // Out of sight means in neither window: the main one, nor the quick-ask one showing its own question.
    let active = conversations.active_id();
    let quick_asked = app
        .try_state::<crate::quick_ask::QuickAskConversation>()
        .and_then(|asked| asked.get());
    let seen_in = |label: &str, shown: Option<&ConversationId>| {
        let window = app.get_webview_window(label);
        !alert.wanted(OnScreen {
            active: shown,
            window_visible: window.as_ref().is_some_and(|window| {
                window.is_visible().unwrap_or(false) && !window.is_minimized().unwrap_or(false)
            }),
            window_focused: window
                .as_ref()
                .is_some_and(|window| window.is_focused().unwrap_or(false)),
        })
    };
    if seen_in(crate::MAIN_WINDOW, active.as_ref())
        || seen_in(crate::quick_ask::QUICK_ASK_WINDOW, quick_asked.as_ref())
    {
        return None;
    }
    let title = conversations
        .store()
        .conversation(&alert.conversation_id)
        .ok()
        .and_then(|conversation| conversation.title);
    let language = file
        .language
        .unwrap_or_else(|| Language::from_locale_env(&std::env::vars().collect()));
    Some(alert.text(title.as_deref(), language))
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use tauri::Listener as _;

    use super::*;

    #[test]
    fn a_click_asks_the_main_window_to_open_the_conversation() {
        let app = tauri::test::mock_builder()
            .build(tauri::test::mock_context(tauri::test::noop_assets()))
            .unwrap();
        let _window = tauri::WebviewWindowBuilder::new(
            &app,
            crate::MAIN_WINDOW,
            tauri::WebviewUrl::default(),
        )
        .build()
        .unwrap();
        let (sender, receiver) = mpsc::channel();
        app.listen_any(OPEN_CONVERSATION_EVENT, move |event| {
            let _ = sender.send(event.payload().to_owned());
        });

        open_from_notification(app.handle(), ConversationId::from("c-42"));

        let payload = receiver.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&payload).unwrap(),
            serde_json::json!({"conversationId": "c-42"})
        );
    }
}
