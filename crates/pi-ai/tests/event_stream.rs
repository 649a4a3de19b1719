//! The EventStream contract (spec 1.5, 6.3): pushes never wait, the first completing event resolves the result,
//! and the result always resolves — also when the producer ends or disappears without one.

#![allow(clippy::unwrap_used, reason = "test code")]

use futures_util::{StreamExt, stream};
use pi_ai::{
    Api, AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, DoneReason,
    ErrorReason, EventStream, StopReason, StreamError, assistant_message_channel,
};

fn message(stop_reason: StopReason) -> AssistantMessage {
    let mut message =
        AssistantMessage::empty_for(Api::SCRIPTED, "scripted".into(), "scripted-1".into());
    message.stop_reason = stop_reason;
    message
}

fn done() -> AssistantMessageEvent {
    AssistantMessageEvent::Done {
        reason: DoneReason::Stop,
        message: message(StopReason::Stop).into(),
    }
}

fn start() -> AssistantMessageEvent {
    AssistantMessageEvent::Start {
        partial: message(StopReason::Pending).into(),
    }
}

fn integer_completion(event: &i32) -> Option<String> {
    (*event < 0).then(|| format!("ended with {event}"))
}

#[tokio::test]
async fn pushes_never_wait_and_the_first_completing_event_wins() {
    let (sender, mut stream) = EventStream::channel(integer_completion);
    for value in 0..10_000 {
        sender.push(value);
    }
    sender.push(-1);
    sender.push(-2);
    sender.push(7);
    assert!(sender.is_done());
    let mut seen = Vec::new();
    while let Some(value) = stream.next().await {
        seen.push(value);
    }
    assert_eq!(
        seen.len(),
        10_001,
        "events after the completing one are ignored"
    );
    assert_eq!(seen.last(), Some(&-1));
    assert_eq!(stream.result().await, Ok("ended with -1".to_owned()));
}

#[tokio::test]
async fn result_resolves_without_iterating_and_during_iteration() {
    let (sender, stream) = assistant_message_channel();
    let result = stream.result();
    sender.push(start());
    sender.push(done());
    assert_eq!(result.await.unwrap().stop_reason, StopReason::Stop);
    let (sender, mut stream) = assistant_message_channel();
    sender.push(start());
    assert_eq!(
        stream.next().await.map(|event| event.event_type()),
        Some("start")
    );
    let pending = stream.result();
    sender.push(AssistantMessageEvent::Error {
        reason: ErrorReason::Aborted,
        error: message(StopReason::Aborted).into(),
    });
    assert_eq!(pending.await.unwrap().stop_reason, StopReason::Aborted);
    assert_eq!(
        stream.next().await.map(|event| event.event_type()),
        Some("error")
    );
    assert!(stream.next().await.is_none());
}

#[tokio::test]
async fn end_without_result_and_dropped_producers_resolve_with_an_error() {
    let (sender, stream) = assistant_message_channel();
    sender.push(start());
    sender.end(None);
    assert_eq!(stream.finish().await, Err(StreamError::EndedWithoutResult));

    let (sender, stream) = assistant_message_channel();
    let clone = sender.clone();
    drop(sender);
    clone.push(start());
    drop(clone);
    assert_eq!(stream.finish().await, Err(StreamError::EndedWithoutResult));

    let (sender, stream) = assistant_message_channel();
    sender.end(Some(message(StopReason::Length)));
    sender.push(done());
    assert_eq!(
        stream.finish().await.unwrap().stop_reason,
        StopReason::Length
    );
}

#[tokio::test]
async fn pull_driven_streams_resolve_from_the_pulled_events() {
    let stream =
        AssistantMessageEventStream::from_events(stream::iter(vec![start(), done(), start()]));
    let result = stream.result();
    let events: Vec<&str> = stream.map(|event| event.event_type()).collect().await;
    assert_eq!(events, vec!["start", "done"]);
    assert_eq!(result.await.unwrap().stop_reason, StopReason::Stop);

    let stream = AssistantMessageEventStream::from_events(stream::iter(vec![start()]));
    assert_eq!(stream.finish().await, Err(StreamError::EndedWithoutResult));

    let stream = AssistantMessageEventStream::from_events(stream::pending());
    let result = stream.result();
    drop(stream);
    assert_eq!(
        result.await,
        Err(StreamError::EndedWithoutResult),
        "dropping the stream resolves the result"
    );
}

#[tokio::test]
async fn from_error_is_a_single_terminal_event() {
    let stream = AssistantMessageEventStream::from_error(message(StopReason::Aborted));
    let result = stream.result();
    let events: Vec<AssistantMessageEvent> = stream.collect().await;
    assert_eq!(events.len(), 1);
    assert!(matches!(
        events[0],
        AssistantMessageEvent::Error {
            reason: ErrorReason::Aborted,
            ..
        }
    ));
    assert_eq!(result.await.unwrap().stop_reason, StopReason::Aborted);
}
