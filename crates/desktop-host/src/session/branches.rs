//! Versions, branches and continuations of a recorded session: regenerate an answer, edit a question, show
//! another version, delete a message pair (and undo it), continue an answer cut off by the length limit.
//!
//! Contract:
//! - The store's shown branch (`store::branches`) is the truth; after every change of it the Agent's messages
//!   are replaced by that branch's messages, so the next turn sends exactly the versions shown.
//! - Every operation needs the session idle and holds its run gate while it works: while a run is active it is
//!   refused with [`SessionError::RunActive`] before anything changed (a run writes into the shown branch, so
//!   switching under it would mix branches).
//! - Regenerate moves the head to the answer's parent and continues from there (pi's `continue()`); edit moves it
//!   to the question's parent and prompts with the new text. Either way the new messages become a new version
//!   beside the old ones, which stay reachable.
//! - Continue is pi's continuation of an answer that ended with `stopReason: "length"`: a prompt of one
//!   [`CONTINUATION_ROLE`] message, which `convert_to_llm` hands to the model as a user message asking it to go
//!   on where it stopped. The window shows the two answers as one.
//! - A session without a recorder (pi-chat without a store) has no versions: these operations are refused with
//!   [`SessionError::NotRecorded`].

use std::sync::{Arc, Mutex, PoisonError};

use futures_util::FutureExt as _;
use pi_agent::{AgentMessage, ConvertToLlmFn, CustomMessage, default_convert_to_llm};
use pi_ai::{Message, StopReason, UserContent, UserMessage};
use serde_json::{Map, Value};
use tokio::sync::OwnedMutexGuard;

use super::{DesktopSession, RunHandle, RunKind, SessionError, SessionPrompt};
use crate::store::{
    ConversationId, ConversationRecorder, DeletedMessages, MessageVersion, Store, StoreError,
};

/// The role of the transcript message that asks the model to continue a cut-off answer.
pub const CONTINUATION_ROLE: &str = "continuation";

/// What the model reads in place of a [`CONTINUATION_ROLE`] message.
pub const CONTINUATION_INSTRUCTION: &str = "Your previous answer was cut off by the output length limit. \
     Continue it exactly where it stopped, without repeating anything and without any preamble.";

/// pi's default conversion, plus [`CONTINUATION_ROLE`] messages as the user message asking to continue.
pub(super) fn convert_to_llm() -> ConvertToLlmFn {
    Arc::new(|messages: Vec<AgentMessage>| {
        let converted: Vec<Message> = messages
            .iter()
            .flat_map(|message| match message {
                AgentMessage::Custom(custom) if custom.role == CONTINUATION_ROLE => {
                    vec![Message::User(UserMessage {
                        content: UserContent::Text(CONTINUATION_INSTRUCTION.to_owned()),
                        timestamp: message.timestamp().unwrap_or_default(),
                    })]
                }
                other => default_convert_to_llm(std::slice::from_ref(other)),
            })
            .collect();
        futures_util::future::ready(Ok(converted)).boxed()
    })
}

fn continuation_message() -> AgentMessage {
    let mut fields = Map::new();
    fields.insert("timestamp".to_owned(), Value::from(pi_ai::now_millis()));
    AgentMessage::Custom(CustomMessage::new(CONTINUATION_ROLE, fields))
}

impl DesktopSession {
    /// Regenerates the assistant message `seq` of the shown branch: a new version of it, from the messages
    /// before it. Returns once the run is accepted.
    pub async fn start_regenerate(&self, seq: i64) -> Result<RunHandle, SessionError> {
        let gate = self.take_branch_gate()?;
        let (store, id) = self.recorded()?;
        require_role(&store, &id, seq, "assistant")?;
        store.branch_before(&id, seq)?;
        self.show_stored_branch(&store, &id)?;
        let started = self.start_continue_with_gate(gate).await;
        if started.is_err() {
            // Nothing ran: the answer is shown again, with what followed it.
            store.show_adjacent_version(&id, seq, 0)?;
            self.show_stored_branch(&store, &id)?;
        }
        started
    }

    /// Sends `prompt` in place of the user message `seq` of the shown branch: a new branch from there, the old
    /// one kept as the other version. Returns once the run is accepted.
    pub async fn start_edit(
        &self,
        seq: i64,
        prompt: SessionPrompt,
    ) -> Result<RunHandle, SessionError> {
        let gate = self.take_branch_gate()?;
        let (store, id) = self.recorded()?;
        require_role(&store, &id, seq, "user")?;
        store.branch_before(&id, seq)?;
        self.show_stored_branch(&store, &id)?;
        Ok(self.start_prompt_with_gate(gate, prompt).await)
    }

    /// Shows the version `step` places after (negative: before) message `seq`, with the messages under it.
    pub fn show_adjacent_version(&self, seq: i64, step: i64) -> Result<(), SessionError> {
        let _gate = self.take_branch_gate()?;
        let (store, id) = self.recorded()?;
        store.show_adjacent_version(&id, seq, step)?;
        self.show_stored_branch(&store, &id)
    }

