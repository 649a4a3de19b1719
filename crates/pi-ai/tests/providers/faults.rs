//! Fault tests for every HTTP adapter on the loopback replay server: content shapes with awkward byte splits,
//! every stop reason, HTTP errors, retries, broken streams, timeouts, cancellation and a large response.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use pi_ai::{
    AssistantBlock, AssistantMessage, AssistantMessageEvent, CancellationToken, Context, Message,
    SimpleStreamOptions, StopReason, UserMessage,
};
use pi_test_support::LoopbackServer;
use serde_json::{Value, json};

use crate::support::fixture_run::build_model;
use crate::support::replay_server;
use crate::support::scripts::{ALL, Call, Ending, Wire};

fn context() -> Context {
    Context {
        system_prompt: Some("You are Pi.".into()),
        messages: vec![Message::User(UserMessage::new("Hello"))],
        tools: None,
    }
}

fn options() -> SimpleStreamOptions {
    let mut options = SimpleStreamOptions::default();
    options.base.api_key = Some("sk-test".into());
    options
}

struct Run {
    events: Vec<AssistantMessageEvent>,
    message: AssistantMessage,
    server: LoopbackServer,
}

impl Run {
    fn types(&self) -> Vec<&'static str> {
        self.events
            .iter()
            .map(AssistantMessageEvent::event_type)
            .collect()
    }

    fn error(&self) -> String {
        self.message.error_message.clone().unwrap_or_default()
    }

    /// Text of every text block, joined.
    fn text(&self) -> String {
        self.message.text()
    }

    /// Sum of the streamed deltas per block must equal the block's final content.
    fn assert_deltas_add_up(&self) {
        for (index, block) in self.message.content.iter().enumerate() {
            let streamed: String = self
                .events
                .iter()
                .filter_map(|e| match e {
                    AssistantMessageEvent::TextDelta {
                        content_index,
                        delta,
                        ..
                    }
                    | AssistantMessageEvent::ThinkingDelta {
                        content_index,
                        delta,
                        ..
                    } if *content_index == index => Some(delta.as_str()),
                    _ => None,
                })
                .collect();
            match block.as_ref() {
                AssistantBlock::Text(t) => {
                    assert_eq!(t.text.to_string(), streamed, "text block {index}")
                }
                AssistantBlock::Thinking(t) if t.redacted != Some(true) => {
                    assert_eq!(t.thinking.to_string(), streamed, "thinking block {index}");
                }
                _ => {}
            }
        }
    }
}

async fn run_with(wire: Wire, responses: Vec<Value>, options: SimpleStreamOptions) -> Run {
    let server = replay_server::start(responses).await.unwrap();
    let model = build_model(wire.api(), None, &server.origin()).unwrap();
    let client = pi_ai::providers::http_client().unwrap();
    let api = pi_ai::providers::builtin_apis(&client)
        .into_iter()
        .find(|a| a.api().as_str() == wire.api())
        .unwrap();
    let stream = api.stream_simple(model, context(), options);
    let events: Vec<AssistantMessageEvent> =
        tokio::time::timeout(Duration::from_secs(20), stream.collect())
            .await
            .expect("the stream must end");
    let message = events
        .last()
        .and_then(AssistantMessageEvent::final_message)
        .cloned()
        .expect("a terminal event");
    Run {
        events,
        message,
        server,
    }
}

async fn run(wire: Wire, responses: Vec<Value>) -> Run {
    run_with(wire, responses, options()).await
}

#[tokio::test]
async fn plain_text_with_one_byte_writes_and_split_utf8() {
    for wire in ALL {
        let text = ["Grüß ", "dich 👋", " — 你好！"];
        let mut response = wire.ok(wire.answer(&[], &text, &[], Ending::Stop), 1);
        response["split_utf8"] = json!(true);
        let r = run(wire, vec![response]).await;
        assert_eq!(
            r.message.stop_reason,
            StopReason::Stop,
            "{wire:?}: {}",
            r.error()
        );
        assert_eq!(r.text(), text.concat(), "{wire:?}");
        assert_eq!(r.types().first(), Some(&"start"), "{wire:?}");
        assert_eq!(r.types().last(), Some(&"done"), "{wire:?}");
        assert!(r.types().contains(&"text_end"), "{wire:?}");
        r.assert_deltas_add_up();
        assert_eq!(r.message.usage.input, 100, "{wire:?}");
        assert_eq!(r.message.usage.output, 20, "{wire:?}");
        assert_eq!(r.message.usage.total_tokens, 120, "{wire:?}");
        assert!(r.message.usage.cost.total > 0.0, "{wire:?}");
        assert_eq!(r.server.requests().len(), 1);
    }
}

