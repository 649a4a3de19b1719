//! `anthropic-messages`: the Anthropic Messages API (also served by Kimi, MiniMax, OpenRouter and gateways).
//!
//! Request building follows pi-ai 0.85.1: system prompt as a cached text block, `cache_control` on the last
//! user block and the last tool, `eager_input_streaming` tools, budget thinking (with the
//! `interleaved-thinking` beta) or adaptive thinking with `output_config.effort`. Streaming: text, thinking
//! with signatures, redacted thinking, `tool_use` with `input_json_delta`, usage from `message_start` and
//! `message_delta`, stop-reason mapping; an SSE `error` event ends the stream with the provider's message.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::common::{self, RequestSetup};
use super::error_message;
use super::output::Output;
use crate::content::{AssistantBlock, TextContent, ThinkingContent, ToolCall, UserBlock};
use crate::context::{Context, Tool};
use crate::event_stream::AssistantMessageEventStream;
use crate::message::{Message, StopReason, UserContent};
use crate::model::{Api, Model, ModelThinkingLevel, ThinkingLevel};
use crate::options::{CacheRetention, SimpleStreamOptions};
use crate::provider::ApiProvider;
use crate::usage::calculate_cost;

const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";
const FINE_GRAINED_TOOL_STREAMING_BETA: &str = "fine-grained-tool-streaming-2025-05-14";

/// The `anthropic-messages` implementation.
#[derive(Clone)]
pub struct AnthropicMessages {
    client: reqwest::Client,
}

impl AnthropicMessages {
    /// Uses `client` for every request.
    pub fn new(client: reqwest::Client) -> Self {
        Self { client }
    }
}

