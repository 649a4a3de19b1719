//! The usage a scripted response reports: prompt and answer estimated at 4 characters per token, and a
//! prompt-cache simulation per session id (the prefix shared with the session's previous prompt is read
//! from the cache, the rest written to it).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use super::CHARS_PER_TOKEN;
use crate::content::{AssistantBlock, UserBlock};
use crate::context::Context;
use crate::message::{AssistantMessage, Message, UserContent};
use crate::options::{CacheRetention, SimpleStreamOptions};
use crate::usage::Usage;

/// The usage of `answer` to the request `context`; `sessions` holds each session's previous prompt.
pub(super) fn estimate(
    context: &Context,
    options: &SimpleStreamOptions,
    answer: &AssistantMessage,
    sessions: &Mutex<HashMap<String, String>>,
) -> Usage {
    let prompt = serialize_context(context);
    let prompt_tokens = tokens(prompt.chars().count());
    let output_tokens = tokens(answer_text(answer).chars().count());
    let mut usage = Usage {
        output: output_tokens,
        ..Usage::default()
    };
    let caching = options.base.cache_retention != Some(CacheRetention::None);
    match options.base.session_id.as_ref().filter(|_| caching) {
        Some(session) => {
            let mut sessions = sessions.lock().unwrap_or_else(PoisonError::into_inner);
            let previous = sessions
                .insert(session.clone(), prompt.clone())
                .unwrap_or_default();
            let common = common_prefix_chars(&previous, &prompt);
            usage.cache_read = tokens(common);
            usage.cache_write = tokens(prompt.chars().count() - common);
            usage.input = prompt_tokens.saturating_sub(usage.cache_read);
        }
        None => usage.input = prompt_tokens,
    }
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write;
    usage
}

fn tokens(chars: usize) -> u64 {
    chars.div_ceil(CHARS_PER_TOKEN) as u64
}

fn common_prefix_chars(left: &str, right: &str) -> usize {
    left.chars()
        .zip(right.chars())
        .take_while(|(a, b)| a == b)
        .count()
}

fn answer_text(message: &AssistantMessage) -> String {
    let mut parts = Vec::new();
    for block in &message.content {
        match block.as_ref() {
            AssistantBlock::Text(text) => parts.push(text.text.to_string()),
            AssistantBlock::Thinking(thinking) => parts.push(thinking.thinking.to_string()),
            AssistantBlock::ToolCall(tool_call) => {
                parts.push(format!("{}:{}", tool_call.name, tool_call.arguments))
            }
        }
    }
    parts.join("\n")
}

fn user_blocks_text(blocks: &[UserBlock]) -> String {
    blocks
        .iter()
        .map(|block| match block {
            UserBlock::Text(text) => text.text.to_string(),
            UserBlock::Image(image) => format!("[image:{}:{}]", image.mime_type, image.data.len()),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The prompt as the faux provider serializes it for token estimation.
fn serialize_context(context: &Context) -> String {
    let mut parts = Vec::new();
    if let Some(prompt) = &context.system_prompt {
        parts.push(format!("system:{prompt}"));
    }
    for message in &context.messages {
        let text = match message {
            Message::User(user) => match &user.content {
                UserContent::Text(text) => text.clone(),
                UserContent::Blocks(blocks) => user_blocks_text(blocks),
            },
            Message::Assistant(assistant) => answer_text(assistant),
            Message::ToolResult(result) => format!(
                "{}\n{}",
                result.tool_name,
                user_blocks_text(&result.content)
            ),
        };
        parts.push(format!("{}:{text}", message.role()));
    }
    if let Some(tools) = &context.tools {
        parts.push(format!(
            "tools:{}",
            serde_json::to_string(tools).unwrap_or_default()
        ));
    }
    parts.join("\n\n")
}
