//! The quick-ask window: a global shortcut (Settings → Quick ask, default Ctrl+Alt+Space;
//! `tauri-plugin-global-shortcut`) opens a small always-on-top window with a composer. Enter asks in a new
//! conversation beside the active one (`quick_ask`) and the answer streams there; "Open in the main window"
//! (`open_in_main_window`) hides it and makes the main window show that conversation; Esc hides it
//! (`hide_quick_ask`). Its capability (`capabilities/quick-ask.json`) grants only these and the stream.
//!
//! A shortcut that cannot be registered (not a shortcut, or taken by another program) leaves the window
//! unreachable by keyboard until changed: `quick_ask_shortcut_status` says so, and Settings shows it.

use std::sync::{Mutex, PoisonError};

use desktop_host::conversations::Conversations;
use desktop_host::session::SessionPrompt;
use desktop_host::store::ConversationId;
use serde::Serialize;
use tauri::plugin::TauriPlugin;
use tauri::{AppHandle, Manager as _, Runtime, State, WebviewUrl, WebviewWindowBuilder};
use tauri_plugin_global_shortcut::{GlobalShortcut, Shortcut, ShortcutState};

use crate::command_error::{CommandError, ErrorCode, to_command_error};
use crate::commands::run::RunAccepted;

/// The quick-ask window's label (its capability names it).
pub(crate) const QUICK_ASK_WINDOW: &str = "quick-ask";

/// The shortcut when the settings name none.
pub(crate) const DEFAULT_SHORTCUT: &str = "Ctrl+Alt+Space";

/// Whether the quick-ask shortcut works, as Settings shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub(crate) struct QuickAskShortcutStatus {
    /// The shortcut as the settings name it (the default when they name none).
    pub(crate) shortcut: String,
    /// It is registered: pressing it anywhere opens the quick-ask window.
    pub(crate) registered: bool,
    /// Why it is not (not a shortcut, or another program holds it); what the system said.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub(crate) problem: Option<String>,
}

/// The last [`QuickAskShortcutStatus`] (managed state).
#[derive(Debug)]
pub(crate) struct QuickAskShortcut(Mutex<QuickAskShortcutStatus>);

impl Default for QuickAskShortcut {
    fn default() -> Self {
        QuickAskShortcut(Mutex::new(QuickAskShortcutStatus {
            shortcut: DEFAULT_SHORTCUT.to_owned(),
            registered: false,
            problem: None,
        }))
    }
}

/// The conversation of the quick-ask window's last question (managed state): the notifications treat it as on
/// screen while that window is in front.
#[derive(Debug, Default)]
pub(crate) struct QuickAskConversation(Mutex<Option<ConversationId>>);

impl QuickAskConversation {
    /// The conversation of the last question, if one was asked.
    pub(crate) fn get(&self) -> Option<ConversationId> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set(&self, conversation_id: ConversationId) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(conversation_id);
    }
}

/// The global-shortcut plugin: a press of the registered shortcut opens (or brings back) the quick-ask window.
pub(crate) fn plugin<R: Runtime>() -> TauriPlugin<R> {
    tauri_plugin_global_shortcut::Builder::new()
        .with_handler(|app, _shortcut, event| {
            if event.state() == ShortcutState::Pressed {
                show_window(app);
            }
        })
        .build()
}

/// The shortcut the settings name: `wanted` trimmed, the default when blank.
pub(crate) fn shortcut_text(wanted: Option<&str>) -> String {
    wanted
        .map(str::trim)
        .filter(|wanted| !wanted.is_empty())
        .unwrap_or(DEFAULT_SHORTCUT)
        .to_owned()
}

/// Registers `wanted` (blank: the default) as the only quick-ask shortcut and keeps what came of it.
pub(crate) fn apply_shortcut<R: Runtime>(app: &AppHandle<R>, wanted: Option<&str>) {
    let shortcut = shortcut_text(wanted);
    let problem = match app.try_state::<GlobalShortcut<R>>() {
        None => Some("global shortcuts are not available here".to_owned()),
        Some(shortcuts) => {
            if let Err(error) = shortcuts.unregister_all() {
                tracing::warn!(%error, "cannot release the earlier quick-ask shortcut");
            }
            match shortcut.parse::<Shortcut>() {
                Err(error) => Some(format!("{shortcut} is not a shortcut: {error}")),
                Ok(parsed) => shortcuts.register(parsed).err().map(|error| {
                    format!("{shortcut} cannot be used (another program may hold it): {error}")
                }),
            }
        }
    };
    match &problem {
        None => tracing::info!(%shortcut, "quick-ask shortcut registered"),
        Some(problem) => tracing::warn!(%shortcut, %problem, "quick-ask shortcut not registered"),
    }
    let status = QuickAskShortcutStatus {
        shortcut,
        registered: problem.is_none(),
        problem,
    };
    if let Some(kept) = app.try_state::<QuickAskShortcut>() {
        *kept.0.lock().unwrap_or_else(PoisonError::into_inner) = status;
    }
}

