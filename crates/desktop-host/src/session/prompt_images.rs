//! Images attached to a prompt: what the app accepts (PNG, JPEG, GIF, WebP; base64; at most 10 MB each decoded;
//! at most 8 per message) and the prompt that carries them, with the text of attached files
//! ([`crate::attachment`]: one block per file, between the typed text and the images). A [`SessionPrompt`] is
//! valid by construction.
//!
//! Whether the model can see images is not decided here: pi's `transformMessages` replaces the images with a
//! text placeholder for a model whose `input` lacks `"image"`.

use base64::Engine;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use pi_agent::{AgentMessage, PromptInput};
use pi_ai::{ImageContent, UserBlock, UserContent, UserMessage};

use crate::attachment::PromptFile;

/// The most images one message may carry.
pub const MAX_PROMPT_IMAGES: usize = 8;
/// The largest image accepted, in decoded bytes.
pub const MAX_IMAGE_BYTES: usize = 10 * 1024 * 1024;
/// The MIME types accepted.
pub const SUPPORTED_IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Why the images of a prompt were refused. `Display` is safe to show; images are counted from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptImageError {
    /// More than [`MAX_PROMPT_IMAGES`] images.
    #[error(
        "A message can carry at most {MAX_PROMPT_IMAGES} images; this one has {0}. Remove some and send again."
    )]
    TooMany(usize),
    /// A MIME type outside [`SUPPORTED_IMAGE_TYPES`].
    #[error("Image {index} has the type \"{mime_type}\"; attach PNG, JPEG, GIF or WebP images.")]
    UnsupportedType {
        /// Position, from 1.
        index: usize,
        /// The type given.
        mime_type: String,
    },
    /// The data is not standard base64.
    #[error("Image {index} is not valid base64 data; attach the image again.")]
    InvalidBase64 {
        /// Position, from 1.
        index: usize,
    },
    /// Larger than [`MAX_IMAGE_BYTES`] once decoded.
    #[error("Image {index} is {bytes} bytes; attach images of at most 10 MB.")]
    TooLarge {
        /// Position, from 1.
        index: usize,
        /// Its decoded size.
        bytes: usize,
    },
}

/// What [`DesktopSession::prompt`](super::DesktopSession::prompt) sends: text and validated images.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionPrompt {
    text: String,
    files: Vec<PromptFile>,
    images: Vec<ImageContent>,
}

impl SessionPrompt {
    /// Text with images, refused when an image breaks the rules in the module doc.
    pub fn with_images(
        text: impl Into<String>,
        images: Vec<ImageContent>,
    ) -> Result<SessionPrompt, PromptImageError> {
        validate_prompt_images(&images)?;
        Ok(SessionPrompt {
            text: text.into(),
            files: Vec::new(),
            images,
        })
    }

    /// The same prompt with the text of attached files (validated by [`crate::attachment::prompt_files`]).
    pub fn with_files(self, files: Vec<PromptFile>) -> SessionPrompt {
        SessionPrompt { files, ..self }
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The images, in the order given.
    pub fn images(&self) -> &[ImageContent] {
        &self.images
    }

    /// The attached files, in the order given.
    pub fn files(&self) -> &[PromptFile] {
        &self.files
    }

    /// What the Agent is prompted with. Text alone, or text with images, is pi's own prompt (one text block, then
    /// the images); with files, or with attachments and no text, the message is built here: the typed text
    /// when there is any (an empty text block is refused by some providers), the files' blocks, the images.
    pub(super) fn into_input(self) -> PromptInput {
        let attachments = !self.files.is_empty() || !self.images.is_empty();
        if self.files.is_empty() && !(attachments && self.text.trim().is_empty()) {
            return PromptInput::with_images(self.text, self.images);
        }
        let mut blocks = Vec::with_capacity(1 + self.files.len() + self.images.len());
        if !self.text.trim().is_empty() {
            blocks.push(UserBlock::text(self.text));
        }
        blocks.extend(
            self.files
                .iter()
                .map(|file| UserBlock::text(file.block_text())),
        );
        blocks.extend(self.images.into_iter().map(UserBlock::Image));
        PromptInput::Messages(vec![AgentMessage::User(UserMessage::new(
            UserContent::Blocks(blocks),
        ))])
    }
}

impl From<String> for SessionPrompt {
    fn from(text: String) -> SessionPrompt {
        SessionPrompt {
            text,
            files: Vec::new(),
            images: Vec::new(),
        }
    }
}

impl From<&str> for SessionPrompt {
    fn from(text: &str) -> SessionPrompt {
        SessionPrompt::from(text.to_owned())
    }
}

/// Checks count, types, encoding and sizes; the first problem found wins.
pub fn validate_prompt_images(images: &[ImageContent]) -> Result<(), PromptImageError> {
    if images.len() > MAX_PROMPT_IMAGES {
        return Err(PromptImageError::TooMany(images.len()));
    }
    for (position, image) in images.iter().enumerate() {
        let index = position + 1;
        if !SUPPORTED_IMAGE_TYPES.contains(&image.mime_type.as_str()) {
            return Err(PromptImageError::UnsupportedType {
                index,
                mime_type: image.mime_type.clone(),
            });
        }
        let bytes =
            base64_decoded_len(&image.data).ok_or(PromptImageError::InvalidBase64 { index })?;
        if bytes > MAX_IMAGE_BYTES {
            return Err(PromptImageError::TooLarge { index, bytes });
        }
    }
    Ok(())
}

/// The decoded length of standard base64 (RFC 4648 alphabet, `=` padding optional), or `None` when `data` is
/// not base64. Only validates: the data goes to the provider as given.
fn base64_decoded_len(data: &str) -> Option<usize> {
    const STANDARD_PADDING_OPTIONAL: GeneralPurpose = GeneralPurpose::new(
        &alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    if data.is_empty() {
        return None;
    }
    STANDARD_PADDING_OPTIONAL
        .decode(data)
        .ok()
        .map(|bytes| bytes.len())
}

#[cfg(test)]
mod tests {
    use super::base64_decoded_len;

    #[test]
    fn decoded_lengths_match_the_encoding_rules() {
        assert_eq!(base64_decoded_len("aGk="), Some(2));
        assert_eq!(base64_decoded_len("aGk"), Some(2));
        assert_eq!(base64_decoded_len("aGVsbG8h"), Some(6));
        assert_eq!(base64_decoded_len("aA=="), Some(1));
        assert_eq!(base64_decoded_len("a"), None);
        assert_eq!(base64_decoded_len("aGk=="), None);
        assert_eq!(base64_decoded_len("not base64!"), None);
        assert_eq!(base64_decoded_len(""), None);
    }
}
