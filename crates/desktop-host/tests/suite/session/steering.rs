//! Steering and follow-ups through the real loop: what reaches the model's next request, where the queued
//! message lands in the transcript, the queue notices the window follows, cancelling, Stop handing the queue back,
//! and the two queue modes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use desktop_host::approval::ApprovalDecision;
use desktop_host::session::{
    DesktopSession, QueueError, QueueKind, QueueMode, QueuedMessage, QueuedSend, QueuedStatus,
    SessionOptions,
};
use desktop_host::settings::ResolvedSettings;
use pi_agent::{StreamFn, StreamFnError, stream_fn};
use pi_ai::scripted::{ScriptedProvider, tool_call_message};
use pi_ai::{
    AssistantBlock, AssistantMessage, AssistantMessageEvent, DoneReason, ErrorReason, StopReason,
    ToolCall, assistant_message_channel,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::support::envelopes::{EnvelopeLog, assistant_text, events};
use crate::support::home::{TestHome, test_home};
use crate::support::settings::scripted_settings;

/// The contexts of the model requests, as JSON, in order.
type Requests = Arc<Mutex<Vec<Value>>>;

/// A model that answers the n-th request with the n-th of `turns` (the last one repeats) and records each request.
fn in_turns(turns: Vec<StreamFn>, requests: Requests) -> StreamFn {
    let count = Arc::new(AtomicUsize::new(0));
    stream_fn(move |model, context, options| {
        requests
            .lock()
            .unwrap()
            .push(serde_json::to_value(&context).unwrap());
        let index = count.fetch_add(1, Ordering::SeqCst).min(turns.len() - 1);
        turns[index](model, context, options)
    })
}

/// An answer that starts at once and ends with `text` only once `release` is notified (or `aborted` on Stop).
fn answer_when_released(text: &'static str, release: Arc<Notify>) -> StreamFn {
    stream_fn(move |model, _context, options| {
        let release = Arc::clone(&release);
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
            let signal = options.base.signal.clone();
            tokio::spawn(async move {
                let cancelled = async {
                    match signal {
                        Some(signal) => signal.cancelled().await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    () = release.notified() => {
                        message.content[0] = Arc::new(AssistantBlock::text(text));
                        sender.push(AssistantMessageEvent::TextDelta {
                            content_index: 0,
                            delta: text.to_owned(),
                            partial: message.clone().into(),
                        });
                        sender.push(AssistantMessageEvent::TextEnd {
                            content_index: 0,
                            content: text.to_owned(),
                            partial: message.clone().into(),
                        });
                        message.stop_reason = StopReason::Stop;
                        sender.push(AssistantMessageEvent::Done {
                            reason: DoneReason::Stop,
                            message: message.into(),
                        });
                    }
                    () = cancelled => {
                        message.stop_reason = StopReason::Aborted;
                        message.error_message = Some("Request was aborted".to_owned());
                        sender.push(AssistantMessageEvent::Error {
                            reason: ErrorReason::Aborted,
                            error: message.into(),
                        });
                    }
                }
            });
            Ok::<_, StreamFnError>(stream)
        }
    })
}

/// An answer of `text`, streamed at once (every time it is asked).
fn answer(text: &'static str) -> StreamFn {
    stream_fn(move |model, context, options| {
        answer_when_released(text, released())(model, context, options)
    })
}

/// A notify whose first wait returns at once.
fn released() -> Arc<Notify> {
    let release = Arc::new(Notify::new());
    release.notify_one();
    release
}

/// A turn that calls the built-in `list_download_files`.
fn list_downloads() -> StreamFn {
    ScriptedProvider::new([tool_call_message([ToolCall::new(
        "call_list",
        "list_download_files",
        json!({}),
    )])])
    .stream_fn()
}

struct Steered {
    session: DesktopSession,
    log: EnvelopeLog,
    requests: Requests,
    _home: TestHome,
}

/// A session over `turns` with `settings` (the scripted ones when `None`).
fn session_with(turns: Vec<StreamFn>, settings: Option<ResolvedSettings>) -> Steered {
    let home = test_home();
    let requests = Requests::default();
    let mut options = SessionOptions::new(
        settings.unwrap_or_else(scripted_settings),
        home.paths.clone(),
    );
    options.stream_fn = Some(in_turns(turns, Arc::clone(&requests)));
    let (session, envelopes) = DesktopSession::start_with_channel(options).unwrap();
    Steered {
        session,
        log: EnvelopeLog::start(envelopes),
        requests,
        _home: home,
    }
}

/// Built-in tool calls ask first, so a test can act while the call waits.
fn asking_settings() -> ResolvedSettings {
    let mut settings = scripted_settings();
    settings.ask_before_built_in_tools = true;
    settings
}

/// `(role, text)` of every message of request `index`.
fn request_messages(requests: &Requests, index: usize) -> Vec<(String, String)> {
    let requests = requests.lock().unwrap();
    requests[index]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| {
            let role = message["role"].as_str().unwrap().to_owned();
            let text = match role.as_str() {
                "toolResult" => "(tool result)".to_owned(),
                _ => text_of(message),
            };
            (role, text)
        })
        .collect()
}

