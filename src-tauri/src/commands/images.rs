//! The images of answers: a web image is fetched by the host only when the user asks to see it.

use desktop_host::remote_image::{self, RemoteImageError};

use crate::command_error::{CommandError, ErrorKind};

/// Fetches the web image at `url` and returns it as a `data:` URL (a PNG, JPEG, GIF or WebP image of at most
/// 8 MB); the rejection's message says why not.
#[tauri::command]
pub(crate) async fn fetch_image(url: String) -> Result<String, CommandError> {
    remote_image::fetch_image(&url)
        .await
        .map_err(|error| CommandError::new(image_error_kind(&error), error.to_string()))
}

fn image_error_kind(error: &RemoteImageError) -> ErrorKind {
    match error {
        RemoteImageError::NotWeb { .. }
        | RemoteImageError::TooLarge { .. }
        | RemoteImageError::NotAnImage { .. } => ErrorKind::Invalid,
        RemoteImageError::Fetch { .. } | RemoteImageError::Status { .. } => ErrorKind::Provider,
    }
}
