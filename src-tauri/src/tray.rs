//! The tray icon: a menu with New conversation, Show / Hide and Quit, and Settings → "Close to tray" (closing
//! the window hides it; runs still answering go on, and their notifications say when they end).
//!
//! The icon needs a tray host: on Linux a StatusNotifierItem watcher (`org.kde.StatusNotifierWatcher`) on the
//! session bus, which the desktop's panel provides. Where none answers (a bare X session, as under Xvfb) the app
//! logs it, shows no icon and closing the window quits, as without the setting.

use desktop_host::language::Language;
use desktop_host::settings::SettingsService;
use tauri::menu::{Menu, MenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Emitter as _, Manager as _, Runtime};

/// The event the main window gets from the tray's New conversation: start one, as its own button does.
pub(crate) const NEW_CONVERSATION_EVENT: &str = "new-conversation-requested";

/// The bus name of the StatusNotifierItem host that shows tray icons on Linux desktops.
const TRAY_HOST_NAME: &str = "org.kde.StatusNotifierWatcher";

/// What a menu entry does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TrayAction {
    NewConversation,
    ShowHide,
    Quit,
}

impl TrayAction {
    const ALL: [TrayAction; 3] = [
        TrayAction::NewConversation,
        TrayAction::ShowHide,
        TrayAction::Quit,
    ];

    /// The menu entry's id.
    fn id(self) -> &'static str {
        match self {
            TrayAction::NewConversation => "new-conversation",
            TrayAction::ShowHide => "show-hide",
            TrayAction::Quit => "quit",
        }
    }

    fn label(self, language: Language) -> &'static str {
        match self {
            TrayAction::NewConversation => language.pick("新对话", "New conversation"),
            TrayAction::ShowHide => language.pick("显示 / 隐藏", "Show / Hide"),
            TrayAction::Quit => language.pick("退出", "Quit"),
        }
    }

    /// The action of menu entry `id`, if it is one of the tray's.
    pub(crate) fn from_id(id: &str) -> Option<TrayAction> {
        TrayAction::ALL.into_iter().find(|action| action.id() == id)
    }
}

/// Whether the app shows a tray icon (managed state; absent before `setup`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TrayPresence(pub(crate) bool);

/// Adds the tray icon when a tray host answers, and manages whether it did; returns whether it did.
pub(crate) fn install<R: Runtime>(app: &AppHandle<R>, language: Language) -> bool {
    let present = if tray_host_present() {
        match build(app, language) {
            Ok(()) => true,
            Err(error) => {
                tracing::warn!(%error, "cannot add the tray icon; closing the window quits");
                false
            }
        }
    } else {
        tracing::info!(
            host = TRAY_HOST_NAME,
            "no tray host on the session bus: no tray icon, and closing the window quits"
        );
        false
    };
    app.manage(TrayPresence(present));
    present
}

fn build<R: Runtime>(app: &AppHandle<R>, language: Language) -> tauri::Result<()> {
    let items = TrayAction::ALL
        .into_iter()
        .map(|action| {
            MenuItem::with_id(app, action.id(), action.label(language), true, None::<&str>)
        })
        .collect::<tauri::Result<Vec<_>>>()?;
    let entries: Vec<&dyn tauri::menu::IsMenuItem<R>> = items
        .iter()
        .map(|item| item as &dyn tauri::menu::IsMenuItem<R>)
        .collect();
    let menu = Menu::with_items(app, &entries)?;
    let mut tray = TrayIconBuilder::with_id("main")
        .tooltip("Pi Desktop")
        .menu(&menu)
        .on_menu_event(|app, event| {
            if let Some(action) = TrayAction::from_id(event.id().as_ref()) {
                run(app, action);
            }
        });
    if let Some(icon) = app.default_window_icon() {
        tray = tray.icon(icon.clone().to_owned());
    }
    tray.build(app)?;
    tracing::info!("tray icon added");
    Ok(())
}

