//! [`Conversations`]: the app's conversations, each saved as it streams. This is what src-tauri holds in its
//! state instead of a bare [`DesktopSession`]: it opens the [`Store`] in the app's data folder, keeps one
//! [`DesktopSession`] per open conversation (each with its own [`ConversationRecorder`]), streams all their
//! envelopes to the windows that subscribed ([`Conversations::subscribe`], see [`LiveStream`]), and lists,
//! searches, renames, deletes, restores and exports conversations.
//!
//! Contracts:
//! - Opening never fails because of the database: a damaged file is moved aside by the store, and a folder that
//!   cannot hold a database falls back to an in-memory store. Either way [`Conversations::storage`] says so in
//!   texts safe to show, and the same texts are sent once as `error` notices (source `persistence`) on the first
//!   session that starts.
//! - Exactly one conversation is active (the one `prompt`, `abort`, `get_state` act on). Switching
//!   ([`Conversations::open_conversation`], [`Conversations::new_conversation`]) never stops a run: a streaming
//!   conversation keeps running in the background and keeps saving. Every envelope carries its conversation's
//!   id, and each conversation numbers its own. Idle background sessions are closed on a switch; they are rebuilt
//!   from the store when opened again.
//! - Every session is made from fresh [`SessionOptions`] of the [`SessionOptionsFactory`] (so a new conversation
//!   picks up changed settings; it is called outside the service's lock and may block briefly). Listing, search,
//!   rename, delete and export work even when no session can be made (no provider configured).
//! - A reopened conversation gets its stored transcript; a message interrupted by a crash comes back as an
//!   aborted assistant message with [`INTERRUPTED_ERROR_MESSAGE`] (see [`is_interrupted_message`]), shown but never
//!   sent to a model as if it were whole.
//! - No lock is held across an `.await`; store calls are short and synchronous (see the `store` module).

mod conversation_model;
mod export_file;
mod inspection;
mod live_stream;
mod run_log;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use pi_agent::AgentMessage;
use serde::Serialize;

pub use export_file::{ExportedFile, export_file_name};
pub use inspection::{ConversationInspection, InspectedRun, RunReplay, summarize_log_lines};
pub use live_stream::{LiveSnapshot, LiveStream, RunPhase, RunSnapshot, RunningTool};
pub use run_log::{LiveRunLog, RecordingSink, log_line};

use crate::language::Language;
use crate::session::{DesktopSession, RunHandle, SessionError, SessionOptions, SessionPrompt};
use crate::settings::ResolvedSettings;
use crate::store::{
    Clock, ConversationId, ConversationRecorder, ConversationSummary, DATABASE_FILE_NAME, DayGroup,
    DayZone, ExportFormat, INTERRUPTED_ERROR_MESSAGE, SearchHit, Store, StoreError, StoreNotice,
    SystemClock, Transcript, group_by_day,
};
use crate::wire::{EnvelopeSink, NoticeSource};

/// The app's identifier (`tauri.conf.json`): its data folder, where the conversation database lives, is named so.
pub const APP_IDENTIFIER: &str = "dev.pi.desktop";

/// The app's data folder (`~/.local/share/dev.pi.desktop` on Linux): the window and `pi-chat` keep their
/// conversations in the same database there.
pub fn default_data_dir() -> Option<PathBuf> {
    dirs::data_dir().map(|dir| dir.join(APP_IDENTIFIER))
}

/// Makes the options of a new session (settings resolved now), or says why none can be made. The options'
/// `messages` and `recorder` are replaced per conversation. Called outside the service's lock; may block briefly.
pub type SessionOptionsFactory =
    Arc<dyn Fn() -> Result<SessionOptions, Box<dyn std::error::Error + Send + Sync>> + Send + Sync>;

/// How to open the service.
pub struct ConversationsOptions {
    /// The app's data folder; the database is `<data_dir>/`[`DATABASE_FILE_NAME`].
    pub data_dir: PathBuf,
    /// Where exports are written (the user's Downloads folder).
    pub export_dir: PathBuf,
    /// Makes each session's options.
    pub session_options: SessionOptionsFactory,
    /// The store's clock (titles, undo window, checkpoint throttling).
    pub clock: Arc<dyn Clock>,
}

impl ConversationsOptions {
    /// Options with the system clock.
    pub fn new(
        data_dir: PathBuf,
        export_dir: PathBuf,
        session_options: SessionOptionsFactory,
    ) -> ConversationsOptions {
        ConversationsOptions {
            data_dir,
            export_dir,
            session_options,
            clock: Arc::new(SystemClock),
        }
    }
}

