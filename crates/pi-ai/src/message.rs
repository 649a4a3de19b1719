//! Messages (spec 1.3): user, assistant and tool-result messages, and the role-tagged [`Message`].

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::{AssistantBlock, ToolCall, UserBlock};
use crate::model::{Api, Model};
use crate::usage::Usage;

/// Milliseconds since the Unix epoch, now.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}

/// User content: a plain string or a list of text/image blocks. The JSON shape is kept as given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UserContent {
    /// `"content": "…"`.
    Text(String),
    /// `"content": [ … ]`.
    Blocks(Vec<UserBlock>),
}

impl From<&str> for UserContent {
    fn from(text: &str) -> Self {
        UserContent::Text(text.into())
    }
}

impl From<String> for UserContent {
    fn from(text: String) -> Self {
        UserContent::Text(text)
    }
}

impl From<Vec<UserBlock>> for UserContent {
    fn from(blocks: Vec<UserBlock>) -> Self {
        UserContent::Blocks(blocks)
    }
}

/// A user message: `{"role":"user","content":…,"timestamp":…}` (the `role` key is written by serde).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "user", rename_all = "camelCase")]
pub struct UserMessage {
    /// String or blocks.
    pub content: UserContent,
    /// Creation time in ms.
    pub timestamp: i64,
}

impl UserMessage {
    /// A user message with the given content, stamped now.
    pub fn new(content: impl Into<UserContent>) -> Self {
        Self {
            content: content.into(),
            timestamp: now_millis(),
        }
    }
}

/// Why an assistant response ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// Still streaming (partials only).
    Pending,
    /// Natural end.
    Stop,
    /// Output token limit reached.
    Length,
    /// The model wants tools to run.
    ToolUse,
    /// The request failed.
    Error,
    /// The request was cancelled.
    Aborted,
    /// A durable handle was returned instead of content.
    Deferred,
}

impl StopReason {
    /// True for `error` and `aborted`.
    pub fn is_failure(self) -> bool {
        matches!(self, StopReason::Error | StopReason::Aborted)
    }
}

/// A handle for a deferred response (`stopReason: "deferred"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeferredHandle {
    /// Provider id.
    pub provider: String,
    /// Model id.
    pub model_id: String,
    /// Api.
    pub api: Api,
    /// Handle id.
    pub id: String,
    /// Expiry, as the provider reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<Value>,
    /// Suggested delay before polling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_after_ms: Option<u64>,
    /// Provider data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// The error part of a [`Diagnostic`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticError {
    /// Error class name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Message.
    pub message: String,
    /// Stack, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    /// Error code (string or number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Value>,
}

/// A redacted runtime diagnostic attached to an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// Diagnostic kind.
    #[serde(rename = "type")]
    pub kind: String,
    /// When it happened (ms).
    pub timestamp: i64,
    /// The error, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<DiagnosticError>,
    /// Extra details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// An assistant message (spec 1.3).
///
/// `content` holds `Arc`ed blocks so a snapshot of a streaming message costs O(blocks), not O(text) (spec 6.2).
/// Serializes with `"role":"assistant"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "assistant", rename_all = "camelCase")]
pub struct AssistantMessage {
    /// Ordered text / thinking / toolCall blocks.
    pub content: Vec<Arc<AssistantBlock>>,
    /// Api that produced it.
    pub api: Api,
    /// Provider that produced it. Shared text: every streamed snapshot of the message clones it.
    pub provider: Arc<str>,
    /// Requested model id (shared, like `provider`).
    pub model: Arc<str>,
    /// Concrete model reported by the provider when different.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_model: Option<String>,
    /// Upstream response / message id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// Provider-native effort level used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_thinking_level: Option<String>,
    /// Redacted runtime diagnostics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
    /// Token usage (zeros when unknown). Absent in the JSON only when it was absent in decoded input.
    #[serde(default = "Usage::omitted", skip_serializing_if = "Usage::is_omitted")]
    pub usage: Usage,
    /// Why it ended (`pending` while streaming).
    pub stop_reason: StopReason,
    /// Deferred handle (only with `stopReason: "deferred"`); boxed because it is rare and large, and every
    /// streamed event carries an `AssistantMessage` by value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deferred: Option<Box<DeferredHandle>>,
    /// Set when stopReason is `error` / `aborted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// The provider's raw finish reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_stop_reason: Option<String>,
    /// The provider said the model explicitly ended its turn (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_turn: Option<bool>,
    /// Creation time in ms.
    pub timestamp: i64,
}

impl AssistantMessage {
    /// An empty message for `model`: no content, zero usage, stopReason `pending`, stamped now.
    pub fn empty(model: &Model) -> Self {
        Self::empty_with(
            model.api.clone(),
            model.provider.as_str().into(),
            model.id.as_str().into(),
        )
    }