#[tokio::test]
async fn thinking_then_text() {
    for wire in ALL {
        let r = run(
            wire,
            vec![wire.ok(
                wire.answer(&["Let me ", "think."], &["Answer."], &[], Ending::Stop),
                5,
            )],
        )
        .await;
        assert_eq!(
            r.message.stop_reason,
            StopReason::Stop,
            "{wire:?}: {}",
            r.error()
        );
        let AssistantBlock::Thinking(thinking) = r.message.content[0].as_ref() else {
            panic!("{wire:?}: no thinking")
        };
        assert_eq!(thinking.thinking.to_string(), "Let me think.", "{wire:?}");
        assert!(thinking.thinking_signature.is_some(), "{wire:?}");
        assert_eq!(r.text(), "Answer.", "{wire:?}");
        r.assert_deltas_add_up();
        let types = r.types();
        let pos = |t: &str| types.iter().position(|x| *x == t).unwrap_or(usize::MAX);
        assert!(
            pos("thinking_start") < pos("text_start"),
            "{wire:?}: {types:?}"
        );
    }
}

#[tokio::test]
async fn several_tool_calls_with_awkward_splits() {
    let calls = [
        Call {
            id: "call_1",
            name: "read_document",
            args: &["{\"pa", "th\": \"R\\u00", "e9sum\\u00e9 简", "历.pdf\"}"],
        },
        Call {
            id: "call_2",
            name: "list_download_files",
            args: &["{\"extensions\": [\"pdf\"", ", \"txt\"]}"],
        },
    ];
    for wire in ALL {
        for chunk in [1, 3, 7] {
            let mut response = wire.ok(
                wire.answer(&[], &["Checking."], &calls, Ending::ToolUse),
                chunk,
            );
            response["split_utf8"] = json!(true);
            let r = run(wire, vec![response]).await;
            assert_eq!(
                r.message.stop_reason,
                StopReason::ToolUse,
                "{wire:?}/{chunk}: {}",
                r.error()
            );
            let tools: Vec<_> = r.message.tool_calls().collect();
            assert_eq!(tools.len(), 2, "{wire:?}");
            assert_eq!(tools[0].name, "read_document");
            assert_eq!(
                tools[0].arguments,
                json!({"path": "Résumé 简历.pdf"}),
                "{wire:?}/{chunk}"
            );
            assert_eq!(
                tools[1].arguments,
                json!({"extensions": ["pdf", "txt"]}),
                "{wire:?}/{chunk}"
            );
            assert!(
                tools[0].id.starts_with("call_1"),
                "{wire:?}: {}",
                tools[0].id
            );
            assert_eq!(
                r.types().iter().filter(|t| **t == "toolcall_end").count(),
                2,
                "{wire:?}"
            );
        }
    }
}

#[tokio::test]
async fn one_tool_call_arguments_stream_as_partial_json() {
    for wire in ALL {
        let calls = [Call {
            id: "c1",
            name: "get_time",
            args: &["{\"zone\":", " \"Europe/Ber", "lin\"}"],
        }];
        let r = run(
            wire,
            vec![wire.ok(wire.answer(&[], &[], &calls, Ending::ToolUse), 4)],
        )
        .await;
        let partials: Vec<Value> = r
            .events
            .iter()
            .filter_map(|e| match e {
                AssistantMessageEvent::ToolcallDelta {
                    content_index,
                    partial,
                    ..
                } => partial.content[*content_index]
                    .as_tool_call()
                    .map(|c| c.arguments.clone()),
                _ => None,
            })
            .filter(|a| a != &json!({}))
            .collect();
        assert!(
            partials.contains(&json!({"zone": "Europe/Ber"})),
            "{wire:?}: {partials:?}"
        );
        assert_eq!(
            r.message.tool_calls().next().map(|c| c.arguments.clone()),
            Some(json!({"zone": "Europe/Berlin"}))
        );
    }
}

