//! The [`Store`] handle: opening, conversations (create, list, rename, soft delete, restore, purge) and the
//! message writes the recorder uses. Conversation grants are in `approval_grants`, search in `search`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};
use serde::Serialize;
use serde_json::Value;

use super::clock::{Clock, SystemClock};
use super::conversation_id::ConversationId;
use super::database_file::{StoreNotice, configure, open_database_file};
use super::error::StoreError;
use super::message_text::{readable_text, role_of};
use super::migrations::migrate;
use super::search_index;
use super::title::title_from_text;

/// The database's file name inside the app's data folder.
pub const DATABASE_FILE_NAME: &str = "conversations.sqlite3";

/// How long a deleted conversation can be restored before [`Store::purge_expired_deletions`] removes it.
pub const UNDO_WINDOW_MS: i64 = 10_000;

/// One conversation as the sidebar lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConversationSummary {
    /// The conversation's id.
    pub id: ConversationId,
    /// The title: the first user message, shortened, or what the user renamed it to. `None` until the first user
    /// message (the UI shows a placeholder).
    pub title: Option<String>,
    /// The model id chosen for the conversation, if any.
    pub model: Option<String>,
    /// Creation time, ms since the epoch.
    pub created_at: i64,
    /// Last change (message, checkpoint, rename), ms since the epoch.
    pub updated_at: i64,
}

/// The most recently changed conversations, newest first, and whether older ones are left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecentConversations {
    /// The conversations, newest first.
    pub conversations: Vec<ConversationSummary>,
    /// Whether there are older live conversations than these.
    pub more: bool,
}

/// A store just opened, with what opening had to do.
#[derive(Debug)]
pub struct OpenedStore {
    /// The ready store.
    pub store: Store,
    /// What the UI should tell the user (corrupt file moved aside, schema upgraded); usually empty.
    pub notices: Vec<StoreNotice>,
}

/// The conversation database. Cheap to clone; clones share one connection behind a mutex, locked inside each
/// method for the duration of one short statement or transaction.
#[derive(Clone)]
pub struct Store {
    inner: Arc<StoreInner>,
}

struct StoreInner {
    connection: Mutex<Connection>,
    clock: Arc<dyn Clock>,
    path: Option<PathBuf>,
}

impl fmt::Debug for Store {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Store")
            .field("path", &self.inner.path)
            .finish_non_exhaustive()
    }
}

/// The conversations whose undo window has passed at `?1`; the purge at every open reads them through the index of
/// rows marked deleted (schema version 8), not the whole table.
pub(super) const EXPIRED_CONVERSATIONS: &str =
    "SELECT id FROM conversations WHERE deleted_at IS NOT NULL AND deleted_at <= ?1";

impl Store {
    /// Opens the database at `path` (normally `<data folder>/`[`DATABASE_FILE_NAME`]) with the system clock.
    pub fn open(path: &Path) -> Result<OpenedStore, StoreError> {
        Self::open_with_clock(path, Arc::new(SystemClock))
    }

    /// Opens the database at `path`, creating the folder and file when missing, migrating and purging expired
    /// deletions. See the module docs for what happens to a corrupt file.
    pub fn open_with_clock(path: &Path, clock: Arc<dyn Clock>) -> Result<OpenedStore, StoreError> {
        let stamp = file_stamp(clock.now_ms());
        let (connection, notices) = open_database_file(path, &stamp)?;
        let store = Self::from_connection(connection, clock, Some(path.to_path_buf()));
        // Purging is housekeeping: a failure here must not keep the conversations from opening.
        if let Err(error) = store.purge_expired_deletions() {
            tracing::warn!(%error, "purging expired deletions failed");
        }
        Ok(OpenedStore { store, notices })
    }

    /// A store that lives only in memory: the fallback when the data folder cannot hold a database, so the chat
    /// still works (and tests that need no file).
    pub fn open_in_memory(clock: Arc<dyn Clock>) -> Result<Self, StoreError> {
        let mut connection = Connection::open_in_memory()
            .map_err(StoreError::sqlite("open an in-memory database"))?;
        configure(&connection).map_err(StoreError::sqlite("configure an in-memory database"))?;
        migrate(&mut connection, None, "")?;
        Ok(Self::from_connection(connection, clock, None))
    }

