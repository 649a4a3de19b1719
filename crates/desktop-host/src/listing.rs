//! The listing engine behind `list_download_files` and `list_folder`: walk one allowed folder, filter, sort and
//! return one bounded page plus a cursor for the next.
//!
//! Contracts:
//! - Blocking: this is synchronous filesystem work; async callers run it under `spawn_blocking`. It polls the
//!   cancellation token every [`CANCEL_CHECK_EVERY`] entries and returns [`ListingError::Cancelled`].
//! - Bounded: a page holds at most [`MAX_LIMIT`] entries; the walk visits at most [`MAX_SCANNED`] entries and at
//!   most [`MAX_DEPTH`] folder levels and says so in [`ListingPage::scan_truncated`].
//! - Confined: symlinks are never followed into folders; a symlink to a file is listed only when its target is
//!   inside the allowed folder (counted in `skipped` otherwise). Hidden entries (names starting with `.`) are
//!   skipped.
//! - Cursors are keyed, not offsets: a cursor names the last entry of the page (sort key + relative path), so
//!   files added before it do not shift the next page.

use std::cmp::Ordering;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::allowed_folder::{AllowedFolder, relative_display};
use crate::file_kind::FileKind;

/// Entries per page when the caller gives no limit.
pub const DEFAULT_LIMIT: usize = 200;
/// The largest page.
pub const MAX_LIMIT: usize = 1000;
/// The most entries one walk visits.
pub const MAX_SCANNED: usize = 1_000_000;
/// The deepest folder level a recursive walk enters.
pub const MAX_DEPTH: usize = 32;
/// How often the walk looks at the cancellation token.
pub const CANCEL_CHECK_EVERY: usize = 512;

/// The order of a listing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortOrder {
    /// Most recently modified first (ties by path).
    #[default]
    Newest,
    /// Least recently modified first (ties by path).
    Oldest,
    /// By relative path, case-insensitively.
    Name,
}

impl SortOrder {
    fn tag(self) -> &'static str {
        match self {
            SortOrder::Newest => "n",
            SortOrder::Oldest => "o",
            SortOrder::Name => "a",
        }
    }
}

/// What to list. Build with [`ListingQuery::default`] and set fields.
#[derive(Clone, Debug, Default)]
pub struct ListingQuery {
    /// Extensions to keep, lowercase, without the dot; empty keeps every extension.
    pub extensions: Vec<String>,
    /// Keep names containing this text (case-insensitive).
    pub name_contains: Option<String>,
    /// Keep entries modified at or after this time.
    pub modified_after: Option<SystemTime>,
    /// Keep entries modified before this time.
    pub modified_before: Option<SystemTime>,
    /// Walk subfolders too.
    pub recursive: bool,
    /// List folders as entries of kind `folder` (never with an extension filter).
    pub include_folders: bool,
    /// Order of the entries.
    pub sort: SortOrder,
    /// Page size; `None` means [`DEFAULT_LIMIT`]; clamped to `1..=MAX_LIMIT`.
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// One listed file or folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileEntry {
    /// The file name (lossy UTF-8).
    pub name: String,
    /// The path relative to the listed folder, `/`-separated (lossy UTF-8).
    pub relative_path: String,
    /// Size in bytes (0 for folders).
    pub size: u64,
    /// Modification time in milliseconds since the Unix epoch, when the platform reports one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified_ms: Option<i64>,
    /// The coarse kind.
    pub kind: FileKind,
    /// True when the real name is not valid UTF-8 and `name` holds replacement characters.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy_name: bool,
}

/// One page of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListingPage {
    /// The entries of this page, in order.
    pub entries: Vec<FileEntry>,
    /// How many entries matched the filters in the whole walk.
    pub total_matched: usize,
    /// How many directory entries the walk visited.
    pub scanned: usize,
    /// Entries left out because they could not be read or were symlinks leading outside.
    pub skipped: usize,
    /// True when the walk stopped at [`MAX_SCANNED`] or skipped folders deeper than [`MAX_DEPTH`].
    pub scan_truncated: bool,
    /// Pass this back as [`ListingQuery::cursor`] for the next page; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// Why a listing failed.