/// Where the conversations are kept, for the sidebar.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct StorageStatus {
    /// False when the database could not be opened and conversations live only in memory until the app quits.
    pub persistent: bool,
    /// What opening the database had to do (file moved aside, schema upgraded, fallback to memory), safe to show.
    pub notices: Vec<String>,
}

/// An open conversation: what `prompt` and the other chat commands act on.
#[derive(Clone)]
pub struct OpenConversation {
    /// Its id.
    pub id: ConversationId,
    /// Its session.
    pub session: DesktopSession,
}

/// The sidebar's list.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConversationList {
    /// Live conversations grouped by the local day of their last change, newest first.
    pub days: Vec<DayGroup>,
    /// Whether older live conversations were left out (the list asked for was limited).
    pub more: bool,
    /// The active conversation, once one was opened.
    pub active_id: Option<ConversationId>,
    /// Conversations with a run going on now (the active one or in the background).
    pub streaming_ids: Vec<ConversationId>,
    /// Where they are kept.
    pub storage: StorageStatus,
}

/// The result of a soft delete.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DeletedConversation {
    /// The deleted conversation.
    pub conversation_id: ConversationId,
    /// Until when (ms since the epoch) [`Conversations::restore_conversation`] brings it back.
    pub undo_until: i64,
    /// It was the active conversation; the next [`Conversations::active`] opens another one.
    pub was_active: bool,
}

/// Why a conversation call failed. `Display` names ids and paths, never message content.
#[derive(Debug, thiserror::Error)]
pub enum ConversationsError {
    /// The store refused or failed ([`StoreError::kind`] says how).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The conversation's session could not start (the model layer could not be set up).
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The factory could not make session options (for example no provider configured); its error is kept as
    /// it was, so the app can downcast it to its own type.
    #[error(transparent)]
    SessionOptions(Box<dyn std::error::Error + Send + Sync>),
    /// An export could not be written.
    #[error("cannot write the export {path}: {source}")]
    WriteExport {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The app's conversations. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Conversations {
    inner: Arc<ConversationsInner>,
}

struct ConversationsInner {
    store: Store,
    storage: StorageStatus,
    /// Storage notices not yet sent on a session.
    unsent_notices: Mutex<Vec<String>>,
    export_dir: PathBuf,
    session_options: SessionOptionsFactory,
    live: Arc<LiveStream>,
    open: Mutex<OpenSessions>,
    /// The run in progress of each conversation that has a session, as its recording sink keeps it.
    run_logs: Mutex<HashMap<ConversationId, Arc<LiveRunLog>>>,
}

struct OpenSessions {
    active: Option<ConversationId>,
    sessions: HashMap<ConversationId, OpenConversation>,
}

/// Whether a started session becomes the active conversation.
enum Placement {
    /// It is the one the window shows.
    Active,
    /// It answers beside the active one (a quick question from another window).
    Background,
}

/// What to start when no open session can be reused.
enum Planned {
    /// A new, empty conversation.
    New,
    /// A stored conversation with its transcript.
    Stored(ConversationId, Vec<AgentMessage>),
}

impl Conversations {
    /// Opens the store in `options.data_dir`, falling back to an in-memory store (with a notice) when the file
    /// cannot be opened. No session starts until [`Conversations::active`] or a switch asks for one. Fails only
    /// when not even an in-memory database can be made.
    pub fn open(options: ConversationsOptions) -> Result<Conversations, ConversationsError> {
        let path = options.data_dir.join(DATABASE_FILE_NAME);
        let (store, storage) = match Store::open_with_clock(&path, Arc::clone(&options.clock)) {
            Ok(opened) => (
                opened.store,
                StorageStatus {
                    persistent: true,
                    notices: opened.notices.iter().map(store_notice_text).collect(),
                },
            ),
            Err(error) => {
                tracing::warn!(%error, "the conversation database cannot be opened; using memory");
                let store = Store::open_in_memory(Arc::clone(&options.clock))?;
                let notice = format!(
                    "Conversations cannot be saved ({error}). They are kept in memory until Pi Desktop quits; \
                     check that {} is writable and has free space, then restart the app.",
                    options.data_dir.display()
                );
                (
                    store,
                    StorageStatus {
                        persistent: false,
                        notices: vec![notice],
                    },
                )
            }
        };
        Ok(Conversations {
            inner: Arc::new(ConversationsInner {
                store,
                unsent_notices: Mutex::new(storage.notices.clone()),
                storage,
                export_dir: options.export_dir,
                session_options: options.session_options,
                live: Arc::default(),
                open: Mutex::new(OpenSessions {
                    active: None,
                    sessions: HashMap::new(),
                }),
                run_logs: Mutex::default(),
            }),
        })
    }

