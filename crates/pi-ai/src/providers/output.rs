//! The assistant message an adapter builds while it translates provider chunks, and the events it emits.
//!
//! Every event carries an immutable snapshot of the message right after the change (spec 6.2): blocks are
//! `Arc`s and text grows in a shared append-only buffer, so a snapshot costs O(blocks), not O(text).

use std::sync::Arc;

use serde_json::Value;

use crate::content::{AssistantBlock, TextContent, ThinkingContent, ToolCall};
use crate::event::{AssistantMessageEvent, DoneReason, ErrorReason};
use crate::event_stream::AssistantMessageEventSender;
use crate::message::{AssistantMessage, StopReason};

/// The message under construction plus the sender its events go to.
pub(crate) struct Output {
    pub(crate) message: AssistantMessage,
    sender: AssistantMessageEventSender,
}

impl Output {
    pub(crate) fn new(message: AssistantMessage, sender: AssistantMessageEventSender) -> Self {
        Self { message, sender }
    }

    fn snapshot(&self) -> Arc<AssistantMessage> {
        Arc::new(self.message.clone())
    }

    /// Pushes `start`.
    pub(crate) fn start(&mut self) {
        let partial = self.snapshot();
        self.sender.push(AssistantMessageEvent::Start { partial });
    }

    pub(crate) fn len(&self) -> usize {
        self.message.content.len()
    }

    pub(crate) fn block(&self, index: usize) -> Option<&AssistantBlock> {
        self.message.content.get(index).map(Arc::as_ref)
    }

    fn block_mut(&mut self, index: usize) -> Option<&mut AssistantBlock> {
        self.message.content.get_mut(index).map(Arc::make_mut)
    }

    /// Appends a text block (possibly with initial text, which gets no delta) and pushes `text_start`.
    pub(crate) fn text_start(&mut self, block: TextContent) -> usize {
        self.message
            .content
            .push(Arc::new(AssistantBlock::Text(block)));
        let content_index = self.len() - 1;
        let partial = self.snapshot();
        self.sender.push(AssistantMessageEvent::TextStart {
            content_index,
            partial,
        });
        content_index
    }

    /// Appends `delta` to the text block at `index` and pushes `text_delta`.
    pub(crate) fn text_delta(&mut self, index: usize, delta: &str) {
        if let Some(AssistantBlock::Text(block)) = self.block_mut(index) {
            block.text.push_str(delta);
            let partial = self.snapshot();
            self.sender.push(AssistantMessageEvent::TextDelta {
                content_index: index,
                delta: delta.to_string(),
                partial,
            });
        }
    }

    /// Pushes `text_end` with the block's full text.
    pub(crate) fn text_end(&mut self, index: usize) {
        if let Some(AssistantBlock::Text(block)) = self.block(index) {
            let content = block.text.to_string();
            let partial = self.snapshot();
            self.sender.push(AssistantMessageEvent::TextEnd {
                content_index: index,
                content,
                partial,
            });
        }
    }

    /// Appends a thinking block and pushes `thinking_start`.
    pub(crate) fn thinking_start(&mut self, block: ThinkingContent) -> usize {
        self.message
            .content
            .push(Arc::new(AssistantBlock::Thinking(block)));
        let content_index = self.len() - 1;
        let partial = self.snapshot();
        self.sender.push(AssistantMessageEvent::ThinkingStart {
            content_index,
            partial,
        });
        content_index
    }

    /// Appends `delta` to the thinking block at `index` and pushes `thinking_delta`.
    pub(crate) fn thinking_delta(&mut self, index: usize, delta: &str) {
        if let Some(AssistantBlock::Thinking(block)) = self.block_mut(index) {
            block.thinking.push_str(delta);
            let partial = self.snapshot();
            self.sender.push(AssistantMessageEvent::ThinkingDelta {
                content_index: index,
                delta: delta.to_string(),
                partial,
            });
        }
    }

    /// Edits the thinking block at `index` without an event (signatures, final text).
    pub(crate) fn with_thinking(&mut self, index: usize, edit: impl FnOnce(&mut ThinkingContent)) {
        if let Some(AssistantBlock::Thinking(block)) = self.block_mut(index) {
            edit(block);
        }
    }

    /// Edits the text block at `index` without an event (signatures).
    pub(crate) fn with_text(&mut self, index: usize, edit: impl FnOnce(&mut TextContent)) {
        if let Some(AssistantBlock::Text(block)) = self.block_mut(index) {
            edit(block);
        }
    }

