//! [`AgentMessage`]: what the agent's transcript holds — the three LLM roles plus application-defined messages
//! with any other `role` (spec 1.7, 6.1).
//!
//! Serde is written by hand: `role` selects the arm; `user`, `assistant` and `toolResult` must parse as their
//! typed messages (a malformed one is an error, never silently custom), every other role becomes a
//! [`CustomMessage`] that keeps all of its keys verbatim.

use std::sync::Arc;

use pi_ai::{AssistantMessage, Message, ToolResultMessage, UserMessage};
use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// A message in the agent transcript.
#[allow(
    clippy::large_enum_variant,
    reason = "matches pi-ai's Message; boxing would burden every match"
)]
#[derive(Debug, Clone, PartialEq)]
pub enum AgentMessage {
    /// `role: "user"`.
    User(UserMessage),
    /// `role: "assistant"`. Shared: the transcript, the streaming events and the agent state hold the same
    /// immutable message (a streamed partial is the `partial` of the model event, not a copy).
    Assistant(Arc<AssistantMessage>),
    /// `role: "toolResult"`.
    ToolResult(ToolResultMessage),
    /// Any other role: an application message the model never sees unless `convert_to_llm` maps it.
    Custom(CustomMessage),
}

/// An application-defined message: its `role` plus every other key, kept verbatim (timestamp included).
#[derive(Debug, Clone, PartialEq)]
pub struct CustomMessage {
    /// The role string (never `user`, `assistant` or `toolResult`).
    pub role: String,
    /// All other keys of the JSON object.
    pub fields: Map<String, Value>,
}

impl CustomMessage {
    /// A custom message with the given role and fields (a `role` key in `fields` is ignored on output).
    pub fn new(role: impl Into<String>, fields: Map<String, Value>) -> Self {
        Self {
            role: role.into(),
            fields,
        }
    }
}

impl AgentMessage {
    /// The wire role.
    pub fn role(&self) -> &str {
        match self {
            AgentMessage::User(_) => "user",
            AgentMessage::Assistant(_) => "assistant",
            AgentMessage::ToolResult(_) => "toolResult",
            AgentMessage::Custom(custom) => &custom.role,
        }
    }

    /// Creation time in ms, when the message has one (custom messages: an integer `timestamp` key).
    pub fn timestamp(&self) -> Option<i64> {
        match self {
            AgentMessage::User(message) => Some(message.timestamp),
            AgentMessage::Assistant(message) => Some(message.timestamp),
            AgentMessage::ToolResult(message) => Some(message.timestamp),
            AgentMessage::Custom(custom) => custom.fields.get("timestamp").and_then(Value::as_i64),
        }
    }

    /// The assistant message, if this is one.
    pub fn as_assistant(&self) -> Option<&AssistantMessage> {
        match self {
            AgentMessage::Assistant(message) => Some(message),
            AgentMessage::User(_) | AgentMessage::ToolResult(_) | AgentMessage::Custom(_) => None,
        }
    }

    /// The LLM message for the three typed roles; `None` for custom messages.
    pub fn to_llm(&self) -> Option<Message> {
        match self {
            AgentMessage::User(message) => Some(Message::User(message.clone())),
            AgentMessage::Assistant(message) => Some(Message::Assistant((**message).clone())),
            AgentMessage::ToolResult(message) => Some(Message::ToolResult(message.clone())),
            AgentMessage::Custom(_) => None,
        }
    }

    /// Parses a message from its JSON form (see the module docs for the rules).
    pub fn from_json(value: Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }
}

/// pi's default `convertToLlm`: keep user, assistant and tool-result messages, unchanged and in order.
pub fn default_convert_to_llm(messages: &[AgentMessage]) -> Vec<Message> {
    messages.iter().filter_map(AgentMessage::to_llm).collect()
}

impl From<UserMessage> for AgentMessage {
    fn from(message: UserMessage) -> Self {
        AgentMessage::User(message)
    }
}

impl From<AssistantMessage> for AgentMessage {
    fn from(message: AssistantMessage) -> Self {
        AgentMessage::Assistant(Arc::new(message))
    }
}

impl From<Arc<AssistantMessage>> for AgentMessage {
    fn from(message: Arc<AssistantMessage>) -> Self {
        AgentMessage::Assistant(message)
    }
}

impl From<ToolResultMessage> for AgentMessage {
    fn from(message: ToolResultMessage) -> Self {
        AgentMessage::ToolResult(message)
    }
}