/// The text of a message in pi's JSON (a string content, or its text blocks).
fn text_of(message: &Value) -> String {
    match message["content"].as_str() {
        Some(text) => text.to_owned(),
        None => assistant_text(message),
    }
}

fn said(role: &str, text: &str) -> (String, String) {
    (role.to_owned(), text.to_owned())
}

fn is_assistant_start(envelope: &Value) -> bool {
    envelope["event"]["type"] == "message_start"
        && envelope["event"]["message"]["role"] == "assistant"
}

fn is_notice(envelope: &Value, kind: &str) -> bool {
    envelope["kind"] == "notice" && envelope["notice"]["type"] == kind
}

/// The queue notices among `envelopes`, each as `(type, ids)`.
fn queue_notices(envelopes: &[Value]) -> Vec<(String, Vec<u64>)> {
    envelopes
        .iter()
        .filter(|envelope| envelope["kind"] == "notice")
        .map(|envelope| &envelope["notice"])
        .filter_map(|notice| {
            let kind = notice["type"].as_str()?;
            let ids = match kind {
                "message_queued" => vec![notice["message"]["id"].as_u64()?],
                "queued_message_consumed" | "queued_message_cancelled" => {
                    vec![notice["id"].as_u64()?]
                }
                "queued_messages_held" => notice["ids"]
                    .as_array()?
                    .iter()
                    .filter_map(Value::as_u64)
                    .collect(),
                _ => return None,
            };
            Some((kind.to_owned(), ids))
        })
        .collect()
}

fn notice(kind: &str, ids: &[u64]) -> (String, Vec<u64>) {
    (kind.to_owned(), ids.to_vec())
}

