//! A run's lifecycle (pi's `runWithLifecycle`, spec 2.5): how a run of an [`crate::Agent`] begins, executes and
//! settles.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::FutureExt;
use pi_ai::SimpleStreamOptions;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::agent::{ActiveRun, AgentError, AgentInner, Shared};
use crate::agent_event::AgentEventSink;
use crate::agent_loop::{run_agent_loop, run_agent_loop_continue};
use crate::agent_message::AgentMessage;
use crate::listeners::RunSink;
use crate::loop_config::{
    AgentContext, AgentLoopConfig, MessageSourceFn, PrepareNextTurnFn, TurnContext,
    default_convert_to_llm_fn,
};
use crate::loop_error::{AgentLoopError, failure_events, failure_message};

/// How a run starts.
pub(crate) enum RunKind {
    /// Runs the loop with these messages as prompts (`prompt`, or `continue_run` after an assistant tail).
    Prompt {
        messages: Vec<AgentMessage>,
        /// pi's `skipInitialSteeringPoll`: the prompts are the steering messages `continue_run` just drained, so
        /// the loop's first steering poll must find nothing (one-at-a-time mode still gives one message per turn).
        skip_initial_steering_poll: bool,
    },
    /// Continues from the transcript (`continue_run` after a user, tool-result or custom tail).
    Continue,
}

/// pi's `runWithLifecycle`. The run begins at once: it is registered and context and config are snapshotted
/// (spec 2.2); the caller checked that no run is active. The returned future executes it — the loop, then, if
/// the loop failed, the failure sequence (spec 2.5) — and settles it. However the future ends (dropped
/// unpolled included), the run settles and the agent returns to idle.
pub(crate) fn run_with_lifecycle(
    inner: &Arc<AgentInner>,
    shared: &mut Shared,
    kind: RunKind,
) -> impl Future<Output = Result<(), AgentError>> + Send + use<> {
    let cancel = CancellationToken::new();
    let (idle_tx, idle_rx) = watch::channel(false);
    let id = shared.next_run_id;
    shared.next_run_id += 1;
    shared.run = Some(ActiveRun {
        id,
        cancel: cancel.clone(),
        idle: idle_rx,
    });
    shared.live.state.is_streaming = true;
    shared.live.streaming_event = None;
    shared.live.state.error_message = None;
    let context = AgentContext {
        system_prompt: shared.live.state.system_prompt.clone(),
        messages: shared.live.state.messages.clone(),
        tools: shared.live.state.tools.clone(),
    };
    let skip_initial_steering_poll = match &kind {
        RunKind::Prompt {
            skip_initial_steering_poll,
            ..
        } => *skip_initial_steering_poll,
        RunKind::Continue => false,
    };
    let config = loop_config(inner, shared, skip_initial_steering_poll);
    let stream_fn = shared.config.stream_fn.clone();
    let guard = RunGuard {
        inner: Arc::clone(inner),
        id,
        idle: idle_tx,
    };

    async move {
        let sink: Arc<dyn AgentEventSink> = Arc::new(RunSink {
            inner: Arc::clone(&guard.inner),
            run_id: guard.id,
            cancel: cancel.clone(),
        });
        let outcome = match kind {
            RunKind::Prompt { messages, .. } => {
                run_agent_loop(
                    messages,
                    context,
                    config,
                    Arc::clone(&sink),
                    cancel.clone(),
                    stream_fn,
                )
                .await
            }
            RunKind::Continue => {
                run_agent_loop_continue(
                    context,
                    config,
                    Arc::clone(&sink),
                    cancel.clone(),
                    stream_fn,
                )
                .await
            }
        };
        if let Err(error) = outcome {
            report_failure(&guard.inner, sink.as_ref(), &cancel, &error).await?;
        }
        drop(guard);
        Ok(())
    }
}

/// Clears the run state when the run ends, however it ends (spec 2.5 "finally").
struct RunGuard {
    inner: Arc<AgentInner>,
    id: u64,
    idle: watch::Sender<bool>,
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        let mut shared = self.inner.lock();
        shared.live.state.is_streaming = false;
        shared.live.streaming_event = None;
        shared.live.state.pending_tool_calls.clear();
        if shared.run.as_ref().is_some_and(|run| run.id == self.id) {
            shared.run = None;
        }
        drop(shared);
        self.idle.send_replace(true);
    }
}

async fn report_failure(
    inner: &Arc<AgentInner>,
    sink: &dyn AgentEventSink,
    cancel: &CancellationToken,
    error: &AgentLoopError,
) -> Result<(), AgentError> {
    let model = inner.lock().live.state.model.clone();
    for event in failure_events(failure_message(&model, cancel, &error.to_string())) {
        sink.emit_owned(event)
            .await
            .map_err(|error| AgentError::Listener(error.message().to_string()))?;
    }
    Ok(())
}

