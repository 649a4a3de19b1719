//! Coalescing of streaming deltas: consecutive `text_delta` / `thinking_delta` / `toolcall_delta` updates of the
//! same content block within [`COALESCE_WINDOW`] become one update whose delta is their concatenation.
//!
//! Pure logic over explicit instants (`tokio::time::Instant`, so paused-time tests drive it); the forwarder calls
//! [`DeltaCoalescer::push`] for every event and [`DeltaCoalescer::flush`] when [`DeltaCoalescer::deadline`] passes.
//! Order is kept: any other event first releases the held delta.

use std::sync::Arc;
use std::time::Duration;

use pi_agent::AgentEvent;
use pi_ai::AssistantMessageEvent;
use tokio::time::Instant;

/// The longest a delta is held back (one display frame).
pub const COALESCE_WINDOW: Duration = Duration::from_millis(16);

/// Holds at most one delta update while more of the same block may follow.
#[derive(Debug)]
pub struct DeltaCoalescer {
    window: Duration,
    held: Option<Held>,
}

#[derive(Debug)]
struct Held {
    event: Arc<AgentEvent>,
    key: DeltaKey,
    first_seen: Instant,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DeltaKind {
    Text,
    Thinking,
    ToolCall,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DeltaKey {
    kind: DeltaKind,
    content_index: usize,
}

impl Default for DeltaCoalescer {
    fn default() -> Self {
        DeltaCoalescer::new(COALESCE_WINDOW)
    }
}

impl DeltaCoalescer {
    /// A coalescer with the given window (zero disables coalescing).
    pub fn new(window: Duration) -> DeltaCoalescer {
        DeltaCoalescer { window, held: None }
    }

    /// Takes the next event; returns the events to send now, in order.
    pub fn push(&mut self, event: Arc<AgentEvent>, now: Instant) -> Vec<Arc<AgentEvent>> {
        let Some(key) = delta_key(&event).filter(|_| !self.window.is_zero()) else {
            let mut ready: Vec<Arc<AgentEvent>> = self.flush().into_iter().collect();
            ready.push(event);
            return ready;
        };
        match self.held.take() {
            Some(held) if held.key == key && now < held.first_seen + self.window => {
                let merged = merge(&held.event, Arc::unwrap_or_clone(event));
                self.held = Some(Held {
                    event: Arc::new(merged),
                    key,
                    first_seen: held.first_seen,
                });
                Vec::new()
            }
            Some(held) => {
                self.held = Some(Held {
                    event,
                    key,
                    first_seen: now,
                });
                vec![held.event]
            }
            None => {
                self.held = Some(Held {
                    event,
                    key,
                    first_seen: now,
                });
                Vec::new()
            }
        }
    }

    /// When the held delta must go out, if one is held.
    pub fn deadline(&self) -> Option<Instant> {
        self.held.as_ref().map(|held| held.first_seen + self.window)
    }

    /// Releases the held delta.
    pub fn flush(&mut self) -> Option<Arc<AgentEvent>> {
        self.held.take().map(|held| held.event)
    }
}

fn delta_key(event: &AgentEvent) -> Option<DeltaKey> {
    let AgentEvent::MessageUpdate {
        assistant_message_event,
        ..
    } = event
    else {
        return None;
    };
    let (kind, content_index) = match assistant_message_event {
        AssistantMessageEvent::TextDelta { content_index, .. } => (DeltaKind::Text, *content_index),
        AssistantMessageEvent::ThinkingDelta { content_index, .. } => {
            (DeltaKind::Thinking, *content_index)
        }
        AssistantMessageEvent::ToolcallDelta { content_index, .. } => {
            (DeltaKind::ToolCall, *content_index)
        }
        AssistantMessageEvent::Start { .. }
        | AssistantMessageEvent::TextStart { .. }
        | AssistantMessageEvent::TextEnd { .. }
        | AssistantMessageEvent::ThinkingStart { .. }
        | AssistantMessageEvent::ThinkingEnd { .. }
        | AssistantMessageEvent::ToolcallStart { .. }
        | AssistantMessageEvent::ToolcallEnd { .. }
        | AssistantMessageEvent::Done { .. }
        | AssistantMessageEvent::Error { .. } => return None,
    };
    Some(DeltaKey {
        kind,
        content_index,
    })
}

/// `older` followed by `newer` (same key): the newer snapshots with the concatenated delta.
fn merge(older: &AgentEvent, newer: AgentEvent) -> AgentEvent {
    let older_delta = match older {
        AgentEvent::MessageUpdate {
            assistant_message_event,
            ..
        } => delta_text(assistant_message_event),
        _ => None,
    };
    let AgentEvent::MessageUpdate {
        message,
        assistant_message_event,
    } = newer
    else {
        return newer;
    };
    let Some(older_delta) = older_delta else {
        return AgentEvent::MessageUpdate {
            message,
            assistant_message_event,
        };
    };
    let assistant_message_event = match assistant_message_event {
        AssistantMessageEvent::TextDelta {
            content_index,
            delta,
            partial,
        } => AssistantMessageEvent::TextDelta {
            content_index,
            delta: older_delta + &delta,
            partial,
        },
        AssistantMessageEvent::ThinkingDelta {
            content_index,
            delta,
            partial,
        } => AssistantMessageEvent::ThinkingDelta {
            content_index,
            delta: older_delta + &delta,
            partial,
        },
        AssistantMessageEvent::ToolcallDelta {
            content_index,
            delta,
            partial,
        } => AssistantMessageEvent::ToolcallDelta {
            content_index,
            delta: older_delta + &delta,
            partial,
        },
        other @ (AssistantMessageEvent::Start { .. }
        | AssistantMessageEvent::TextStart { .. }
        | AssistantMessageEvent::TextEnd { .. }
        | AssistantMessageEvent::ThinkingStart { .. }
        | AssistantMessageEvent::ThinkingEnd { .. }
        | AssistantMessageEvent::ToolcallStart { .. }
        | AssistantMessageEvent::ToolcallEnd { .. }
        | AssistantMessageEvent::Done { .. }
        | AssistantMessageEvent::Error { .. }) => other,
    };
    AgentEvent::MessageUpdate {
        message,
        assistant_message_event,
    }
}

fn delta_text(event: &AssistantMessageEvent) -> Option<String> {
    match event {
        AssistantMessageEvent::TextDelta { delta, .. }
        | AssistantMessageEvent::ThinkingDelta { delta, .. }
        | AssistantMessageEvent::ToolcallDelta { delta, .. } => Some(delta.clone()),
        AssistantMessageEvent::Start { .. }
        | AssistantMessageEvent::TextStart { .. }
        | AssistantMessageEvent::TextEnd { .. }
        | AssistantMessageEvent::ThinkingStart { .. }
        | AssistantMessageEvent::ThinkingEnd { .. }
        | AssistantMessageEvent::ToolcallStart { .. }
        | AssistantMessageEvent::ToolcallEnd { .. }
        | AssistantMessageEvent::Done { .. }
        | AssistantMessageEvent::Error { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use pi_agent::AgentMessage;
    use pi_ai::{Api, AssistantMessage};

    use super::*;

    fn text_delta(content_index: usize, delta: &str) -> Arc<AgentEvent> {
        let partial = Arc::new(AssistantMessage::empty_for(
            Api::SCRIPTED,
            "scripted".to_owned(),
            "m".to_owned(),
        ));
        Arc::new(AgentEvent::MessageUpdate {
            message: AgentMessage::Assistant(Arc::clone(&partial)),
            assistant_message_event: AssistantMessageEvent::TextDelta {
                content_index,
                delta: delta.to_owned(),
                partial,
            },
        })
    }

    fn deltas(events: &[Arc<AgentEvent>]) -> Vec<String> {
        events
            .iter()
            .map(|event| match event.as_ref() {
                AgentEvent::MessageUpdate {
                    assistant_message_event,
                    ..
                } => delta_text(assistant_message_event).unwrap_or_else(|| "<no delta>".to_owned()),
                other => other.event_type().to_owned(),
            })
            .collect()
    }

    #[test]
    fn deltas_within_the_window_merge_and_others_release_them_in_order() {
        let start = Instant::now();
        let mut coalescer = DeltaCoalescer::default();
        assert!(coalescer.push(text_delta(0, "Hel"), start).is_empty());
        assert!(
            coalescer
                .push(text_delta(0, "lo"), start + Duration::from_millis(5))
                .is_empty()
        );
        assert_eq!(coalescer.deadline(), Some(start + COALESCE_WINDOW));
        let released = coalescer.push(
            Arc::new(AgentEvent::TurnStart),
            start + Duration::from_millis(6),
        );
        assert_eq!(deltas(&released), vec!["Hello", "turn_start"]);
        assert_eq!(coalescer.deadline(), None);
    }

    #[test]
    fn a_late_delta_or_another_block_starts_a_new_envelope() {
        let start = Instant::now();
        let mut coalescer = DeltaCoalescer::default();
        assert!(coalescer.push(text_delta(0, "a"), start).is_empty());
        let late = coalescer.push(text_delta(0, "b"), start + COALESCE_WINDOW);
        assert_eq!(deltas(&late), vec!["a"]);
        let other_block = coalescer.push(text_delta(1, "c"), start + COALESCE_WINDOW);
        assert_eq!(deltas(&other_block), vec!["b"]);
        assert_eq!(
            deltas(&coalescer.flush().into_iter().collect::<Vec<_>>()),
            vec!["c"]
        );
    }

    #[test]
    fn a_zero_window_passes_everything_through() {
        let mut coalescer = DeltaCoalescer::new(Duration::ZERO);
        let now = Instant::now();
        assert_eq!(deltas(&coalescer.push(text_delta(0, "x"), now)), vec!["x"]);
    }
}
