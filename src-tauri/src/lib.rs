//! Pi Desktop's Tauri shell: the window, the IPC commands, logging.
//!
//! [`run`] starts the real app. [`configure`] puts the IPC surface on a builder of any
//! [`tauri::Runtime`], so tests drive exactly the commands the window gets on Tauri's mock runtime. Every command is listed in
//! the one `generate_handler!` below; each file under `commands/` is a thin wrapper, and the logic they
//! wrap lives in Tauri-free crates.
//!
//! Configuration has one home, `tauri.conf.json` at the repository root (`src-tauri/tauri.conf.json`
//! is a symlink to it for the Tauri CLI). What the window may call is granted in `capabilities/`.

mod command_error;
mod commands;
#[cfg(target_os = "linux")]
mod display;
mod host;
#[cfg(test)]
mod ipc_surface_tests;
mod logging;
mod memory_release;
mod navigation_guard;
mod notifications;
mod quick_ask;
pub mod safe_rendering;
mod single_instance;
#[cfg(unix)]
mod termination;
#[cfg(test)]
mod test_window;
mod tray;
#[cfg(target_os = "linux")]
mod web_process_memory;
mod window_geometry;
mod window_state;
mod window_state_file;

use desktop_host::desktop_paths::DesktopPaths;
use desktop_host::mcp::McpServers;
use desktop_host::settings::SettingsService;
use tauri::{Manager as _, RunEvent};

use crate::window_state::WindowStateKeeper;

pub use command_error::{CommandError, ErrorKind};
pub use commands::app::AppInfo;
pub use host::{AppState, SessionFactory};
pub use logging::{LOG_FILE_PREFIX, LoggingError};

/// The label of the one window, as `tauri.conf.json` names it.
pub(crate) const MAIN_WINDOW: &str = "main";

/// Why the app could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Tauri failed to build the app or its window.
    #[error("the app failed to start: {0}")]
    Tauri(#[from] tauri::Error),
    /// Neither `DISPLAY` nor `WAYLAND_DISPLAY` is set, so no window can be shown.
    #[error(
        "no graphical display: DISPLAY and WAYLAND_DISPLAY are unset. Start Pi Desktop from a desktop session."
    )]
    NoDisplay,
}

/// Adds the app's IPC surface to `builder`, for any runtime: every command (the list below is the whole surface;
/// `capabilities/default.json` grants exactly these), the opener plugin (links open in the system browser; the
/// capability allows http, https and mailto URLs only), the dialog and autostart plugins (used from Rust only:
/// the window is granted none of their commands) and the guard that keeps the webview on the app's page.
/// The commands need the conversations service as managed state (and the settings service): [`run`] opens it
/// in `setup` over the app's data folder; tests manage one over a temporary folder.
pub fn configure<R: tauri::Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    // Any command counts as activity: the allocator's freed memory goes back after the quiet that follows.
    let release = memory_release::MemoryRelease::start();
    let commands = command_handler::<R>();
    builder
        .plugin(tauri_plugin_opener::init())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_autostart::init(
            tauri_plugin_autostart::MacosLauncher::LaunchAgent,
            None,
        ))
        .plugin(navigation_guard::plugin())
        .manage(commands::export::ExportedFiles::default())
        .manage(quick_ask::QuickAskShortcut::default())
        .manage(quick_ask::QuickAskConversation::default())
        .manage(release.clone())
        .invoke_handler(move |invoke| {
            release.note_activity();
            commands(invoke)
        })
}