    pub(super) fn from_connection(
        connection: Connection,
        clock: Arc<dyn Clock>,
        path: Option<PathBuf>,
    ) -> Self {
        Self {
            inner: Arc::new(StoreInner {
                connection: Mutex::new(connection),
                clock,
                path,
            }),
        }
    }

    /// The database file, or `None` for an in-memory store.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// Starts a new, empty conversation.
    pub fn create_conversation(
        &self,
        model: Option<&str>,
    ) -> Result<ConversationSummary, StoreError> {
        let now = self.now_ms();
        let summary = ConversationSummary {
            id: ConversationId::new_random(),
            title: None,
            model: model.map(str::to_owned),
            created_at: now,
            updated_at: now,
        };
        self.with_connection(|connection| {
            connection
                .execute(
                    "INSERT INTO conversations (id, title, model, created_at, updated_at) VALUES (?1, NULL, ?2, ?3, ?3)",
                    params![summary.id.as_str(), summary.model, now],
                )
                .map_err(StoreError::sqlite("create a conversation"))
        })?;
        Ok(summary)
    }

    /// One live (not deleted) conversation.
    pub fn conversation(&self, id: &ConversationId) -> Result<ConversationSummary, StoreError> {
        self.with_connection(|connection| {
            connection
                .query_row(
                    "SELECT id, title, model, created_at, updated_at FROM conversations
                     WHERE id = ?1 AND deleted_at IS NULL",
                    params![id.as_str()],
                    summary_from_row,
                )
                .optional()
                .map_err(StoreError::sqlite("read a conversation"))?
                .ok_or_else(|| StoreError::NotFound(id.clone()))
        })
    }

    /// All live conversations, most recently updated first (see [`super::group_by_day`] for the sidebar's days).
    pub fn list_conversations(&self) -> Result<Vec<ConversationSummary>, StoreError> {
        Ok(self.list_recent_conversations(None)?.conversations)
    }

    /// The `limit` most recently changed live conversations, newest first (all of them without a limit),
    /// and whether there are more: what a list that grows as it is scrolled asks for.
    pub fn list_recent_conversations(
        &self,
        limit: Option<usize>,
    ) -> Result<RecentConversations, StoreError> {
        // One row past the limit says whether there are more; SQLite reads LIMIT -1 as no limit.
        let fetch = limit.map_or(-1, |limit| {
            i64::try_from(limit).unwrap_or(i64::MAX).saturating_add(1)
        });
        let mut conversations = self.with_connection(|connection| {
            let mut statement = connection
                .prepare_cached(
                    "SELECT id, title, model, created_at, updated_at FROM conversations
                     WHERE deleted_at IS NULL ORDER BY updated_at DESC, created_at DESC, id LIMIT ?1",
                )
                .map_err(StoreError::sqlite("list conversations"))?;
            let rows = statement
                .query_map([fetch], summary_from_row)
                .map_err(StoreError::sqlite("list conversations"))?;
            rows.collect::<Result<Vec<_>, _>>()
                .map_err(StoreError::sqlite("list conversations"))
        })?;
        let more = limit.is_some_and(|limit| conversations.len() > limit);
        if let Some(limit) = limit {
            conversations.truncate(limit);
        }
        Ok(RecentConversations {
            conversations,
            more,
        })
    }

    /// Renames a conversation; the title is trimmed and must not be blank.
    pub fn rename_conversation(&self, id: &ConversationId, title: &str) -> Result<(), StoreError> {
        let title = title.trim();
        if title.is_empty() {
            return Err(StoreError::EmptyTitle);
        }
        let now = self.now_ms();
        self.update_live(id, "rename a conversation", |connection| {
            connection.execute(
                "UPDATE conversations SET title = ?2, updated_at = ?3 WHERE id = ?1 AND deleted_at IS NULL",
                params![id.as_str(), title, now],
            )
        })
    }

