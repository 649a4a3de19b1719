//! The loop inspector through the conversations service on a real SQLite file: a run that lists Downloads and
//! answers is read as two turns ending `done`, its log is kept and comes back after a restart (with the messages
//! before it, for replay), its events fold the streamed updates, its export is JSON lines in Downloads, and a
//! stopped run reads `aborted`.

use std::sync::Arc;
use std::time::Duration;

use desktop_host::conversations::{Conversations, ConversationsOptions, SessionOptionsFactory};
use desktop_host::inspector::RunExit;
use desktop_host::session::SessionOptions;
use pi_ai::ToolCall;
use pi_ai::scripted::{ScriptedProvider, text_message, tool_call_message};
use serde_json::json;

use crate::support::envelopes::EnvelopeLog;
use crate::support::home::{TestHome, test_home, write_file};
use crate::support::settings::scripted_settings;

/// Conversations in `home`'s data folder whose model lists Downloads once, then answers; later prompts get
/// plain answers.
fn conversations(home: &TestHome) -> Conversations {
    let settings = scripted_settings();
    let paths = home.paths.clone();
    let factory: SessionOptionsFactory = Arc::new(move || {
        let model = ScriptedProvider::new([
            tool_call_message([ToolCall::new("call_1", "list_download_files", json!({}))]),
            text_message("One PDF: report.pdf"),
            text_message("second answer"),
        ]);
        let mut options = SessionOptions::new(settings.clone(), paths.clone());
        options.stream_fn = Some(model.stream_fn());
        options.coalesce_window = Duration::ZERO;
        Ok(options)
    });
    Conversations::open(ConversationsOptions::new(
        home.home().join("data"),
        home.downloads(),
        factory,
    ))
    .unwrap()
}

