//! `openai-responses`: the OpenAI Responses API.
//!
//! Requests follow pi-ai 0.85.1: reasoning items and text signatures replayed from earlier turns, tool-call ids
//! `"<call_id>|<item_id>"`, `prompt_cache_key` from the session id, `max_output_tokens` at least 16, a
//! reasoning model without a level sends `reasoning: {effort: "none"}`. Streaming: reasoning summaries and
//! text, function-call arguments, usage and the `completed` / `incomplete` / `failed` mapping.
//!
//! One deliberate difference from pi: a `"\n\n"` thinking delta is emitted *between* summary parts (pi emits
//! one after every part, so its deltas do not add up to the final thinking text).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::common::{self, RequestSetup};
use super::error_message;
use super::output::Output;
use crate::content::{AssistantBlock, TextContent, ThinkingContent, ToolCall, UserBlock};
use crate::context::{Context, Tool};
use crate::event_stream::AssistantMessageEventStream;
use crate::message::{Message, StopReason, UserContent};
use crate::model::{Api, Model, ModelThinkingLevel};
use crate::options::{CacheRetention, SimpleStreamOptions};
use crate::provider::ApiProvider;
use crate::usage::{Usage, calculate_cost};

const MIN_OUTPUT_TOKENS: u64 = 16;
const TOOL_CALL_PROVIDERS: [&str; 3] = ["openai", "openai-codex", "opencode"];

/// The `openai-responses` implementation.
#[derive(Clone)]
pub struct OpenAiResponses {
    client: reqwest::Client,
}

impl OpenAiResponses {
    /// Uses `client` for every request.
    pub fn new(client: reqwest::Client) -> Self {
        Self { client }
    }
}

impl ApiProvider for OpenAiResponses {
    fn api(&self) -> Api {
        Api::OPENAI_RESPONSES
    }

    fn stream_simple(
        &self,
        model: Model,
        context: Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        let client = self.client.clone();
        common::spawn_stream(model, move |model, output| async move {
            run(client, model, context, options, output).await;
        })
    }
}

/// pi's `shortHash`: two 32-bit multiplicative hashes over UTF-16 code units, printed in base 36.
pub(crate) fn pi_short_hash(text: &str) -> String {
    let mut h1: u32 = 0xdead_beef;
    let mut h2: u32 = 0x41c6_ce57;
    for unit in text.encode_utf16() {
        let ch = u32::from(unit);
        h1 = (h1 ^ ch).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ ch).wrapping_mul(1_597_334_677);
    }
    h1 = (h1 ^ (h1 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h2 ^ (h2 >> 13)).wrapping_mul(3_266_489_909);
    h2 = (h2 ^ (h2 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h1 ^ (h1 >> 13)).wrapping_mul(3_266_489_909);
    format!("{}{}", base36(h2), base36(h1))
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

fn normalize_id_part(part: &str) -> String {
    let sanitized: String = part
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let cut: String = sanitized.chars().take(64).collect();
    cut.trim_end_matches('_').to_string()
}

/// Responses tool-call ids `call|item`: both parts sanitised; the item id of a call made by another provider
/// or API is replaced by `fc_<hash>` (its own item ids mean nothing here), others get an `fc_` prefix.
fn normalize_tool_call_id(model: &Model, id: &str, foreign: bool) -> String {
    if !TOOL_CALL_PROVIDERS.contains(&model.provider.as_str()) {
        return normalize_id_part(id);
    }
    let Some((call, item)) = id.split_once('|') else {
        return normalize_id_part(id);
    };
    let call = normalize_id_part(call);
    let item = item.split('|').next().unwrap_or_default();
    let mut item = if foreign {
        format!("fc_{}", pi_short_hash(item))
            .chars()
            .take(64)
            .collect()
    } else {
        normalize_id_part(item)
    };
    if !item.starts_with("fc_") {
        item = normalize_id_part(&format!("fc_{item}"));
    }
    format!("{call}|{item}")
}

/// Ids of tool calls made by another provider or API (their item ids are not replayable here).
fn foreign_tool_call_ids(model: &Model, messages: &[Message]) -> HashSet<String> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) if *a.provider != *model.provider || a.api != model.api => {
                Some(a)
            }
            _ => None,
        })
        .flat_map(|a| a.tool_calls().map(|c| c.id.clone()).collect::<Vec<_>>())
        .collect()
}