#[tokio::test]
async fn every_stop_reason_maps() {
    for wire in ALL {
        let r = run(
            wire,
            vec![wire.ok(wire.answer(&[], &["cut"], &[], Ending::Length), 16)],
        )
        .await;
        assert_eq!(
            r.message.stop_reason,
            StopReason::Length,
            "{wire:?}: {}",
            r.error()
        );
        assert_eq!(r.types().last(), Some(&"done"));

        let r = run(
            wire,
            vec![wire.ok(wire.answer(&[], &["no"], &[], Ending::Refused), 16)],
        )
        .await;
        assert_eq!(r.message.stop_reason, StopReason::Error, "{wire:?}");
        assert!(!r.error().is_empty(), "{wire:?}");
        assert_eq!(r.text(), "no", "{wire:?}: the partial answer is kept");

        let r = run(
            wire,
            vec![wire.ok(wire.answer(&[], &["half"], &[], Ending::Missing), 16)],
        )
        .await;
        assert_eq!(r.message.stop_reason, StopReason::Error, "{wire:?}");
        assert!(
            r.error().to_lowercase().contains("ended"),
            "{wire:?}: {}",
            r.error()
        );
        assert_eq!(r.text(), "half", "{wire:?}");
    }
}

#[tokio::test]
async fn http_errors_are_actionable_and_carry_the_status() {
    for wire in ALL {
        for (status, needle) in [
            (401, "API key"),
            (403, "refused access"),
            (404, "model id"),
            (429, "rate limiting"),
            (500, "server error"),
            (503, "server error"),
        ] {
            let r = run(wire, vec![wire.error(status, "provider says no")]).await;
            assert_eq!(r.message.stop_reason, StopReason::Error);
            assert_eq!(
                r.types(),
                vec!["error"],
                "{wire:?} {status}: no start before an HTTP error"
            );
            let text = r.error();
            assert!(text.contains(&status.to_string()), "{wire:?}: {text}");
            assert!(text.contains(needle), "{wire:?} {status}: {text}");
            assert!(text.contains("provider says no"), "{wire:?}: {text}");
            assert_eq!(r.server.requests().len(), 1, "maxRetries defaults to 0");
        }
    }
}

#[tokio::test]
async fn retry_after_is_honoured_once_then_ok() {
    for wire in ALL {
        let mut limited = wire.error(429, "slow down");
        limited["headers"] = json!({"retry-after": "0"});
        let mut opts = options();
        opts.base.max_retries = 1;
        let r = run_with(
            wire,
            vec![
                limited,
                wire.ok(wire.answer(&[], &["ok"], &[], Ending::Stop), 64),
            ],
            opts,
        )
        .await;
        assert_eq!(
            r.message.stop_reason,
            StopReason::Stop,
            "{wire:?}: {}",
            r.error()
        );
        let requests = r.server.requests();
        assert_eq!(requests.len(), 2);
        assert_eq!(
            requests[0].body, requests[1].body,
            "the retry repeats the same request"
        );
    }
}

#[tokio::test]
async fn server_error_503_is_retried_when_allowed() {
    let wire = Wire::Completions;
    let mut unavailable = wire.error(503, "busy");
    unavailable["headers"] = json!({"retry-after-ms": "1"});
    let mut opts = options();
    opts.base.max_retries = 2;
    let r = run_with(
        wire,
        vec![
            unavailable.clone(),
            unavailable,
            wire.ok(wire.answer(&[], &["ok"], &[], Ending::Stop), 64),
        ],
        opts,
    )
    .await;
    assert_eq!(r.message.stop_reason, StopReason::Stop, "{}", r.error());
    assert_eq!(r.server.requests().len(), 3);
}

#[tokio::test]
async fn retry_after_above_the_cap_fails_at_once() {
    for wire in ALL {
        let mut limited = wire.error(429, "quota");
        limited["headers"] = json!({"retry-after": "120"});
        let mut opts = options();
        opts.base.max_retries = 3;
        let started = Instant::now();
        let r = run_with(wire, vec![limited], opts).await;
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(r.server.requests().len(), 1);
        assert!(
            r.error().contains("120s retry delay (max: 60s)"),
            "{}",
            r.error()
        );
        assert!(r.error().contains("429"), "{}", r.error());
    }
}

#[tokio::test]
async fn nothing_is_retried_once_streaming_started() {
    for wire in ALL {
        let mut broken = wire.ok(
            wire.answer(&[], &["partial ", "answer"], &[], Ending::Stop),
            8,
        );
        broken["chunked"] = json!(true);
        broken["reset_after"] = json!(300);
        let mut opts = options();
        opts.base.max_retries = 3;
        let r = run_with(wire, vec![broken], opts).await;
        assert_eq!(r.message.stop_reason, StopReason::Error, "{wire:?}");
        assert_eq!(r.server.requests().len(), 1, "{wire:?}");
        assert!(r.types().contains(&"start"));
        assert!(r.error().contains("interrupted"), "{wire:?}: {}", r.error());
    }
}

