//! The quick-ask window: a global shortcut (Settings → Quick ask, default Ctrl+Alt+Space;
//! `tauri-plugin-global-shortcut`) opens a small always-on-top window with a composer. Enter asks in a new
//! conversation beside the active one (`quick_ask`) and the answer streams there; "Open in the main window"
//! (`open_in_main_window`) hides it and makes the main window show that conversation; Esc hides it
//! (`hide_quick_ask`). Its capability (`capabilities/quick-ask.json`) grants only these and the stream.
//!
//! A shortcut that cannot be registered (not a shortcut, or taken by another program) leaves the window
//! unreachable by keyboard until changed: `quick_ask_shortcut_status` says so, and Settings shows it.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

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

/// How long after the main window's page has loaded the shortcut of the settings is registered at start.
/// Registering holds the main thread (the plugin runs it there) until the hotkey thread answers, which on X11
/// looks for work every 50 ms: up to 100 ms the window's start would otherwise wait for.
pub(crate) const REGISTER_AFTER_PAGE_LOAD: Duration = Duration::from_secs(1);

/// The last [`QuickAskShortcutStatus`], and the shortcut of the settings while its registration waits for the
/// start to be over (managed state).
#[derive(Debug)]
pub(crate) struct QuickAskShortcut {
    status: Mutex<QuickAskShortcutStatus>,
    /// `Some(wanted)` until the start's registration is done. Held while any registration runs, so the status
    /// is never read halfway; on the main thread, which a registration waits for, only before one can run.
    waiting: Mutex<Option<Option<String>>>,
}

impl Default for QuickAskShortcut {
    fn default() -> Self {
        QuickAskShortcut {
            status: Mutex::new(QuickAskShortcutStatus {
                shortcut: DEFAULT_SHORTCUT.to_owned(),
                registered: false,
                problem: None,
            }),
            waiting: Mutex::new(None),
        }
    }
}

