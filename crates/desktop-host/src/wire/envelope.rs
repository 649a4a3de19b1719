//! The envelope types and their JSON (see the module doc of `wire` for the shape).

use std::sync::Arc;

use pi_agent::AgentEvent;
use pi_ai::{AssistantBlock, AssistantMessageEvent};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use ts_rs::TS;

use crate::approval::{ApprovalOutcome, ApprovalRequest};
use crate::connection::RetryNoticeView;
use crate::inspector::TurnRequest;
use crate::session::{QueuedMessage, QueuedMessageId};
use crate::store::{ConversationId, MessageVersion};

/// The wire protocol version; see the bump rule in the `wire` module doc.
pub const PROTOCOL_VERSION: u32 = 1;

/// One numbered message to the UI.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    /// The conversation it belongs to (set by the conversations service; a bare session sends none).
    pub conversation_id: Option<ConversationId>,
    /// The run it belongs to: from the run's first envelope to its `idle`; none for a notice between runs.
    pub run_id: Option<RunId>,
    /// Sequence number, from 1 per conversation, without gaps.
    pub seq: u64,
    /// What it carries.
    pub payload: EnvelopePayload,
}

impl Envelope {
    /// An envelope of no conversation and no run (the forwarder and the service stamp those).
    pub fn new(seq: u64, payload: EnvelopePayload) -> Envelope {
        Envelope {
            conversation_id: None,
            run_id: None,
            seq,
            payload,
        }
    }

    /// True for the `idle` notice, a run's last envelope.
    pub fn is_idle(&self) -> bool {
        matches!(self.payload, EnvelopePayload::Notice(HostNotice::Idle))
    }
}

/// A run of one session: `prompt` or `continue_run` accepted, numbered from 1 per session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, TS)]
#[ts(export)]
pub struct RunId(pub u64);

/// An agent event or a host notice.
#[derive(Clone, Debug, PartialEq)]
pub enum EnvelopePayload {
    /// An AgentEvent, serialised in pi's JSON with the wire's `message_update` rule (shared with the Agent's
    /// listeners, so forwarding copies nothing).
    Event(Arc<AgentEvent>),
    /// A host-level notice.
    Notice(HostNotice),
}

/// What the host tells the UI beside the agent's events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum HostNotice {
    /// The agent's runtime state after a change.
    State {
        /// A run is active (until it settles).
        is_streaming: bool,
        /// Tool calls running now, in start order.
        pending_tool_calls: Vec<String>,
        /// The error of the most recent failed or aborted turn.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        error_message: Option<String>,
    },
    /// The run settled (after the `agent_end` listeners); Send may be re-enabled.
    Idle,
    /// A tool call waits for the user's answer (its tool card asks).
    ApprovalRequested(ApprovalRequest),
    /// A question of `approval_requested` ended.
    ApprovalResolved {
        /// The question.
        request_id: u64,
        /// The call it was about.
        tool_call_id: String,
        /// How it ended.
        outcome: ApprovalOutcome,
    },
    /// A steering or follow-up message was queued, or changed (a held one sent again as steering): the window
    /// shows it above the composer until one of the three notices below removes it.
    MessageQueued {
        /// The message as it stands now.
        message: QueuedMessage,
    },
    /// A queued message left the queue for the model: the loop injected it (its user `message_start` came just
    /// before this notice), or the user sent it as a prompt of its own (that run follows).
    QueuedMessageConsumed {
        /// The message.
        id: QueuedMessageId,
    },
    /// The user cancelled (or discarded) a queued message; it is never sent.
    QueuedMessageCancelled {
        /// The message.
        id: QueuedMessageId,
    },
    /// The run ended before these queued messages were delivered (Stop, or they came too late): they are held
    /// for the user to send or discard, and never delivered by themselves.
    QueuedMessagesHeld {
        /// The messages, in the order they were queued.
        ids: Vec<QueuedMessageId>,
    },
    /// The next turn's request to the model is going out; what it carries (the loop inspector shows it).
    TurnRequest(TurnRequest),
    /// A request to the model failed before any answer arrived and goes again after a wait (Stop cancels it).
    ModelRetry(RetryNoticeView),
    /// Where each user and assistant message of the conversation's shown branch stands among its versions, after
    /// a run (just before its `idle`); the window matches them to its messages by role and timestamp.
    Versions {
        /// In transcript order.
        versions: Vec<MessageVersion>,
    },
    /// A host-side failure beside the run; `message` is safe to show.
    Error {
        /// Which part of the host failed.
        source: NoticeSource,
        /// What to tell the user.
        message: String,
    },
}

/// The origin of an error notice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum NoticeSource {
    /// Saving the conversation failed.
    Persistence,
    /// The settings could not be read or resolved.
    Settings,
    /// The run itself failed outside the agent's own error reporting.
    Run,
}

impl Serialize for Envelope {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_envelope(self, None, serializer)
    }
}

