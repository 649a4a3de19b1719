//! [`McpClient`]: what the app needs of a connected MCP server, whatever the transport and SDK behind it.

use futures_util::future::BoxFuture;
use pi_agent::ToolUpdateSink;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// A tool as the server listed it. Annotations are the server's claims: shown, never trusted.
#[derive(Clone, Debug, PartialEq)]
pub struct McpToolInfo {
    /// The server's name for it.
    pub name: String,
    /// What it does, as the server says.
    pub description: String,
    /// JSON Schema of its arguments.
    pub input_schema: Value,
    /// The server says it only reads.
    pub read_only_hint: bool,
    /// The server says it may destroy data.
    pub destructive_hint: bool,
}

/// Why a server could not be reached or a call did not complete. `Display` is safe to show and to give the
/// model: it names the server, never a secret.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The program to start does not exist.
    #[error("MCP server \"{server}\": {command} not found: {hint}")]
    CommandNotFound {
        /// The server.
        server: String,
        /// The program.
        command: String,
        /// What to do.
        hint: String,
    },
    /// The program exists but could not be started.
    #[error("MCP server \"{server}\": cannot start {command}: {source}")]
    Spawn {
        /// The server.
        server: String,
        /// The program.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// The server did not complete the MCP handshake.
    #[error("MCP server \"{server}\" did not start: {reason}{stderr}")]
    Handshake {
        /// The server.
        server: String,
        /// What went wrong.
        reason: String,
        /// The end of what it wrote to stderr (with a leading separator), or empty.
        stderr: String,
    },
    /// A `{"keychain": NAME}` value has nothing behind it.
    #[error("MCP server \"{server}\", {field}: {reason}")]
    MissingSecret {
        /// The server.
        server: String,
        /// `env.NAME` or `headers.NAME`.
        field: String,
        /// Why, and where to enter it.
        reason: String,
    },
    /// The call was stopped (Stop, or the run ended).
    #[error("stopped")]
    Cancelled,
    /// No answer in time.
    #[error("MCP server \"{server}\" did not answer {tool} in time ({reason})")]
    Timeout {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// Which limit.
        reason: String,
    },
    /// The connection is gone.
    #[error("MCP server \"{server}\" is not running: {reason}")]
    Closed {
        /// The server.
        server: String,
        /// Why, as far as known.
        reason: String,
    },
    /// The server answered with a JSON-RPC error.
    #[error("MCP server \"{server}\" refused {tool}: {message}")]
    Refused {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// Its message.
        message: String,
    },
}

/// A connected server.
///
/// Contract: `call` returns the `tools/call` result as the server sent it (JSON, `content`, `isError`,
/// `structuredContent`); it reports progress on `progress` while it runs and stops at once when `cancel` fires
/// (telling the server), after which nothing more is reported.
pub trait McpClient: Send + Sync {
    /// The server's name (from `mcp.json`).
    fn server_name(&self) -> &str;

    /// The tools it lists now (a `tools/list_changed` re-lists them).
    fn tools(&self) -> Vec<McpToolInfo>;

    /// Calls `tool` with `arguments`.
    fn call<'a>(
        &'a self,
        tool: &'a str,
        arguments: Value,
        progress: ToolUpdateSink,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<Value, McpError>>;
}