/// Does what a tray menu entry says.
pub(crate) fn run<R: Runtime>(app: &AppHandle<R>, action: TrayAction) {
    match action {
        TrayAction::NewConversation => {
            crate::single_instance::focus_main_window(app);
            if let Err(error) = app.emit_to(crate::MAIN_WINDOW, NEW_CONVERSATION_EVENT, ()) {
                tracing::warn!(%error, "cannot ask the window for a new conversation");
            }
        }
        TrayAction::ShowHide => {
            let Some(window) = app.get_webview_window(crate::MAIN_WINDOW) else {
                return;
            };
            if shown_in_front(
                window.is_visible().unwrap_or(false),
                window.is_minimized().unwrap_or(false),
            ) {
                if let Err(error) = window.hide() {
                    tracing::warn!(%error, "cannot hide the main window");
                }
            } else {
                crate::single_instance::focus_main_window(app);
            }
        }
        TrayAction::Quit => app.exit(0),
    }
}

/// Show / Hide hides a window that is shown and not minimized, and brings any other to the front.
fn shown_in_front(visible: bool, minimized: bool) -> bool {
    visible && !minimized
}

/// Whether closing the main window hides it instead: there is a tray icon to bring it back and the user chose so.
pub(crate) fn hides_on_close<R: Runtime>(app: &AppHandle<R>) -> bool {
    let tray = app
        .try_state::<TrayPresence>()
        .is_some_and(|presence| presence.0);
    let close_to_tray = app
        .try_state::<SettingsService>()
        .and_then(|settings| settings.load().ok())
        .and_then(|file| file.close_to_tray);
    closing_hides(tray, close_to_tray)
}

/// The rule of [`hides_on_close`]: a tray icon, and the setting on (absent: off).
fn closing_hides(tray: bool, close_to_tray: Option<bool>) -> bool {
    tray && close_to_tray.unwrap_or(false)
}

/// Whether a StatusNotifierItem host owns its name on the session bus.
fn tray_host_present() -> bool {
    let owned = zbus::blocking::Connection::session().and_then(|connection| {
        let bus = zbus::blocking::fdo::DBusProxy::new(&connection)?;
        let name = zbus::names::BusName::try_from(TRAY_HOST_NAME)?;
        Ok(bus.name_has_owner(name)?)
    });
    match owned {
        Ok(owned) => owned,
        Err(error) => {
            tracing::info!(%error, "no session bus to ask for a tray host");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use pretty_assertions::assert_eq;
    use tauri::Listener as _;

    use super::*;

    fn app_with_main_window() -> tauri::App<tauri::test::MockRuntime> {
        let app = tauri::test::mock_builder()
            .build(tauri::test::mock_context(tauri::test::noop_assets()))
            .unwrap();
        tauri::WebviewWindowBuilder::new(&app, crate::MAIN_WINDOW, tauri::WebviewUrl::default())
            .build()
            .unwrap();
        app
    }

    #[test]
    fn each_menu_entry_has_an_id_of_its_own_and_a_label_in_both_languages() {
        for action in TrayAction::ALL {
            assert_eq!(TrayAction::from_id(action.id()), Some(action));
            assert_ne!(action.label(Language::En), action.label(Language::Zh));
        }
        assert_eq!(TrayAction::from_id("settings"), None);
    }

    #[test]
    fn new_conversation_asks_the_main_window_for_one() {
        let app = app_with_main_window();
        let (sender, receiver) = mpsc::channel();
        app.listen_any(NEW_CONVERSATION_EVENT, move |_event| {
            let _ = sender.send(());
        });

        run(app.handle(), TrayAction::NewConversation);

        receiver.recv_timeout(Duration::from_secs(5)).unwrap();
    }

    #[test]
    fn show_hide_hides_only_a_window_in_front() {
        assert!(shown_in_front(true, false));
        assert!(!shown_in_front(true, true));
        assert!(!shown_in_front(false, false));
    }

    #[test]
    fn closing_hides_only_with_a_tray_icon_and_the_setting_on() {
        assert!(closing_hides(true, Some(true)));
        assert!(!closing_hides(true, Some(false)));
        assert!(!closing_hides(true, None));
        assert!(!closing_hides(false, Some(true)));
    }

    #[test]
    fn before_the_tray_is_set_up_closing_the_window_quits() {
        let app = app_with_main_window();
        assert!(!hides_on_close(app.handle()));
    }
}