#[derive(Debug, thiserror::Error)]
pub enum ListingError {
    /// The folder to list cannot be read.
    #[error("cannot read folder {path}: {source}")]
    FolderUnreadable {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The cursor is malformed or belongs to another sort order.
    #[error("invalid listing cursor {cursor:?}")]
    InvalidCursor {
        /// The cursor as given.
        cursor: String,
    },
    /// The cancellation token fired.
    #[error("listing cancelled")]
    Cancelled,
}

/// A matched entry with its precomputed sort keys.
struct Candidate {
    entry: FileEntry,
    /// Lowercase relative path for the name order (empty for the time orders, which never read it).
    sort_path: String,
    /// Set when the `stat` was deferred (name order without time filters): only the entries that make the page
    /// are looked up, after selection, so a huge folder costs one `readdir` pass plus `limit` lookups.
    deferred_path: Option<PathBuf>,
}

/// Where a cursor points: the last entry of the previous page.
struct CursorKey {
    modified_ms: i64,
    path: String,
}

/// Lists `start` (a folder inside `allowed`, usually its root) with `query`.
pub fn list_files(
    allowed: &AllowedFolder,
    start: &Path,
    query: &ListingQuery,
    cancel_token: &CancellationToken,
) -> Result<ListingPage, ListingError> {
    let cursor_key = match &query.cursor {
        Some(cursor) => Some(parse_cursor(cursor, query.sort)?),
        None => None,
    };
    let filter = Filter::new(query);
    let mut walk = Walk {
        allowed,
        filter: &filter,
        cancel_token,
        scanned: 0,
        skipped: 0,
        truncated: false,
    };
    let mut candidates = Vec::new();
    let prefix = relative_display(allowed.root(), start);
    walk.visit(
        start,
        &prefix,
        0,
        query.recursive,
        query.sort,
        &mut candidates,
    )?;

    // Only what lies after the cursor competes for this page; of that, only the first `limit` entries are
    // sorted (a selection is linear, so a huge folder costs one pass plus a small sort).
    let total_matched = candidates.len();
    if let Some(key) = &cursor_key {
        let key_sort_path = key.path.to_lowercase();
        candidates
            .retain(|candidate| compare_to_key(query.sort, candidate, key, &key_sort_path).is_gt());
    }
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let has_more = candidates.len() > limit;
    if has_more {
        candidates
            .select_nth_unstable_by(limit - 1, |left, right| compare(query.sort, left, right));
        candidates.truncate(limit);
    }
    candidates.sort_unstable_by(|left, right| compare(query.sort, left, right));
    let next_cursor = if has_more {
        candidates
            .last()
            .map(|last| encode_cursor(query.sort, last))
    } else {
        None
    };
    let mut skipped = walk.skipped;
    let entries = candidates
        .into_iter()
        .filter_map(|candidate| match candidate.deferred_path {
            None => Some(candidate.entry),
            // Follows symlinks: only links to files inside the folder were kept by the walk.
            Some(path) => match fs::metadata(&path) {
                Ok(metadata) => Some(FileEntry {
                    size: if metadata.is_dir() { 0 } else { metadata.len() },
                    modified_ms: metadata.modified().ok().map(system_time_ms),
                    ..candidate.entry
                }),
                Err(_) => {
                    skipped += 1;
                    None
                }
            },
        })
        .collect();
    Ok(ListingPage {
        entries,
        total_matched,
        scanned: walk.scanned,
        skipped,
        scan_truncated: walk.truncated,
        next_cursor,
    })
}

/// Converts a system time to milliseconds since the Unix epoch (negative before it).
pub fn system_time_ms(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_millis()).unwrap_or(i64::MAX),
        Err(before) => i64::try_from(before.duration().as_millis())
            .map(|ms| -ms)
            .unwrap_or(i64::MIN),
    }
}

/// Converts milliseconds since the Unix epoch to a system time.
pub fn ms_system_time(ms: i64) -> SystemTime {
    let magnitude = Duration::from_millis(ms.unsigned_abs());
    if ms >= 0 {
        UNIX_EPOCH + magnitude
    } else {
        UNIX_EPOCH - magnitude
    }
}

struct Filter {
    extensions: Vec<String>,
    name_contains: Option<String>,
    modified_after_ms: Option<i64>,
    modified_before_ms: Option<i64>,
    include_folders: bool,
}

