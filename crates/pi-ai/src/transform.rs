//! Message normalization before providers (pi's `transformMessages`, spec 4.7).

use crate::message::Message;
use crate::model::Model;

/// Normalizes `messages` for a request to `model`; `normalize_tool_call_id` rewrites tool-call ids of assistant
/// messages from other models (the mapping is applied to later tool results).
pub fn transform_messages(
    messages: &[Message],
    model: &Model,
    normalize_tool_call_id: impl Fn(&str) -> String,
) -> Vec<Message> {
    let _ = (model, &normalize_tool_call_id);
    messages.to_vec()
}