/// Shows the quick-ask window in front, making it the first time.
pub(crate) fn show_window<R: Runtime>(app: &AppHandle<R>) {
    let window = match app.get_webview_window(QUICK_ASK_WINDOW) {
        Some(window) => window,
        None => {
            let built = WebviewWindowBuilder::new(
                app,
                QUICK_ASK_WINDOW,
                WebviewUrl::App("index.html".into()),
            )
            .title("Pi Desktop — Quick ask")
            .inner_size(560.0, 380.0)
            .min_inner_size(360.0, 220.0)
            .always_on_top(true)
            .skip_taskbar(true)
            .center()
            .build();
            match built {
                Ok(window) => window,
                Err(error) => {
                    tracing::warn!(%error, "cannot open the quick-ask window");
                    return;
                }
            }
        }
    };
    for (step, result) in [("show", window.show()), ("focus", window.set_focus())] {
        if let Err(error) = result {
            tracing::warn!(%error, step, "cannot bring the quick-ask window to the front");
        }
    }
}

fn hide_window<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window(QUICK_ASK_WINDOW)
        && let Err(error) = window.hide()
    {
        tracing::warn!(%error, "cannot hide the quick-ask window");
    }
}

/// Asks `text` in a new conversation beside the active one; returns once the run is accepted. Its envelopes
/// reach every window's stream, tagged with the new conversation's id.
#[tauri::command]
pub(crate) async fn quick_ask(
    conversations: State<'_, Conversations>,
    asked: State<'_, QuickAskConversation>,
    text: String,
) -> Result<RunAccepted, CommandError> {
    if text.trim().is_empty() {
        return Err(CommandError::bare(ErrorCode::EmptyMessage));
    }
    let (conversation, run) = conversations
        .ask_in_background(SessionPrompt::from(text))
        .await
        .map_err(to_command_error)?;
    asked.set(conversation.id.clone());
    Ok(RunAccepted::of(conversation.id, &run))
}

/// Hides the quick-ask window and has the main window, in front, show conversation `conversation_id`.
#[tauri::command]
pub(crate) fn open_in_main_window<R: Runtime>(app: AppHandle<R>, conversation_id: ConversationId) {
    hide_window(&app);
    crate::notifications::open_from_notification(&app, conversation_id);
}

/// Hides the quick-ask window (Esc).
#[tauri::command]
pub(crate) fn hide_quick_ask<R: Runtime>(app: AppHandle<R>) {
    hide_window(&app);
}

/// Whether the quick-ask shortcut works, and why not.
#[tauri::command]
pub(crate) fn quick_ask_shortcut_status(
    status: State<'_, QuickAskShortcut>,
) -> QuickAskShortcutStatus {
    status
        .0
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use tauri::Manager as _;

    use super::*;

    #[test]
    fn a_blank_shortcut_is_the_default() {
        assert_eq!(shortcut_text(None), "Ctrl+Alt+Space");
        assert_eq!(shortcut_text(Some("  ")), "Ctrl+Alt+Space");
        assert_eq!(shortcut_text(Some(" Ctrl+Shift+K ")), "Ctrl+Shift+K");
    }

    #[test]
    fn the_default_and_a_changed_shortcut_parse_and_a_bad_one_does_not() {
        assert!(DEFAULT_SHORTCUT.parse::<Shortcut>().is_ok());
        assert!("Ctrl+Shift+K".parse::<Shortcut>().is_ok());
        assert!("Ctrl+Nothing".parse::<Shortcut>().is_err());
    }

    #[test]
    fn without_the_plugin_the_status_says_why_the_shortcut_does_not_work() {
        let app = tauri::test::mock_builder()
            .manage(QuickAskShortcut::default())
            .build(tauri::test::mock_context(tauri::test::noop_assets()))
            .unwrap();

        apply_shortcut(app.handle(), Some("Ctrl+Shift+K"));

        let status = app.state::<QuickAskShortcut>();
        assert_eq!(
            *status.0.lock().unwrap(),
            QuickAskShortcutStatus {
                shortcut: "Ctrl+Shift+K".to_owned(),
                registered: false,
                problem: Some("global shortcuts are not available here".to_owned()),
            }
        );
    }
}
