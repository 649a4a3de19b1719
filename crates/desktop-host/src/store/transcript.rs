//! Reading a conversation back: its messages in order, with interrupted checkpoints marked, and the form the
//! Agent's transcript is rebuilt from.

use pi_agent::AgentMessage;
use rusqlite::params;
use serde_json::Value;

use super::conversation_id::ConversationId;
use super::error::StoreError;
use super::store_handle::{ConversationSummary, Store};

/// The `errorMessage` given to an interrupted message when it is handed to the Agent.
pub const INTERRUPTED_ERROR_MESSAGE: &str =
    "interrupted: the app stopped before this message was complete";

/// Whether a stored message reached `message_end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EntryState {
    /// The message was finished (saved at `message_end`).
    Complete,
    /// Only a streaming checkpoint exists: the app stopped while the message was being written. The UI shows it
    /// as interrupted; the Agent gets it as an aborted message, which is never replayed to a model.
    Interrupted,
}

/// One stored message.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptEntry {
    /// Position in the conversation, from 0.
    pub seq: i64,
    /// The message as pi JSON, exactly as it was saved.
    pub message: Value,
    /// Whether it was finished.
    pub state: EntryState,
}

/// A conversation and its messages, as read back from the store.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    /// The conversation.
    pub conversation: ConversationSummary,
    /// Its messages in order.
    pub entries: Vec<TranscriptEntry>,
}

impl Transcript {
    /// The messages to give the Agent (`AgentState.messages`) when the conversation is reopened: every complete
    /// message exactly as saved, in order; an interrupted assistant message becomes `stopReason: "aborted"` with
    /// [`INTERRUPTED_ERROR_MESSAGE`] (pi skips aborted messages when it builds a model request, so the partial
    /// answer is shown but never sent as if it were whole); an interrupted message of any other role, which the
    /// recorder never writes, is left out.
    pub fn agent_messages(&self) -> Result<Vec<AgentMessage>, StoreError> {
        self.entries
            .iter()
            .filter_map(|entry| agent_json(entry).map(|message| (entry.seq, message)))
            .map(|(seq, message)| {
                serde_json::from_value(message).map_err(|source| StoreError::NotAnAgentMessage {
                    conversation_id: self.conversation.id.clone(),
                    seq,
                    source,
                })
            })
            .collect()
    }

    /// [`Transcript::agent_messages`] as JSON, without parsing them into typed messages.
    pub fn agent_messages_json(&self) -> Vec<Value> {
        self.entries.iter().filter_map(agent_json).collect()
    }
}

fn agent_json(entry: &TranscriptEntry) -> Option<Value> {
    match entry.state {
        EntryState::Complete => Some(entry.message.clone()),
        EntryState::Interrupted => as_aborted(&entry.message),
    }
}

fn as_aborted(partial: &Value) -> Option<Value> {
    let mut message = partial.clone();
    let fields = message.as_object_mut()?;
    if fields.get("role").and_then(Value::as_str) != Some("assistant") {
        return None;
    }
    fields.insert("stopReason".to_owned(), Value::from("aborted"));
    fields.insert(
        "errorMessage".to_owned(),
        Value::from(INTERRUPTED_ERROR_MESSAGE),
    );
    Some(message)
}

impl Store {
    /// Reads a live conversation and all its messages.
    pub fn load_transcript(&self, id: &ConversationId) -> Result<Transcript, StoreError> {
        let conversation = self.conversation(id)?;
        let rows = self.with_connection(|connection| {
            let mut statement = connection
                .prepare("SELECT seq, body, complete FROM messages WHERE conversation_id = ?1 ORDER BY seq")
                .map_err(StoreError::sqlite("read messages"))?;
            let rows = statement
                .query_map(params![id.as_str()], |row| {
                    Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?, row.get::<_, bool>(2)?))
                })
                .map_err(StoreError::sqlite("read messages"))?;
            rows.collect::<Result<Vec<_>, _>>().map_err(StoreError::sqlite("read messages"))
        })?;
        let entries = rows
            .into_iter()
            .map(|(seq, body, complete)| {
                let message =
                    serde_json::from_str(&body).map_err(|source| StoreError::CorruptMessage {
                        conversation_id: id.clone(),
                        seq,
                        source,
                    })?;
                let state = if complete {
                    EntryState::Complete
                } else {
                    EntryState::Interrupted
                };
                Ok(TranscriptEntry {
                    seq,
                    message,
                    state,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(Transcript {
            conversation,
            entries,
        })
    }
}
