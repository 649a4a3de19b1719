//! Message normalization before providers (pi's `transformMessages`, spec 4.7): what a replay to a given model
//! may contain.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::content::{AssistantBlock, TextContent, UserBlock};
use crate::message::{
    AssistantMessage, Message, StopReason, ToolResultMessage, UserContent, now_millis,
};
use crate::model::Model;

/// Placeholder for a run of images in a user message sent to a text-only model.
pub const USER_IMAGE_PLACEHOLDER: &str = "(image omitted: model does not support images)";
/// Placeholder for a run of images in a tool result sent to a text-only model.
pub const TOOL_IMAGE_PLACEHOLDER: &str = "(tool image omitted: model does not support images)";
/// Content of the synthetic result inserted for a tool call that never got one.
pub const NO_RESULT_PROVIDED: &str = "No result provided";

/// Normalizes `messages` for a request to `model`:
/// * images become one text placeholder per run of consecutive images when the model has no image input;
/// * assistant messages with stopReason `error` / `aborted` are dropped;
/// * assistant messages from another model (provider, api or id differ) lose redacted thinking and text
///   signatures, their thinking becomes plain text (empty thinking dropped), tool calls lose
///   `thoughtSignature` and get their ids rewritten by `normalize_tool_call_id` (later tool results follow);
///   from the same model, thinking with a signature is kept even if empty and other empty thinking is dropped;
/// * a tool call still without a result when the next assistant or user message (or the end) is reached gets a
///   synthetic error result "No result provided".
pub fn transform_messages(
    messages: &[Message],
    model: &Model,
    normalize_tool_call_id: impl Fn(&str) -> String,
) -> Vec<Message> {
    let mut id_map: HashMap<String, String> = HashMap::new();
    let mut normalized = Vec::with_capacity(messages.len());
    for message in messages {
        match message {
            Message::User(user) => {
                let mut user = user.clone();
                if !model.supports_images() {
                    if let UserContent::Blocks(blocks) = &user.content {
                        user.content =
                            UserContent::Blocks(replace_images(blocks, USER_IMAGE_PLACEHOLDER));
                    }
                }
                normalized.push(Message::User(user));
            }
            Message::ToolResult(result) => {
                let mut result = result.clone();
                if !model.supports_images() {
                    result.content = replace_images(&result.content, TOOL_IMAGE_PLACEHOLDER);
                }
                if let Some(mapped) = id_map.get(&result.tool_call_id) {
                    result.tool_call_id.clone_from(mapped);
                }
                normalized.push(Message::ToolResult(result));
            }
            Message::Assistant(assistant) => {
                if matches!(
                    assistant.stop_reason,
                    StopReason::Error | StopReason::Aborted
                ) {
                    continue;
                }
                let assistant =
                    normalize_assistant(assistant, model, &normalize_tool_call_id, &mut id_map);
                normalized.push(Message::Assistant(assistant));
            }
        }
    }
    insert_missing_tool_results(normalized)
}

fn is_same_model(message: &AssistantMessage, model: &Model) -> bool {
    *message.provider == *model.provider && message.api == model.api && *message.model == *model.id
}

fn normalize_assistant(
    assistant: &AssistantMessage,
    model: &Model,
    normalize_tool_call_id: &impl Fn(&str) -> String,
    id_map: &mut HashMap<String, String>,
) -> AssistantMessage {
    let same_model = is_same_model(assistant, model);
    let mut content = Vec::with_capacity(assistant.content.len());
    for block in &assistant.content {
        match block.as_ref() {
            AssistantBlock::Thinking(thinking) => {
                if thinking.redacted == Some(true) {
                    if same_model {
                        content.push(Arc::clone(block));
                    }
                    continue;
                }
                if same_model
                    && thinking
                        .thinking_signature
                        .as_deref()
                        .is_some_and(|sig| !sig.is_empty())
                {
                    content.push(Arc::clone(block));
                    continue;
                }
                if thinking.thinking.as_str().trim().is_empty() {
                    continue;
                }
                if same_model {
                    content.push(Arc::clone(block));
                } else {
                    let text = TextContent {
                        text: thinking.thinking.clone(),
                        text_signature: None,
                    };
                    content.push(Arc::new(AssistantBlock::Text(text)));
                }
            }
            AssistantBlock::Text(text) => {
                if same_model || text.text_signature.is_none() {
                    content.push(Arc::clone(block));
                } else {
                    let plain = TextContent {
                        text: text.text.clone(),
                        text_signature: None,
                    };
                    content.push(Arc::new(AssistantBlock::Text(plain)));
                }
            }
            AssistantBlock::ToolCall(tool_call) => {
                if same_model {
                    content.push(Arc::clone(block));
                    continue;
                }
                let mut tool_call = tool_call.clone();
                tool_call.thought_signature = None;
                let normalized_id = normalize_tool_call_id(&tool_call.id);
                if normalized_id != tool_call.id {
                    id_map.insert(tool_call.id.clone(), normalized_id.clone());
                    tool_call.id = normalized_id;
                }
                content.push(Arc::new(AssistantBlock::ToolCall(tool_call)));
            }
        }
    }
    let mut normalized = assistant.clone();
    normalized.content = content;
    normalized
}

/// Replaces each run of consecutive images by one text block with `placeholder`.
fn replace_images(blocks: &[UserBlock], placeholder: &str) -> Vec<UserBlock> {
    let mut out = Vec::with_capacity(blocks.len());
    let mut previous_was_image = false;
    for block in blocks {
        match block {
            UserBlock::Image(_) => {
                if !previous_was_image {
                    out.push(UserBlock::text(placeholder));
                }
                previous_was_image = true;
            }
            UserBlock::Text(_) => {
                out.push(block.clone());
                previous_was_image = false;
            }
        }
    }
    out
}

/// Inserts "No result provided" error results for tool calls of the latest assistant message that have no
/// result when the next assistant or user message, or the end of the list, is reached.
fn insert_missing_tool_results(messages: Vec<Message>) -> Vec<Message> {
    let mut out = Vec::with_capacity(messages.len());
    let mut pending: Vec<(String, String)> = Vec::new();
    let mut answered: HashSet<String> = HashSet::new();
    let flush = |out: &mut Vec<Message>,
                 pending: &mut Vec<(String, String)>,
                 answered: &mut HashSet<String>| {
        for (id, name) in pending.drain(..) {
            if !answered.contains(&id) {
                out.push(Message::ToolResult(synthetic_result(id, name)));
            }
        }
        answered.clear();
    };
    for message in messages {
        match &message {
            Message::Assistant(assistant) => {
                flush(&mut out, &mut pending, &mut answered);
                pending = assistant
                    .tool_calls()
                    .map(|call| (call.id.clone(), call.name.clone()))
                    .collect();
            }
            Message::User(_) => flush(&mut out, &mut pending, &mut answered),
            Message::ToolResult(result) => {
                answered.insert(result.tool_call_id.clone());
            }
        }
        out.push(message);
    }
    flush(&mut out, &mut pending, &mut answered);
    out
}

fn synthetic_result(tool_call_id: String, tool_name: String) -> ToolResultMessage {
    ToolResultMessage {
        tool_call_id,
        tool_name,
        content: vec![UserBlock::text(NO_RESULT_PROVIDED)],
        details: None,
        usage: None,
        added_tool_names: None,
        is_error: true,
        timestamp: now_millis(),
    }
}

#[cfg(test)]
mod tests;