/// `{"v":1,"id":…,"phase"?:…}`.
fn encode_text_signature(id: &str, phase: Option<&str>) -> String {
    let mut payload = Map::new();
    payload.insert("v".into(), json!(1));
    payload.insert("id".into(), json!(id));
    if let Some(phase) = phase.filter(|p| !p.is_empty()) {
        payload.insert("phase".into(), json!(phase));
    }
    Value::Object(payload).to_string()
}

fn parse_text_signature(signature: Option<&str>) -> Option<(String, Option<String>)> {
    let signature = signature?;
    if signature.starts_with('{') {
        if let Ok(parsed) = serde_json::from_str::<Value>(signature) {
            if parsed.get("v").and_then(Value::as_i64) == Some(1) {
                if let Some(id) = parsed.get("id").and_then(Value::as_str) {
                    let phase = parsed
                        .get("phase")
                        .and_then(Value::as_str)
                        .filter(|p| matches!(*p, "commentary" | "final_answer"))
                        .map(str::to_string);
                    return Some((id.to_string(), phase));
                }
            }
        }
    }
    Some((signature.to_string(), None))
}

fn tool_result_output(model: &Model, content: &[UserBlock]) -> Value {
    let text: Vec<String> = content
        .iter()
        .filter_map(|b| match b {
            UserBlock::Text(t) => Some(t.text.to_string()),
            UserBlock::Image(_) => None,
        })
        .collect();
    let text = text.join("\n");
    let images: Vec<&crate::content::ImageContent> = content
        .iter()
        .filter_map(|b| match b {
            UserBlock::Image(img) => Some(img),
            UserBlock::Text(_) => None,
        })
        .collect();
    if images.is_empty() || !model.supports_images() {
        let shown = if !text.is_empty() {
            text
        } else if images.is_empty() {
            "(no tool output)".into()
        } else {
            "(see attached image)".into()
        };
        return json!(common::sanitize(&shown));
    }
    let mut out = Vec::new();
    if !text.is_empty() {
        out.push(json!({"type": "input_text", "text": common::sanitize(&text)}));
    }
    for img in images {
        out.push(json!({"type": "input_image", "detail": "auto",
            "image_url": format!("data:{};base64,{}", img.mime_type, img.data)}));
    }
    Value::Array(out)
}

