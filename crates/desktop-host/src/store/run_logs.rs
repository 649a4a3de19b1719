//! Run logs: every envelope of a finished run as the window received it (deltas coalesced as on the wire), one
//! JSON line each with the time it passed, kept gzip-compressed with the conversation so the loop inspector can
//! show and replay past runs after a restart. Beside the log, the run's summary (the inspector's reading of it) so
//! listing runs reads no log.
//!
//! Contract: a conversation keeps at most [`RUN_LOG_CAP_BYTES`] of (compressed) logs; past it the oldest runs'
//! logs are removed (the newest run is always kept, however large). Logs go with their conversation when it is
//! purged.

use std::io::{Read, Write};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use rusqlite::params;

use super::conversation_id::ConversationId;
use super::error::StoreError;
use super::store_handle::Store;

/// The most log bytes one conversation keeps; the oldest runs' logs make room for new ones.
pub const RUN_LOG_CAP_BYTES: i64 = 16 * 1024 * 1024;

/// A stored run: its id, when it started, its size and the summary kept beside it (JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRun {
    /// The log's id (unique in the database).
    pub log_id: i64,
    /// When the run started, ms since the epoch.
    pub started_at: i64,
    /// The log's size as stored (compressed), in bytes.
    pub bytes: i64,
    /// The log's size as JSON lines, in bytes.
    pub raw_bytes: i64,
    /// How many messages the conversation had when the run started (a replay starts from them).
    pub messages_before: i64,
    /// The inspector's summary of the run, JSON.
    pub summary: String,
}

/// A finished run to keep.
#[derive(Debug, Clone, Copy)]
pub struct NewRunLog<'a> {
    /// When it started, ms since the epoch.
    pub started_at: i64,
    /// How many messages the conversation had then.
    pub messages_before: i64,
    /// Its envelopes, JSON lines.
    pub log: &'a str,
    /// The inspector's summary of it, JSON.
    pub summary: &'a str,
}

impl Store {
    /// Keeps the log of a finished run of conversation `id` (`log`: JSON lines) and its `summary`, then removes
    /// the oldest logs of the conversation past [`RUN_LOG_CAP_BYTES`]. Returns the new log's id.
    pub fn append_run_log(
        &self,
        id: &ConversationId,
        run: &NewRunLog<'_>,
    ) -> Result<i64, StoreError> {
        let packed = pack(run.log).map_err(StoreError::Serialise)?;
        self.with_conversation_transaction(id, "keep a run log", |transaction| {
            let bytes = i64::try_from(packed.len()).unwrap_or(i64::MAX);
            let raw_bytes = i64::try_from(run.log.len()).unwrap_or(i64::MAX);
            transaction
                .execute(
                    "INSERT INTO run_logs
                         (conversation_id, started_at, messages_before, bytes, raw_bytes, log, summary)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![
                        id.as_str(),
                        run.started_at,
                        run.messages_before,
                        bytes,
                        raw_bytes,
                        packed,
                        run.summary
                    ],
                )
                .map_err(StoreError::sqlite("keep a run log"))?;
            let log_id = transaction.last_insert_rowid();
            // Newest first, a running total: every log past the cap (never the one just kept) goes.
            transaction
                .execute(
                    "DELETE FROM run_logs WHERE id IN (
                         SELECT id FROM (
                             SELECT id, SUM(bytes) OVER (ORDER BY id DESC) AS kept
                             FROM run_logs WHERE conversation_id = ?1
                         ) WHERE kept > ?2 AND id <> ?3
                     )",
                    params![id.as_str(), RUN_LOG_CAP_BYTES, log_id],
                )
                .map_err(StoreError::sqlite("make room for a run log"))?;
            Ok(log_id)
        })
    }

    /// The stored runs of conversation `id`, oldest first (their summaries, not their logs).
    pub fn stored_runs(&self, id: &ConversationId) -> Result<Vec<StoredRun>, StoreError> {
        self.with_connection(|connection| {
            let mut statement = connection
                .prepare_cached(
                    "SELECT id, started_at, bytes, raw_bytes, messages_before, summary FROM run_logs
                     WHERE conversation_id = ?1 ORDER BY id",
                )
                .map_err(StoreError::sqlite("list the run logs"))?;
            let rows = statement
                .query_map(params![id.as_str()], |row| {
                    Ok(StoredRun {
                        log_id: row.get(0)?,
                        started_at: row.get(1)?,
                        bytes: row.get(2)?,
                        raw_bytes: row.get(3)?,
                        messages_before: row.get(4)?,
                        summary: row.get(5)?,
                    })
                })
                .map_err(StoreError::sqlite("list the run logs"))?;
            rows.collect::<Result<Vec<_>, _>>()
                .map_err(StoreError::sqlite("list the run logs"))
        })
    }

    /// The log (JSON lines) of run `log_id` of conversation `id` and the number of messages before it; `None`
    /// when there is none (removed past the cap, or another conversation's).
    pub fn run_log(
        &self,
        id: &ConversationId,
        log_id: i64,
    ) -> Result<Option<(String, i64)>, StoreError> {
        self.with_connection(|connection| {
            let mut statement = connection
                .prepare_cached(
                    "SELECT log, messages_before FROM run_logs WHERE conversation_id = ?1 AND id = ?2",
                )
                .map_err(StoreError::sqlite("read a run log"))?;
            let mut rows = statement
                .query(params![id.as_str(), log_id])
                .map_err(StoreError::sqlite("read a run log"))?;
            let Some(row) = rows.next().map_err(StoreError::sqlite("read a run log"))? else {
                return Ok(None);
            };
            let packed: Vec<u8> = row.get(0).map_err(StoreError::sqlite("read a run log"))?;
            let before: i64 = row.get(1).map_err(StoreError::sqlite("read a run log"))?;
            let log = unpack(&packed).map_err(|source| StoreError::CorruptRunLog { log_id, source })?;
            Ok(Some((log, before)))
        })
    }
}

/// `log` gzip-compressed (JSON lines of one run repeat themselves a lot: a tenth of the size is usual).
fn pack(log: &str) -> Result<Vec<u8>, serde_json::Error> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
    encoder
        .write_all(log.as_bytes())
        .and_then(|()| encoder.finish())
        .map_err(serde_json::Error::io)
}

fn unpack(packed: &[u8]) -> std::io::Result<String> {
    let mut log = String::new();
    GzDecoder::new(packed).read_to_string(&mut log)?;
    Ok(log)
}
