//! The listing behind `list_download_files` and `list_folder`: arguments, the blocking walk, and the two
//! outputs (compact JSON for the model, structured details for the UI).

use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::allowed_folder::AllowedFolder;
use crate::desktop_paths::KnownFolder;
use crate::desktop_tools::context::{DesktopToolContext, ToolOutput, run_blocking};
use crate::desktop_tools::failure::{FailureKind, ToolFailure};
use crate::listing::{
    FileEntry, ListingPage, ListingQuery, SortOrder, cursor_after, list_files, ms_system_time,
};

/// The most characters of listing JSON one call gives the model; a page is cut short (with a cursor) beyond.
pub const MAX_CONTENT_CHARS: usize = 60_000;

/// Arguments of the listing tools (snake_case on the wire, as the model writes them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct ListFilesArgs {
    /// `list_folder` only: which folder (`documents`, `desktop`, `pictures`, `music`, `videos`, `downloads`).
    pub folder: Option<String>,
    /// A subfolder, relative to the folder.
    pub path: Option<String>,
    /// Extensions to keep, without the dot, case-insensitive.
    pub extensions: Vec<String>,
    /// Keep names containing this text, case-insensitive.
    pub name_contains: Option<String>,
    /// Keep entries modified at or after this time (RFC 3339 or `YYYY-MM-DD`, UTC).
    pub modified_after: Option<String>,
    /// Keep entries modified before this time (RFC 3339 or `YYYY-MM-DD`, UTC).
    pub modified_before: Option<String>,
    /// Include subfolders' files.
    pub recursive: bool,
    /// List folders as entries too.
    pub include_folders: bool,
    /// `newest` (default), `oldest` or `name`.
    pub sort: Option<String>,
    /// Page size (default 200, at most 1000).
    pub limit: Option<usize>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

/// The JSON Schema of [`ListFilesArgs`]; `with_folder` adds the `folder` property `list_folder` requires.
pub fn list_files_parameters(with_folder: bool) -> Value {
    let mut schema = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Subfolder relative to the folder; omit for the folder itself."},
            "extensions": {"type": "array", "items": {"type": "string"},
                "description": "Keep only these extensions, without the dot, case-insensitive, e.g. [\"pdf\"]."},
            "name_contains": {"type": "string", "description": "Keep names containing this text (case-insensitive)."},
            "modified_after": {"type": "string", "description": "Keep files modified at or after this time (RFC 3339 or YYYY-MM-DD, UTC)."},
            "modified_before": {"type": "string", "description": "Keep files modified before this time (RFC 3339 or YYYY-MM-DD, UTC)."},
            "recursive": {"type": "boolean", "description": "Include files in subfolders (default false)."},
            "include_folders": {"type": "boolean", "description": "List subfolders as entries too (default false)."},
            "sort": {"type": "string", "enum": ["newest", "oldest", "name"], "description": "Order (default newest first)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": crate::listing::MAX_LIMIT,
                "description": "Files per page (default 200)."},
            "cursor": {"type": "string", "description": "nextCursor from the previous call, to get the next page."}
        },
        "additionalProperties": false
    });
    if with_folder && let Some(object) = schema.as_object_mut() {
        let names: Vec<&str> = KnownFolder::ALL
            .iter()
            .map(|folder| folder.as_str())
            .collect();
        if let Some(properties) = object.get_mut("properties").and_then(Value::as_object_mut) {
            properties.insert(
                "folder".to_owned(),
                json!({"type": "string", "enum": names, "description": "Which of the user's folders to list."}),
            );
        }
        object.insert("required".to_owned(), json!(["folder"]));
    }
    schema
}

/// One entry as the model reads it.
#[derive(Serialize)]
struct ModelEntry<'a> {
    path: &'a str,
    #[serde(skip_serializing_if = "is_zero")]
    size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    modified: Option<String>,
    kind: crate::file_kind::FileKind,
}

fn is_zero(size: &u64) -> bool {
    *size == 0
}

/// Lists `folder` with `args`: confines the path, walks on the blocking pool, and shapes both outputs.
pub async fn list_folder_files(
    context: &DesktopToolContext,
    tool_name: &'static str,
    folder: KnownFolder,
    args: ListFilesArgs,
    cancel_token: &CancellationToken,
) -> Result<ToolOutput, ToolFailure> {
    let query = build_query(context, folder, &args)?;
    let sort = query.sort;
    let Some(root) = context
        .paths
        .folder(folder)
        .map(std::path::Path::to_path_buf)
    else {
        return Err(context.refuse(folder, FailureKind::FolderUnknown));
    };
    let requested_path = args.path.clone().unwrap_or_default();
    let work_context = context.clone();
    let (page, listed_path) =
        run_blocking(context, tool_name, folder, cancel_token, move |token| {
            let allowed = AllowedFolder::new(&root).map_err(|error| {
                work_context.fail(tool_name, folder, FailureKind::from(&error), &error)
            })?;
            let start = allowed.resolve(&requested_path).map_err(|error| {
                work_context.fail(tool_name, folder, FailureKind::from(&error), &error)
            })?;
            if !start.is_dir() {
                return Err(work_context.refuse(folder, not_a_folder()));
            }
            let page = list_files(&allowed, &start, &query, &token).map_err(|error| {
                work_context.fail(tool_name, folder, FailureKind::from(&error), &error)
            })?;
            Ok((page, allowed.relative_display(&start)))
        })
        .await?;
    Ok(shape_output(folder, &listed_path, page, sort))
}

