//! The loop as an event stream: [`agent_loop`] / [`agent_loop_continue`] run [`run_agent_loop`] /
//! [`run_agent_loop_continue`] in the background and return an [`EventStream`] whose result always resolves. On
//! failure the stream carries the same four-event failure sequence `Agent` emits (spec 6.7 b).

use std::sync::Arc;

use pi_ai::{EventSender, EventStream};
use tokio_util::sync::CancellationToken;

use crate::agent_event::{AgentEvent, AgentEventSink};
use crate::agent_loop::{run_agent_loop, run_agent_loop_continue, validate_continue};
use crate::agent_message::AgentMessage;
use crate::loop_config::{AgentContext, AgentLoopConfig};
use crate::loop_error::{AgentLoopError, failure_events, failure_message};
use crate::stream_fn::StreamFn;

/// An agent event stream whose result is the run's new messages.
pub type AgentEventStream = EventStream<AgentEvent, Vec<AgentMessage>>;

/// Runs [`run_agent_loop`] in the background (a spawned task) and returns its events as a stream.
///
/// The producer never waits for the consumer. The stream completes on `agent_end`; if the run fails, the stream
/// carries a failure message sequence (`message_start`, `message_end`, `turn_end`, `agent_end`) and the result
/// resolves with the failure message alone. Must be called inside a Tokio runtime.
pub fn agent_loop(
    prompts: Vec<AgentMessage>,
    context: AgentContext,
    config: AgentLoopConfig,
    cancel: CancellationToken,
    stream_fn: StreamFn,
) -> AgentEventStream {
    let (sender, stream) = agent_event_channel();
    let model = config.model.clone();
    let sink = channel_sink(sender.clone());
    tokio::spawn(async move {
        let outcome =
            run_agent_loop(prompts, context, config, sink, cancel.clone(), stream_fn).await;
        finish_channel(&sender, outcome, &model, &cancel);
    });
    stream
}

/// Like [`agent_loop`] for [`run_agent_loop_continue`]. The continue preconditions are checked synchronously.
pub fn agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    cancel: CancellationToken,
    stream_fn: StreamFn,
) -> Result<AgentEventStream, AgentLoopError> {
    validate_continue(&context)?;
    let (sender, stream) = agent_event_channel();
    let model = config.model.clone();
    let sink = channel_sink(sender.clone());
    tokio::spawn(async move {
        let outcome =
            run_agent_loop_continue(context, config, sink, cancel.clone(), stream_fn).await;
        finish_channel(&sender, outcome, &model, &cancel);
    });
    Ok(stream)
}

fn agent_event_channel() -> (EventSender<AgentEvent, Vec<AgentMessage>>, AgentEventStream) {
    fn completed(event: &AgentEvent) -> Option<Vec<AgentMessage>> {
        match event {
            AgentEvent::AgentEnd { messages } => Some(messages.clone()),
            AgentEvent::AgentStart
            | AgentEvent::TurnStart
            | AgentEvent::TurnEnd { .. }
            | AgentEvent::MessageStart { .. }
            | AgentEvent::MessageUpdate { .. }
            | AgentEvent::MessageEnd { .. }
            | AgentEvent::ToolExecutionStart { .. }
            | AgentEvent::ToolExecutionUpdate { .. }
            | AgentEvent::ToolExecutionEnd { .. } => None,
        }
    }
    EventStream::channel(completed)
}

fn channel_sink(sender: EventSender<AgentEvent, Vec<AgentMessage>>) -> Arc<dyn AgentEventSink> {
    Arc::new(move |event: Arc<AgentEvent>| {
        sender.push(Arc::unwrap_or_clone(event));
        futures_util::future::ready(Ok(()))
    })
}

fn finish_channel(
    sender: &EventSender<AgentEvent, Vec<AgentMessage>>,
    outcome: Result<Vec<AgentMessage>, AgentLoopError>,
    model: &pi_ai::Model,
    cancel: &CancellationToken,
) {
    let Err(error) = outcome else {
        return;
    };
    for event in failure_events(failure_message(model, cancel, &error.to_string())) {
        sender.push(event);
    }
    sender.end(None);
}
