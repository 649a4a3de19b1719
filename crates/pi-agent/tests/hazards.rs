//! Behaviour where the port deliberately differs from pi 0.85.1 (spec 6.7: hangs and unhandled errors) plus the
//! Rust-only guarantees (panics caught, a handle usable from several tasks). The traces of the conformance suite
//! cover everything else.

#![allow(
    clippy::unwrap_used,
    reason = "tests unwrap what they set up themselves"
)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use pi_agent::{
    Agent, AgentContext, AgentEvent, AgentInitialState, AgentLoopConfig, AgentMessage,
    AgentOptions, AgentTool, AgentToolResult, OPERATION_ABORTED,
    STREAM_ENDED_WITHOUT_TERMINAL_EVENT, StreamFnError, ToolError, ToolUpdateSink, agent_loop,
    stream_fn,
};
use pi_ai::{
    AssistantBlock, AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream,
    CancellationToken, DoneReason, Model, StopReason, ToolCall, UserMessage,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn model() -> Model {
    let mut model = Model::unknown();
    model.id = "test-model".into();
    model
}

/// A stream that emits `start`, then ends without a terminal event.
fn stream_without_terminal_event() -> pi_agent::StreamFn {
    stream_fn(|model: Model, _context, _options| async move {
        let start = AssistantMessageEvent::Start {
            partial: AssistantMessage::empty(&model).into(),
        };
        Ok(AssistantMessageEventStream::from_events(
            futures_util::stream::iter([start]),
        ))
    })
}

/// First response: one call of `tool`; every later response: a plain "done" answer.
fn tool_then_answer(tool: &'static str) -> pi_agent::StreamFn {
    let calls = Arc::new(Mutex::new(0));
    stream_fn(move |model: Model, _context, _options| {
        let first = {
            let mut calls = calls.lock().unwrap();
            *calls += 1;
            *calls == 1
        };
        async move {
            let mut message = AssistantMessage::empty(&model);
            let reason = if first {
                message
                    .content
                    .push(Arc::new(AssistantBlock::ToolCall(ToolCall::new(
                        "call_1",
                        tool,
                        json!({}),
                    ))));
                DoneReason::ToolUse
            } else {
                message.content.push(Arc::new(AssistantBlock::text("done")));
                DoneReason::Stop
            };
            message.stop_reason = StopReason::from(reason);
            let done = AssistantMessageEvent::Done {
                reason,
                message: message.into(),
            };
            Ok(AssistantMessageEventStream::from_events(
                futures_util::stream::iter([done]),
            ))
        }
    })
}

fn agent_with(stream: pi_agent::StreamFn, tools: Vec<pi_agent::SharedAgentTool>) -> Agent {
    let mut options = AgentOptions::new(stream);
    options.initial_state = AgentInitialState {
        model: Some(model()),
        tools,
        ..AgentInitialState::default()
    };
    Agent::new(options)
}

fn paused_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap()
}

fn tool_result_texts(agent: &Agent) -> Vec<String> {
    agent
        .messages()
        .iter()
        .filter_map(|message| match message {
            AgentMessage::ToolResult(result) => {
                Some(serde_json::to_value(&result.content).unwrap()[0]["text"].to_string())
            }
            _ => None,
        })
        .collect()
}

/// A tool that never finishes and ignores cancellation, or panics, depending on `behaviour`.
struct Misbehaving {
    name: &'static str,
    parameters: Value,
}

impl AgentTool for Misbehaving {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "misbehaves"
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    fn execute(
        &self,
        _id: String,
        _args: Value,
        _cancel: CancellationToken,
        _on_update: ToolUpdateSink,
    ) -> BoxFuture<'_, Result<AgentToolResult, ToolError>> {
        Box::pin(async move {
            if self.name == "panics" {
                panic!("tool exploded");
            }
            std::future::pending::<()>().await;
            Ok(AgentToolResult::text("never", json!({})))
        })
    }
}

fn misbehaving(name: &'static str) -> pi_agent::SharedAgentTool {
    Arc::new(Misbehaving {
        name,
        parameters: json!({ "type": "object", "properties": {} }),
    })
}

