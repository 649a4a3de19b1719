//! The scripted stream function (SCENARIOS.md section 4): each call takes the next scripted response and streams it
//! like pi-ai's HTTP providers — one live message grown in place, events produced lazily, one per pull, with the
//! abort token checked before every event.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use futures_util::Stream;
use pi_agent::{StreamFn, StreamFnError, stream_fn};
use pi_ai::{
    AssistantBlock, AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, Context,
    Cost, DoneReason, ErrorReason, Model, SimpleStreamOptions, StopReason, ToolCall, Usage,
    parse_streaming_json,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::recorder::Recorder;
use super::scenario::{ResponseSpec, StepSpec, UsageSpec};
use super::trace::{normalize, object};

/// pi-ai's faux provider text for aborted requests.
const ABORT_ERROR_MESSAGE: &str = "Request was aborted";

/// Builds the scripted stream function over `responses`; every call is logged in `requests`.
pub fn scripted_stream_fn(
    responses: Arc<[Arc<ResponseSpec>]>,
    recorder: Arc<Recorder>,
) -> StreamFn {
    let cursor = Arc::new(Mutex::new((0usize, 0u64)));
    stream_fn(
        move |model: Model, context: Context, options: SimpleStreamOptions| {
            let signal = options.base.signal.clone().unwrap_or_default();
            let aborted = signal.is_cancelled();
            let (index, request_number) = {
                let mut cursor = cursor.lock().unwrap_or_else(PoisonError::into_inner);
                cursor.1 += 1;
                // A request made with an already-aborted signal is never "sent": it consumes no response.
                let index = if aborted {
                    None
                } else {
                    cursor.0 += 1;
                    Some(cursor.0 - 1).filter(|index| *index < responses.len())
                };
                (index, cursor.1)
            };
            let response = index.and_then(|index| responses.get(index).cloned());
            let logged = log_request(
                &recorder,
                request_number,
                &model,
                &context,
                &options,
                index,
                aborted,
            );
            let result = match logged {
                Err(error) => Err(StreamFnError::new(error.to_string())),
                Ok(()) => match response
                    .as_ref()
                    .and_then(|response| response.throw.as_deref())
                {
                    Some(message) => Err(StreamFnError::new(message)),
                    None => {
                        let effective = response.unwrap_or_else(|| {
                            Arc::new(if aborted {
                                ResponseSpec::default()
                            } else {
                                ResponseSpec {
                                    fail_before_start: Some(format!(
                                        "scripted model: no response left for request {request_number}"
                                    )),
                                    ..ResponseSpec::default()
                                }
                            })
                        });
                        Ok(AssistantMessageEventStream::from_events(Producer::new(
                            effective, &model, signal,
                        )))
                    }
                },
            };
            futures_util::future::ready(result)
        },
    )
}

fn log_request(
    recorder: &Recorder,
    request_number: u64,
    model: &Model,
    context: &Context,
    options: &SimpleStreamOptions,
    index: Option<usize>,
    aborted: bool,
) -> Result<(), super::HarnessError> {
    let messages = normalize(&context.messages)?;
    let tools: Vec<Value> = context
        .tools
        .iter()
        .flatten()
        .map(|tool| Value::String(tool.name.clone()))
        .collect();
    recorder.push_with_seq(super::recorder::Log::Requests, |seq, event_index| {
        let mut entries = vec![
            ("seq", Value::from(seq)),
            ("request", Value::from(request_number)),
            ("eventIndex", Value::from(event_index)),
            ("model", Value::String(model.id.clone())),
        ];
        if let Some(reasoning) = options.reasoning {
            entries.push(("reasoning", Value::String(reasoning.as_str().to_string())));
        }
        entries.extend([
            (
                "systemPrompt",
                context
                    .system_prompt
                    .clone()
                    .map_or(Value::Null, Value::String),
            ),
            ("tools", Value::Array(tools)),
            ("messages", messages),
            ("response", index.map_or(Value::Null, Value::from)),
            ("signalAborted", Value::Bool(aborted)),
        ]);
        object(entries)
    });
    Ok(())
}

/// Completes a partial usage spec: counters default to 0, `totalTokens` to their sum, cost to zeros.
pub fn complete_usage(spec: Option<&UsageSpec>) -> Usage {
    let mut usage = Usage::default();
    let Some(spec) = spec else {
        return usage;
    };
    usage.input = spec.input;
    usage.output = spec.output;
    usage.cache_read = spec.cache_read;
    usage.cache_write = spec.cache_write;
    usage.total_tokens = spec
        .total_tokens
        .unwrap_or(usage.input + usage.output + usage.cache_read + usage.cache_write);
    if let Some(cost) = &spec.cost {
        let base = Cost::default();
        usage.cost = Cost {
            input: cost.input.unwrap_or(base.input),
            output: cost.output.unwrap_or(base.output),
            cache_read: cost.cache_read.unwrap_or(base.cache_read),
            cache_write: cost.cache_write.unwrap_or(base.cache_write),
            total: cost.total.unwrap_or(base.total),
        };
    }
    usage
}

/// One compiled stream operation.
enum Op {
    Sleep(u64),
    WaitForAbort,
    Fail(String),
    TextStart { thinking: bool },
    TextDelta { thinking: bool, chunk: String },
    TextEnd { thinking: bool },
    ToolStart { id: String, name: String },
    ToolDelta { chunk: String },
    ToolEnd,
}

fn compile(response: &ResponseSpec) -> VecDeque<Op> {
    // One op per chunk plus a start and an end per step: sized once, so a long stream never regrows it.
    let capacity = response.steps.iter().fold(0, |total, step| {
        let chunks = match step {
            StepSpec::Text { chunks, .. } | StepSpec::Thinking { chunks, .. } => chunks.len(),
            _ => 1,
        };
        total + chunks + 2
    });
    let mut ops = VecDeque::with_capacity(capacity);
    for step in &response.steps {
        match step {
            StepSpec::Sleep(ms) => ops.push_back(Op::Sleep(*ms)),
            StepSpec::WaitForAbort => ops.push_back(Op::WaitForAbort),
            StepSpec::Error(message) => ops.push_back(Op::Fail(message.clone())),
            StepSpec::Text { chunks, end } | StepSpec::Thinking { chunks, end } => {
                let thinking = matches!(step, StepSpec::Thinking { .. });
                ops.push_back(Op::TextStart { thinking });
                for chunk in chunks {
                    ops.push_back(Op::TextDelta {
                        thinking,
                        chunk: chunk.clone(),
                    });
                }
                if *end {
                    ops.push_back(Op::TextEnd { thinking });
                }
            }
            StepSpec::ToolCall { call, end } => {
                ops.push_back(Op::ToolStart {
                    id: call.id.clone(),
                    name: call.name.clone(),
                });
                let chunks: Vec<String> = match &call.args {
                    Some(Value::Array(chunks)) => chunks
                        .iter()
                        .map(|chunk| chunk.as_str().unwrap_or_default().to_string())
                        .collect(),
                    Some(args) => vec![args.to_string()],
                    None => vec!["{}".to_string()],
                };
                for chunk in chunks {
                    ops.push_back(Op::ToolDelta { chunk });
                }
                if *end {
                    ops.push_back(Op::ToolEnd);
                }
            }
        }
    }
    ops
}

/// The producer: one live message, grown in place while no event holds it (`Arc::make_mut`), and handed out
/// shared as every event's `partial`. It is a [`Stream`] that builds each event synchronously when pulled; only
/// scripted sleeps and waits for the abort signal suspend it.
struct Producer {
    response: Arc<ResponseSpec>,
    output: Arc<AssistantMessage>,
    signal: CancellationToken,
    ops: VecDeque<Op>,
    started: bool,
    finished: bool,
    current_index: usize,
    json: String,
    /// A scripted sleep or wait in progress; the next event is built once it completes.
    waiting: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

/// What one synchronous step of the producer yields.
enum Step {
    Event(AssistantMessageEvent),
    Wait(Pin<Box<dyn Future<Output = ()> + Send>>),
    End,
}

impl Stream for Producer {
    type Item = AssistantMessageEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(waiting) = this.waiting.as_mut() {
                if waiting.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                this.waiting = None;
            }
            match this.step() {
                Step::Event(event) => return Poll::Ready(Some(event)),
                Step::End => return Poll::Ready(None),
                Step::Wait(waiting) => this.waiting = Some(waiting),
            }
        }
    }
}

