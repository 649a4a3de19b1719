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

mod lean {
    //! The lean stream against the plain one: each block's text once, and only what the subscriber was sent.

    use std::sync::Arc;

    use desktop_host::store::ConversationId;
    use desktop_host::wire::{Envelope, EnvelopePayload, LeanProjection};
    use pi_agent::{AgentEvent, AgentMessage};
    use pi_ai::{AssistantBlock, AssistantMessageEvent};
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};

    use super::partial_with;

    fn conversation(id: &str) -> Option<ConversationId> {
        Some(ConversationId::from(id.to_owned()))
    }

    fn event(conversation_id: &Option<ConversationId>, event: AgentEvent) -> Envelope {
        let mut envelope = Envelope::new(1, EnvelopePayload::Event(Arc::new(event)));
        envelope.conversation_id = conversation_id.clone();
        envelope
    }

    fn assistant_update(
        conversation_id: &Option<ConversationId>,
        event: AssistantMessageEvent,
    ) -> Envelope {
        let message = AgentMessage::Assistant(Arc::clone(event.shared_message()));
        self::event(
            conversation_id,
            AgentEvent::MessageUpdate {
                message,
                assistant_message_event: event,
            },
        )
    }

    /// What `projection` sends for `envelope`, as JSON.
    fn sent(projection: &mut LeanProjection, envelope: &Envelope) -> Value {
        serde_json::to_value(projection.project(envelope)).unwrap()
    }

    /// Streams a text block of `deltas` to `projection` (start, deltas, end); returns what the end sent.
    fn stream_text(
        projection: &mut LeanProjection,
        conversation_id: &Option<ConversationId>,
        deltas: &[&str],
    ) -> Value {
        let empty = Arc::new(partial_with(vec![]));
        sent(
            projection,
            &event(
                conversation_id,
                AgentEvent::MessageStart {
                    message: AgentMessage::Assistant(Arc::clone(&empty)),
                },
            ),
        );
        sent(
            projection,
            &assistant_update(
                conversation_id,
                AssistantMessageEvent::TextStart {
                    content_index: 0,
                    partial: Arc::new(partial_with(vec![AssistantBlock::text("")])),
                },
            ),
        );
        for delta in deltas {
            sent(
                projection,
                &assistant_update(
                    conversation_id,
                    AssistantMessageEvent::TextDelta {
                        content_index: 0,
                        delta: (*delta).to_owned(),
                        partial: Arc::clone(&empty),
                    },
                ),
            );
        }
        let text: String = deltas.concat();
        sent(
            projection,
            &assistant_update(
                conversation_id,
                AssistantMessageEvent::TextEnd {
                    content_index: 0,
                    content: text.clone(),
                    partial: Arc::new(partial_with(vec![AssistantBlock::text(text)])),
                },
            ),
        )
    }

    fn message_end(
        conversation_id: &Option<ConversationId>,
        blocks: Vec<AssistantBlock>,
    ) -> Envelope {
        event(
            conversation_id,
            AgentEvent::MessageEnd {
                message: AgentMessage::Assistant(Arc::new(partial_with(blocks))),
            },
        )
    }

    #[test]
    fn a_streamed_text_is_not_sent_again_at_its_end_nor_at_the_message_end() {
        let mut projection = LeanProjection::new();
        let id = conversation("a");

        let text_end = stream_text(&mut projection, &id, &["Hel", "lo"]);
        let end = message_end(
            &id,
            vec![
                AssistantBlock::text("Hello"),
                AssistantBlock::tool_call("call_1", "list_download_files", json!({"a": 1})),
            ],
        );
        let mut ended = sent(&mut projection, &end);

        assert_eq!(
            text_end["event"],
            json!({"type": "message_update",
                   "assistantMessageEvent": {"type": "text_end", "contentIndex": 0}})
        );
        assert_eq!(text_end["conversationId"], json!("a"));
        assert_eq!(
            ended["event"]["message"]["content"],
            json!([
                {"type": "text", "text": "", "streamed": true},
                {"type": "toolCall", "id": "call_1", "name": "list_download_files", "arguments": {"a": 1}},
            ])
        );
        // Everything but the content is as on the plain wire.
        let mut plain = serde_json::to_value(&end).unwrap();
        ended["event"]["message"]["content"] = Value::Null;
        plain["event"]["message"]["content"] = Value::Null;
        assert_eq!(ended, plain);
    }

    #[test]
    fn a_text_that_differs_from_what_was_streamed_is_sent_whole() {
        let mut projection = LeanProjection::new();
        let id = conversation("a");
        stream_text(&mut projection, &id, &["Hel"]);

        let ended = sent(
            &mut projection,
            &message_end(&id, vec![AssistantBlock::text("Hello")]),
        );

        assert_eq!(
            ended["event"]["message"]["content"],
            json!([{"type": "text", "text": "Hello"}])
        );
    }

    #[test]
    fn a_subscriber_that_joined_mid_answer_gets_the_whole_text() {
        let mut projection = LeanProjection::new();
        let id = conversation("a");
        let end = assistant_update(
            &id,
            AssistantMessageEvent::TextEnd {
                content_index: 0,
                content: "Hello".to_owned(),
                partial: Arc::new(partial_with(vec![AssistantBlock::text("Hello")])),
            },
        );

        let text_end = sent(&mut projection, &end);
        let ended = sent(
            &mut projection,
            &message_end(&id, vec![AssistantBlock::text("Hello")]),
        );

        assert_eq!(
            text_end,
            serde_json::to_value(&end).unwrap(),
            "sent as on the plain wire"
        );
        assert_eq!(
            ended["event"]["message"]["content"],
            json!([{"type": "text", "text": "Hello"}])
        );
    }

    #[test]
    fn conversations_are_counted_apart() {
        let mut projection = LeanProjection::new();
        let (a, b) = (conversation("a"), conversation("b"));
        stream_text(&mut projection, &a, &["Hello"]);
        stream_text(&mut projection, &b, &["Hi"]);

        let ended_a = sent(
            &mut projection,
            &message_end(&a, vec![AssistantBlock::text("Hello")]),
        );
        let ended_b = sent(
            &mut projection,
            &message_end(&b, vec![AssistantBlock::text("Hey")]),
        );

        assert_eq!(
            ended_a["event"]["message"]["content"][0]["streamed"],
            json!(true)
        );
        assert_eq!(
            ended_b["event"]["message"]["content"][0]["text"],
            json!("Hey")
        );
    }

    #[test]
    fn turn_end_and_agent_end_carry_only_their_type_and_the_rest_is_as_sent() {
        let mut projection = LeanProjection::new();
        let id = conversation("a");
        let message = Arc::new(partial_with(vec![AssistantBlock::text("Hello")]));
        let turn_end = event(
            &id,
            AgentEvent::TurnEnd {
                message: Arc::clone(&message),
                tool_results: Vec::new(),
            },
        );
        let agent_end = event(
            &id,
            AgentEvent::AgentEnd {
                messages: vec![AgentMessage::Assistant(message)],
            },
        );
        let user_end = event(
            &id,
            AgentEvent::MessageEnd {
                message: AgentMessage::User(pi_ai::UserMessage::new("hi")),
            },
        );

        assert_eq!(
            sent(&mut projection, &turn_end)["event"],
            json!({"type": "turn_end"})
        );
        assert_eq!(
            sent(&mut projection, &agent_end)["event"],
            json!({"type": "agent_end"})
        );
        assert_eq!(
            sent(&mut projection, &user_end),
            serde_json::to_value(&user_end).unwrap()
        );
    }
}
