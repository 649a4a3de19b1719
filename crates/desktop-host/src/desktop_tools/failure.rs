//! The short, safe failure a desktop tool reports to the model ("无法查询下载目录：目录暂时不可访问。").
//!
//! Contract: a [`ToolFailure`]'s text never holds an absolute path, a file's content or a secret; it names the
//! folder by its friendly name and, at most, numbers (page counts, size caps). The full error went to
//! [`crate::diagnostics::Diagnostics`] before the failure was made.

use std::fmt;

use crate::allowed_folder::ConfinementError;
use crate::desktop_paths::KnownFolder;
use crate::document::{DocumentError, MAX_FILE_BYTES};
use crate::language::Language;
use crate::listing::ListingError;

/// What went wrong, in terms the model can act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The folder cannot be read right now.
    FolderUnavailable,
    /// The platform names no such folder.
    FolderUnknown,
    /// The path leads outside the allowed folder.
    OutsideFolder,
    /// No such file or folder.
    NotFound,
    /// A folder was given where a file is needed.
    NotAFile,
    /// The file is too large to read.
    TooLarge,
    /// Not text, Markdown or PDF.
    Unsupported,
    /// The PDF has no text layer (a scan).
    NoTextLayer,
    /// The PDF cannot be parsed or is encrypted.
    BadPdf,
    /// The page range does not fit the document (its page count; 0 for text files).
    BadPageRange(u32),
    /// The arguments are wrong; the texts (Chinese, English) are ours and safe.
    InvalidArguments {
        /// The reason in Chinese.
        zh: String,
        /// The reason in English.
        en: String,
    },
    /// The run was stopped.
    Cancelled,
}

/// A tool failure with its message in the user's language. `Display` is the message the model receives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolFailure {
    /// What went wrong.
    pub kind: FailureKind,
    /// The folder involved.
    pub folder: KnownFolder,
    /// The language of the message.
    pub language: Language,
}

impl std::error::Error for ToolFailure {}

impl fmt::Display for ToolFailure {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let folder = folder_name(self.folder, self.language);
        let max_mb = MAX_FILE_BYTES / (1024 * 1024);
        let text = match (&self.kind, self.language) {
            (FailureKind::FolderUnavailable, Language::Zh) => {
                format!("无法查询{folder}：目录暂时不可访问。")
            }
            (FailureKind::FolderUnavailable, Language::En) => {
                format!("Cannot read the {folder} folder: it is not accessible right now.")
            }
            (FailureKind::FolderUnknown, Language::Zh) => {
                format!("无法查询{folder}：系统没有设置这个文件夹。")
            }
            (FailureKind::FolderUnknown, Language::En) => {
                format!(
                    "Cannot read the {folder} folder: this computer has no such folder configured."
                )
            }
            (FailureKind::OutsideFolder, Language::Zh) => {
                format!("拒绝访问：该路径不在{folder}内。")
            }
            (FailureKind::OutsideFolder, Language::En) => {
                format!("Access refused: that path is outside the {folder} folder.")
            }
            (FailureKind::NotFound, Language::Zh) => {
                format!("在{folder}中找不到该文件：请使用列表中给出的相对路径。")
            }
            (FailureKind::NotFound, Language::En) => {
                format!(
                    "No such file in the {folder} folder: use the relative path from the listing."
                )
            }
            (FailureKind::NotAFile, Language::Zh) => "该路径是文件夹，不是文件。".to_owned(),
            (FailureKind::NotAFile, Language::En) => {
                "That path is a folder, not a file.".to_owned()
            }
            (FailureKind::TooLarge, Language::Zh) => {
                format!("文件太大（超过 {max_mb} MB），无法读取。")
            }
            (FailureKind::TooLarge, Language::En) => {
                format!("The file is too large to read (over {max_mb} MB).")
            }
            (FailureKind::Unsupported, Language::Zh) => {
                "只能读取纯文本、Markdown 和 PDF 文件。".to_owned()
            }
            (FailureKind::Unsupported, Language::En) => {
                "Only plain text, Markdown and PDF files can be read.".to_owned()
            }
            (FailureKind::NoTextLayer, Language::Zh) => {
                "该 PDF 的这些页面没有可提取的文字（可能是扫描件），无法读取内容。".to_owned()
            }
            (FailureKind::NoTextLayer, Language::En) => {
                "This PDF has no extractable text on these pages (it is probably a scan)."
                    .to_owned()
            }
            (FailureKind::BadPdf, Language::Zh) => {
                "无法解析该 PDF 文件（可能已损坏或已加密）。".to_owned()
            }
            (FailureKind::BadPdf, Language::En) => {
                "Cannot parse this PDF file (it may be damaged or encrypted).".to_owned()
            }
            (FailureKind::BadPageRange(0), Language::Zh) => {
                "页码范围只适用于 PDF 文件。".to_owned()
            }
            (FailureKind::BadPageRange(0), Language::En) => {
                "Page ranges apply to PDF files only.".to_owned()
            }
            (FailureKind::BadPageRange(pages), Language::Zh) => {
                format!("页码范围无效：该文档共 {pages} 页。")
            }
            (FailureKind::BadPageRange(pages), Language::En) => {
                format!("Invalid page range: the document has {pages} pages.")
            }
            (FailureKind::InvalidArguments { zh, .. }, Language::Zh) => format!("参数无效：{zh}"),
            (FailureKind::InvalidArguments { en, .. }, Language::En) => {
                format!("Invalid arguments: {en}")
            }
            (FailureKind::Cancelled, Language::Zh) => "操作已取消。".to_owned(),
            (FailureKind::Cancelled, Language::En) => "The operation was cancelled.".to_owned(),
        };
        formatter.write_str(&text)
    }
}

