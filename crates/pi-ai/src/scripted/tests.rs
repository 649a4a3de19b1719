use std::sync::Arc;

use futures_util::StreamExt;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{
    ABORTED_MESSAGE, NO_MORE_RESPONSES, NO_STOP_REASON, ScriptedOptions, ScriptedProvider,
    ScriptedResponse, message, text_message, tool_call_message,
};
use crate::content::{AssistantBlock, ToolCall};
use crate::context::Context;
use crate::event::AssistantMessageEvent;
use crate::event_stream::AssistantMessageEventStream;
use crate::message::{AssistantMessage, StopReason, UserMessage};
use crate::options::{SimpleStreamOptions, StreamOptions};
use crate::parse_streaming_json;

fn context(text: &str) -> Context {
    Context {
        messages: vec![UserMessage::new(text).into()],
        ..Context::default()
    }
}

fn one_token_chunks(responses: Vec<AssistantMessage>) -> ScriptedProvider {
    ScriptedProvider::with_options(
        ScriptedOptions {
            tokens_per_chunk: 1..=1,
            ..ScriptedOptions::default()
        },
        responses,
    )
}

async fn collect(
    mut stream: AssistantMessageEventStream,
) -> (Vec<AssistantMessageEvent>, AssistantMessage) {
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event);
    }
    (events, stream.result().await.unwrap())
}

fn types(events: &[AssistantMessageEvent]) -> Vec<&'static str> {
    events
        .iter()
        .map(AssistantMessageEvent::event_type)
        .collect()
}

#[tokio::test]
async fn streams_thinking_text_and_tool_call_in_exact_order() {
    let scripted = message(
        vec![
            AssistantBlock::thinking("hmm"),
            AssistantBlock::text("ok"),
            AssistantBlock::tool_call("c1", "echo", json!({"t": "x"})),
        ],
        StopReason::ToolUse,
    );
    let provider = ScriptedProvider::with_options(
        ScriptedOptions {
            tokens_per_chunk: 10..=10,
            ..ScriptedOptions::default()
        },
        [scripted],
    );
    let (events, message) =
        collect(provider.stream(context("hi"), SimpleStreamOptions::default())).await;
    assert_eq!(
        types(&events),
        vec![
            "start",
            "thinking_start",
            "thinking_delta",
            "thinking_end",
            "text_start",
            "text_delta",
            "text_end",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_end",
            "done"
        ]
    );
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    assert_eq!(message.api, "scripted");
    assert_eq!(&*message.model, "scripted-1");
    assert_eq!(provider.call_count(), 1);
}

