//! The images of answers: a web image is fetched by the host only when the user asks to see it.

use desktop_host::remote_image::{self, RemoteImageError};

use crate::command_error::{CommandError, ErrorCode};

/// Fetches the web image at `url` and returns it as a `data:` URL (a PNG, JPEG, GIF or WebP image of at most
/// 8 MB); the rejection's detail says why not.
#[tauri::command]
pub(crate) async fn fetch_image(url: String) -> Result<String, CommandError> {
    remote_image::fetch_image(&url)
        .await
        .map_err(|error| CommandError::new(image_error_code(&error), error.to_string()))
}

fn image_error_code(error: &RemoteImageError) -> ErrorCode {
    match error {
        RemoteImageError::NotWeb { .. }
        | RemoteImageError::TooLarge { .. }
        | RemoteImageError::NotAnImage { .. } => ErrorCode::ImageRefused,
        RemoteImageError::Fetch { .. } | RemoteImageError::Status { .. } => {
            ErrorCode::ImageUnreachable
        }
    }
}