    /// Edits the tool call at `index` without an event.
    pub(crate) fn with_tool_call(&mut self, index: usize, edit: impl FnOnce(&mut ToolCall)) {
        if let Some(AssistantBlock::ToolCall(block)) = self.block_mut(index) {
            edit(block);
        }
    }

    /// Pushes `thinking_end` with the block's full text.
    pub(crate) fn thinking_end(&mut self, index: usize) {
        if let Some(AssistantBlock::Thinking(block)) = self.block(index) {
            let content = block.thinking.to_string();
            let partial = self.snapshot();
            self.sender.push(AssistantMessageEvent::ThinkingEnd {
                content_index: index,
                content,
                partial,
            });
        }
    }

    /// Appends a tool call block and pushes `toolcall_start`.
    pub(crate) fn toolcall_start(&mut self, call: ToolCall) -> usize {
        self.message
            .content
            .push(Arc::new(AssistantBlock::ToolCall(call)));
        let content_index = self.len() - 1;
        let partial = self.snapshot();
        self.sender.push(AssistantMessageEvent::ToolcallStart {
            content_index,
            partial,
        });
        content_index
    }

    /// Sets the tool call's parsed arguments (when given) and pushes `toolcall_delta` with the raw chunk.
    pub(crate) fn toolcall_delta(&mut self, index: usize, delta: &str, arguments: Option<Value>) {
        if let Some(AssistantBlock::ToolCall(block)) = self.block_mut(index) {
            if let Some(arguments) = arguments {
                block.arguments = arguments;
            }
            let partial = self.snapshot();
            self.sender.push(AssistantMessageEvent::ToolcallDelta {
                content_index: index,
                delta: delta.to_string(),
                partial,
            });
        }
    }

    /// Sets the final arguments (when given) and pushes `toolcall_end`.
    pub(crate) fn toolcall_end(&mut self, index: usize, arguments: Option<Value>) {
        if let Some(AssistantBlock::ToolCall(block)) = self.block_mut(index) {
            if let Some(arguments) = arguments {
                block.arguments = arguments;
            }
            let tool_call = Box::new(block.clone());
            let partial = self.snapshot();
            self.sender.push(AssistantMessageEvent::ToolcallEnd {
                content_index: index,
                tool_call,
                partial,
            });
        }
    }

    /// True when some block is a tool call.
    pub(crate) fn has_tool_call(&self) -> bool {
        self.message
            .content
            .iter()
            .any(|b| matches!(b.as_ref(), AssistantBlock::ToolCall(_)))
    }

    /// Ends the stream with `done` for the message's stop reason (`stop`, `length` or `toolUse`).
    pub(crate) fn done(&mut self) {
        let reason = match self.message.stop_reason {
            StopReason::Length => DoneReason::Length,
            StopReason::ToolUse => DoneReason::ToolUse,
            StopReason::Deferred => DoneReason::Deferred,
            _ => DoneReason::Stop,
        };
        self.message.stop_reason = reason.into();
        let message = self.snapshot();
        self.sender
            .push(AssistantMessageEvent::Done { reason, message });
    }

    /// Ends the stream by the provider's stop reason once the body ended: `done`, `error` with the provider's
    /// message (`"An unknown error occurred"` when it gave none), or, when it gave no stop reason, `error`
    /// saying `no_stop_reason`.
    pub(crate) fn end(&mut self, no_stop_reason: &str) {
        match self.message.stop_reason {
            StopReason::Pending => self.fail(false, no_stop_reason.into()),
            StopReason::Error | StopReason::Aborted => {
                let text = self
                    .message
                    .error_message
                    .take()
                    .unwrap_or_else(|| "An unknown error occurred".into());
                self.fail(false, text);
            }
            _ => self.done(),
        }
    }

    /// Ends the stream with `error`: the partial content and usage are kept.
    pub(crate) fn fail(&mut self, aborted: bool, error_message: String) {
        let reason = if aborted {
            ErrorReason::Aborted
        } else {
            ErrorReason::Error
        };
        self.message.stop_reason = reason.into();
        self.message.error_message = Some(error_message);
        let error = self.snapshot();
        self.sender
            .push(AssistantMessageEvent::Error { reason, error });
    }
}
