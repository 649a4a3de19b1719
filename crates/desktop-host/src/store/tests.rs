//! Store behaviour that needs the connection itself: a full disk, simulated with SQLite's page limit.

use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text, "timestamp": 1})
}

fn limit_database_to_current_size(store: &Store) {
    store
        .with_connection(|connection| {
            let n_pages: i64 = connection
                .query_row("PRAGMA page_count", [], |row| row.get(0))
                .unwrap();
            let _limit: i64 = connection
                .query_row(&format!("PRAGMA max_page_count = {n_pages}"), [], |row| {
                    row.get(0)
                })
                .unwrap();
            Ok(())
        })
        .unwrap();
}

fn lift_size_limit(store: &Store) {
    store
        .with_connection(|connection| {
            let _limit: i64 = connection
                .query_row("PRAGMA max_page_count = 1000000000", [], |row| row.get(0))
                .unwrap();
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_full_disk_is_a_typed_error_keeps_saved_messages_and_retries_in_order() {
    let folder = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_700_000_000_000);
    let opened =
        Store::open_with_clock(&folder.path().join(DATABASE_FILE_NAME), Arc::new(clock)).unwrap();
    let store = opened.store;
    let saved = store.create_conversation(None).unwrap();
    store.append_message(&saved.id, &user("kept safe")).unwrap();
    let live = store.create_conversation(None).unwrap();
    let mut recorder = ConversationRecorder::new(store.clone(), live.id.clone());

    limit_database_to_current_size(&store);
    let big = user(&"x".repeat(64 * 1024));
    let error = recorder.on_message_end(&big).unwrap_err();
    assert_eq!(error.kind(), StoreErrorKind::DiskFull);
    let second = user("second");
    assert_eq!(
        recorder.on_message_end(&second).unwrap_err().kind(),
        StoreErrorKind::DiskFull
    );
    assert_eq!(recorder.n_unsaved(), 2);
    assert_eq!(
        store
            .load_transcript(&saved.id)
            .unwrap()
            .agent_messages_json(),
        vec![user("kept safe")]
    );
    assert_eq!(store.load_transcript(&live.id).unwrap().entries, vec![]);

    lift_size_limit(&store);
    recorder.flush_unsaved().unwrap();
    assert_eq!(recorder.n_unsaved(), 0);
    assert_eq!(
        store
            .load_transcript(&live.id)
            .unwrap()
            .agent_messages_json(),
        vec![big, second]
    );
}

#[test]
fn a_read_only_database_is_a_typed_error_and_what_it_holds_still_loads() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(DATABASE_FILE_NAME);
    let clock = ManualClock::new(1_700_000_000_000);
    let writable = Store::open_with_clock(&path, Arc::new(clock.clone()))
        .unwrap()
        .store;
    let saved = writable.create_conversation(None).unwrap();
    writable
        .append_message(&saved.id, &user("kept safe"))
        .unwrap();
    drop(writable);

    // Root ignores file modes, so a read-only folder cannot be made here; SQLite's read-only open gives the same
    // SQLITE_READONLY answer on every write.
    let connection =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let store = Store::from_connection(connection, Arc::new(clock), Some(path));
    let error = store.create_conversation(None).unwrap_err();
    assert_eq!(error.kind(), StoreErrorKind::ReadOnly);
    let mut recorder = ConversationRecorder::new(store.clone(), saved.id.clone());
    assert_eq!(
        recorder
            .on_message_end(&user("not saved"))
            .unwrap_err()
            .kind(),
        StoreErrorKind::ReadOnly
    );
    assert_eq!(recorder.n_unsaved(), 1);
    assert_eq!(
        store
            .load_transcript(&saved.id)
            .unwrap()
            .agent_messages_json(),
        vec![user("kept safe")]
    );
}

#[test]
fn the_store_and_the_key_store_can_live_in_app_state() {
    fn assert_shareable<T: Send + Sync + 'static>() {}
    assert_shareable::<Store>();
    assert_shareable::<crate::secrets::ApiKeys>();
    assert_shareable::<StoreError>();
}

/// One `message_update` of a growing assistant answer, as the Agent's listeners receive it.
fn text_update(text_so_far: &str, delta: &str) -> pi_agent::AgentEvent {
    let mut partial = pi_ai::AssistantMessage::empty_for(
        pi_ai::Api::SCRIPTED,
        "scripted".to_owned(),
        "m".to_owned(),
    );
    partial.content.push(Arc::new(pi_ai::AssistantBlock::text(
        text_so_far.to_owned(),
    )));
    let partial = Arc::new(partial);
    pi_agent::AgentEvent::MessageUpdate {
        message: pi_agent::AgentMessage::Assistant(Arc::clone(&partial)),
        assistant_message_event: pi_ai::AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta: delta.to_owned(),
            partial,
        },
    }
}

