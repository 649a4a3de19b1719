//! MCP servers as tool sources: the `mcp.json` configuration ([`config`]), one connection per server through
//! the official Rust SDK behind our own [`McpClient`] trait ([`client`], [`launch`]), the tools they list as the
//! agent's tools named `<server>__<tool>` ([`tool_name`], [`agent_tool`]), and their results in pi's shape
//! ([`result`]).
//!
//! Contracts:
//! - A stdio server starts in a clean environment (an allowlist plus its own `env`) with the login shell's
//!   `PATH`, as the leader of its own process group (ending the connection ends the whole group), with stderr
//!   captured (the tail is kept for the UI, lines go to the log). A command that does not exist fails at once.
//! - Every call has a timeout that progress resets and a total cap; Stop (the tool's cancellation) sends the
//!   server `notifications/cancelled` and ends the call at once; progress that comes later is dropped.
//! - Tool annotations are the server's claims, kept for display and never trusted.
//!
//! Not declared to servers: sampling, elicitation and roots (a server asking for them is refused).

pub mod agent_tool;
pub mod client;
pub mod config;
pub mod config_file;
mod environment;
pub mod import;
pub mod launch;
pub mod result;
pub mod secret_values;
pub mod servers;
pub mod tool_name;

pub use agent_tool::{McpTool, ServingServer, mcp_agent_tools};
pub use client::{McpClient, McpError, McpToolInfo};
pub use config::{
    ConfigValue, MCP_FILE_NAME, McpConfig, McpConfigError, McpConfigProblem, McpServerConfig,
    McpTransport, keychain_name, parse_mcp_config,
};
pub use launch::RmcpClient;
pub use secret_values::{McpSecrets, NoSecrets};
pub use servers::{
    MAX_RESTARTS, McpLaunchView, McpReloadError, McpRestartError, McpServerState, McpServerView,
    McpServers, McpServersView, McpToolView, McpValueView, RevokeError, STABLE_AFTER,
};
pub use tool_name::{MODEL_TOOL_NAME_MAX, ToolNames, model_tool_name};
