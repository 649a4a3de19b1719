//! Files attached to a prompt (PDF, text, Markdown, code). Their text is read by the same reader as the
//! `read_document` tool ([`crate::document`]), from the bytes of the file the user picked (the window sends
//! them; it never names a path for the host to open), and travels inside the user message as one text block per
//! file: pi's JSON has no file block, and the store keeps each message as pi's JSON, so the block alone carries
//! the file through the model request, the store and a restart.
//!
//! The block contract (the window parses it back to show the file as a chip; the model reads the name in it):
//!
//! ```text
//! <attached-file name="NAME">
//! TEXT
//! </attached-file>
//! ```
//!
//! - The block's first line is the opening tag alone, its last line the closing tag alone; everything between
//!   is the file's text as read, so a `</attached-file>` inside the text does not end the block.
//! - NAME is the file's name (at most [`MAX_FILE_NAME_CHARS`] characters) with `&`, `"`, `<` and `>` written
//!   as `&amp;`, `&quot;`, `&lt;` and `&gt;`, and control characters (line breaks too) as spaces.
//! - TEXT is at most [`MAX_ATTACHMENT_CHARS`] characters of the file; a longer file is cut there and TEXT ends
//!   with a line `[Truncated: …]` saying how much of it is attached.
//! - The user message's blocks are: the typed text (left out when there is none), then one block per file in
//!   the order attached, then the images.

use std::path::Path;

use base64::Engine;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::document::{
    DocumentError, DocumentFormat, DocumentRange, MAX_CHARS_LIMIT, read_document_bytes,
};

/// The largest file accepted, in bytes; checked before the file is decoded or read.
pub const MAX_ATTACHMENT_BYTES: usize = 20 * 1024 * 1024;
/// The most characters of one file that go to the model.
pub const MAX_ATTACHMENT_CHARS: usize = MAX_CHARS_LIMIT;
/// The most files one message may carry.
pub const MAX_PROMPT_FILES: usize = 8;
/// The longest file name kept in a block.
pub const MAX_FILE_NAME_CHARS: usize = 255;

const OPEN_PREFIX: &str = "<attached-file name=\"";
const OPEN_SUFFIX: &str = "\">";
const CLOSE_TAG: &str = "</attached-file>";
/// Room for the truncation line beyond [`MAX_ATTACHMENT_CHARS`] when a prompt's file text is checked.
const MARKER_ALLOWANCE_CHARS: usize = 200;

/// A file's text, ready to attach.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AttachedFile {
    /// The file's name as the block carries it (control characters replaced, shortened).
    pub name: String,
    /// How it was read.
    #[ts(type = "\"text\" | \"markdown\" | \"pdf\"")]
    pub format: DocumentFormat,
    /// The text that goes to the model: at most [`MAX_ATTACHMENT_CHARS`] characters, plus the truncation line.
    pub text: String,
    /// Pages in the PDF.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub page_count: Option<u32>,
    /// Characters in the whole file.
    #[ts(type = "number")]
    pub total_chars: usize,
    /// The text was cut at [`MAX_ATTACHMENT_CHARS`].
    pub truncated: bool,
}

/// Why a file cannot be attached. `Display` is safe to show and names the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttachmentError {
    /// Larger than [`MAX_ATTACHMENT_BYTES`].
    #[error("{name} is {bytes} bytes; attach files of at most 20 MB")]
    TooLarge {
        /// The file.
        name: String,
        /// Its size (estimated from the encoded data when it was refused before decoding).
        bytes: usize,
    },
    /// The data is not standard base64.
    #[error("{name} did not arrive intact; attach it again")]
    InvalidData {
        /// The file.
        name: String,
    },
    /// Neither text nor PDF (a binary file).
    #[error("{name} is not a PDF, text, Markdown or code file")]
    Unsupported {
        /// The file.
        name: String,
    },
    /// A PDF that cannot be parsed or is encrypted.
    #[error("{name} cannot be read as a PDF: {reason}")]
    BadPdf {
        /// The file.
        name: String,
        /// What the parser said.
        reason: String,
    },
    /// A PDF without a text layer (a scan).
    #[error(
        "{name} has no text layer (it may be a scanned document), so there is no text to attach"
    )]
    NoTextLayer {
        /// The file.
        name: String,
    },
}

/// Why the files of a prompt were refused. `Display` is safe to show; files are counted from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptFileError {
    /// More than [`MAX_PROMPT_FILES`] files.
    #[error(
        "A message can carry at most {MAX_PROMPT_FILES} files; this one has {0}. Remove some and send again."
    )]
    TooMany(usize),
    /// A file without a name.
    #[error("File {index} has no name; attach it again.")]
    Unnamed {
        /// Position, from 1.
        index: usize,
    },
    /// Text longer than an attachment may be.
    #[error("File {index} has {chars} characters; a file's text is cut at {MAX_ATTACHMENT_CHARS}.")]
    TooLong {
        /// Position, from 1.
        index: usize,
        /// Its length.
        chars: usize,
    },
}

/// A file's text as a prompt carries it: valid by construction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptFile {
    name: String,
    text: String,
}

impl PromptFile {
    /// The file's name and text, as [`read_attachment`] gave them.
    pub fn new(name: &str, text: String) -> Result<PromptFile, PromptFileError> {
        PromptFile::at(1, name, text)
    }