impl ApiProvider for AnthropicMessages {
    fn api(&self) -> Api {
        Api::ANTHROPIC_MESSAGES
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

fn compat_flag(model: &Model, key: &str, default: bool) -> bool {
    model
        .compat
        .as_ref()
        .and_then(|c| c.get(key))
        .and_then(Value::as_bool)
        .unwrap_or(default)
}

/// How thinking is requested.
#[derive(Debug, Clone, PartialEq)]
enum Thinking {
    Disabled,
    Budget(u64),
    Adaptive(String),
}

/// Effort for adaptive thinking: the model's map, else minimal/low→low, medium→medium, others→high.
fn adaptive_effort(model: &Model, level: ThinkingLevel) -> String {
    if let Some(mapped) = crate::mapped_thinking_level(model, ModelThinkingLevel::from(level)) {
        return mapped.to_string();
    }
    match level {
        ThinkingLevel::Minimal | ThinkingLevel::Low => "low",
        ThinkingLevel::Medium => "medium",
        _ => "high",
    }
    .into()
}

fn normalize_tool_call_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

fn content_blocks(blocks: &[UserBlock]) -> Value {
    let has_images = blocks.iter().any(|b| matches!(b, UserBlock::Image(_)));
    if !has_images {
        let text: Vec<String> = blocks
            .iter()
            .filter_map(|b| match b {
                UserBlock::Text(t) => Some(t.text.to_string()),
                UserBlock::Image(_) => None,
            })
            .collect();
        return json!(common::sanitize(&text.join("\n")));
    }
    let mut out: Vec<Value> = blocks
        .iter()
        .map(|b| match b {
            UserBlock::Text(t) => {
                json!({"type": "text", "text": common::sanitize(&t.text.to_string())})
            }
            UserBlock::Image(img) => json!({"type": "image", "source": {
                "type": "base64", "media_type": img.mime_type, "data": img.data}}),
        })
        .collect();
    if !blocks.iter().any(|b| matches!(b, UserBlock::Text(_))) {
        out.insert(0, json!({"type": "text", "text": "(see attached image)"}));
    }
    Value::Array(out)
}

fn convert_messages(
    messages: &[Message],
    cache_control: Option<&Value>,
    allow_empty_signature: bool,
) -> Vec<Value> {
    let mut params: Vec<Value> = Vec::new();
    let mut i = 0;
    while i < messages.len() {
        match &messages[i] {
            Message::User(user) => match &user.content {
                UserContent::Text(text) => {
                    if !text.trim().is_empty() {
                        params.push(json!({"role": "user", "content": common::sanitize(text)}));
                    }
                }
                UserContent::Blocks(blocks) => {
                    let converted: Vec<Value> = blocks
                        .iter()
                        .filter_map(|b| match b {
                            UserBlock::Text(t) => {
                                let text = t.text.to_string();
                                (!text.trim().is_empty()).then(
                                    || json!({"type": "text", "text": common::sanitize(&text)}),
                                )
                            }
                            UserBlock::Image(img) => Some(json!({"type": "image", "source": {
                                "type": "base64", "media_type": img.mime_type, "data": img.data}})),
                        })
                        .collect();
                    if !converted.is_empty() {
                        params.push(json!({"role": "user", "content": converted}));
                    }
                }
            },
            Message::Assistant(assistant) => {
                let mut blocks: Vec<Value> = Vec::new();
                for block in &assistant.content {
                    match block.as_ref() {
                        AssistantBlock::Text(t) => {
                            let text = t.text.to_string();
                            if !text.trim().is_empty() {
                                blocks
                                    .push(json!({"type": "text", "text": common::sanitize(&text)}));
                            }
                        }
                        AssistantBlock::Thinking(t) => {
                            if t.redacted == Some(true) {
                                blocks.push(json!({"type": "redacted_thinking", "data": t.thinking_signature}));
                                continue;
                            }
                            let thinking = t.thinking.to_string();
                            let signature = t
                                .thinking_signature
                                .as_deref()
                                .filter(|s| !s.trim().is_empty());
                            if thinking.trim().is_empty() && signature.is_none() {
                                continue;
                            }
                            match signature {
                                Some(sig) => blocks.push(json!({"type": "thinking",
                                    "thinking": common::sanitize(&thinking), "signature": sig})),
                                None if allow_empty_signature => blocks
                                    .push(json!({"type": "thinking",
                                    "thinking": common::sanitize(&thinking), "signature": ""})),
                                None => blocks.push(
                                    json!({"type": "text", "text": common::sanitize(&thinking)}),
                                ),
                            }
                        }
                        AssistantBlock::ToolCall(c) => {
                            let input = if c.arguments.is_null() {
                                json!({})
                            } else {
                                c.arguments.clone()
                            };
                            blocks.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}));
                        }
                    }
                }
                if !blocks.is_empty() {
                    params.push(json!({"role": "assistant", "content": blocks}));
                }
            }
            Message::ToolResult(_) => {
                let mut results = Vec::new();
                while let Some(Message::ToolResult(result)) = messages.get(i) {
                    results.push(json!({
                        "type": "tool_result",
                        "tool_use_id": result.tool_call_id,
                        "content": content_blocks(&result.content),
                        "is_error": result.is_error,
                    }));
                    i += 1;
                }
                params.push(json!({"role": "user", "content": results}));
                continue;
            }
        }
        i += 1;
    }
    if let (Some(cache_control), Some(last)) = (cache_control, params.last_mut()) {
        if last.get("role").and_then(Value::as_str) == Some("user") {
            match last.get_mut("content") {
                Some(Value::Array(blocks)) => {
                    if let Some(block) = blocks.last_mut().and_then(Value::as_object_mut) {
                        if matches!(
                            block.get("type").and_then(Value::as_str),
                            Some("text" | "image" | "tool_result")
                        ) {
                            block.insert("cache_control".into(), cache_control.clone());
                        }
                    }
                }
                Some(Value::String(text)) => {
                    let text = text.clone();
                    if let Some(obj) = last.as_object_mut() {
                        obj.insert(
                            "content".into(),
                            json!([{"type": "text", "text": text, "cache_control": cache_control}]),
                        );
                    }
                }
                _ => {}
            }
        }
    }
    params
}

