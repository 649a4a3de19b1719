//! Executing one assistant message's tool calls (spec 3.4): preparation (lookup, `prepare_arguments`,
//! validation, `before_tool_call`, abort checks), execution, finalization (`after_tool_call`) and the tool-result
//! messages, sequentially or in parallel.
//!
//! A parallel batch stays on the loop's task: the per-call futures are joined, polled in source order, and each
//! emits its own `tool_execution_end` when it finishes (completion order; same-instant completions in source
//! order). Tool-result messages are always emitted in source order after the whole batch.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, StreamExt};
use pi_ai::{AssistantMessage, ToolCall, ToolResultMessage, now_millis};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::agent_event::{AgentEvent, AgentEventSink};
use crate::agent_message::AgentMessage;
use crate::agent_tool::{AgentToolResult, SharedAgentTool, ToolExecutionMode, ToolUpdateSink};
use crate::guard::{guard_hook, guard_sync, panic_message};
use crate::loop_config::{
    AfterToolCallContext, AgentContext, AgentLoopConfig, BeforeToolCallContext,
};
use crate::loop_error::AgentLoopError;
use crate::tool_update::drive_updates;

/// The text of a call skipped or abandoned because the run was cancelled.
pub const OPERATION_ABORTED: &str = "Operation aborted";

/// The results of one batch and whether it asks to end the run's automatic follow-up request.
pub(crate) struct ToolBatch {
    pub(crate) results: Vec<ToolResultMessage>,
    pub(crate) terminate: bool,
}

/// A finalized call.
struct Outcome {
    tool_call: ToolCall,
    result: AgentToolResult,
    is_error: bool,
}

impl Outcome {
    fn error(tool_call: &ToolCall, message: impl Into<String>) -> Self {
        Self {
            tool_call: tool_call.clone(),
            result: AgentToolResult::error(message),
            is_error: true,
        }
    }

    fn end_event(&self) -> AgentEvent {
        AgentEvent::ToolExecutionEnd {
            tool_call_id: self.tool_call.id.clone(),
            tool_name: self.tool_call.name.clone(),
            result: self.result.clone(),
            is_error: self.is_error,
        }
    }

    fn message(&self) -> ToolResultMessage {
        ToolResultMessage {
            tool_call_id: self.tool_call.id.clone(),
            tool_name: self.tool_call.name.clone(),
            content: self.result.content.clone().unwrap_or_default(),
            details: self.result.details.clone(),
            usage: self.result.usage,
            added_tool_names: self
                .result
                .added_tool_names
                .clone()
                .filter(|names| !names.is_empty()),
            is_error: self.is_error,
            timestamp: now_millis(),
        }
    }
}

/// A call ready to execute.
struct PreparedCall {
    tool_call: ToolCall,
    tool: SharedAgentTool,
    args: Value,
}

/// Preparation yields a call to execute or an immediate outcome.
#[allow(
    clippy::large_enum_variant,
    reason = "one per tool call, consumed at once"
)]
enum Preparation {
    Prepared(PreparedCall),
    Immediate(Outcome),
}

/// Shared inputs of one batch.
struct Batch<'a> {
    context: &'a AgentContext,
    assistant_message: &'a Arc<AssistantMessage>,
    config: &'a AgentLoopConfig,
    cancel: &'a CancellationToken,
    emit: &'a Arc<dyn AgentEventSink>,
    /// Snapshot handed to the tool hooks (only built when a hook is set).
    hook_context: Option<Arc<AgentContext>>,
}

fn start_event(tool_call: &ToolCall) -> AgentEvent {
    AgentEvent::ToolExecutionStart {
        tool_call_id: tool_call.id.clone(),
        tool_name: tool_call.name.clone(),
        args: tool_call.arguments.clone(),
    }
}