    /// The store, for callers that need more than this facade.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// Sends every envelope of every conversation from now on to `sink` (replacing an earlier subscription with
    /// the same `key`, such as a reloaded window's), and returns the runs in progress as of the last envelope
    /// sent before.
    pub fn subscribe(&self, key: &str, sink: Arc<dyn EnvelopeSink>) -> LiveSnapshot {
        self.inner.live.subscribe(key, sink)
    }

    /// Where conversations are kept and what opening the database had to do.
    pub fn storage(&self) -> &StorageStatus {
        &self.inner.storage
    }

    /// The active conversation. When none is open yet (start-up, or the active one was deleted), opens the most
    /// recently changed conversation, or starts a new one when there is none.
    pub async fn active(&self) -> Result<OpenConversation, ConversationsError> {
        if let Some(active) = self.lock_open().active_conversation() {
            return Ok(active);
        }
        let planned = match self.inner.store.list_conversations()?.first() {
            Some(latest) => self.planned_stored(&latest.id)?,
            None => Planned::New,
        };
        self.start(planned, Placement::Active, |open| {
            open.active_conversation()
        })
        .await
    }

    /// The active conversation, if one is open; never starts a session.
    pub fn active_id(&self) -> Option<ConversationId> {
        self.lock_open().active.clone()
    }

    /// The active conversation if one is open; never starts a session.
    pub fn active_if_open(&self) -> Option<OpenConversation> {
        self.lock_open().active_conversation()
    }

    /// Conversation `id`'s session if it is open (active or answering in the background); never starts one.
    pub fn open_session(&self, id: &ConversationId) -> Option<DesktopSession> {
        self.lock_open()
            .sessions
            .get(id)
            .map(|conversation| conversation.session.clone())
    }

    /// Makes a new, empty conversation active. The active one keeps running if it streams. When the active
    /// conversation is still empty and idle, it is reused instead of adding another empty one.
    pub async fn new_conversation(&self) -> Result<OpenConversation, ConversationsError> {
        let reusable = |open: &OpenSessions| {
            open.active_conversation().filter(|active| {
                let state = active.session.state_without_versions();
                state.messages.is_empty() && !state.is_streaming
            })
        };
        if let Some(active) = reusable(&self.lock_open()) {
            return Ok(active);
        }
        self.start(Planned::New, Placement::Active, |open| reusable(open))
            .await
    }

    /// Starts a new conversation beside the active one, which stays active, and sends `prompt` in it at once
    /// (a question from the quick-ask window). Its session is kept while it runs, like any background
    /// conversation's; [`Conversations::open_conversation`] makes it active.
    pub async fn ask_in_background(
        &self,
        prompt: SessionPrompt,
    ) -> Result<(OpenConversation, RunHandle), ConversationsError> {
        let conversation = self
            .start(Planned::New, Placement::Background, |_open| None)
            .await?;
        let run = conversation.session.start_prompt(prompt).await?;
        Ok((conversation, run))
    }

    /// Makes `id` the active conversation: its running session if it has one, otherwise a new session over its
    /// stored transcript. Other conversations keep running if they stream.
    pub async fn open_conversation(
        &self,
        id: &ConversationId,
    ) -> Result<OpenConversation, ConversationsError> {
        let already_open = |open: &mut OpenSessions| {
            let conversation = open.sessions.get(id).cloned()?;
            open.activate(id.clone());
            Some(conversation)
        };
        if let Some(conversation) = already_open(&mut self.lock_open()) {
            return Ok(conversation);
        }
        let planned = self.planned_stored(id)?;
        self.start(planned, Placement::Active, |open| already_open(open))
            .await
    }

    /// The sidebar's list: the `limit` most recent live conversations (all without a limit) by day (the
    /// system's time zone), newest first.
    pub fn list_conversations(
        &self,
        limit: Option<usize>,
    ) -> Result<ConversationList, ConversationsError> {
        self.list_conversations_in(DayZone::System, limit)
    }

    /// [`Conversations::list_conversations`] with days in `zone`.
    pub fn list_conversations_in(
        &self,
        zone: DayZone,
        limit: Option<usize>,
    ) -> Result<ConversationList, ConversationsError> {
        let recent = self.inner.store.list_recent_conversations(limit)?;
        let open = self.lock_open();
        let mut streaming_ids: Vec<ConversationId> = open
            .sessions
            .values()
            .filter(|conversation| conversation.session.is_running())
            .map(|conversation| conversation.id.clone())
            .collect();
        streaming_ids.sort();
        Ok(ConversationList {
            days: group_by_day(&recent.conversations, zone),
            more: recent.more,
            active_id: open.active.clone(),
            streaming_ids,
            storage: self.inner.storage.clone(),
        })
    }