    /// Deletes the user message `seq` and its answer (restorable within the store's undo window).
    pub fn delete_message_pair(&self, seq: i64) -> Result<DeletedMessages, SessionError> {
        let _gate = self.take_branch_gate()?;
        let (store, id) = self.recorded()?;
        let deleted = store.delete_message_pair(&id, seq)?;
        self.show_stored_branch(&store, &id)?;
        Ok(deleted)
    }

    /// Undoes [`DesktopSession::delete_message_pair`].
    pub fn restore_messages(&self, seqs: &[i64]) -> Result<(), SessionError> {
        let _gate = self.take_branch_gate()?;
        let (store, id) = self.recorded()?;
        store.restore_messages(&id, seqs)?;
        self.show_stored_branch(&store, &id)
    }

    /// Continues an answer that ended at the output length limit (the transcript's last message); refused with
    /// [`SessionError::NotTruncated`] otherwise.
    pub async fn start_continue_truncated(&self) -> Result<RunHandle, SessionError> {
        let gate = self.take_branch_gate()?;
        let truncated = self
            .inner
            .agent
            .messages()
            .last()
            .and_then(AgentMessage::as_assistant)
            .is_some_and(|message| message.stop_reason == StopReason::Length);
        if !truncated {
            return Err(SessionError::NotTruncated);
        }
        Ok(self
            .start_messages_with_gate(gate, vec![continuation_message()])
            .await)
    }

    /// The versions of the shown branch's messages; empty without a recorder or when the store cannot say.
    pub fn message_versions(&self) -> Vec<MessageVersion> {
        self.last_message_versions(usize::MAX)
    }

    /// The versions of the shown branch's last `count` user and assistant messages; empty without a recorder
    /// or when the store cannot say.
    pub(super) fn last_message_versions(&self, count: usize) -> Vec<MessageVersion> {
        let Ok((store, id)) = self.recorded() else {
            return Vec::new();
        };
        store
            .last_message_versions(&id, count)
            .unwrap_or_else(|error| {
                tracing::warn!(target: "desktop_host::session", %error, "reading the versions failed");
                Vec::new()
            })
    }

    fn take_branch_gate(&self) -> Result<OwnedMutexGuard<()>, SessionError> {
        self.take_run_gate(RunKind::Prompt)
            .map_err(|_busy| SessionError::RunActive)
    }

    fn recorded(&self) -> Result<(Store, ConversationId), SessionError> {
        recorded_in(self.inner.recorder.as_ref()).ok_or(SessionError::NotRecorded)
    }

    /// The Agent's messages become the stored shown branch's.
    fn show_stored_branch(&self, store: &Store, id: &ConversationId) -> Result<(), SessionError> {
        let messages = store.load_transcript(id)?.agent_messages()?;
        self.inner.agent.set_messages(messages);
        Ok(())
    }
}

pub(super) fn recorded_in(
    recorder: Option<&Arc<Mutex<ConversationRecorder>>>,
) -> Option<(Store, ConversationId)> {
    let recorder = recorder?.lock().unwrap_or_else(PoisonError::into_inner);
    Some((recorder.store().clone(), recorder.conversation_id().clone()))
}

fn require_role(
    store: &Store,
    id: &ConversationId,
    seq: i64,
    role: &'static str,
) -> Result<(), SessionError> {
    let found = store
        .message_versions(id)?
        .into_iter()
        .any(|version| version.seq == seq && version.role == role);
    if found {
        Ok(())
    } else {
        Err(SessionError::Store(StoreError::NotOnBranch {
            conversation_id: id.clone(),
            seq,
            reason: if role == "user" {
                "it is not a user message of the shown branch"
            } else {
                "it is not an answer of the shown branch"
            },
        }))
    }
}

#[cfg(test)]
mod tests {
    use pi_agent::AgentMessage;
    use pi_ai::{Message, UserContent};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::{CONTINUATION_INSTRUCTION, continuation_message, convert_to_llm};

    #[tokio::test]
    async fn a_continuation_reaches_the_model_as_the_user_asking_to_go_on_and_other_custom_messages_do_not()
     {
        let question =
            AgentMessage::from_json(json!({"role": "user", "content": "Count", "timestamp": 1}))
                .unwrap();
        let note = AgentMessage::from_json(json!({"role": "note", "timestamp": 2})).unwrap();
        let continuation = continuation_message();
        let timestamp = continuation.timestamp().unwrap();

        let converted = convert_to_llm()(vec![question, note, continuation])
            .await
            .unwrap();

        let texts: Vec<(String, i64)> = converted
            .iter()
            .map(|message| match message {
                Message::User(user) => match &user.content {
                    UserContent::Text(text) => (text.clone(), user.timestamp),
                    UserContent::Blocks(_) => (String::from("blocks"), user.timestamp),
                },
                Message::Assistant(_) | Message::ToolResult(_) => (String::from("other"), 0),
            })
            .collect();
        assert_eq!(
            texts,
            vec![
                ("Count".to_owned(), 1),
                (CONTINUATION_INSTRUCTION.to_owned(), timestamp)
            ]
        );
    }
}