/// The loop's view of the agent for one run (spec 2.2): request options and hooks as they are now; the queues and
/// `prepare_next_turn` are read through the agent at every call.
fn loop_config(
    inner: &Arc<AgentInner>,
    shared: &Shared,
    skip_initial_steering_poll: bool,
) -> AgentLoopConfig {
    let options = &shared.config;
    let mut stream_options = SimpleStreamOptions {
        reasoning: shared.live.state.thinking_level.reasoning(),
        thinking_budgets: options.thinking_budgets,
        ..SimpleStreamOptions::default()
    };
    stream_options.base.session_id = options.session_id.clone();
    stream_options.base.transport = Some(options.transport);
    if let Some(max_retry_delay_ms) = options.max_retry_delay_ms {
        stream_options.base.max_retry_delay_ms = max_retry_delay_ms;
    }
    stream_options.base.on_payload = options.on_payload.clone();
    stream_options.base.on_response = options.on_response.clone();

    let weak = Arc::downgrade(inner);
    let steering_source: MessageSourceFn = {
        let weak = weak.clone();
        let skip_next_poll = AtomicBool::new(skip_initial_steering_poll);
        Arc::new(move || {
            let drained = if skip_next_poll.swap(false, Ordering::Relaxed) {
                Vec::new()
            } else {
                weak.upgrade()
                    .map(|inner| inner.lock().steering.drain())
                    .unwrap_or_default()
            };
            futures_util::future::ready(Ok(drained)).boxed()
        })
    };
    let follow_up_source: MessageSourceFn = {
        let weak = weak.clone();
        Arc::new(move || {
            let drained = weak
                .upgrade()
                .map(|inner| inner.lock().follow_up.drain())
                .unwrap_or_default();
            futures_util::future::ready(Ok(drained)).boxed()
        })
    };
    // The prepare adapter looks the hook up anew at every call and passes the run's token (spec 2.2).
    let prepare_next_turn: Option<PrepareNextTurnFn> =
        options.prepare_next_turn.as_ref().map(|_| {
            let weak = weak.clone();
            let adapter: PrepareNextTurnFn =
                Arc::new(move |turn: TurnContext, cancel: CancellationToken| {
                    let hook = weak
                        .upgrade()
                        .and_then(|inner| inner.lock().config.prepare_next_turn.clone());
                    match hook {
                        Some(hook) => hook(turn, cancel),
                        None => futures_util::future::ready(Ok(None)).boxed(),
                    }
                });
            adapter
        });

    AgentLoopConfig {
        model: shared.live.state.model.clone(),
        stream_options,
        convert_to_llm: options
            .convert_to_llm
            .clone()
            .unwrap_or_else(default_convert_to_llm_fn),
        transform_context: options.transform_context.clone(),
        get_api_key: options.get_api_key.clone(),
        should_stop_after_turn: options.should_stop_after_turn.clone(),
        prepare_next_turn,
        get_steering_messages: Some(steering_source),
        get_follow_up_messages: Some(follow_up_source),
        tool_execution: options.tool_execution,
        before_tool_call: options.before_tool_call.clone(),
        after_tool_call: options.after_tool_call.clone(),
        abort_grace_period: options.abort_grace_period,
    }
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        reason = "tests unwrap what they set up themselves"
    )]

    use std::sync::{Arc, Mutex};

    use pi_ai::{
        AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, DoneReason, Model,
        StopReason, UserMessage,
    };

    use crate::agent::Agent;
    use crate::agent_message::AgentMessage;
    use crate::agent_options::{AgentInitialState, AgentOptions};
    use crate::stream_fn::stream_fn;

    /// pi's `continue()` after an assistant tail, with two steering messages queued one-at-a-time: the first is the
    /// prompt, and the loop's first steering poll must not drain the second, which gets a turn of its own.
    #[tokio::test]
    async fn continue_delivers_queued_steering_one_message_per_turn() {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        let stream = stream_fn(move |model: Model, context, _options| {
            seen.lock().unwrap().push(context.messages.len());
            async move {
                let mut message = AssistantMessage::empty(&model);
                message.stop_reason = StopReason::Stop;
                let done = AssistantMessageEvent::Done {
                    reason: DoneReason::Stop,
                    message: message.into(),
                };
                Ok(AssistantMessageEventStream::from_events(
                    futures_util::stream::iter([done]),
                ))
            }
        });
        let model = Model::unknown();
        let mut options = AgentOptions::new(stream);
        options.initial_state = AgentInitialState {
            messages: vec![
                AgentMessage::User(UserMessage::new("hello")),
                AgentMessage::Assistant(Arc::new(AssistantMessage::empty(&model))),
            ],
            model: Some(model),
            ..AgentInitialState::default()
        };
        let agent = Agent::new(options);
        agent.steer(AgentMessage::User(UserMessage::new("first")));
        agent.steer(AgentMessage::User(UserMessage::new("second")));

        agent.continue_run().await.unwrap();

        // Transcript + "first"; then + its answer + "second".
        assert_eq!(*requests.lock().unwrap(), [3, 5]);
        assert!(!agent.has_queued_messages());
    }
}
