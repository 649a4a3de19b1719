//! Reading a conversation back: its messages in order, with interrupted checkpoints marked, and the form the
//! Agent's transcript is rebuilt from.

use std::collections::HashMap;

use pi_agent::AgentMessage;
use rusqlite::params;
use serde::Deserialize;
use serde_json::Value;

use super::branches::Tree;
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
    /// Which of the versions at its place it is, from 1 (see `branches`).
    pub version: u32,
    /// How many versions there are at its place.
    pub versions: u32,
}

/// A conversation and the messages of its shown branch, as read back from the store.
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
            .filter_map(|entry| {
                // A complete message is read where it lies: copying every message's JSON first cost as much as
                // typing it when a long conversation is opened.
                let typed = match entry.state {
                    EntryState::Complete => AgentMessage::deserialize(&entry.message),
                    EntryState::Interrupted => {
                        as_aborted(&entry.message).map(AgentMessage::deserialize)?
                    }
                };
                Some(typed.map_err(|source| StoreError::NotAnAgentMessage {
                    conversation_id: self.conversation.id.clone(),
                    seq: entry.seq,
                    source,
                }))
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
    /// Reads a live conversation and the messages of its shown branch (see `branches`), in order.
    pub fn load_transcript(&self, id: &ConversationId) -> Result<Transcript, StoreError> {
        let conversation = self.conversation(id)?;
        let (shown, rows) = self.with_connection(|connection| {
            let tree = Tree::load(connection, id).map_err(StoreError::sqlite("read messages"))?;
            let shown: Vec<(i64, u32, u32)> = tree
                .shown()
                .into_iter()
                .map(|node| {
                    let (version, versions) = tree.place_among_versions(node);
                    (node.seq, version, versions)
                })
                .collect();
            let mut statement = connection
                .prepare(
                    "SELECT seq, body, complete FROM messages
                     WHERE conversation_id = ?1 AND deleted_at IS NULL ORDER BY seq",
                )
                .map_err(StoreError::sqlite("read messages"))?;
            let rows = statement
                .query_map(params![id.as_str()], |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        (row.get::<_, String>(1)?, row.get::<_, bool>(2)?),
                    ))
                })
                .map_err(StoreError::sqlite("read messages"))?;
            let rows = rows
                .collect::<Result<HashMap<_, _>, _>>()
                .map_err(StoreError::sqlite("read messages"))?;
            Ok((shown, rows))
        })?;
        let entries = shown
            .into_iter()
            .filter_map(|(seq, version, versions)| {
                rows.get(&seq)
                    .map(|(body, complete)| (seq, version, versions, body, *complete))
            })
            .map(|(seq, version, versions, body, complete)| {
                let message =
                    serde_json::from_str(body).map_err(|source| StoreError::CorruptMessage {
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
                    version,
                    versions,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(Transcript {
            conversation,
            entries,
        })
    }
}
