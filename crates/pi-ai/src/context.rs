//! What a stream function receives: [`Context`] and [`Tool`] (spec 1.4).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::Message;

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Name the model uses.
    pub name: String,
    /// Description for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
    /// `false`, `{type:"json_schema", strict}` or `{type:"grammar", variants}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constrained_sampling: Option<Value>,
}

impl Tool {
    /// A tool with the given name, description and parameter schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters,
            constrained_sampling: None,
        }
    }
}

/// The conversation sent to a model.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Context {
    /// System prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The transcript, oldest first.
    pub messages: Vec<Message>,
    /// Tools the model may call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
}
