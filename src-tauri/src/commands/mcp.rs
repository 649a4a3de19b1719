//! The settings' view of the MCP servers (each with its state, command line, tools, stderr tail and "always"
//! grants) and revoking a grant.

use std::sync::Arc;

use desktop_host::mcp::{McpServers, McpServersView, RevokeError};
use tauri::State;

use crate::command_error::{CommandError, ErrorKind};

/// Every server of `mcp.json` and where it stands, and what was wrong with the file.
#[tauri::command]
pub(crate) async fn mcp_servers(
    servers: State<'_, Arc<McpServers>>,
) -> Result<McpServersView, CommandError> {
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
                CommandError::new(ErrorKind::Invalid, error.to_string())
            }
            RevokeError::NotKept(_) => CommandError::new(
                ErrorKind::Storage,
                format!("{error}. Check that the config folder is writable."),
            ),
        })?;
    Ok(servers.view())
}
