use desktop_host::store::{
    ConversationId, ConversationRecorder, DayZone, StoreError, StoreErrorKind, UNDO_WINDOW_MS,
    group_by_day,
};
use pretty_assertions::assert_eq;

use crate::support::{START_MS, TestStore, assistant, user};

fn titles(test_store: &TestStore) -> Vec<Option<String>> {
    test_store
        .store
        .list_conversations()
        .unwrap()
        .into_iter()
        .map(|summary| summary.title)
        .collect()
}

#[test]
fn the_first_user_message_titles_the_conversation_and_a_rename_sticks() {
    let test_store = TestStore::new();
    let conversation = test_store
        .store
        .create_conversation(Some("gpt-test"))
        .unwrap();
    assert_eq!(conversation.title, None);
    let mut recorder = ConversationRecorder::new(test_store.store.clone(), conversation.id.clone());
    recorder
        .on_message_end(&user("  What is\nin my Downloads folder today?  "))
        .unwrap();
    recorder
        .on_message_end(&assistant("Three files.", "stop"))
        .unwrap();
    recorder.on_message_end(&user("And in Documents?")).unwrap();
    let summary = test_store.store.conversation(&conversation.id).unwrap();
    assert_eq!(
        summary.title.as_deref(),
        Some("What is in my Downloads folder today?")
    );
    assert_eq!(summary.model.as_deref(), Some("gpt-test"));

    test_store
        .store
        .rename_conversation(&conversation.id, "  Downloads  ")
        .unwrap();
    recorder.on_message_end(&user("one more")).unwrap();
    assert_eq!(
        test_store
            .store
            .conversation(&conversation.id)
            .unwrap()
            .title
            .as_deref(),
        Some("Downloads")
    );
    let error = test_store
        .store
        .rename_conversation(&conversation.id, " ")
        .unwrap_err();
    assert!(matches!(error, StoreError::EmptyTitle));
    assert_eq!(error.kind(), StoreErrorKind::InvalidInput);
}

#[test]
fn the_list_is_newest_first_and_groups_by_day() {
    let test_store = TestStore::new();
    let older = test_store.store.create_conversation(None).unwrap();
    test_store
        .store
        .append_message(&older.id, &user("older"))
        .unwrap();
    test_store.clock.advance(60_000);
    let newer = test_store.store.create_conversation(None).unwrap();
    test_store
        .store
        .append_message(&newer.id, &user("newer"))
        .unwrap();
    test_store.clock.advance(24 * 3_600_000);
    let tomorrow = test_store.store.create_conversation(None).unwrap();
    test_store
        .store
        .append_message(&tomorrow.id, &user("tomorrow"))
        .unwrap();
    // A new message moves the oldest conversation to the top.
    test_store.clock.advance(1_000);
    test_store
        .store
        .append_message(&older.id, &user("older again"))
        .unwrap();

    let list = test_store.store.list_conversations().unwrap();
    let ids: Vec<&ConversationId> = list.iter().map(|summary| &summary.id).collect();
    assert_eq!(ids, vec![&older.id, &tomorrow.id, &newer.id]);

    let groups = group_by_day(
        &list,
        DayZone::FixedOffset {
            seconds_east: 8 * 3600,
        },
    );
    let days: Vec<(&str, usize)> = groups
        .iter()
        .map(|group| (group.day.as_str(), group.conversations.len()))
        .collect();
    // START_MS is 2026-11-30 12:00 UTC, 20:00 in UTC+8.
    assert_eq!(days, vec![("2026-12-01", 2), ("2026-11-30", 1)]);
    assert_eq!(
        group_by_day(
            &list,
            DayZone::FixedOffset {
                seconds_east: -13 * 3600
            }
        )[1]
        .day,
        "2026-11-29"
    );
}

#[test]
fn a_limited_list_holds_the_most_recent_and_says_whether_there_are_more() {
    let test_store = TestStore::new();
    let mut created = Vec::new();
    for index in 0..5 {
        let conversation = test_store.store.create_conversation(None).unwrap();
        test_store
            .store
            .append_message(&conversation.id, &user(&format!("question {index}")))
            .unwrap();
        test_store.clock.advance(1_000);
        created.push(conversation.id);
    }
    test_store.store.delete_conversation(&created[4]).unwrap();
    let newest_first: Vec<ConversationId> = created[..4].iter().rev().cloned().collect();

    let ids = |limit: Option<usize>| {
        let recent = test_store.store.list_recent_conversations(limit).unwrap();
        let ids: Vec<ConversationId> = recent
            .conversations
            .into_iter()
            .map(|summary| summary.id)
            .collect();
        (ids, recent.more)
    };
    assert_eq!(ids(Some(2)), (newest_first[..2].to_vec(), true));
    assert_eq!(ids(Some(3)), (newest_first[..3].to_vec(), true));
    // The deleted one is not counted: exactly four are live.
    assert_eq!(ids(Some(4)), (newest_first.clone(), false));
    assert_eq!(ids(Some(10)), (newest_first.clone(), false));
    assert_eq!(ids(None), (newest_first, false));
    assert_eq!(ids(Some(0)), (Vec::new(), true));
}

