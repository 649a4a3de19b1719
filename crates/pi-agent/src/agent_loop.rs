//! The agent loop (spec 3): prompt in, turns of "assistant response, then its tool batch" until nothing is left
//! to do, events out.
//!
//! Invariant: the loop works on [`AgentMessage`]s throughout and converts to LLM messages only in
//! `LoopRun::stream_assistant_response`, the single place where `transform_context` and `convert_to_llm` run.
//!
//! [`run_agent_loop`] / [`run_agent_loop_continue`] await every emission on a sink and return the new messages;
//! `loop_stream` runs them in the background as an event stream.

use std::sync::Arc;

use futures_util::StreamExt;
use pi_ai::{
    AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, Context,
    ModelThinkingLevel, StopReason, ToolCall,
};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::agent_event::{AgentEvent, AgentEventSink};
use crate::agent_message::AgentMessage;
use crate::guard::guard_hook;
use crate::loop_config::{AgentContext, AgentLoopConfig, TurnContext};
use crate::loop_error::AgentLoopError;
use crate::stream_fn::{StreamFn, StreamFnError};
use crate::tool_execution::{ToolBatch, execute_tool_calls, fail_truncated_tool_calls};

/// The text an assistant message carries when its stream ended without a terminal event (spec 6.7 a).
pub const STREAM_ENDED_WITHOUT_TERMINAL_EVENT: &str = "Stream ended without a terminal event";

/// The text of a stream abandoned after the grace period (spec 6.7 c), as providers write it.
pub const REQUEST_ABORTED: &str = "Request was aborted";

/// Runs a prompt: emits `agent_start`, `turn_start` and the prompt messages, then the main loop. Returns every
/// message the run added (the prompts included). The caller's context is not modified.
pub async fn run_agent_loop(
    prompts: Vec<AgentMessage>,
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Arc<dyn AgentEventSink>,
    cancel: CancellationToken,
    stream_fn: StreamFn,
) -> Result<Vec<AgentMessage>, AgentLoopError> {
    let mut context = context;
    context.messages.extend(prompts.iter().cloned());
    emit.emit_owned(AgentEvent::AgentStart).await?;
    emit.emit_owned(AgentEvent::TurnStart).await?;
    for prompt in &prompts {
        emit.emit_owned(AgentEvent::MessageStart {
            message: prompt.clone(),
        })
        .await?;
        emit.emit_owned(AgentEvent::MessageEnd {
            message: prompt.clone(),
        })
        .await?;
    }
    let run = LoopRun {
        context,
        config,
        emit,
        cancel,
        stream_fn,
        new_messages: prompts,
    };
    run.run().await
}

/// Continues from an existing context without a new prompt: the last message must not be an assistant message
/// (the caller guarantees that `convert_to_llm` turns a custom tail into a user or tool-result message).
pub async fn run_agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Arc<dyn AgentEventSink>,
    cancel: CancellationToken,
    stream_fn: StreamFn,
) -> Result<Vec<AgentMessage>, AgentLoopError> {
    validate_continue(&context)?;
    emit.emit_owned(AgentEvent::AgentStart).await?;
    emit.emit_owned(AgentEvent::TurnStart).await?;
    let run = LoopRun {
        context,
        config,
        emit,
        cancel,
        stream_fn,
        new_messages: Vec::new(),
    };
    run.run().await
}

/// The preconditions of a continue run, checked before anything is emitted.
pub(crate) fn validate_continue(context: &AgentContext) -> Result<(), AgentLoopError> {
    match context.messages.last() {
        None => Err(AgentLoopError::NoMessages),
        Some(AgentMessage::Assistant(_)) => {
            Err(AgentLoopError::CannotContinueFrom("assistant".into()))
        }
        Some(_) => Ok(()),
    }
}

/// One run of the main loop.
struct LoopRun {
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Arc<dyn AgentEventSink>,
    cancel: CancellationToken,
    stream_fn: StreamFn,
    new_messages: Vec<AgentMessage>,
}