/// Executes the calls of a non-truncated assistant message (spec 3.4.1–3.4.9).
pub(crate) async fn execute_tool_calls(
    context: &AgentContext,
    assistant_message: &Arc<AssistantMessage>,
    tool_calls: Vec<ToolCall>,
    config: &AgentLoopConfig,
    cancel: &CancellationToken,
    emit: &Arc<dyn AgentEventSink>,
) -> Result<ToolBatch, AgentLoopError> {
    let hooks_set = config.before_tool_call.is_some() || config.after_tool_call.is_some();
    let batch = Batch {
        context,
        assistant_message,
        config,
        cancel,
        emit,
        hook_context: hooks_set.then(|| Arc::new(context.clone())),
    };
    let sequential = config.tool_execution == ToolExecutionMode::Sequential
        || tool_calls.iter().any(|tool_call| {
            find_tool(context, &tool_call.name)
                .is_some_and(|tool| tool.execution_mode() == Some(ToolExecutionMode::Sequential))
        });
    let outcomes = if sequential {
        batch.run_sequential(tool_calls).await?
    } else {
        batch.run_parallel(tool_calls).await?
    };
    let terminate = !outcomes.is_empty()
        && outcomes
            .iter()
            .all(|(outcome, _)| outcome.result.terminates());
    Ok(ToolBatch {
        results: outcomes.into_iter().map(|(_, message)| message).collect(),
        terminate,
    })
}

/// Spec 3.4.7: calls of a `length`-truncated message are never prepared or executed; each gets an error result.
pub(crate) async fn fail_truncated_tool_calls(
    tool_calls: &[ToolCall],
    emit: &dyn AgentEventSink,
) -> Result<ToolBatch, AgentLoopError> {
    let mut results = Vec::with_capacity(tool_calls.len());
    for tool_call in tool_calls {
        emit.emit_owned(start_event(tool_call)).await?;
        let text = format!(
            "Tool call \"{}\" was not executed: the response hit the output token limit, so its arguments may be \
             truncated. Re-issue the tool call with complete arguments.",
            tool_call.name
        );
        let outcome = Outcome::error(tool_call, text);
        emit.emit_owned(outcome.end_event()).await?;
        let message = outcome.message();
        emit_result_message(emit, &message).await?;
        results.push(message);
    }
    Ok(ToolBatch {
        results,
        terminate: false,
    })
}

async fn emit_result_message(
    emit: &dyn AgentEventSink,
    message: &ToolResultMessage,
) -> Result<(), AgentLoopError> {
    emit.emit_owned(AgentEvent::MessageStart {
        message: AgentMessage::ToolResult(message.clone()),
    })
    .await?;
    emit.emit_owned(AgentEvent::MessageEnd {
        message: AgentMessage::ToolResult(message.clone()),
    })
    .await?;
    Ok(())
}

fn find_tool(context: &AgentContext, name: &str) -> Option<SharedAgentTool> {
    context
        .tools
        .iter()
        .find(|tool| tool.name() == name)
        .cloned()
}

