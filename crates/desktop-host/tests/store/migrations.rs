use std::path::{Path, PathBuf};

use desktop_host::store::{
    ConversationId, DATABASE_FILE_NAME, EntryState, SCHEMA_VERSION, Store, StoreErrorKind,
    StoreNotice,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::{START_MS, TestStore, data_path, open_at};

fn database_from_sql(folder: &Path, sql: &str) -> PathBuf {
    let path = folder.join(DATABASE_FILE_NAME);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(sql)
        .unwrap();
    path
}

fn user_version(path: &Path) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap()
}

fn bodies(path: &Path) -> Vec<String> {
    let connection = rusqlite::Connection::open(path).unwrap();
    let mut statement = connection
        .prepare("SELECT body FROM messages ORDER BY id")
        .unwrap();
    statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// What `message_search_ends` holds, by id.
fn search_ends(path: &Path) -> Vec<(i64, Option<String>, Option<String>)> {
    let connection = rusqlite::Connection::open(path).unwrap();
    let mut statement = connection
        .prepare("SELECT id, last1, last2 FROM message_search_ends ORDER BY id")
        .unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn ends(id: i64, last1: &str, last2: &str) -> (i64, Option<String>, Option<String>) {
    (id, Some(last1.to_owned()), Some(last2.to_owned()))
}

fn search_positions(store: &Store, query: &str) -> Vec<(String, i64)> {
    store
        .search(query, 10)
        .unwrap()
        .into_iter()
        .map(|hit| (hit.conversation_id.to_string(), hit.message_seq))
        .collect()
}

#[test]
fn every_earlier_schema_version_is_upgraded_after_a_backup() {
    for version in 1..SCHEMA_VERSION {
        let folder = tempfile::tempdir().unwrap();
        let sql = std::fs::read_to_string(data_path(&format!("schema_v{version}.sql")))
            .unwrap_or_else(|_| {
                panic!("tests/data/store/schema_v{version}.sql is missing: freeze each old schema")
            });
        let path = database_from_sql(folder.path(), &sql);
        let bodies_before = bodies(&path);
        let clock = desktop_host::store::ManualClock::new(START_MS);

        let opened = open_at(&path, &clock);
        let [
            StoreNotice::Migrated {
                from,
                to,
                backup: Some(backup),
            },
        ] = opened.notices.as_slice()
        else {
            panic!("version {version}: unexpected notices {:?}", opened.notices);
        };
        assert_eq!((*from, *to), (version, SCHEMA_VERSION));
        assert_eq!(backup.parent(), Some(folder.path()));
        assert_eq!(
            user_version(backup),
            version,
            "the backup is the database as it was"
        );
        assert_eq!(bodies(backup), bodies_before);
        assert_eq!(user_version(&path), SCHEMA_VERSION);

        let store = opened.store;
        let titles: Vec<(String, Option<String>)> = store
            .list_conversations()
            .unwrap()
            .into_iter()
            .map(|summary| (summary.id.to_string(), summary.title))
            .collect();
        assert_eq!(
            titles,
            vec![
                ("c-old".to_owned(), Some("Old kettle talk".to_owned())),
                ("c-older".to_owned(), None)
            ],
            "version {version}"
        );
        let transcript = store
            .load_transcript(&ConversationId::from("c-old"))
            .unwrap();
        let states: Vec<EntryState> = transcript.entries.iter().map(|entry| entry.state).collect();
        assert_eq!(
            states,
            vec![
                EntryState::Complete,
                EntryState::Complete,
                EntryState::Interrupted
            ]
        );
        let messages: Vec<Value> = transcript
            .entries
            .iter()
            .map(|entry| entry.message.clone())
            .collect();
        let expected: Vec<Value> = bodies_before
            .iter()
            .map(|body| serde_json::from_str(body).unwrap())
            .collect();
        assert_eq!(messages, expected);
        assert_eq!(
            search_positions(&store, "kettle"),
            vec![("c-old".to_owned(), 0)],
            "version {version}"
        );
        assert_eq!(
            search_positions(&store, "水壶"),
            vec![("c-old".to_owned(), 1)],
            "version {version}"
        );

        // The ends of the texts written before the upgrade, folded; the purged conversation's are gone.
        assert_eq!(
            search_ends(&path),
            vec![
                ends(1, "?", "e?"),
                ends(2, "。", "上。"),
                ends(3, "a", "ea")
            ],
            "version {version}"
        );

        // What the newest schema added works on the upgraded file.
        let older = ConversationId::from("c-older");
        store.delete_conversation(&older).unwrap();
        store.restore_conversation(&older).unwrap();
        store
            .append_message(&older, &json!({"role": "user", "content": "new kettle"}))
            .unwrap();
        assert_eq!(search_positions(&store, "kettle").len(), 2);
        assert_eq!(search_ends(&path).last(), Some(&ends(4, "e", "le")));
        assert_eq!(
            search_positions(&store, "ea"),
            vec![("c-old".to_owned(), 2)]
        );
        store
            .grant_in_conversation(&older, "everything", "get-sum")
            .unwrap();
        let grants: Vec<(String, String)> = store
            .all_conversation_grants()
            .unwrap()
            .into_iter()
            .map(|grant| (grant.conversation_id.to_string(), grant.tool))
            .collect();
        assert_eq!(
            grants,
            vec![("c-older".to_owned(), "get-sum".to_owned())],
            "version {version}"
        );
        let log = desktop_host::store::NewRunLog {
            started_at: START_MS,
            messages_before: 1,
            log: "{}",
            summary: "{}",
        };
        let log_id = store.append_run_log(&older, &log).unwrap();
        assert_eq!(
            store.run_log(&older, log_id).unwrap(),
            Some(("{}".to_owned(), 1)),
            "version {version}"
        );

        drop(store);
        assert_eq!(
            open_at(&path, &clock).notices,
            vec![],
            "a current database is not migrated again"
        );
        assert!(backup.exists(), "backups are never deleted");
    }
}

#[test]
fn a_new_database_gets_the_current_schema_without_a_backup() {
    let test_store = TestStore::new();
    assert_eq!(user_version(&test_store.path()), SCHEMA_VERSION);
    let mut names: Vec<String> = std::fs::read_dir(test_store.folder.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with("-wal") && !name.ends_with("-shm"))
        .collect();
    names.sort();
    assert_eq!(names, vec![DATABASE_FILE_NAME.to_owned()]);
}

#[test]
fn a_database_from_a_newer_app_is_refused_and_left_untouched() {
    let folder = tempfile::tempdir().unwrap();
    let newer = SCHEMA_VERSION + 1;
    let path = database_from_sql(
        folder.path(),
        &format!("CREATE TABLE future (x); PRAGMA user_version = {newer};"),
    );
    let bytes_before = std::fs::read(&path).unwrap();
    let error = Store::open(&path).unwrap_err();
    assert_eq!(error.kind(), StoreErrorKind::SchemaTooNew);
    assert_eq!(std::fs::read(&path).unwrap(), bytes_before);
    assert_eq!(std::fs::read_dir(folder.path()).unwrap().count(), 1);
}