#[tokio::test]
async fn reset_mid_stream_keeps_the_partial_text() {
    for wire in ALL {
        let events = wire.answer(
            &[],
            &["The first part. ", "The second part."],
            &[],
            Ending::Stop,
        );
        // Find where the second text piece starts so the reset falls after the first one was sent.
        let body = replay_server::sse_bytes(&events, "\n");
        let cut = find(&body, b"The second").unwrap() - 5;
        let mut broken = wire.ok(events, 4096);
        broken["chunked"] = json!(true);
        broken["reset_after"] = json!(cut);
        let r = run(wire, vec![broken]).await;
        assert_eq!(r.message.stop_reason, StopReason::Error, "{wire:?}");
        assert_eq!(r.text(), "The first part. ", "{wire:?}");
        assert!(!r.types().contains(&"done"));
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[tokio::test]
async fn malformed_sse_lines_are_skipped() {
    for wire in ALL {
        let mut events = wire.answer(&[], &["still ", "fine"], &[], Ending::Stop);
        events.insert(
            1,
            json!({"raw": "this line has no field separator\nretry: soon\n: a comment\n\n"}),
        );
        let r = run(wire, vec![wire.ok(events, 7)]).await;
        assert_eq!(
            r.message.stop_reason,
            StopReason::Stop,
            "{wire:?}: {}",
            r.error()
        );
        assert_eq!(r.text(), "still fine");
    }
}

#[tokio::test]
async fn invalid_json_in_a_data_line_is_an_error_with_the_partial_kept() {
    for wire in ALL {
        let mut events = wire.answer(&[], &["kept ", "lost"], &[], Ending::Stop);
        let at = events.len() - 3;
        let bad = match wire {
            Wire::Anthropic => {
                json!({"event": "content_block_delta", "data": "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x}"})
            }
            _ => json!({"data": "{\"id\":\"x\",\"choices\":[{\"delta\":{\"content\":\"x}"}),
        };
        events.insert(at, bad);
        let r = run(wire, vec![wire.ok(events, 11)]).await;
        assert_eq!(r.message.stop_reason, StopReason::Error, "{wire:?}");
        assert!(
            r.error().contains("not valid JSON"),
            "{wire:?}: {}",
            r.error()
        );
        assert!(r.text().starts_with("kept"), "{wire:?}: {}", r.text());
    }
}

#[tokio::test]
async fn a_stalled_server_hits_the_idle_timeout() {
    for wire in ALL {
        let mut events = wire.answer(&[], &["before the stall"], &[], Ending::Stop);
        events.truncate(3);
        let mut stalled = wire.ok(events, 64);
        stalled["stall"] = json!(true);
        let mut opts = options();
        opts.base.idle_timeout = Some(Duration::from_millis(150));
        let r = run_with(wire, vec![stalled], opts).await;
        assert_eq!(r.message.stop_reason, StopReason::Error, "{wire:?}");
        assert!(
            r.error().contains("idle timeout"),
            "{wire:?}: {}",
            r.error()
        );
        // The connection is dropped, so the server sees it close.
        r.server.wait_closed(1).await;
    }
}

#[tokio::test]
async fn a_server_that_never_answers_hits_the_request_timeout() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    for wire in ALL {
        let model = build_model(wire.api(), None, &origin).unwrap();
        let client = pi_ai::providers::http_client().unwrap();
        let api = pi_ai::providers::builtin_apis(&client)
            .into_iter()
            .find(|a| a.api().as_str() == wire.api())
            .unwrap();
        let mut opts = options();
        opts.base.timeout = Some(Duration::from_millis(200));
        let message = api
            .stream_simple(model, context(), opts)
            .finish()
            .await
            .unwrap();
        assert_eq!(message.stop_reason, StopReason::Error);
        assert!(
            message
                .error_message
                .unwrap_or_default()
                .contains("request timeout"),
            "{wire:?}"
        );
    }
    held.abort();
}

#[tokio::test]
async fn connection_refused_is_explained() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let model = build_model(
        "openai-completions",
        Some(&json!({"provider": "ollama"})),
        &origin,
    )
    .unwrap();
    let client = pi_ai::providers::http_client().unwrap();
    let api = pi_ai::providers::OpenAiCompletions::new(client);
    let message = pi_ai::ApiProvider::stream_simple(&api, model, context(), options())
        .finish()
        .await
        .unwrap();
    let text = message.error_message.unwrap_or_default();
    assert!(text.contains("Could not reach Ollama"), "{text}");
}