/// The previous turn, kept for `prepare_next_turn`.
struct LastTurn {
    message: Arc<AssistantMessage>,
    tool_results: Vec<pi_ai::ToolResultMessage>,
}

impl LoopRun {
    async fn emit(&self, event: AgentEvent) -> Result<(), AgentLoopError> {
        Ok(self.emit.emit_owned(event).await?)
    }

    async fn poll(
        &self,
        source: Option<&crate::loop_config::MessageSourceFn>,
    ) -> Result<Vec<AgentMessage>, AgentLoopError> {
        match source {
            Some(source) => Ok(guard_hook("getMessages", source()).await?),
            None => Ok(Vec::new()),
        }
    }

    fn turn_context(&self, turn: &LastTurn) -> TurnContext {
        TurnContext {
            message: turn.message.clone(),
            tool_results: turn.tool_results.clone(),
            context: Arc::new(self.context.clone()),
            new_messages: Arc::new(self.new_messages.clone()),
        }
    }

    /// The two nested loops of spec 3.2: inner = turns driven by tool results and steering; outer = follow-ups.
    async fn run(mut self) -> Result<Vec<AgentMessage>, AgentLoopError> {
        let mut pending = self
            .poll(self.config.get_steering_messages.as_ref())
            .await?;
        let mut last_turn: Option<LastTurn> = None;
        loop {
            let mut has_more_tool_calls = true;
            while has_more_tool_calls || !pending.is_empty() {
                if let Some(turn) = &last_turn {
                    self.prepare_next_turn(turn).await?;
                    if pending.is_empty() {
                        pending = self
                            .poll(self.config.get_steering_messages.as_ref())
                            .await?;
                    }
                    self.emit(AgentEvent::TurnStart).await?;
                }
                for message in std::mem::take(&mut pending) {
                    self.emit(AgentEvent::MessageStart {
                        message: message.clone(),
                    })
                    .await?;
                    self.emit(AgentEvent::MessageEnd {
                        message: message.clone(),
                    })
                    .await?;
                    self.context.messages.push(message.clone());
                    self.new_messages.push(message);
                }

                let message = self.stream_assistant_response().await?;
                self.new_messages
                    .push(AgentMessage::Assistant(Arc::clone(&message)));
                if message.stop_reason.is_failure() {
                    self.emit(AgentEvent::TurnEnd {
                        message,
                        tool_results: Vec::new(),
                    })
                    .await?;
                    self.emit(AgentEvent::AgentEnd {
                        messages: self.new_messages.clone(),
                    })
                    .await?;
                    return Ok(self.new_messages);
                }

                let tool_calls: Vec<ToolCall> = message.tool_calls().cloned().collect();
                let mut tool_results = Vec::new();
                if tool_calls.is_empty() {
                    has_more_tool_calls = false;
                } else {
                    let batch: ToolBatch = if message.stop_reason == StopReason::Length {
                        fail_truncated_tool_calls(&tool_calls, self.emit.as_ref()).await?
                    } else {
                        execute_tool_calls(
                            &self.context,
                            &message,
                            tool_calls,
                            &self.config,
                            &self.cancel,
                            &self.emit,
                        )
                        .await?
                    };
                    for result in &batch.results {
                        self.context
                            .messages
                            .push(AgentMessage::ToolResult(result.clone()));
                        self.new_messages
                            .push(AgentMessage::ToolResult(result.clone()));
                    }
                    has_more_tool_calls = !batch.terminate;
                    tool_results = batch.results;
                }

                self.emit(AgentEvent::TurnEnd {
                    message: Arc::clone(&message),
                    tool_results: tool_results.clone(),
                })
                .await?;
                let turn = LastTurn {
                    message,
                    tool_results,
                };
                if let Some(should_stop) = &self.config.should_stop_after_turn {
                    let stop = guard_hook(
                        "shouldStopAfterTurn",
                        should_stop(self.turn_context(&turn), self.cancel.clone()),
                    )
                    .await?;
                    if stop {
                        self.emit(AgentEvent::AgentEnd {
                            messages: self.new_messages.clone(),
                        })
                        .await?;
                        return Ok(self.new_messages);
                    }
                }
                last_turn = Some(turn);
                pending = self
                    .poll(self.config.get_steering_messages.as_ref())
                    .await?;
            }

            let follow_ups = self
                .poll(self.config.get_follow_up_messages.as_ref())
                .await?;
            if follow_ups.is_empty() {
                break;
            }
            pending = follow_ups;
        }
        self.emit(AgentEvent::AgentEnd {
            messages: self.new_messages.clone(),
        })
        .await?;
        Ok(self.new_messages)
    }

