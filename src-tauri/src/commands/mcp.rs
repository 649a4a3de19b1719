//! The settings' view of the MCP servers: each with its state, command line, tools and stderr tail.

use std::sync::Arc;

use desktop_host::mcp::{McpServers, McpServersView};
use tauri::State;

use crate::command_error::CommandError;

/// Every server of `mcp.json` and where it stands, and what was wrong with the file.
#[tauri::command]
pub(crate) async fn mcp_servers(
    servers: State<'_, Arc<McpServers>>,
) -> Result<McpServersView, CommandError> {
    Ok(servers.view())
}
