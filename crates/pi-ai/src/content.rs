//! Content blocks (spec 1.2): text, thinking, image and tool calls, tagged by `type` exactly as pi tags them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::shared_text::SharedText;

/// A text block: `{"type":"text","text":…,"textSignature"?:…}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    /// The text; cheap to clone and to extend (see [`SharedText`]).
    pub text: SharedText,
    /// Opaque provider metadata (e.g. an OpenAI Responses message id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_signature: Option<String>,
}

impl TextContent {
    /// A text block without signature.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: SharedText::new(text),
            text_signature: None,
        }
    }
}

/// A thinking block: `{"type":"thinking","thinking":…,"thinkingSignature"?:…,"redacted"?:…}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingContent {
    /// The reasoning text.
    pub thinking: SharedText,
    /// Opaque replay data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_signature: Option<String>,
    /// True when the content is redacted (the opaque payload is in the signature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
}

impl ThinkingContent {
    /// A thinking block without signature.
    pub fn new(thinking: impl Into<String>) -> Self {
        Self {
            thinking: SharedText::new(thinking),
            thinking_signature: None,
            redacted: None,
        }
    }
}

/// An image block: `{"type":"image","data":<base64>,"mimeType":…}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64 data.
    pub data: String,
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
}

/// A tool call block: `{"type":"toolCall","id","name","arguments",…}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// Provider-assigned call id, echoed by the tool result.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments: a JSON object by contract; the tolerant streaming parser can rarely leave another value (4.5).
    pub arguments: Value,
    /// Google thought signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
    /// OpenAI Responses namespace of a namespaced / dynamically loaded tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

impl ToolCall {
    /// A tool call with the given id, name and arguments.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments,
            thought_signature: None,
            namespace: None,
        }
    }
}

/// A block of user or tool-result content: text or image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum UserBlock {
    /// `type: "text"`.
    #[serde(rename = "text")]
    Text(TextContent),
    /// `type: "image"`.
    #[serde(rename = "image")]
    Image(ImageContent),
}

impl UserBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        UserBlock::Text(TextContent::new(text))
    }
}

/// A block of assistant content: text, thinking or a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum AssistantBlock {
    /// `type: "text"`.
    #[serde(rename = "text")]
    Text(TextContent),
    /// `type: "thinking"`.
    #[serde(rename = "thinking")]
    Thinking(ThinkingContent),
    /// `type: "toolCall"`.
    #[serde(rename = "toolCall")]
    ToolCall(ToolCall),
}

impl AssistantBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        AssistantBlock::Text(TextContent::new(text))
    }

    /// A thinking block.
    pub fn thinking(thinking: impl Into<String>) -> Self {
        AssistantBlock::Thinking(ThinkingContent::new(thinking))
    }

    /// A tool call block.
    pub fn tool_call(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        AssistantBlock::ToolCall(ToolCall::new(id, name, arguments))
    }

    /// The tool call, if this is one.
    pub fn as_tool_call(&self) -> Option<&ToolCall> {
        match self {
            AssistantBlock::ToolCall(tool_call) => Some(tool_call),
            AssistantBlock::Text(_) | AssistantBlock::Thinking(_) => None,
        }
    }
}

impl From<TextContent> for AssistantBlock {
    fn from(block: TextContent) -> Self {
        AssistantBlock::Text(block)
    }
}

impl From<ThinkingContent> for AssistantBlock {
    fn from(block: ThinkingContent) -> Self {
        AssistantBlock::Thinking(block)
    }
}

impl From<ToolCall> for AssistantBlock {
    fn from(block: ToolCall) -> Self {
        AssistantBlock::ToolCall(block)
    }
}

/// Serde adapter for a standalone [`ToolCall`] written with its `"type":"toolCall"` tag, as pi writes the
/// `toolCall` of a `toolcall_end` event.
pub(crate) mod tagged_tool_call {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::ToolCall;

    #[derive(Serialize)]
    #[serde(tag = "type")]
    enum TaggedRef<'a> {
        #[serde(rename = "toolCall")]
        ToolCall(&'a ToolCall),
    }

    #[derive(Deserialize)]
    #[serde(tag = "type")]
    enum Tagged {
        #[serde(rename = "toolCall")]
        ToolCall(ToolCall),
    }

    /// Writes the tool call with its tag.
    pub(crate) fn serialize<S: Serializer>(
        tool_call: &ToolCall,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        TaggedRef::ToolCall(tool_call).serialize(serializer)
    }

    /// Reads a tagged tool call.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<ToolCall, D::Error> {
        let Tagged::ToolCall(tool_call) = Tagged::deserialize(deserializer)?;
        Ok(tool_call)
    }

    /// The same for a boxed tool call (`toolcall_end` boxes it to keep every stream event small).
    pub(crate) mod boxed {
        use serde::{Deserializer, Serializer};

        use super::ToolCall;

        /// Writes the tool call with its tag.
        #[allow(
            clippy::borrowed_box,
            reason = "serde's `with` passes a reference to the field"
        )]
        pub(crate) fn serialize<S: Serializer>(
            tool_call: &Box<ToolCall>,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            super::serialize(tool_call, serializer)
        }

        /// Reads a tagged tool call.
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Box<ToolCall>, D::Error> {
            super::deserialize(deserializer).map(Box::new)
        }
    }

    /// A serializable reference that writes the tag.
    pub(crate) struct Ref<'a>(pub(crate) &'a ToolCall);

    impl Serialize for Ref<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serialize(self.0, serializer)
        }
    }
}