fn not_a_folder() -> FailureKind {
    FailureKind::InvalidArguments {
        zh: "path 必须是文件夹。".to_owned(),
        en: "path must be a folder.".to_owned(),
    }
}

fn build_query(
    context: &DesktopToolContext,
    folder: KnownFolder,
    args: &ListFilesArgs,
) -> Result<ListingQuery, ToolFailure> {
    let sort = match args.sort.as_deref().map(str::trim) {
        None | Some("") | Some("newest") => SortOrder::Newest,
        Some("oldest") => SortOrder::Oldest,
        Some("name") => SortOrder::Name,
        Some(_) => {
            return Err(context.refuse(
                folder,
                FailureKind::InvalidArguments {
                    zh: "sort 只能是 newest、oldest 或 name。".to_owned(),
                    en: "sort must be newest, oldest or name.".to_owned(),
                },
            ));
        }
    };
    let time = |field: &str, value: &Option<String>| -> Result<Option<SystemTime>, ToolFailure> {
        match value
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty())
        {
            None => Ok(None),
            Some(text) => parse_time(text).map(Some).ok_or_else(|| {
                context.refuse(
                    folder,
                    FailureKind::InvalidArguments {
                        zh: format!("{field} 必须是 RFC 3339 时间或 YYYY-MM-DD 日期。"),
                        en: format!("{field} must be an RFC 3339 time or a YYYY-MM-DD date."),
                    },
                )
            }),
        }
    };
    Ok(ListingQuery {
        extensions: args.extensions.clone(),
        name_contains: args.name_contains.clone(),
        modified_after: time("modified_after", &args.modified_after)?,
        modified_before: time("modified_before", &args.modified_before)?,
        recursive: args.recursive,
        include_folders: args.include_folders,
        sort,
        limit: args.limit,
        cursor: args.cursor.clone().filter(|cursor| !cursor.is_empty()),
    })
}

/// Parses RFC 3339 (`2024-05-01T10:00:00Z`, also with a space or without `Z`) or a plain date (midnight UTC).
pub fn parse_time(text: &str) -> Option<SystemTime> {
    if text.len() == 10 {
        return humantime::parse_rfc3339_weak(&format!("{text}T00:00:00")).ok();
    }
    humantime::parse_rfc3339_weak(text.trim_end_matches('Z'))
        .ok()
        .or_else(|| humantime::parse_rfc3339(text).ok())
}

fn format_time(ms: i64) -> String {
    humantime::format_rfc3339_seconds(ms_system_time(ms)).to_string()
}

/// Builds the model's compact JSON and the UI's details; cuts the page when the JSON would exceed
/// [`MAX_CONTENT_CHARS`], continuing the cursor from the last entry kept.
fn shape_output(
    folder: KnownFolder,
    listed_path: &str,
    mut page: ListingPage,
    sort: SortOrder,
) -> ToolOutput {
    let mut files = Vec::with_capacity(page.entries.len());
    let mut used_chars = 0;
    let mut kept = 0;
    for entry in &page.entries {
        let model_entry = ModelEntry {
            path: &entry.relative_path,
            size: entry.size,
            modified: entry.modified_ms.map(format_time),
            kind: entry.kind,
        };
        let entry_json = serde_json::to_value(&model_entry).unwrap_or(Value::Null);
        used_chars += entry_json.to_string().len() + 1;
        if used_chars > MAX_CONTENT_CHARS && kept > 0 {
            break;
        }
        files.push(entry_json);
        kept += 1;
    }
    if kept < page.entries.len() {
        page.entries.truncate(kept);
        page.next_cursor = page
            .entries
            .last()
            .map(|last: &FileEntry| cursor_after(sort, last));
    }
    let mut content = json!({
        "folder": folder.as_str(),
        "total": page.total_matched,
        "files": files,
    });
    if let Some(object) = content.as_object_mut() {
        if !listed_path.is_empty() {
            object.insert("path".to_owned(), json!(listed_path));
        }
        if let Some(cursor) = &page.next_cursor {
            object.insert("nextCursor".to_owned(), json!(cursor));
        }
        if page.scan_truncated {
            object.insert("incomplete".to_owned(), json!(true));
        }
    }
    let details = json!({
        "folder": folder.as_str(),
        "path": listed_path,
        "entries": page.entries,
        "totalMatched": page.total_matched,
        "scanned": page.scanned,
        "skipped": page.skipped,
        "scanTruncated": page.scan_truncated,
        "nextCursor": page.next_cursor,
    });
    ToolOutput {
        content: content.to_string(),
        details,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_as_dates_or_rfc3339() {
        let date = parse_time("2024-05-01").unwrap();
        assert_eq!(
            humantime::format_rfc3339_seconds(date).to_string(),
            "2024-05-01T00:00:00Z"
        );
        let precise = parse_time("2024-05-01T10:20:30Z").unwrap();
        assert_eq!(
            humantime::format_rfc3339_seconds(precise).to_string(),
            "2024-05-01T10:20:30Z"
        );
        assert!(parse_time("yesterday").is_none());
    }
}
