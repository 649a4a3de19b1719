//! The session facade: envelopes out of a real Agent, replay, busy refusal, abort, coalescing, persistence,
//! prompts with images; steering and follow-ups in `steering`.

/// Steering and follow-up messages through the real loop: delivery, cancelling, Stop, the queue modes.
mod steering;

use std::sync::Arc;
use std::time::Duration;

use desktop_host::session::{
    DesktopSession, ImageContent, MAX_IMAGE_BYTES, PromptImageError, SessionError, SessionOptions,
    SessionPrompt,
};
use desktop_host::wire::{COALESCE_WINDOW, NoticeSource};
use pi_agent::{StreamFn, StreamFnError, stream_fn};
use pi_ai::{
    AssistantBlock, AssistantMessage, AssistantMessageEvent, DoneReason, ErrorReason, StopReason,
    assistant_message_channel,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::envelopes::{EnvelopeLog, assistant_text, events, replay};
use crate::support::home::test_home;
use crate::support::settings::scripted_settings;

/// A model that streams `deltas` as one text block, all at once.
fn streaming_text(deltas: Vec<String>) -> StreamFn {
    stream_fn(move |model, _context, _options| {
        let deltas = deltas.clone();
        async move {
            let (sender, stream) = assistant_message_channel();
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
            for delta in deltas {
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
            message.stop_reason = StopReason::Stop;
            sender.push(AssistantMessageEvent::Done {
                reason: DoneReason::Stop,
                message: message.into(),
            });
            Ok::<_, StreamFnError>(stream)
        }
    })
}

/// A model that starts a response and waits until the request is cancelled.
fn waiting_until_cancelled() -> StreamFn {
    stream_fn(|model, _context, options| async move {
        let (sender, stream) = assistant_message_channel();
        let message = AssistantMessage::empty(&model);
        sender.push(AssistantMessageEvent::Start {
            partial: message.clone().into(),
        });
        let signal = options.base.signal.clone();
        tokio::spawn(async move {
            if let Some(signal) = signal {
                signal.cancelled().await;
            }
            let mut failed = message;
            failed.stop_reason = StopReason::Aborted;
            failed.error_message = Some("Request was aborted".to_owned());
            sender.push(AssistantMessageEvent::Error {
                reason: ErrorReason::Aborted,
                error: failed.into(),
            });
        });
        Ok::<_, StreamFnError>(stream)
    })
}

fn start(options: SessionOptions) -> (DesktopSession, EnvelopeLog) {
    let (session, envelopes) = DesktopSession::start_with_channel(options).unwrap();
    (session, EnvelopeLog::start(envelopes))
}

fn agent_messages(session: &DesktopSession) -> Vec<Value> {
    session
        .get_state()
        .messages
        .iter()
        .map(|message| serde_json::to_value(message).unwrap())
        .collect()
}

#[tokio::test]
async fn replaying_the_envelopes_rebuilds_exactly_the_agents_messages() {
    let home = test_home();
    let (session, mut log) = start(SessionOptions::new(scripted_settings(), home.paths.clone()));
    session
        .prompt("Which PDF files are in my downloads?")
        .await
        .unwrap();
    log.wait_for_idle().await;

    let replayed = replay(&log.seen);
    assert_eq!(replayed.messages, agent_messages(&session));
    assert_eq!(
        replayed.messages.len(),
        4,
        "user, tool call, tool result, answer"
    );
    let events = events(&log.seen);
    let tool_end = events
        .iter()
        .find(|event| event["type"] == "tool_execution_end")
        .unwrap();
    assert_eq!(tool_end["toolName"], "list_download_files");
    assert_eq!(tool_end["isError"], false);
    let listing: Value =
        serde_json::from_str(tool_end["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    let listed: Vec<&str> = listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(listed, vec!["report.pdf", "发票 2024.PDF"]);
    assert!(assistant_text(&replayed.messages[3]).contains("report.pdf"));
    // message_update never carries the snapshots on the wire.
    assert!(
        events
            .iter()
            .filter(|event| event["type"] == "message_update")
            .all(|event| event.get("message").is_none()
                && event["assistantMessageEvent"].get("partial").is_none())
    );
    // The run ends with the settled state, then idle.
    let notices: Vec<&Value> = replayed.notices.iter().collect();
    assert_eq!(
        notices.first().map(|notice| notice["isStreaming"].clone()),
        Some(json!(true))
    );
    assert_eq!(
        notices[notices.len() - 2],
        &json!({"type": "state", "isStreaming": false, "pendingToolCalls": []})
    );
    assert_eq!(notices[notices.len() - 1], &json!({"type": "idle"}));
    // A state notice reported the running tool call.
    assert!(notices.iter().any(|notice| {
        notice["pendingToolCalls"]
            .as_array()
            .is_some_and(|calls| calls.len() == 1)
    }));
}

#[tokio::test]
async fn a_prompt_while_streaming_is_refused_with_the_books_message_and_abort_ends_the_run() {
    let home = test_home();
    let mut options = SessionOptions::new(scripted_settings(), home.paths.clone());
    options.stream_fn = Some(waiting_until_cancelled());
    let (session, mut log) = start(options);
    let running = tokio::spawn({
        let session = session.clone();
        async move { session.prompt("first").await }
    });
    log.wait_for(|envelope| {
        envelope["event"]["type"] == "message_start"
            && envelope["event"]["message"]["role"] == "assistant"
    })
    .await;

    let refused = session.prompt("second").await.unwrap_err();
    assert!(matches!(refused, SessionError::Busy(_)));
    assert_eq!(
        refused.to_string(),
        "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion."
    );
    assert!(session.get_state().is_streaming);

    session.abort();
    running.await.unwrap().unwrap();
    log.wait_for_idle().await;
    let state = session.get_state();
    assert!(!state.is_streaming);
    assert_eq!(state.error_message.as_deref(), Some("Request was aborted"));
    let replayed = replay(&log.seen);
    assert_eq!(replayed.messages, agent_messages(&session));
    assert_eq!(
        replayed.messages.len(),
        2,
        "only the first prompt and its aborted answer"
    );
    assert_eq!(replayed.messages[1]["stopReason"], "aborted");
}

#[tokio::test]
async fn retry_after_a_stopped_answer_asks_the_model_again_from_the_user_message() {
    let home = test_home();
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let waiting = waiting_until_cancelled();
    let answering = streaming_text(vec!["second ".to_owned(), "try".to_owned()]);
    let mut options = SessionOptions::new(scripted_settings(), home.paths.clone());
    options.stream_fn = Some(stream_fn({
        let calls = Arc::clone(&calls);
        move |model, context, options| {
            let first = calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0;
            let inner = if first {
                waiting.clone()
            } else {
                answering.clone()
            };
            inner(model, context, options)
        }
    }));
    let (session, mut log) = start(options);
    let running = tokio::spawn({
        let session = session.clone();
        async move { session.prompt("hello").await }
    });
    log.wait_for(|envelope| {
        envelope["event"]["type"] == "message_start"
            && envelope["event"]["message"]["role"] == "assistant"
    })
    .await;
    session.abort();
    running.await.unwrap().unwrap();
    log.wait_for_idle().await;

    session.continue_run().await.unwrap();
    let messages = agent_messages(&session);
    let texts: Vec<String> = messages.iter().map(assistant_text).collect();
    assert_eq!(texts, vec!["hello", "second try"]);
    assert_eq!(messages[1]["stopReason"], "stop");
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2);
}

#[tokio::test(start_paused = true)]
async fn text_deltas_are_coalesced_per_frame_and_still_rebuild_the_answer() {
    let home = test_home();
    let deltas: Vec<String> = (0..50).map(|idx| format!("w{idx} ")).collect();
    let mut options = SessionOptions::new(scripted_settings(), home.paths.clone());
    options.stream_fn = Some(streaming_text(deltas.clone()));
    let (session, mut log) = start(options);
    session.prompt("talk").await.unwrap();
    log.wait_for_idle().await;

    let delta_envelopes = events(&log.seen)
        .into_iter()
        .filter(|event| event["assistantMessageEvent"]["type"] == "text_delta")
        .count();
    // Paused time does not advance while the deltas arrive: the first goes out at once, the rest fall into one
    // frame after it.
    assert_eq!(delta_envelopes, 2);
    let replayed = replay(&log.seen);
    assert_eq!(assistant_text(&replayed.messages[1]), deltas.concat());
    assert_eq!(replayed.messages, agent_messages(&session));
    assert_eq!(COALESCE_WINDOW, Duration::from_millis(16));
}

#[tokio::test]
async fn without_coalescing_every_delta_travels_alone() {
    let home = test_home();
    let deltas: Vec<String> = (0..20).map(|idx| format!("{idx},")).collect();
    let mut options = SessionOptions::new(scripted_settings(), home.paths.clone());
    options.stream_fn = Some(streaming_text(deltas));
    options.coalesce_window = Duration::ZERO;
    options.envelope_capacity = 1;
    let (session, mut log) = start(options);
    session.prompt("talk").await.unwrap();
    log.wait_for_idle().await;
    let delta_envelopes = events(&log.seen)
        .into_iter()
        .filter(|event| event["assistantMessageEvent"]["type"] == "text_delta")
        .count();
    assert_eq!(delta_envelopes, 20);
    assert_eq!(replay(&log.seen).messages, agent_messages(&session));
}

#[tokio::test]
async fn a_failing_save_becomes_a_notice_not_a_failed_run() {
    use desktop_host::store::{ConversationId, ConversationRecorder, Store, SystemClock};

    let home = test_home();
    // A recorder for a conversation the store does not have: every save of it fails.
    let store = Store::open_in_memory(Arc::new(SystemClock)).unwrap();
    let recorder = ConversationRecorder::new(store, ConversationId::from("no-such-conversation"));
    let mut options = SessionOptions::new(scripted_settings(), home.paths.clone());
    options.recorder = Some(Arc::new(std::sync::Mutex::new(recorder)));
    let (session, mut log) = start(options);
    session.prompt("hello").await.unwrap();
    log.wait_for_idle().await;
    let replayed = replay(&log.seen);
    let errors: Vec<&Value> = replayed
        .notices
        .iter()
        .filter(|notice| notice["type"] == "error")
        .collect();
    assert!(!errors.is_empty(), "{:?}", replayed.notices);
    assert!(
        errors
            .iter()
            .all(|notice| notice["source"] == "persistence" && notice["message"].is_string()),
        "{errors:?}"
    );
    assert_eq!(
        assistant_text(replayed.messages.last().unwrap()),
        "(scripted) You said: hello",
        "the answer is whole although it could not be saved"
    );
    assert_eq!(session.get_state().error_message, None);
    session
        .notify(NoticeSource::Settings, "settings.json is not valid")
        .await;
    let notice = log
        .wait_for(|envelope| envelope["notice"]["source"] == "settings")
        .await;
    assert_eq!(notice["notice"]["message"], "settings.json is not valid");
}

#[tokio::test]
async fn follow_ups_queued_before_a_prompt_run_after_it() {
    let home = test_home();
    let (session, mut log) = start(SessionOptions::new(scripted_settings(), home.paths.clone()));
    session.follow_up("and one more thing").await;
    session.prompt("hello").await.unwrap();
    log.wait_for_idle().await;
    let texts: Vec<String> = agent_messages(&session)
        .iter()
        .map(assistant_text)
        .collect();
    assert_eq!(
        texts,
        vec![
            "hello",
            "(scripted) You said: hello",
            "and one more thing",
            "(scripted) You said: and one more thing"
        ]
    );
    let refusal = session.continue_run().await.unwrap_err();
    assert!(
        matches!(refusal, SessionError::NothingToContinue(_)) && refusal.refused_before_running(),
        "{refusal:?}"
    );
}

fn assert_send_sync<T: Send + Sync + 'static>() {}

fn assert_send<T: Send>(_value: &T) {}

#[tokio::test]
async fn the_session_and_its_futures_can_live_in_tauri_state_and_async_commands() {
    assert_send_sync::<DesktopSession>();
    let home = test_home();
    let (session, _log) = start(SessionOptions::new(scripted_settings(), home.paths));
    let prompt = session.prompt("hello");
    assert_send(&prompt);
    let continue_run = session.continue_run();
    assert_send(&continue_run);
    drop((prompt, continue_run));
    assert!(!session.get_state().is_streaming);
}

#[tokio::test]
async fn new_settings_apply_to_the_next_run_and_tool_errors_follow_the_language() {
    let home = test_home();
    let (session, mut log) = start(SessionOptions::new(scripted_settings(), home.paths.clone()));
    let mut settings = scripted_settings();
    settings.model = "scripted-2".to_owned();
    settings.language = desktop_host::language::Language::Zh;
    session.apply_settings(&settings).unwrap();
    assert_eq!(session.get_state().model.id, "scripted-2");

    std::fs::rename(home.downloads(), home.home().join("moved-away")).unwrap();
    session.prompt("pdf?").await.unwrap();
    log.wait_for_idle().await;
    let events = events(&log.seen);
    let tool_end = events
        .iter()
        .find(|event| event["type"] == "tool_execution_end")
        .unwrap();
    assert_eq!(tool_end["isError"], true);
    assert_eq!(
        tool_end["result"]["content"][0]["text"],
        "无法查询下载目录：目录暂时不可访问。"
    );
    let captured = session.diagnostics().recent();
    assert_eq!(captured.len(), 1);
    assert!(
        captured[0]
            .detail
            .contains(home.downloads().to_str().unwrap()),
        "{captured:?}"
    );
    let answer = replay(&log.seen).messages.last().cloned().unwrap();
    assert_eq!(answer["model"], "scripted-2");
}

#[tokio::test]
async fn a_recorder_saves_the_conversation_so_it_reopens_as_the_agent_held_it() {
    use desktop_host::store::{ConversationRecorder, Store, SystemClock};

    let home = test_home();
    let store = Store::open_in_memory(Arc::new(SystemClock)).unwrap();
    let conversation = store.create_conversation(Some("scripted")).unwrap();
    let recorder = ConversationRecorder::new(store.clone(), conversation.id.clone());
    let mut options = SessionOptions::new(scripted_settings(), home.paths.clone());
    options.recorder = Some(Arc::new(std::sync::Mutex::new(recorder)));
    let (session, mut log) = start(options);
    session
        .prompt("Which PDF files are in my downloads?")
        .await
        .unwrap();
    log.wait_for_idle().await;

    let saved = store
        .load_transcript(&conversation.id)
        .unwrap()
        .agent_messages()
        .unwrap();
    let saved: Vec<Value> = saved
        .iter()
        .map(|message| serde_json::to_value(message).unwrap())
        .collect();
    assert_eq!(saved, agent_messages(&session));
    assert!(
        replay(&log.seen)
            .notices
            .iter()
            .all(|notice| notice["type"] != "error")
    );

    // A reopened session continues from the saved transcript.
    let reopened = store
        .load_transcript(&conversation.id)
        .unwrap()
        .agent_messages()
        .unwrap();
    let mut options = SessionOptions::new(scripted_settings(), home.paths.clone());
    options.messages = reopened;
    let (again, mut again_log) = start(options);
    again.prompt("hello").await.unwrap();
    again_log.wait_for_idle().await;
    assert_eq!(again.get_state().messages.len(), 6);
}

/// A model that records the context of each request (as JSON) and answers "seen".
fn recording_contexts(seen: Arc<std::sync::Mutex<Vec<Value>>>) -> StreamFn {
    let answer = streaming_text(vec!["seen".to_owned()]);
    stream_fn(move |model, context, options| {
        seen.lock()
            .unwrap()
            .push(serde_json::to_value(&context).unwrap());
        answer(model, context, options)
    })
}

fn image(data: &str, mime_type: &str) -> ImageContent {
    ImageContent {
        data: data.to_owned(),
        mime_type: mime_type.to_owned(),
    }
}

#[tokio::test]
async fn a_prompt_with_a_pdf_and_an_image_sends_the_text_then_the_files_block_then_the_image() {
    let home = test_home();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut options = SessionOptions::new(scripted_settings(), home.paths.clone());
    options.stream_fn = Some(recording_contexts(Arc::clone(&seen)));
    let (session, mut log) = start(options);
    let pdf = crate::support::pdf::pdf_with_pages(&[&["Invoice 2026-117", "Total 42 EUR"]]);
    let file = desktop_host::attachment::read_attachment("invoice.pdf", pdf).unwrap();
    assert_eq!(file.page_count, Some(1));
    let files = desktop_host::attachment::prompt_files(vec![(file.name, file.text)]).unwrap();

    let prompt =
        SessionPrompt::with_images("what is due?", vec![image("iVBORw0KGgo=", "image/png")])
            .unwrap()
            .with_files(files);
    session.prompt(prompt).await.unwrap();
    log.wait_for_idle().await;

    let contexts = seen.lock().unwrap().clone();
    let content = contexts[0]["messages"][0]["content"].clone();
    assert_eq!(
        content[0],
        json!({ "type": "text", "text": "what is due?" })
    );
    let block = content[1]["text"].as_str().unwrap();
    assert_eq!(
        desktop_host::attachment::parse_file_block(block).map(|(name, _)| name),
        Some("invoice.pdf".to_owned())
    );
    assert!(block.contains("Invoice 2026-117"), "{block}");
    assert_eq!(
        content[2],
        json!({ "type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png" })
    );
    assert_eq!(agent_messages(&session)[0]["content"], content);
}

#[tokio::test]
async fn a_prompt_of_images_alone_sends_no_empty_text_block() {
    let home = test_home();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut options = SessionOptions::new(scripted_settings(), home.paths.clone());
    options.stream_fn = Some(recording_contexts(Arc::clone(&seen)));
    let (session, mut log) = start(options);

    let prompt = SessionPrompt::with_images("  ", vec![image("R0lGODlh", "image/gif")]).unwrap();
    session.prompt(prompt).await.unwrap();
    log.wait_for_idle().await;

    let contexts = seen.lock().unwrap().clone();
    assert_eq!(
        contexts[0]["messages"][0]["content"],
        json!([{ "type": "image", "data": "R0lGODlh", "mimeType": "image/gif" }])
    );
}

#[test]
fn a_scanned_pdf_is_refused_with_a_reason_that_says_it_has_no_text() {
    let pdf = crate::support::pdf::pdf_with_pages(&[&[], &[]]);

    let error = desktop_host::attachment::read_attachment("scan.pdf", pdf).unwrap_err();

    assert_eq!(
        error.to_string(),
        "scan.pdf has no text layer (it may be a scanned document), so there is no text to attach"
    );
}

#[tokio::test]
async fn a_prompt_with_images_reaches_the_model_as_image_blocks_after_the_text() {
    let home = test_home();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut options = SessionOptions::new(scripted_settings(), home.paths.clone());
    options.stream_fn = Some(recording_contexts(Arc::clone(&seen)));
    let (session, mut log) = start(options);

    let prompt = SessionPrompt::with_images(
        "what is in these?",
        vec![
            image("iVBORw0KGgo=", "image/png"),
            image("R0lGODlh", "image/gif"),
        ],
    )
    .unwrap();
    session.prompt(prompt).await.unwrap();
    log.wait_for_idle().await;

    let contexts = seen.lock().unwrap().clone();
    assert_eq!(contexts.len(), 1, "one request");
    assert_eq!(
        contexts[0]["messages"][0]["content"],
        json!([
            { "type": "text", "text": "what is in these?" },
            { "type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png" },
            { "type": "image", "data": "R0lGODlh", "mimeType": "image/gif" },
        ])
    );
    let messages = agent_messages(&session);
    assert_eq!(messages.len(), 2, "the user message and the answer");
    assert_eq!(
        messages[0]["content"],
        contexts[0]["messages"][0]["content"]
    );
}

#[test]
fn images_of_an_unsupported_type_are_refused_with_a_message_naming_the_types() {
    let error = SessionPrompt::with_images(
        "look",
        vec![image("aGk=", "image/png"), image("aGk=", "image/tiff")],
    )
    .unwrap_err();
    assert_eq!(
        error,
        PromptImageError::UnsupportedType {
            index: 2,
            mime_type: "image/tiff".to_owned()
        }
    );
    assert_eq!(
        error.to_string(),
        "Image 2 has the type \"image/tiff\"; attach PNG, JPEG, GIF or WebP images."
    );
}

#[test]
fn image_data_that_is_not_base64_is_refused() {
    for data in ["not base64!", "a", "aGk==", ""] {
        let error =
            SessionPrompt::with_images("look", vec![image(data, "image/jpeg")]).unwrap_err();
        assert_eq!(
            error,
            PromptImageError::InvalidBase64 { index: 1 },
            "{data:?}"
        );
    }
}

#[test]
fn an_image_over_ten_megabytes_decoded_is_refused_and_one_at_the_limit_is_accepted() {
    // 4 base64 characters decode to 3 bytes.
    let at_limit = "A".repeat(MAX_IMAGE_BYTES / 3 * 4) + "AA==";
    assert!(SessionPrompt::with_images("look", vec![image(&at_limit, "image/webp")]).is_ok());
    let over = "A".repeat(MAX_IMAGE_BYTES / 3 * 4 + 4);
    let error = SessionPrompt::with_images("look", vec![image(&over, "image/webp")]).unwrap_err();
    assert_eq!(
        error,
        PromptImageError::TooLarge {
            index: 1,
            bytes: MAX_IMAGE_BYTES + 2
        }
    );
}

#[test]
fn more_than_eight_images_are_refused() {
    let nine = vec![image("aGk=", "image/png"); 9];
    let error = SessionPrompt::with_images("look", nine).unwrap_err();
    assert_eq!(error, PromptImageError::TooMany(9));
    assert!(SessionPrompt::with_images("look", vec![image("aGk=", "image/png"); 8]).is_ok());
}
