//! The envelope JSON the UI mirrors, and the replay's checks of the wire's promises.

use std::sync::Arc;

use desktop_host::store::ConversationId;
use desktop_host::wire::{
    Envelope, EnvelopePayload, HostNotice, NoticeSource, PROTOCOL_VERSION, ReplayError, RunId,
    WireReplay,
};
use pi_agent::{AgentEvent, AgentMessage};
use pi_ai::{Api, AssistantBlock, AssistantMessage, AssistantMessageEvent};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn partial_with(blocks: Vec<AssistantBlock>) -> AssistantMessage {
    let mut message =
        AssistantMessage::empty_for(Api::SCRIPTED, "scripted".to_owned(), "m".to_owned());
    message.timestamp = 1;
    message.content = blocks.into_iter().map(Arc::new).collect();
    message
}

fn update(event: AssistantMessageEvent) -> Value {
    let message = AgentMessage::Assistant(Arc::clone(event.shared_message()));
    let envelope = Envelope::new(
        7,
        EnvelopePayload::Event(Arc::new(AgentEvent::MessageUpdate {
            message,
            assistant_message_event: event,
        })),
    );
    serde_json::to_value(&envelope).unwrap()
}

#[test]
fn message_updates_carry_only_the_delta() {
    let partial = partial_with(vec![AssistantBlock::text("Hello")]);
    let envelope = update(AssistantMessageEvent::TextDelta {
        content_index: 0,
        delta: "lo".to_owned(),
        partial: partial.into(),
    });
    assert_eq!(
        envelope,
        json!({"v": PROTOCOL_VERSION, "seq": 7, "kind": "event", "event": {
            "type": "message_update",
            "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": "lo"}
        }})
    );
}

#[test]
fn start_events_carry_the_new_block() {
    let partial = partial_with(vec![
        AssistantBlock::text("Let me look."),
        AssistantBlock::tool_call("call_1", "list_download_files", json!({})),
    ]);
    let envelope = update(AssistantMessageEvent::ToolcallStart {
        content_index: 1,
        partial: partial.into(),
    });
    assert_eq!(
        envelope["event"]["assistantMessageEvent"],
        json!({"type": "toolcall_start", "contentIndex": 1,
               "block": {"type": "toolCall", "id": "call_1", "name": "list_download_files", "arguments": {}}})
    );
}

#[test]
fn notices_have_their_documented_shapes() {
    let state = Envelope::new(
        1,
        EnvelopePayload::Notice(HostNotice::State {
            is_streaming: true,
            pending_tool_calls: vec!["call_1".to_owned()],
            error_message: None,
        }),
    );
    assert_eq!(
        serde_json::to_value(&state).unwrap(),
        json!({"v": 1, "seq": 1, "kind": "notice",
               "notice": {"type": "state", "isStreaming": true, "pendingToolCalls": ["call_1"]}})
    );
    let error = Envelope::new(
        2,
        EnvelopePayload::Notice(HostNotice::Error {
            source: NoticeSource::Settings,
            message: "m".to_owned(),
        }),
    );
    assert_eq!(
        serde_json::to_value(&error).unwrap()["notice"],
        json!({"type": "error", "source": "settings", "message": "m"})
    );
    let mut idle = Envelope::new(3, EnvelopePayload::Notice(HostNotice::Idle));
    assert_eq!(
        serde_json::to_value(&idle).unwrap()["notice"],
        json!({"type": "idle"})
    );
    idle.conversation_id = Some(ConversationId::from("c-1"));
    idle.run_id = Some(RunId(4));
    assert_eq!(
        serde_json::to_value(&idle).unwrap(),
        json!({"v": 1, "conversationId": "c-1", "runId": 4, "seq": 3, "kind": "notice",
               "notice": {"type": "idle"}}),
        "the conversations service names the conversation and the run"
    );
}

#[test]
fn replay_refuses_gaps_foreign_versions_and_deltas_that_disagree_with_the_final_message() {
    let mut replay = WireReplay::new();
    let start = json!({"v": 1, "seq": 1, "kind": "event", "event": {"type": "message_start",
        "message": {"role": "assistant", "content": []}}});
    replay.apply(&start).unwrap();
    let gap = json!({"v": 1, "seq": 3, "kind": "notice", "notice": {"type": "idle"}});
    assert_eq!(
        replay.apply(&gap),
        Err(ReplayError::SequenceGap {
            expected: 2,
            got: 3
        })
    );

    let mut replay = WireReplay::new();
    assert!(matches!(
        replay.apply(&json!({"v": 2, "seq": 1, "kind": "notice", "notice": {"type": "idle"}})),
        Err(ReplayError::NotAnEnvelope(_))
    ));

    let mut replay = WireReplay::new();
    replay.apply(&start).unwrap();
    for (seq, update) in [
        (2, json!({"type": "text_start", "contentIndex": 0})),
        (
            3,
            json!({"type": "text_delta", "contentIndex": 0, "delta": "Hi"}),
        ),
    ] {
        let envelope = json!({"v": 1, "seq": seq, "kind": "event",
            "event": {"type": "message_update", "assistantMessageEvent": update}});
        replay.apply(&envelope).unwrap();
    }
    assert_eq!(
        replay.streaming,
        Some(json!({"role": "assistant", "content": [{"type": "text", "text": "Hi"}]}))
    );
    let end = json!({"v": 1, "seq": 4, "kind": "event", "event": {"type": "message_end",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "Hello"}]}}});
    assert!(matches!(
        replay.apply(&end),
        Err(ReplayError::DeltaMismatch { index: 0, .. })
    ));
}
