use desktop_host::store::{NewRunLog, RUN_LOG_CAP_BYTES, UNDO_WINDOW_MS};
use pretty_assertions::assert_eq;

use crate::support::{START_MS, TestStore};

fn run(log: &str) -> NewRunLog<'_> {
    NewRunLog {
        started_at: START_MS,
        messages_before: 2,
        log,
        summary: "{\"turns\":[]}",
    }
}

#[test]
fn a_run_log_survives_a_restart_and_belongs_to_its_conversation() {
    let test_store = TestStore::new();
    let kettle = test_store.store.create_conversation(None).unwrap();
    let other = test_store.store.create_conversation(None).unwrap();
    let log_id = test_store
        .store
        .append_run_log(&kettle.id, &run("{\"at\":1}\n{\"at\":2}"))
        .unwrap();

    let test_store = test_store.reopen();

    let stored = test_store.store.stored_runs(&kettle.id).unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(
        (
            stored[0].log_id,
            stored[0].messages_before,
            stored[0].raw_bytes
        ),
        (log_id, 2, 17)
    );
    assert!(stored[0].bytes > 0);
    assert_eq!(
        test_store.store.run_log(&kettle.id, log_id).unwrap(),
        Some(("{\"at\":1}\n{\"at\":2}".to_owned(), 2))
    );
    assert_eq!(test_store.store.run_log(&other.id, log_id).unwrap(), None);
    assert!(test_store.store.stored_runs(&other.id).unwrap().is_empty());
}

/// `length` letters that do not compress much (a fixed pseudo-random sequence).
fn noise(length: usize, seed: u64) -> String {
    let mut state = seed;
    (0..length)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            char::from(b'a' + u8::try_from((state >> 33) % 26).unwrap())
        })
        .collect()
}

fn kept(test_store: &TestStore, id: &desktop_host::store::ConversationId) -> Vec<(i64, i64)> {
    test_store
        .store
        .stored_runs(id)
        .unwrap()
        .iter()
        .map(|run| (run.log_id, run.bytes))
        .collect()
}

#[test]
fn past_the_cap_the_oldest_logs_go_and_the_newest_always_stays() {
    let test_store = TestStore::new();
    let conversation = test_store.store.create_conversation(None).unwrap();
    let third = usize::try_from(RUN_LOG_CAP_BYTES / 3).unwrap();
    let ids: Vec<i64> = (0..6)
        .map(|seed| {
            test_store
                .store
                .append_run_log(&conversation.id, &run(&noise(third, seed)))
                .unwrap()
        })
        .collect();

    let stored = kept(&test_store, &conversation.id);
    let kept_ids: Vec<i64> = stored.iter().map(|(id, _)| *id).collect();
    assert!(stored.iter().map(|(_, bytes)| bytes).sum::<i64>() <= RUN_LOG_CAP_BYTES);
    assert!(!kept_ids.contains(&ids[0]), "the oldest run made room");
    assert_eq!(
        kept_ids,
        ids[ids.len() - kept_ids.len()..],
        "the newest ones stay"
    );

    let huge = noise(usize::try_from(RUN_LOG_CAP_BYTES * 2).unwrap(), 99);
    let newest = test_store
        .store
        .append_run_log(&conversation.id, &run(&huge))
        .unwrap();
    let stored = kept(&test_store, &conversation.id);
    assert_eq!(stored.len(), 1, "a run larger than the cap is kept alone");
    assert_eq!(stored[0].0, newest);
    assert!(stored[0].1 > RUN_LOG_CAP_BYTES);
}

#[test]
fn a_purged_conversation_takes_its_run_logs_with_it() {
    let test_store = TestStore::new();
    let conversation = test_store.store.create_conversation(None).unwrap();
    test_store
        .store
        .append_run_log(&conversation.id, &run("{}"))
        .unwrap();
    test_store
        .store
        .delete_conversation(&conversation.id)
        .unwrap();
    test_store.clock.advance(UNDO_WINDOW_MS);

    test_store.store.purge_expired_deletions().unwrap();

    assert!(
        test_store
            .store
            .stored_runs(&conversation.id)
            .unwrap()
            .is_empty()
    );
    let left: i64 = rusqlite::Connection::open(test_store.path())
        .unwrap()
        .query_row("SELECT COUNT(*) FROM run_logs", [], |row| row.get(0))
        .unwrap();
    assert_eq!(left, 0);
}