/// `inspect`, from a blocking thread as the app calls it.
async fn inspect(
    conversations: &Conversations,
    id: &desktop_host::store::ConversationId,
) -> desktop_host::conversations::ConversationInspection {
    let (conversations, id) = (conversations.clone(), id.clone());
    tokio::task::spawn_blocking(move || conversations.inspect(&id).unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_run_is_read_as_its_turns_kept_and_back_after_a_restart() {
    let home = test_home();
    write_file(&home.downloads(), "report.pdf", b"%PDF-1.4", 1_700_000_000);
    let service = conversations(&home);
    let conversation = service.active().await.unwrap();
    let (mut log, _) = EnvelopeLog::of_conversation(&service, &conversation.id);

    conversation
        .session
        .prompt("Which PDFs are in my Downloads?")
        .await
        .unwrap();
    log.wait_for_idle().await;
    let inspection = inspect(&service, &conversation.id).await;

    assert_eq!(inspection.runs.len(), 1, "{inspection:?}");
    let run = &inspection.runs[0];
    assert!(run.log_id.is_some(), "the finished run is stored");
    assert_eq!(run.summary.exit, Some(RunExit::Done));
    assert_eq!(run.summary.turns.len(), 2);
    let first = &run.summary.turns[0];
    assert_eq!(first.injected[0].text, "Which PDFs are in my Downloads?");
    assert_eq!(first.tool_calls[0].name, "list_download_files");
    assert_eq!(first.tool_calls[0].is_error, Some(false));
    let sent = first
        .request
        .as_ref()
        .expect("what the first turn sent is recorded");
    assert_eq!(sent.message_count, 1);
    assert!(
        sent.tools.iter().any(|tool| tool == "list_download_files"),
        "{sent:?}"
    );
    assert!(sent.context_chars > 0);
    assert!(
        sent.system_prompt
            .as_deref()
            .is_some_and(|prompt| !prompt.is_empty()),
        "the system prompt that went: {sent:?}"
    );
    assert_eq!(
        run.summary.turns[1]
            .request
            .as_ref()
            .map(|request| request.message_count),
        Some(3),
        "the prompt, the tool call and its result"
    );
    assert_eq!(run.summary.turns[1].stop_reason.as_deref(), Some("stop"));
    assert!(run.summary.agent_end_ms <= run.summary.idle_ms);
    let log_id = run.log_id.unwrap();

    let events = service
        .run_events(&conversation.id, Some(log_id))
        .unwrap()
        .unwrap();
    assert_eq!(
        events.first().map(|row| row.kind.as_str()),
        Some("agent_start")
    );
    assert_eq!(events.last().map(|row| row.kind.as_str()), Some("idle"));
    let exported = service
        .export_run_log(&conversation.id, log_id)
        .unwrap()
        .unwrap();
    let text = std::fs::read_to_string(&exported.path).unwrap();
    assert!(exported.path.starts_with(home.downloads()));
    assert!(
        text.lines()
            .all(|line| serde_json::from_str::<serde_json::Value>(line).is_ok())
    );
    assert_eq!(
        text.lines().count(),
        log.seen.len(),
        "one line per envelope the window got"
    );

    // A second run: the replay of it starts from the two messages of the first run's prompt and answer…
    conversation.session.prompt("And again?").await.unwrap();
    log.wait_for_idle().await;
    // A reader waits for the log being kept (it is written on a blocking thread after the idle).
    assert_eq!(inspect(&service, &conversation.id).await.runs.len(), 2);
    drop(conversation);
    drop(service);

    // …and after a restart both runs are still there.
    let again = conversations(&home);
    let reopened = again.active().await.unwrap();
    let inspection = inspect(&again, &reopened.id).await;
    assert_eq!(inspection.runs.len(), 2);
    let second = inspection.runs[1].log_id.unwrap();
    let replay = again.run_replay(&reopened.id, second).unwrap().unwrap();
    let roles: Vec<&str> = replay
        .before
        .iter()
        .map(|message| message["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "toolResult", "assistant"]);
    assert_eq!(
        replay.lines.first().unwrap()["envelope"]["event"]["type"],
        "agent_start"
    );
    assert_eq!(
        replay.lines.last().unwrap()["envelope"]["notice"]["type"],
        "idle"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_run_reads_aborted_and_the_run_in_progress_has_no_exit() {
    let home = test_home();
    let settings = scripted_settings();
    let paths = home.paths.clone();
    let gate = Arc::new(tokio::sync::Notify::new());
    let held = Arc::clone(&gate);
    // A model that starts its answer and then waits for Stop.
    let factory: SessionOptionsFactory = Arc::new(move || {
        let mut options = SessionOptions::new(settings.clone(), paths.clone());
        let held = Arc::clone(&held);
        options.stream_fn = Some(pi_agent::stream_fn(move |model, _context, options| {
            let held = Arc::clone(&held);
            async move {
                let (sender, stream) = pi_ai::assistant_message_channel();
                tokio::spawn(async move {
                    let mut message = pi_ai::AssistantMessage::empty(&model);
                    sender.push(pi_ai::AssistantMessageEvent::Start {
                        partial: message.clone().into(),
                    });
                    held.notify_one();
                    if let Some(signal) = options.base.signal {
                        signal.cancelled().await;
                    }
                    message.stop_reason = pi_ai::StopReason::Aborted;
                    message.error_message = Some("Request was aborted".to_owned());
                    sender.push(pi_ai::AssistantMessageEvent::Error {
                        reason: pi_ai::ErrorReason::Aborted,
                        error: message.into(),
                    });
                });
                Ok::<_, pi_agent::StreamFnError>(stream)
            }
        }));
        Ok(options)
    });
    let service = Conversations::open(ConversationsOptions::new(
        home.home().join("data"),
        home.downloads(),
        factory,
    ))
    .unwrap();
    let conversation = service.active().await.unwrap();
    let (mut log, _) = EnvelopeLog::of_conversation(&service, &conversation.id);

    let run = conversation.session.start_prompt("wait").await.unwrap();
    gate.notified().await;
    // The recording sink passes each envelope on to the windows after keeping it: once the window has the
    // answer's start, the live log has the run.
    log.wait_for(|envelope| {
        envelope["event"]["type"] == "message_start"
            && envelope["event"]["message"]["role"] == "assistant"
    })
    .await;
    let live = inspect(&service, &conversation.id).await;
    assert_eq!(live.runs.len(), 1);
    assert_eq!(
        live.runs[0].log_id, None,
        "the run in progress is not stored yet"
    );
    assert_eq!(live.runs[0].summary.exit, None);
    conversation.session.abort();
    run.finished().await.unwrap();
    log.wait_for_idle().await;

    let stopped = inspect(&service, &conversation.id).await;
    assert_eq!(stopped.runs.len(), 1);
    assert_eq!(stopped.runs[0].summary.exit, Some(RunExit::Aborted));
}