impl Producer {
    fn new(response: Arc<ResponseSpec>, model: &Model, signal: CancellationToken) -> Self {
        let mut output = AssistantMessage::empty(model);
        output.response_id.clone_from(&response.response_id);
        let ops = compile(&response);
        Producer {
            response,
            output: Arc::new(output),
            signal,
            ops,
            started: false,
            finished: false,
            current_index: 0,
            json: String::new(),
            waiting: None,
        }
    }

    /// The live message, copied first if an event still holds the current version.
    fn output_mut(&mut self) -> &mut AssistantMessage {
        Arc::make_mut(&mut self.output)
    }

    fn partial(&self) -> Arc<AssistantMessage> {
        Arc::clone(&self.output)
    }

    fn aborted(&mut self) -> AssistantMessageEvent {
        self.finished = true;
        let output = self.output_mut();
        output.stop_reason = StopReason::Aborted;
        output.error_message = Some(ABORT_ERROR_MESSAGE.to_string());
        AssistantMessageEvent::Error {
            reason: ErrorReason::Aborted,
            error: self.partial(),
        }
    }

    fn failed(&mut self, message: String) -> AssistantMessageEvent {
        self.finished = true;
        let usage = complete_usage(self.response.usage.as_ref());
        let output = self.output_mut();
        output.stop_reason = StopReason::Error;
        output.error_message = Some(message);
        output.usage = usage;
        AssistantMessageEvent::Error {
            reason: ErrorReason::Error,
            error: self.partial(),
        }
    }