    /// Full-text search over all live conversations; a blank query finds nothing.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, ConversationsError> {
        if query.trim().is_empty() {
            return Ok(Vec::new());
        }
        Ok(self.inner.store.search(query, limit)?)
    }

    /// Renames a conversation (trimmed, not blank); returns it as the sidebar lists it.
    pub fn rename_conversation(
        &self,
        id: &ConversationId,
        title: &str,
    ) -> Result<ConversationSummary, ConversationsError> {
        self.inner.store.rename_conversation(id, title)?;
        Ok(self.inner.store.conversation(id)?)
    }

    /// Deletes a conversation softly (restorable until `undo_until`). A run of it is stopped and its session
    /// closed; when it was active, no conversation is active until the next switch or [`Conversations::active`].
    pub fn delete_conversation(
        &self,
        id: &ConversationId,
    ) -> Result<DeletedConversation, ConversationsError> {
        let undo_until = self.inner.store.delete_conversation(id)?;
        let mut open = self.lock_open();
        if let Some(conversation) = open.sessions.remove(id) {
            conversation.session.abort();
        }
        let was_active = open.active.as_ref() == Some(id);
        if was_active {
            open.active = None;
        }
        Ok(DeletedConversation {
            conversation_id: id.clone(),
            undo_until,
            was_active,
        })
    }

    /// Undoes a delete within the undo window; the conversation is listed again (not opened).
    pub fn restore_conversation(&self, id: &ConversationId) -> Result<(), ConversationsError> {
        Ok(self.inner.store.restore_conversation(id)?)
    }

    /// Removes deletions whose undo window has passed; returns how many.
    pub fn purge_expired_deletions(&self) -> Result<usize, ConversationsError> {
        Ok(self.inner.store.purge_expired_deletions()?)
    }

    /// A conversation's stored messages with their state (complete or interrupted).
    pub fn transcript(&self, id: &ConversationId) -> Result<Transcript, ConversationsError> {
        Ok(self.inner.store.load_transcript(id)?)
    }

    /// A conversation as text in `format`, a document's headings in `language`.
    pub fn export_text(
        &self,
        id: &ConversationId,
        format: ExportFormat,
        language: Language,
    ) -> Result<String, ConversationsError> {
        Ok(self.inner.store.export_conversation(id, format, language)?)
    }

    /// Writes a conversation into the export folder (the user's Downloads) as `<title>.<md|jsonl>`, never
    /// overwriting: a taken name gets ` (2)`, ` (3)`, …. A document's headings are in `language` (the window's).
    pub fn export_to_downloads(
        &self,
        id: &ConversationId,
        format: ExportFormat,
        language: Language,
    ) -> Result<ExportedFile, ConversationsError> {
        let conversation = self.inner.store.conversation(id)?;
        let text = self.inner.store.export_conversation(id, format, language)?;
        let file_name = export_file_name(conversation.title.as_deref(), format);
        export_file::write_new_file(&self.inner.export_dir, &file_name, text.as_bytes())
            .map_err(|(path, source)| ConversationsError::WriteExport { path, source })
    }

    /// The folder exports are offered into (the user's Downloads).
    pub fn export_dir(&self) -> &std::path::Path {
        &self.inner.export_dir
    }

    /// The file name an export of conversation `id` in `format` is offered under: `<title>.<md|jsonl>`.
    pub fn export_file_name(
        &self,
        id: &ConversationId,
        format: ExportFormat,
    ) -> Result<String, ConversationsError> {
        let conversation = self.inner.store.conversation(id)?;
        Ok(export_file_name(conversation.title.as_deref(), format))
    }

    /// Writes a conversation to `path`, which the user chose in a save dialog (a file there is replaced: the
    /// dialog asked). A document's headings are in `language`.
    pub fn export_to_path(
        &self,
        id: &ConversationId,
        format: ExportFormat,
        language: Language,
        path: &std::path::Path,
    ) -> Result<ExportedFile, ConversationsError> {
        let text = self.inner.store.export_conversation(id, format, language)?;
        export_file::write_chosen_file(path, text.as_bytes()).map_err(|source| {
            ConversationsError::WriteExport {
                path: path.to_path_buf(),
                source,
            }
        })
    }

