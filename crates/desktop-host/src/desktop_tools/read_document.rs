//! `read_document`: the text of a plain text, Markdown or PDF file in one of the allowed folders.

use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::allowed_folder::AllowedFolder;
use crate::desktop_paths::KnownFolder;
use crate::desktop_tools::context::{DesktopToolContext, ToolOutput, run_blocking};
use crate::desktop_tools::failure::{FailureKind, ToolFailure};
use crate::document::{DocumentRange, DocumentText, MAX_CHARS_LIMIT, read_document};

/// Arguments of `read_document`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct ReadDocumentArgs {
    /// The folder the path is relative to (default `downloads`).
    pub folder: Option<String>,
    /// The file, relative to the folder (as listed).
    pub path: String,
    /// First PDF page, 1-based.
    pub first_page: Option<u32>,
    /// Last PDF page, inclusive.
    pub last_page: Option<u32>,
    /// First character to return, 0-based.
    pub start_char: Option<usize>,
    /// Characters to return (default 20000).
    pub max_chars: Option<usize>,
}

/// The JSON Schema of [`ReadDocumentArgs`].
pub fn read_document_parameters() -> Value {
    let names: Vec<&str> = KnownFolder::ALL
        .iter()
        .map(|folder| folder.as_str())
        .collect();
    json!({
        "type": "object",
        "properties": {
            "folder": {"type": "string", "enum": names, "description": "Folder the path is relative to (default downloads)."},
            "path": {"type": "string", "description": "The file's path relative to the folder, as a listing returned it."},
            "first_page": {"type": "integer", "minimum": 1, "description": "PDF only: first page to read (1-based)."},
            "last_page": {"type": "integer", "minimum": 1, "description": "PDF only: last page to read (inclusive)."},
            "start_char": {"type": "integer", "minimum": 0, "description": "First character to return (use nextStartChar to continue)."},
            "max_chars": {"type": "integer", "minimum": 1, "maximum": MAX_CHARS_LIMIT, "description": "Characters to return (default 20000)."}
        },
        "required": ["path"],
        "additionalProperties": false
    })
}

/// Parses the `folder` argument (default Downloads).
pub(crate) fn folder_argument(
    context: &DesktopToolContext,
    folder: Option<&str>,
    default: Option<KnownFolder>,
) -> Result<KnownFolder, ToolFailure> {
    match folder.map(str::trim).filter(|name| !name.is_empty()) {
        Some(name) => KnownFolder::parse(name).ok_or_else(|| {
            context.refuse(
                default.unwrap_or(KnownFolder::Downloads),
                FailureKind::InvalidArguments {
                    zh: "folder 只能是 downloads、documents、desktop、pictures、music 或 videos。"
                        .to_owned(),
                    en: "folder must be downloads, documents, desktop, pictures, music or videos."
                        .to_owned(),
                },
            )
        }),
        None => default.ok_or_else(|| {
            context.refuse(
                KnownFolder::Downloads,
                FailureKind::InvalidArguments {
                    zh: "缺少 folder 参数。".to_owned(),
                    en: "folder is required.".to_owned(),
                },
            )
        }),
    }
}

/// Reads the document named by `args`, confined to its folder, on the blocking pool.
pub async fn read_folder_document(
    context: &DesktopToolContext,
    tool_name: &'static str,
    args: ReadDocumentArgs,
    cancel_token: &CancellationToken,
) -> Result<ToolOutput, ToolFailure> {
    let folder = folder_argument(
        context,
        args.folder.as_deref(),
        Some(KnownFolder::Downloads),
    )?;
    let Some(root) = context
        .paths
        .folder(folder)
        .map(std::path::Path::to_path_buf)
    else {
        return Err(context.refuse(folder, FailureKind::FolderUnknown));
    };
    let range = DocumentRange {
        first_page: args.first_page,
        last_page: args.last_page,
        start_char: args.start_char,
        max_chars: args.max_chars,
    };
    let requested_path = args.path.clone();
    let work_context = context.clone();
    let (document, relative_path) =
        run_blocking(context, tool_name, folder, cancel_token, move |token| {
            let fail = |kind: FailureKind, error: &(dyn std::error::Error + 'static)| {
                work_context.fail(tool_name, folder, kind, error)
            };
            let allowed = AllowedFolder::new(&root)
                .map_err(|error| fail(FailureKind::from(&error), &error))?;
            let path = allowed
                .resolve(&requested_path)
                .map_err(|error| fail(FailureKind::from(&error), &error))?;
            let document = read_document(&path, &range, &token)
                .map_err(|error| fail(FailureKind::from(&error), &error))?;
            Ok((document, allowed.relative_display(&path)))
        })
        .await?;
    Ok(shape_output(folder, &relative_path, document))
}

/// The model gets one JSON header line, a blank line and the text; the UI gets the header as details.
fn shape_output(folder: KnownFolder, relative_path: &str, document: DocumentText) -> ToolOutput {
    let returned_chars = document.text.chars().count();
    let mut header = json!({
        "folder": folder.as_str(),
        "path": relative_path,
        "format": document.format,
        "startChar": document.start_char,
        "returnedChars": returned_chars,
        "totalChars": document.total_chars,
    });
    if let Some(object) = header.as_object_mut() {
        if let Some(page_count) = document.page_count {
            object.insert("pageCount".to_owned(), json!(page_count));
        }
        if let Some((first, last)) = document.pages {
            object.insert("pages".to_owned(), json!([first, last]));
        }
        if let Some(next) = document.next_start_char {
            object.insert("nextStartChar".to_owned(), json!(next));
        }
    }
    let content = format!("{header}\n\n{}", document.text);
    ToolOutput {
        content,
        details: header,
    }
}