#[test]
fn a_deleted_conversation_can_be_restored_until_the_undo_window_ends() {
    let test_store = TestStore::new();
    let kept = test_store.store.create_conversation(None).unwrap();
    test_store
        .store
        .append_message(&kept.id, &user("kept"))
        .unwrap();
    test_store.clock.advance(1);
    let doomed = test_store.store.create_conversation(None).unwrap();
    test_store
        .store
        .append_message(&doomed.id, &user("doomed"))
        .unwrap();

    let undo_until = test_store.store.delete_conversation(&doomed.id).unwrap();
    assert_eq!(undo_until, START_MS + 1 + UNDO_WINDOW_MS);
    assert_eq!(titles(&test_store), vec![Some("kept".to_owned())]);
    assert_eq!(test_store.store.search("doomed", 10).unwrap(), vec![]);
    assert_eq!(
        test_store
            .store
            .load_transcript(&doomed.id)
            .unwrap_err()
            .kind(),
        StoreErrorKind::NotFound
    );

    test_store.clock.advance(UNDO_WINDOW_MS - 1);
    assert_eq!(test_store.store.purge_expired_deletions().unwrap(), 0);
    test_store.store.restore_conversation(&doomed.id).unwrap();
    assert_eq!(
        titles(&test_store),
        vec![Some("doomed".to_owned()), Some("kept".to_owned())]
    );
    assert_eq!(
        test_store
            .store
            .load_transcript(&doomed.id)
            .unwrap()
            .agent_messages_json(),
        vec![user("doomed")]
    );

    test_store.store.delete_conversation(&doomed.id).unwrap();
    test_store.clock.advance(UNDO_WINDOW_MS);
    assert_eq!(test_store.store.purge_expired_deletions().unwrap(), 1);
    assert_eq!(
        test_store
            .store
            .restore_conversation(&doomed.id)
            .unwrap_err()
            .kind(),
        StoreErrorKind::NotFound
    );
    assert_eq!(titles(&test_store), vec![Some("kept".to_owned())]);
}

#[test]
fn an_expired_deletion_is_purged_when_the_store_opens_again() {
    let test_store = TestStore::new();
    let doomed = test_store.store.create_conversation(None).unwrap();
    test_store
        .store
        .append_message(&doomed.id, &user("doomed"))
        .unwrap();
    test_store.store.delete_conversation(&doomed.id).unwrap();
    test_store.clock.advance(UNDO_WINDOW_MS);
    let test_store = test_store.reopen();
    assert_eq!(
        test_store
            .store
            .restore_conversation(&doomed.id)
            .unwrap_err()
            .kind(),
        StoreErrorKind::NotFound
    );
    let n_messages: i64 = rusqlite::Connection::open(test_store.path())
        .unwrap()
        .query_row("SELECT COUNT(*) FROM messages", [], |row| row.get(0))
        .unwrap();
    assert_eq!(n_messages, 0);
}

#[test]
fn unknown_conversations_are_not_found() {
    let test_store = TestStore::new();
    let unknown = ConversationId::from("no-such-conversation");
    assert_eq!(
        test_store
            .store
            .append_message(&unknown, &user("x"))
            .unwrap_err()
            .kind(),
        StoreErrorKind::NotFound
    );
    assert_eq!(
        test_store
            .store
            .rename_conversation(&unknown, "x")
            .unwrap_err()
            .kind(),
        StoreErrorKind::NotFound
    );
    assert_eq!(
        test_store
            .store
            .delete_conversation(&unknown)
            .unwrap_err()
            .kind(),
        StoreErrorKind::NotFound
    );
    let error = test_store
        .store
        .append_message(&unknown, &serde_json::json!({"content": "no role"}))
        .unwrap_err();
    assert!(matches!(error, StoreError::MessageWithoutRole));
}
