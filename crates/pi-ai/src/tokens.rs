//! Rough token estimation (4 characters per token), used for the max-tokens clamp.

use crate::content::{AssistantBlock, UserBlock};
use crate::context::Context;
use crate::message::{Message, StopReason, UserContent};

/// Estimated tokens of `text` (ceil(chars / 4)).
pub fn estimate_text_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

fn user_blocks_chars(blocks: &[UserBlock]) -> u64 {
    blocks
        .iter()
        .map(|block| match block {
            UserBlock::Text(text) => text.text.as_str().chars().count() as u64,
            // Images are priced by the provider; count a fixed 1200 tokens each.
            UserBlock::Image(_) => 4800,
        })
        .sum()
}

/// Estimated characters of one message.
fn message_chars(message: &Message) -> u64 {
    match message {
        Message::User(user) => match &user.content {
            UserContent::Text(text) => text.chars().count() as u64,
            UserContent::Blocks(blocks) => user_blocks_chars(blocks),
        },
        Message::Assistant(assistant) => assistant
            .content
            .iter()
            .map(|block| match block.as_ref() {
                AssistantBlock::Text(text) => text.text.as_str().chars().count() as u64,
                AssistantBlock::Thinking(thinking) => {
                    thinking.thinking.as_str().chars().count() as u64
                }
                AssistantBlock::ToolCall(tool_call) => {
                    (tool_call.name.chars().count()
                        + tool_call.arguments.to_string().chars().count())
                        as u64
                }
            })
            .sum(),
        Message::ToolResult(result) => {
            result.tool_name.chars().count() as u64 + user_blocks_chars(&result.content)
        }
    }
}

/// Estimated prompt tokens of `context`.
///
/// The newest successful assistant message that reports usage anchors the estimate (its input + output + cache
/// tokens cover everything up to it); messages after it, the system prompt and tools are estimated at 4
/// characters per token. Without such a message everything is estimated.
pub fn estimate_context_tokens(context: &Context) -> u64 {
    let anchor =
        context
            .messages
            .iter()
            .enumerate()
            .rev()
            .find_map(|(idx, message)| match message {
                Message::Assistant(assistant)
                    if !matches!(
                        assistant.stop_reason,
                        StopReason::Error | StopReason::Aborted
                    ) && assistant.usage.total_tokens > 0 =>
                {
                    let usage = &assistant.usage;
                    Some((
                        idx,
                        usage.input + usage.output + usage.cache_read + usage.cache_write,
                    ))
                }
                Message::User(_) | Message::Assistant(_) | Message::ToolResult(_) => None,
            });
    let (start, anchored_tokens) = anchor.map_or((0, 0), |(idx, tokens)| (idx + 1, tokens));
    let mut chars: u64 = context.messages.iter().skip(start).map(message_chars).sum();
    if anchor.is_none() {
        chars += context
            .system_prompt
            .as_deref()
            .map_or(0, |prompt| prompt.chars().count() as u64);
        if let Some(tools) = &context.tools {
            chars += tools
                .iter()
                .map(|tool| {
                    (tool.name.len() + tool.description.len() + tool.parameters.to_string().len())
                        as u64
                })
                .sum::<u64>();
        }
    }
    anchored_tokens + chars.div_ceil(4)
}
