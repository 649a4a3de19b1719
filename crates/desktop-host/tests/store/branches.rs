use desktop_host::language::Language;
use desktop_host::store::{
    ConversationId, ExportFormat, ManualClock, MessageVersion, Store, StoreErrorKind,
    UNDO_WINDOW_MS,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::{START_MS, TestStore, data_path, open_at};

fn question(text: &str, timestamp: i64) -> Value {
    json!({"role": "user", "content": text, "timestamp": timestamp})
}

fn answer(text: &str, timestamp: i64) -> Value {
    let mut message = crate::support::assistant(text, "stop");
    message["timestamp"] = json!(timestamp);
    message
}

/// The shown branch as (seq, the message's text).
fn shown(store: &Store, id: &ConversationId) -> Vec<(i64, String)> {
    store
        .load_transcript(id)
        .unwrap()
        .entries
        .into_iter()
        .map(|entry| {
            let text = match &entry.message["content"] {
                Value::String(text) => text.clone(),
                content => content[0]["text"].as_str().unwrap_or_default().to_owned(),
            };
            (entry.seq, text)
        })
        .collect()
}

/// The versions as (seq, version, versions).
fn versions(store: &Store, id: &ConversationId) -> Vec<(i64, u32, u32)> {
    store
        .message_versions(id)
        .unwrap()
        .into_iter()
        .map(|version| (version.seq, version.version, version.versions))
        .collect()
}

/// A conversation of two questions and their answers: seqs 0 to 3.
fn two_turns(store: &Store) -> ConversationId {
    let id = store.create_conversation(Some("scripted-1")).unwrap().id;
    store
        .append_message(&id, &question("Where is my kettle?", 1))
        .unwrap();
    store
        .append_message(&id, &answer("On the shelf.", 2))
        .unwrap();
    store
        .append_message(&id, &question("And the tea?", 3))
        .unwrap();
    store
        .append_message(&id, &answer("In the tin.", 4))
        .unwrap();
    id
}

#[test]
fn a_regenerated_answer_is_a_second_version_and_the_first_one_comes_back_with_what_followed_it() {
    let test_store = TestStore::new();
    let store = &test_store.store;
    let id = two_turns(store);

    assert_eq!(store.branch_before(&id, 1).unwrap(), Some(0));
    store
        .append_message(&id, &answer("Next to the sink.", 5))
        .unwrap();

    assert_eq!(
        shown(store, &id),
        vec![
            (0, "Where is my kettle?".to_owned()),
            (4, "Next to the sink.".to_owned())
        ]
    );
    assert_eq!(versions(store, &id), vec![(0, 1, 1), (4, 2, 2)]);

    assert_eq!(store.show_adjacent_version(&id, 4, -1).unwrap(), 1);
    assert_eq!(
        shown(store, &id),
        vec![
            (0, "Where is my kettle?".to_owned()),
            (1, "On the shelf.".to_owned()),
            (2, "And the tea?".to_owned()),
            (3, "In the tin.".to_owned()),
        ],
        "the first version comes back with the turn that followed it"
    );
    assert_eq!(
        versions(store, &id),
        vec![(0, 1, 1), (1, 1, 2), (2, 1, 1), (3, 1, 1)]
    );
    let error = store.show_adjacent_version(&id, 1, -1).unwrap_err();
    assert_eq!(error.kind(), StoreErrorKind::InvalidInput);
}

#[test]
fn an_edited_question_starts_a_branch_the_agent_gets_and_the_old_branch_stays_reachable() {
    let test_store = TestStore::new();
    let store = &test_store.store;
    let id = two_turns(store);

    assert_eq!(store.branch_before(&id, 2).unwrap(), Some(1));
    store
        .append_message(&id, &question("And the coffee?", 5))
        .unwrap();
    store
        .append_message(&id, &answer("In the jar.", 6))
        .unwrap();

    assert_eq!(
        versions(store, &id),
        vec![(0, 1, 1), (1, 1, 1), (4, 2, 2), (5, 1, 1)]
    );
    let agent_texts: Vec<String> = store
        .load_transcript(&id)
        .unwrap()
        .agent_messages_json()
        .iter()
        .map(|message| message["timestamp"].to_string())
        .collect();
    assert_eq!(
        agent_texts,
        ["1", "2", "5", "6"],
        "the agent gets the new branch only"
    );

    store.show_adjacent_version(&id, 4, -1).unwrap();
    assert_eq!(
        versions(store, &id),
        vec![(0, 1, 1), (1, 1, 1), (2, 1, 2), (3, 1, 1)]
    );
    store.show_adjacent_version(&id, 2, 1).unwrap();
    assert_eq!(
        shown(store, &id).last().unwrap().1,
        "In the jar.",
        "the new branch comes back as it was last continued"
    );
}

#[test]
fn versions_and_the_shown_branch_survive_a_restart() {
    let test_store = TestStore::new();
    let id = two_turns(&test_store.store);
    test_store.store.branch_before(&id, 3).unwrap();
    test_store
        .store
        .append_message(&id, &answer("In the red tin.", 5))
        .unwrap();
    test_store.store.show_adjacent_version(&id, 4, -1).unwrap();

    let reopened = test_store.reopen();

    assert_eq!(
        reopened.store.message_versions(&id).unwrap()[3],
        MessageVersion {
            seq: 3,
            role: "assistant".to_owned(),
            timestamp: Some(4),
            version: 1,
            versions: 2,
        }
    );
}

#[test]
fn the_last_versions_are_the_shown_branch_s_end_with_their_timestamps() {
    let test_store = TestStore::new();
    let store = &test_store.store;
    let id = two_turns(store);
    // A second answer to the first question, continued; then the first answer shown again.
    store.branch_before(&id, 1).unwrap();
    store
        .append_message(&id, &answer("Next to the sink.", 5))
        .unwrap();
    store
        .append_message(&id, &question("And the cups?", 6))
        .unwrap();
    store.show_adjacent_version(&id, 4, -1).unwrap();

    let places = |versions: Vec<MessageVersion>| {
        versions
            .into_iter()
            .map(|version| {
                (
                    version.seq,
                    version.timestamp,
                    version.version,
                    version.versions,
                )
            })
            .collect::<Vec<_>>()
    };
    let last = |count| places(store.last_message_versions(&id, count).unwrap());

    assert_eq!(last(2), vec![(2, Some(3), 1, 1), (3, Some(4), 1, 1)]);
    assert_eq!(
        last(3),
        vec![(1, Some(2), 1, 2), (2, Some(3), 1, 1), (3, Some(4), 1, 1)]
    );
    assert_eq!(last(0), Vec::new());
    assert_eq!(
        last(usize::MAX),
        places(store.message_versions(&id).unwrap())
    );
    assert_eq!(last(9).len(), 4, "the shown branch has four messages");
}

#[test]
fn search_finds_every_version_and_branch_but_not_a_deleted_pair() {
    let test_store = TestStore::new();
    let store = &test_store.store;
    let id = two_turns(store);
    store.branch_before(&id, 3).unwrap();
    store
        .append_message(&id, &answer("In the red tin.", 5))
        .unwrap();

    let seqs = |query: &str| -> Vec<i64> {
        store
            .search(query, 10)
            .unwrap()
            .into_iter()
            .map(|hit| hit.message_seq)
            .collect()
    };
    assert_eq!(
        seqs("tin"),
        vec![3, 4],
        "the version not shown is found too"
    );

    store.delete_message_pair(&id, 2).unwrap();
    assert_eq!(
        seqs("tin"),
        vec![3],
        "the shown pair is deleted; the other version stays"
    );
    assert_eq!(seqs("tea"), Vec::<i64>::new());
}

#[test]
fn an_export_is_of_the_shown_branch_and_says_which_version_each_message_is() {
    let test_store = TestStore::new();
    let store = &test_store.store;
    let id = two_turns(store);
    store.branch_before(&id, 3).unwrap();
    store
        .append_message(&id, &answer("In the red tin.", 5))
        .unwrap();

    let markdown = store
        .export_conversation(&id, ExportFormat::Markdown, Language::En)
        .unwrap();
    assert!(
        markdown.contains(
            "*This is the branch shown in Pi Desktop; other versions are kept in the app.*"
        )
    );
    assert!(
        markdown.contains("## Assistant (version 2 of 2)\n\nIn the red tin."),
        "{markdown}"
    );
    assert!(!markdown.contains("In the tin."), "{markdown}");
    let chinese = store
        .export_conversation(&id, ExportFormat::Markdown, Language::Zh)
        .unwrap();
    assert!(chinese.contains("## 助手 (第 2 版，共 2 版)"), "{chinese}");

    let lines = store
        .export_conversation(&id, ExportFormat::JsonLines, Language::En)
        .unwrap();
    let last: Value = serde_json::from_str(lines.lines().last().unwrap()).unwrap();
    assert_eq!(
        (
            last["seq"].clone(),
            last["version"].clone(),
            last["versions"].clone()
        ),
        (json!(4), json!(2), json!(2))
    );
}

#[test]
fn a_deleted_pair_is_restored_within_the_undo_window_and_purged_after_it_without_losing_what_followed()
 {
    let test_store = TestStore::new();
    let id = two_turns(&test_store.store);
    test_store
        .store
        .append_message(&id, &question("And the sugar?", 5))
        .unwrap();

    let deleted = test_store.store.delete_message_pair(&id, 2).unwrap();
    assert_eq!(deleted.seqs, vec![2, 3]);
    assert_eq!(deleted.undo_until, START_MS + UNDO_WINDOW_MS);
    assert_eq!(
        shown(&test_store.store, &id)
            .iter()
            .map(|(seq, _)| *seq)
            .collect::<Vec<_>>(),
        vec![0, 1, 4]
    );
    test_store
        .store
        .restore_messages(&id, &deleted.seqs)
        .unwrap();
    assert_eq!(shown(&test_store.store, &id).len(), 5);

    test_store.store.delete_message_pair(&id, 2).unwrap();
    let error = test_store.store.delete_message_pair(&id, 1).unwrap_err();
    assert_eq!(
        error.kind(),
        StoreErrorKind::InvalidInput,
        "an answer is not a pair's start"
    );
    test_store.clock.advance(UNDO_WINDOW_MS);
    let reopened = test_store.reopen();

    assert_eq!(
        shown(&reopened.store, &id),
        vec![
            (0, "Where is my kettle?".to_owned()),
            (1, "On the shelf.".to_owned()),
            (4, "And the sugar?".to_owned()),
        ]
    );
    reopened
        .store
        .append_message(&id, &answer("In the bowl.", 6))
        .unwrap();
    assert_eq!(versions(&reopened.store, &id).last(), Some(&(5, 1, 1)));
}

#[test]
fn a_conversation_saved_by_schema_5_is_one_branch_whose_answers_can_be_regenerated() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(desktop_host::store::DATABASE_FILE_NAME);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(&std::fs::read_to_string(data_path("schema_v5.sql")).unwrap())
        .unwrap();
    let clock = ManualClock::new(START_MS);
    let store = open_at(&path, &clock).store;
    let id = ConversationId::from("c-old");

    assert_eq!(versions(&store, &id), vec![(0, 1, 1), (1, 1, 1), (2, 1, 1)]);
    store.branch_before(&id, 1).unwrap();
    store
        .append_message(&id, &answer("水壶在桌上。", 1_700_000_009_000))
        .unwrap();
    assert_eq!(versions(&store, &id), vec![(0, 1, 1), (3, 2, 2)]);
    store.show_adjacent_version(&id, 3, -1).unwrap();
    assert_eq!(
        shown(&store, &id)
            .iter()
            .map(|(seq, _)| *seq)
            .collect::<Vec<_>>(),
        vec![0, 1, 2],
        "the old answer and the interrupted one after it"
    );
}
