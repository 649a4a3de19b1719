//! The loop inspector's questions to the conversations service: the runs of a conversation (stored and live),
//! a run's event view, its log for replay, and its export.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::export_file::{ExportedFile, write_new_file};
use super::run_log::{logged_item, restore, summarize};
use super::{Conversations, ConversationsError};
use crate::inspector::{EventRow, LoggedItem, RunSummary, event_rows};
use crate::store::{ConversationId, RUN_LOG_CAP_BYTES};

/// One run of a conversation as the inspector lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InspectedRun {
    /// The stored log's id; `None` for the run in progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub log_id: Option<i64>,
    /// When it started, ms since the epoch.
    pub started_at: i64,
    /// Its log's size as stored (compressed), in bytes (0 for the run in progress).
    pub bytes: i64,
    /// Its log's size as JSON lines, in bytes (0 for the run in progress).
    pub raw_bytes: i64,
    /// The inspector's reading of it.
    pub summary: RunSummary,
}

/// A run to replay: the conversation as it stood before it, and the run's log lines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RunReplay {
    /// The conversation's messages before the run.
    #[ts(type = "Array<unknown>")]
    pub before: Vec<Value>,
    /// The run's log, `{"at": ms, "envelope": …}` each.
    #[ts(type = "Array<{ at: number, envelope: unknown }>")]
    pub lines: Vec<Value>,
}

/// Every run of a conversation the inspector can show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConversationInspection {
    /// Stored runs, oldest first, then the run in progress.
    pub runs: Vec<InspectedRun>,
    /// The most log bytes a conversation keeps (older runs' logs make room).
    pub cap_bytes: i64,
}

impl Conversations {
    /// The runs of conversation `id`: the stored ones (after a restart too) and the one in progress. Blocks
    /// while a finished run's log is being written (call it from a blocking thread).
    pub fn inspect(
        &self,
        id: &ConversationId,
    ) -> Result<ConversationInspection, ConversationsError> {
        let live = self.live_run_log(id);
        if let Some(live) = &live {
            live.wait_kept();
        }
        let mut runs: Vec<InspectedRun> = self
            .inner
            .store
            .stored_runs(id)?
            .into_iter()
            .filter_map(|stored| {
                let summary = serde_json::from_str(&stored.summary).ok()?;
                Some(InspectedRun {
                    log_id: Some(stored.log_id),
                    started_at: stored.started_at,
                    bytes: stored.bytes,
                    raw_bytes: stored.raw_bytes,
                    summary,
                })
            })
            .collect();
        if let Some((started_at, summary)) =
            live.and_then(|log| Some((log.started_at()?, log.summary()?)))
        {
            runs.push(InspectedRun {
                log_id: None,
                started_at,
                bytes: 0,
                raw_bytes: 0,
                summary,
            });
        }
        Ok(ConversationInspection {
            runs,
            cap_bytes: RUN_LOG_CAP_BYTES,
        })
    }

    /// The log lines of run `log_id` of conversation `id` (`None`: the run in progress), each
    /// `{"at": ms, "envelope": …}`, with the number of messages before the run; `None` when there is no such run.
    fn log_lines(
        &self,
        id: &ConversationId,
        log_id: Option<i64>,
    ) -> Result<Option<(Vec<Value>, usize)>, ConversationsError> {
        match log_id {
            None => Ok(self.live_run_log(id).and_then(|log| log.lines())),
            Some(log_id) => {
                if let Some(live) = self.live_run_log(id) {
                    live.wait_kept();
                }
                Ok(self.inner.store.run_log(id, log_id)?.map(|(text, before)| {
                    let lines = text
                        .lines()
                        .filter_map(|line| serde_json::from_str(line).ok())
                        .collect();
                    (lines, usize::try_from(before).unwrap_or(0))
                }))
            }
        }
    }

    /// Run `log_id` of conversation `id` to replay: the stored messages before it and its log; `None` when
    /// there is no such run.
    pub fn run_replay(
        &self,
        id: &ConversationId,
        log_id: i64,
    ) -> Result<Option<RunReplay>, ConversationsError> {
        let Some((mut lines, before)) = self.log_lines(id, Some(log_id))? else {
            return Ok(None);
        };
        for line in &mut lines {
            restore(line, id);
        }
        let transcript = self.inner.store.load_transcript(id)?.agent_messages()?;
        let before = transcript
            .iter()
            .take(before)
            .filter_map(|message| serde_json::to_value(message).ok())
            .collect();
        Ok(Some(RunReplay { before, lines }))
    }

    /// The event view of run `log_id` of conversation `id` (`None`: the run in progress).
    pub fn run_events(
        &self,
        id: &ConversationId,
        log_id: Option<i64>,
    ) -> Result<Option<Vec<EventRow>>, ConversationsError> {
        Ok(self.log_lines(id, log_id)?.map(|(lines, _)| {
            let log: Vec<LoggedItem<'_>> = lines.iter().filter_map(logged_item).collect();
            event_rows(&log)
        }))
    }

    /// Writes the log of run `log_id` of conversation `id` into the export folder (the user's Downloads) as JSON
    /// lines, never overwriting; `None` when there is no such run.
    pub fn export_run_log(
        &self,
        id: &ConversationId,
        log_id: i64,
    ) -> Result<Option<ExportedFile>, ConversationsError> {
        let Some((mut lines, _)) = self.log_lines(id, Some(log_id))? else {
            return Ok(None);
        };
        for line in &mut lines {
            restore(line, id);
        }
        let text = lines
            .iter()
            .map(|line| line.to_string() + "\n")
            .collect::<String>();
        let file_name = format!("pi-run-{log_id}.jsonl");
        write_new_file(&self.inner.export_dir, &file_name, text.as_bytes())
            .map(Some)
            .map_err(|(path, source)| ConversationsError::WriteExport { path, source })
    }
}

/// The runs a log's lines show (for `pi-chat --inspect` and tests).
pub fn summarize_log_lines(lines: &[Value]) -> Vec<RunSummary> {
    summarize(lines)
}
