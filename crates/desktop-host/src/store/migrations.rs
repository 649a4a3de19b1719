//! Versioned schema migrations, run when the store opens.
//!
//! The schema version is SQLite's `user_version`. Each migration runs in its own transaction together with the
//! version bump, so a failure leaves the database at the last complete version. Before migrating an existing
//! database the file is copied beside itself (`VACUUM INTO`); the app never deletes those copies.
//!
//! Contract for new migrations: append to [`MIGRATIONS`], never edit a released one, and add the frozen schema of
//! the previous version (with sample rows) to `tests/data/store/` so the upgrade is tested from every version.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, Transaction, params};

use super::error::StoreError;
use super::message_text::readable_text;
use super::search_index::write_all_ends;

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 8;

struct Migration {
    /// The version the database has after this step.
    version: i64,
    apply: fn(&Transaction<'_>) -> rusqlite::Result<()>,
}

const MIGRATIONS: [Migration; 8] = [
    Migration {
        version: 1,
        apply: create_conversations_and_messages,
    },
    Migration {
        version: 2,
        apply: add_full_text_search,
    },
    Migration {
        version: 3,
        apply: add_soft_delete,
    },
    Migration {
        version: 4,
        apply: add_conversation_grants,
    },
    Migration {
        version: 5,
        apply: add_run_logs,
    },
    Migration {
        version: 6,
        apply: add_versions_and_branches,
    },
    Migration {
        version: 7,
        apply: add_short_term_search,
    },
    Migration {
        version: 8,
        apply: index_rows_marked_deleted,
    },
];

/// What opening did to the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MigrationOutcome {
    /// The schema was already current.
    UpToDate,
    /// A new, empty database was given the current schema.
    Created,
    /// An existing database was upgraded after being copied to `backup`.
    Upgraded {
        from: i64,
        to: i64,
        backup: Option<PathBuf>,
    },
}

/// Brings the database to [`SCHEMA_VERSION`]. `db_path` is where the file lives (for the backup), or `None` for
/// an in-memory database; `stamp` names the backup.
pub(crate) fn migrate(
    connection: &mut Connection,
    db_path: Option<&Path>,
    stamp: &str,
) -> Result<MigrationOutcome, StoreError> {
    let found: i64 = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(StoreError::sqlite("read the schema version"))?;
    if found == SCHEMA_VERSION {
        return Ok(MigrationOutcome::UpToDate);
    }
    if found > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew {
            path: db_path.map(Path::to_path_buf).unwrap_or_default(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    let is_empty = found == 0 && !has_tables(connection)?;
    let backup = match db_path {
        Some(path) if !is_empty => Some(back_up(connection, path, found, stamp)?),
        Some(_) | None => None,
    };
    for migration in MIGRATIONS
        .iter()
        .filter(|migration| migration.version > found)
    {
        let transaction = connection
            .transaction()
            .map_err(|source| StoreError::Migration {
                version: migration.version,
                source,
            })?;
        (migration.apply)(&transaction)
            .and_then(|()| transaction.pragma_update(None, "user_version", migration.version))
            .and_then(|()| transaction.commit())
            .map_err(|source| StoreError::Migration {
                version: migration.version,
                source,
            })?;
    }
    if is_empty {
        Ok(MigrationOutcome::Created)
    } else {
        Ok(MigrationOutcome::Upgraded {
            from: found,
            to: SCHEMA_VERSION,
            backup,
        })
    }
}

fn has_tables(connection: &Connection) -> Result<bool, StoreError> {
    connection
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table')",
            [],
            |row| row.get(0),
        )
        .map_err(StoreError::sqlite("inspect the schema"))
}

/// Copies the whole database to `<file>.v<version>-backup-<stamp>` (with `-2`, `-3`… when that exists).
fn back_up(
    connection: &Connection,
    db_path: &Path,
    version: i64,
    stamp: &str,
) -> Result<PathBuf, StoreError> {
    let file_name = db_path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = format!("{file_name}.v{version}-backup-{stamp}");
    let mut backup_path = db_path.with_file_name(&base);
    let mut n_tries = 1;
    while backup_path.exists() {
        n_tries += 1;
        backup_path = db_path.with_file_name(format!("{base}-{n_tries}"));
    }
    connection
        .execute("VACUUM INTO ?1", params![backup_path.to_string_lossy()])
        .map_err(|source| StoreError::Backup {
            path: db_path.to_path_buf(),
            source,
        })?;
    Ok(backup_path)
}

/// Version 1: conversations and their messages (pi JSON, in order; `complete = 0` marks a streaming checkpoint).
fn create_conversations_and_messages(transaction: &Transaction<'_>) -> rusqlite::Result<()> {
    transaction.execute_batch(
        "CREATE TABLE conversations (
             id TEXT PRIMARY KEY NOT NULL,
             title TEXT,
             model TEXT,
             created_at INTEGER NOT NULL,
             updated_at INTEGER NOT NULL
         );
         CREATE INDEX conversations_by_update ON conversations (updated_at DESC);
         CREATE TABLE messages (
             id INTEGER PRIMARY KEY,
             conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
             seq INTEGER NOT NULL,
             role TEXT NOT NULL,
             body TEXT NOT NULL,
             complete INTEGER NOT NULL,
             saved_at INTEGER NOT NULL,
             UNIQUE (conversation_id, seq)
         );",
    )
}