fn convert_messages(model: &Model, context: &Context) -> Vec<Value> {
    let mut input: Vec<Value> = Vec::new();
    let foreign = foreign_tool_call_ids(model, &context.messages);
    let messages = crate::transform_messages(&context.messages, model, |id| {
        normalize_tool_call_id(model, id, foreign.contains(id))
    });
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        let developer = model.reasoning
            && model
                .compat
                .as_ref()
                .and_then(|c| c.get("supportsDeveloperRole"))
                .and_then(Value::as_bool)
                != Some(false);
        input.push(json!({"role": if developer { "developer" } else { "system" }, "content": common::sanitize(system)}));
    }
    for (msg_index, message) in messages.iter().enumerate() {
        match message {
            Message::User(user) => {
                let content: Vec<Value> = match &user.content {
                    UserContent::Text(text) => vec![json!({"type": "input_text", "text": common::sanitize(text)})],
                    UserContent::Blocks(blocks) => blocks
                        .iter()
                        .map(|b| match b {
                            UserBlock::Text(t) => json!({"type": "input_text", "text": common::sanitize(&t.text.to_string())}),
                            UserBlock::Image(img) => json!({"type": "input_image", "detail": "auto",
                                "image_url": format!("data:{};base64,{}", img.mime_type, img.data)}),
                        })
                        .collect(),
                };
                if !content.is_empty() {
                    input.push(json!({"role": "user", "content": content}));
                }
            }
            Message::Assistant(assistant) => {
                let same_provider_api =
                    *assistant.provider == *model.provider && assistant.api == model.api;
                let different_model = same_provider_api && *assistant.model != *model.id;
                let mut text_index = 0;
                for block in &assistant.content {
                    match block.as_ref() {
                        AssistantBlock::Thinking(t) => {
                            if let Some(item) = t
                                .thinking_signature
                                .as_deref()
                                .filter(|s| !s.is_empty())
                                .and_then(|s| serde_json::from_str::<Value>(s).ok())
                            {
                                input.push(item);
                            }
                        }
                        AssistantBlock::Text(t) => {
                            let parsed = parse_text_signature(t.text_signature.as_deref());
                            let fallback = if text_index == 0 {
                                format!("msg_pi_{msg_index}")
                            } else {
                                format!("msg_pi_{msg_index}_{text_index}")
                            };
                            text_index += 1;
                            let (id, phase) = match parsed {
                                Some((id, phase)) if !id.is_empty() => {
                                    let id = if id.chars().count() > 64 {
                                        format!("msg_{}", pi_short_hash(&id))
                                    } else {
                                        id
                                    };
                                    (id, phase)
                                }
                                Some((_, phase)) => (fallback, phase),
                                None => (fallback, None),
                            };
                            let mut item = Map::new();
                            item.insert("type".into(), json!("message"));
                            item.insert("role".into(), json!("assistant"));
                            item.insert(
                                "content".into(),
                                json!([{"type": "output_text", "text": common::sanitize(&t.text.to_string()), "annotations": []}]),
                            );
                            item.insert("status".into(), json!("completed"));
                            item.insert("id".into(), json!(id));
                            if let Some(phase) = phase {
                                item.insert("phase".into(), json!(phase));
                            }
                            input.push(Value::Object(item));
                        }
                        AssistantBlock::ToolCall(c) => {
                            let mut parts = c.id.splitn(2, '|');
                            let call_id = parts.next().unwrap_or_default();
                            let mut item_id = parts.next().map(str::to_string);
                            if item_id
                                .as_deref()
                                .is_some_and(|i| different_model && i.starts_with("fc_"))
                                || !item_id.as_deref().is_some_and(|i| i.starts_with("fc_"))
                            {
                                item_id = None;
                            }
                            let mut item = Map::new();
                            item.insert("type".into(), json!("function_call"));
                            if let Some(item_id) = item_id {
                                item.insert("id".into(), json!(item_id));
                            }
                            item.insert("call_id".into(), json!(call_id));
                            item.insert("name".into(), json!(c.name));
                            item.insert("arguments".into(), json!(c.arguments.to_string()));
                            if let (true, Some(ns)) =
                                (same_provider_api && !different_model, &c.namespace)
                            {
                                item.insert("namespace".into(), json!(ns));
                            }
                            input.push(Value::Object(item));
                        }
                    }
                }
            }
            Message::ToolResult(result) => {
                let call_id = result.tool_call_id.split('|').next().unwrap_or_default();
                input.push(json!({"type": "function_call_output", "call_id": call_id,
                    "output": tool_result_output(model, &result.content)}));
            }
        }
    }
    input
}

fn convert_tools(tools: &[Tool], supports_strict: bool) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| {
            let mut out = Map::new();
            out.insert("type".into(), json!("function"));
            out.insert("name".into(), json!(tool.name));
            out.insert("description".into(), json!(tool.description));
            out.insert("parameters".into(), tool.parameters.clone());
            if supports_strict {
                out.insert("strict".into(), json!(common::strict_sampling(tool, true)));
            }
            Value::Object(out)
        })
        .collect()
}