fn convert_tools(tools: &[Tool], eager: bool, cache_control: Option<&Value>) -> Vec<Value> {
    let count = tools.len();
    tools
        .iter()
        .enumerate()
        .map(|(index, tool)| {
            let mut out = Map::new();
            out.insert("name".into(), json!(tool.name));
            out.insert("description".into(), json!(tool.description));
            if eager {
                out.insert("eager_input_streaming".into(), json!(true));
            }
            let properties = tool
                .parameters
                .get("properties")
                .cloned()
                .unwrap_or_else(|| json!({}));
            let required = tool
                .parameters
                .get("required")
                .cloned()
                .unwrap_or_else(|| json!([]));
            out.insert(
                "input_schema".into(),
                json!({"type": "object", "properties": properties, "required": required}),
            );
            if let (Some(cc), true) = (cache_control, index + 1 == count) {
                out.insert("cache_control".into(), cc.clone());
            }
            Value::Object(out)
        })
        .collect()
}

/// The request body and the beta features (sent as the `anthropic-beta` header).
fn build_request(
    model: &Model,
    context: &Context,
    options: &SimpleStreamOptions,
    setup: &RequestSetup,
) -> (Value, Vec<String>) {
    let adaptive = compat_flag(model, "forceAdaptiveThinking", false);
    let (max_tokens, thinking) = match options.reasoning {
        None => (setup.max_tokens, Thinking::Disabled),
        Some(level) if adaptive => (
            setup.max_tokens,
            Thinking::Adaptive(adaptive_effort(model, level)),
        ),
        Some(level) => {
            let (max, budget) = crate::thinking_max_tokens(
                model,
                Some(setup.max_tokens),
                level,
                options.thinking_budgets.as_ref(),
            );
            let max = crate::clamp_max_tokens(model, context, max);
            (max, Thinking::Budget(budget.min(max.saturating_sub(1024))))
        }
    };
    let cache_control = match setup.cache_retention {
        CacheRetention::None => None,
        CacheRetention::Long if compat_flag(model, "supportsLongCacheRetention", true) => {
            Some(json!({"type": "ephemeral", "ttl": "1h"}))
        }
        _ => Some(json!({"type": "ephemeral"})),
    };
    let messages = crate::transform_messages(&context.messages, model, normalize_tool_call_id);
    let converted = convert_messages(
        &messages,
        cache_control.as_ref(),
        compat_flag(model, "allowEmptySignature", false),
    );
    let eager = compat_flag(model, "supportsEagerToolInputStreaming", true);
    let tools = context.tools.as_deref().unwrap_or_default();

    let mut betas: Vec<String> = Vec::new();
    let configured = model
        .headers
        .iter()
        .flatten()
        .filter(|(k, _)| k.eq_ignore_ascii_case("anthropic-beta"))
        .map(|(_, v)| Some(v.clone()))
        .chain(
            options
                .base
                .headers
                .iter()
                .flatten()
                .filter(|(k, _)| k.eq_ignore_ascii_case("anthropic-beta"))
                .map(|(_, v)| v.clone()),
        )
        .last();
    match configured {
        Some(None) => {}
        Some(Some(list)) => {
            for feature in list.split(',').map(str::trim).filter(|f| !f.is_empty()) {
                if !betas.iter().any(|b| b == feature) {
                    betas.push(feature.to_string());
                }
            }
        }
        None => {
            if !tools.is_empty() && !eager {
                betas.push(FINE_GRAINED_TOOL_STREAMING_BETA.into());
            }
            if model.reasoning && options.reasoning.is_some() && !adaptive {
                betas.push(INTERLEAVED_THINKING_BETA.into());
            }
        }
    }

    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert("messages".into(), Value::Array(converted));
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("stream".into(), json!(true));
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        let mut block = json!({"type": "text", "text": common::sanitize(system)});
        if let (Some(cc), Some(obj)) = (&cache_control, block.as_object_mut()) {
            obj.insert("cache_control".into(), cc.clone());
        }
        body.insert("system".into(), json!([block]));
    }
    if let Some(t) = options.base.temperature {
        if thinking == Thinking::Disabled && compat_flag(model, "supportsTemperature", true) {
            body.insert("temperature".into(), json!(t));
        }
    }
    if !tools.is_empty() {
        let cc = cache_control
            .as_ref()
            .filter(|_| compat_flag(model, "supportsCacheControlOnTools", true));
        body.insert(
            "tools".into(),
            Value::Array(convert_tools(tools, eager, cc)),
        );
    }
    if model.reasoning {
        match &thinking {
            Thinking::Budget(budget) => {
                let budget = if *budget == 0 { 1024 } else { *budget };
                body.insert(
                    "thinking".into(),
                    json!({"type": "enabled", "budget_tokens": budget, "display": "summarized"}),
                );
            }
            Thinking::Adaptive(effort) => {
                body.insert(
                    "thinking".into(),
                    json!({"type": "adaptive", "display": "summarized"}),
                );
                body.insert("output_config".into(), json!({"effort": effort}));
            }
            Thinking::Disabled => {
                let off_unsupported = model
                    .thinking_level_map
                    .as_ref()
                    .is_some_and(|m| m.get(&ModelThinkingLevel::Off) == Some(&None));
                if !off_unsupported {
                    body.insert("thinking".into(), json!({"type": "disabled"}));
                }
            }
        }
    }
    if let Some(user_id) = options
        .base
        .metadata
        .as_ref()
        .and_then(|m| m.get("user_id"))
        .and_then(Value::as_str)
    {
        body.insert("metadata".into(), json!({"user_id": user_id}));
    }
    if let Some(choice) = options.tool_choice {
        body.insert(
            "tool_choice".into(),
            json!({"type": serde_json::to_value(choice).unwrap_or(Value::Null)}),
        );
    }
    (Value::Object(body), betas)
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
    let setup = RequestSetup::new(&model, &context, &options, true);
    let (mut body, betas) = build_request(&model, &context, &options, &setup);
    if let Some(hook) = &options.base.on_payload {
        if let Some(mut replaced) = hook(&body, &model) {
            if let Some(obj) = replaced.as_object_mut() {
                obj.insert("stream".into(), json!(true));
            }
            body = replaced;
        }
    }
    let mut headers: Vec<(String, String)> = vec![
        ("content-type".into(), "application/json".into()),
        ("accept".into(), "application/json".into()),
        ("anthropic-version".into(), "2023-06-01".into()),
        (
            "anthropic-dangerous-direct-browser-access".into(),
            "true".into(),
        ),
        ("user-agent".into(), common::USER_AGENT.into()),
    ];
    if let Some(key) = &api_key {
        headers.push(("x-api-key".into(), key.clone()));
    }
    if let Some(session) = setup
        .cache_session_id
        .as_deref()
        .filter(|_| compat_flag(&model, "sendSessionAffinityHeaders", false))
    {
        headers.push(("x-session-affinity".into(), session.into()));
    }
    let mut headers = common::merge_headers(headers, &model, &options);
    headers.retain(|(k, _)| k != "anthropic-beta");
    if !betas.is_empty() {
        headers.push(("anthropic-beta".into(), betas.join(",")));
    }
    let url = format!(
        "{}/v1/messages?beta=true",
        model.base_url.trim_end_matches('/')
    );
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
    let mut saw_start = false;
    let mut saw_stop = false;
    loop {
        let event = match events.next().await {
            Ok(Some(event)) => event,
            Ok(None) => break,
            Err(failure) => {
                state.drop_scratch();
                return output.fail(
                    options.is_cancelled(),
                    error_message::stream_failure(&label, &failure),
                );
            }
        };
        let name = event.event.as_deref().unwrap_or_default();
        if name == "error" {
            return output.fail(options.is_cancelled(), sse_error_text(&label, &event.data));
        }
        if !matches!(
            name,
            "message_start"
                | "message_delta"
                | "message_stop"
                | "content_block_start"
                | "content_block_delta"
                | "content_block_stop"
        ) {
            continue;
        }
        let parsed: Value = match serde_json::from_str(&event.data)
            .or_else(|_| serde_json::from_str(&crate::partial_json::repair_json(&event.data)))
        {
            Ok(value) => value,
            Err(error) => {
                let text = format!(
                    "Could not parse Anthropic SSE event {name}: {}",
                    error_message::invalid_json(&label, &error, &event.data)
                );
                return output.fail(options.is_cancelled(), text);
            }
        };
        match parsed
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "message_start" => saw_start = true,
            "message_stop" => saw_stop = true,
            _ => {}
        }
        if let Err(text) = state.apply(&model, &parsed, &mut output) {
            return output.fail(options.is_cancelled(), text);
        }
    }
    if saw_start && !saw_stop {
        return output.fail(
            options.is_cancelled(),
            "Anthropic stream ended before message_stop: the response was cut off. Try again."
                .into(),
        );
    }
    if options.is_cancelled() {
        return output.fail(true, "Request was aborted".into());
    }
    match output.message.stop_reason {
        StopReason::Pending => {
            output.fail(false, "Anthropic stream ended without a stop reason".into())
        }
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

/// An SSE `error` event: `{"type":"error","error":{"type":…,"message":…}}`.
fn sse_error_text(label: &str, data: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(data).ok();
    let kind = parsed
        .as_ref()
        .and_then(|v| v.pointer("/error/type"))
        .and_then(Value::as_str);
    let message = parsed
        .as_ref()
        .and_then(|v| v.pointer("/error/message"))
        .and_then(Value::as_str);
    match (kind, message) {
        (Some("overloaded_error"), Some(m)) => {
            format!("{label} is overloaded ({m}). Try again in a moment.")
        }
        (Some("rate_limit_error"), Some(m)) => {
            format!("{label} is rate limiting requests ({m}). Wait a moment and try again.")
        }
        (Some(kind), Some(m)) => format!("{label} reported an error mid-response ({kind}): {m}"),
        _ => format!("{label} reported an error mid-response: {data}"),
    }
}

#[derive(Default)]
struct State {
    /// Provider block index → our content index.
    blocks: HashMap<i64, usize>,
    partial_json: HashMap<usize, String>,
    usage_model: Option<Model>,
}

impl State {
    fn drop_scratch(&mut self) {
        self.partial_json.clear();
    }

    fn index_of(&self, event: &Value) -> Option<usize> {
        event
            .get("index")
            .and_then(Value::as_i64)
            .and_then(|i| self.blocks.get(&i).copied())
    }

    fn apply(&mut self, model: &Model, event: &Value, output: &mut Output) -> Result<(), String> {
        match event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "message_start" => {
                let message = event.get("message").unwrap_or(&Value::Null);
                if let Some(id) = message.get("id").and_then(Value::as_str) {
                    output.message.response_id = Some(id.into());
                }
                if let Some(reported) = message.get("model").and_then(Value::as_str) {
                    output.message.model = reported.into();
                }
                let usage = message.get("usage").unwrap_or(&Value::Null);
                let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
                let u = &mut output.message.usage;
                u.input = n("input_tokens");
                u.output = n("output_tokens");
                u.cache_read = n("cache_read_input_tokens");
                u.cache_write = n("cache_creation_input_tokens");
                u.cache_write_1h = Some(
                    usage
                        .pointer("/cache_creation/ephemeral_1h_input_tokens")
                        .and_then(Value::as_u64)
                        .unwrap_or(0),
                );
                u.total_tokens = u.input + u.output + u.cache_read + u.cache_write;
                calculate_cost(self.usage_model.as_ref().unwrap_or(model), u);
            }
            "content_block_start" => {
                let block = event.get("content_block").unwrap_or(&Value::Null);
                let provider_index = event.get("index").and_then(Value::as_i64).unwrap_or(-1);
                let text_field = |key: &str| {
                    block
                        .get(key)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                let index = match block
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                {
                    "text" => Some(output.text_start(TextContent::new(text_field("text")))),
                    "thinking" => {
                        let mut thinking = ThinkingContent::new(text_field("thinking"));
                        thinking.thinking_signature = Some(text_field("signature"));
                        Some(output.thinking_start(thinking))
                    }
                    "redacted_thinking" => {
                        let mut thinking = ThinkingContent::new("[Reasoning redacted]");
                        thinking.thinking_signature = Some(text_field("data"));
                        thinking.redacted = Some(true);
                        Some(output.thinking_start(thinking))
                    }
                    "tool_use" => {
                        let input = block
                            .get("input")
                            .filter(|v| !v.is_null())
                            .cloned()
                            .unwrap_or_else(|| json!({}));
                        let call = ToolCall::new(text_field("id"), text_field("name"), input);
                        let index = output.toolcall_start(call);
                        self.partial_json.insert(index, String::new());
                        Some(index)
                    }
                    "fallback" if output.len() > 0 => {
                        return Err(
                            "Anthropic performed an unsupported mid-output model fallback".into(),
                        );
                    }
                    _ => None,
                };
                if let Some(index) = index {
                    self.blocks.insert(provider_index, index);
                }
            }
            "content_block_delta" => {
                let Some(index) = self.index_of(event) else {
                    return Ok(());
                };
                let delta = event.get("delta").unwrap_or(&Value::Null);
                let text = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or_default();
                match (
                    delta
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    output.block(index),
                ) {
                    ("text_delta", Some(AssistantBlock::Text(_))) => {
                        output.text_delta(index, text("text"))
                    }
                    ("thinking_delta", Some(AssistantBlock::Thinking(_))) => {
                        output.thinking_delta(index, text("thinking"))
                    }
                    ("input_json_delta", Some(AssistantBlock::ToolCall(_))) => {
                        let chunk = text("partial_json");
                        let buffer = self.partial_json.entry(index).or_default();
                        buffer.push_str(chunk);
                        let parsed = crate::parse_streaming_json(buffer);
                        output.toolcall_delta(index, chunk, Some(parsed));
                    }
                    ("signature_delta", Some(AssistantBlock::Thinking(_))) => {
                        let piece = text("signature").to_string();
                        output.with_thinking(index, |block| {
                            block
                                .thinking_signature
                                .get_or_insert_with(String::new)
                                .push_str(&piece);
                        });
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                let Some(index) = self.index_of(event) else {
                    return Ok(());
                };
                if let Some(i) = event.get("index").and_then(Value::as_i64) {
                    self.blocks.remove(&i);
                }
                match output.block(index) {
                    Some(AssistantBlock::Text(_)) => output.text_end(index),
                    Some(AssistantBlock::Thinking(_)) => output.thinking_end(index),
                    Some(AssistantBlock::ToolCall(_)) => {
                        // Input given at block start stays when no input_json_delta followed (pi drops it).
                        let buffer = self.partial_json.remove(&index).unwrap_or_default();
                        let arguments = if buffer.trim().is_empty() {
                            None
                        } else {
                            Some(crate::parse_streaming_json(&buffer))
                        };
                        output.toolcall_end(index, arguments);
                    }
                    None => {}
                }
            }
            "message_delta" => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                if let Some(reason) = delta
                    .get("stop_reason")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                {
                    output.message.raw_stop_reason = Some(reason.into());
                    let stop = match reason {
                        "end_turn" | "pause_turn" | "stop_sequence" => StopReason::Stop,
                        "max_tokens" => StopReason::Length,
                        "tool_use" => StopReason::ToolUse,
                        "refusal" => {
                            let explanation = delta
                                .pointer("/stop_details/explanation")
                                .and_then(Value::as_str)
                                .filter(|s| !s.is_empty())
                                .unwrap_or("The model refused to complete the request");
                            output.message.error_message = Some(explanation.into());
                            StopReason::Error
                        }
                        "sensitive" => {
                            output.message.error_message =
                                Some("Provider stopped with: sensitive".into());
                            StopReason::Error
                        }
                        other => return Err(format!("Unhandled stop reason: {other}")),
                    };
                    output.message.stop_reason = stop;
                }
                if let Some(usage) = event.get("usage").filter(|u| u.is_object()) {
                    let get = |key: &str| usage.get(key).and_then(Value::as_u64);
                    let u = &mut output.message.usage;
                    if let Some(v) = get("input_tokens") {
                        u.input = v;
                    }
                    if let Some(v) = get("output_tokens") {
                        u.output = v;
                    }
                    if let Some(v) = get("cache_read_input_tokens") {
                        u.cache_read = v;
                    }
                    if let Some(v) = get("cache_creation_input_tokens") {
                        u.cache_write = v;
                    }
                    if let Some(v) = usage
                        .pointer("/output_tokens_details/thinking_tokens")
                        .and_then(Value::as_u64)
                    {
                        u.reasoning = Some(v);
                    }
                }
                let u = &mut output.message.usage;
                u.total_tokens = u.input + u.output + u.cache_read + u.cache_write;
                calculate_cost(self.usage_model.as_ref().unwrap_or(model), u);
            }
            _ => {}
        }
        Ok(())
    }
}
