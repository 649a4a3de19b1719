//! [`McpTool`]: one tool of a connected server as an agent tool, named for the model by [`ToolNames`] and
//! described with the server it comes from.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use pi_agent::{AgentTool, AgentToolResult, ToolError, ToolUpdateSink};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use sha2::{Digest, Sha256};

use crate::approval::McpToolRef;
use crate::mcp::client::{McpClient, McpError, McpToolInfo};
use crate::mcp::result::tool_result;
use crate::mcp::tool_name::ToolNames;

/// A server's tool as the agent runs it.
pub struct McpTool {
    client: Arc<dyn McpClient>,
    info: McpToolInfo,
    model_name: String,
    description: String,
    takes_images: bool,
}

impl McpTool {
    /// The server's tool `info`, called `model_name` by the model.
    pub fn new(
        client: Arc<dyn McpClient>,
        info: McpToolInfo,
        model_name: String,
        takes_images: bool,
    ) -> Self {
        let description = match info.description.trim() {
            "" => format!("A tool of the MCP server \"{}\".", client.server_name()),
            text => format!(
                "{text}\n\n(A tool of the MCP server \"{}\".)",
                client.server_name()
            ),
        };
        McpTool {
            client,
            info,
            model_name,
            description,
            takes_images,
        }
    }

    /// What the server listed.
    pub fn info(&self) -> &McpToolInfo {
        &self.info
    }

    /// The server it belongs to.
    pub fn server_name(&self) -> &str {
        self.client.server_name()
    }

    /// The tool as approval knows it.
    pub fn approval_ref(&self) -> McpToolRef {
        McpToolRef {
            server: self.server_name().to_owned(),
            tool: self.info.name.clone(),
            read_only_claim: self.info.read_only_hint,
            destructive_claim: self.info.destructive_hint,
            definition: definition_hash(&self.info),
        }
    }
}

impl AgentTool for McpTool {
    fn name(&self) -> &str {
        &self.model_name
    }

    fn label(&self) -> &str {
        &self.info.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> &Value {
        &self.info.input_schema
    }

    fn execute(
        &self,
        _tool_call_id: String,
        arguments: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateSink,
    ) -> BoxFuture<'_, Result<AgentToolResult, ToolError>> {
        Box::pin(async move {
            match self
                .client
                .call(&self.info.name, arguments, on_update, cancel)
                .await
            {
                Ok(result) => tool_result(&result, self.takes_images),
                Err(McpError::Cancelled) => Err(ToolError::new("Operation aborted")),
                Err(error) => Err(ToolError::new(error.to_string())),
            }
        })
    }
}

/// A hash of what the server says the tool is (name, description, argument schema).
pub fn definition_hash(info: &McpToolInfo) -> String {
    let definition = serde_json::json!({
        "name": info.name,
        "description": info.description,
        "inputSchema": info.input_schema,
    });
    let digest = Sha256::digest(definition.to_string().as_bytes());
    digest
        .iter()
        .take(16)
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// A ready server as a run gets it: the connection and the tools the user turned off.
#[derive(Clone)]
pub struct ServingServer {
    /// The connection.
    pub client: Arc<dyn McpClient>,
    /// Its tools the agent does not get (`disabledTools`).
    pub disabled_tools: Vec<String>,
}

impl From<Arc<dyn McpClient>> for ServingServer {
    fn from(client: Arc<dyn McpClient>) -> Self {
        ServingServer {
            client,
            disabled_tools: Vec::new(),
        }
    }
}

/// The agent tools of every ready server, in order (turned-off tools left out), named uniquely beside the tools
/// named `taken`.
pub fn mcp_agent_tools(
    servers: &[ServingServer],
    taken: &[&str],
    takes_images: bool,
) -> Vec<Arc<McpTool>> {
    let mut names = ToolNames::with_taken(taken.iter().copied());
    servers
        .iter()
        .flat_map(|server| {
            server
                .client
                .tools()
                .into_iter()
                .filter(|info| !server.disabled_tools.contains(&info.name))
                .map(|info| (Arc::clone(&server.client), info))
                .collect::<Vec<_>>()
        })
        .map(|(client, info)| {
            let model_name = names.assign(client.server_name(), &info.name);
            Arc::new(McpTool::new(client, info, model_name, takes_images))
        })
        .collect()
}
