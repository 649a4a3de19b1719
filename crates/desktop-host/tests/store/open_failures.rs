use std::path::Path;

use desktop_host::store::{DATABASE_FILE_NAME, ManualClock, Store, StoreError, StoreNotice};
use pretty_assertions::assert_eq;

use crate::support::{START_MS, TestStore, open_at, user};

fn companion(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// Opens `path`, expects exactly one "moved aside" notice, and checks the moved file kept `bytes` and a fresh,
/// working database took its place.
fn assert_moved_aside_and_replaced(path: &Path, bytes: &[u8]) -> std::path::PathBuf {
    let opened = open_at(path, &ManualClock::new(START_MS));
    let [StoreNotice::CorruptDatabaseMovedAside { moved_to }] = opened.notices.as_slice() else {
        panic!("unexpected notices {:?}", opened.notices);
    };
    assert_eq!(moved_to.parent(), path.parent());
    assert!(
        moved_to
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("conversations.sqlite3.corrupt-")
    );
    assert_eq!(
        std::fs::read(moved_to).unwrap(),
        bytes,
        "the corrupt file is kept as it was"
    );
    let store = opened.store;
    assert_eq!(store.list_conversations().unwrap(), vec![]);
    let conversation = store.create_conversation(None).unwrap();
    store
        .append_message(&conversation.id, &user("a fresh start"))
        .unwrap();
    assert_eq!(store.search("fresh", 10).unwrap().len(), 1);
    moved_to.clone()
}

#[test]
fn a_file_that_is_not_a_database_is_moved_aside_and_a_fresh_one_started() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(DATABASE_FILE_NAME);
    let garbage = "this is not a database\n".repeat(500).into_bytes();
    std::fs::write(&path, &garbage).unwrap();
    std::fs::write(companion(&path, "-wal"), b"stale wal").unwrap();
    let moved_to = assert_moved_aside_and_replaced(&path, &garbage);
    assert_eq!(
        std::fs::read(companion(&moved_to, "-wal")).unwrap(),
        b"stale wal",
        "the WAL moves with its file"
    );
}

#[test]
fn a_database_with_a_damaged_page_is_moved_aside_and_a_fresh_one_started() {
    let test_store = TestStore::new();
    let conversation = test_store.store.create_conversation(None).unwrap();
    for n in 0..200 {
        test_store
            .store
            .append_message(
                &conversation.id,
                &user(&format!("message {n} {}", "x".repeat(1_000))),
            )
            .unwrap();
    }
    let path = test_store.path();
    drop(test_store.store);
    assert!(
        !companion(&path, "-wal").exists(),
        "closing the last connection checkpoints the WAL"
    );
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 40 * 4096);
    // Scribble over pages 3 to 20: b-tree pages of the messages table and its indexes.
    for byte in &mut bytes[2 * 4096..20 * 4096] {
        *byte = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();
    assert_moved_aside_and_replaced(&path, &bytes);
}

#[test]
fn a_search_index_out_of_step_with_its_texts_keeps_every_conversation() {
    let test_store = TestStore::new();
    let conversation = test_store.store.create_conversation(None).unwrap();
    test_store
        .store
        .append_message(&conversation.id, &user("where is the kettle"))
        .unwrap();
    let path = test_store.path();
    drop(test_store.store);
    // The index's stored copy of the text no longer matches its index: FTS5's own integrity check fails, while
    // every table is sound and every conversation readable.
    let connection = rusqlite::Connection::open(&path).unwrap();
    connection
        .execute(
            "UPDATE message_search_content SET c0 = 'something else'",
            [],
        )
        .unwrap();
    let damaged: rusqlite::Result<usize> = connection.execute(
        "INSERT INTO message_search (message_search) VALUES ('integrity-check')",
        [],
    );
    assert!(
        damaged.is_err(),
        "the index must be out of step for this test"
    );
    drop(connection);

    let opened = open_at(&path, &ManualClock::new(START_MS));
    assert_eq!(opened.notices, vec![]);
    let transcript = opened.store.load_transcript(&conversation.id).unwrap();
    assert_eq!(transcript.entries.len(), 1);
}

#[test]
fn a_folder_that_cannot_be_created_is_reported_and_nothing_is_touched() {
    let folder = tempfile::tempdir().unwrap();
    let blocker = folder.path().join("data");
    std::fs::write(&blocker, b"a file where the data folder should be").unwrap();
    let error = Store::open(&blocker.join(DATABASE_FILE_NAME)).unwrap_err();
    assert!(
        matches!(&error, StoreError::CreateFolder { path, .. } if path == &blocker),
        "{error:?}"
    );
    assert!(error.to_string().contains("cannot create the folder"));
    assert_eq!(
        std::fs::read(&blocker).unwrap(),
        b"a file where the data folder should be"
    );
}
