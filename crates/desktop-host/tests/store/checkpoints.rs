use desktop_host::store::{
    CHECKPOINT_INTERVAL_MS, CheckpointWrite, ConversationRecorder, EntryState,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::{TestStore, assistant, user};

fn partial(text: &str) -> Value {
    let mut message = assistant(text, "pending");
    message["usage"]["output"] = json!(0);
    message
}

/// What a second process reading the file sees for the last message.
fn on_disk_last(
    test_store: &TestStore,
    id: &desktop_host::store::ConversationId,
) -> (Value, EntryState) {
    let transcript = test_store.second_handle().load_transcript(id).unwrap();
    let last = transcript.entries.last().unwrap();
    (last.message.clone(), last.state)
}

#[test]
fn checkpoints_are_written_at_most_once_per_second() {
    let test_store = TestStore::new();
    let conversation = test_store.store.create_conversation(None).unwrap();
    let mut recorder = ConversationRecorder::new(test_store.store.clone(), conversation.id.clone());
    recorder.on_message_end(&user("Count.")).unwrap();

    let mut outcomes = Vec::new();
    // One update every 100 ms for 2.5 s.
    for n in 0..25 {
        outcomes.push(
            recorder
                .on_message_update(&partial(&format!("{n}")))
                .unwrap(),
        );
        test_store.clock.advance(100);
    }
    let written_at: Vec<usize> = outcomes
        .iter()
        .enumerate()
        .filter(|(_, outcome)| **outcome == CheckpointWrite::Written)
        .map(|(idx, _)| idx)
        .collect();
    assert_eq!(CHECKPOINT_INTERVAL_MS, 1_000);
    assert_eq!(written_at, vec![0, 10, 20]);
    assert_eq!(
        on_disk_last(&test_store, &conversation.id),
        (partial("20"), EntryState::Interrupted)
    );
}

#[test]
fn stop_saves_the_newest_partial_at_once_and_message_end_completes_the_same_row() {
    let test_store = TestStore::new();
    let conversation = test_store.store.create_conversation(None).unwrap();
    let mut recorder = ConversationRecorder::new(test_store.store.clone(), conversation.id.clone());
    recorder.on_message_end(&user("Write.")).unwrap();
    recorder.on_message_update(&partial("a")).unwrap();
    test_store.clock.advance(200);
    assert_eq!(
        recorder.on_message_update(&partial("ab")).unwrap(),
        CheckpointWrite::Throttled
    );
    assert_eq!(
        on_disk_last(&test_store, &conversation.id),
        (partial("a"), EntryState::Interrupted)
    );

    recorder.checkpoint_now(&partial("abc")).unwrap();
    assert_eq!(
        on_disk_last(&test_store, &conversation.id),
        (partial("abc"), EntryState::Interrupted)
    );

    let mut aborted = assistant("abc", "aborted");
    aborted["errorMessage"] = json!("Request was aborted");
    recorder.on_message_end(&aborted).unwrap();
    let transcript = test_store
        .second_handle()
        .load_transcript(&conversation.id)
        .unwrap();
    assert_eq!(
        transcript.agent_messages_json(),
        vec![user("Write."), aborted]
    );
    assert_eq!(transcript.entries[1].state, EntryState::Complete);
}

#[test]
fn a_message_without_updates_is_appended_without_checkpoints() {
    let test_store = TestStore::new();
    let conversation = test_store.store.create_conversation(None).unwrap();
    let mut recorder = ConversationRecorder::new(test_store.store.clone(), conversation.id.clone());
    let answer = assistant("Hi.", "stop");
    recorder.on_message_end(&user("Hello")).unwrap();
    recorder.on_message_end(&answer).unwrap();
    // The next message starts a fresh throttle window: its first update is written at once.
    recorder.on_message_end(&user("Again")).unwrap();
    assert_eq!(
        recorder.on_message_update(&partial("H")).unwrap(),
        CheckpointWrite::Written
    );
    let transcript = test_store.store.load_transcript(&conversation.id).unwrap();
    let states: Vec<EntryState> = transcript.entries.iter().map(|entry| entry.state).collect();
    assert_eq!(
        states,
        vec![
            EntryState::Complete,
            EntryState::Complete,
            EntryState::Complete,
            EntryState::Interrupted
        ]
    );
}

#[test]
fn agent_events_drive_the_recorder_directly() {
    use pi_agent::{AgentEvent, AgentMessage};
    use pi_ai::{AssistantMessage, AssistantMessageEvent};

    let test_store = TestStore::new();
    let conversation = test_store.store.create_conversation(None).unwrap();
    let mut recorder = ConversationRecorder::new(test_store.store.clone(), conversation.id.clone());
    let prompt: AgentMessage = serde_json::from_value(user("Hi")).unwrap();
    let partial_json = partial("He");
    let partial_message: AssistantMessage = serde_json::from_value(partial_json.clone()).unwrap();
    let update = AgentEvent::MessageUpdate {
        message: serde_json::from_value(partial_json.clone()).unwrap(),
        assistant_message_event: AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta: "He".to_owned(),
            partial: partial_message.into(),
        },
    };
    let answer: AgentMessage = serde_json::from_value(assistant("Hello", "stop")).unwrap();

    assert_eq!(
        recorder.on_agent_event(&AgentEvent::AgentStart).unwrap(),
        None
    );
    assert_eq!(
        recorder
            .on_agent_event(&AgentEvent::MessageStart {
                message: prompt.clone()
            })
            .unwrap(),
        None
    );
    assert_eq!(
        recorder
            .on_agent_event(&AgentEvent::MessageEnd { message: prompt })
            .unwrap(),
        None
    );
    assert_eq!(
        recorder.on_agent_event(&update).unwrap(),
        Some(CheckpointWrite::Written)
    );
    assert_eq!(
        on_disk_last(&test_store, &conversation.id),
        (partial_json, EntryState::Interrupted)
    );
    assert_eq!(
        recorder.on_agent_event(&update).unwrap(),
        Some(CheckpointWrite::Throttled)
    );
    assert_eq!(
        recorder
            .on_agent_event(&AgentEvent::MessageEnd {
                message: answer.clone()
            })
            .unwrap(),
        None
    );
    let transcript = test_store
        .second_handle()
        .load_transcript(&conversation.id)
        .unwrap();
    assert_eq!(
        transcript.agent_messages().unwrap(),
        vec![serde_json::from_value(user("Hi")).unwrap(), answer]
    );
}

#[test]
fn recording_into_a_purged_conversation_reports_it_once_and_keeps_nothing_queued() {
    let test_store = TestStore::new();
    let conversation = test_store.store.create_conversation(None).unwrap();
    let mut recorder = ConversationRecorder::new(test_store.store.clone(), conversation.id.clone());
    recorder.on_message_end(&user("Hi")).unwrap();
    test_store
        .store
        .delete_conversation(&conversation.id)
        .unwrap();
    // Deleted but not purged: saving goes on, so an undo brings the whole conversation back.
    recorder
        .on_message_end(&assistant("Hello", "stop"))
        .unwrap();
    test_store
        .clock
        .advance(desktop_host::store::UNDO_WINDOW_MS);
    assert_eq!(test_store.store.purge_expired_deletions().unwrap(), 1);

    let error = recorder.on_message_end(&user("Anyone?")).unwrap_err();
    assert_eq!(error.kind(), desktop_host::store::StoreErrorKind::NotFound);
    assert_eq!(recorder.n_unsaved(), 0);
}
