use std::time::{Duration, UNIX_EPOCH};

use pretty_assertions::assert_eq;

use super::*;

/// Writes `relative` under `root` with the given modification time (seconds after the epoch).
fn write_file(root: &Path, relative: &str, bytes: &[u8], modified_secs: u64) {
    let path = root.join(relative);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(&path, bytes).unwrap();
    let file = fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(UNIX_EPOCH + Duration::from_secs(modified_secs))
        .unwrap();
}

fn sample_folder() -> (tempfile::TempDir, AllowedFolder) {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("Downloads");
    write_file(&root, "report.PDF", b"%PDF", 3_000);
    write_file(&root, "notes.md", b"# notes", 2_000);
    write_file(&root, "发票 2024.pdf", b"%PDF-1.4", 4_000);
    write_file(&root, "archive/old.pdf", b"%PDF-old", 1_000);
    write_file(&root, "archive/deeper/photo.jpg", b"jpg", 5_000);
    write_file(&root, ".hidden.pdf", b"%PDF", 6_000);
    let allowed = AllowedFolder::new(&root).unwrap();
    (temp, allowed)
}

fn paths(page: &ListingPage) -> Vec<&str> {
    page.entries
        .iter()
        .map(|entry| entry.relative_path.as_str())
        .collect()
}

fn list(allowed: &AllowedFolder, query: &ListingQuery) -> ListingPage {
    list_files(allowed, allowed.root(), query, &CancellationToken::new()).unwrap()
}

#[test]
fn lists_top_level_files_newest_first_and_skips_hidden_ones() {
    let (_temp, allowed) = sample_folder();
    let page = list(&allowed, &ListingQuery::default());
    assert_eq!(
        paths(&page),
        vec!["发票 2024.pdf", "report.PDF", "notes.md"]
    );
    assert_eq!(page.total_matched, 3);
    assert_eq!(page.next_cursor, None);
    let report = &page.entries[1];
    assert_eq!(report.kind, FileKind::Pdf);
    assert_eq!(report.size, 4);
    assert_eq!(report.modified_ms, Some(3_000_000));
}

#[test]
fn extension_filter_is_case_insensitive_and_recursion_is_optional() {
    let (_temp, allowed) = sample_folder();
    let query = ListingQuery {
        extensions: vec![".Pdf".to_owned()],
        recursive: true,
        ..ListingQuery::default()
    };
    let page = list(&allowed, &query);
    assert_eq!(
        paths(&page),
        vec!["发票 2024.pdf", "report.PDF", "archive/old.pdf"]
    );
}

#[test]
fn name_and_time_filters_combine() {
    let (_temp, allowed) = sample_folder();
    let query = ListingQuery {
        name_contains: Some("O".to_owned()),
        modified_after: Some(UNIX_EPOCH + Duration::from_secs(1_500)),
        modified_before: Some(UNIX_EPOCH + Duration::from_secs(5_000)),
        recursive: true,
        sort: SortOrder::Name,
        ..ListingQuery::default()
    };
    // "old.pdf" is too old, "photo.jpg" too new; "notes.md" and "report.PDF" contain an "o".
    assert_eq!(
        paths(&list(&allowed, &query)),
        vec!["notes.md", "report.PDF"]
    );
}

#[test]
fn folders_are_listed_only_when_asked() {
    let (_temp, allowed) = sample_folder();
    let query = ListingQuery {
        include_folders: true,
        sort: SortOrder::Name,
        ..ListingQuery::default()
    };
    let page = list(&allowed, &query);
    assert_eq!(
        paths(&page),
        vec!["archive", "notes.md", "report.PDF", "发票 2024.pdf"]
    );
    assert_eq!(page.entries[0].kind, FileKind::Folder);
}

#[test]
fn cursors_page_through_every_entry_once() {
    let (_temp, allowed) = sample_folder();
    for sort in [SortOrder::Newest, SortOrder::Oldest, SortOrder::Name] {
        let full = list(
            &allowed,
            &ListingQuery {
                recursive: true,
                sort,
                ..ListingQuery::default()
            },
        );
        let mut collected = Vec::new();
        let mut cursor = None;
        loop {
            let query = ListingQuery {
                recursive: true,
                sort,
                limit: Some(2),
                cursor,
                ..ListingQuery::default()
            };
            let page = list(&allowed, &query);
            assert!(page.entries.len() <= 2);
            collected.extend(page.entries.iter().map(|entry| entry.relative_path.clone()));
            cursor = page.next_cursor;
            if cursor.is_none() {
                break;
            }
        }
        assert_eq!(collected, paths(&full));
        assert_eq!(collected.len(), 5);
    }
}