    /// Records the model chosen for a conversation.
    pub fn set_model(&self, id: &ConversationId, model: &str) -> Result<(), StoreError> {
        self.update_live(id, "set a conversation's model", |connection| {
            connection.execute(
                "UPDATE conversations SET model = ?2 WHERE id = ?1 AND deleted_at IS NULL",
                params![id.as_str(), model],
            )
        })
    }

    /// Deletes a conversation softly: it disappears from lists and search at once and can be restored with
    /// [`Store::restore_conversation`] until the returned time (ms since the epoch), after which
    /// [`Store::purge_expired_deletions`] removes it for good.
    pub fn delete_conversation(&self, id: &ConversationId) -> Result<i64, StoreError> {
        let now = self.now_ms();
        self.update_live(id, "delete a conversation", |connection| {
            connection.execute(
                "UPDATE conversations SET deleted_at = ?2 WHERE id = ?1 AND deleted_at IS NULL",
                params![id.as_str(), now],
            )
        })?;
        Ok(now + UNDO_WINDOW_MS)
    }

    /// Undoes a deletion that has not been purged yet. Restoring a conversation that is not deleted does nothing.
    pub fn restore_conversation(&self, id: &ConversationId) -> Result<(), StoreError> {
        let n_rows = self.with_connection(|connection| {
            connection
                .execute(
                    "UPDATE conversations SET deleted_at = NULL WHERE id = ?1",
                    params![id.as_str()],
                )
                .map_err(StoreError::sqlite("restore a conversation"))
        })?;
        if n_rows == 0 {
            Err(StoreError::NotFound(id.clone()))
        } else {
            Ok(())
        }
    }

    /// Removes, with their messages, grants and run logs, the conversations deleted at least [`UNDO_WINDOW_MS`] ago; returns
    /// how many. Messages deleted with their pair that long ago go too (see `branches`).
    /// Runs at open; the app may also call it when an undo notice expires.
    pub fn purge_expired_deletions(&self) -> Result<usize, StoreError> {
        let cutoff = self.now_ms() - UNDO_WINDOW_MS;
        self.with_transaction("purge deleted conversations", |transaction| {
            for table in ["messages", "conversation_grants", "run_logs"] {
                transaction.execute(
                    &format!(
                        "DELETE FROM {table} WHERE conversation_id IN ({EXPIRED_CONVERSATIONS})"
                    ),
                    params![cutoff],
                )?;
            }
            let n_purged = transaction.execute(
                &format!("DELETE FROM conversations WHERE id IN ({EXPIRED_CONVERSATIONS})"),
                params![cutoff],
            )?;
            super::branches::purge_deleted_messages(transaction, cutoff)?;
            Ok(n_purged)
        })
    }

    /// Appends a finished message at the end of the conversation; returns its sequence number. `message` is
    /// anything that serialises to pi's message JSON (`pi_agent::AgentMessage`, or a `serde_json::Value`).
    /// The first user message gives an untitled conversation its title.
    pub fn append_message<M: Serialize + ?Sized>(
        &self,
        id: &ConversationId,
        message: &M,
    ) -> Result<i64, StoreError> {
        let row = MessageRow::new(message)?;
        let now = self.now_ms();
        self.with_conversation_transaction(id, "append a message", |transaction| {
            let seq = next_seq(transaction, id)?;
            let row_id = insert_message(transaction, id, seq, &row, true, now)?;
            index_message(transaction, row_id, &row.text)?;
            touch(transaction, id, now, &row)?;
            Ok(seq)
        })
    }