/// Every command of the window: the whole IPC surface.
fn command_handler<R: tauri::Runtime>()
-> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
    tauri::generate_handler![
        commands::app::app_info,
        commands::app::open_log_folder,
        commands::autostart::autostart_enabled,
        commands::autostart::set_autostart,
        quick_ask::quick_ask,
        quick_ask::open_in_main_window,
        quick_ask::hide_quick_ask,
        quick_ask::quick_ask_shortcut_status,
        commands::images::fetch_image,
        commands::stream::subscribe,
        commands::active_conversation::get_state,
        commands::active_conversation::new_conversation,
        commands::run::prompt,
        commands::attachments::read_attachment,
        commands::run::continue_run,
        commands::run::abort,
        commands::run::steer,
        commands::run::follow_up,
        commands::run::cancel_queued,
        commands::run::send_queued,
        commands::queue_settings::queue_settings,
        commands::queue_settings::save_queue_settings,
        commands::run::resolve_approval,
        commands::versions::regenerate,
        commands::versions::edit_message,
        commands::versions::show_version,
        commands::versions::delete_message_pair,
        commands::versions::restore_messages,
        commands::versions::continue_answer,
        commands::sidebar::list_conversations,
        commands::sidebar::search_conversations,
        commands::sidebar::open_conversation,
        commands::sidebar::rename_conversation,
        commands::sidebar::delete_conversation,
        commands::sidebar::restore_conversation,
        commands::sidebar::export_conversation,
        commands::export::choose_export_path,
        commands::export::reveal_exported_file,
        commands::inspector::inspect_conversation,
        commands::inspector::run_events,
        commands::inspector::run_replay,
        commands::inspector::export_run_log,
        commands::settings::get_settings,
        commands::settings::save_settings,
        commands::settings::set_api_key,
        commands::settings::delete_api_key,
        commands::settings::accept_key_file_fallback,
        commands::mcp::mcp_servers,
        commands::mcp::revoke_mcp_grant,
        commands::mcp::subscribe_mcp_servers,
        commands::mcp::save_mcp_server,
        commands::mcp::remove_mcp_server,
        commands::mcp::set_mcp_server_enabled,
        commands::mcp::set_mcp_tool_enabled,
        commands::mcp::restart_mcp_server,
        commands::mcp::mcp_import_candidates,
        commands::mcp::import_mcp_servers,
        commands::approval_grants::conversation_grants,
        commands::approval_grants::revoke_conversation_grant,
        commands::approval_grants::approval_settings,
        commands::approval_grants::save_approval_settings,
        commands::models::connection_settings,
        commands::models::save_connection_settings,
        commands::models::list_models,
        commands::models::describe_model,
        commands::models::test_connection,
        commands::models::provider_status,
        commands::models::detect_local_servers,
        commands::models::set_conversation_model,
    ]
}

/// Starts logging, hands over to an already running instance (then exits), restores and shows the main window
/// (created hidden), opens the conversations (the database in the app's data folder, exports into Downloads) and
/// runs until the last window closes or SIGTERM/SIGINT arrives; the window's geometry is saved on the way out.
pub fn run() -> Result<(), RunError> {
    memory_release::keep_heap_tops_small();
    #[cfg(target_os = "linux")]
    if !display::display_configured(|name| std::env::var_os(name)) {
        return Err(RunError::NoDisplay);
    }
    let app = configure(tauri::Builder::<tauri::Wry>::new())
        // Plugins start in this order, all before `setup`: logging first so the others can log.
        .plugin(logging::plugin())
        .plugin(single_instance::plugin())
        .plugin(quick_ask::plugin())
        .setup(|app| {
            build_main_window(app)?;
            let settings = SettingsService::from_platform();
            let stored = settings.load().unwrap_or_default();
            let language = stored.language.unwrap_or_else(|| {
                desktop_host::language::Language::from_locale_env(&std::env::vars().collect())
            });
            let tray_shown = tray::install(app.handle(), language);
            quick_ask::register_after_start(app.handle(), stored.quick_ask_shortcut.clone());
            // Started minimized, the window stays hidden until the tray shows it; without a tray it is shown.
            let show_window = !(tray_shown && stored.start_minimized.unwrap_or(false));
            let window_state = WindowStateKeeper::new(
                desktop_host::settings::default_config_dir()
                    .map(|dir| dir.join(window_state_file::WINDOW_STATE_FILE_NAME)),
            );
            match app.get_webview_window(MAIN_WINDOW) {
                Some(window) => {
                    window_state.restore(&window, main_window_min_size(app.config()), show_window)
                }
                None => tracing::warn!("no main window to restore"),
            }
            app.manage(window_state);
            #[cfg(unix)]
            termination::exit_gracefully_on_signals(app.handle());
            let log_dir = app.path().app_log_dir()?;
            let data_dir = app.path().app_data_dir()?;
            let export_dir = DesktopPaths::detect()
                .map(|paths| paths.downloads().to_path_buf())
                .unwrap_or_else(|| data_dir.clone());
            // The servers of mcp.json start in the background; a run gets the tools of those ready by then.
            let mcp = std::sync::Arc::new(McpServers::load(
                settings.config_dir(),
                std::sync::Arc::new(settings.clone()),
            ));
            let starting = std::sync::Arc::clone(&mcp);
            tauri::async_runtime::spawn(async move { starting.start_all().await });
            let conversations = host::open_conversations(
                data_dir.clone(),
                export_dir,
                host::sessions_from_settings(settings.clone(), std::sync::Arc::clone(&mcp)),
            )?;
            app.manage(mcp);
            app.manage(commands::mcp::McpWatchers::default());
            app.manage(desktop_host::mcp::import::ImportFolders::from_platform());
            notifications::watch(app.handle(), &conversations);
            app.manage(conversations);
            app.manage(desktop_host::model_list::ModelLists::new(
                settings.config_dir(),
            ));
            app.manage(settings);
            tracing::info!(
                version = %app.package_info().version,
                log_dir = %log_dir.display(),
                data_dir = %data_dir.display(),
                "pi desktop started"
            );
            Ok(())
        })
        .on_window_event(|window, event| {
            // Nobody sees a window's web process stall while it empties WebKit's caches now.
            #[cfg(target_os = "linux")]
            if let tauri::WindowEvent::Focused(false) = event
                && let Some(webview) = window.app_handle().get_webview_window(window.label())
            {
                web_process_memory::tell_web_process(
                    &webview,
                    web_process_memory::Moment::WentBehind,
                );
            }
            if window.label() != MAIN_WINDOW {
                return;
            }
            match event {
                tauri::WindowEvent::CloseRequested { api, .. }
                    if tray::hides_on_close(window.app_handle()) =>
                {
                    api.prevent_close();
                    if let Err(error) = window.hide() {
                        tracing::warn!(%error, "cannot hide the main window to the tray");
                    }
                }
                // The quick-ask window alone does not keep the app running.
                tauri::WindowEvent::Destroyed => window.app_handle().exit(0),
                _ => {}
            }
        })
        .build(tauri::generate_context!())?;
    app.run(|app, event| {
        if let RunEvent::Exit = event {
            if let Some(window_state) = app.try_state::<WindowStateKeeper>() {
                window_state.save(app);
            }
            // The servers' process groups end with the app, not when the system gets round to them.
            commands::mcp::end_servers_at_exit(app);
        }
    });
    Ok(())
}