/// Version 2: full-text search over the readable text of every message.
///
/// The trigram tokenizer indexes every three-character window, so Chinese (which has no spaces between words)
/// is searchable like English; queries shorter than three characters fall back to `LIKE` on the same table.
fn add_full_text_search(transaction: &Transaction<'_>) -> rusqlite::Result<()> {
    transaction.execute_batch(
        "CREATE VIRTUAL TABLE message_search USING fts5 (text, tokenize = 'trigram');
         CREATE TRIGGER messages_leave_search AFTER DELETE ON messages BEGIN
             DELETE FROM message_search WHERE rowid = old.id;
         END;",
    )?;
    let mut select = transaction.prepare("SELECT id, body FROM messages")?;
    let mut insert =
        transaction.prepare("INSERT INTO message_search (rowid, text) VALUES (?1, ?2)")?;
    let mut rows = select.query([])?;
    while let Some(row) = rows.next()? {
        let id: i64 = row.get(0)?;
        let body: String = row.get(1)?;
        // A body that does not parse is kept as it is and simply not searchable.
        let text = serde_json::from_str(&body)
            .map(|message| readable_text(&message))
            .unwrap_or_default();
        insert.execute(params![id, text])?;
    }
    Ok(())
}

/// Version 3: soft delete, so a deletion can be undone for a few seconds before it is purged.
fn add_soft_delete(transaction: &Transaction<'_>) -> rusqlite::Result<()> {
    transaction.execute_batch("ALTER TABLE conversations ADD COLUMN deleted_at INTEGER;")
}

/// Version 4: "allow in this conversation" grants, one row per conversation, server and tool (the app's own tools
/// under the empty server name, which no MCP server may have). They go with their conversation when it is purged.
fn add_conversation_grants(transaction: &Transaction<'_>) -> rusqlite::Result<()> {
    transaction.execute_batch(
        "CREATE TABLE conversation_grants (
             conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
             server TEXT NOT NULL,
             tool TEXT NOT NULL,
             granted_at INTEGER NOT NULL,
             PRIMARY KEY (conversation_id, server, tool)
         ) WITHOUT ROWID;",
    )
}

/// Version 5: the event logs of finished runs for the loop inspector (JSON lines, gzip), with their sizes, the
/// run's summary and the number of messages before it; they go with their conversation when it is purged.
fn add_run_logs(transaction: &Transaction<'_>) -> rusqlite::Result<()> {
    transaction.execute_batch(
        "CREATE TABLE run_logs (
             id INTEGER PRIMARY KEY,
             conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
             started_at INTEGER NOT NULL,
             messages_before INTEGER NOT NULL,
             bytes INTEGER NOT NULL,
             raw_bytes INTEGER NOT NULL,
             log BLOB NOT NULL,
             summary TEXT NOT NULL
         );
         CREATE INDEX run_logs_by_conversation ON run_logs (conversation_id, id);",
    )
}

/// Version 6: versions and branches (see `store::branches`). Each message names the message before it on its
/// branch (`parent_seq`, NULL for the first), the conversation names the last message of the branch it shows
/// (`head_seq`), and a message deleted with its pair is marked (`deleted_at`) until its undo window passed. An
/// existing conversation is one branch: each message's parent is the one saved before it, and the head is its
/// newest message.
fn add_versions_and_branches(transaction: &Transaction<'_>) -> rusqlite::Result<()> {
    transaction.execute_batch(
        "ALTER TABLE messages ADD COLUMN parent_seq INTEGER;
         ALTER TABLE messages ADD COLUMN deleted_at INTEGER;
         ALTER TABLE conversations ADD COLUMN head_seq INTEGER;
         UPDATE messages SET parent_seq = (
             SELECT MAX(earlier.seq) FROM messages earlier
             WHERE earlier.conversation_id = messages.conversation_id AND earlier.seq < messages.seq
         );
         UPDATE conversations SET head_seq = (
             SELECT MAX(seq) FROM messages WHERE messages.conversation_id = conversations.id
         );
         CREATE INDEX messages_by_parent ON messages (conversation_id, parent_seq);",
    )
}

/// Version 7: what search needs to find terms of one or two characters without reading every text (see
/// `store::short_terms`): the index's vocabulary, and every indexed text's last character and last two characters,
/// folded as the index folds them (`message_search_ends`, one row per row of `message_search`, written beside it
/// by `store::search_index`). The existing texts' ends are written by that same code; the indexes come after, in
/// one pass.
fn add_short_term_search(transaction: &Transaction<'_>) -> rusqlite::Result<()> {
    transaction.execute_batch(
        "CREATE VIRTUAL TABLE message_search_vocab USING fts5vocab (message_search, 'row');
         CREATE TABLE message_search_ends (id INTEGER PRIMARY KEY, last1 TEXT, last2 TEXT);
         CREATE TRIGGER messages_leave_search_ends AFTER DELETE ON messages BEGIN
             DELETE FROM message_search_ends WHERE id = old.id;
         END;",
    )?;
    write_all_ends(transaction)?;
    transaction.execute_batch(
        "CREATE INDEX message_search_ends_by_last1 ON message_search_ends (last1);
         CREATE INDEX message_search_ends_by_last2 ON message_search_ends (last2);",
    )
}

/// Version 8: indexes of the conversations and messages marked deleted, and of nothing else. Every open purges
/// those whose undo window has passed; without them that was a scan of every message (0.35 s at a million).
fn index_rows_marked_deleted(transaction: &Transaction<'_>) -> rusqlite::Result<()> {
    transaction.execute_batch(
        "CREATE INDEX conversations_deleted ON conversations (deleted_at) WHERE deleted_at IS NOT NULL;
         CREATE INDEX messages_deleted ON messages (deleted_at) WHERE deleted_at IS NOT NULL;",
    )
}
