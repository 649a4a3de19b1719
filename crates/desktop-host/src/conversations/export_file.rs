//! Writing an export into a folder: a file name from the title that is safe on every desktop file system, and
//! a write that never replaces an existing file.

use std::fs::OpenOptions;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::store::ExportFormat;

/// The longest file stem taken from a title, in characters.
const MAX_STEM_CHARS: usize = 80;
/// How many ` (n)` suffixes are tried before giving up.
const MAX_SUFFIX: u32 = 999;
/// The stem of an untitled conversation.
const UNTITLED_STEM: &str = "conversation";

/// An export written to disk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ExportedFile {
    /// The file's name (what the UI shows: "Saved <name> in Downloads").
    pub file_name: String,
    /// The full path.
    #[ts(type = "string")]
    pub path: PathBuf,
}

/// `<title>.<extension>`: characters that are not allowed in file names (`/ \ : * ? " < > |`, control
/// characters) become `_`, leading dots and surrounding blanks go, at most 80 characters; `conversation` when
/// nothing is left.
pub fn export_file_name(title: Option<&str>, format: ExportFormat) -> String {
    let cleaned: String = title
        .unwrap_or_default()
        .chars()
        .map(|character| {
            if character.is_control()
                || matches!(
                    character,
                    '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|'
                )
            {
                '_'
            } else {
                character
            }
        })
        .take(MAX_STEM_CHARS)
        .collect();
    let stem = cleaned
        .trim()
        .trim_start_matches('.')
        .trim_end_matches('.')
        .trim();
    let stem = if stem.is_empty() { UNTITLED_STEM } else { stem };
    format!("{stem}.{}", format.file_extension())
}

/// Creates `folder/file_name` (or `stem (2).ext`, … when taken) with `bytes`; on failure, the path tried and why.
pub(crate) fn write_new_file(
    folder: &Path,
    file_name: &str,
    bytes: &[u8],
) -> Result<ExportedFile, (PathBuf, io::Error)> {
    let (stem, extension) = file_name.rsplit_once('.').unwrap_or((file_name, ""));
    let mut suffix = 1;
    loop {
        let candidate = match (suffix, extension) {
            (1, _) => file_name.to_owned(),
            (_, "") => format!("{stem} ({suffix})"),
            (_, _) => format!("{stem} ({suffix}).{extension}"),
        };
        let path = folder.join(&candidate);
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut file) => {
                return file
                    .write_all(bytes)
                    .and_then(|()| file.sync_all())
                    .map(|()| ExportedFile {
                        file_name: candidate,
                        path: path.clone(),
                    })
                    .map_err(|error| (path, error));
            }
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && suffix < MAX_SUFFIX => {
                suffix += 1;
            }
            Err(error) => return Err((path, error)),
        }
    }
}

/// Writes `bytes` to `path`, a file the user chose in a save dialog (which asked before replacing one): written
/// beside it first and renamed over it, so a failed write never leaves half a file; on failure, why.
pub(crate) fn write_chosen_file(path: &Path, bytes: &[u8]) -> Result<ExportedFile, io::Error> {
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    let temporary = path.with_file_name(format!(".{file_name}.part"));
    let written = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&temporary)
        .and_then(|mut file| file.write_all(bytes).and_then(|()| file.sync_all()))
        .and_then(|()| std::fs::rename(&temporary, path));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(error);
    }
    Ok(ExportedFile {
        file_name,
        path: path.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn titles_become_safe_file_names() {
        assert_eq!(
            export_file_name(
                Some("Was liegt in Downloads? 下载/报告"),
                ExportFormat::Markdown
            ),
            "Was liegt in Downloads_ 下载_报告.md"
        );
        assert_eq!(
            export_file_name(Some("  ..hidden. "), ExportFormat::JsonLines),
            "hidden.jsonl"
        );
        assert_eq!(
            export_file_name(None, ExportFormat::Markdown),
            "conversation.md"
        );
        assert_eq!(
            export_file_name(Some("\n\t"), ExportFormat::Markdown),
            "__.md"
        );
        assert_eq!(
            export_file_name(Some(&"长".repeat(200)), ExportFormat::Markdown)
                .chars()
                .count(),
            80 + 3
        );
    }

    #[test]
    fn a_taken_name_gets_a_number_instead_of_being_replaced() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("notes.md"), b"mine").unwrap();
        let first = write_new_file(folder.path(), "notes.md", b"one").unwrap();
        let second = write_new_file(folder.path(), "notes.md", b"two").unwrap();
        assert_eq!(first.file_name, "notes (2).md");
        assert_eq!(second.file_name, "notes (3).md");
        assert_eq!(
            std::fs::read(folder.path().join("notes.md")).unwrap(),
            b"mine"
        );
        assert_eq!(std::fs::read(&second.path).unwrap(), b"two");
    }

    #[test]
    fn a_chosen_file_is_written_replacing_what_was_there_and_leaves_nothing_beside_it() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("week.md");
        std::fs::write(&path, b"old").unwrap();
        let written = write_chosen_file(&path, b"new").unwrap();
        assert_eq!(
            written,
            ExportedFile {
                file_name: "week.md".to_owned(),
                path: path.clone(),
            }
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(folder.path()).unwrap().count(), 1);
        assert!(write_chosen_file(&folder.path().join("missing/week.md"), b"x").is_err());
        assert_eq!(std::fs::read_dir(folder.path()).unwrap().count(), 1);
    }
}
