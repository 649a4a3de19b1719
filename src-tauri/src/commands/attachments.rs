//! Files the user attaches to a message. The window sends the bytes of the file the user picked, pasted or
//! dropped (base64), never a path: the host reads nothing the user did not hand over. The size is checked
//! before the data is decoded, the text is read by the `read_document` tool's reader off the async workers, and
//! what comes back is the text that `prompt` then carries as the file's block.

use desktop_host::attachment::{self, AttachedFile, AttachmentError};

use crate::command_error::{CommandError, ErrorCode};

/// Reads the text of the attached file `name` from its base64 `data`: at most 20 MB, a PDF with a text layer, or
/// UTF-8 text (Markdown, code); the text is cut at 100,000 characters with a visible marker.
#[tauri::command]
pub(crate) async fn read_attachment(
    name: String,
    data: String,
) -> Result<AttachedFile, CommandError> {
    tauri::async_runtime::spawn_blocking(move || {
        let bytes = attachment::decode_attachment(&name, &data)?;
        attachment::read_attachment(&name, bytes)
    })
    .await
    .map_err(CommandError::work_stopped)?
    .map_err(|error| CommandError::new(attachment_error_code(&error), error.to_string()))
}

fn attachment_error_code(error: &AttachmentError) -> ErrorCode {
    match error {
        AttachmentError::TooLarge { .. } => ErrorCode::AttachmentTooLarge,
        AttachmentError::InvalidData { .. } | AttachmentError::Unsupported { .. } => {
            ErrorCode::AttachmentUnsupported
        }
        AttachmentError::BadPdf { .. } => ErrorCode::AttachmentUnreadable,
        AttachmentError::NoTextLayer { .. } => ErrorCode::AttachmentNoText,
    }
}

#[cfg(test)]
mod tests;
