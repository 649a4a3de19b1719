use desktop_host::store::{
    BUILT_IN_SERVER, ConversationGrant, ConversationId, StoreErrorKind, UNDO_WINDOW_MS,
};
use pretty_assertions::assert_eq;

use crate::support::{START_MS, TestStore, user};

fn keys(grants: &[ConversationGrant]) -> Vec<(String, String, String)> {
    grants
        .iter()
        .map(|grant| {
            (
                grant.conversation_id.to_string(),
                grant.server.clone(),
                grant.tool.clone(),
            )
        })
        .collect()
}

#[test]
fn grants_survive_a_restart_and_are_listed_with_the_conversations_title() {
    let test_store = TestStore::new();
    let kettle = test_store.store.create_conversation(None).unwrap();
    test_store
        .store
        .append_message(&kettle.id, &user("Where is my kettle?"))
        .unwrap();
    let untitled = test_store.store.create_conversation(None).unwrap();
    test_store
        .store
        .grant_in_conversation(&kettle.id, "everything", "get-sum")
        .unwrap();
    test_store.clock.advance(1_000);
    test_store
        .store
        .grant_in_conversation(&untitled.id, BUILT_IN_SERVER, "list_folder")
        .unwrap();
    test_store.clock.advance(1_000);
    // Granting again keeps the first time.
    test_store
        .store
        .grant_in_conversation(&kettle.id, "everything", "get-sum")
        .unwrap();

    let test_store = test_store.reopen();

    assert_eq!(
        test_store.store.all_conversation_grants().unwrap(),
        vec![
            ConversationGrant {
                conversation_id: untitled.id,
                conversation_title: None,
                server: String::new(),
                tool: "list_folder".to_owned(),
                built_in: true,
                granted_at: START_MS + 1_000,
            },
            ConversationGrant {
                conversation_id: kettle.id.clone(),
                conversation_title: Some("Where is my kettle?".to_owned()),
                server: "everything".to_owned(),
                tool: "get-sum".to_owned(),
                built_in: false,
                granted_at: START_MS,
            },
        ]
    );
    assert_eq!(
        keys(&test_store.store.conversation_grants(&kettle.id).unwrap()),
        vec![(
            kettle.id.to_string(),
            "everything".to_owned(),
            "get-sum".to_owned()
        )]
    );
}

#[test]
fn a_revoked_grant_is_gone_and_revoking_it_again_finds_nothing() {
    let test_store = TestStore::new();
    let conversation = test_store.store.create_conversation(None).unwrap();
    for tool in ["get-sum", "echo"] {
        test_store
            .store
            .grant_in_conversation(&conversation.id, "everything", tool)
            .unwrap();
    }

    assert!(
        test_store
            .store
            .revoke_conversation_grant(&conversation.id, "everything", "get-sum")
            .unwrap()
    );
    assert!(
        !test_store
            .store
            .revoke_conversation_grant(&conversation.id, "everything", "get-sum")
            .unwrap()
    );

    let test_store = test_store.reopen();
    assert_eq!(
        keys(
            &test_store
                .store
                .conversation_grants(&conversation.id)
                .unwrap()
        ),
        vec![(
            conversation.id.to_string(),
            "everything".to_owned(),
            "echo".to_owned()
        )]
    );
}

#[test]
fn a_deleted_conversations_grants_are_hidden_come_back_with_undo_and_go_with_the_purge() {
    let test_store = TestStore::new();
    let conversation = test_store.store.create_conversation(None).unwrap();
    let kept = test_store.store.create_conversation(None).unwrap();
    for id in [&conversation.id, &kept.id] {
        test_store
            .store
            .grant_in_conversation(id, "everything", "get-sum")
            .unwrap();
    }

    test_store
        .store
        .delete_conversation(&conversation.id)
        .unwrap();
    assert_eq!(
        keys(&test_store.store.all_conversation_grants().unwrap()),
        vec![(
            kept.id.to_string(),
            "everything".to_owned(),
            "get-sum".to_owned()
        )]
    );
    test_store
        .store
        .restore_conversation(&conversation.id)
        .unwrap();
    assert_eq!(test_store.store.all_conversation_grants().unwrap().len(), 2);

    test_store
        .store
        .delete_conversation(&conversation.id)
        .unwrap();
    test_store.clock.advance(UNDO_WINDOW_MS);
    assert_eq!(test_store.store.purge_expired_deletions().unwrap(), 1);

    assert_eq!(
        test_store
            .store
            .conversation_grants(&conversation.id)
            .unwrap(),
        vec![]
    );
    let rows: i64 = rusqlite::Connection::open(test_store.path())
        .unwrap()
        .query_row("SELECT COUNT(*) FROM conversation_grants", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(rows, 1, "only the kept conversation's grant is left");
}

#[test]
fn a_grant_for_a_conversation_that_does_not_exist_is_refused() {
    let test_store = TestStore::new();

    let error = test_store
        .store
        .grant_in_conversation(&ConversationId::from("c-missing"), "everything", "echo")
        .unwrap_err();

    assert_eq!(error.kind(), StoreErrorKind::NotFound);
    assert_eq!(test_store.store.all_conversation_grants().unwrap(), vec![]);
}