#[tokio::test]
async fn abort_closes_the_connection_within_100_ms_and_keeps_the_partial() {
    for wire in ALL {
        let mut events = wire.answer(&[], &["partial answer"], &[], Ending::Stop);
        let first_delta = events
            .iter()
            .position(|e| e.to_string().contains("partial answer"))
            .unwrap();
        events.truncate(first_delta + 1);
        let mut stalled = wire.ok(events, 4096);
        stalled["stall"] = json!(true);
        let server = replay_server::start(vec![stalled]).await.unwrap();
        let model = build_model(wire.api(), None, &server.origin()).unwrap();
        let client = pi_ai::providers::http_client().unwrap();
        let api = pi_ai::providers::builtin_apis(&client)
            .into_iter()
            .find(|a| a.api().as_str() == wire.api())
            .unwrap();
        let token = CancellationToken::new();
        let mut opts = options();
        opts.base.signal = Some(token.clone());
        let mut stream = api.stream_simple(model, context(), opts);
        let mut seen = Vec::new();
        while let Some(event) = stream.next().await {
            let is_delta = matches!(event, AssistantMessageEvent::TextDelta { .. });
            seen.push(event);
            if is_delta {
                break;
            }
        }
        let cancelled_at = Instant::now();
        token.cancel();
        let closed_at = tokio::time::timeout(Duration::from_secs(5), server.wait_closed(1))
            .await
            .unwrap();
        assert!(
            closed_at.saturating_duration_since(cancelled_at) < Duration::from_millis(100),
            "{wire:?}: the server saw the close {:?} after the cancel",
            closed_at.saturating_duration_since(cancelled_at)
        );
        let rest: Vec<AssistantMessageEvent> = stream.collect().await;
        let last = rest.last().expect("a terminal event");
        let AssistantMessageEvent::Error { reason, error } = last else {
            panic!("{wire:?}: expected error, got {last:?}")
        };
        assert_eq!(*reason, pi_ai::ErrorReason::Aborted);
        assert_eq!(error.stop_reason, StopReason::Aborted);
        assert_eq!(error.error_message.as_deref(), Some("Request was aborted"));
        assert_eq!(error.text(), "partial answer", "{wire:?}");
    }
}

#[tokio::test]
async fn a_cancelled_token_sends_nothing() {
    for wire in ALL {
        let token = CancellationToken::new();
        token.cancel();
        let mut opts = options();
        opts.base.signal = Some(token);
        let r = run_with(
            wire,
            vec![wire.ok(wire.answer(&[], &["x"], &[], Ending::Stop), 8)],
            opts,
        )
        .await;
        assert_eq!(r.types(), vec!["error"]);
        assert_eq!(r.message.stop_reason, StopReason::Aborted);
        assert_eq!(r.server.requests().len(), 0);
    }
}

#[tokio::test]
async fn a_missing_api_key_is_a_stream_error() {
    for wire in ALL {
        let mut opts = options();
        opts.base.api_key = None;
        let r = run_with(wire, vec![], opts).await;
        assert_eq!(r.types(), vec!["error"]);
        assert!(r.error().contains("No API key"), "{}", r.error());
    }
}

#[tokio::test]
async fn request_options_reach_the_wire() {
    for wire in ALL {
        let mut opts = options();
        opts.base.temperature = Some(0.25);
        opts.base.max_tokens = Some(1000);
        opts.base.headers = Some(
            [("X-Extra".to_string(), Some("yes".to_string()))]
                .into_iter()
                .collect(),
        );
        let r = run_with(
            wire,
            vec![wire.ok(wire.answer(&[], &["ok"], &[], Ending::Stop), 64)],
            opts,
        )
        .await;
        let request = &r.server.requests()[0];
        assert_eq!(request.body["temperature"], json!(0.25), "{wire:?}");
        let max = match wire {
            Wire::Completions => &request.body["max_completion_tokens"],
            Wire::Responses => &request.body["max_output_tokens"],
            Wire::Anthropic => &request.body["max_tokens"],
        };
        assert_eq!(max, &json!(1000), "{wire:?}");
        assert!(
            request
                .headers
                .iter()
                .any(|(k, v)| k == "x-extra" && v == "yes"),
            "{wire:?}"
        );
        let auth = request
            .header("authorization")
            .or_else(|| request.header("x-api-key"));
        assert!(auth.is_some_and(|a| a.contains("sk-test")), "{wire:?}");
    }
}