fn build_body(
    model: &Model,
    context: &Context,
    options: &SimpleStreamOptions,
    setup: &RequestSetup,
) -> Value {
    let compat = |key: &str| {
        model
            .compat
            .as_ref()
            .and_then(|c| c.get(key))
            .and_then(Value::as_bool)
    };
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert(
        "input".into(),
        Value::Array(convert_messages(model, context)),
    );
    body.insert("stream".into(), json!(true));
    if setup.cache_retention != CacheRetention::None {
        if let Some(key) = options.base.session_id.as_deref() {
            body.insert(
                "prompt_cache_key".into(),
                json!(common::clamp_prompt_cache_key(key)),
            );
        }
    }
    let explicit_cache = compat("supportsExplicitPromptCacheMode").unwrap_or(false);
    let long_ok = compat("supportsLongCacheRetention").unwrap_or(true);
    if setup.cache_retention == CacheRetention::Long && long_ok && !explicit_cache {
        body.insert("prompt_cache_retention".into(), json!("24h"));
    }
    if explicit_cache {
        match setup.cache_retention {
            CacheRetention::None => {
                body.insert("prompt_cache_options".into(), json!({"mode": "explicit"}));
            }
            CacheRetention::Long if long_ok => {
                body.insert("prompt_cache_options".into(), json!({"ttl": "30m"}));
            }
            _ => {}
        }
    }
    body.insert("store".into(), json!(false));
    if setup.max_tokens > 0 && compat("supportsMaxOutputTokens").unwrap_or(true) {
        body.insert(
            "max_output_tokens".into(),
            json!(setup.max_tokens.max(MIN_OUTPUT_TOKENS)),
        );
    }
    if let Some(t) = options.base.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(tools) = context.tools.as_deref().filter(|t| !t.is_empty()) {
        body.insert(
            "tools".into(),
            Value::Array(convert_tools(
                tools,
                compat("supportsStrictMode").unwrap_or(false),
            )),
        );
    }
    if let Some(choice) = options.tool_choice {
        body.insert(
            "tool_choice".into(),
            serde_json::to_value(choice).unwrap_or(Value::Null),
        );
    }
    if model.reasoning {
        match setup.reasoning {
            Some(level) => {
                let effort = crate::mapped_thinking_level(model, level)
                    .unwrap_or(level.as_str())
                    .to_string();
                body.insert(
                    "reasoning".into(),
                    json!({"effort": effort, "summary": "auto"}),
                );
                body.insert("include".into(), json!(["reasoning.encrypted_content"]));
            }
            None => {
                let off_unsupported = model
                    .thinking_level_map
                    .as_ref()
                    .is_some_and(|m| m.get(&ModelThinkingLevel::Off) == Some(&None));
                if model.provider != "github-copilot" && !off_unsupported {
                    let off = crate::mapped_thinking_level(model, ModelThinkingLevel::Off)
                        .unwrap_or("none")
                        .to_string();
                    body.insert("reasoning".into(), json!({"effort": off}));
                }
            }
        }
        if model.provider == "xai" {
            body.insert("include".into(), json!(["reasoning.encrypted_content"]));
        }
    }
    for (k, v) in options.base.sampling_params.iter().flatten() {
        body.insert(k.clone(), v.clone());
    }
    Value::Object(body)
}