impl Filter {
    fn new(query: &ListingQuery) -> Filter {
        Filter {
            extensions: query
                .extensions
                .iter()
                .map(|extension| extension.trim().trim_start_matches('.').to_lowercase())
                .filter(|extension| !extension.is_empty())
                .collect(),
            name_contains: query
                .name_contains
                .as_ref()
                .map(|text| text.to_lowercase())
                .filter(|t| !t.is_empty()),
            modified_after_ms: query.modified_after.map(system_time_ms),
            modified_before_ms: query.modified_before.map(system_time_ms),
            include_folders: query.include_folders && query.extensions.is_empty(),
        }
    }

    /// The cheap checks on the name (and its lowercase extension), before any `stat`.
    fn name_matches(&self, name: &str, extension: &str, is_folder: bool) -> bool {
        if is_folder {
            if !self.include_folders {
                return false;
            }
        } else if !self.extensions.is_empty()
            && !self.extensions.iter().any(|wanted| wanted == extension)
        {
            return false;
        }
        match &self.name_contains {
            Some(needle) => name.to_lowercase().contains(needle.as_str()),
            None => true,
        }
    }

    fn has_time_bounds(&self) -> bool {
        self.modified_after_ms.is_some() || self.modified_before_ms.is_some()
    }

    fn time_matches(&self, modified_ms: Option<i64>) -> bool {
        if self.modified_after_ms.is_none() && self.modified_before_ms.is_none() {
            return true;
        }
        let Some(modified_ms) = modified_ms else {
            return false;
        };
        self.modified_after_ms
            .is_none_or(|after| modified_ms >= after)
            && self
                .modified_before_ms
                .is_none_or(|before| modified_ms < before)
    }
}

struct Walk<'a> {
    allowed: &'a AllowedFolder,
    filter: &'a Filter,
    cancel_token: &'a CancellationToken,
    scanned: usize,
    skipped: usize,
    truncated: bool,
}

impl Walk<'_> {
    /// Lists `folder`, whose path relative to the root is `prefix` (`""` for the root itself).
    fn visit(
        &mut self,
        folder: &Path,
        prefix: &str,
        depth: usize,
        recursive: bool,
        sort: SortOrder,
        candidates: &mut Vec<Candidate>,
    ) -> Result<(), ListingError> {
        let read_dir = match fs::read_dir(folder) {
            Ok(read_dir) => read_dir,
            Err(source) if depth == 0 => {
                return Err(ListingError::FolderUnreadable {
                    path: folder.to_path_buf(),
                    source,
                });
            }
            Err(error) => {
                tracing::debug!(folder = %folder.display(), %error, "skipping unreadable subfolder");
                self.skipped += 1;
                return Ok(());
            }
        };
        let mut subfolders = Vec::new();
        for dir_entry in read_dir {
            if self.scanned >= MAX_SCANNED {
                self.truncated = true;
                break;
            }
            self.scanned += 1;
            if self.scanned % CANCEL_CHECK_EVERY == 0 && self.cancel_token.is_cancelled() {
                return Err(ListingError::Cancelled);
            }
            let Ok(dir_entry) = dir_entry else {
                self.skipped += 1;
                continue;
            };
            let file_name = dir_entry.file_name();
            let name = file_name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            let Ok(file_type) = dir_entry.file_type() else {
                self.skipped += 1;
                continue;
            };
            let relative_path = if prefix.is_empty() {
                name.to_string()
            } else {
                format!("{prefix}/{name}")
            };
            let path = dir_entry.path();
            let (is_folder, is_symlink) = if file_type.is_symlink() {
                // Only links to files inside the folder are listed; links to folders are never followed.
                match fs::canonicalize(&path) {
                    Ok(target) if target.starts_with(self.allowed.root()) && target.is_file() => {
                        (false, true)
                    }
                    Ok(_) | Err(_) => {
                        self.skipped += 1;
                        continue;
                    }
                }
            } else {
                (file_type.is_dir(), false)
            };
            if is_folder && recursive {
                subfolders.push((path.clone(), relative_path.clone()));
            }
            let extension = extension_of(&name).to_lowercase();
            if !self.filter.name_matches(&name, &extension, is_folder) {
                continue;
            }
            let kind = if is_folder {
                FileKind::Folder
            } else {
                FileKind::from_extension(&extension)
            };
            let defer_stat = sort == SortOrder::Name && !self.filter.has_time_bounds();
            let (size, modified_ms, deferred_path) = if defer_stat {
                (0, None, Some(path))
            } else {
                let Ok(metadata) = (if is_symlink {
                    fs::metadata(&path)
                } else {
                    dir_entry.metadata()
                }) else {
                    self.skipped += 1;
                    continue;
                };
                let modified_ms = metadata.modified().ok().map(system_time_ms);
                if !self.filter.time_matches(modified_ms) {
                    continue;
                }
                (
                    if is_folder { 0 } else { metadata.len() },
                    modified_ms,
                    None,
                )
            };
            candidates.push(Candidate {
                sort_path: match sort {
                    SortOrder::Name => relative_path.to_lowercase(),
                    SortOrder::Newest | SortOrder::Oldest => String::new(),
                },
                entry: FileEntry {
                    lossy_name: matches!(name, std::borrow::Cow::Owned(_)),
                    name: name.into_owned(),
                    relative_path,
                    size,
                    modified_ms,
                    kind,
                },
                deferred_path,
            });
        }
        for (subfolder, subfolder_prefix) in subfolders {
            if depth + 1 > MAX_DEPTH {
                self.truncated = true;
                continue;
            }
            self.visit(
                &subfolder,
                &subfolder_prefix,
                depth + 1,
                recursive,
                sort,
                candidates,
            )?;
        }
        Ok(())
    }
}