    /// Saves a snapshot of the assistant message being streamed. With `seq` `None` a new checkpoint row is added
    /// at the end (its sequence number is returned); with `Some(seq)` that open checkpoint is overwritten.
    /// A checkpoint reads back as interrupted until [`Store::finish_checkpoint`] completes it.
    pub fn write_checkpoint<M: Serialize + ?Sized>(
        &self,
        id: &ConversationId,
        seq: Option<i64>,
        partial: &M,
    ) -> Result<i64, StoreError> {
        let row = MessageRow::new(partial)?;
        let now = self.now_ms();
        self.with_conversation_transaction(id, "save a checkpoint", |transaction| {
            let seq = match seq {
                None => {
                    let seq = next_seq(transaction, id)?;
                    let row_id = insert_message(transaction, id, seq, &row, false, now)?;
                    index_message(transaction, row_id, &row.text)?;
                    seq
                }
                Some(seq) => {
                    overwrite_checkpoint(transaction, id, seq, &row, false, now)?;
                    seq
                }
            };
            touch(transaction, id, now, &row)?;
            Ok(seq)
        })
    }

    /// Replaces the open checkpoint `seq` with the finished message and marks it complete.
    pub fn finish_checkpoint<M: Serialize + ?Sized>(
        &self,
        id: &ConversationId,
        seq: i64,
        message: &M,
    ) -> Result<(), StoreError> {
        let row = MessageRow::new(message)?;
        let now = self.now_ms();
        self.with_conversation_transaction(id, "finish a streamed message", |transaction| {
            overwrite_checkpoint(transaction, id, seq, &row, true, now)?;
            touch(transaction, id, now, &row)
        })
    }

    pub(crate) fn now_ms(&self) -> i64 {
        self.inner.clock.now_ms()
    }

    /// Runs `work` with the connection locked. A panic elsewhere while the lock was held leaves no half-done
    /// work behind (transactions roll back on drop), so a poisoned lock is simply taken over.
    pub(crate) fn with_connection<T>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut connection = self
            .inner
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        work(&mut connection)
    }

    pub(super) fn with_transaction<T>(
        &self,
        operation: &'static str,
        work: impl FnOnce(&rusqlite::Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        self.with_connection(|connection| {
            let transaction = connection
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(StoreError::sqlite(operation))?;
            let value = work(&transaction).map_err(StoreError::sqlite(operation))?;
            transaction
                .commit()
                .map_err(StoreError::sqlite(operation))?;
            Ok(value)
        })
    }

    /// A write transaction on an existing conversation (deleted or not: a run that is still streaming into a
    /// conversation the user just deleted keeps saving, so an undo brings everything back).
    pub(super) fn with_conversation_transaction<T>(
        &self,
        id: &ConversationId,
        operation: &'static str,
        work: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.with_connection(|connection| {
            let transaction = connection
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(StoreError::sqlite(operation))?;
            let exists: bool = transaction
                .query_row(
                    "SELECT EXISTS (SELECT 1 FROM conversations WHERE id = ?1)",
                    params![id.as_str()],
                    |row| row.get(0),
                )
                .map_err(StoreError::sqlite(operation))?;
            if !exists {
                return Err(StoreError::NotFound(id.clone()));
            }
            let value = work(&transaction).map_err(|error| match error {
                StoreError::Sqlite { source, .. } => StoreError::Sqlite { operation, source },
                other => other,
            })?;
            transaction
                .commit()
                .map_err(StoreError::sqlite(operation))?;
            Ok(value)
        })
    }

    fn update_live(
        &self,
        id: &ConversationId,
        operation: &'static str,
        update: impl FnOnce(&Connection) -> rusqlite::Result<usize>,
    ) -> Result<(), StoreError> {
        let n_rows = self.with_connection(|connection| {
            update(connection).map_err(StoreError::sqlite(operation))
        })?;
        if n_rows == 0 {
            Err(StoreError::NotFound(id.clone()))
        } else {
            Ok(())
        }
    }
}

/// A message ready to be written: its JSON text, role and searchable text.
struct MessageRow {
    body: String,
    role: String,
    text: String,
}

impl MessageRow {
    fn new<M: Serialize + ?Sized>(message: &M) -> Result<Self, StoreError> {
        let message: Value = serde_json::to_value(message).map_err(StoreError::Serialise)?;
        let message = &message;
        let role = role_of(message)
            .ok_or(StoreError::MessageWithoutRole)?
            .to_owned();
        let body = serde_json::to_string(message).map_err(StoreError::Serialise)?;
        Ok(Self {
            body,
            role,
            text: readable_text(message),
        })
    }
}

