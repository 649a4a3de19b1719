//! Coalescing of streaming deltas: at most one `text_delta` / `thinking_delta` / `toolcall_delta` update goes out
//! per [`COALESCE_WINDOW`]. A delta that comes when none went out for a window goes out at once (a slow stream
//! shows each delta without waiting); one that comes sooner is held until a window after the last one sent, and
//! the deltas of the same content block that follow it meanwhile become one update whose delta is their
//! concatenation.
//!
//! Pure logic over explicit instants (`tokio::time::Instant`, so paused-time tests drive it); the forwarder calls
//! [`DeltaCoalescer::push`] for every event and [`DeltaCoalescer::flush`] when [`DeltaCoalescer::deadline`] passes.
//! Order is kept: any other event first releases the held delta.

use std::sync::Arc;
use std::time::Duration;

use pi_agent::AgentEvent;
use pi_ai::AssistantMessageEvent;
use tokio::time::Instant;

/// The shortest time between two delta updates, and so the longest a delta is held back (one display frame).
pub const COALESCE_WINDOW: Duration = Duration::from_millis(16);

/// Holds at most one delta update while more of the same block may follow.
#[derive(Debug)]
pub struct DeltaCoalescer {
    window: Duration,
    held: Option<Held>,
    /// When the last delta update went out.
    last_sent: Option<Instant>,
}

#[derive(Debug)]
struct Held {
    event: Arc<AgentEvent>,
    key: DeltaKey,
    release_at: Instant,
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
        DeltaCoalescer {
            window,
            held: None,
            last_sent: None,
        }
    }

    /// Takes the next event; returns the events to send now, in order.
    pub fn push(&mut self, event: Arc<AgentEvent>, now: Instant) -> Vec<Arc<AgentEvent>> {
        let Some(key) = delta_key(&event).filter(|_| !self.window.is_zero()) else {
            let mut ready: Vec<Arc<AgentEvent>> = self.flush(now).into_iter().collect();
            ready.push(event);
            return ready;
        };
        let mut ready = Vec::new();
        match self.held.take() {
            Some(held) if held.key == key => {
                let merged = merge(&held.event, Arc::unwrap_or_clone(event));
                self.held = Some(Held {
                    event: Arc::new(merged),
                    ..held
                });
                return ready;
            }
            Some(held) => {
                self.last_sent = Some(now);
                ready.push(held.event);
            }
            None => {}
        }
        match self.last_sent.map(|sent| sent + self.window) {
            Some(release_at) if now < release_at => {
                self.held = Some(Held {
                    event,
                    key,
                    release_at,
                });
            }
            _ => {
                self.last_sent = Some(now);
                ready.push(event);
            }
        }
        ready
    }

    /// When the held delta must go out, if one is held.
    pub fn deadline(&self) -> Option<Instant> {
        self.held.as_ref().map(|held| held.release_at)
    }

    /// Releases the held delta (`now`: when it goes out).
    pub fn flush(&mut self, now: Instant) -> Option<Arc<AgentEvent>> {
        let held = self.held.take()?;
        self.last_sent = Some(now);
        Some(held.event)
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
    fn a_delta_after_a_quiet_window_goes_out_at_once() {
        let start = Instant::now();
        let mut coalescer = DeltaCoalescer::default();
        assert_eq!(
            deltas(&coalescer.push(text_delta(0, "a"), start)),
            vec!["a"]
        );
        let later = start + COALESCE_WINDOW;
        assert_eq!(
            deltas(&coalescer.push(text_delta(0, "b"), later)),
            vec!["b"]
        );
        assert_eq!(coalescer.deadline(), None);
    }

    #[test]
    fn deltas_within_a_window_of_the_last_sent_merge_and_others_release_them_in_order() {
        let start = Instant::now();
        let mut coalescer = DeltaCoalescer::default();
        assert_eq!(
            deltas(&coalescer.push(text_delta(0, "He"), start)),
            vec!["He"]
        );
        let soon = start + Duration::from_millis(5);
        assert!(coalescer.push(text_delta(0, "l"), soon).is_empty());
        assert!(coalescer.push(text_delta(0, "lo"), soon).is_empty());
        assert_eq!(coalescer.deadline(), Some(start + COALESCE_WINDOW));
        let released = coalescer.push(Arc::new(AgentEvent::TurnStart), soon);
        assert_eq!(deltas(&released), vec!["llo", "turn_start"]);
        assert_eq!(coalescer.deadline(), None);
    }

    #[test]
    fn a_held_delta_released_at_its_deadline_holds_the_next_for_another_window() {
        let start = Instant::now();
        let mut coalescer = DeltaCoalescer::default();
        coalescer.push(text_delta(0, "a"), start);
        coalescer.push(text_delta(0, "b"), start + Duration::from_millis(1));
        let deadline = start + COALESCE_WINDOW;
        assert_eq!(coalescer.deadline(), Some(deadline));
        assert_eq!(
            deltas(&coalescer.flush(deadline).into_iter().collect::<Vec<_>>()),
            vec!["b"]
        );
        assert!(
            coalescer
                .push(text_delta(0, "c"), deadline + Duration::from_millis(1))
                .is_empty()
        );
        assert_eq!(coalescer.deadline(), Some(deadline + COALESCE_WINDOW));
    }

    #[test]
    fn another_block_releases_the_held_delta_and_waits_its_own_window() {
        let start = Instant::now();
        let mut coalescer = DeltaCoalescer::default();
        coalescer.push(text_delta(0, "a"), start);
        let soon = start + Duration::from_millis(2);
        assert!(coalescer.push(text_delta(0, "b"), soon).is_empty());
        let other_block = coalescer.push(text_delta(1, "c"), soon);
        assert_eq!(deltas(&other_block), vec!["b"]);
        assert_eq!(coalescer.deadline(), Some(soon + COALESCE_WINDOW));
        assert_eq!(
            deltas(&coalescer.flush(soon).into_iter().collect::<Vec<_>>()),
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