#[test]
fn a_cursor_of_another_sort_order_is_refused() {
    let (_temp, allowed) = sample_folder();
    let page = list(
        &allowed,
        &ListingQuery {
            limit: Some(1),
            ..ListingQuery::default()
        },
    );
    let query = ListingQuery {
        sort: SortOrder::Name,
        cursor: page.next_cursor,
        ..ListingQuery::default()
    };
    let result = list_files(&allowed, allowed.root(), &query, &CancellationToken::new());
    assert!(matches!(result, Err(ListingError::InvalidCursor { .. })));
}

#[test]
fn a_cancelled_token_stops_the_walk() {
    let temp = tempfile::tempdir().unwrap();
    for idx in 0..(CANCEL_CHECK_EVERY * 2) {
        fs::write(temp.path().join(format!("f{idx}.txt")), b"").unwrap();
    }
    let allowed = AllowedFolder::new(temp.path()).unwrap();
    let cancel_token = CancellationToken::new();
    cancel_token.cancel();
    let result = list_files(
        &allowed,
        allowed.root(),
        &ListingQuery::default(),
        &cancel_token,
    );
    assert!(matches!(result, Err(ListingError::Cancelled)));
}

#[cfg(unix)]
#[test]
fn symlinks_leading_outside_are_skipped_and_inside_ones_listed() {
    let (temp, allowed) = sample_folder();
    fs::write(temp.path().join("outside.pdf"), b"%PDF").unwrap();
    std::os::unix::fs::symlink(
        temp.path().join("outside.pdf"),
        allowed.root().join("escape.pdf"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        allowed.root().join("report.PDF"),
        allowed.root().join("alias.pdf"),
    )
    .unwrap();
    std::os::unix::fs::symlink(temp.path(), allowed.root().join("loop")).unwrap();
    let query = ListingQuery {
        recursive: true,
        sort: SortOrder::Name,
        ..ListingQuery::default()
    };
    let page = list(&allowed, &query);
    assert_eq!(
        paths(&page),
        vec![
            "alias.pdf",
            "archive/deeper/photo.jpg",
            "archive/old.pdf",
            "notes.md",
            "report.PDF",
            "发票 2024.pdf"
        ]
    );
    assert_eq!(page.skipped, 2);
}

#[cfg(unix)]
#[test]
fn non_utf8_names_are_listed_lossily_and_marked() {
    use std::os::unix::ffi::OsStrExt;
    let temp = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.pdf");
    fs::write(temp.path().join(name), b"%PDF").unwrap();
    let allowed = AllowedFolder::new(temp.path()).unwrap();
    let query = ListingQuery {
        extensions: vec!["pdf".to_owned()],
        ..ListingQuery::default()
    };
    let page = list(&allowed, &query);
    assert_eq!(page.entries.len(), 1);
    assert_eq!(page.entries[0].name, "caf\u{fffd}.pdf");
    assert!(page.entries[0].lossy_name);
}

#[test]
fn a_missing_folder_is_an_error() {
    let (_temp, allowed) = sample_folder();
    let missing = allowed.root().join("missing");
    let result = list_files(
        &allowed,
        &missing,
        &ListingQuery::default(),
        &CancellationToken::new(),
    );
    assert!(matches!(result, Err(ListingError::FolderUnreadable { .. })));
}

#[test]
fn name_order_looks_up_sizes_and_times_for_the_page_only_but_reports_them() {
    let (_temp, allowed) = sample_folder();
    let query = ListingQuery {
        sort: SortOrder::Name,
        limit: Some(2),
        ..ListingQuery::default()
    };
    let page = list(&allowed, &query);
    assert_eq!(paths(&page), vec!["notes.md", "report.PDF"]);
    assert_eq!(
        (page.entries[0].size, page.entries[0].modified_ms),
        (7, Some(2_000_000))
    );
    assert_eq!(
        (page.entries[1].size, page.entries[1].modified_ms),
        (4, Some(3_000_000))
    );
    assert_eq!(page.total_matched, 3);
    assert!(page.next_cursor.is_some());
}
