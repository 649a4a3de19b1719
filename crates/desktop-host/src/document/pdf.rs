//! PDF text extraction with `lopdf`: per page, so page ranges cost only the pages asked for.

use std::path::Path;

use tokio_util::sync::CancellationToken;

use super::{DocumentError, DocumentRange};

/// The text of the selected pages.
pub(super) struct PdfPages {
    /// Text of the selected pages, one page after another, separated by a blank line.
    pub(super) text: String,
    /// Pages in the document.
    pub(super) page_count: u32,
    /// The selected pages, inclusive.
    pub(super) pages: (u32, u32),
}

/// Extracts the text of the pages selected by `range` (every page when none is given).
pub(super) fn extract_pages(
    path: &Path,
    bytes: &[u8],
    range: &DocumentRange,
    cancel_token: &CancellationToken,
) -> Result<PdfPages, DocumentError> {
    let bad_pdf = |reason: String| DocumentError::BadPdf {
        path: path.to_path_buf(),
        reason,
    };
    let document = lopdf::Document::load_mem(bytes).map_err(|error| bad_pdf(error.to_string()))?;
    if document.is_encrypted() {
        return Err(bad_pdf("the document is encrypted".to_owned()));
    }
    let page_count = u32::try_from(document.get_pages().len()).unwrap_or(u32::MAX);
    let first_page = range.first_page.unwrap_or(1);
    let last_page = range.last_page.unwrap_or(page_count).min(page_count);
    if page_count == 0 || first_page == 0 || first_page > last_page {
        return Err(DocumentError::BadPageRange {
            path: path.to_path_buf(),
            first_page,
            last_page: range.last_page.unwrap_or(last_page),
            page_count,
        });
    }
    let mut page_texts = Vec::new();
    for page_number in first_page..=last_page {
        if cancel_token.is_cancelled() {
            return Err(DocumentError::Cancelled);
        }
        // A page whose fonts lopdf cannot decode contributes what it could read; a fully unreadable page counts
        // as empty, which surfaces as `NoTextLayer` if no page had text.
        let chunks = document.extract_text_chunks(&[page_number]);
        let page_text: String = chunks.into_iter().filter_map(Result::ok).collect();
        page_texts.push(page_text.trim_end().to_owned());
    }
    if page_texts.iter().all(|text| text.trim().is_empty()) {
        return Err(DocumentError::NoTextLayer {
            path: path.to_path_buf(),
            first_page,
            last_page,
        });
    }
    Ok(PdfPages {
        text: page_texts.join("\n\n"),
        page_count,
        pages: (first_page, last_page),
    })
}
