//! Reading the text of a document: plain text, Markdown and PDF (text layer only, through `lopdf`).
//!
//! Contracts:
//! - Blocking: synchronous file IO and PDF parsing; async callers use `spawn_blocking`. The token is checked
//!   between PDF pages and before the work starts.
//! - Bounded: files larger than [`MAX_FILE_BYTES`] are refused before they are read; at most
//!   [`MAX_CHARS_LIMIT`] characters come back per call, and [`DocumentText::next_start_char`] says where to go on.
//! - Ranges: `pages` (1-based, inclusive; PDFs only) select pages first, then `start_char`/`max_chars` select
//!   characters (Unicode scalar values) of that text.
//! - A PDF whose selected pages carry no text at all (a scan) is [`DocumentError::NoTextLayer`], not empty text.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;
use tokio_util::sync::CancellationToken;

/// The largest file read at all.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Characters returned when the caller gives no `max_chars`.
pub const DEFAULT_MAX_CHARS: usize = 20_000;
/// The most characters one call returns.
pub const MAX_CHARS_LIMIT: usize = 100_000;

/// The format a file was read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DocumentFormat {
    /// UTF-8 text.
    Text,
    /// Markdown (read as text).
    Markdown,
    /// PDF with a text layer.
    Pdf,
}

/// Which part of a document to read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocumentRange {
    /// First page, 1-based (PDF only).
    pub first_page: Option<u32>,
    /// Last page, inclusive (PDF only).
    pub last_page: Option<u32>,
    /// First character of the selected text, 0-based.
    pub start_char: Option<usize>,
    /// Characters to return; `None` means [`DEFAULT_MAX_CHARS`]; clamped to `1..=MAX_CHARS_LIMIT`.
    pub max_chars: Option<usize>,
}

/// The text read from a document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentText {
    /// How the file was read.
    pub format: DocumentFormat,
    /// The selected text.
    pub text: String,
    /// Pages in the PDF (PDF only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_count: Option<u32>,
    /// The pages the text came from, inclusive (PDF only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<(u32, u32)>,
    /// Characters in the selected pages (or the whole text file).
    pub total_chars: usize,
    /// The first character returned.
    pub start_char: usize,
    /// Where the next call should start when the text was cut; `None` when it reached the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start_char: Option<usize>,
}

/// Why a document could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// The file cannot be opened or read.
    #[error("cannot read {path}: {source}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The path is a folder or another non-file.
    #[error("{path} is not a regular file")]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// The file is larger than [`MAX_FILE_BYTES`].
    #[error("{path} has {size} bytes, more than the {limit} bytes read at most")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The cap.
        limit: u64,
    },
    /// The file is neither text nor PDF.
    #[error("{path} is not a text, Markdown or PDF file")]
    Unsupported {
        /// The file.
        path: PathBuf,
    },
    /// The PDF cannot be parsed (or is encrypted).
    #[error("cannot parse PDF {path}: {reason}")]
    BadPdf {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        reason: String,
    },
    /// The selected PDF pages have no text layer (a scanned document).
    #[error("PDF {path} has no text on pages {first_page}-{last_page}")]
    NoTextLayer {
        /// The file.
        path: PathBuf,
        /// First selected page.
        first_page: u32,
        /// Last selected page.
        last_page: u32,
    },
    /// The page range lies outside the document or pages were asked of a text file.
    #[error("invalid page range {first_page}-{last_page} for {path} ({page_count} pages)")]
    BadPageRange {
        /// The file.
        path: PathBuf,
        /// First page asked for.
        first_page: u32,
        /// Last page asked for.
        last_page: u32,
        /// Pages in the document (0 for text files).
        page_count: u32,
    },
    /// The cancellation token fired.
    #[error("reading cancelled")]
    Cancelled,
}

/// Reads the selected text of the file at `path` (already confined by the caller).
pub fn read_document(
    path: &Path,
    range: &DocumentRange,
    cancel_token: &CancellationToken,
) -> Result<DocumentText, DocumentError> {
    if cancel_token.is_cancelled() {
        return Err(DocumentError::Cancelled);
    }
    let unreadable = |source| DocumentError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(unreadable)?;
    if !metadata.is_file() {
        return Err(DocumentError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(DocumentError::TooLarge {
            path: path.to_path_buf(),
            size: metadata.len(),
            limit: MAX_FILE_BYTES,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_FILE_BYTES).read_to_end(&mut bytes))
        .map_err(unreadable)?;
    read_document_bytes(path, bytes, range, cancel_token)
}

/// Reads the selected text of a document already in memory (a file the user attached); `path` names it in
/// errors and its extension tells Markdown from text, as for [`read_document`]. The caller bounds the size.
pub fn read_document_bytes(
    path: &Path,
    bytes: Vec<u8>,
    range: &DocumentRange,
    cancel_token: &CancellationToken,
) -> Result<DocumentText, DocumentError> {
    if cancel_token.is_cancelled() {
        return Err(DocumentError::Cancelled);
    }
    let extension = path
        .extension()
        .map(|ext| ext.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if bytes.starts_with(b"%PDF-") || extension == "pdf" {
        let pdf = crate::document::pdf::extract_pages(path, &bytes, range, cancel_token)?;
        return Ok(select_chars(
            DocumentFormat::Pdf,
            &pdf.text,
            Some((pdf.page_count, pdf.pages)),
            range,
        ));
    }
    if range.first_page.is_some() || range.last_page.is_some() {
        let first_page = range.first_page.unwrap_or(1);
        return Err(DocumentError::BadPageRange {
            path: path.to_path_buf(),
            first_page,
            last_page: range.last_page.unwrap_or(first_page),
            page_count: 0,
        });
    }
    // Text: valid UTF-8 (a BOM is dropped) without NUL bytes; anything else is a binary format we do not read.
    let text = match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => text,
        Ok(_) | Err(_) => {
            return Err(DocumentError::Unsupported {
                path: path.to_path_buf(),
            });
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let format = match extension.as_str() {
        "md" | "markdown" | "mdown" => DocumentFormat::Markdown,
        _ => DocumentFormat::Text,
    };
    Ok(select_chars(format, text, None, range))
}

/// Cuts the character range out of `text`.
fn select_chars(
    format: DocumentFormat,
    text: &str,
    pdf_pages: Option<(u32, (u32, u32))>,
    range: &DocumentRange,
) -> DocumentText {
    let total_chars = text.chars().count();
    let start_char = range.start_char.unwrap_or(0).min(total_chars);
    let max_chars = range
        .max_chars
        .unwrap_or(DEFAULT_MAX_CHARS)
        .clamp(1, MAX_CHARS_LIMIT);
    let selected: String = text.chars().skip(start_char).take(max_chars).collect();
    let end = start_char + selected.chars().count();
    DocumentText {
        format,
        text: selected,
        page_count: pdf_pages.map(|(page_count, _)| page_count),
        pages: pdf_pages.map(|(_, pages)| pages),
        total_chars,
        start_char,
        next_start_char: (end < total_chars).then_some(end),
    }
}

mod pdf;