    /// New settings for every open session (a run keeps the settings it started with), each on its
    /// conversation's own model while the provider stays (see `conversation_model`). Sessions started later get
    /// theirs from the factory.
    pub fn apply_settings(&self, settings: &ResolvedSettings) -> Result<(), ConversationsError> {
        let sessions: Vec<(ConversationId, DesktopSession)> = self
            .lock_open()
            .sessions
            .iter()
            .map(|(id, conversation)| (id.clone(), conversation.session.clone()))
            .collect();
        for (id, session) in &sessions {
            let own =
                conversation_model::keeping_own_model(&self.inner.store, id, session, settings);
            session.apply_settings(&own)?;
        }
        Ok(())
    }

    /// The run-in-progress log of conversation `id`, when it has had a session.
    fn live_run_log(&self, id: &ConversationId) -> Option<Arc<LiveRunLog>> {
        self.inner
            .run_logs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    fn lock_open(&self) -> std::sync::MutexGuard<'_, OpenSessions> {
        self.inner
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn planned_stored(&self, id: &ConversationId) -> Result<Planned, ConversationsError> {
        let messages = self.inner.store.load_transcript(id)?.agent_messages()?;
        Ok(Planned::Stored(id.clone(), messages))
    }

    /// Starts the planned session and makes it active, unless `already` finds (under the lock) that another
    /// caller got there first; then sends the storage notices not sent yet on the new session.
    async fn start(
        &self,
        planned: Planned,
        placement: Placement,
        already: impl FnOnce(&mut OpenSessions) -> Option<OpenConversation>,
    ) -> Result<OpenConversation, ConversationsError> {
        let mut options =
            (self.inner.session_options)().map_err(ConversationsError::SessionOptions)?;
        let conversation = {
            let mut open = self.lock_open();
            if let Some(conversation) = already(&mut open) {
                return Ok(conversation);
            }
            let (id, messages) = match planned {
                Planned::New => {
                    let summary = self
                        .inner
                        .store
                        .create_conversation(Some(&options.settings.model))?;
                    (summary.id, Vec::new())
                }
                Planned::Stored(id, messages) => {
                    conversation_model::with_stored_model(&self.inner.store, &id, &mut options);
                    (id, messages)
                }
            };
            options.messages = messages;
            options.recorder = Some(Arc::new(Mutex::new(ConversationRecorder::new(
                self.inner.store.clone(),
                id.clone(),
            ))));
            let run_log = Arc::new(LiveRunLog::default());
            let sink = Arc::new(RecordingSink::new(
                self.inner.live.sink_for(id.clone()),
                self.inner.store.clone(),
                id.clone(),
                Arc::clone(&run_log),
            ));
            let session = DesktopSession::start(options, sink)?;
            self.inner
                .run_logs
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(id.clone(), run_log);
            let conversation = OpenConversation {
                id: id.clone(),
                session,
            };
            open.sessions.insert(id.clone(), conversation.clone());
            match placement {
                Placement::Active => open.activate(id),
                Placement::Background => {}
            }
            conversation
        };
        let notices = std::mem::take(
            &mut *self
                .inner
                .unsent_notices
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for notice in notices {
            conversation
                .session
                .notify(NoticeSource::Persistence, notice)
                .await;
        }
        Ok(conversation)
    }
}

impl OpenSessions {
    fn active_conversation(&self) -> Option<OpenConversation> {
        self.sessions.get(self.active.as_ref()?).cloned()
    }

    /// Makes `id` active and closes idle background sessions (they are rebuilt from the store when needed) — but
    /// not one that holds queued messages (held after Stop): they live in its session and must be there when the
    /// user comes back.
    fn activate(&mut self, id: ConversationId) {
        self.sessions.retain(|open_id, conversation| {
            *open_id == id
                || conversation.session.is_running()
                || !conversation.session.queued_messages().is_empty()
        });
        self.active = Some(id);
    }
}

/// True for an assistant message that a crash interrupted (as the store hands it back on reopening).
pub fn is_interrupted_message(message: &AgentMessage) -> bool {
    match message {
        AgentMessage::Assistant(assistant) => {
            assistant.error_message.as_deref() == Some(INTERRUPTED_ERROR_MESSAGE)
        }
        AgentMessage::User(_) | AgentMessage::ToolResult(_) | AgentMessage::Custom(_) => false,
    }
}

fn store_notice_text(notice: &StoreNotice) -> String {
    match notice {
        StoreNotice::CorruptDatabaseMovedAside { moved_to } => format!(
            "The conversation history was damaged and could not be read. It was kept as {} and a new, empty \
             history was started.",
            moved_to.display()
        ),
        StoreNotice::Migrated { from, to, backup } => match backup {
            Some(backup) => format!(
                "The conversation history was upgraded (schema {from} to {to}); the old file is kept at {}.",
                backup.display()
            ),
            None => format!("The conversation history was upgraded (schema {from} to {to})."),
        },
    }
}