#[test]
fn a_stream_that_ends_without_a_terminal_event_fails_the_turn_instead_of_hanging() {
    paused_runtime().block_on(async {
        let agent = agent_with(stream_without_terminal_event(), Vec::new());
        agent.prompt("hi").await.unwrap();
        let last = agent.messages().pop().unwrap();
        let assistant = last.as_assistant().unwrap();
        assert_eq!(assistant.stop_reason, StopReason::Error);
        assert_eq!(
            assistant.error_message.as_deref(),
            Some(STREAM_ENDED_WITHOUT_TERMINAL_EVENT)
        );
        assert_eq!(
            agent.error_message().as_deref(),
            Some(STREAM_ENDED_WITHOUT_TERMINAL_EVENT)
        );
    });
}

#[test]
fn the_low_level_stream_ends_with_a_failure_sequence_when_the_stream_function_fails() {
    paused_runtime().block_on(async {
        let failing = stream_fn(|_model, _context, _options| async {
            Err(StreamFnError::new("provider exploded"))
        });
        let context = AgentContext::default();
        let prompt = AgentMessage::User(UserMessage::new("hi"));
        let stream = agent_loop(
            vec![prompt],
            context,
            AgentLoopConfig::new(model()),
            CancellationToken::new(),
            failing,
        );
        let result = stream.result();
        let types: Vec<&'static str> = stream.map(|event| event.event_type()).collect().await;
        assert_eq!(
            types,
            [
                "agent_start",
                "turn_start",
                "message_start",
                "message_end",
                "message_start",
                "message_end",
                "turn_end",
                "agent_end"
            ]
        );
        let messages = result.await.unwrap();
        let failure = messages[0].as_assistant().unwrap();
        assert_eq!(failure.error_message.as_deref(), Some("provider exploded"));
    });
}

#[test]
fn a_tool_that_ignores_cancellation_is_abandoned_after_the_grace_period() {
    paused_runtime().block_on(async {
        let agent = agent_with(tool_then_answer("stuck"), vec![misbehaving("stuck")]);
        agent.configure(|config| config.abort_grace_period = Duration::from_secs(2));
        let run = tokio::spawn(agent.prompt("go"));
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(agent.pending_tool_calls(), ["call_1"]);
        let aborted_at = tokio::time::Instant::now();
        agent.abort();
        run.await.unwrap().unwrap();
        assert!(
            aborted_at.elapsed() >= Duration::from_secs(2),
            "abandoned too early: {:?}",
            aborted_at.elapsed()
        );
        assert_eq!(
            tool_result_texts(&agent),
            [format!("\"{OPERATION_ABORTED}\"")]
        );
        assert!(!agent.is_streaming());
    });
}

#[test]
fn a_panicking_tool_becomes_an_error_result() {
    paused_runtime().block_on(async {
        let agent = agent_with(tool_then_answer("panics"), vec![misbehaving("panics")]);
        agent.prompt("go").await.unwrap();
        assert_eq!(
            tool_result_texts(&agent),
            ["\"panic in tool: tool exploded\""]
        );
        let last = agent.messages().pop().unwrap();
        assert_eq!(last.as_assistant().unwrap().stop_reason, StopReason::Stop);
    });
}

#[test]
fn a_panicking_listener_fails_the_run_with_a_failure_message() {
    paused_runtime().block_on(async {
        let agent = agent_with(tool_then_answer("unused"), Vec::new());
        let panicked = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&panicked);
        agent.subscribe(move |event: Arc<AgentEvent>, _cancel| {
            if event.event_type() == "turn_start" && !flag.swap(true, Ordering::SeqCst) {
                panic!("listener exploded");
            }
            async { Ok(()) }
        });
        agent.prompt("go").await.unwrap();
        let last = agent.messages().pop().unwrap();
        assert_eq!(
            last.as_assistant().unwrap().error_message.as_deref(),
            Some("panic in listener: listener exploded")
        );
    });
}

#[test]
fn another_task_can_abort_and_read_state_while_a_prompt_runs() {
    fn assert_handle<T: Send + Sync + Clone + 'static>() {}
    assert_handle::<Agent>();
    paused_runtime().block_on(async {
        let agent = agent_with(tool_then_answer("stuck"), vec![misbehaving("stuck")]);
        agent.configure(|config| config.abort_grace_period = Duration::from_millis(10));
        let run = tokio::spawn(agent.prompt("go"));
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(agent.is_streaming());
        assert_eq!(agent.pending_tool_calls(), ["call_1"]);
        agent.abort();
        run.await.unwrap().unwrap();
        assert!(!agent.is_streaming());
        assert_eq!(
            tool_result_texts(&agent),
            [format!("\"{OPERATION_ABORTED}\"")]
        );
    });
}
