use desktop_host::store::{
    CheckpointWrite, ConversationRecorder, EntryState, INTERRUPTED_ERROR_MESSAGE,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::{TestStore, assistant, conformance_transcripts, user};

/// The assistant message as it looks while streaming: the first `n_blocks` blocks, stop reason `pending`.
fn partial_of(message: &Value, n_blocks: usize) -> Value {
    let mut partial = message.clone();
    let blocks: Vec<Value> = message["content"]
        .as_array()
        .unwrap()
        .iter()
        .take(n_blocks)
        .cloned()
        .collect();
    partial["content"] = Value::Array(blocks);
    partial["stopReason"] = json!("pending");
    partial
}

/// Feeds the messages to a recorder the way the host's subscriber does: assistant messages stream (three
/// updates, the middle one inside the throttle window) before their `message_end`.
fn record(test_store: &TestStore, recorder: &mut ConversationRecorder, messages: &[Value]) {
    for message in messages {
        if message["role"] == "assistant" {
            assert_eq!(
                recorder.on_message_update(&partial_of(message, 0)).unwrap(),
                CheckpointWrite::Written
            );
            test_store.clock.advance(300);
            assert_eq!(
                recorder.on_message_update(&partial_of(message, 1)).unwrap(),
                CheckpointWrite::Throttled
            );
            test_store.clock.advance(800);
            assert_eq!(
                recorder.on_message_update(&partial_of(message, 2)).unwrap(),
                CheckpointWrite::Written
            );
        }
        recorder.on_message_end(message).unwrap();
        test_store.clock.advance(10);
    }
}

#[test]
fn every_conformance_transcript_comes_back_exactly_after_a_restart() {
    let transcripts = conformance_transcripts();
    assert_eq!(transcripts.len(), 51);
    let mut test_store = TestStore::new();
    let mut ids = Vec::new();
    for (name, messages) in &transcripts {
        let conversation = test_store
            .store
            .create_conversation(Some("scripted-1"))
            .unwrap();
        let mut recorder =
            ConversationRecorder::new(test_store.store.clone(), conversation.id.clone());
        record(&test_store, &mut recorder, messages);
        ids.push((name, conversation.id, messages));
    }

    test_store = test_store.reopen();
    for (name, id, messages) in ids {
        let transcript = test_store.store.load_transcript(&id).unwrap();
        assert_eq!(
            &transcript.agent_messages_json(),
            messages,
            "scenario {name}"
        );
        let states: Vec<EntryState> = transcript.entries.iter().map(|entry| entry.state).collect();
        assert_eq!(
            states,
            vec![EntryState::Complete; messages.len()],
            "scenario {name}"
        );
        let seqs: Vec<i64> = transcript.entries.iter().map(|entry| entry.seq).collect();
        assert_eq!(
            seqs,
            (0..messages.len() as i64).collect::<Vec<_>>(),
            "scenario {name}"
        );
    }
}

#[test]
fn a_stream_cut_by_a_crash_comes_back_interrupted_and_aborted_for_the_agent() {
    let test_store = TestStore::new();
    let conversation = test_store.store.create_conversation(None).unwrap();
    let mut recorder = ConversationRecorder::new(test_store.store.clone(), conversation.id.clone());
    recorder.on_message_end(&user("Tell me a story.")).unwrap();
    let final_answer = assistant("Once upon a time there was a kettle.", "stop");
    let mut partial = final_answer.clone();
    partial["content"][0]["text"] = json!("Once upon");
    partial["stopReason"] = json!("pending");
    recorder.on_message_update(&partial).unwrap();
    let mut later_partial = partial.clone();
    later_partial["content"][0]["text"] = json!("Once upon a time");
    assert_eq!(
        recorder.on_message_update(&later_partial).unwrap(),
        CheckpointWrite::Throttled
    );
    // The app dies here: no message_end.
    drop(recorder);

    let test_store = test_store.reopen();
    let transcript = test_store.store.load_transcript(&conversation.id).unwrap();
    assert_eq!(transcript.entries.len(), 2);
    assert_eq!(transcript.entries[1].state, EntryState::Interrupted);
    assert_eq!(transcript.entries[1].message, partial);
    let mut expected_for_agent = partial.clone();
    expected_for_agent["stopReason"] = json!("aborted");
    expected_for_agent["errorMessage"] = json!(INTERRUPTED_ERROR_MESSAGE);
    assert_eq!(
        transcript.agent_messages_json(),
        vec![user("Tell me a story."), expected_for_agent.clone()]
    );

    // The conversation goes on after the interrupted message, which stays as it was.
    let mut recorder = ConversationRecorder::new(test_store.store.clone(), conversation.id.clone());
    recorder.on_message_end(&user("Go on.")).unwrap();
    recorder.on_message_end(&final_answer).unwrap();
    let transcript = test_store.store.load_transcript(&conversation.id).unwrap();
    assert_eq!(
        transcript.agent_messages_json(),
        vec![
            user("Tell me a story."),
            expected_for_agent,
            user("Go on."),
            final_answer
        ]
    );
}

/// The traces strip every `timestamp` (and some scripted messages carry no `usage`); typed messages need both,
/// so they are filled in here with fixed values before the typed round trip.
fn as_agent_message(message: &Value, timestamp: i64) -> pi_agent::AgentMessage {
    let mut message = message.clone();
    let role = message["role"].as_str().unwrap().to_owned();
    if matches!(role.as_str(), "user" | "assistant" | "toolResult")
        && message.get("timestamp").is_none()
    {
        message["timestamp"] = json!(timestamp);
    }
    if role == "assistant" && message.get("usage").is_none() {
        message["usage"] = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
    }
    serde_json::from_value(message.clone()).unwrap_or_else(|error| panic!("{error}: {message}"))
}

#[test]
fn every_conformance_transcript_comes_back_as_the_same_typed_agent_messages() {
    let mut test_store = TestStore::new();
    let mut recorded = Vec::new();
    for (name, messages) in conformance_transcripts() {
        let agent_messages: Vec<pi_agent::AgentMessage> = messages
            .iter()
            .enumerate()
            .map(|(idx, message)| as_agent_message(message, 1_700_000_000_000 + idx as i64))
            .collect();
        let conversation = test_store.store.create_conversation(None).unwrap();
        let mut recorder =
            ConversationRecorder::new(test_store.store.clone(), conversation.id.clone());
        for agent_message in &agent_messages {
            // The host hands the event's message over as it is, typed.
            if agent_message.role() == "assistant" {
                recorder.on_message_update(agent_message).unwrap();
            }
            recorder.on_message_end(agent_message).unwrap();
        }
        recorded.push((name, conversation.id, agent_messages));
    }

    test_store = test_store.reopen();
    for (name, id, agent_messages) in recorded {
        let transcript = test_store.store.load_transcript(&id).unwrap();
        assert_eq!(
            transcript.agent_messages().unwrap(),
            agent_messages,
            "scenario {name}"
        );
    }
}

/// Set (to the database path) in the child process of the test below.
const CRASH_CHILD_VARIABLE: &str = "PI_DESKTOP_TEST_CRASH_CHILD_DB";

/// A real crash: a child process (this test binary again, filtered to this test) saves a prompt and a checkpoint
/// and then kills itself, with no destructor, no connection close and no WAL checkpoint. The parent opens what
/// it left.
#[cfg(unix)]
#[test]
fn a_process_that_aborts_mid_stream_leaves_a_readable_interrupted_message() {
    const TEST_NAME: &str =
        "round_trip::a_process_that_aborts_mid_stream_leaves_a_readable_interrupted_message";
    if let Some(path) = std::env::var_os(CRASH_CHILD_VARIABLE) {
        let opened = crate::support::open_at(
            std::path::Path::new(&path),
            &desktop_host::store::ManualClock::new(crate::support::START_MS),
        );
        let conversation = opened.store.create_conversation(None).unwrap();
        let mut recorder = ConversationRecorder::new(opened.store, conversation.id.clone());
        recorder.on_message_end(&user("Tell me a story.")).unwrap();
        recorder
            .on_message_update(&assistant("Once upon", "pending"))
            .unwrap();
        println!("conversation-id: {}", conversation.id);
        // SIGKILL, as when the app is killed: no destructor, no close, and no core file.
        let _ = std::process::Command::new("kill")
            .args(["-9", &std::process::id().to_string()])
            .status();
        std::process::abort();
    }
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(desktop_host::store::DATABASE_FILE_NAME);
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST_NAME, "--nocapture", "--test-threads=1"])
        .env(CRASH_CHILD_VARIABLE, &path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !output.status.success(),
        "the child was meant to abort: {stdout}"
    );
    let id = stdout
        .lines()
        .find_map(|line| {
            line.split_once("conversation-id: ")
                .map(|(_, id)| id.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("the child did not get to the crash: {stdout}"));

    let opened = crate::support::open_at(
        &path,
        &desktop_host::store::ManualClock::new(crate::support::START_MS),
    );
    assert_eq!(opened.notices, vec![]);
    let transcript = opened.store.load_transcript(&id.as_str().into()).unwrap();
    let states: Vec<EntryState> = transcript.entries.iter().map(|entry| entry.state).collect();
    assert_eq!(states, vec![EntryState::Complete, EntryState::Interrupted]);
    assert_eq!(
        transcript.entries[1].message,
        assistant("Once upon", "pending")
    );
    assert_eq!(transcript.agent_messages().unwrap().len(), 2);
}