    async fn prepare_next_turn(&mut self, turn: &LastTurn) -> Result<(), AgentLoopError> {
        let Some(prepare) = &self.config.prepare_next_turn else {
            return Ok(());
        };
        let update = guard_hook(
            "prepareNextTurn",
            prepare(self.turn_context(turn), self.cancel.clone()),
        )
        .await?;
        let Some(update) = update else {
            return Ok(());
        };
        if let Some(context) = update.context {
            self.context = context;
        }
        if let Some(model) = update.model {
            self.config.model = model;
        }
        match update.thinking_level {
            None => {}
            Some(ModelThinkingLevel::Off) => self.config.stream_options.reasoning = None,
            Some(level) => self.config.stream_options.reasoning = level.reasoning(),
        }
        Ok(())
    }

    /// Spec 3.3: one request, its events turned into `message_*` events; returns the final assistant message.
    async fn stream_assistant_response(&mut self) -> Result<Arc<AssistantMessage>, AgentLoopError> {
        let messages = match &self.config.transform_context {
            Some(transform) => {
                guard_hook(
                    "transformContext",
                    transform(self.context.messages.clone(), self.cancel.clone()),
                )
                .await?
            }
            None => self.context.messages.clone(),
        };
        let llm_messages =
            guard_hook("convertToLlm", (self.config.convert_to_llm)(messages)).await?;
        let llm_context = Context {
            system_prompt: Some(self.context.system_prompt.clone()),
            messages: llm_messages,
            tools: Some(
                self.context
                    .tools
                    .iter()
                    .map(|tool| tool.to_tool())
                    .collect(),
            ),
        };
        let mut options = self.config.stream_options.clone();
        if let Some(get_api_key) = &self.config.get_api_key {
            let key =
                guard_hook("getApiKey", get_api_key(self.config.model.provider.clone())).await?;
            if let Some(key) = key.filter(|key| !key.is_empty()) {
                options.base.api_key = Some(key);
            }
        }
        options.base.signal = Some(self.cancel.clone());
        let stream = guard_hook_stream((self.stream_fn)(
            self.config.model.clone(),
            llm_context,
            options,
        ))
        .await?;
        self.consume_stream(stream).await
    }