#[tokio::test]
async fn a_ten_megabyte_answer_streams_through() {
    for wire in ALL {
        let piece = "0123456789abcdef".repeat(64); // 1 KiB
        let pieces: Vec<&str> = std::iter::repeat_n(piece.as_str(), 10 * 1024).collect();
        let r = run(
            wire,
            vec![wire.ok(wire.answer(&[], &pieces, &[], Ending::Stop), 65_536)],
        )
        .await;
        assert_eq!(
            r.message.stop_reason,
            StopReason::Stop,
            "{wire:?}: {}",
            r.error()
        );
        assert_eq!(r.text().len(), 10 * 1024 * 1024, "{wire:?}");
    }
}

#[tokio::test]
async fn each_retry_is_reported_before_its_wait() {
    for wire in ALL {
        let mut limited = wire.error(429, "slow down");
        limited["headers"] = json!({"retry-after": "0"});
        let mut unavailable = wire.error(503, "busy");
        unavailable["headers"] = json!({"retry-after-ms": "1"});
        let notices = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut opts = options();
        opts.base.max_retries = 3;
        opts.base.on_retry = Some({
            let notices = std::sync::Arc::clone(&notices);
            std::sync::Arc::new(move |notice: &pi_ai::RetryNotice| {
                notices.lock().unwrap().push(notice.clone());
            })
        });
        let r = run_with(
            wire,
            vec![
                limited,
                unavailable,
                wire.ok(wire.answer(&[], &["ok"], &[], Ending::Stop), 64),
            ],
            opts,
        )
        .await;
        assert_eq!(r.message.stop_reason, StopReason::Stop, "{}", r.error());
        assert_eq!(
            *notices.lock().unwrap(),
            vec![
                pi_ai::RetryNotice {
                    attempt: 1,
                    max_retries: 3,
                    delay: Duration::ZERO,
                    cause: pi_ai::RetryCause::Status(429),
                },
                pi_ai::RetryNotice {
                    attempt: 2,
                    max_retries: 3,
                    delay: Duration::from_millis(1),
                    cause: pi_ai::RetryCause::Status(503),
                },
            ],
            "{wire:?}"
        );
        assert_eq!(r.server.requests().len(), 3);
    }
}

#[tokio::test]
async fn stop_during_a_retry_wait_ends_the_stream_at_once_and_sends_nothing_more() {
    for wire in ALL {
        let mut limited = wire.error(429, "slow down");
        limited["headers"] = json!({"retry-after": "30"});
        let server = replay_server::start(vec![
            limited,
            wire.ok(wire.answer(&[], &["never"], &[], Ending::Stop), 64),
        ])
        .await
        .unwrap();
        let model = build_model(wire.api(), None, &server.origin()).unwrap();
        let client = pi_ai::providers::http_client().unwrap();
        let api = pi_ai::providers::builtin_apis(&client)
            .into_iter()
            .find(|a| a.api().as_str() == wire.api())
            .unwrap();
        let (told, mut waiting) = tokio::sync::mpsc::unbounded_channel();
        let token = CancellationToken::new();
        let mut opts = options();
        opts.base.max_retries = 3;
        opts.base.signal = Some(token.clone());
        opts.base.on_retry = Some(std::sync::Arc::new(move |notice: &pi_ai::RetryNotice| {
            let _ = told.send(notice.clone());
        }));
        let stream = api.stream_simple(model, context(), opts);
        let notice = waiting.recv().await.unwrap();
        assert_eq!(notice.delay, Duration::from_secs(30));
        let stopped_at = Instant::now();
        token.cancel();
        let message = stream.finish().await.unwrap();
        assert!(stopped_at.elapsed() < Duration::from_secs(2), "{wire:?}");
        assert_eq!(message.stop_reason, StopReason::Aborted, "{wire:?}");
        assert_eq!(
            message.error_message.as_deref(),
            Some("Request was aborted")
        );
        assert_eq!(server.requests().len(), 1, "{wire:?}");
    }
}
