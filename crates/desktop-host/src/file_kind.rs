//! A coarse kind for a file, from its extension, so the model and the UI can group files without knowing every
//! extension.

use serde::Serialize;

/// What sort of file an entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// A folder (only listed when folders are asked for).
    Folder,
    /// A PDF document.
    Pdf,
    /// A word-processor document (`docx`, `odt`, …).
    Document,
    /// A spreadsheet or table (`xlsx`, `csv`, …).
    Spreadsheet,
    /// A slide deck.
    Presentation,
    /// Plain text or Markdown.
    Text,
    /// An image.
    Image,
    /// Audio.
    Audio,
    /// Video.
    Video,
    /// A compressed archive.
    Archive,
    /// An installer or executable package.
    Installer,
    /// Source code or structured data.
    Code,
    /// Anything else.
    Other,
}

impl FileKind {
    /// The kind for a lowercase extension without the dot.
    pub fn from_extension(extension: &str) -> FileKind {
        match extension {
            "pdf" => FileKind::Pdf,
            "doc" | "docx" | "odt" | "rtf" | "pages" | "wps" => FileKind::Document,
            "xls" | "xlsx" | "ods" | "csv" | "tsv" | "numbers" => FileKind::Spreadsheet,
            "ppt" | "pptx" | "odp" | "key" => FileKind::Presentation,
            "txt" | "md" | "markdown" | "log" | "text" | "rst" => FileKind::Text,
            "png" | "jpg" | "jpeg" | "gif" | "webp" | "bmp" | "svg" | "heic" | "tif" | "tiff"
            | "ico" => FileKind::Image,
            "mp3" | "wav" | "flac" | "ogg" | "m4a" | "aac" | "opus" => FileKind::Audio,
            "mp4" | "mkv" | "mov" | "avi" | "webm" | "m4v" | "wmv" => FileKind::Video,
            "zip" | "rar" | "7z" | "tar" | "gz" | "tgz" | "bz2" | "xz" | "zst" => FileKind::Archive,
            "exe" | "msi" | "dmg" | "pkg" | "deb" | "rpm" | "appimage" | "apk" | "flatpak" => {
                FileKind::Installer
            }
            "json" | "yaml" | "yml" | "toml" | "xml" | "html" | "htm" | "js" | "ts" | "py"
            | "rs" | "c" | "h" | "cpp" | "java" | "go" | "sh" | "ipynb" => FileKind::Code,
            _ => FileKind::Other,
        }
    }
}