#[test]
fn of_a_two_thousand_delta_answer_only_one_update_a_second_needs_a_write() {
    let clock = ManualClock::new(1_700_000_000_000);
    let store = Store::open_in_memory(Arc::new(clock.clone())).unwrap();
    let conversation = store.create_conversation(None).unwrap();
    let mut recorder = ConversationRecorder::new(store.clone(), conversation.id.clone());

    // 2,000 deltas over 2.5 s: the host asks `writes_for` on the event's task and hands only those to a
    // blocking thread (`on_agent_event`), as desktop-host's session does.
    let mut text = String::new();
    let mut blocking_writes = 0;
    for index in 0..2_000 {
        let delta = format!("word{index} ");
        text.push_str(&delta);
        let event = text_update(&text, &delta);
        if recorder.writes_for(&event) {
            blocking_writes += 1;
            assert_eq!(
                recorder.on_agent_event(&event).unwrap(),
                Some(CheckpointWrite::Written)
            );
        } else {
            assert_eq!(
                recorder.on_agent_event(&event).unwrap(),
                Some(CheckpointWrite::Throttled),
                "an update `writes_for` skipped would not have been written either"
            );
        }
        if index % 4 == 3 {
            clock.advance(5);
        }
    }
    // Checkpoints at 0 ms, 1,000 ms and 2,000 ms of the 2,500 ms answer.
    assert_eq!(blocking_writes, 3);
    let checkpoint = store.load_transcript(&conversation.id).unwrap().entries;
    assert_eq!(checkpoint.len(), 1);

    let end = pi_agent::AgentEvent::MessageEnd {
        message: serde_json::from_value(json!({
            "role": "user", "content": "not streamed", "timestamp": 1
        }))
        .unwrap(),
    };
    assert!(recorder.writes_for(&end), "every message_end is saved");
    assert!(!recorder.writes_for(&pi_agent::AgentEvent::TurnStart));
}

/// SQLite's plan for `sql`: the detail of each step, such as "SCAN messages" or "SEARCH messages USING INDEX …".
fn query_plan(store: &Store, sql: &str) -> Vec<String> {
    store
        .with_connection(|connection| {
            let mut statement = connection
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .unwrap();
            let details = statement
                .query_map([0], |row| row.get::<_, String>(3))
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
            Ok(details)
        })
        .unwrap()
}

#[test]
fn the_purge_at_every_open_reads_only_the_rows_marked_deleted() {
    let store = Store::open_in_memory(Arc::new(SystemClock)).unwrap();
    for (sql, index) in [
        (store_handle::EXPIRED_CONVERSATIONS, "conversations_deleted"),
        (branches::EXPIRED_MESSAGES, "messages_deleted"),
    ] {
        let plan = query_plan(&store, sql);
        assert!(
            plan.iter()
                .any(|step| step.contains(&format!("USING INDEX {index}"))),
            "{sql}: {plan:?}"
        );
        assert!(
            !plan.iter().any(|step| step.starts_with("SCAN")),
            "{sql}: {plan:?}"
        );
    }
}