/// Queues `text` and waits until the window would see its chip.
async fn queue(steered: &mut Steered, kind: QueueKind, text: &str) -> QueuedMessage {
    let queued = match kind {
        QueueKind::Steer => steered.session.steer(text).await,
        QueueKind::FollowUp => steered.session.follow_up(text).await,
    };
    let id = queued.id.0;
    steered
        .log
        .wait_for(|envelope| {
            is_notice(envelope, "message_queued") && envelope["notice"]["message"]["id"] == id
        })
        .await;
    queued
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_steering_message_typed_during_a_slow_answer_reaches_the_next_request_after_that_answer()
{
    let release = Arc::new(Notify::new());
    let mut steered = session_with(
        vec![
            answer_when_released("Here are your files.", Arc::clone(&release)),
            answer("Only the PDFs, then."),
        ],
        None,
    );
    let run = steered.session.start_prompt("list my files").await.unwrap();
    steered.log.wait_for(is_assistant_start).await;

    let queued = queue(&mut steered, QueueKind::Steer, "only PDFs, please").await;
    assert_eq!(
        (queued.kind, queued.status, queued.text.as_str()),
        (QueueKind::Steer, QueuedStatus::Waiting, "only PDFs, please")
    );
    assert_eq!(steered.session.queued_messages(), vec![queued.clone()]);
    assert_eq!(
        steered.requests.lock().unwrap().len(),
        1,
        "nothing is sent before the answer ends"
    );
    release.notify_one();
    run.finished().await.unwrap();
    steered.log.wait_for_idle().await;

    assert_eq!(
        request_messages(&steered.requests, 1),
        vec![
            said("user", "list my files"),
            said("assistant", "Here are your files."),
            said("user", "only PDFs, please"),
        ]
    );
    // The transcript has it where the loop injected it, and its consumed notice follows its message_start.
    let seen = &steered.log.seen;
    let injected = seen
        .iter()
        .position(|envelope| {
            envelope["event"]["type"] == "message_start"
                && envelope["event"]["message"]["role"] == "user"
                && envelope["event"]["message"]["content"][0]["text"] == "only PDFs, please"
        })
        .unwrap();
    assert_eq!(
        seen[injected + 1]["notice"],
        json!({"type": "queued_message_consumed", "id": queued.id.0})
    );
    let first_answer_end = seen
        .iter()
        .position(|envelope| {
            envelope["event"]["type"] == "message_end"
                && envelope["event"]["message"]["role"] == "assistant"
        })
        .unwrap();
    assert!(first_answer_end < injected);
    assert_eq!(
        queue_notices(seen),
        vec![
            notice("message_queued", &[queued.id.0]),
            notice("queued_message_consumed", &[queued.id.0])
        ]
    );
    assert!(steered.session.queued_messages().is_empty());
    let texts: Vec<String> = steered
        .session
        .get_state()
        .messages
        .iter()
        .map(|message| text_of(&serde_json::to_value(message).unwrap()))
        .collect();
    assert_eq!(
        texts,
        vec![
            "list my files",
            "Here are your files.",
            "only PDFs, please",
            "Only the PDFs, then."
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_steering_message_during_a_tool_call_waits_for_the_batch_and_follows_its_result() {
    let mut steered = session_with(
        vec![list_downloads(), answer("Two files, counted.")],
        Some(asking_settings()),
    );
    let run = steered
        .session
        .start_prompt("what did I download?")
        .await
        .unwrap();
    let question = steered
        .log
        .wait_for(|envelope| is_notice(envelope, "approval_requested"))
        .await;

    let queued = queue(&mut steered, QueueKind::Steer, "and count them").await;
    let request_id = question["notice"]["requestId"].as_u64().unwrap();
    steered
        .session
        .resolve_approval(request_id, ApprovalDecision::AllowOnce)
        .unwrap();
    run.finished().await.unwrap();
    steered.log.wait_for_idle().await;

    assert_eq!(steered.requests.lock().unwrap().len(), 2);
    assert_eq!(
        request_messages(&steered.requests, 1),
        vec![
            said("user", "what did I download?"),
            said("assistant", ""),
            said("toolResult", "(tool result)"),
            said("user", "and count them"),
        ]
    );
    let tool_ended = events(&steered.log.seen)
        .iter()
        .filter(|event| event["type"] == "tool_execution_end")
        .count();
    assert_eq!(tool_ended, 1, "the call ran; steering skipped nothing");
    assert_eq!(
        queue_notices(&steered.log.seen),
        vec![
            notice("message_queued", &[queued.id.0]),
            notice("queued_message_consumed", &[queued.id.0])
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follow_up_queued_during_a_tool_call_runs_after_the_answer() {
    let mut steered = session_with(
        vec![
            list_downloads(),
            answer("You downloaded two files."),
            answer("Their sizes sum to 3 kB."),
        ],
        Some(asking_settings()),
    );
    let run = steered
        .session
        .start_prompt("what did I download?")
        .await
        .unwrap();
    let question = steered
        .log
        .wait_for(|envelope| is_notice(envelope, "approval_requested"))
        .await;

    let queued = queue(&mut steered, QueueKind::FollowUp, "then sum their sizes").await;
    assert_eq!(queued.kind, QueueKind::FollowUp);
    let request_id = question["notice"]["requestId"].as_u64().unwrap();
    steered
        .session
        .resolve_approval(request_id, ApprovalDecision::AllowOnce)
        .unwrap();
    run.finished().await.unwrap();
    steered.log.wait_for_idle().await;

    assert_eq!(steered.requests.lock().unwrap().len(), 3);
    assert_eq!(
        request_messages(&steered.requests, 1),
        vec![
            said("user", "what did I download?"),
            said("assistant", ""),
            said("toolResult", "(tool result)"),
        ],
        "not after the tool batch: the agent was not done"
    );
    assert_eq!(
        request_messages(&steered.requests, 2)[3..],
        [
            said("assistant", "You downloaded two files."),
            said("user", "then sum their sizes"),
        ]
    );
    let agent_starts = events(&steered.log.seen)
        .iter()
        .filter(|event| event["type"] == "agent_start")
        .count();
    assert_eq!(agent_starts, 1, "one run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_steering_message_is_never_sent_and_the_other_one_is() {
    let release = Arc::new(Notify::new());
    let mut steered = session_with(
        vec![
            answer_when_released("first answer", Arc::clone(&release)),
            answer("second answer"),
        ],
        None,
    );
    let run = steered.session.start_prompt("hello").await.unwrap();
    steered.log.wait_for(is_assistant_start).await;
    let dropped = queue(&mut steered, QueueKind::Steer, "never mind this").await;
    let kept = queue(&mut steered, QueueKind::Steer, "but mind this").await;

    steered.session.cancel_queued(dropped.id).await.unwrap();
    assert_eq!(
        steered.session.cancel_queued(dropped.id).await,
        Err(QueueError::NotQueued(dropped.id))
    );
    assert_eq!(steered.session.queued_messages(), vec![kept.clone()]);
    release.notify_one();
    run.finished().await.unwrap();
    steered.log.wait_for_idle().await;

    assert_eq!(steered.requests.lock().unwrap().len(), 2);
    let second = request_messages(&steered.requests, 1);
    assert_eq!(second.last(), Some(&said("user", "but mind this")));
    assert!(
        second.iter().all(|(_, text)| text != "never mind this"),
        "{second:?}"
    );
    assert_eq!(
        queue_notices(&steered.log.seen),
        vec![
            notice("message_queued", &[dropped.id.0]),
            notice("message_queued", &[kept.id.0]),
            notice("queued_message_cancelled", &[dropped.id.0]),
            notice("queued_message_consumed", &[kept.id.0]),
        ]
    );
    assert_eq!(
        steered.session.cancel_queued(kept.id).await,
        Err(QueueError::NotQueued(kept.id)),
        "a delivered message cannot be cancelled"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_hands_the_queue_back_held_and_a_held_message_is_sent_only_when_the_user_says_so() {
    let release = Arc::new(Notify::new());
    let mut steered = session_with(
        vec![
            answer_when_released("never finished", released_never()),
            answer("Answering the steering message."),
            answer_when_released("A slow third answer.", Arc::clone(&release)),
            answer("Now the held follow-up."),
        ],
        None,
    );
    let run = steered.session.start_prompt("start").await.unwrap();
    steered.log.wait_for(is_assistant_start).await;
    let steer = queue(&mut steered, QueueKind::Steer, "steer me").await;
    let follow_up = queue(&mut steered, QueueKind::FollowUp, "follow me").await;

    steered.session.abort();
    run.finished().await.unwrap();
    steered.log.wait_for_idle().await;

    let held: Vec<(u64, QueueKind, QueuedStatus)> = steered
        .session
        .queued_messages()
        .iter()
        .map(|message| (message.id.0, message.kind, message.status))
        .collect();
    assert_eq!(
        held,
        vec![
            (steer.id.0, QueueKind::Steer, QueuedStatus::Held),
            (follow_up.id.0, QueueKind::FollowUp, QueuedStatus::Held)
        ]
    );
    let held_at = steered
        .log
        .seen
        .iter()
        .position(|envelope| is_notice(envelope, "queued_messages_held"))
        .unwrap();
    assert_eq!(
        steered.log.seen[held_at]["notice"]["ids"],
        json!([steer.id.0, follow_up.id.0])
    );
    assert!(
        steered.log.seen[held_at + 1..]
            .iter()
            .any(|envelope| is_notice(envelope, "idle")),
        "held before the run's idle"
    );
    assert_eq!(steered.requests.lock().unwrap().len(), 1);

    // Send now, between runs: the steering message is the prompt of a run of its own; the follow-up stays held.
    let QueuedSend::Started(sent) = steered.session.send_queued(steer.id).await.unwrap() else {
        panic!("an idle session starts a run");
    };
    sent.finished().await.unwrap();
    steered.log.wait_for_idle().await;
    assert_eq!(
        request_messages(&steered.requests, 1).last().cloned(),
        Some(said("user", "steer me"))
    );
    assert_eq!(
        steered
            .session
            .queued_messages()
            .iter()
            .map(|message| (message.id, message.status))
            .collect::<Vec<_>>(),
        vec![(follow_up.id, QueuedStatus::Held)],
        "a held message is never delivered by itself"
    );

    // During a run, sending a held message makes it steering for that run.
    let run = steered.session.start_prompt("one more").await.unwrap();
    steered.log.wait_for(is_assistant_start).await;
    let QueuedSend::Steering(steering) = steered.session.send_queued(follow_up.id).await.unwrap()
    else {
        panic!("a busy session queues it as steering");
    };
    assert_eq!(
        (steering.id, steering.kind, steering.status),
        (follow_up.id, QueueKind::Steer, QueuedStatus::Waiting)
    );
    release.notify_one();
    run.finished().await.unwrap();
    steered.log.wait_for_idle().await;
    assert_eq!(
        request_messages(&steered.requests, 3).last().cloned(),
        Some(said("user", "follow me"))
    );
    assert!(steered.session.queued_messages().is_empty());
    assert_eq!(
        queue_notices(&steered.log.seen),
        vec![
            notice("message_queued", &[steer.id.0]),
            notice("message_queued", &[follow_up.id.0]),
            notice("queued_messages_held", &[steer.id.0, follow_up.id.0]),
            notice("queued_message_consumed", &[steer.id.0]),
            notice("message_queued", &[follow_up.id.0]),
            notice("queued_message_consumed", &[follow_up.id.0]),
        ]
    );
}

/// A notify nobody notifies: the answer waits until Stop.
fn released_never() -> Arc<Notify> {
    Arc::new(Notify::new())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_all_mode_waiting_steering_messages_share_one_turn_and_one_at_a_time_gives_each_its_own()
{
    for (mode, expected_requests) in [(QueueMode::All, 2), (QueueMode::OneAtATime, 3)] {
        let release = Arc::new(Notify::new());
        let mut settings = scripted_settings();
        settings.steering_mode = mode;
        let mut steered = session_with(
            vec![
                answer_when_released("first", Arc::clone(&release)),
                answer("next"),
            ],
            Some(settings),
        );
        let run = steered.session.start_prompt("go").await.unwrap();
        steered.log.wait_for(is_assistant_start).await;
        queue(&mut steered, QueueKind::Steer, "a").await;
        queue(&mut steered, QueueKind::Steer, "b").await;
        release.notify_one();
        run.finished().await.unwrap();
        steered.log.wait_for_idle().await;

        assert_eq!(
            steered.requests.lock().unwrap().len(),
            expected_requests,
            "{mode:?}"
        );
        let second = request_messages(&steered.requests, 1);
        match mode {
            QueueMode::All => assert_eq!(second[2..], [said("user", "a"), said("user", "b")]),
            QueueMode::OneAtATime => {
                assert_eq!(second[2..], [said("user", "a")]);
                assert_eq!(
                    request_messages(&steered.requests, 2)[3..],
                    [said("assistant", "next"), said("user", "b")]
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_queue_modes_apply_to_the_next_poll_of_an_open_session() {
    // The settings' own model (scripted: it echoes the last user message), which `apply_settings` installs.
    let mut steered = session_with(vec![answer("unused")], None);
    let mut settings = scripted_settings();
    settings.follow_up_mode = QueueMode::All;
    steered.session.apply_settings(&settings).unwrap();
    // Queued between runs, follow-ups wait for the next run's first stop (pi's rule).
    queue(&mut steered, QueueKind::FollowUp, "x").await;
    queue(&mut steered, QueueKind::FollowUp, "y").await;
    steered.session.prompt("go").await.unwrap();

    let transcript: Vec<(String, String)> = steered
        .session
        .get_state()
        .messages
        .iter()
        .map(|message| {
            let message = serde_json::to_value(message).unwrap();
            (
                message["role"].as_str().unwrap().to_owned(),
                text_of(&message),
            )
        })
        .collect();
    assert_eq!(
        transcript,
        vec![
            said("user", "go"),
            said("assistant", "(scripted) You said: go"),
            said("user", "x"),
            said("user", "y"),
            said("assistant", "(scripted) You said: y"),
        ],
        "both follow-ups in one turn"
    );
}
