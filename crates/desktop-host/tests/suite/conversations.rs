//! The conversations service on a real SQLite file: switching while a run streams, reopening after a restart
//! (with an interrupted answer), a damaged database, a folder that cannot hold one, delete/undo and export.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use desktop_host::conversations::{
    Conversations, ConversationsError, ConversationsOptions, OpenConversation, RunPhase,
    SessionOptionsFactory, is_interrupted_message,
};
use desktop_host::language::Language;
use desktop_host::session::{SessionOptions, SessionPrompt};
use desktop_host::store::{
    CHECKPOINT_INTERVAL_MS, Clock, ConversationId, DATABASE_FILE_NAME, DayZone, EntryState,
    ExportFormat, ManualClock, UNDO_WINDOW_MS,
};
use pi_agent::{StreamFn, StreamFnError, stream_fn};
use pi_ai::{
    AssistantBlock, AssistantMessage, AssistantMessageEvent, DoneReason, StopReason,
    assistant_message_channel,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use crate::support::envelopes::{EnvelopeLog, assistant_text, events, is_idle};
use crate::support::home::{TestHome, test_home};
use crate::support::settings::scripted_settings;

/// 2026-11-30T12:00:00Z.
const START_MS: i64 = 1_796_040_000_000;

/// A model that answers `answer to <last user text>` in two deltas. When the prompt contains "slow", it stops
/// after the text block ended and finishes only when `gate` hands out a permit (a run that is still streaming).
fn echo_model(gate: Arc<Semaphore>) -> StreamFn {
    stream_fn(move |model, context, _options| {
        let gate = Arc::clone(&gate);
        async move {
            let last_user = serde_json::to_value(&context.messages)
                .unwrap()
                .as_array()
                .unwrap()
                .iter()
                .rev()
                .find(|message| message["role"] == "user")
                .map(|message| message["content"][0]["text"].as_str().unwrap().to_owned())
                .unwrap();
            let (sender, stream) = assistant_message_channel();
            tokio::spawn(async move {
                let mut message = AssistantMessage::empty(&model);
                sender.push(AssistantMessageEvent::Start {
                    partial: message.clone().into(),
                });
                message.content.push(Arc::new(AssistantBlock::text("")));
                sender.push(AssistantMessageEvent::TextStart {
                    content_index: 0,
                    partial: message.clone().into(),
                });
                let mut text = String::new();
                for delta in ["answer to ".to_owned(), last_user.clone()] {
                    text.push_str(&delta);
                    message.content[0] = Arc::new(AssistantBlock::text(text.clone()));
                    sender.push(AssistantMessageEvent::TextDelta {
                        content_index: 0,
                        delta,
                        partial: message.clone().into(),
                    });
                }
                sender.push(AssistantMessageEvent::TextEnd {
                    content_index: 0,
                    content: text,
                    partial: message.clone().into(),
                });
                if last_user.contains("slow") {
                    gate.acquire().await.unwrap().forget();
                }
                message.stop_reason = StopReason::Stop;
                sender.push(AssistantMessageEvent::Done {
                    reason: DoneReason::Stop,
                    message: message.into(),
                });
            });
            Ok::<_, StreamFnError>(stream)
        }
    })
}

struct Fixture {
    home: TestHome,
    gate: Arc<Semaphore>,
    clock: ManualClock,
    stepping: bool,
}

struct SteppingClock(AtomicI64);

impl Clock for SteppingClock {
    fn now_ms(&self) -> i64 {
        self.0.fetch_add(CHECKPOINT_INTERVAL_MS, Ordering::SeqCst)
    }
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            home: test_home(),
            gate: Arc::new(Semaphore::new(0)),
            clock: ManualClock::new(START_MS),
            stepping: false,
        }
    }

    fn data_dir(&self) -> std::path::PathBuf {
        self.home.home().join("data")
    }

    /// A clock that moves a checkpoint interval on every reading, so every streaming update is checkpointed.
    fn with_stepping_clock(mut self) -> Fixture {
        self.stepping = true;
        self
    }

    fn session_options(&self) -> SessionOptionsFactory {
        let settings = scripted_settings();
        let paths = self.home.paths.clone();
        let gate = Arc::clone(&self.gate);
        Arc::new(move || {
            let mut session = SessionOptions::new(settings.clone(), paths.clone());
            session.stream_fn = Some(echo_model(Arc::clone(&gate)));
            session.coalesce_window = Duration::ZERO;
            Ok(session)
        })
    }

    fn options(&self, data_dir: &Path) -> ConversationsOptions {
        let mut options = ConversationsOptions::new(
            data_dir.to_path_buf(),
            self.home.downloads(),
            self.session_options(),
        );
        options.clock = if self.stepping {
            Arc::new(SteppingClock(AtomicI64::new(START_MS)))
        } else {
            Arc::new(self.clock.clone())
        };
        options
    }

    fn open(&self) -> Conversations {
        Conversations::open(self.options(&self.data_dir())).unwrap()
    }
}

