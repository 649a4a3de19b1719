//! The settings' "Tools & servers": the servers of `mcp.json` (each with its state, command line, tools, stderr tail
//! and "always" grants), adding, editing, removing and enabling a server, turning one tool off or on, restarting a
//! server, revoking a grant, importing servers from Claude Desktop and Cursor, and the window's live view.
//!
//! Every edit goes through desktop-host's `config_file` (its checks, its keychain values), then `reload()`s the
//! servers and answers with the new view; the file and the keychain are touched on a blocking thread. The window
//! learns of later changes (a server that becomes ready, crashes, restarts) from `subscribe_mcp_servers`, never by
//! polling.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use desktop_host::mcp::config_file::{self, McpFileError, McpServerInput};
use desktop_host::mcp::import::{
    self, ImportFolders, McpImportCandidates, McpImportChoice, McpImportError,
};
use desktop_host::mcp::{McpRestartError, McpServers, McpServersView, RevokeError};
use desktop_host::settings::SettingsService;
use tauri::async_runtime::JoinHandle;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager as _, Runtime, State, WebviewWindow};

use crate::command_error::{CommandError, ErrorCode};

/// The least time between two views sent to a window: a server that writes to stderr all the time must not flood it.
const VIEW_INTERVAL: Duration = Duration::from_millis(100);

/// How long the app waits at exit for the servers' process groups to end.
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// Every server of `mcp.json` and where it stands, and what was wrong with the file.
#[tauri::command]
pub(crate) async fn mcp_servers(
    servers: State<'_, Arc<McpServers>>,
) -> Result<McpServersView, CommandError> {
    Ok(servers.view())
}

/// The forwarders of the windows that follow the servers: one per window, replaced when the window subscribes
/// again (a reload, the settings opened anew), aborted with the app.
#[derive(Default)]
pub(crate) struct McpWatchers(Mutex<HashMap<String, JoinHandle<()>>>);

impl McpWatchers {
    fn replace(&self, window: &str, forwarder: JoinHandle<()>) {
        let earlier = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(window.to_owned(), forwarder);
        if let Some(earlier) = earlier {
            earlier.abort();
        }
    }
}

impl Drop for McpWatchers {
    fn drop(&mut self) {
        for forwarder in self
            .0
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
        {
            forwarder.abort();
        }
    }
}

/// Answers with the servers as they are and sends `on_change` the whole view again after each change (at most
/// every [`VIEW_INTERVAL`]); a window's earlier subscription ends. Sending stops once the window stops listening.
#[tauri::command]
pub(crate) async fn subscribe_mcp_servers<R: Runtime>(
    window: WebviewWindow<R>,
    servers: State<'_, Arc<McpServers>>,
    watchers: State<'_, McpWatchers>,
    on_change: Channel<McpServersView>,
) -> Result<McpServersView, CommandError> {
    // Subscribed before the view is taken: a change in between is sent, never lost.
    let mut changes = servers.changes();
    changes.borrow_and_update();
    let view = servers.view();
    let servers = Arc::clone(&servers);
    let forwarder = tauri::async_runtime::spawn(async move {
        while changes.changed().await.is_ok() {
            changes.borrow_and_update();
            if let Err(error) = on_change.send(servers.view()) {
                tracing::debug!(%error, "the window stopped following the MCP servers");
                break;
            }
            tokio::time::sleep(VIEW_INTERVAL).await;
        }
    });
    watchers.replace(window.label(), forwarder);
    Ok(view)
}

/// Adds a server, or replaces the one the form was opened on (`server.previousName`); values entered go to the
/// keychain. The servers are brought in line with the file (a changed launch restarts), and the new view returned.
#[tauri::command]
pub(crate) async fn save_mcp_server(
    servers: State<'_, Arc<McpServers>>,
    settings: State<'_, SettingsService>,
    server: McpServerInput,
) -> Result<McpServersView, CommandError> {
    let path = config_path(&servers)?;
    let settings = settings.inner().clone();
    blocking(move || config_file::save_server(&path, &server, &settings)).await?;
    reloaded(&servers).await
}

/// Removes a server (it is ended) and the keychain values the app kept for it.
#[tauri::command]
pub(crate) async fn remove_mcp_server(
    servers: State<'_, Arc<McpServers>>,
    settings: State<'_, SettingsService>,
    name: String,
) -> Result<McpServersView, CommandError> {
    let path = config_path(&servers)?;
    let settings = settings.inner().clone();
    blocking(move || config_file::remove_server(&path, &name, &settings)).await?;
    reloaded(&servers).await
}

/// Enables a server (it starts) or disables it (it is ended).
#[tauri::command]
pub(crate) async fn set_mcp_server_enabled(
    servers: State<'_, Arc<McpServers>>,
    name: String,
    enabled: bool,
) -> Result<McpServersView, CommandError> {
    let path = config_path(&servers)?;
    blocking(move || config_file::set_disabled(&path, &name, !enabled)).await?;
    reloaded(&servers).await
}

/// Gives the agent one tool of a server again, or takes it away (`disabledTools`); the server keeps running.
#[tauri::command]
pub(crate) async fn set_mcp_tool_enabled(
    servers: State<'_, Arc<McpServers>>,
    server: String,
    tool: String,
    enabled: bool,
) -> Result<McpServersView, CommandError> {
    let path = config_path(&servers)?;
    blocking(move || config_file::set_tool_enabled(&path, &server, &tool, enabled)).await?;
    reloaded(&servers).await
}