impl QuickAskShortcut {
    fn status(&self) -> QuickAskShortcutStatus {
        self.status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Registers `wanted` in place of the shortcut registered before (if one is) and keeps what came of it. The
    /// shortcut already registered is kept as it is: releasing and registering it again would hold the main
    /// thread for nothing (a save of Settings that changed something else).
    fn replace<R: Runtime>(&self, app: &AppHandle<R>, wanted: Option<&str>) {
        let before = self.status();
        if before.registered && before.shortcut == shortcut_text(wanted) {
            return;
        }
        let status = register(app, wanted, before.registered);
        *self.status.lock().unwrap_or_else(PoisonError::into_inner) = status;
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

/// Keeps `wanted` (the settings' shortcut) for [`register_waiting_shortcut`]: at start the shortcut is registered
/// once the window has started (see [`REGISTER_AFTER_PAGE_LOAD`]), or when its status is asked for first.
pub(crate) fn register_after_start<R: Runtime>(app: &AppHandle<R>, wanted: Option<String>) {
    if let Some(kept) = app.try_state::<QuickAskShortcut>() {
        *kept.waiting.lock().unwrap_or_else(PoisonError::into_inner) = Some(wanted);
    }
}

/// Registers the shortcut kept by [`register_after_start`], if it still waits. Not on the main thread.
pub(crate) fn register_waiting_shortcut<R: Runtime>(app: &AppHandle<R>) {
    let Some(kept) = app.try_state::<QuickAskShortcut>() else {
        return;
    };
    let mut waiting = kept.waiting.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(wanted) = waiting.take() {
        kept.replace(app, wanted.as_deref());
    }
}

/// Registers `wanted` (blank: the default) as the only quick-ask shortcut, unless it is the one registered, and
/// keeps what came of it; a shortcut still waiting from the start is dropped. Not on the main thread.
pub(crate) fn apply_shortcut<R: Runtime>(app: &AppHandle<R>, wanted: Option<&str>) {
    let Some(kept) = app.try_state::<QuickAskShortcut>() else {
        register(app, wanted, false);
        return;
    };
    let mut waiting = kept.waiting.lock().unwrap_or_else(PoisonError::into_inner);
    *waiting = None;
    kept.replace(app, wanted);
}

/// Registers `wanted` as the only quick-ask shortcut, releasing the earlier one if `registered` says there is
/// one (each release or registration holds the main thread, see [`REGISTER_AFTER_PAGE_LOAD`]).
fn register<R: Runtime>(
    app: &AppHandle<R>,
    wanted: Option<&str>,
    registered: bool,
) -> QuickAskShortcutStatus {
    let shortcut = shortcut_text(wanted);
    let problem = match app.try_state::<GlobalShortcut<R>>() {
        None => Some("global shortcuts are not available here".to_owned()),
        Some(shortcuts) => {
            if registered && let Err(error) = shortcuts.unregister_all() {
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
    QuickAskShortcutStatus {
        shortcut,
        registered: problem.is_none(),
        problem,
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

/// Whether the quick-ask shortcut works, and why not: asked before the start's registration, it registers first.
#[tauri::command]
pub(crate) async fn quick_ask_shortcut_status<R: Runtime>(
    app: AppHandle<R>,
    status: State<'_, QuickAskShortcut>,
) -> Result<QuickAskShortcutStatus, CommandError> {
    tauri::async_runtime::spawn_blocking(move || register_waiting_shortcut(&app))
        .await
        .map_err(CommandError::work_stopped)?;
    Ok(status.status())
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

    /// An app with the shortcut's state and without the global-shortcut plugin.
    fn app_without_shortcuts() -> tauri::App<tauri::test::MockRuntime> {
        tauri::test::mock_builder()
            .manage(QuickAskShortcut::default())
            .build(tauri::test::mock_context(tauri::test::noop_assets()))
            .unwrap()
    }

    #[test]
    fn the_start_shortcut_waits_until_registered_and_a_later_one_replaces_it() {
        let app = app_without_shortcuts();
        let kept = app.state::<QuickAskShortcut>();
        let unavailable = |shortcut: &str| QuickAskShortcutStatus {
            shortcut: shortcut.to_owned(),
            registered: false,
            problem: Some("global shortcuts are not available here".to_owned()),
        };

        register_after_start(app.handle(), Some("Ctrl+Shift+K".to_owned()));
        assert_eq!(kept.status(), QuickAskShortcut::default().status());
        register_waiting_shortcut(app.handle());
        assert_eq!(kept.status(), unavailable("Ctrl+Shift+K"));

        register_after_start(app.handle(), Some("Ctrl+Shift+J".to_owned()));
        apply_shortcut(app.handle(), Some("Ctrl+Shift+L"));
        register_waiting_shortcut(app.handle());
        assert_eq!(kept.status(), unavailable("Ctrl+Shift+L"));
    }

    #[test]
    fn a_registered_shortcut_saved_again_is_kept_and_another_replaces_it() {
        let app = app_without_shortcuts();
        let kept = app.state::<QuickAskShortcut>();
        let registered = QuickAskShortcutStatus {
            shortcut: "Ctrl+Shift+K".to_owned(),
            registered: true,
            problem: None,
        };
        *kept.status.lock().unwrap() = registered.clone();

        // Without the plugin any registration fails: a status still registered means none ran.
        apply_shortcut(app.handle(), Some(" Ctrl+Shift+K "));
        assert_eq!(kept.status(), registered);

        apply_shortcut(app.handle(), Some("Ctrl+Shift+L"));
        assert_eq!(kept.status().shortcut, "Ctrl+Shift+L");
        assert!(!kept.status().registered);
    }

    #[test]
    fn without_the_plugin_the_status_says_why_the_shortcut_does_not_work() {
        let app = app_without_shortcuts();

        apply_shortcut(app.handle(), Some("Ctrl+Shift+K"));

        assert_eq!(
            app.state::<QuickAskShortcut>().status(),
            QuickAskShortcutStatus {
                shortcut: "Ctrl+Shift+K".to_owned(),
                registered: false,
                problem: Some("global shortcuts are not available here".to_owned()),
            }
        );
    }
}
