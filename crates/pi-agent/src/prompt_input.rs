//! [`PromptInput`]: what [`crate::Agent::prompt`] accepts.

use pi_ai::{ImageContent, UserBlock, UserContent, UserMessage};

use crate::agent_message::AgentMessage;

/// What `prompt` accepts: text (with optional images), one message, or several.
#[derive(Debug, Clone)]
pub enum PromptInput {
    /// A user message with one text block, followed by the images (if any).
    Text {
        /// The text.
        text: String,
        /// Images appended after the text block.
        images: Vec<ImageContent>,
    },
    /// Messages used as they are (any role; an empty list starts a run with no prompt).
    Messages(Vec<AgentMessage>),
}

impl PromptInput {
    /// Text plus images.
    pub fn with_images(text: impl Into<String>, images: Vec<ImageContent>) -> Self {
        PromptInput::Text {
            text: text.into(),
            images,
        }
    }

    pub(crate) fn into_messages(self) -> Vec<AgentMessage> {
        match self {
            PromptInput::Text { text, images } => {
                let mut blocks = vec![UserBlock::text(text)];
                blocks.extend(images.into_iter().map(UserBlock::Image));
                vec![AgentMessage::User(UserMessage::new(UserContent::Blocks(
                    blocks,
                )))]
            }
            PromptInput::Messages(messages) => messages,
        }
    }
}

impl From<&str> for PromptInput {
    fn from(text: &str) -> Self {
        PromptInput::Text {
            text: text.into(),
            images: Vec::new(),
        }
    }
}

impl From<String> for PromptInput {
    fn from(text: String) -> Self {
        PromptInput::Text {
            text,
            images: Vec::new(),
        }
    }
}

impl From<AgentMessage> for PromptInput {
    fn from(message: AgentMessage) -> Self {
        PromptInput::Messages(vec![message])
    }
}

impl From<Vec<AgentMessage>> for PromptInput {
    fn from(messages: Vec<AgentMessage>) -> Self {
        PromptInput::Messages(messages)
    }
}
