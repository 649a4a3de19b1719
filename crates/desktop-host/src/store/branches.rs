//! Versions and branches: a conversation's messages form a tree, and the window shows one path through it.
//!
//! Contract (schema version 6):
//! - Every message names its parent (`parent_seq`), the message before it on its branch; the first message has
//!   none. Messages with the same parent are versions of one another, oldest (lowest `seq`) first: a regenerated
//!   answer is a new version beside the old one, an edited question a new branch beside the old question.
//! - The conversation's head (`head_seq`) is the last message of the shown branch; the shown branch is the path
//!   from the first message to the head. A new message (appended, or a new checkpoint) is the head's child and
//!   becomes the head, so the recorder writes a run into whatever branch the head is on.
//! - [`Store::branch_before`] moves the head to the parent of a message: the next message becomes a new version
//!   of it. [`Store::show_adjacent_version`] shows the previous or next version of a message: the head moves to
//!   the newest message under that version, so a branch comes back as it was last continued.
//! - A message pair deleted by [`Store::delete_message_pair`] (a user message and the answer up to the next user
//!   message of the shown branch) stays in the tree, marked, until [`UNDO_WINDOW_MS`] passed:
//!   [`Store::restore_messages`] brings it back; the shown branch, the versions, search and export leave it out.
//!   Purging re-parents its children onto its parent, so nothing below it is lost.
//! - Search covers every version and branch, not only the shown one: what the user wrote in an older version
//!   is still theirs, and opening the conversation reaches it through the navigator. Export writes the shown
//!   branch and says, at each message with versions, which one it is.

use std::collections::{HashMap, HashSet};

use rusqlite::{OptionalExtension, Transaction, params};
use serde::Serialize;

use super::conversation_id::ConversationId;
use super::error::StoreError;
use super::store_handle::{Store, UNDO_WINDOW_MS};

/// Where one message of the shown branch stands among its versions (for the window's navigator `‹ 2/3 ›`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct MessageVersion {
    /// The message's position in the store (what the version commands name).
    pub seq: i64,
    /// Its pi role (`user` or `assistant`; other roles are not listed).
    pub role: String,
    /// Its pi `timestamp`, which the window matches its messages by.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub timestamp: Option<i64>,
    /// Which version it is, from 1.
    pub version: u32,
    /// How many versions there are at this point (1 when it was never regenerated or edited).
    pub versions: u32,
}

/// The messages of a pair deletion, for its undo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DeletedMessages {
    /// The deleted messages, the user message first.
    pub seqs: Vec<i64>,
    /// Until when (ms since the epoch) [`Store::restore_messages`] brings them back.
    pub undo_until: i64,
}

/// One message as the tree knows it.
#[derive(Debug, Clone)]
pub(super) struct TreeNode {
    pub(super) seq: i64,
    pub(super) parent: Option<i64>,
    pub(super) role: String,
    pub(super) deleted: bool,
}

/// A conversation's message tree and its head.
#[derive(Debug)]
pub(super) struct Tree {
    /// By `seq`, ascending (a parent always comes before its children).
    nodes: Vec<TreeNode>,
    by_seq: HashMap<i64, usize>,
    /// The live messages under each parent (`None`: the first messages), ascending: a message's versions. Kept
    /// once at load, so a conversation of thousands of messages is not scanned once per message.
    live_children: HashMap<Option<i64>, Vec<i64>>,
    head: Option<i64>,
}

