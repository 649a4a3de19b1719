//! Playing one scripted message back as events: `start`, per block `*_start`, one `*_delta` per chunk,
//! `*_end`, then `done` or `error`. Events are produced one per pull; the cancel token is checked before each
//! and pacing waits are cut short by it.

use std::collections::VecDeque;
use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::{ABORTED_MESSAGE, CHARS_PER_TOKEN, NO_STOP_REASON};
use crate::content::{AssistantBlock, TextContent, ThinkingContent, ToolCall};
use crate::event::{AssistantMessageEvent, DoneReason, ErrorReason};
use crate::message::{AssistantMessage, StopReason};
use crate::model::Model;

/// One step of a playback.
enum Step {
    Start,
    BlockStart(usize),
    Delta {
        index: usize,
        chunk: String,
        tokens: usize,
    },
    BlockEnd(usize),
    Finish,
}

/// The live state of one streamed response.
pub(super) struct Playback {
    model: Model,
    message: AssistantMessage,
    /// Shared with the events; mutated in place when no event holds it any more (`Arc::make_mut`).
    partial: Arc<AssistantMessage>,
    steps: VecDeque<Step>,
    signal: Option<CancellationToken>,
    tokens_per_second: Option<f64>,
    finished: bool,
}

impl Playback {
    pub(super) fn new(
        model: Model,
        message: AssistantMessage,
        signal: Option<CancellationToken>,
        tokens_per_chunk: &RangeInclusive<usize>,
        tokens_per_second: Option<f64>,
    ) -> Self {
        let mut sizes = ChunkSizes::new(tokens_per_chunk);
        let mut steps = VecDeque::new();
        steps.push_back(Step::Start);
        for (index, block) in message.content.iter().enumerate() {
            steps.push_back(Step::BlockStart(index));
            let text = match block.as_ref() {
                AssistantBlock::Text(text) => text.text.to_string(),
                AssistantBlock::Thinking(thinking) => thinking.thinking.to_string(),
                AssistantBlock::ToolCall(tool_call) => tool_call.arguments.to_string(),
            };
            for (chunk, tokens) in chunk_text(&text, &mut sizes) {
                steps.push_back(Step::Delta {
                    index,
                    chunk,
                    tokens,
                });
            }
            steps.push_back(Step::BlockEnd(index));
        }
        steps.push_back(Step::Finish);
        let mut partial = message.clone();
        partial.content = Vec::with_capacity(message.content.len());
        partial.stop_reason = StopReason::Pending;
        partial.error_message = None;
        Self {
            model,
            message,
            partial: Arc::new(partial),
            steps,
            signal,
            tokens_per_second,
            finished: false,
        }
    }