/// Ends a server and starts it again (a failed one's retry); a disabled one is refused.
#[tauri::command]
pub(crate) async fn restart_mcp_server(
    servers: State<'_, Arc<McpServers>>,
    name: String,
) -> Result<McpServersView, CommandError> {
    servers.restart(&name).await.map_err(|error| match error {
        McpRestartError::UnknownServer(_) => {
            CommandError::new(ErrorCode::McpUnknownServer, error.to_string())
        }
        McpRestartError::Disabled(_) => {
            CommandError::new(ErrorCode::McpServerDisabled, error.to_string())
        }
    })?;
    Ok(servers.view())
}

/// Revokes an "always" grant of `server`: `tool`'s, or without `tool` the whole-server one; returns the servers as
/// `mcp_servers` does. The next call asks again.
#[tauri::command]
pub(crate) async fn revoke_mcp_grant(
    servers: State<'_, Arc<McpServers>>,
    server: String,
    tool: Option<String>,
) -> Result<McpServersView, CommandError> {
    servers
        .revoke(&server, tool.as_deref())
        .map_err(|error| match error {
            RevokeError::UnknownServer(_) => {
                CommandError::new(ErrorCode::McpUnknownServer, error.to_string())
            }
            RevokeError::NotKept(_) => {
                CommandError::new(ErrorCode::McpGrantNotKept, error.to_string())
            }
        })?;
    Ok(servers.view())
}

/// The servers Claude Desktop and Cursor have, with the exact command line each would run.
#[tauri::command]
pub(crate) async fn mcp_import_candidates(
    servers: State<'_, Arc<McpServers>>,
    folders: State<'_, ImportFolders>,
) -> Result<McpImportCandidates, CommandError> {
    let mcp_file = servers.config_file().map(PathBuf::from);
    let folders = folders.inner().clone();
    blocking(move || {
        Ok::<_, CommandError>(import::import_candidates(&folders, mcp_file.as_deref()))
    })
    .await
}

/// Copies the chosen servers into `mcp.json`, disabled (nothing starts), their plain values moved to the keychain.
#[tauri::command]
pub(crate) async fn import_mcp_servers(
    servers: State<'_, Arc<McpServers>>,
    settings: State<'_, SettingsService>,
    folders: State<'_, ImportFolders>,
    chosen: Vec<McpImportChoice>,
) -> Result<McpServersView, CommandError> {
    let path = config_path(&servers)?;
    let settings = settings.inner().clone();
    let folders = folders.inner().clone();
    blocking(move || {
        import::import_servers(&folders, &path, &chosen, &settings).map_err(import_error)
    })
    .await?;
    reloaded(&servers).await
}

/// Ends every MCP server (their whole process groups) on the app's way out, waiting at most [`EXIT_GRACE`].
pub(crate) fn end_servers_at_exit<R: Runtime>(app: &AppHandle<R>) {
    let Some(servers) = app.try_state::<Arc<McpServers>>() else {
        return;
    };
    let servers = Arc::clone(&servers);
    tauri::async_runtime::block_on(async move {
        if tokio::time::timeout(EXIT_GRACE, servers.shutdown())
            .await
            .is_err()
        {
            tracing::warn!("MCP servers still ending after {EXIT_GRACE:?}; exiting anyway");
        }
    });
}

/// Where `mcp.json` is; refused when the platform names no config folder.
fn config_path(servers: &McpServers) -> Result<PathBuf, CommandError> {
    servers
        .config_file()
        .map(PathBuf::from)
        .ok_or_else(|| CommandError::bare(ErrorCode::NoConfigFolder))
}

/// Brings the servers in line with the file just written, and the view they show now.
async fn reloaded(servers: &Arc<McpServers>) -> Result<McpServersView, CommandError> {
    servers
        .reload()
        .await
        .map_err(|error| CommandError::new(ErrorCode::McpFileFailed, error.to_string()))?;
    Ok(servers.view())
}

/// Runs `work` (the file, the keychain) on a blocking thread.
async fn blocking<T: Send + 'static, E: Into<CommandError> + Send + 'static>(
    work: impl FnOnce() -> Result<T, E> + Send + 'static,
) -> Result<T, CommandError> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(CommandError::work_stopped)?
        .map_err(Into::into)
}

impl From<McpFileError> for CommandError {
    fn from(error: McpFileError) -> CommandError {
        let code = match &error {
            McpFileError::Invalid { .. } => ErrorCode::McpEntryInvalid,
            McpFileError::UnknownServer(_) => ErrorCode::McpUnknownServer,
            McpFileError::NameTaken(_) => ErrorCode::McpNameTaken,
            McpFileError::NotJson { .. }
            | McpFileError::NotAConfig { .. }
            | McpFileError::Read { .. }
            | McpFileError::Write { .. } => ErrorCode::McpFileFailed,
            McpFileError::Keychain { .. } => ErrorCode::McpKeychainFailed,
        };
        CommandError::new(code, error.to_string())
    }
}

fn import_error(error: McpImportError) -> CommandError {
    match error {
        McpImportError::File(error) => CommandError::from(error),
        McpImportError::SameName(_) => {
            CommandError::new(ErrorCode::McpNameTaken, error.to_string())
        }
        McpImportError::Source { .. }
        | McpImportError::NoFolder(_)
        | McpImportError::NotThere { .. } => {
            CommandError::new(ErrorCode::McpImportFailed, error.to_string())
        }
    }
}