/// Writes `envelope`, with `event` in place of its event when given (the lean stream's form of it).
pub(crate) fn serialize_envelope<S: Serializer>(
    envelope: &Envelope,
    event: Option<&serde_json::Value>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(None)?;
    map.serialize_entry("v", &PROTOCOL_VERSION)?;
    if let Some(conversation_id) = &envelope.conversation_id {
        map.serialize_entry("conversationId", conversation_id)?;
    }
    if let Some(run_id) = &envelope.run_id {
        map.serialize_entry("runId", run_id)?;
    }
    map.serialize_entry("seq", &envelope.seq)?;
    match (&envelope.payload, event) {
        (EnvelopePayload::Event(_), Some(event)) => {
            map.serialize_entry("kind", "event")?;
            map.serialize_entry("event", event)?;
        }
        (EnvelopePayload::Event(event), None) => {
            map.serialize_entry("kind", "event")?;
            map.serialize_entry("event", &WireEvent(event))?;
        }
        (EnvelopePayload::Notice(notice), _) => {
            map.serialize_entry("kind", "notice")?;
            map.serialize_entry("notice", notice)?;
        }
    }
    map.end()
}

/// An AgentEvent in wire form: pi's JSON, except `message_update` (see the module doc).
struct WireEvent<'a>(&'a AgentEvent);

impl Serialize for WireEvent<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            AgentEvent::MessageUpdate {
                assistant_message_event,
                ..
            } => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("type", "message_update")?;
                map.serialize_entry(
                    "assistantMessageEvent",
                    &WireAssistantEvent(assistant_message_event),
                )?;
                map.end()
            }
            AgentEvent::AgentStart
            | AgentEvent::AgentEnd { .. }
            | AgentEvent::TurnStart
            | AgentEvent::TurnEnd { .. }
            | AgentEvent::MessageStart { .. }
            | AgentEvent::MessageEnd { .. }
            | AgentEvent::ToolExecutionStart { .. }
            | AgentEvent::ToolExecutionUpdate { .. }
            | AgentEvent::ToolExecutionEnd { .. } => self.0.serialize(serializer),
        }
    }
}

/// The block a `*_start` event opened, as it stands at that moment (its partial's block); `None` for any other
/// event.
pub(crate) fn started_block(event: &AssistantMessageEvent) -> Option<&AssistantBlock> {
    match event {
        AssistantMessageEvent::TextStart {
            content_index,
            partial,
        }
        | AssistantMessageEvent::ThinkingStart {
            content_index,
            partial,
        }
        | AssistantMessageEvent::ToolcallStart {
            content_index,
            partial,
        } => partial.content.get(*content_index).map(AsRef::as_ref),
        AssistantMessageEvent::Start { .. }
        | AssistantMessageEvent::TextDelta { .. }
        | AssistantMessageEvent::TextEnd { .. }
        | AssistantMessageEvent::ThinkingDelta { .. }
        | AssistantMessageEvent::ThinkingEnd { .. }
        | AssistantMessageEvent::ToolcallDelta { .. }
        | AssistantMessageEvent::ToolcallEnd { .. }
        | AssistantMessageEvent::Done { .. }
        | AssistantMessageEvent::Error { .. } => None,
    }
}

/// An assistant event without `partial`, plus `block` on `*_start` events.
struct WireAssistantEvent<'a>(&'a AssistantMessageEvent);

impl Serialize for WireAssistantEvent<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let event = self.0;
        let Some(block) = started_block(event) else {
            return event.without_partial().serialize(serializer);
        };
        // Re-open the partial-free form as a map and add the block.
        let base =
            serde_json::to_value(event.without_partial()).map_err(serde::ser::Error::custom)?;
        let mut map = serializer.serialize_map(None)?;
        if let serde_json::Value::Object(fields) = base {
            for (key, value) in &fields {
                map.serialize_entry(key, value)?;
            }
        }
        map.serialize_entry("block", block)?;
        map.end()
    }
}

/// The JSON of an [`Envelope`] (which serialises itself) for the generated TypeScript: the header, then the
/// payload by `kind`. pi's AgentEvent JSON is the hand-kept `ui/src/ipc/pi.ts`.
#[cfg(test)]
mod bindings {
    #![allow(
        dead_code,
        reason = "types that only describe the JSON to the TypeScript generator"
    )]

    use ts_rs::TS;

    use super::{HostNotice, RunId};
    use crate::store::ConversationId;

    #[derive(TS)]
    #[ts(export, rename = "Envelope", rename_all = "camelCase")]
    struct EnvelopeJson {
        v: u32,
        #[ts(optional)]
        conversation_id: Option<ConversationId>,
        #[ts(optional)]
        run_id: Option<RunId>,
        seq: u64,
        #[ts(flatten)]
        payload: PayloadJson,
    }

    #[derive(TS)]
    #[ts(tag = "kind", rename_all = "snake_case")]
    enum PayloadJson {
        Event {
            #[ts(type = "import(\"../pi\").AgentEvent")]
            event: (),
        },
        Notice {
            notice: HostNotice,
        },
    }
}