pub(crate) fn summary_from_row(row: &Row<'_>) -> rusqlite::Result<ConversationSummary> {
    Ok(ConversationSummary {
        id: ConversationId::from(row.get::<_, String>(0)?),
        title: row.get(1)?,
        model: row.get(2)?,
        created_at: row.get(3)?,
        updated_at: row.get(4)?,
    })
}

fn next_seq(
    transaction: &rusqlite::Transaction<'_>,
    id: &ConversationId,
) -> Result<i64, StoreError> {
    transaction
        .query_row(
            "SELECT COALESCE(MAX(seq) + 1, 0) FROM messages WHERE conversation_id = ?1",
            params![id.as_str()],
            |row| row.get(0),
        )
        .map_err(StoreError::sqlite("number a message"))
}

fn insert_message(
    transaction: &rusqlite::Transaction<'_>,
    id: &ConversationId,
    seq: i64,
    row: &MessageRow,
    complete: bool,
    now: i64,
) -> Result<i64, StoreError> {
    transaction
        .execute(
            "INSERT INTO messages (conversation_id, seq, role, body, complete, saved_at, parent_seq)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, (SELECT head_seq FROM conversations WHERE id = ?1))",
            params![id.as_str(), seq, row.role, row.body, complete, now],
        )
        .map_err(StoreError::sqlite("insert a message"))?;
    let row_id = transaction.last_insert_rowid();
    // A new message continues the shown branch: it is the head's child and becomes the head.
    transaction
        .execute(
            "UPDATE conversations SET head_seq = ?2 WHERE id = ?1",
            params![id.as_str(), seq],
        )
        .map_err(StoreError::sqlite("insert a message"))?;
    Ok(row_id)
}

fn overwrite_checkpoint(
    transaction: &rusqlite::Transaction<'_>,
    id: &ConversationId,
    seq: i64,
    row: &MessageRow,
    complete: bool,
    now: i64,
) -> Result<(), StoreError> {
    let row_id: Option<i64> = transaction
        .query_row(
            "UPDATE messages SET role = ?3, body = ?4, complete = ?5, saved_at = ?6
             WHERE conversation_id = ?1 AND seq = ?2 AND complete = 0 RETURNING id",
            params![id.as_str(), seq, row.role, row.body, complete, now],
            |found| found.get(0),
        )
        .optional()
        .map_err(StoreError::sqlite("overwrite a checkpoint"))?;
    let row_id = row_id.ok_or_else(|| StoreError::NotACheckpoint {
        conversation_id: id.clone(),
        seq,
    })?;
    search_index::reindex_message(transaction, row_id, &row.text)
        .map_err(StoreError::sqlite("index a message"))
}

fn index_message(
    transaction: &rusqlite::Transaction<'_>,
    row_id: i64,
    text: &str,
) -> Result<(), StoreError> {
    search_index::index_message(transaction, row_id, text)
        .map_err(StoreError::sqlite("index a message"))
}

/// Marks the conversation as just changed and gives it a title from its first user message.
fn touch(
    transaction: &rusqlite::Transaction<'_>,
    id: &ConversationId,
    now: i64,
    row: &MessageRow,
) -> Result<(), StoreError> {
    let auto_title = if row.role == "user" {
        title_from_text(&row.text)
    } else {
        None
    };
    transaction
        .execute(
            "UPDATE conversations SET updated_at = MAX(updated_at, ?2), title = COALESCE(title, ?3) WHERE id = ?1",
            params![id.as_str(), now, auto_title],
        )
        .map_err(StoreError::sqlite("update a conversation"))?;
    Ok(())
}

/// A timestamp for file names (`20261130T115000Z`); the raw milliseconds when the clock is out of range.
fn file_stamp(now_ms: i64) -> String {
    jiff::Timestamp::from_millisecond(now_ms).map_or_else(
        |_| now_ms.to_string(),
        |timestamp| timestamp.strftime("%Y%m%dT%H%M%SZ").to_string(),
    )
}