    fn is_cancelled(&self) -> bool {
        self.signal
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled)
    }

    /// Waits for one chunk's worth of pacing, cut short by cancellation.
    async fn pace(&self, tokens: usize) {
        let Some(rate) = self.tokens_per_second else {
            return;
        };
        let delay = Duration::from_secs_f64(tokens as f64 / rate);
        match &self.signal {
            Some(signal) => {
                tokio::select! {
                    () = tokio::time::sleep(delay) => {}
                    () = signal.cancelled() => {}
                }
            }
            None => tokio::time::sleep(delay).await,
        }
    }

    pub(super) async fn next_event(&mut self) -> Option<AssistantMessageEvent> {
        if self.finished {
            return None;
        }
        let step = self.steps.pop_front()?;
        if let Step::Delta { tokens, .. } = &step {
            self.pace(*tokens).await;
        }
        if self.is_cancelled() {
            self.finished = true;
            let mut error = (*self.partial).clone();
            error.stop_reason = StopReason::Aborted;
            error.error_message = Some(ABORTED_MESSAGE.to_owned());
            return Some(AssistantMessageEvent::Error {
                reason: ErrorReason::Aborted,
                error: Arc::new(error),
            });
        }
        Some(self.apply(step))
    }

    fn apply(&mut self, step: Step) -> AssistantMessageEvent {
        match step {
            Step::Start => AssistantMessageEvent::Start {
                partial: Arc::clone(&self.partial),
            },
            Step::BlockStart(index) => {
                let Some(block) = self.message.content.get(index) else {
                    return self.finish();
                };
                let (empty, event): (AssistantBlock, StartEvent) = match block.as_ref() {
                    AssistantBlock::Text(_) => (
                        AssistantBlock::Text(TextContent::default()),
                        |content_index, partial| AssistantMessageEvent::TextStart {
                            content_index,
                            partial,
                        },
                    ),
                    AssistantBlock::Thinking(_) => (
                        AssistantBlock::Thinking(ThinkingContent::default()),
                        |content_index, partial| AssistantMessageEvent::ThinkingStart {
                            content_index,
                            partial,
                        },
                    ),
                    AssistantBlock::ToolCall(tool_call) => {
                        let mut started = ToolCall::new(
                            tool_call.id.clone(),
                            tool_call.name.clone(),
                            serde_json::json!({}),
                        );
                        started.namespace.clone_from(&tool_call.namespace);
                        (
                            AssistantBlock::ToolCall(started),
                            |content_index, partial| AssistantMessageEvent::ToolcallStart {
                                content_index,
                                partial,
                            },
                        )
                    }
                };
                Arc::make_mut(&mut self.partial)
                    .content
                    .push(Arc::new(empty));
                event(index, Arc::clone(&self.partial))
            }
            Step::Delta { index, chunk, .. } => {
                let Some(current) = Arc::make_mut(&mut self.partial).content.get_mut(index) else {
                    return self.finish();
                };
                match current.as_ref() {
                    AssistantBlock::Text(text) => {
                        let grown = TextContent {
                            text: text.text.appended(&chunk),
                            text_signature: None,
                        };
                        *current = Arc::new(AssistantBlock::Text(grown));
                        AssistantMessageEvent::TextDelta {
                            content_index: index,
                            delta: chunk,
                            partial: Arc::clone(&self.partial),
                        }
                    }
                    AssistantBlock::Thinking(thinking) => {
                        let grown = ThinkingContent {
                            thinking: thinking.thinking.appended(&chunk),
                            ..ThinkingContent::default()
                        };
                        *current = Arc::new(AssistantBlock::Thinking(grown));
                        AssistantMessageEvent::ThinkingDelta {
                            content_index: index,
                            delta: chunk,
                            partial: Arc::clone(&self.partial),
                        }
                    }
                    // pi's faux provider leaves the arguments at `{}` until the block ends.
                    AssistantBlock::ToolCall(_) => AssistantMessageEvent::ToolcallDelta {
                        content_index: index,
                        delta: chunk,
                        partial: Arc::clone(&self.partial),
                    },
                }
            }
            Step::BlockEnd(index) => {
                let (Some(finished), Some(slot)) = (
                    self.message.content.get(index),
                    Arc::make_mut(&mut self.partial).content.get_mut(index),
                ) else {
                    return self.finish();
                };
                *slot = Arc::clone(finished);
                let partial = Arc::clone(&self.partial);
                match finished.as_ref() {
                    AssistantBlock::Text(text) => AssistantMessageEvent::TextEnd {
                        content_index: index,
                        content: text.text.to_string(),
                        partial,
                    },
                    AssistantBlock::Thinking(thinking) => AssistantMessageEvent::ThinkingEnd {
                        content_index: index,
                        content: thinking.thinking.to_string(),
                        partial,
                    },
                    AssistantBlock::ToolCall(tool_call) => AssistantMessageEvent::ToolcallEnd {
                        content_index: index,
                        tool_call: Box::new(tool_call.clone()),
                        partial,
                    },
                }
            }
            Step::Finish => self.finish(),
        }
    }

    fn finish(&mut self) -> AssistantMessageEvent {
        self.finished = true;
        let message = Arc::new(self.message.clone());
        match message.stop_reason {
            StopReason::Pending => AssistantMessageEvent::Error {
                reason: ErrorReason::Error,
                error: Arc::new(AssistantMessage::failure(
                    &self.model,
                    StopReason::Error,
                    NO_STOP_REASON,
                )),
            },
            StopReason::Error => AssistantMessageEvent::Error {
                reason: ErrorReason::Error,
                error: message,
            },
            StopReason::Aborted => AssistantMessageEvent::Error {
                reason: ErrorReason::Aborted,
                error: message,
            },
            StopReason::Stop => AssistantMessageEvent::Done {
                reason: DoneReason::Stop,
                message,
            },
            StopReason::Length => AssistantMessageEvent::Done {
                reason: DoneReason::Length,
                message,
            },
            StopReason::ToolUse => AssistantMessageEvent::Done {
                reason: DoneReason::ToolUse,
                message,
            },
            StopReason::Deferred => AssistantMessageEvent::Done {
                reason: DoneReason::Deferred,
                message,
            },
        }
    }
}

/// Builds a block's `*_start` event from its index and the partial.
type StartEvent = fn(usize, Arc<AssistantMessage>) -> AssistantMessageEvent;

/// Cycles deterministically through a range of chunk sizes.
struct ChunkSizes {
    min: usize,
    max: usize,
    next: usize,
}

impl ChunkSizes {
    fn new(range: &RangeInclusive<usize>) -> Self {
        let min = (*range.start()).max(1);
        let max = (*range.end()).max(min);
        Self {
            min,
            max,
            next: min,
        }
    }

    fn take(&mut self) -> usize {
        let size = self.next;
        self.next = if self.next >= self.max {
            self.min
        } else {
            self.next + 1
        };
        size
    }
}

/// Splits `text` into chunks of whole tokens (4 characters each); an empty text yields one empty chunk.
fn chunk_text(text: &str, sizes: &mut ChunkSizes) -> Vec<(String, usize)> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![(String::new(), 1)];
    }
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let tokens = sizes.take();
        let end = (start + tokens * CHARS_PER_TOKEN).min(chars.len());
        chunks.push((chars[start..end].iter().collect(), tokens));
        start = end;
    }
    chunks
}