impl Batch<'_> {
    /// Spec 3.4.8: one call at a time; an abort stops the batch after the current call's result.
    async fn run_sequential(
        &self,
        tool_calls: Vec<ToolCall>,
    ) -> Result<Vec<(Outcome, ToolResultMessage)>, AgentLoopError> {
        let mut outcomes = Vec::with_capacity(tool_calls.len());
        for tool_call in tool_calls {
            self.emit.emit_owned(start_event(&tool_call)).await?;
            let outcome = match self.prepare(&tool_call).await {
                Preparation::Immediate(outcome) => outcome,
                Preparation::Prepared(prepared) => {
                    let (result, is_error) = self.execute(&prepared).await?;
                    self.finalize(prepared, result, is_error).await
                }
            };
            self.emit.emit_owned(outcome.end_event()).await?;
            let message = outcome.message();
            emit_result_message(self.emit.as_ref(), &message).await?;
            outcomes.push((outcome, message));
            if self.cancel.is_cancelled() {
                break;
            }
        }
        Ok(outcomes)
    }

    /// Spec 3.4.9: sequential preflight, concurrent execution, results in source order.
    async fn run_parallel(
        &self,
        tool_calls: Vec<ToolCall>,
    ) -> Result<Vec<(Outcome, ToolResultMessage)>, AgentLoopError> {
        let mut slots: Vec<Option<Outcome>> = Vec::with_capacity(tool_calls.len());
        let mut prepared_calls = Vec::new();
        for tool_call in tool_calls {
            self.emit.emit_owned(start_event(&tool_call)).await?;
            match self.prepare(&tool_call).await {
                Preparation::Immediate(outcome) => {
                    self.emit.emit_owned(outcome.end_event()).await?;
                    slots.push(Some(outcome));
                }
                Preparation::Prepared(prepared) => {
                    prepared_calls.push((slots.len(), prepared));
                    slots.push(None);
                }
            }
            if self.cancel.is_cancelled() {
                break;
            }
        }

        let mut running: FuturesUnordered<_> = prepared_calls
            .into_iter()
            .map(|(index, prepared)| self.run_prepared(index, prepared))
            .collect();
        while let Some(finished) = running.next().await {
            let (index, outcome) = finished?;
            if let Some(slot) = slots.get_mut(index) {
                *slot = Some(outcome);
            }
        }
        drop(running);

        let mut outcomes = Vec::with_capacity(slots.len());
        for outcome in slots.into_iter().flatten() {
            let message = outcome.message();
            emit_result_message(self.emit.as_ref(), &message).await?;
            outcomes.push((outcome, message));
        }
        Ok(outcomes)
    }

    /// Phase 2 of a parallel batch for one prepared call.
    async fn run_prepared(
        &self,
        index: usize,
        prepared: PreparedCall,
    ) -> Result<(usize, Outcome), AgentLoopError> {
        if self.cancel.is_cancelled() {
            let outcome = Outcome::error(&prepared.tool_call, OPERATION_ABORTED);
            self.emit.emit_owned(outcome.end_event()).await?;
            return Ok((index, outcome));
        }
        let (result, is_error) = self.execute(&prepared).await?;
        // pi continues after `await execute()` in a later microtask, so every call of the batch has started
        // before any of them is finalized; one yield reproduces that order.
        YieldOnce::default().await;
        let outcome = self.finalize(prepared, result, is_error).await;
        self.emit.emit_owned(outcome.end_event()).await?;
        Ok((index, outcome))
    }

    /// Spec 3.4.2.
    async fn prepare(&self, tool_call: &ToolCall) -> Preparation {
        let Some(tool) = find_tool(self.context, &tool_call.name) else {
            return Preparation::Immediate(Outcome::error(
                tool_call,
                format!("Tool {} not found", tool_call.name),
            ));
        };
        let raw = tool_call.arguments.clone();
        let prepared_args = match guard_sync("prepareArguments", || tool.prepare_arguments(raw)) {
            Ok(Ok(args)) => args,
            Ok(Err(error)) => {
                return Preparation::Immediate(Outcome::error(tool_call, error.to_string()));
            }
            Err(panic) => return Preparation::Immediate(Outcome::error(tool_call, panic)),
        };
        let mut args =
            match pi_ai::validate_arguments(tool.name(), tool.parameters(), &prepared_args) {
                Ok(args) => args,
                Err(error) => {
                    return Preparation::Immediate(Outcome::error(tool_call, error.to_string()));
                }
            };
        if let Some(before) = &self.config.before_tool_call {
            let ctx = BeforeToolCallContext {
                assistant_message: Arc::clone(self.assistant_message),
                tool_call: tool_call.clone(),
                args: args.clone(),
                context: self.hook_context.clone().unwrap_or_default(),
            };
            let decision = guard_hook("beforeToolCall", before(ctx, self.cancel.clone())).await;
            match decision {
                Err(error) => {
                    return Preparation::Immediate(Outcome::error(tool_call, error.to_string()));
                }
                Ok(decision) => {
                    if self.cancel.is_cancelled() {
                        return Preparation::Immediate(Outcome::error(
                            tool_call,
                            OPERATION_ABORTED,
                        ));
                    }
                    if let Some(decision) = decision {
                        if decision.block {
                            let reason = decision
                                .reason
                                .unwrap_or_else(|| "Tool execution was blocked".to_string());
                            let mut outcome = Outcome::error(tool_call, reason);
                            if decision.terminate == Some(true) {
                                outcome.result.terminate = Some(true);
                            }
                            return Preparation::Immediate(outcome);
                        }
                        if let Some(replacement) = decision.args {
                            args = replacement;
                        }
                    }
                }
            }
        }
        if self.cancel.is_cancelled() {
            return Preparation::Immediate(Outcome::error(tool_call, OPERATION_ABORTED));
        }
        Preparation::Prepared(PreparedCall {
            tool_call: tool_call.clone(),
            tool,
            args,
        })
    }

    /// Spec 3.4.3: runs `execute` while delivering its progress updates; returns the result and the error flag.
    async fn execute(
        &self,
        prepared: &PreparedCall,
    ) -> Result<(AgentToolResult, bool), AgentLoopError> {
        let (sink, updates) = ToolUpdateSink::open(
            Arc::clone(self.emit),
            prepared.tool_call.id.clone(),
            prepared.tool_call.name.clone(),
            prepared.tool_call.arguments.clone(),
        );
        let execution = async {
            let future = prepared.tool.execute(
                prepared.tool_call.id.clone(),
                prepared.args.clone(),
                self.cancel.clone(),
                sink.clone(),
            );
            let outcome =
                guarded_execute(future, self.cancel, self.config.abort_grace_period).await;
            sink.close();
            outcome
        };
        let (outcome, delivered) = tokio::join!(execution, drive_updates(updates));
        delivered?;
        Ok(match outcome {
            Ok(result) => (result, false),
            Err(message) => (AgentToolResult::error(message), true),
        })
    }

    /// Spec 3.4.4: `after_tool_call` and its field-by-field override.
    async fn finalize(
        &self,
        prepared: PreparedCall,
        result: AgentToolResult,
        is_error: bool,
    ) -> Outcome {
        let PreparedCall {
            tool_call, args, ..
        } = prepared;
        let Some(after) = &self.config.after_tool_call else {
            return Outcome {
                tool_call,
                result,
                is_error,
            };
        };
        let ctx = AfterToolCallContext {
            assistant_message: Arc::clone(self.assistant_message),
            tool_call: tool_call.clone(),
            args,
            result: result.clone(),
            is_error,
            context: self.hook_context.clone().unwrap_or_default(),
        };
        match guard_hook("afterToolCall", after(ctx, self.cancel.clone())).await {
            Err(error) => Outcome::error(&tool_call, error.to_string()),
            Ok(None) => Outcome {
                tool_call,
                result,
                is_error,
            },
            Ok(Some(change)) => {
                let mut result = result;
                if let Some(content) = change.content {
                    result.content = Some(content);
                }
                if let Some(details) = change.details {
                    result.details = Some(details);
                }
                if let Some(usage) = change.usage {
                    result.usage = Some(usage);
                }
                if let Some(terminate) = change.terminate {
                    result.terminate = Some(terminate);
                }
                Outcome {
                    tool_call,
                    result,
                    is_error: change.is_error.unwrap_or(is_error),
                }
            }
        }
    }
}

/// Awaits a tool's `execute`, catching panics; after cancellation the tool gets `grace` before it is abandoned.
async fn guarded_execute(
    future: impl Future<Output = Result<AgentToolResult, crate::agent_tool::ToolError>>,
    cancel: &CancellationToken,
    grace: std::time::Duration,
) -> Result<AgentToolResult, String> {
    let future = AssertUnwindSafe(future).catch_unwind();
    let abandon = async {
        cancel.cancelled().await;
        tokio::time::sleep(grace).await;
    };
    tokio::select! {
        biased;
        outcome = future => match outcome {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(error.to_string()),
            Err(panic) => Err(panic_message("tool", &*panic)),
        },
        () = abandon => Err(OPERATION_ABORTED.to_string()),
    }
}

/// Returns `Pending` once (waking itself immediately), then `Ready`.
#[derive(Default)]
struct YieldOnce {
    yielded: bool,
}

impl Future for YieldOnce {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