/// The extension of a file name as written (`"report.PDF"` → `"PDF"`), or `""`.
fn extension_of(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() => extension,
        Some(_) | None => "",
    }
}

fn compare_paths(
    left_sort: &str,
    left_exact: &str,
    right_sort: &str,
    right_exact: &str,
) -> Ordering {
    left_sort
        .cmp(right_sort)
        .then_with(|| left_exact.cmp(right_exact))
}

/// The listing order. Time orders break ties by the exact path; the name order compares lowercase paths first.
fn compare(sort: SortOrder, left: &Candidate, right: &Candidate) -> Ordering {
    let left_ms = left.entry.modified_ms.unwrap_or(i64::MIN);
    let right_ms = right.entry.modified_ms.unwrap_or(i64::MIN);
    let by_exact_path = || left.entry.relative_path.cmp(&right.entry.relative_path);
    match sort {
        SortOrder::Newest => right_ms.cmp(&left_ms).then_with(by_exact_path),
        SortOrder::Oldest => left_ms.cmp(&right_ms).then_with(by_exact_path),
        SortOrder::Name => compare_paths(
            &left.sort_path,
            &left.entry.relative_path,
            &right.sort_path,
            &right.entry.relative_path,
        ),
    }
}

/// Where `candidate` lies relative to the cursor's entry, in the same order as [`compare`].
fn compare_to_key(
    sort: SortOrder,
    candidate: &Candidate,
    key: &CursorKey,
    key_sort_path: &str,
) -> Ordering {
    let candidate_ms = candidate.entry.modified_ms.unwrap_or(i64::MIN);
    let by_exact_path = || {
        candidate
            .entry
            .relative_path
            .as_str()
            .cmp(key.path.as_str())
    };
    match sort {
        SortOrder::Newest => key.modified_ms.cmp(&candidate_ms).then_with(by_exact_path),
        SortOrder::Oldest => candidate_ms.cmp(&key.modified_ms).then_with(by_exact_path),
        SortOrder::Name => compare_paths(
            &candidate.sort_path,
            &candidate.entry.relative_path,
            key_sort_path,
            &key.path,
        ),
    }
}

fn encode_cursor(sort: SortOrder, last: &Candidate) -> String {
    cursor_after(sort, &last.entry)
}

/// The cursor that continues a listing in `sort` order right after `entry` (for callers that cut a page
/// shorter than the engine returned it).
pub fn cursor_after(sort: SortOrder, entry: &FileEntry) -> String {
    let modified_ms = entry.modified_ms.unwrap_or(i64::MIN);
    format!("{}:{modified_ms}:{}", sort.tag(), entry.relative_path)
}

fn parse_cursor(cursor: &str, sort: SortOrder) -> Result<CursorKey, ListingError> {
    let invalid = || ListingError::InvalidCursor {
        cursor: cursor.to_owned(),
    };
    let mut parts = cursor.splitn(3, ':');
    let (Some(tag), Some(modified_ms), Some(path)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(invalid());
    };
    if tag != sort.tag() {
        return Err(invalid());
    }
    let modified_ms = modified_ms.parse().map_err(|_| invalid())?;
    Ok(CursorKey {
        modified_ms,
        path: path.to_owned(),
    })
}

#[cfg(test)]
mod tests;