    /// An empty message with the given origin: no content, zero usage, stopReason `pending`, stamped now.
    pub fn empty_for(api: Api, provider: String, model: String) -> Self {
        Self::empty_with(api, provider.into(), model.into())
    }

    fn empty_with(api: Api, provider: Arc<str>, model: Arc<str>) -> Self {
        Self {
            content: Vec::new(),
            api,
            provider,
            model,
            response_model: None,
            response_id: None,
            provider_thinking_level: None,
            diagnostics: None,
            usage: Usage::default(),
            stop_reason: StopReason::Pending,
            deferred: None,
            error_message: None,
            raw_stop_reason: None,
            end_turn: None,
            timestamp: now_millis(),
        }
    }

    /// A failure message for `model`: empty content, zero usage, the given stop reason and error text.
    pub fn failure(model: &Model, reason: StopReason, error_message: impl Into<String>) -> Self {
        let mut message = Self::empty(model);
        message.stop_reason = reason;
        message.error_message = Some(error_message.into());
        message
    }

    /// The tool calls, in content order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|block| block.as_tool_call())
    }

    /// All text blocks joined (pi's `contentText`).
    pub fn text(&self) -> String {
        let mut text = String::new();
        for block in &self.content {
            if let AssistantBlock::Text(block) = block.as_ref() {
                text.push_str(&block.text.as_str());
            }
        }
        text
    }
}

/// A tool result message: `{"role":"toolResult","toolCallId",…}` (the `role` key is written by serde).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "toolResult", rename_all = "camelCase")]
pub struct ToolResultMessage {
    /// The answered call's id.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// Text / image blocks sent to the model.
    pub content: Vec<UserBlock>,
    /// UI / log payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// The tool's own usage (not context accounting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Tool names that become available from this point (present only when non-empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_tool_names: Option<Vec<String>>,
    /// True for an error result.
    pub is_error: bool,
    /// Creation time in ms.
    pub timestamp: i64,
}

/// An LLM message, tagged by `role`: `user`, `assistant` or `toolResult`.
#[allow(
    clippy::large_enum_variant,
    reason = "messages are built once and moved rarely; boxing would burden every match"
)]
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "role")]
pub enum Message {
    /// `role: "user"`.
    #[serde(rename = "user")]
    User(UserMessage),
    /// `role: "assistant"`.
    #[serde(rename = "assistant")]
    Assistant(AssistantMessage),
    /// `role: "toolResult"`.
    #[serde(rename = "toolResult")]
    ToolResult(ToolResultMessage),
}

impl Message {
    /// The wire role.
    pub fn role(&self) -> &'static str {
        match self {
            Message::User(_) => "user",
            Message::Assistant(_) => "assistant",
            Message::ToolResult(_) => "toolResult",
        }
    }

    /// Creation time in ms.
    pub fn timestamp(&self) -> i64 {
        match self {
            Message::User(message) => message.timestamp,
            Message::Assistant(message) => message.timestamp,
            Message::ToolResult(message) => message.timestamp,
        }
    }
}

impl Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Each message struct writes its own `role`.
        match self {
            Message::User(message) => message.serialize(serializer),
            Message::Assistant(message) => message.serialize(serializer),
            Message::ToolResult(message) => message.serialize(serializer),
        }
    }
}

impl From<UserMessage> for Message {
    fn from(message: UserMessage) -> Self {
        Message::User(message)
    }
}

impl From<AssistantMessage> for Message {
    fn from(message: AssistantMessage) -> Self {
        Message::Assistant(message)
    }
}

impl From<ToolResultMessage> for Message {
    fn from(message: ToolResultMessage) -> Self {
        Message::ToolResult(message)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{AssistantMessage, Message, UserMessage};
    use crate::model::Api;

    #[test]
    fn messages_carry_their_role_alone_and_inside_message() {
        let assistant = AssistantMessage::empty_for(Api::SCRIPTED, "p".into(), "m".into());
        let alone = serde_json::to_value(&assistant).unwrap();
        assert_eq!(alone["role"], json!("assistant"));
        let wrapped = serde_json::to_string(&Message::Assistant(assistant.clone())).unwrap();
        assert_eq!(wrapped.matches("\"role\"").count(), 1);
        assert_eq!(
            serde_json::from_str::<Message>(&wrapped).unwrap(),
            Message::Assistant(assistant.clone())
        );
        assert_eq!(
            serde_json::from_value::<AssistantMessage>(alone).unwrap(),
            assistant
        );
        let user: Message =
            serde_json::from_value(json!({"role": "user", "content": "hi", "timestamp": 1}))
                .unwrap();
        assert_eq!(
            user,
            Message::User(UserMessage {
                content: "hi".into(),
                timestamp: 1
            })
        );
    }
}