async fn run(
    client: reqwest::Client,
    model: Model,
    context: Context,
    options: SimpleStreamOptions,
    mut output: Output,
) {
    let label = error_message::provider_label(&model.provider);
    let api_key = match common::api_key_or_header(&model, &options) {
        Ok(key) => key,
        Err(text) => return output.fail(options.is_cancelled(), text),
    };
    let setup = RequestSetup::new(&model, &context, &options, false);
    let mut body = build_body(&model, &context, &options, &setup);
    if let Some(hook) = &options.base.on_payload {
        if let Some(replaced) = hook(&body, &model) {
            body = replaced;
        }
    }
    let mut headers: Vec<(String, String)> = vec![
        ("content-type".into(), "application/json".into()),
        ("accept".into(), "application/json".into()),
        ("user-agent".into(), common::USER_AGENT.into()),
    ];
    if let Some(key) = &api_key {
        headers.push(("authorization".into(), format!("Bearer {key}")));
    }
    if let Some(session) = setup.cache_session_id.as_deref() {
        let format = model
            .compat
            .as_ref()
            .and_then(|c| c.get("sessionAffinityFormat"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| {
                if model.provider == "openrouter" || model.base_url.contains("openrouter.ai") {
                    "openrouter"
                } else {
                    "openai"
                }
                .to_string()
            });
        if format == "openrouter" {
            headers.push(("x-session-id".into(), session.into()));
        } else {
            if format == "openai" {
                headers.push(("session_id".into(), session.into()));
            }
            headers.push(("x-client-request-id".into(), session.into()));
        }
    }
    let headers = common::merge_headers(headers, &model, &options);
    let url = format!("{}/responses", model.base_url.trim_end_matches('/'));
    let Some(mut events) = common::open_event_stream(
        &client,
        &model,
        &options,
        &url,
        headers,
        &body,
        &label,
        &mut output,
    )
    .await
    else {
        return;
    };
    let mut state = State::default();
    loop {
        let event = match events.next().await {
            Ok(Some(event)) => event,
            Ok(None) => break,
            Err(failure) => {
                return output.fail(
                    options.is_cancelled(),
                    error_message::stream_failure(&label, &failure),
                );
            }
        };
        if event.data.starts_with("[DONE]") {
            continue;
        }
        let parsed: Value = match serde_json::from_str(&event.data) {
            Ok(value) => value,
            Err(error) => {
                return output.fail(
                    options.is_cancelled(),
                    error_message::invalid_json(&label, &error, &event.data),
                );
            }
        };
        if let Err(text) = state.apply(&model, &label, &parsed, &mut output) {
            return output.fail(options.is_cancelled(), text);
        }
    }
    if options.is_cancelled() {
        return output.fail(true, "Request was aborted".into());
    }
    if !state.saw_terminal {
        return output.fail(
            false,
            format!("OpenAI Responses stream ended before a terminal response event: {label} closed the response early."),
        );
    }
    match output.message.stop_reason {
        StopReason::Pending => output.fail(
            false,
            "OpenAI Responses stream ended without a stop reason".into(),
        ),
        StopReason::Error | StopReason::Aborted => {
            let text = output
                .message
                .error_message
                .take()
                .unwrap_or_else(|| "An unknown error occurred".into());
            output.fail(false, text);
        }
        _ => output.done(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SlotKind {
    Thinking,
    Text,
    ToolCall,
}

#[derive(Default)]
struct State {
    /// output_index → (kind, content index).
    slots: HashMap<i64, (SlotKind, usize)>,
    partial_json: HashMap<usize, String>,
    /// Content index of a thinking block that owes a "\n\n" separator before its next summary text.
    pending_separator: Option<usize>,
    saw_terminal: bool,
    reasoning_by_id: HashMap<String, usize>,
}

impl State {
    fn slot(&self, event: &Value, kind: SlotKind) -> Option<usize> {
        let index = event.get("output_index").and_then(Value::as_i64)?;
        self.slots
            .get(&index)
            .filter(|(k, _)| *k == kind)
            .map(|(_, i)| *i)
    }

    fn create_slot(&mut self, output_index: i64, item: &Value, output: &mut Output) {
        let text = |key: &str| {
            item.get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let slot = match item.get("type").and_then(Value::as_str).unwrap_or_default() {
            "reasoning" => (
                SlotKind::Thinking,
                output.thinking_start(ThinkingContent::new("")),
            ),
            "message" => {
                if text("phase") == "final_answer" {
                    output.message.stop_reason = StopReason::Stop;
                }
                (SlotKind::Text, output.text_start(TextContent::new("")))
            }
            "function_call" => {
                let mut call = ToolCall::new(
                    format!("{}|{}", text("call_id"), text("id")),
                    text("name"),
                    json!({}),
                );
                call.namespace = item
                    .get("namespace")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let index = output.toolcall_start(call);
                self.partial_json.insert(index, text("arguments"));
                (SlotKind::ToolCall, index)
            }
            _ => return,
        };
        self.slots.insert(output_index, slot);
    }

    fn apply(
        &mut self,
        model: &Model,
        label: &str,
        event: &Value,
        output: &mut Output,
    ) -> Result<(), String> {
        let text = |key: &str| event.get(key).and_then(Value::as_str).unwrap_or_default();
        match event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "response.created" => {
                if let Some(id) = event.pointer("/response/id").and_then(Value::as_str) {
                    output.message.response_id = Some(id.into());
                }
            }
            "response.output_item.added" => {
                let index = event
                    .get("output_index")
                    .and_then(Value::as_i64)
                    .unwrap_or(-1);
                self.create_slot(index, event.get("item").unwrap_or(&Value::Null), output);
            }
            "response.reasoning_summary_text.delta" => {
                if let Some(index) = self.slot(event, SlotKind::Thinking) {
                    if self.pending_separator.take() == Some(index) {
                        output.thinking_delta(index, "\n\n");
                    }
                    output.thinking_delta(index, text("delta"));
                }
            }
            "response.reasoning_summary_part.done" => {
                if let Some(index) = self.slot(event, SlotKind::Thinking) {
                    self.pending_separator = Some(index);
                }
            }
            "response.reasoning_text.delta" => {
                if let Some(index) = self.slot(event, SlotKind::Thinking) {
                    output.thinking_delta(index, text("delta"));
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                if let Some(index) = self.slot(event, SlotKind::Text) {
                    output.text_delta(index, text("delta"));
                }
            }
            "response.function_call_arguments.delta" => {
                if let Some(index) = self.slot(event, SlotKind::ToolCall) {
                    let delta = text("delta");
                    let buffer = self.partial_json.entry(index).or_default();
                    buffer.push_str(delta);
                    let parsed = crate::parse_streaming_json(buffer);
                    output.toolcall_delta(index, delta, Some(parsed));
                }
            }
            "response.function_call_arguments.done" => {
                if let Some(index) = self.slot(event, SlotKind::ToolCall) {
                    let full = text("arguments").to_string();
                    let previous = self
                        .partial_json
                        .insert(index, full.clone())
                        .unwrap_or_default();
                    let parsed = crate::parse_streaming_json(&full);
                    match full
                        .strip_prefix(previous.as_str())
                        .filter(|rest| !rest.is_empty())
                    {
                        Some(rest) => output.toolcall_delta(index, rest, Some(parsed)),
                        None => output.with_tool_call(index, |call| call.arguments = parsed),
                    }
                }
            }
            "response.output_item.done" => {
                let item = event.get("item").unwrap_or(&Value::Null);
                let output_index = event
                    .get("output_index")
                    .and_then(Value::as_i64)
                    .unwrap_or(-1);
                let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
                if kind == "message"
                    && item.get("phase").and_then(Value::as_str) == Some("final_answer")
                {
                    output.message.stop_reason = StopReason::Stop;
                }
                if !self.slots.contains_key(&output_index) {
                    self.create_slot(output_index, item, output);
                }
                let Some(&(slot_kind, index)) = self.slots.get(&output_index) else {
                    return Ok(());
                };
                match (kind, slot_kind) {
                    ("reasoning", SlotKind::Thinking) => {
                        let join = |key: &str| {
                            item.get(key)
                                .and_then(Value::as_array)
                                .map(|parts| {
                                    parts
                                        .iter()
                                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                                        .collect::<Vec<_>>()
                                        .join("\n\n")
                                })
                                .unwrap_or_default()
                        };
                        let (summary, content) = (join("summary"), join("content"));
                        let signature = item.to_string();
                        output.with_thinking(index, |block| {
                            let final_text = if !summary.is_empty() {
                                summary
                            } else if !content.is_empty() {
                                content
                            } else {
                                block.thinking.to_string()
                            };
                            if final_text != block.thinking.to_string() {
                                block.thinking = crate::SharedText::new(final_text);
                            }
                            block.thinking_signature = Some(signature);
                        });
                        if let Some(id) = item.get("id").and_then(Value::as_str) {
                            self.reasoning_by_id.insert(id.to_string(), index);
                        }
                        if self.pending_separator == Some(index) {
                            self.pending_separator = None;
                        }
                        output.thinking_end(index);
                        self.slots.remove(&output_index);
                    }
                    ("message", SlotKind::Text) => {
                        let final_text: String = item
                            .get("content")
                            .and_then(Value::as_array)
                            .map(|parts| {
                                parts
                                    .iter()
                                    .filter_map(|p| {
                                        if p.get("type").and_then(Value::as_str)
                                            == Some("output_text")
                                        {
                                            p.get("text").and_then(Value::as_str)
                                        } else {
                                            p.get("refusal").and_then(Value::as_str)
                                        }
                                    })
                                    .collect()
                            })
                            .unwrap_or_default();
                        let id = item
                            .get("id")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string();
                        let phase = item
                            .get("phase")
                            .and_then(Value::as_str)
                            .map(str::to_string);
                        output.with_text(index, |block| {
                            if final_text != block.text.to_string() {
                                block.text = crate::SharedText::new(final_text);
                            }
                            block.text_signature =
                                Some(encode_text_signature(&id, phase.as_deref()));
                        });
                        output.text_end(index);
                        self.slots.remove(&output_index);
                    }
                    ("function_call", SlotKind::ToolCall) => {
                        let buffer = self.partial_json.remove(&index).unwrap_or_default();
                        let arguments = item
                            .get("arguments")
                            .and_then(Value::as_str)
                            .filter(|s| !s.is_empty());
                        let source = arguments.map_or_else(
                            || {
                                if buffer.is_empty() {
                                    "{}".to_string()
                                } else {
                                    buffer
                                }
                            },
                            str::to_string,
                        );
                        let parsed = crate::parse_streaming_json(&source);
                        if let Some(ns) = item.get("namespace").and_then(Value::as_str) {
                            let ns = ns.to_string();
                            output.with_tool_call(index, |call| call.namespace = Some(ns));
                        }
                        output.toolcall_end(index, Some(parsed));
                        self.slots.remove(&output_index);
                    }
                    _ => {}
                }
            }
            "response.completed" | "response.incomplete" => {
                self.finalize(model, event.get("response").unwrap_or(&Value::Null), output);
            }
            "error" => {
                let code = event
                    .get("code")
                    .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_string));
                let message = text("message");
                return Err(match code {
                    Some(code) => format!("{label} reported an error ({code}): {message}"),
                    None => format!("{label} reported an error: {message}"),
                });
            }
            "response.failed" => {
                self.saw_terminal = true;
                let response = event.get("response").unwrap_or(&Value::Null);
                output.message.raw_stop_reason = response
                    .get("status")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let error = response.get("error").filter(|e| e.is_object());
                let reason = response
                    .pointer("/incomplete_details/reason")
                    .and_then(Value::as_str);
                return Err(match (error, reason) {
                    (Some(e), _) => {
                        let code = e.get("code").and_then(Value::as_str).unwrap_or("unknown");
                        let message = e
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("no message");
                        format!("{label} could not complete the response ({code}): {message}")
                    }
                    (None, Some(reason)) => {
                        format!("{label} could not complete the response (incomplete: {reason})")
                    }
                    (None, None) => {
                        format!("{label} could not complete the response (no error details given)")
                    }
                });
            }
            _ => {}
        }
        Ok(())
    }

    fn finalize(&mut self, model: &Model, response: &Value, output: &mut Output) {
        self.saw_terminal = true;
        if let Some(items) = response.get("output").and_then(Value::as_array) {
            for item in items {
                let encrypted = item
                    .get("encrypted_content")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty());
                let (Some("reasoning"), Some(encrypted), Some(id)) = (
                    item.get("type").and_then(Value::as_str),
                    encrypted,
                    item.get("id").and_then(Value::as_str),
                ) else {
                    continue;
                };
                let Some(&index) = self.reasoning_by_id.get(id) else {
                    continue;
                };
                output.with_thinking(index, |block| {
                    let Some(stored) = block
                        .thinking_signature
                        .as_deref()
                        .and_then(|s| serde_json::from_str::<Value>(s).ok())
                    else {
                        return;
                    };
                    if stored
                        .get("encrypted_content")
                        .is_some_and(|v| !v.is_null() && v != "")
                    {
                        return;
                    }
                    if let Value::Object(mut map) = stored {
                        map.insert("encrypted_content".into(), json!(encrypted));
                        block.thinking_signature = Some(Value::Object(map).to_string());
                    }
                });
            }
        }
        if let Some(id) = response.get("id").and_then(Value::as_str) {
            output.message.response_id = Some(id.into());
        }
        if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
            let n = |p: &str| usage.pointer(p).and_then(Value::as_u64).unwrap_or(0);
            let cached = n("/input_tokens_details/cached_tokens");
            let cache_write = n("/input_tokens_details/cache_write_tokens");
            output.message.usage = Usage {
                input: n("/input_tokens").saturating_sub(cached + cache_write),
                output: n("/output_tokens"),
                cache_read: cached,
                cache_write,
                reasoning: Some(n("/output_tokens_details/reasoning_tokens")),
                total_tokens: n("/total_tokens"),
                ..Usage::default()
            };
        }
        calculate_cost(model, &mut output.message.usage);
        let status = response.get("status").and_then(Value::as_str);
        let reason = response
            .pointer("/incomplete_details/reason")
            .and_then(Value::as_str);
        output.message.raw_stop_reason = match (status, reason) {
            (Some(s), Some(r)) => Some(format!("{s}.{r}")),
            (Some(s), None) => Some(s.to_string()),
            (None, _) => None,
        };
        let (stop, error) = match status {
            None | Some("completed" | "in_progress" | "queued") => (StopReason::Stop, None),
            Some("incomplete") if reason == Some("max_output_tokens") => (StopReason::Length, None),
            Some("incomplete") => (
                StopReason::Error,
                Some(reason.map_or_else(
                    || "Response incomplete without a provider reason".to_string(),
                    |r| format!("Response incomplete: {r}"),
                )),
            ),
            Some("failed" | "cancelled") => (StopReason::Error, None),
            Some(other) => (
                StopReason::Error,
                Some(format!("Unhandled stop reason: {other}")),
            ),
        };
        output.message.stop_reason = stop;
        output.message.error_message = error;
        if stop == StopReason::Stop && output.has_tool_call() {
            output.message.stop_reason = StopReason::ToolUse;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_hash_matches_pi() {
        // Values printed by pi-ai 0.85.1's `shortHash`.
        assert_eq!(pi_short_hash(""), "k4n83c7h0j2b");
        assert_eq!(pi_short_hash("call_abc|fc_123"), "jp01dsxufnom");
        assert_eq!(pi_short_hash("toolu_01/AbC+xyz"), "1iyc4dfuh4alu");
        assert_eq!(pi_short_hash("简历📄"), "1jt1uo711mdwr9");
        assert_eq!(pi_short_hash(&"x".repeat(300)), "1ri0b25fse44j");
    }

    #[test]
    fn tool_call_ids_are_normalised_like_pi() {
        let model: Model = serde_json::from_value(json!({
            "id": "gpt-5", "name": "gpt-5", "api": "openai-responses", "provider": "openai", "baseUrl": "http://x",
            "reasoning": true, "input": ["text"], "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            "contextWindow": 1000, "maxTokens": 100
        }))
        .unwrap();
        assert_eq!(
            normalize_tool_call_id(&model, "toolu_01/AbC+xyz", true),
            "toolu_01_AbC_xyz"
        );
        assert_eq!(
            normalize_tool_call_id(&model, "call_1|fc_2", false),
            "call_1|fc_2"
        );
        assert_eq!(
            normalize_tool_call_id(&model, "call_1|item+2", false),
            "call_1|fc_item_2"
        );
        // Another provider's item id is replaced by a hash (pi: `fc_${shortHash(itemId)}`).
        let foreign = normalize_tool_call_id(&model, "call_abc|fc_123", true);
        assert_eq!(foreign, format!("call_abc|fc_{}", pi_short_hash("fc_123")));
    }

    #[test]
    fn text_signatures_round_trip() {
        let sig = encode_text_signature("msg_1", Some("commentary"));
        assert_eq!(sig, r#"{"v":1,"id":"msg_1","phase":"commentary"}"#);
        assert_eq!(
            parse_text_signature(Some(&sig)),
            Some(("msg_1".into(), Some("commentary".into())))
        );
        assert_eq!(
            parse_text_signature(Some("legacy")),
            Some(("legacy".into(), None))
        );
    }
}