    fn step(&mut self) -> Step {
        if self.finished {
            return Step::End;
        }
        if !self.started {
            self.started = true;
            if self.signal.is_cancelled() {
                return Step::Event(self.aborted());
            }
            if let Some(message) = self.response.fail_before_start.clone() {
                return Step::Event(self.failed(message));
            }
            return Step::Event(AssistantMessageEvent::Start {
                partial: self.partial(),
            });
        }
        if self.signal.is_cancelled() {
            return Step::Event(self.aborted());
        }
        let Some(op) = self.ops.pop_front() else {
            return Step::Event(self.finish());
        };
        let event = match op {
            Op::Sleep(ms) => {
                let signal = self.signal.clone();
                return Step::Wait(Box::pin(async move {
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_millis(ms)) => {}
                        () = signal.cancelled() => {}
                    }
                }));
            }
            Op::WaitForAbort => return Step::Wait(Box::pin(self.signal.clone().cancelled_owned())),
            Op::Fail(message) => self.failed(message),
            Op::TextStart { thinking } => {
                let block = if thinking {
                    AssistantBlock::thinking("")
                } else {
                    AssistantBlock::text("")
                };
                let output = self.output_mut();
                output.content.push(Arc::new(block));
                let content_index = output.content.len() - 1;
                self.current_index = content_index;
                let partial = self.partial();
                if thinking {
                    AssistantMessageEvent::ThinkingStart {
                        content_index,
                        partial,
                    }
                } else {
                    AssistantMessageEvent::TextStart {
                        content_index,
                        partial,
                    }
                }
            }
            Op::TextDelta { thinking, chunk } => {
                let index = self.current_index;
                if let Some(block) = self.output_mut().content.get_mut(index) {
                    match Arc::make_mut(block) {
                        AssistantBlock::Text(text) => text.text.push_str(&chunk),
                        AssistantBlock::Thinking(text) => text.thinking.push_str(&chunk),
                        AssistantBlock::ToolCall(_) => {}
                    }
                }
                let partial = self.partial();
                if thinking {
                    AssistantMessageEvent::ThinkingDelta {
                        content_index: index,
                        delta: chunk,
                        partial,
                    }
                } else {
                    AssistantMessageEvent::TextDelta {
                        content_index: index,
                        delta: chunk,
                        partial,
                    }
                }
            }
            Op::TextEnd { thinking } => {
                let index = self.current_index;
                let content = match self.output.content.get(index).map(AsRef::as_ref) {
                    Some(AssistantBlock::Text(text)) => text.text.to_string(),
                    Some(AssistantBlock::Thinking(text)) => text.thinking.to_string(),
                    Some(AssistantBlock::ToolCall(_)) | None => String::new(),
                };
                let partial = self.partial();
                if thinking {
                    AssistantMessageEvent::ThinkingEnd {
                        content_index: index,
                        content,
                        partial,
                    }
                } else {
                    AssistantMessageEvent::TextEnd {
                        content_index: index,
                        content,
                        partial,
                    }
                }
            }
            Op::ToolStart { id, name } => {
                self.json.clear();
                let block = ToolCall::new(id, name, Value::Object(serde_json::Map::new()));
                let output = self.output_mut();
                output
                    .content
                    .push(Arc::new(AssistantBlock::ToolCall(block)));
                self.current_index = output.content.len() - 1;
                AssistantMessageEvent::ToolcallStart {
                    content_index: self.current_index,
                    partial: self.partial(),
                }
            }
            Op::ToolDelta { chunk } => {
                self.json.push_str(&chunk);
                self.set_arguments();
                AssistantMessageEvent::ToolcallDelta {
                    content_index: self.current_index,
                    delta: chunk,
                    partial: self.partial(),
                }
            }
            Op::ToolEnd => {
                let tool_call = self.set_arguments();
                AssistantMessageEvent::ToolcallEnd {
                    content_index: self.current_index,
                    tool_call: Box::new(tool_call),
                    partial: self.partial(),
                }
            }
        };
        Step::Event(event)
    }

    /// Re-parses the accumulated argument JSON into the current tool-call block; returns the block.
    fn set_arguments(&mut self) -> ToolCall {
        let arguments = parse_streaming_json(&self.json);
        let index = self.current_index;
        match self.output_mut().content.get_mut(index).map(Arc::make_mut) {
            Some(AssistantBlock::ToolCall(call)) => {
                call.arguments = arguments;
                call.clone()
            }
            _ => ToolCall::new("", "", arguments),
        }
    }

    fn finish(&mut self) -> AssistantMessageEvent {
        self.finished = true;
        let has_tool_call = self
            .response
            .steps
            .iter()
            .any(|step| matches!(step, StepSpec::ToolCall { .. }));
        let reason = match self.response.stop_reason {
            Some(reason) => reason.into(),
            None if has_tool_call => StopReason::ToolUse,
            None => StopReason::Stop,
        };
        let error_message = self.response.error_message.clone();
        let usage = complete_usage(self.response.usage.as_ref());
        let output = self.output_mut();
        output.usage = usage;
        output.stop_reason = reason;
        match reason {
            StopReason::Error | StopReason::Aborted => {
                output.error_message =
                    Some(error_message.unwrap_or_else(|| "An unknown error occurred".to_string()));
                let reason = if reason == StopReason::Error {
                    ErrorReason::Error
                } else {
                    ErrorReason::Aborted
                };
                AssistantMessageEvent::Error {
                    reason,
                    error: self.partial(),
                }
            }
            StopReason::Stop
            | StopReason::Length
            | StopReason::ToolUse
            | StopReason::Pending
            | StopReason::Deferred => {
                if error_message.is_some() {
                    output.error_message = error_message;
                }
                let done = match reason {
                    StopReason::Length => DoneReason::Length,
                    StopReason::ToolUse => DoneReason::ToolUse,
                    _ => DoneReason::Stop,
                };
                AssistantMessageEvent::Done {
                    reason: done,
                    message: self.partial(),
                }
            }
        }
    }
}