/// Builds the main window as `tauri.conf.json` describes it (it leaves the creation to this function), on Linux
/// with the web process extension that gives freed memory back after each quiet spell, when it could be written.
/// Once its page has loaded, the quick-ask shortcut of the settings is registered (a moment later, off the start).
fn build_main_window(app: &tauri::App) -> tauri::Result<()> {
    let config = main_window_config(app.config()).ok_or(tauri::Error::WindowNotFound)?;
    let builder = tauri::WebviewWindowBuilder::from_config(app.handle(), config)?.on_page_load(
        |window, payload| {
            if payload.event() == tauri::webview::PageLoadEvent::Finished {
                let app = window.app_handle().clone();
                std::thread::spawn(move || {
                    std::thread::sleep(quick_ask::REGISTER_AFTER_PAGE_LOAD);
                    quick_ask::register_waiting_shortcut(&app);
                });
            }
        },
    );
    #[cfg(target_os = "linux")]
    let builder = {
        let installed = app.path().app_cache_dir().and_then(|cache| {
            web_process_memory::install_extension(&cache).map_err(tauri::Error::Io)
        });
        match installed {
            Ok(folder) => {
                let handle = app.handle().clone();
                app.state::<memory_release::MemoryRelease>()
                    .also(move || web_process_memory::after_quiet_spell(&handle));
                builder.extensions_path(folder)
            }
            Err(error) => {
                tracing::warn!(%error, "the web process will keep the memory it frees: its extension cannot be written");
                builder
            }
        }
    };
    builder.build()?;
    Ok(())
}

/// The main window's entry in `tauri.conf.json`.
fn main_window_config(config: &tauri::Config) -> Option<&tauri::utils::config::WindowConfig> {
    config
        .app
        .windows
        .iter()
        .find(|window| window.label == MAIN_WINDOW)
}

/// The main window's minimum size in logical pixels, from its configuration (none: no minimum).
fn main_window_min_size(config: &tauri::Config) -> (f64, f64) {
    main_window_config(config).map_or((0.0, 0.0), |window| {
        (
            window.min_width.unwrap_or(0.0),
            window.min_height.unwrap_or(0.0),
        )
    })
}