    fn at(index: usize, name: &str, text: String) -> Result<PromptFile, PromptFileError> {
        let name = clean_name(name);
        if name.trim().is_empty() {
            return Err(PromptFileError::Unnamed { index });
        }
        let chars = text.chars().count();
        if chars > MAX_ATTACHMENT_CHARS + MARKER_ALLOWANCE_CHARS {
            return Err(PromptFileError::TooLong { index, chars });
        }
        Ok(PromptFile { name, text })
    }

    /// The file's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The message block for this file (the module doc's contract).
    pub fn block_text(&self) -> String {
        file_block(&self.name, &self.text)
    }
}

/// Validates a prompt's files, `(name, text)` in the order attached.
pub fn prompt_files(files: Vec<(String, String)>) -> Result<Vec<PromptFile>, PromptFileError> {
    if files.len() > MAX_PROMPT_FILES {
        return Err(PromptFileError::TooMany(files.len()));
    }
    files
        .into_iter()
        .enumerate()
        .map(|(position, (name, text))| PromptFile::at(position + 1, &name, text))
        .collect()
}

/// Decodes the base64 `data` of the file `name`, refusing it by its encoded length before decoding when the file
/// would be larger than [`MAX_ATTACHMENT_BYTES`].
pub fn decode_attachment(name: &str, data: &str) -> Result<Vec<u8>, AttachmentError> {
    let estimated = data.len() / 4 * 3;
    if estimated > MAX_ATTACHMENT_BYTES + 3 {
        return Err(AttachmentError::TooLarge {
            name: clean_name(name),
            bytes: estimated,
        });
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|_| AttachmentError::InvalidData {
            name: clean_name(name),
        })?;
    if bytes.len() > MAX_ATTACHMENT_BYTES {
        return Err(AttachmentError::TooLarge {
            name: clean_name(name),
            bytes: bytes.len(),
        });
    }
    Ok(bytes)
}

/// Reads the text of the file `name` from its bytes, cut at [`MAX_ATTACHMENT_CHARS`] with the truncation line.
/// Blocking (PDF parsing): async callers use `spawn_blocking`.
pub fn read_attachment(name: &str, bytes: Vec<u8>) -> Result<AttachedFile, AttachmentError> {
    let name = clean_name(name);
    if bytes.len() > MAX_ATTACHMENT_BYTES {
        return Err(AttachmentError::TooLarge {
            name,
            bytes: bytes.len(),
        });
    }
    let range = DocumentRange {
        max_chars: Some(MAX_ATTACHMENT_CHARS),
        ..DocumentRange::default()
    };
    let document = read_document_bytes(Path::new(&name), bytes, &range, &CancellationToken::new())
        .map_err(|error| attachment_error(&name, error))?;
    let truncated = document.next_start_char.is_some();
    let mut text = document.text;
    if truncated {
        let total_chars = document.total_chars;
        text.push_str(&format!(
            "\n\n[Truncated: the first {MAX_ATTACHMENT_CHARS} of {total_chars} characters of {name} are attached.]"
        ));
    }
    Ok(AttachedFile {
        name,
        format: document.format,
        text,
        page_count: document.page_count,
        total_chars: document.total_chars,
        truncated,
    })
}

/// The block for a file called `name` with `text` (the module doc's contract).
pub fn file_block(name: &str, text: &str) -> String {
    format!(
        "{OPEN_PREFIX}{}{OPEN_SUFFIX}\n{text}\n{CLOSE_TAG}",
        escape_name(&clean_name(name))
    )
}

/// The file name and text of a block made by [`file_block`]; `None` for any other text.
pub fn parse_file_block(block: &str) -> Option<(String, &str)> {
    let rest = block.strip_prefix(OPEN_PREFIX)?;
    let (open_line, rest) = rest.split_once('\n')?;
    let escaped = open_line.strip_suffix(OPEN_SUFFIX)?;
    if escaped.contains('"') || escaped.contains('<') || escaped.contains('>') {
        return None;
    }
    let text = rest.strip_suffix(CLOSE_TAG)?.strip_suffix('\n')?;
    Some((unescape_name(escaped), text))
}

/// The name with control characters as spaces, at most [`MAX_FILE_NAME_CHARS`] characters.
fn clean_name(name: &str) -> String {
    name.chars()
        .map(|character| {
            if character.is_control() {
                ' '
            } else {
                character
            }
        })
        .take(MAX_FILE_NAME_CHARS)
        .collect()
}

fn escape_name(name: &str) -> String {
    name.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn unescape_name(name: &str) -> String {
    name.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

fn attachment_error(name: &str, error: DocumentError) -> AttachmentError {
    let name = name.to_owned();
    match error {
        DocumentError::TooLarge { size, .. } => AttachmentError::TooLarge {
            name,
            bytes: usize::try_from(size).unwrap_or(usize::MAX),
        },
        DocumentError::BadPdf { reason, .. } => AttachmentError::BadPdf { name, reason },
        DocumentError::NoTextLayer { .. } => AttachmentError::NoTextLayer { name },
        // A PDF whose page tree is empty reads as a bad page range; to the user it is a PDF with nothing in it.
        DocumentError::BadPageRange { .. } => AttachmentError::BadPdf {
            name,
            reason: "it has no pages".to_owned(),
        },
        DocumentError::Unsupported { .. }
        | DocumentError::Unreadable { .. }
        | DocumentError::NotAFile { .. }
        | DocumentError::Cancelled => AttachmentError::Unsupported { name },
    }
}

#[cfg(test)]
mod tests;