/// Starts reading a conversation's envelopes from the service's stream.
fn log_of(conversations: &Conversations, conversation: &OpenConversation) -> EnvelopeLog {
    EnvelopeLog::of_conversation(conversations, &conversation.id).0
}

fn message_texts(messages: &[pi_agent::AgentMessage]) -> Vec<(String, String)> {
    messages
        .iter()
        .map(|message| {
            let json = serde_json::to_value(message).unwrap();
            let text = match json["role"].as_str().unwrap() {
                "user" => json["content"][0]["text"].as_str().unwrap().to_owned(),
                _ => assistant_text(&json),
            };
            (json["role"].as_str().unwrap().to_owned(), text)
        })
        .collect()
}

fn pair(role: &str, text: &str) -> (String, String) {
    (role.to_owned(), text.to_owned())
}

fn texts_of(envelopes: &[Value]) -> String {
    events(envelopes)
        .iter()
        .map(|event| event.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn switching_while_a_run_streams_keeps_it_running_and_its_events_apart() {
    let fixture = Fixture::new();
    let conversations = fixture.open();

    let alpha = conversations.active().await.unwrap();
    let mut alpha_log = log_of(&conversations, &alpha);
    let alpha_run = tokio::spawn({
        let session = alpha.session.clone();
        async move { session.prompt("slow alpha").await }
    });
    alpha_log
        .wait_for(|envelope| envelope["event"]["assistantMessageEvent"]["delta"] == "slow alpha")
        .await;

    // Switch to a new conversation while alpha streams, and finish a run there.
    let beta = conversations.new_conversation().await.unwrap();
    assert_ne!(beta.id, alpha.id);
    let mut beta_log = log_of(&conversations, &beta);
    beta.session.prompt("beta").await.unwrap();
    beta_log.wait_for_idle().await;

    let list = conversations
        .list_conversations_in(DayZone::FixedOffset { seconds_east: 0 }, None)
        .unwrap();
    assert_eq!(list.active_id, Some(beta.id.clone()));
    assert_eq!(list.streaming_ids, vec![alpha.id.clone()]);
    assert!(alpha.session.get_state().is_streaming);

    // Alpha finishes in the background; it was never stopped by the switch.
    fixture.gate.add_permits(1);
    alpha_run.await.unwrap().unwrap();
    alpha_log.wait_for_idle().await;

    let alpha_events = texts_of(&alpha_log.seen);
    let beta_events = texts_of(&beta_log.seen);
    assert!(alpha_events.contains("slow alpha") && !alpha_events.contains("beta"));
    assert!(beta_events.contains("answer to beta") && !beta_events.contains("alpha"));
    assert_eq!(
        alpha_log
            .seen
            .iter()
            .filter(|envelope| is_idle(envelope))
            .count(),
        1
    );
    assert_eq!(
        beta_log
            .seen
            .iter()
            .filter(|envelope| is_idle(envelope))
            .count(),
        1
    );

    // Each conversation saved only its own messages.
    let alpha_stored = conversations
        .transcript(&alpha.id)
        .unwrap()
        .agent_messages()
        .unwrap();
    let beta_stored = conversations
        .transcript(&beta.id)
        .unwrap()
        .agent_messages()
        .unwrap();
    assert_eq!(
        message_texts(&alpha_stored),
        vec![
            pair("user", "slow alpha"),
            pair("assistant", "answer to slow alpha")
        ]
    );
    assert_eq!(
        message_texts(&beta_stored),
        vec![pair("user", "beta"), pair("assistant", "answer to beta")]
    );

    // Switching back to alpha gives its (still open) session, with the whole run.
    let reopened = conversations.open_conversation(&alpha.id).await.unwrap();
    assert_eq!(reopened.id, alpha.id);
    assert_eq!(
        message_texts(&reopened.session.get_state().messages),
        message_texts(&alpha_stored)
    );
    assert!(
        reopened.session.is_same_session(&alpha.session),
        "no second session for an open conversation"
    );

    let list = conversations.list_conversations(None).unwrap();
    let mut listed: Vec<ConversationId> = list
        .days
        .iter()
        .flat_map(|day| {
            day.conversations
                .iter()
                .map(|conversation| conversation.id.clone())
        })
        .collect();
    listed.sort();
    let mut both = vec![alpha.id.clone(), beta.id.clone()];
    both.sort();
    assert_eq!(listed, both);
    assert!(list.streaming_ids.is_empty());
}

#[tokio::test]
async fn a_window_that_subscribes_mid_run_gets_the_run_so_far_then_exactly_the_envelopes_after_it()
{
    let fixture = Fixture::new();
    let conversations = fixture.open();
    let earlier = conversations.active().await.unwrap();
    earlier.session.prompt("first question").await.unwrap();
    let mut first_window = log_of(&conversations, &earlier);
    let run = earlier.session.start_prompt("slow second").await.unwrap();
    let streamed = first_window
        .wait_for(|envelope| envelope["event"]["assistantMessageEvent"]["type"] == "text_end")
        .await;

    // The "reloaded" window joins while the answer waits for its end.
    let (mut second_window, snapshot) = EnvelopeLog::of_conversation(&conversations, &earlier.id);

    assert_eq!(snapshot.runs.len(), 1, "one run in progress");
    let joined = &snapshot.runs[0];
    assert_eq!(joined.conversation_id, earlier.id);
    assert_eq!(joined.run_id, run.run_id());
    assert_eq!(joined.phase, RunPhase::Running);
    assert_eq!(joined.turn_count, 1);
    assert_eq!(
        Some(joined.last_seq),
        streamed["seq"].as_u64(),
        "the snapshot ends at the last envelope sent"
    );
    assert_eq!(
        message_texts(&joined.messages),
        vec![
            pair("user", "first question"),
            pair("assistant", "answer to first question"),
            pair("user", "slow second"),
        ]
    );
    let streaming = serde_json::to_value(joined.streaming.as_ref().unwrap()).unwrap();
    assert_eq!(assistant_text(&streaming), "answer to slow second");

    fixture.gate.add_permits(1);
    run.finished().await.unwrap();
    second_window.wait_for_idle().await;
    let first_seq = second_window.seen[0]["seq"].as_u64().unwrap();
    assert_eq!(
        first_seq,
        joined.last_seq + 1,
        "live envelopes continue right after it"
    );
    assert!(
        second_window
            .seen
            .iter()
            .all(|envelope| envelope["runId"] == json!(run_id_number(joined))),
        "{:?}",
        second_window.seen
    );
    let (_, after) = EnvelopeLog::of_conversation(&conversations, &earlier.id);
    assert!(after.runs.is_empty(), "nothing runs after idle");
}

fn run_id_number(run: &desktop_host::conversations::RunSnapshot) -> u64 {
    serde_json::to_value(run.run_id).unwrap().as_u64().unwrap()
}

#[tokio::test]
async fn after_a_restart_the_transcript_is_back_and_a_cut_off_answer_is_marked_interrupted() {
    let fixture = Fixture::new().with_stepping_clock();
    let first_run = fixture.open();
    let conversation = first_run.active().await.unwrap();
    let mut log = log_of(&first_run, &conversation);
    conversation.session.prompt("hello").await.unwrap();
    log.wait_for_idle().await;
    let _streaming = tokio::spawn({
        let session = conversation.session.clone();
        async move { session.prompt("slow question").await }
    });
    // The listener saves the checkpoint of each update before it forwards the next event: once `text_end` is
    // seen, the whole text was checkpointed (and `text_end` writes the same text).
    log.wait_for(|envelope| envelope["event"]["assistantMessageEvent"]["type"] == "text_end")
        .await;

    // A second process on the same folder, as after the first was killed mid-answer.
    let second_run = fixture.open();
    assert!(second_run.storage().persistent);
    let reopened = second_run.active().await.unwrap();
    assert_eq!(reopened.id, conversation.id);
    let messages = reopened.session.get_state().messages;
    assert_eq!(
        message_texts(&messages),
        vec![
            pair("user", "hello"),
            pair("assistant", "answer to hello"),
            pair("user", "slow question"),
            pair("assistant", "answer to slow question"),
        ]
    );
    assert_eq!(
        messages
            .iter()
            .map(is_interrupted_message)
            .collect::<Vec<_>>(),
        vec![false, false, false, true]
    );
    let states: Vec<EntryState> = second_run
        .transcript(&conversation.id)
        .unwrap()
        .entries
        .iter()
        .map(|entry| entry.state)
        .collect();
    assert_eq!(
        states,
        vec![
            EntryState::Complete,
            EntryState::Complete,
            EntryState::Complete,
            EntryState::Interrupted
        ]
    );
    let title = second_run.list_conversations(None).unwrap().days[0].conversations[0]
        .title
        .clone();
    assert_eq!(title.as_deref(), Some("hello"));

    // The reopened conversation goes on; the interrupted answer is never sent back as if it were whole.
    let mut reopened_log = log_of(&second_run, &reopened);
    reopened.session.prompt("again").await.unwrap();
    reopened_log.wait_for_idle().await;
    assert_eq!(
        message_texts(&reopened.session.get_state().messages)[4..],
        [pair("user", "again"), pair("assistant", "answer to again")]
    );
    fixture.gate.add_permits(1);
}

#[tokio::test]
async fn a_damaged_database_is_moved_aside_and_the_first_session_says_so() {
    let fixture = Fixture::new();
    std::fs::create_dir_all(fixture.data_dir()).unwrap();
    let damaged = vec![b'x'; 4096];
    std::fs::write(fixture.data_dir().join(DATABASE_FILE_NAME), &damaged).unwrap();

    let conversations = fixture.open();
    let storage = conversations.storage().clone();
    assert!(storage.persistent);
    assert_eq!(storage.notices.len(), 1);
    assert!(
        storage.notices[0].contains("damaged"),
        "{}",
        storage.notices[0]
    );
    let kept = std::fs::read_dir(fixture.data_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .find(|name| name.starts_with("conversations.sqlite3.corrupt-"))
        .unwrap();
    assert_eq!(
        std::fs::read(fixture.data_dir().join(kept)).unwrap(),
        damaged
    );

    let active = conversations.active().await.unwrap();
    let mut log = log_of(&conversations, &active);
    let notice = log.wait_for(|envelope| envelope["kind"] == "notice").await;
    assert_eq!(notice["notice"]["type"], "error");
    assert_eq!(notice["notice"]["source"], "persistence");
    assert_eq!(notice["notice"]["message"], storage.notices[0].as_str());

    // The fresh database works and the notice is sent only once.
    active.session.prompt("fresh start").await.unwrap();
    log.wait_for_idle().await;
    let second = conversations.new_conversation().await.unwrap();
    let mut second_log = log_of(&conversations, &second);
    second.session.prompt("second").await.unwrap();
    second_log.wait_for_idle().await;
    assert!(
        second_log
            .seen
            .iter()
            .all(|envelope| envelope["notice"]["type"] != "error")
    );
    assert_eq!(
        conversations.search("fresh", 10).unwrap().len(),
        2,
        "the question and its echo"
    );
}

#[tokio::test]
async fn a_folder_that_cannot_hold_a_database_falls_back_to_memory_and_the_chat_works() {
    let fixture = Fixture::new();
    let not_a_folder = fixture.home.home().join("data-is-a-file");
    std::fs::write(&not_a_folder, b"a file where the data folder should be").unwrap();

    let conversations = Conversations::open(fixture.options(&not_a_folder)).unwrap();
    let storage = conversations.storage().clone();
    assert!(!storage.persistent);
    assert_eq!(storage.notices.len(), 1);
    assert!(
        storage.notices[0].contains("kept in memory"),
        "{}",
        storage.notices[0]
    );
    assert_eq!(
        conversations.list_conversations(None).unwrap().storage,
        storage
    );

    let active = conversations.active().await.unwrap();
    let mut log = log_of(&conversations, &active);
    active.session.prompt("still here").await.unwrap();
    log.wait_for_idle().await;
    assert!(
        log.seen
            .iter()
            .any(|envelope| envelope["notice"]["source"] == "persistence")
    );
    assert_eq!(
        conversations.search("still", 10).unwrap().len(),
        2,
        "the question and its echo"
    );
}

#[tokio::test]
async fn a_new_conversation_reuses_an_empty_one_and_search_renaming_and_export_work() {
    let fixture = Fixture::new();
    let conversations = fixture.open();
    let first = conversations.active().await.unwrap();
    assert_eq!(
        conversations.new_conversation().await.unwrap().id,
        first.id,
        "still empty"
    );
    let mut log = log_of(&conversations, &first);
    first.session.prompt("下载 report").await.unwrap();
    log.wait_for_idle().await;

    let hits = conversations.search("report", 10).unwrap();
    assert_eq!(hits.len(), 2, "the question and the answer");
    assert!(hits.iter().all(|hit| {
        hit.snippet
            .iter()
            .any(|part| part.highlighted && part.text == "report")
    }));
    assert_eq!(conversations.search("   ", 10).unwrap(), vec![]);

    let renamed = conversations
        .rename_conversation(&first.id, "  Quarterly: report?  ")
        .unwrap();
    assert_eq!(renamed.title.as_deref(), Some("Quarterly: report?"));

    let exported = conversations
        .export_to_downloads(&first.id, ExportFormat::Markdown, Language::En)
        .unwrap();
    assert_eq!(exported.file_name, "Quarterly_ report_.md");
    assert_eq!(
        exported.path,
        fixture.home.downloads().join("Quarterly_ report_.md")
    );
    let markdown = std::fs::read_to_string(&exported.path).unwrap();
    assert!(markdown.starts_with("# Quarterly: report?"), "{markdown}");
    assert!(markdown.contains("answer to 下载 report"));
    let again = conversations
        .export_to_downloads(&first.id, ExportFormat::Markdown, Language::En)
        .unwrap();
    assert_eq!(again.file_name, "Quarterly_ report_ (2).md");
    assert_eq!(
        conversations
            .export_file_name(&first.id, ExportFormat::JsonLines)
            .unwrap(),
        "Quarterly_ report_.jsonl"
    );
    assert_eq!(conversations.export_dir(), fixture.home.downloads());
    let chosen = fixture.home.downloads().join("Quarterly_ report_.md");
    let replaced = conversations
        .export_to_path(&first.id, ExportFormat::Markdown, Language::En, &chosen)
        .unwrap();
    assert_eq!(replaced.file_name, "Quarterly_ report_.md");
    assert_eq!(std::fs::read_to_string(&chosen).unwrap(), markdown);
    let lines = conversations
        .export_text(&first.id, ExportFormat::JsonLines, Language::En)
        .unwrap();
    assert_eq!(
        lines.lines().count(),
        3,
        "the conversation line and two messages"
    );
}

#[tokio::test]
async fn a_question_asked_in_the_background_answers_in_a_new_conversation_and_leaves_the_active_one()
 {
    let fixture = Fixture::new();
    let conversations = fixture.open();
    let active = conversations.active().await.unwrap();

    let (asked, run) = conversations
        .ask_in_background(SessionPrompt::from("a quick question"))
        .await
        .unwrap();
    run.finished().await.unwrap();

    assert_ne!(asked.id, active.id);
    assert_eq!(conversations.active_id(), Some(active.id.clone()));
    let texts = message_texts(&asked.session.get_state().messages);
    assert_eq!(texts.first(), Some(&pair("user", "a quick question")));
    assert_eq!(
        texts.last().map(|(role, _)| role.as_str()),
        Some("assistant")
    );
    let opened = conversations.open_conversation(&asked.id).await.unwrap();
    assert_eq!(message_texts(&opened.session.get_state().messages), texts);
    assert_eq!(conversations.active_id(), Some(asked.id));
}

#[tokio::test]
async fn deleting_closes_the_conversation_and_undo_brings_it_back_within_the_window() {
    let fixture = Fixture::new();
    let conversations = fixture.open();
    let kept = conversations.active().await.unwrap();
    let mut kept_log = log_of(&conversations, &kept);
    kept.session.prompt("keep me").await.unwrap();
    kept_log.wait_for_idle().await;
    fixture.clock.advance(1_000);
    let doomed = conversations.new_conversation().await.unwrap();
    let mut doomed_log = log_of(&conversations, &doomed);
    doomed.session.prompt("delete me").await.unwrap();
    doomed_log.wait_for_idle().await;

    let deleted = conversations.delete_conversation(&doomed.id).unwrap();
    assert!(deleted.was_active);
    assert_eq!(deleted.undo_until, START_MS + 1_000 + UNDO_WINDOW_MS);
    assert_eq!(conversations.active_id(), None);
    assert!(conversations.search("delete", 10).unwrap().is_empty());
    // With the active one gone, the most recent remaining conversation becomes active.
    assert_eq!(conversations.active().await.unwrap().id, kept.id);

    conversations.restore_conversation(&doomed.id).unwrap();
    let reopened = conversations.open_conversation(&doomed.id).await.unwrap();
    assert_eq!(
        message_texts(&reopened.session.get_state().messages),
        vec![
            pair("user", "delete me"),
            pair("assistant", "answer to delete me")
        ]
    );

    let again = conversations.delete_conversation(&doomed.id).unwrap();
    fixture.clock.set(again.undo_until);
    assert_eq!(conversations.purge_expired_deletions().unwrap(), 1);
    assert!(conversations.restore_conversation(&doomed.id).is_err());
    assert!(conversations.open_conversation(&doomed.id).await.is_err());
}

#[tokio::test]
async fn without_usable_settings_the_list_still_works_and_opening_says_why() {
    let fixture = Fixture::new();
    let conversations = fixture.open();
    let first = conversations.active().await.unwrap();
    let mut log = log_of(&conversations, &first);
    first
        .session
        .prompt("before the settings broke")
        .await
        .unwrap();
    log.wait_for_idle().await;
    drop(conversations);

    let mut options = fixture.options(&fixture.data_dir());
    options.session_options = Arc::new(|| Err("no provider is configured: set PI_API".into()));
    let conversations = Conversations::open(options).unwrap();
    let error = conversations.active().await.err().unwrap();
    assert!(matches!(error, ConversationsError::SessionOptions(_)));
    assert_eq!(error.to_string(), "no provider is configured: set PI_API");
    assert_eq!(conversations.active_id(), None);
    let list = conversations.list_conversations(None).unwrap();
    assert_eq!(list.days[0].conversations[0].id, first.id);
    assert_eq!(conversations.search("broke", 10).unwrap().len(), 2);
    conversations
        .rename_conversation(&first.id, "kept")
        .unwrap();
}

/// Tauri runs async commands on a multi-threaded runtime: the service's futures must be `Send`.
#[test]
fn the_services_futures_can_move_between_threads() {
    fn assert_send<T: Send>(_: &T) {}
    let fixture = Fixture::new();
    let conversations = fixture.open();
    let id = ConversationId::from("some-id");
    assert_send(&conversations.active());
    assert_send(&conversations.new_conversation());
    assert_send(&conversations.open_conversation(&id));
}

/// Set (to the data folder) in the child process of the test below.
const KILLED_CHILD_VARIABLE: &str = "PI_DESKTOP_TEST_KILLED_CONVERSATIONS_DIR";

/// The crash, one level below the window: a child process (this test binary again, filtered to this test)
/// runs the service, finishes one answer, starts a second one and is killed with SIGKILL while it streams. The
/// next start finds the conversation with everything before intact and the partial answer marked interrupted.
#[cfg(unix)]
#[test]
fn a_killed_app_comes_back_with_the_partial_answer_marked_interrupted() {
    const TEST_NAME: &str =
        "suite::conversations::a_killed_app_comes_back_with_the_partial_answer_marked_interrupted";
    let runtime = tokio::runtime::Runtime::new().unwrap();
    if let Some(data_dir) = std::env::var_os(KILLED_CHILD_VARIABLE) {
        runtime.block_on(async {
            let fixture = Fixture::new().with_stepping_clock();
            let conversations = Conversations::open(fixture.options(Path::new(&data_dir))).unwrap();
            let conversation = conversations.active().await.unwrap();
            let mut log = log_of(&conversations, &conversation);
            conversation.session.prompt("hello").await.unwrap();
            log.wait_for_idle().await;
            let _streaming = tokio::spawn({
                let session = conversation.session.clone();
                async move { session.prompt("slow question").await }
            });
            log.wait_for(|envelope| {
                envelope["event"]["assistantMessageEvent"]["type"] == "text_end"
            })
            .await;
            println!("conversation-id: {}", conversation.id);
            // SIGKILL while the answer streams: no destructor, no close, no final save.
            let _ = std::process::Command::new("kill")
                .args(["-9", &std::process::id().to_string()])
                .status();
            std::process::abort();
        });
    }
    let fixture = Fixture::new();
    // The child's temporary home lives inside ours, so it goes away with ours although the child never cleans up.
    let child_tmp = fixture.home.home().join("child-tmp");
    std::fs::create_dir_all(&child_tmp).unwrap();
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST_NAME, "--nocapture", "--test-threads=1"])
        .env(KILLED_CHILD_VARIABLE, fixture.data_dir())
        .env("TMPDIR", &child_tmp)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !output.status.success(),
        "the child was meant to be killed: {stdout}"
    );
    let id = stdout
        .lines()
        .find_map(|line| {
            line.split_once("conversation-id: ")
                .map(|(_, id)| id.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("the child did not get to the kill: {stdout}"));

    runtime.block_on(async {
        let conversations = fixture.open();
        assert_eq!(conversations.storage().notices, Vec::<String>::new());
        let reopened = conversations.active().await.unwrap();
        assert_eq!(reopened.id.as_str(), id);
        let messages = reopened.session.get_state().messages;
        assert_eq!(
            message_texts(&messages),
            vec![
                pair("user", "hello"),
                pair("assistant", "answer to hello"),
                pair("user", "slow question"),
                pair("assistant", "answer to slow question"),
            ]
        );
        assert_eq!(
            messages
                .iter()
                .map(is_interrupted_message)
                .collect::<Vec<_>>(),
            vec![false, false, false, true]
        );
    });
    assert_eq!(
        std::fs::read_dir(&child_tmp).unwrap().count(),
        1,
        "the child's home was made in ours"
    );
}

#[tokio::test]
async fn a_message_held_after_stop_is_still_there_after_switching_away_and_back() {
    let fixture = Fixture::new();
    let conversations = fixture.open();
    let first = conversations.active().await.unwrap();
    let mut log = log_of(&conversations, &first);
    first.session.prompt("hello").await.unwrap();
    log.wait_for_idle().await;
    let run = first.session.start_prompt("slow question").await.unwrap();
    log.wait_for(|envelope| envelope["event"]["assistantMessageEvent"]["type"] == "text_end")
        .await;
    let kept = first.session.follow_up("and then this").await;
    first.session.abort();
    fixture.gate.add_permits(1);
    run.finished().await.unwrap();
    log.wait_for_idle().await;
    assert_eq!(first.session.queued_messages().len(), 1, "held after Stop");

    // Away to a new conversation (idle sessions close on a switch) and back.
    let other = conversations.new_conversation().await.unwrap();
    assert_ne!(other.id, first.id);
    let back = conversations.open_conversation(&first.id).await.unwrap();

    let held: Vec<(u64, String)> = back
        .session
        .queued_messages()
        .iter()
        .map(|message| (message.id.0, message.text.clone()))
        .collect();
    assert_eq!(held, vec![(kept.id.0, "and then this".to_owned())]);
}
