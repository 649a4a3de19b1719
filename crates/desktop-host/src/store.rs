//! Conversations on disk: an embedded SQLite database (WAL) in the app's data folder.
//!
//! [`Store`] is the database handle: conversations (id, title, model, created/updated), their messages as pi JSON
//! in order — a tree of versions and branches of which one path is shown (`branches`) —, full-text search, soft delete with undo, export, and the tools allowed "in this conversation"
//! ([`ConversationGrant`]). [`ConversationRecorder`] is what the host's agent subscriber feeds: it appends each
//! message at `message_end` and checkpoints the streaming assistant message at most once per second (and on
//! demand, for abort and error). [`Transcript`] rebuilds the Agent's messages when a
//! conversation is reopened; a checkpoint that never reached `message_end` (the app died while streaming) comes
//! back marked interrupted and is handed to the Agent as an aborted message, which pi never replays to a model.
//!
//! Invariants:
//! - The app never deletes the database file. A migration first copies it to a backup beside it; a corrupt file
//!   is renamed aside and a fresh database is started ([`StoreNotice`] says so).
//! - Writes only add or finish rows of the conversation being written; a failing write (disk full, read-only
//!   folder, corruption) returns a [`StoreError`] whose [`StoreError::kind`] the host turns into a notice, and the
//!   chat goes on in memory. Error texts name paths and ids, never message content or keys.
//! - All methods are synchronous and short; the connection sits behind a std mutex locked inside each method.
//!   From async code they may be called directly for single messages; bulk work (export of a huge
//!   conversation) belongs in `spawn_blocking`.
//!
//! What the app does with it:
//!
//! ```
//! use std::sync::Arc;
//!
//! use desktop_host::language::Language;
//! use desktop_host::store::{ConversationRecorder, DayZone, ExportFormat, ManualClock, Store, group_by_day};
//! use serde_json::json;
//!
//! // The app opens `<data folder>/conversations.sqlite3` with `Store::open` and shows `opened.notices`.
//! let store = Store::open_in_memory(Arc::new(ManualClock::new(1_796_040_000_000)))?;
//! let conversation = store.create_conversation(Some("gpt-4o-mini"))?;
//!
//! // The agent subscriber: `recorder.on_agent_event(&event)` for every AgentEvent, or by hand:
//! let mut recorder = ConversationRecorder::new(store.clone(), conversation.id.clone());
//! recorder.on_message_end(&json!({"role": "user", "content": "Was liegt in Downloads? 下载里有什么", "timestamp": 1}))?;
//!
//! // The sidebar, search, export; and the Agent's transcript when the conversation is reopened.
//! let days = group_by_day(&store.list_conversations()?, DayZone::System);
//! assert_eq!(days[0].conversations[0].title.as_deref(), Some("Was liegt in Downloads? 下载里有什么"));
//! let hits = store.search("下载", 20)?;
//! assert_eq!(hits[0].snippet.iter().filter(|part| part.highlighted).count(), 1);
//! let markdown = store.export_conversation(&conversation.id, ExportFormat::Markdown, Language::En)?;
//! assert!(markdown.starts_with("# Was liegt in Downloads?"));
//! let messages: Vec<pi_agent::AgentMessage> = store.load_transcript(&conversation.id)?.agent_messages()?;
//! assert_eq!(messages.len(), 1);
//! # Ok::<(), desktop_host::store::StoreError>(())
//! ```

mod approval_grants;
mod branches;
mod clock;
mod conversation_id;
mod database_file;
mod day_groups;
mod error;
mod export;
mod message_text;
mod migrations;
mod recorder;
mod run_logs;
mod search;
mod search_index;
mod short_terms;
mod snippet;
mod store_handle;
mod title;
mod transcript;
mod trigram_fold;

#[cfg(test)]
mod tests;

pub use approval_grants::{BUILT_IN_SERVER, ConversationGrant};
pub use branches::{DeletedMessages, MessageVersion};
pub use clock::{Clock, ManualClock, SystemClock};
pub use conversation_id::ConversationId;
pub use database_file::StoreNotice;
pub use day_groups::{DayGroup, DayZone, group_by_day};
pub use error::{StoreError, StoreErrorKind};
pub use export::ExportFormat;
pub use migrations::SCHEMA_VERSION;
pub use recorder::{
    CHECKPOINT_COST_MULTIPLE, CHECKPOINT_INTERVAL_MS, CheckpointWrite, ConversationRecorder,
};
pub use run_logs::{NewRunLog, RUN_LOG_CAP_BYTES, StoredRun};
pub use search::SearchHit;
pub use snippet::SnippetPart;
pub use store_handle::{
    ConversationSummary, DATABASE_FILE_NAME, OpenedStore, RecentConversations, Store,
    UNDO_WINDOW_MS,
};
pub use title::title_from_text;
pub use transcript::{EntryState, INTERRUPTED_ERROR_MESSAGE, Transcript, TranscriptEntry};