    async fn consume_stream(
        &mut self,
        mut stream: AssistantMessageEventStream,
    ) -> Result<Arc<AssistantMessage>, AgentLoopError> {
        let mut partial_index: Option<usize> = None;
        // The last partial, shared with its event, so an abandoned stream can be finalized from it.
        let mut last_partial: Option<Arc<AssistantMessage>> = None;
        let mut abandon_at: Option<Instant> = None;
        let final_message = loop {
            match next_event(
                &mut stream,
                &self.cancel,
                self.config.abort_grace_period,
                &mut abandon_at,
            )
            .await
            {
                NextEvent::Event(AssistantMessageEvent::Start { partial }) => {
                    self.context
                        .messages
                        .push(AgentMessage::Assistant(Arc::clone(&partial)));
                    partial_index = Some(self.context.messages.len() - 1);
                    last_partial = Some(Arc::clone(&partial));
                    self.emit
                        .emit(Arc::new(AgentEvent::MessageStart {
                            message: AgentMessage::Assistant(partial),
                        }))
                        .await?;
                }
                NextEvent::Event(AssistantMessageEvent::Done { message, .. }) => break message,
                NextEvent::Event(AssistantMessageEvent::Error { error, .. }) => break error,
                NextEvent::Event(update) => {
                    // Updates before `start` are dropped (spec 3.3). The live context is not refreshed per delta:
                    // nothing can read it until the final message replaces the partial. The event's `message` is
                    // the update's own `partial` (one shared snapshot, as in pi).
                    if partial_index.is_some() {
                        let partial = Arc::clone(update.shared_message());
                        last_partial = Some(Arc::clone(&partial));
                        self.emit
                            .emit(Arc::new(AgentEvent::MessageUpdate {
                                message: AgentMessage::Assistant(partial),
                                assistant_message_event: update,
                            }))
                            .await?;
                    }
                }
                NextEvent::Ended => match stream.result().await {
                    Ok(message) => break Arc::new(message),
                    Err(_) => {
                        break Arc::new(self.synthesized_final(
                            last_partial.as_deref(),
                            STREAM_ENDED_WITHOUT_TERMINAL_EVENT,
                        ));
                    }
                },
                NextEvent::Abandoned => {
                    let mut message =
                        self.synthesized_final(last_partial.as_deref(), REQUEST_ABORTED);
                    message.stop_reason = StopReason::Aborted;
                    break Arc::new(message);
                }
            }
        };
        drop(last_partial);
        match partial_index {
            Some(index) => {
                if let Some(slot) = self.context.messages.get_mut(index) {
                    *slot = AgentMessage::Assistant(Arc::clone(&final_message));
                }
            }
            None => {
                self.context
                    .messages
                    .push(AgentMessage::Assistant(Arc::clone(&final_message)));
                self.emit(AgentEvent::MessageStart {
                    message: AgentMessage::Assistant(Arc::clone(&final_message)),
                })
                .await?;
            }
        }
        self.emit(AgentEvent::MessageEnd {
            message: AgentMessage::Assistant(Arc::clone(&final_message)),
        })
        .await?;
        Ok(final_message)
    }

    /// A final message for a stream that never delivered one: the last partial (or an empty message).
    fn synthesized_final(
        &self,
        partial: Option<&AssistantMessage>,
        error: &str,
    ) -> AssistantMessage {
        let mut message = partial
            .cloned()
            .unwrap_or_else(|| AssistantMessage::empty(&self.config.model));
        message.stop_reason = if self.cancel.is_cancelled() {
            StopReason::Aborted
        } else {
            StopReason::Error
        };
        message.error_message = Some(error.to_string());
        message
    }
}

/// Awaits the stream function, turning a panic into a stream-function failure.
async fn guard_hook_stream(
    future: crate::stream_fn::StreamFnFuture,
) -> Result<AssistantMessageEventStream, AgentLoopError> {
    use futures_util::FutureExt;
    match std::panic::AssertUnwindSafe(future).catch_unwind().await {
        Ok(outcome) => Ok(outcome?),
        Err(panic) => Err(AgentLoopError::StreamFn(StreamFnError::new(
            crate::guard::panic_message("stream function", &*panic),
        ))),
    }
}

#[allow(
    clippy::large_enum_variant,
    reason = "moved once per stream event, straight into the emitted event"
)]
enum NextEvent {
    Event(AssistantMessageEvent),
    Ended,
    Abandoned,
}

/// The next stream event; once the run is cancelled the stream gets `grace` to finish, then it is abandoned.
async fn next_event(
    stream: &mut AssistantMessageEventStream,
    cancel: &CancellationToken,
    grace: std::time::Duration,
    abandon_at: &mut Option<Instant>,
) -> NextEvent {
    if abandon_at.is_none() {
        tokio::select! {
            biased;
            event = stream.next() => return event.map_or(NextEvent::Ended, NextEvent::Event),
            () = cancel.cancelled() => {}
        }
        *abandon_at = Some(Instant::now() + grace);
    }
    let deadline = abandon_at.unwrap_or_else(Instant::now);
    tokio::select! {
        biased;
        event = stream.next() => event.map_or(NextEvent::Ended, NextEvent::Event),
        () = tokio::time::sleep_until(deadline) => NextEvent::Abandoned,
    }
}