impl From<CustomMessage> for AgentMessage {
    fn from(message: CustomMessage) -> Self {
        AgentMessage::Custom(message)
    }
}

impl From<Message> for AgentMessage {
    fn from(message: Message) -> Self {
        match message {
            Message::User(message) => AgentMessage::User(message),
            Message::Assistant(message) => AgentMessage::Assistant(Arc::new(message)),
            Message::ToolResult(message) => AgentMessage::ToolResult(message),
        }
    }
}

impl Serialize for AgentMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The typed messages write their own `role` key.
        match self {
            AgentMessage::User(message) => message.serialize(serializer),
            AgentMessage::Assistant(message) => message.serialize(serializer),
            AgentMessage::ToolResult(message) => message.serialize(serializer),
            AgentMessage::Custom(custom) => custom.serialize(serializer),
        }
    }
}

impl Serialize for CustomMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let extra = self.fields.iter().filter(|(key, _)| key.as_str() != "role");
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("role", &self.role)?;
        for (key, value) in extra {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for AgentMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let fields = Map::<String, Value>::deserialize(deserializer)?;
        let role = match fields.get("role") {
            Some(Value::String(role)) => role.clone(),
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "message role must be a string, got {other}"
                )));
            }
            None => return Err(D::Error::missing_field("role")),
        };
        fn typed<E: serde::de::Error>(what: &'static str) -> impl Fn(serde_json::Error) -> E {
            move |error| E::custom(format!("invalid {what} message: {error}"))
        }
        if !matches!(role.as_str(), "user" | "assistant" | "toolResult") {
            // Rebuild without `role`, keeping the other keys in their order.
            let fields = fields
                .into_iter()
                .filter(|(key, _)| key != "role")
                .collect();
            return Ok(AgentMessage::Custom(CustomMessage { role, fields }));
        }
        // The typed messages read their own `role` key.
        match role.as_str() {
            "user" => serde_json::from_value(Value::Object(fields))
                .map(AgentMessage::User)
                .map_err(typed("user")),
            "assistant" => serde_json::from_value(Value::Object(fields))
                .map(|message| AgentMessage::Assistant(Arc::new(message)))
                .map_err(typed("assistant")),
            "toolResult" => serde_json::from_value(Value::Object(fields))
                .map(AgentMessage::ToolResult)
                .map_err(typed("toolResult")),
            _ => Err(D::Error::custom(format!("unexpected role {role}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::AgentMessage;

    #[test]
    fn custom_roles_round_trip_with_every_key() {
        let value = json!({"role": "note", "content": "UI-only", "level": "info", "timestamp": 5});
        let message = AgentMessage::from_json(value.clone()).unwrap();
        assert_eq!(message.role(), "note");
        assert_eq!(message.timestamp(), Some(5));
        assert_eq!(serde_json::to_value(&message).unwrap(), value);
    }

    #[test]
    fn a_malformed_typed_message_is_an_error_not_a_custom_message() {
        let error =
            AgentMessage::from_json(json!({"role": "toolResult", "content": 3})).unwrap_err();
        assert!(
            error.to_string().contains("invalid toolResult message"),
            "{error}"
        );
    }

    #[test]
    fn every_arm_writes_its_role_exactly_once() {
        let messages = [
            json!({"role": "user", "content": "Hi", "timestamp": 1}),
            json!({"role": "assistant", "content": [], "api": "a", "provider": "p", "model": "m",
                   "stopReason": "stop", "timestamp": 1}),
            json!({"role": "toolResult", "toolCallId": "c", "toolName": "t", "content": [], "isError": false,
                   "timestamp": 1}),
            json!({"role": "note", "content": "x"}),
        ];
        for value in messages {
            let message = AgentMessage::from_json(value.clone()).unwrap();
            let text = serde_json::to_string(&message).unwrap();
            assert_eq!(text.matches("\"role\"").count(), 1, "{text}");
            assert_eq!(
                serde_json::from_str::<serde_json::Value>(&text).unwrap(),
                value
            );
        }
    }

    #[test]
    fn user_string_content_stays_a_string() {
        let value = json!({"role": "user", "content": "Hi", "timestamp": 1});
        let message = AgentMessage::from_json(value.clone()).unwrap();
        assert_eq!(serde_json::to_value(&message).unwrap(), value);
    }
}