impl Tree {
    pub(super) fn load(
        connection: &rusqlite::Connection,
        id: &ConversationId,
    ) -> rusqlite::Result<Tree> {
        let head: Option<i64> = connection
            .query_row(
                "SELECT head_seq FROM conversations WHERE id = ?1",
                params![id.as_str()],
                |row| row.get(0),
            )
            .optional()?
            .flatten();
        // The bodies are not read: a tree of thousands of messages is loaded on every open and branch change.
        let mut statement = connection.prepare(
            "SELECT seq, parent_seq, role, deleted_at IS NOT NULL
             FROM messages WHERE conversation_id = ?1 ORDER BY seq",
        )?;
        let nodes = statement
            .query_map(params![id.as_str()], |row| {
                Ok(TreeNode {
                    seq: row.get(0)?,
                    parent: row.get(1)?,
                    role: row.get(2)?,
                    deleted: row.get(3)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let by_seq = nodes
            .iter()
            .enumerate()
            .map(|(index, node)| (node.seq, index))
            .collect();
        let mut live_children: HashMap<Option<i64>, Vec<i64>> = HashMap::new();
        for node in nodes.iter().filter(|node| !node.deleted) {
            live_children.entry(node.parent).or_default().push(node.seq);
        }
        Ok(Tree {
            nodes,
            by_seq,
            live_children,
            head,
        })
    }

    fn node(&self, seq: i64) -> Option<&TreeNode> {
        self.by_seq.get(&seq).map(|&index| &self.nodes[index])
    }

    /// The path from the first message to the head, deleted messages left out.
    pub(super) fn shown(&self) -> Vec<&TreeNode> {
        let mut path = Vec::new();
        let mut next = self.head;
        // A parent always has a lower seq, so the walk ends; the bound guards a hand-edited file.
        while let Some(seq) = next {
            let Some(node) = self.node(seq) else { break };
            if path.len() > self.nodes.len() {
                break;
            }
            path.push(node);
            next = node.parent.filter(|&parent| parent < seq);
        }
        path.reverse();
        path.retain(|node| !node.deleted);
        path
    }

    /// The live versions at `node`'s place (itself included), oldest first.
    pub(super) fn versions_of(&self, node: &TreeNode) -> &[i64] {
        self.live_children
            .get(&node.parent)
            .map_or(&[], Vec::as_slice)
    }

    /// Which of its live versions `node` is (from 1), and how many there are.
    pub(super) fn place_among_versions(&self, node: &TreeNode) -> (u32, u32) {
        let versions = self.versions_of(node);
        let position = versions
            .iter()
            .position(|&seq| seq == node.seq)
            .unwrap_or(0);
        (
            u32::try_from(position + 1).unwrap_or(u32::MAX),
            u32::try_from(versions.len()).unwrap_or(u32::MAX),
        )
    }

    /// The newest live message under `seq` (itself included).
    fn newest_under(&self, seq: i64) -> i64 {
        let mut under: HashSet<i64> = HashSet::from([seq]);
        let mut newest = seq;
        for node in self.nodes.iter().filter(|node| node.seq > seq) {
            if node.parent.is_some_and(|parent| under.contains(&parent)) {
                under.insert(node.seq);
                if !node.deleted {
                    newest = node.seq;
                }
            }
        }
        newest
    }

    /// The versions of the shown branch's last `count` user and assistant messages, without their timestamps.
    fn version_views(&self, count: usize) -> Vec<MessageVersion> {
        let shown: Vec<&TreeNode> = self
            .shown()
            .into_iter()
            .filter(|node| matches!(node.role.as_str(), "user" | "assistant"))
            .collect();
        shown[shown.len().saturating_sub(count)..]
            .iter()
            .map(|node| {
                let (version, versions) = self.place_among_versions(node);
                MessageVersion {
                    seq: node.seq,
                    role: node.role.clone(),
                    timestamp: None,
                    version,
                    versions,
                }
            })
            .collect()
    }
}

/// Gives `views` (ascending by seq) their messages' pi timestamps, reading only the bodies from the first on.
fn with_timestamps(
    connection: &rusqlite::Connection,
    id: &ConversationId,
    views: &mut [MessageVersion],
) -> rusqlite::Result<()> {
    let Some(first) = views.first().map(|view| view.seq) else {
        return Ok(());
    };
    let mut statement = connection.prepare(
        "SELECT seq, json_extract(body, '$.timestamp') FROM messages
         WHERE conversation_id = ?1 AND seq >= ?2 AND role IN ('user', 'assistant')",
    )?;
    let timestamps = statement
        .query_map(params![id.as_str(), first], |row| {
            // A timestamp that is not an integer is simply not one.
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, Option<i64>>(1).ok().flatten(),
            ))
        })?
        .collect::<rusqlite::Result<HashMap<_, _>>>()?;
    for view in views {
        view.timestamp = timestamps.get(&view.seq).copied().flatten();
    }
    Ok(())
}

impl Store {
    /// The versions of the shown branch's user and assistant messages, in order.
    pub fn message_versions(&self, id: &ConversationId) -> Result<Vec<MessageVersion>, StoreError> {
        self.last_message_versions(id, usize::MAX)
    }

    /// The versions of the shown branch's last `count` user and assistant messages, in order: only their
    /// bodies are read (for the timestamps), so the end of a long conversation costs what a short one does.
    pub fn last_message_versions(
        &self,
        id: &ConversationId,
        count: usize,
    ) -> Result<Vec<MessageVersion>, StoreError> {
        self.conversation(id)?;
        self.with_connection(|connection| {
            let mut views = Tree::load(connection, id)
                .map(|tree| tree.version_views(count))
                .map_err(StoreError::sqlite("read the versions"))?;
            with_timestamps(connection, id, &mut views)
                .map_err(StoreError::sqlite("read the versions"))?;
            Ok(views)
        })
    }

    /// Makes the parent of message `seq` (on the shown branch) the head: the next message saved is a new version
    /// of `seq`. Returns that parent (`None` when `seq` is the first message).
    pub fn branch_before(&self, id: &ConversationId, seq: i64) -> Result<Option<i64>, StoreError> {
        self.with_branch_transaction(id, "start a new version", |transaction, tree| {
            let node = shown_node(tree, id, seq)?;
            set_head(transaction, id, node.parent)?;
            Ok(node.parent)
        })
    }

    /// Shows the version `step` places after (or, negative, before) message `seq` of the shown branch: the head
    /// moves to the newest message under that version. Returns the version's seq.
    pub fn show_adjacent_version(
        &self,
        id: &ConversationId,
        seq: i64,
        step: i64,
    ) -> Result<i64, StoreError> {
        self.with_branch_transaction(id, "switch versions", |transaction, tree| {
            let node = shown_node(tree, id, seq)?;
            let versions = tree.versions_of(node);
            let target = versions
                .iter()
                .position(|&version| version == seq)
                .and_then(|position| i64::try_from(position).ok())
                .map(|position| position + step)
                .and_then(|position| usize::try_from(position).ok())
                .and_then(|position| versions.get(position).copied())
                .ok_or_else(|| not_on_branch(id, seq, "there is no version in that direction"))?;
            set_head(transaction, id, Some(tree.newest_under(target)))?;
            Ok(target)
        })
    }

    /// Deletes, restorably, the user message `seq` of the shown branch and what follows it up to the next user
    /// message (its answer, tool results included).
    pub fn delete_message_pair(
        &self,
        id: &ConversationId,
        seq: i64,
    ) -> Result<DeletedMessages, StoreError> {
        let now = self.now_ms();
        self.with_branch_transaction(id, "delete messages", |transaction, tree| {
            let shown = tree.shown();
            let start = shown
                .iter()
                .position(|node| node.seq == seq)
                .ok_or_else(|| not_on_branch(id, seq, "it is not on the shown branch"))?;
            if shown[start].role != "user" {
                return Err(not_on_branch(id, seq, "it is not a user message"));
            }
            let seqs: Vec<i64> = std::iter::once(shown[start].seq)
                .chain(
                    shown[start + 1..]
                        .iter()
                        .take_while(|node| node.role != "user")
                        .map(|node| node.seq),
                )
                .collect();
            for deleted in &seqs {
                transaction
                    .execute(
                        "UPDATE messages SET deleted_at = ?3 WHERE conversation_id = ?1 AND seq = ?2",
                        params![id.as_str(), deleted, now],
                    )
                    .map_err(StoreError::sqlite("delete messages"))?;
            }
            Ok(DeletedMessages {
                seqs,
                undo_until: now + UNDO_WINDOW_MS,
            })
        })
    }

    /// Undoes [`Store::delete_message_pair`] before it was purged; messages not deleted are left as they are.
    pub fn restore_messages(&self, id: &ConversationId, seqs: &[i64]) -> Result<(), StoreError> {
        self.with_conversation_transaction(id, "restore messages", |transaction| {
            for seq in seqs {
                transaction
                    .execute(
                        "UPDATE messages SET deleted_at = NULL WHERE conversation_id = ?1 AND seq = ?2",
                        params![id.as_str(), seq],
                    )
                    .map_err(StoreError::sqlite("restore messages"))?;
            }
            Ok(())
        })
    }

    fn with_branch_transaction<T>(
        &self,
        id: &ConversationId,
        operation: &'static str,
        work: impl FnOnce(&Transaction<'_>, &Tree) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.conversation(id)?;
        self.with_conversation_transaction(id, operation, |transaction| {
            let tree = Tree::load(transaction, id).map_err(StoreError::sqlite(operation))?;
            work(transaction, &tree)
        })
    }
}

fn shown_node<'tree>(
    tree: &'tree Tree,
    id: &ConversationId,
    seq: i64,
) -> Result<&'tree TreeNode, StoreError> {
    tree.shown()
        .into_iter()
        .find(|node| node.seq == seq)
        .ok_or_else(|| not_on_branch(id, seq, "it is not on the shown branch"))
}

fn not_on_branch(id: &ConversationId, seq: i64, reason: &'static str) -> StoreError {
    StoreError::NotOnBranch {
        conversation_id: id.clone(),
        seq,
        reason,
    }
}

fn set_head(
    transaction: &Transaction<'_>,
    id: &ConversationId,
    head: Option<i64>,
) -> Result<(), StoreError> {
    transaction
        .execute(
            "UPDATE conversations SET head_seq = ?2 WHERE id = ?1",
            params![id.as_str(), head],
        )
        .map_err(StoreError::sqlite("move the shown branch"))?;
    Ok(())
}

/// The messages deleted with their pair at `?1` or before, newest first in each conversation; read through the index
/// of rows marked deleted (schema version 8), not the whole table.
pub(super) const EXPIRED_MESSAGES: &str = "SELECT conversation_id, seq FROM messages
     WHERE deleted_at IS NOT NULL AND deleted_at <= ?1 ORDER BY conversation_id, seq DESC";

/// Removes the messages deleted with their pair at `cutoff` or before, newest first; each one's children and a
/// head on it move to its parent, so the rest of its branch stays whole.
pub(super) fn purge_deleted_messages(
    transaction: &Transaction<'_>,
    cutoff: i64,
) -> rusqlite::Result<()> {
    let expired: Vec<(String, i64)> = {
        let mut statement = transaction.prepare(EXPIRED_MESSAGES)?;
        statement
            .query_map(params![cutoff], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?
    };
    for (conversation_id, seq) in expired {
        let parent: Option<i64> = transaction.query_row(
            "SELECT parent_seq FROM messages WHERE conversation_id = ?1 AND seq = ?2",
            params![conversation_id, seq],
            |row| row.get(0),
        )?;
        transaction.execute(
            "UPDATE messages SET parent_seq = ?3 WHERE conversation_id = ?1 AND parent_seq = ?2",
            params![conversation_id, seq, parent],
        )?;
        transaction.execute(
            "UPDATE conversations SET head_seq = ?3 WHERE id = ?1 AND head_seq = ?2",
            params![conversation_id, seq, parent],
        )?;
        transaction.execute(
            "DELETE FROM messages WHERE conversation_id = ?1 AND seq = ?2",
            params![conversation_id, seq],
        )?;
    }
    Ok(())
}
