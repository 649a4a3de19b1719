//! [`AgentTool`]: a model-visible tool plus its local execution (spec 1.8), and what executing it returns.

use std::fmt;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use pi_ai::{Tool, Usage, UserBlock};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

pub use crate::tool_update::ToolUpdateSink;

/// How the calls of one assistant message run: one after another, or concurrently (the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolExecutionMode {
    /// Each call is prepared, executed and reported before the next one starts.
    Sequential,
    /// Calls are prepared in order, then executed concurrently; results are reported in source order.
    #[default]
    Parallel,
}

/// A tool the agent can run: the model-visible definition plus [`AgentTool::execute`].
///
/// Contract: `execute` runs with validated (and coerced) arguments, returns `Ok` with the content the model
/// will see, or `Err` on failure (the loop turns it into an error tool result carrying the error's text; a
/// failure described only inside `content` is not an error). It must honour `cancel` itself and return
/// promptly once it fires; a tool that ignores cancellation is abandoned after the loop's grace period and
/// reported as "Operation aborted". A panic inside `execute` is caught and reported like an `Err`.
pub trait AgentTool: Send + Sync {
    /// The name the model calls the tool by.
    fn name(&self) -> &str;

    /// A human-readable label for the UI (defaults to the name).
    fn label(&self) -> &str {
        self.name()
    }

    /// The description the model reads.
    fn description(&self) -> &str;

    /// JSON Schema of the arguments object.
    fn parameters(&self) -> &Value;

    /// Per-tool override: `Some(Sequential)` makes every batch that calls this tool run sequentially.
    fn execution_mode(&self) -> Option<ToolExecutionMode> {
        None
    }

    /// Optional shim applied to the raw arguments before validation (e.g. migrating an old argument shape).
    /// The default returns them unchanged. An `Err` becomes an error tool result.
    fn prepare_arguments(&self, arguments: Value) -> Result<Value, ToolError> {
        Ok(arguments)
    }

    /// Runs the tool. `on_update` reports progress: each call emits one `tool_execution_update` event; calls
    /// made after this future settled are ignored.
    fn execute(
        &self,
        tool_call_id: String,
        arguments: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateSink,
    ) -> BoxFuture<'_, Result<AgentToolResult, ToolError>>;

    /// The model-visible definition (name, description, parameters).
    fn to_tool(&self) -> Tool {
        Tool::new(self.name(), self.description(), self.parameters().clone())
    }
}

impl fmt::Debug for dyn AgentTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentTool")
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

/// A shared tool handle, as stored in the agent state and contexts.
pub type SharedAgentTool = Arc<dyn AgentTool>;

/// What a tool returns (or reports as progress), passed through verbatim in `tool_execution_end.result`.
///
/// Only `content`, `details`, `usage` and `added_tool_names` reach the tool-result message; `terminate` is a
/// runtime hint (the batch ends the run's automatic follow-up request only if every result sets it); any other
/// key the tool returned is kept in `extra` and rides along in events (a returned `isError` does not make the
/// call an error).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentToolResult {
    /// Text / image blocks sent to the model (absent counts as empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<UserBlock>>,
    /// UI / log payload.
    #[serde(
        default,
        deserialize_with = "present_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// The tool's own usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Names of tools that become available from this point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_tool_names: Option<Vec<String>>,
    /// Ask the loop not to make the automatic follow-up request (see the type docs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminate: Option<bool>,
    /// Every other key, verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Keeps an explicit JSON `null` as `Some(Value::Null)` (pi passes it through).
fn present_value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl AgentToolResult {
    /// A result with the given content blocks and details.
    pub fn new(content: Vec<UserBlock>, details: Value) -> Self {
        Self {
            content: Some(content),
            details: Some(details),
            ..Self::default()
        }
    }

    /// A result with one text block and the given details.
    pub fn text(text: impl Into<String>, details: Value) -> Self {
        Self::new(vec![UserBlock::text(text)], details)
    }

    /// The runtime's error result: one text block with `message`, details `{}`, nothing else.
    pub fn error(message: impl Into<String>) -> Self {
        Self::text(message, Value::Object(Map::new()))
    }

    /// True when `terminate` is exactly `true`.
    pub fn terminates(&self) -> bool {
        self.terminate == Some(true)
    }
}

/// A tool failure; its text becomes the error tool result's content.
///
/// Any `std::error::Error` converts into it, so `?` works inside tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error> From<E> for ToolError {
    fn from(error: E) -> Self {
        Self::new(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::AgentToolResult;

    #[test]
    fn unknown_keys_and_null_details_survive_a_round_trip() {
        let value = json!({"content": [{"type": "text", "text": "3 problems"}], "details": null, "isError": true});
        let result: AgentToolResult = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(result.extra.get("isError"), Some(&json!(true)));
        assert_eq!(serde_json::to_value(&result).unwrap(), value);
    }

    #[test]
    fn error_results_have_text_and_empty_details_only() {
        let value = serde_json::to_value(AgentToolResult::error("boom")).unwrap();
        assert_eq!(
            value,
            json!({"content": [{"type": "text", "text": "boom"}], "details": {}})
        );
    }
}