/// The folder's friendly name in `language`.
pub fn folder_name(folder: KnownFolder, language: Language) -> &'static str {
    match (folder, language) {
        (KnownFolder::Downloads, Language::Zh) => "下载目录",
        (KnownFolder::Documents, Language::Zh) => "文档目录",
        (KnownFolder::Desktop, Language::Zh) => "桌面",
        (KnownFolder::Pictures, Language::Zh) => "图片目录",
        (KnownFolder::Music, Language::Zh) => "音乐目录",
        (KnownFolder::Videos, Language::Zh) => "视频目录",
        (KnownFolder::Downloads, Language::En) => "Downloads",
        (KnownFolder::Documents, Language::En) => "Documents",
        (KnownFolder::Desktop, Language::En) => "Desktop",
        (KnownFolder::Pictures, Language::En) => "Pictures",
        (KnownFolder::Music, Language::En) => "Music",
        (KnownFolder::Videos, Language::En) => "Videos",
    }
}

impl From<&ConfinementError> for FailureKind {
    fn from(error: &ConfinementError) -> FailureKind {
        match error {
            ConfinementError::RootUnavailable { .. } => FailureKind::FolderUnavailable,
            ConfinementError::Outside { .. } | ConfinementError::ClimbsOut { .. } => {
                FailureKind::OutsideFolder
            }
            ConfinementError::NotFound { .. } => FailureKind::NotFound,
        }
    }
}

impl From<&ListingError> for FailureKind {
    fn from(error: &ListingError) -> FailureKind {
        match error {
            ListingError::FolderUnreadable { .. } => FailureKind::FolderUnavailable,
            ListingError::InvalidCursor { .. } => FailureKind::InvalidArguments {
                zh: "cursor 必须是同一排序方式下返回的 nextCursor。".to_owned(),
                en: "cursor must be a nextCursor returned for the same sort order.".to_owned(),
            },
            ListingError::Cancelled => FailureKind::Cancelled,
        }
    }
}

impl From<&DocumentError> for FailureKind {
    fn from(error: &DocumentError) -> FailureKind {
        match error {
            DocumentError::Unreadable { .. } => FailureKind::FolderUnavailable,
            DocumentError::NotAFile { .. } => FailureKind::NotAFile,
            DocumentError::TooLarge { .. } => FailureKind::TooLarge,
            DocumentError::Unsupported { .. } => FailureKind::Unsupported,
            DocumentError::BadPdf { .. } => FailureKind::BadPdf,
            DocumentError::NoTextLayer { .. } => FailureKind::NoTextLayer,
            DocumentError::BadPageRange { page_count, .. } => {
                FailureKind::BadPageRange(*page_count)
            }
            DocumentError::Cancelled => FailureKind::Cancelled,
        }
    }
}