#[tokio::test]
async fn text_is_chunked_by_tokens_and_deltas_rebuild_it() {
    let text = "The quick brown fox jumps over the lazy dog";
    let provider = one_token_chunks(vec![text_message(text)]);
    let (events, message) =
        collect(provider.stream(context("hi"), SimpleStreamOptions::default())).await;
    let deltas: Vec<String> = events
        .iter()
        .filter_map(|event| match event {
            AssistantMessageEvent::TextDelta { delta, .. } => Some(delta.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas.len(), text.len().div_ceil(4));
    assert_eq!(deltas.concat(), text);
    let AssistantMessageEvent::TextDelta { partial, .. } = &events[3] else {
        panic!("third event is a delta")
    };
    assert_eq!(partial.text(), "The quic", "partial after the second delta");
    assert_eq!(message.text(), text);
    assert!(message.usage.input > 0 && message.usage.output > 0);
    assert_eq!(
        message.usage.total_tokens,
        message.usage.input + message.usage.output
    );
}

#[tokio::test]
async fn tool_call_deltas_concatenate_to_the_arguments_and_arguments_stay_empty_until_the_end() {
    let call = ToolCall::new(
        "c1",
        "write",
        json!({"path": "a.txt", "content": "hello world"}),
    );
    let provider = one_token_chunks(vec![tool_call_message([call.clone()])]);
    let (events, _) = collect(provider.stream(context("hi"), SimpleStreamOptions::default())).await;
    let mut text = String::new();
    for event in &events {
        if let AssistantMessageEvent::ToolcallDelta { delta, partial, .. } = event {
            text.push_str(delta);
            assert_eq!(
                partial
                    .tool_calls()
                    .next()
                    .map(|call| call.arguments.clone()),
                Some(json!({}))
            );
        }
    }
    assert!(
        events
            .iter()
            .filter(|event| event.event_type() == "toolcall_delta")
            .count()
            > 1
    );
    assert_eq!(parse_streaming_json(&text), call.arguments);
    let Some(AssistantMessageEvent::ToolcallEnd { tool_call, .. }) = events.get(events.len() - 2)
    else {
        panic!("toolcall_end before done")
    };
    assert_eq!(**tool_call, call);
}

#[tokio::test]
async fn exhausted_queue_gives_a_single_error_without_start() {
    let provider = ScriptedProvider::new([text_message("one")]);
    let _ = collect(provider.stream(context("a"), SimpleStreamOptions::default())).await;
    let (events, message) =
        collect(provider.stream(context("b"), SimpleStreamOptions::default())).await;
    assert_eq!(types(&events), vec!["error"]);
    assert_eq!(message.error_message.as_deref(), Some(NO_MORE_RESPONSES));
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(provider.call_count(), 2);
}

#[tokio::test]
async fn scripted_error_streams_its_blocks_then_error() {
    let failed = super::error_message(vec![AssistantBlock::text("partial")], "boom");
    let provider = ScriptedProvider::new([failed]);
    let (events, message) =
        collect(provider.stream(context("a"), SimpleStreamOptions::default())).await;
    assert_eq!(
        types(&events),
        vec!["start", "text_start", "text_delta", "text_end", "error"]
    );
    assert_eq!(message.error_message.as_deref(), Some("boom"));
}

#[tokio::test]
async fn pending_stop_reason_ends_with_an_error_and_no_done() {
    let provider = ScriptedProvider::new([message(
        vec![AssistantBlock::text("x")],
        StopReason::Pending,
    )]);
    let (events, message) =
        collect(provider.stream(context("a"), SimpleStreamOptions::default())).await;
    assert_eq!(types(&events).last(), Some(&"error"));
    assert!(!types(&events).contains(&"done"));
    assert_eq!(message.error_message.as_deref(), Some(NO_STOP_REASON));
    assert!(message.content.is_empty());
}

#[tokio::test]
async fn factories_see_the_request_and_a_failing_factory_gives_a_single_error() {
    let factory: ScriptedResponse =
        ScriptedResponse::Factory(Arc::new(|context, _, call, model| {
            Ok(text_message(format!(
                "{} messages, call {}, model {}",
                context.messages.len(),
                call.call_count,
                model.id
            )))
        }));
    let failing = ScriptedResponse::Factory(Arc::new(|_, _, _, _| Err("boom".to_owned())));
    let provider = ScriptedProvider::new([factory, failing]);
    let (_, message) = collect(provider.stream(context("a"), SimpleStreamOptions::default())).await;
    assert_eq!(message.text(), "1 messages, call 1, model scripted-1");
    let (events, message) =
        collect(provider.stream(context("b"), SimpleStreamOptions::default())).await;
    assert_eq!(types(&events), vec!["error"]);
    assert_eq!(message.error_message.as_deref(), Some("boom"));
}

#[tokio::test]
async fn cancelled_before_start_gives_a_single_aborted_error() {
    let provider = ScriptedProvider::new([text_message("never")]);
    let token = CancellationToken::new();
    token.cancel();
    let options = SimpleStreamOptions::from(StreamOptions {
        signal: Some(token),
        ..StreamOptions::default()
    });
    let (events, message) = collect(provider.stream(context("a"), options)).await;
    assert_eq!(types(&events), vec!["error"]);
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(message.error_message.as_deref(), Some(ABORTED_MESSAGE));
}

#[tokio::test(start_paused = true)]
async fn cancelling_mid_text_keeps_the_partial_and_skips_the_end() {
    let provider = ScriptedProvider::with_options(
        ScriptedOptions {
            tokens_per_chunk: 1..=1,
            tokens_per_second: Some(10.0),
            ..ScriptedOptions::default()
        },
        [text_message("abcdefghijkl")],
    );
    let token = CancellationToken::new();
    let options = SimpleStreamOptions::from(StreamOptions {
        signal: Some(token.clone()),
        ..StreamOptions::default()
    });
    let mut stream = provider.stream(context("a"), options);
    let mut seen = Vec::new();
    while let Some(event) = stream.next().await {
        if event.event_type() == "text_delta" {
            token.cancel();
        }
        seen.push(event.event_type());
    }
    assert_eq!(seen, vec!["start", "text_start", "text_delta", "error"]);
    let message = stream.result().await.unwrap();
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(message.text(), "abcd");
    assert_eq!(message.error_message.as_deref(), Some(ABORTED_MESSAGE));
}

#[tokio::test]
async fn prompt_caching_is_simulated_per_session() {
    let provider = ScriptedProvider::new([text_message("a"), text_message("b"), text_message("c")]);
    let session = |id: &str| {
        SimpleStreamOptions::from(StreamOptions {
            session_id: Some(id.into()),
            ..StreamOptions::default()
        })
    };
    let (_, first) = collect(provider.stream(context("hello there"), session("s1"))).await;
    assert_eq!(first.usage.cache_read, 0);
    assert!(first.usage.cache_write > 0);
    let (_, second) = collect(provider.stream(context("hello there, again"), session("s1"))).await;
    assert!(second.usage.cache_read > 0);
    let (_, other) = collect(provider.stream(context("hello there"), session("s2"))).await;
    assert_eq!(other.usage.cache_read, 0, "no sharing across sessions");
}

#[tokio::test]
async fn streams_through_a_models_registry() {
    let scripted = ScriptedProvider::new([text_message("via registry")]);
    let models = crate::Models::new();
    models.set_provider(scripted.provider());
    let model = models.model("scripted", "scripted-1").unwrap();
    let message = models
        .complete_simple(&model, context("a"), SimpleStreamOptions::default())
        .await;
    assert_eq!(message.text(), "via registry");
    let ghost = crate::Model {
        provider: "ghost".into(),
        ..model
    };
    let message = models
        .complete_simple(&ghost, context("a"), SimpleStreamOptions::default())
        .await;
    assert_eq!(
        message.error_message.as_deref(),
        Some("Unknown provider: ghost")
    );
}

#[tokio::test]
async fn two_tool_calls_stream_two_starts_and_two_ends() {
    let calls = [
        ToolCall::new("a", "one", json!({"x": 1})),
        ToolCall::new("b", "two", json!({"y": 2})),
    ];
    let provider = ScriptedProvider::new([tool_call_message(calls)]);
    let (events, message) =
        collect(provider.stream(context("a"), SimpleStreamOptions::default())).await;
    let count = |tag: &str| types(&events).iter().filter(|seen| **seen == tag).count();
    assert_eq!((count("toolcall_start"), count("toolcall_end")), (2, 2));
    assert_eq!(
        message
            .tool_calls()
            .map(|call| call.id.as_str())
            .collect::<Vec<_>>(),
        vec!["a", "b"]
    );
}

#[tokio::test(start_paused = true)]
async fn cancelling_mid_tool_call_sends_exactly_one_delta_and_no_end() {
    let call = ToolCall::new(
        "a",
        "write",
        json!({"content": "a fairly long piece of text"}),
    );
    let provider = ScriptedProvider::with_options(
        ScriptedOptions {
            tokens_per_chunk: 1..=1,
            tokens_per_second: Some(100.0),
            ..ScriptedOptions::default()
        },
        [tool_call_message([call])],
    );
    let token = CancellationToken::new();
    let options = SimpleStreamOptions::from(StreamOptions {
        signal: Some(token.clone()),
        ..StreamOptions::default()
    });
    let mut stream = provider.stream(context("a"), options);
    let mut seen = Vec::new();
    while let Some(event) = stream.next().await {
        if event.event_type() == "toolcall_delta" {
            token.cancel();
        }
        seen.push(event.event_type());
    }
    assert_eq!(
        seen,
        vec!["start", "toolcall_start", "toolcall_delta", "error"]
    );
    assert_eq!(
        stream.result().await.unwrap().stop_reason,
        StopReason::Aborted
    );
}

#[tokio::test]
async fn queued_responses_can_be_replaced_and_appended() {
    let provider = ScriptedProvider::new([text_message("dropped")]);
    provider.set_responses([text_message("first")]);
    provider.append_responses([text_message("second")]);
    assert_eq!(provider.pending_response_count(), 2);
    let (_, first) = collect(provider.stream(context("a"), SimpleStreamOptions::default())).await;
    let (_, second) = collect(provider.stream(context("b"), SimpleStreamOptions::default())).await;
    assert_eq!(
        (first.text().as_str(), second.text().as_str()),
        ("first", "second")
    );
    assert_eq!(provider.pending_response_count(), 0);
}
