//! `openai-completions`: OpenAI Chat Completions and the servers that speak it (Ollama, llama.cpp server,
//! vLLM, LM Studio, DeepSeek, OpenRouter, DashScope compatible mode, …).
//!
//! Request building follows pi-ai 0.85.1 including its per-provider compatibility switches (`compat`,
//! detected from the provider id and base URL, overridable per model); streaming follows its chunk
//! translation: text, reasoning in `reasoning_content` / `reasoning` / `reasoning_text`, OpenRouter
//! `reasoning_details`, tool calls keyed by stream index, usage from the final chunk, and every `*_end` event
//! after the body ended.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::common::{self, RequestSetup};
use super::error_message;
use super::output::Output;
use crate::content::{AssistantBlock, TextContent, ThinkingContent, ToolCall, UserBlock};
use crate::context::{Context, Tool};
use crate::event_stream::AssistantMessageEventStream;
use crate::message::{AssistantMessage, Message, StopReason, UserContent};
use crate::model::{Api, Model, ModelThinkingLevel};
use crate::options::{CacheRetention, SimpleStreamOptions};
use crate::provider::ApiProvider;
use crate::usage::{Usage, calculate_cost};

/// The `openai-completions` implementation.
#[derive(Clone)]
pub struct OpenAiCompletions {
    client: reqwest::Client,
}

impl OpenAiCompletions {
    /// Uses `client` for every request (share one client between adapters to share connections).
    pub fn new(client: reqwest::Client) -> Self {
        Self { client }
    }
}

impl ApiProvider for OpenAiCompletions {
    fn api(&self) -> Api {
        Api::OPENAI_COMPLETIONS
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

/// Compatibility switches (pi's `OpenAICompletionsCompat`).
#[derive(Debug, Clone)]
pub(crate) struct Compat {
    supports_store: bool,
    supports_developer_role: bool,
    supports_reasoning_effort: bool,
    supports_usage_in_streaming: bool,
    supports_finish_reason: bool,
    max_tokens_field: String,
    requires_tool_result_name: bool,
    requires_assistant_after_tool_result: bool,
    requires_thinking_as_text: bool,
    requires_reasoning_content_on_assistant_messages: bool,
    thinking_format: String,
    supports_strict_mode: bool,
    cache_control_format: Option<String>,
    send_session_affinity_headers: bool,
    session_affinity_format: String,
    supports_long_cache_retention: bool,
    open_router_routing: Option<Value>,
}

impl Compat {
    pub(crate) fn for_model(model: &Model) -> Self {
        let provider = model.provider.as_str();
        let url = model.base_url.as_str();
        let is_zai = provider == "zai"
            || provider == "zai-coding-cn"
            || url.contains("api.z.ai")
            || url.contains("open.bigmodel.cn");
        let is_together = provider == "together"
            || url.contains("api.together.ai")
            || url.contains("api.together.xyz");
        let is_moonshot = provider == "moonshotai"
            || provider == "moonshotai-cn"
            || url.contains("api.moonshot.");
        let is_open_router = provider == "openrouter" || url.contains("openrouter.ai");
        let is_cf_workers =
            provider == "cloudflare-workers-ai" || url.contains("api.cloudflare.com");
        let is_cf_gateway =
            provider == "cloudflare-ai-gateway" || url.contains("gateway.ai.cloudflare.com");
        let is_nvidia = provider == "nvidia" || url.contains("integrate.api.nvidia.com");
        let is_ant_ling = provider == "ant-ling" || url.contains("api.ant-ling.com");
        let is_deepseek = provider == "deepseek" || url.to_lowercase().contains("deepseek.com");
        let is_grok = provider == "xai" || url.contains("api.x.ai");
        let is_non_standard = is_nvidia
            || provider == "cerebras"
            || url.contains("cerebras.ai")
            || is_grok
            || is_together
            || url.contains("chutes.ai")
            || is_deepseek
            || is_zai
            || is_moonshot
            || provider == "opencode"
            || url.contains("opencode.ai")
            || is_cf_workers
            || is_cf_gateway
            || is_ant_ling;
        let use_max_tokens = url.contains("chutes.ai")
            || is_deepseek
            || is_moonshot
            || is_cf_gateway
            || is_together
            || is_nvidia
            || is_ant_ling
            || is_zai;
        let open_router_developer = is_open_router
            && (model.id.starts_with("anthropic/") || model.id.starts_with("openai/"));
        let thinking_format = if is_deepseek {
            "deepseek"
        } else if is_zai {
            "zai"
        } else if is_together {
            "together"
        } else if is_ant_ling {
            "ant-ling"
        } else if is_open_router {
            "openrouter"
        } else {
            "openai"
        };
        let mut compat = Self {
            supports_store: !is_non_standard,
            supports_developer_role: open_router_developer || (!is_non_standard && !is_open_router),
            supports_reasoning_effort: !is_grok
                && !is_zai
                && !is_moonshot
                && !is_together
                && !is_cf_gateway
                && !is_nvidia
                && !is_ant_ling,
            supports_usage_in_streaming: true,
            supports_finish_reason: true,
            max_tokens_field: if use_max_tokens {
                "max_tokens"
            } else {
                "max_completion_tokens"
            }
            .into(),
            requires_tool_result_name: false,
            requires_assistant_after_tool_result: false,
            requires_thinking_as_text: false,
            requires_reasoning_content_on_assistant_messages: is_deepseek,
            thinking_format: thinking_format.into(),
            supports_strict_mode: !is_moonshot && !is_together && !is_cf_gateway && !is_nvidia,
            cache_control_format: (provider == "openrouter" && model.id.starts_with("anthropic/"))
                .then(|| "anthropic".to_string()),
            send_session_affinity_headers: false,
            session_affinity_format: if is_open_router {
                "openrouter"
            } else {
                "openai"
            }
            .into(),
            supports_long_cache_retention: !(is_together
                || is_cf_workers
                || is_cf_gateway
                || is_nvidia
                || is_ant_ling),
            open_router_routing: None,
        };
        if let Some(overrides) = model.compat.as_ref().and_then(Value::as_object) {
            compat.apply(overrides);
        }
        compat
    }

    fn apply(&mut self, o: &Map<String, Value>) {
        let flag = |key: &str, slot: &mut bool| {
            if let Some(v) = o.get(key).and_then(Value::as_bool) {
                *slot = v;
            }
        };
        flag("supportsStore", &mut self.supports_store);
        flag("supportsDeveloperRole", &mut self.supports_developer_role);
        flag(
            "supportsReasoningEffort",
            &mut self.supports_reasoning_effort,
        );
        flag(
            "supportsUsageInStreaming",
            &mut self.supports_usage_in_streaming,
        );
        flag("supportsFinishReason", &mut self.supports_finish_reason);
        flag(
            "requiresToolResultName",
            &mut self.requires_tool_result_name,
        );
        flag(
            "requiresAssistantAfterToolResult",
            &mut self.requires_assistant_after_tool_result,
        );
        flag(
            "requiresThinkingAsText",
            &mut self.requires_thinking_as_text,
        );
        flag(
            "requiresReasoningContentOnAssistantMessages",
            &mut self.requires_reasoning_content_on_assistant_messages,
        );
        flag("supportsStrictMode", &mut self.supports_strict_mode);
        flag(
            "sendSessionAffinityHeaders",
            &mut self.send_session_affinity_headers,
        );
        flag(
            "supportsLongCacheRetention",
            &mut self.supports_long_cache_retention,
        );
        let text = |key: &str| o.get(key).and_then(Value::as_str).map(str::to_string);
        if let Some(v) = text("maxTokensField") {
            self.max_tokens_field = v;
        }
        if let Some(v) = text("thinkingFormat") {
            self.thinking_format = v;
        }
        if let Some(v) = text("cacheControlFormat") {
            self.cache_control_format = Some(v);
        }
        if let Some(v) = text("sessionAffinityFormat") {
            self.session_affinity_format = v;
        }
        if let Some(v) = o
            .get("openRouterRouting")
            .filter(|v| v.as_object().is_some_and(|m| !m.is_empty()))
        {
            self.open_router_routing = Some(v.clone());
        }
    }
}

/// The provider value for a reasoning level: the model's `thinkingLevelMap` entry, else the level name.
/// `None` when the map says the level is unsupported (`null`).
fn mapped_level(model: &Model, level: ModelThinkingLevel) -> Option<Option<String>> {
    model
        .thinking_level_map
        .as_ref()
        .and_then(|map| map.get(&level).cloned())
}

fn effort_value(model: &Model, level: ModelThinkingLevel) -> Value {
    match mapped_level(model, level) {
        Some(Some(value)) => Value::String(value),
        Some(None) => Value::Null,
        None => Value::String(level.as_str().to_string()),
    }
}

/// Chat Completions tool-call ids: Responses-style `call|item` ids are folded into one id of at most 40
/// characters; OpenAI's own ids are cut to 40.
fn normalize_tool_call_id(model: &Model, id: &str) -> String {
    if let Some((call, item)) = id.split_once('|') {
        let clean = |s: &str| -> String {
            s.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        };
        let call_id = clean(call);
        let item_id = clean(item);
        let combined = if item_id.is_empty() {
            call_id.clone()
        } else {
            format!("{call_id}_{item_id}")
        };
        if combined.chars().count() <= 40 {
            return combined;
        }
        let hash = common::short_hash(id);
        let prefix: String = call_id
            .chars()
            .take(40usize.saturating_sub(hash.len() + 1).max(1))
            .collect();
        return format!("{prefix}_{hash}");
    }
    if model.provider == "openai" && id.chars().count() > 40 {
        return id.chars().take(40).collect();
    }
    id.to_string()
}

fn text_of(blocks: &[UserBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            UserBlock::Text(t) => Some(t.text.to_string()),
            UserBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_reasoning_field(name: &str) -> bool {
    matches!(name, "reasoning" | "reasoning_content" | "reasoning_text")
}

/// OpenRouter `reasoning_details` kept in a thinking signature, when it holds a valid list.
fn parse_reasoning_details(signature: Option<&str>) -> Option<Vec<Value>> {
    let parsed: Value = serde_json::from_str(signature?).ok()?;
    let list = parsed.as_array()?;
    (!list.is_empty() && list.iter().all(is_reasoning_detail)).then(|| list.clone())
}

fn is_reasoning_detail(detail: &Value) -> bool {
    let Some(o) = detail.as_object() else {
        return false;
    };
    let id_ok = o.get("id").is_none_or(|v| v.is_null() || v.is_string());
    let format_ok = o.get("format").is_none_or(Value::is_string);
    let index_ok = o.get("index").is_none_or(Value::is_number);
    if !(id_ok && format_ok && index_ok) {
        return false;
    }
    match o.get("type").and_then(Value::as_str) {
        Some("reasoning.summary") => o.get("summary").is_some_and(Value::is_string),
        Some("reasoning.encrypted") => o.get("data").is_some_and(Value::is_string),
        Some("reasoning.text") => {
            o.get("text").is_some_and(Value::is_string)
                && o.get("signature")
                    .is_none_or(|v| v.is_null() || v.is_string())
        }
        _ => false,
    }
}

/// Merges a streamed reasoning detail into the list (consecutive text/summary pieces join).
fn append_reasoning_detail(details: &mut Vec<Value>, detail: &Value) {
    let kind = detail
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if let Some(last) = details.last_mut().and_then(Value::as_object_mut) {
        let last_kind = last
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let field = match (kind, last_kind.as_str()) {
            ("reasoning.text", "reasoning.text") => Some("text"),
            ("reasoning.summary", "reasoning.summary") => Some("summary"),
            _ => None,
        };
        if let Some(field) = field {
            let added = detail
                .get(field)
                .and_then(Value::as_str)
                .unwrap_or_default();
            let joined = format!(
                "{}{added}",
                last.get(field).and_then(Value::as_str).unwrap_or_default()
            );
            last.insert(field.into(), Value::String(joined));
            if field == "text" {
                let has_signature = last
                    .get("signature")
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty());
                if !has_signature {
                    if let Some(sig) = detail.get("signature").filter(|v| !v.is_null()) {
                        last.insert("signature".into(), sig.clone());
                    }
                }
            }
            for key in ["id", "index"] {
                if last.get(key).is_none_or(Value::is_null) {
                    if let Some(v) = detail.get(key) {
                        last.insert(key.into(), v.clone());
                    }
                }
            }
            if last
                .get("format")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                if let Some(v) = detail.get("format") {
                    last.insert("format".into(), v.clone());
                }
            }
            return;
        }
    }
    details.push(detail.clone());
}

/// Converts the transcript into Chat Completions messages.
pub(crate) fn convert_messages(model: &Model, context: &Context, compat: &Compat) -> Vec<Value> {
    let mut params: Vec<Value> = Vec::new();
    let messages = crate::transform::transform_messages(&context.messages, model, |id| {
        normalize_tool_call_id(model, id)
    });
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        let role = if model.reasoning && compat.supports_developer_role {
            "developer"
        } else {
            "system"
        };
        params.push(json!({"role": role, "content": common::sanitize(system)}));
    }
    let mut last_role: Option<&str> = None;
    let mut i = 0;
    while i < messages.len() {
        let message = &messages[i];
        if compat.requires_assistant_after_tool_result
            && last_role == Some("toolResult")
            && matches!(message, Message::User(_))
        {
            params.push(
                json!({"role": "assistant", "content": "I have processed the tool results."}),
            );
        }
        match message {
            Message::User(user) => {
                match &user.content {
                    UserContent::Text(text) => {
                        params.push(json!({"role": "user", "content": common::sanitize(text)}))
                    }
                    UserContent::Blocks(blocks) => {
                        let content: Vec<Value> = blocks
                            .iter()
                            .map(|b| match b {
                                UserBlock::Text(t) => json!({"type": "text", "text": common::sanitize(&t.text.to_string())}),
                                UserBlock::Image(img) => json!({"type": "image_url", "image_url": {
                                    "url": format!("data:{};base64,{}", img.mime_type, img.data)}}),
                            })
                            .collect();
                        if content.is_empty() {
                            i += 1;
                            continue;
                        }
                        params.push(json!({"role": "user", "content": content}));
                    }
                }
                last_role = Some("user");
            }
            Message::Assistant(assistant) => {
                if let Some(converted) = convert_assistant(model, assistant, compat) {
                    params.push(converted);
                }
                last_role = Some("assistant");
            }
            Message::ToolResult(_) => {
                let mut images: Vec<Value> = Vec::new();
                let mut j = i;
                while let Some(Message::ToolResult(result)) = messages.get(j) {
                    let text = text_of(&result.content);
                    let has_images = result
                        .content
                        .iter()
                        .any(|b| matches!(b, UserBlock::Image(_)));
                    let shown = if !text.is_empty() {
                        text
                    } else if has_images {
                        "(see attached image)".to_string()
                    } else {
                        "(no tool output)".to_string()
                    };
                    let mut entry = Map::new();
                    entry.insert("role".into(), json!("tool"));
                    entry.insert("content".into(), json!(common::sanitize(&shown)));
                    entry.insert("tool_call_id".into(), json!(result.tool_call_id));
                    if compat.requires_tool_result_name && !result.tool_name.is_empty() {
                        entry.insert("name".into(), json!(result.tool_name));
                    }
                    params.push(Value::Object(entry));
                    if has_images && model.supports_images() {
                        for block in &result.content {
                            if let UserBlock::Image(img) = block {
                                images.push(json!({"type": "image_url", "image_url": {
                                    "url": format!("data:{};base64,{}", img.mime_type, img.data)}}));
                            }
                        }
                    }
                    j += 1;
                }
                i = j;
                if images.is_empty() {
                    last_role = Some("toolResult");
                } else {
                    if compat.requires_assistant_after_tool_result {
                        params.push(json!({"role": "assistant", "content": "I have processed the tool results."}));
                    }
                    let mut content = vec![
                        json!({"type": "text", "text": "Attached image(s) from tool result:"}),
                    ];
                    content.extend(images);
                    params.push(json!({"role": "user", "content": content}));
                    last_role = Some("user");
                }
                continue;
            }
        }
        i += 1;
    }
    params
}

fn convert_assistant(model: &Model, message: &AssistantMessage, compat: &Compat) -> Option<Value> {
    let mut out = Map::new();
    out.insert("role".into(), json!("assistant"));
    out.insert(
        "content".into(),
        if compat.requires_assistant_after_tool_result {
            json!("")
        } else {
            Value::Null
        },
    );
    let mut texts: Vec<String> = Vec::new();
    let mut thinking: Vec<&ThinkingContent> = Vec::new();
    let mut calls: Vec<&ToolCall> = Vec::new();
    for block in &message.content {
        match block.as_ref() {
            AssistantBlock::Text(t) => {
                let text = t.text.to_string();
                if !text.trim().is_empty() {
                    texts.push(common::sanitize(&text));
                }
            }
            AssistantBlock::Thinking(t) => thinking.push(t),
            AssistantBlock::ToolCall(c) => calls.push(c),
        }
    }
    let assistant_text = texts.concat();
    let signed_details = thinking
        .iter()
        .find_map(|t| parse_reasoning_details(t.thinking_signature.as_deref()));
    let legacy_details: Vec<Value> = calls
        .iter()
        .filter_map(|c| {
            let parsed: Value = serde_json::from_str(c.thought_signature.as_deref()?).ok()?;
            let ok = is_reasoning_detail(&parsed)
                && parsed.get("type").and_then(Value::as_str) == Some("reasoning.encrypted")
                && parsed
                    .get("id")
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty())
                && parsed
                    .get("data")
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty());
            ok.then_some(parsed)
        })
        .collect();
    let preserved = signed_details.or((!legacy_details.is_empty()).then_some(legacy_details));
    let non_empty: Vec<&ThinkingContent> = thinking
        .iter()
        .copied()
        .filter(|t| !t.thinking.to_string().trim().is_empty())
        .collect();
    if !non_empty.is_empty() {
        if compat.requires_thinking_as_text {
            let joined = non_empty
                .iter()
                .map(|t| common::sanitize(&t.thinking.to_string()))
                .collect::<Vec<_>>()
                .join("\n\n");
            let mut parts = vec![json!({"type": "text", "text": joined})];
            parts.extend(texts.iter().map(|t| json!({"type": "text", "text": t})));
            out.insert("content".into(), Value::Array(parts));
        } else {
            if !assistant_text.is_empty() {
                out.insert("content".into(), json!(assistant_text));
            }
            if preserved.is_none() {
                let mut signature = non_empty[0].thinking_signature.clone();
                if model.provider == "opencode-go" && signature.as_deref() == Some("reasoning") {
                    signature = Some("reasoning_content".into());
                }
                if let Some(field) = signature.filter(|s| is_reasoning_field(s)) {
                    let joined = non_empty
                        .iter()
                        .map(|t| t.thinking.to_string())
                        .collect::<Vec<_>>()
                        .join("\n");
                    out.insert(field, json!(joined));
                }
            }
        }
    } else if !assistant_text.is_empty() {
        out.insert("content".into(), json!(assistant_text));
    }
    if !calls.is_empty() {
        let list: Vec<Value> = calls
            .iter()
            .map(|c| {
                json!({"id": c.id, "type": "function", "function": {
                    "name": c.name, "arguments": c.arguments.to_string()}})
            })
            .collect();
        out.insert("tool_calls".into(), Value::Array(list));
    }
    if let Some(details) = preserved {
        out.insert("reasoning_details".into(), Value::Array(details));
    }
    if compat.requires_reasoning_content_on_assistant_messages
        && model.reasoning
        && !out.contains_key("reasoning_content")
    {
        out.insert("reasoning_content".into(), json!(""));
    }
    let has_content = match out.get("content") {
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        _ => false,
    };
    if !has_content && !out.contains_key("tool_calls") {
        return None;
    }
    Some(Value::Object(out))
}

fn convert_tools(tools: &[Tool], compat: &Compat) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| {
            let strict = common::strict_sampling(tool, compat.supports_strict_mode);
            let mut function = Map::new();
            function.insert("name".into(), json!(tool.name));
            function.insert("description".into(), json!(tool.description));
            function.insert("parameters".into(), tool.parameters.clone());
            if compat.supports_strict_mode {
                function.insert("strict".into(), json!(strict));
            }
            json!({"type": "function", "function": function})
        })
        .collect()
}

fn add_cache_control_to_text(message: &mut Value, cache_control: &Value) -> bool {
    let Some(obj) = message.as_object_mut() else {
        return false;
    };
    match obj.get_mut("content") {
        Some(Value::String(text)) => {
            if text.is_empty() {
                return false;
            }
            let block =
                json!([{"type": "text", "text": text.clone(), "cache_control": cache_control}]);
            obj.insert("content".into(), block);
            true
        }
        Some(Value::Array(parts)) => {
            for part in parts.iter_mut().rev() {
                if part.get("type").and_then(Value::as_str) == Some("text") {
                    if let Some(p) = part.as_object_mut() {
                        p.insert("cache_control".into(), cache_control.clone());
                    }
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}

fn apply_anthropic_cache_control(
    messages: &mut [Value],
    tools: Option<&mut Vec<Value>>,
    cache_control: &Value,
) {
    if let Some(first) = messages.iter_mut().find(|m| {
        matches!(
            m.get("role").and_then(Value::as_str),
            Some("system" | "developer")
        )
    }) {
        add_cache_control_to_text(first, cache_control);
    }
    if let Some(last) = tools
        .and_then(|t| t.last_mut())
        .and_then(Value::as_object_mut)
    {
        last.insert("cache_control".into(), cache_control.clone());
    }
    for message in messages.iter_mut().rev() {
        if matches!(
            message.get("role").and_then(Value::as_str),
            Some("user" | "assistant" | "tool")
        ) && add_cache_control_to_text(message, cache_control)
        {
            return;
        }
    }
}

fn has_tool_history(messages: &[Message]) -> bool {
    messages.iter().any(|m| match m {
        Message::ToolResult(_) => true,
        Message::Assistant(a) => a
            .content
            .iter()
            .any(|b| matches!(b.as_ref(), AssistantBlock::ToolCall(_))),
        Message::User(_) => false,
    })
}

/// The request body, exactly as pi builds it.
pub(crate) fn build_body(
    model: &Model,
    context: &Context,
    options: &SimpleStreamOptions,
    compat: &Compat,
    setup: &RequestSetup,
) -> Value {
    let cache_retention = setup.cache_retention;
    let mut messages = convert_messages(model, context, compat);
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert("stream".into(), json!(true));
    let long_cache =
        cache_retention == CacheRetention::Long && compat.supports_long_cache_retention;
    if (model.base_url.contains("api.openai.com") && cache_retention != CacheRetention::None)
        || long_cache
    {
        if let Some(key) = options.base.session_id.as_deref() {
            body.insert(
                "prompt_cache_key".into(),
                json!(common::clamp_prompt_cache_key(key)),
            );
        }
    }
    if long_cache {
        body.insert("prompt_cache_retention".into(), json!("24h"));
    }
    if compat.supports_usage_in_streaming {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if compat.supports_store {
        body.insert("store".into(), json!(false));
    }
    if setup.max_tokens > 0 {
        body.insert(compat.max_tokens_field.clone(), json!(setup.max_tokens));
    }
    if let Some(t) = options.base.temperature {
        body.insert("temperature".into(), json!(t));
    }
    let tools = context.tools.as_deref().filter(|t| !t.is_empty());
    let mut tool_list = match tools {
        Some(tools) => Some(convert_tools(tools, compat)),
        None if has_tool_history(&context.messages) => Some(Vec::new()),
        None => None,
    };
    if compat.cache_control_format.as_deref() == Some("anthropic")
        && cache_retention != CacheRetention::None
    {
        let cache_control = if long_cache {
            json!({"type": "ephemeral", "ttl": "1h"})
        } else {
            json!({"type": "ephemeral"})
        };
        apply_anthropic_cache_control(&mut messages, tool_list.as_mut(), &cache_control);
    }
    // Keep pi's key order: messages right after model.
    let mut ordered = Map::new();
    ordered.insert("model".into(), body.remove("model").unwrap_or(Value::Null));
    ordered.insert("messages".into(), Value::Array(messages));
    ordered.extend(body);
    let mut body = ordered;
    if let Some(list) = tool_list {
        body.insert("tools".into(), Value::Array(list));
    }
    if let Some(choice) = options.tool_choice {
        body.insert(
            "tool_choice".into(),
            serde_json::to_value(choice).unwrap_or(Value::Null),
        );
    }
    let effort = setup.reasoning;
    if model.reasoning {
        match compat.thinking_format.as_str() {
            "zai" => {
                body.insert(
                    "thinking".into(),
                    if effort.is_some() {
                        json!({"type": "enabled", "clear_thinking": false})
                    } else {
                        json!({"type": "disabled"})
                    },
                );
                if let (Some(level), true) = (effort, compat.supports_reasoning_effort) {
                    if let Value::String(v) = effort_value(model, level) {
                        body.insert("reasoning_effort".into(), json!(v));
                    }
                }
            }
            "qwen" => {
                body.insert("enable_thinking".into(), json!(effort.is_some()));
                if let (Some(level), true) = (effort, compat.supports_reasoning_effort) {
                    if let Value::String(v) = effort_value(model, level) {
                        body.insert("reasoning_effort".into(), json!(v));
                    }
                }
            }
            "qwen-chat-template" => {
                body.insert(
                    "chat_template_kwargs".into(),
                    json!({"enable_thinking": effort.is_some(), "preserve_thinking": true}),
                );
            }
            "deepseek" => {
                if effort.is_some() {
                    body.insert("thinking".into(), json!({"type": "enabled"}));
                } else if mapped_level(model, ModelThinkingLevel::Off) != Some(None) {
                    body.insert("thinking".into(), json!({"type": "disabled"}));
                }
                if let (Some(level), true) = (effort, compat.supports_reasoning_effort) {
                    body.insert("reasoning_effort".into(), effort_value(model, level));
                }
            }
            "openrouter" => {
                if let Some(level) = effort {
                    body.insert(
                        "reasoning".into(),
                        json!({"effort": effort_value(model, level)}),
                    );
                } else if mapped_level(model, ModelThinkingLevel::Off) != Some(None) {
                    let off = mapped_level(model, ModelThinkingLevel::Off)
                        .flatten()
                        .unwrap_or_else(|| "none".into());
                    body.insert("reasoning".into(), json!({"effort": off}));
                }
            }
            "together" => {
                body.insert("reasoning".into(), json!({"enabled": effort.is_some()}));
                if let (Some(level), true) = (effort, compat.supports_reasoning_effort) {
                    body.insert("reasoning_effort".into(), effort_value(model, level));
                }
            }
            "ant-ling" => {
                if let Some(level) = effort {
                    if let Some(Some(v)) = mapped_level(model, level) {
                        body.insert("reasoning".into(), json!({"effort": v}));
                    }
                }
            }
            _ => {
                if compat.supports_reasoning_effort {
                    match effort {
                        Some(level) => {
                            body.insert("reasoning_effort".into(), effort_value(model, level));
                        }
                        None => {
                            if let Some(Some(off)) = mapped_level(model, ModelThinkingLevel::Off) {
                                body.insert("reasoning_effort".into(), json!(off));
                            }
                        }
                    }
                }
            }
        }
    }
    if let Some(routing) = &compat.open_router_routing {
        body.insert("provider".into(), routing.clone());
    }
    let sampling = common::merged_sampling_params(model, options);
    for (k, v) in sampling {
        body.insert(k, v);
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
    let compat = Compat::for_model(&model);
    let setup = RequestSetup::new(&model, &context, &options, false);
    let mut body = build_body(&model, &context, &options, &compat, &setup);
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
    if let Some(session) = setup
        .cache_session_id
        .as_deref()
        .filter(|_| compat.send_session_affinity_headers)
    {
        if compat.session_affinity_format == "openrouter" {
            headers.push(("x-session-id".into(), session.into()));
        } else {
            if compat.session_affinity_format == "openai" {
                headers.push(("session_id".into(), session.into()));
            }
            headers.push(("x-client-request-id".into(), session.into()));
            headers.push(("x-session-affinity".into(), session.into()));
        }
    }
    let headers = common::merge_headers(headers, &model, &options);
    let url = format!("{}/chat/completions", model.base_url.trim_end_matches('/'));
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
    let mut state = ChunkState::default();
    loop {
        let event = match events.next().await {
            Ok(Some(event)) => event,
            Ok(None) => break,
            Err(failure) => {
                let aborted = options.is_cancelled();
                let text = error_message::stream_failure(&label, &failure);
                return output.fail(aborted, text);
            }
        };
        if event.data.starts_with("[DONE]") {
            continue;
        }
        let chunk: Value = match serde_json::from_str(&event.data) {
            Ok(chunk) => chunk,
            Err(error) => {
                let text = error_message::invalid_json(&label, &error, &event.data);
                return output.fail(options.is_cancelled(), text);
            }
        };
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            let mut text = error.get("message").and_then(Value::as_str).map_or_else(
                || format!("{label} reported an error: {error}"),
                str::to_string,
            );
            if let Some(raw) = error.pointer("/metadata/raw") {
                let raw = raw.as_str().map_or_else(|| raw.to_string(), str::to_string);
                if !text.contains(&raw) {
                    text.push('\n');
                    text.push_str(&raw);
                }
            }
            state.finish_details(&mut output);
            return output.fail(options.is_cancelled(), text);
        }
        state.apply_chunk(&model, &chunk, &mut output);
    }
    // All blocks end after the body, in content order.
    for index in 0..output.len() {
        state.finish_block(index, &mut output);
    }
    if options.is_cancelled() {
        return output.fail(true, "Request was aborted".into());
    }
    if !state.has_finish_reason && !compat.supports_finish_reason {
        output.message.stop_reason = if output.has_tool_call() {
            StopReason::ToolUse
        } else {
            StopReason::Stop
        };
    }
    if output.message.stop_reason == StopReason::Error {
        let text = output
            .message
            .error_message
            .take()
            .unwrap_or_else(|| "Provider returned an error stop reason".into());
        return output.fail(false, text);
    }
    if (compat.supports_finish_reason && !state.has_finish_reason)
        || output.message.stop_reason == StopReason::Pending
    {
        return output.fail(
            false,
            format!("Stream ended without finish_reason: {label} closed the response before it was complete."),
        );
    }
    output.done();
}

/// Per-response parsing state.
#[derive(Default)]
struct ChunkState {
    text: Option<usize>,
    thinking: Option<usize>,
    /// Tool calls by stream index and by id, with their raw argument text.
    by_index: HashMap<i64, usize>,
    by_id: HashMap<String, usize>,
    partial_args: HashMap<usize, String>,
    reasoning_details: Option<Vec<Value>>,
    has_finish_reason: bool,
}

impl ChunkState {
    fn apply_chunk(&mut self, model: &Model, chunk: &Value, output: &mut Output) {
        if output.message.response_id.is_none() {
            if let Some(id) = chunk
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                output.message.response_id = Some(id.into());
            }
        }
        if let Some(reported) = chunk.get("model").and_then(Value::as_str) {
            if !reported.is_empty()
                && reported != model.id
                && output.message.response_model.is_none()
            {
                output.message.response_model = Some(reported.into());
            }
        }
        let chunk_usage = chunk.get("usage").filter(|u| u.is_object());
        if let Some(usage) = chunk_usage {
            output.message.usage = parse_usage(usage, model);
        }
        let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return;
        };
        if chunk_usage.is_none() {
            if let Some(usage) = choice.get("usage").filter(|u| u.is_object()) {
                output.message.usage = parse_usage(usage, model);
            }
        }
        if let Some(reason) = choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            output.message.raw_stop_reason = Some(reason.into());
            let (stop, error) = map_stop_reason(reason);
            output.message.stop_reason = stop;
            if let Some(error) = error {
                output.message.error_message = Some(error);
            }
            self.has_finish_reason = true;
        }
        let Some(delta) = choice.get("delta").filter(|d| d.is_object()) else {
            return;
        };
        // A refusal is kept as answer text (pi drops it, leaving an empty answer that claims success).
        let texts = ["content", "refusal"].into_iter().filter_map(|field| {
            delta
                .get(field)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        });
        for text in texts {
            let index = match self.text {
                Some(index) => index,
                None => {
                    let index = output.text_start(TextContent::new(""));
                    self.text = Some(index);
                    index
                }
            };
            output.text_delta(index, text);
        }
        let reasoning = ["reasoning_content", "reasoning", "reasoning_text"]
            .into_iter()
            .find_map(|field| {
                delta
                    .get(field)
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(|v| (field, v))
            });
        if let Some((field, text)) = reasoning {
            let signature = if model.provider == "opencode-go" && field == "reasoning" {
                "reasoning_content"
            } else {
                field
            };
            let index = self.ensure_thinking(output, signature);
            output.thinking_delta(index, text);
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for call in calls {
                self.apply_tool_call(call, output);
            }
        }
        if let Some(details) = delta.get("reasoning_details").and_then(Value::as_array) {
            for detail in details.iter().filter(|d| is_reasoning_detail(d)) {
                self.ensure_thinking(output, "");
                append_reasoning_detail(
                    self.reasoning_details.get_or_insert_with(Vec::new),
                    detail,
                );
            }
        }
    }

    fn ensure_thinking(&mut self, output: &mut Output, signature: &str) -> usize {
        if let Some(index) = self.thinking {
            return index;
        }
        let mut block = ThinkingContent::new("");
        block.thinking_signature = Some(signature.into());
        let index = output.thinking_start(block);
        self.thinking = Some(index);
        index
    }

    fn apply_tool_call(&mut self, call: &Value, output: &mut Output) {
        let stream_index = call.get("index").and_then(Value::as_i64);
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let name = call
            .pointer("/function/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut index = stream_index.and_then(|i| self.by_index.get(&i).copied());
        if index.is_none() {
            index = id.and_then(|id| self.by_id.get(id).copied());
        }
        let index = match index {
            Some(index) => index,
            None => {
                let index =
                    output.toolcall_start(ToolCall::new(id.unwrap_or_default(), name, json!({})));
                self.partial_args.insert(index, String::new());
                index
            }
        };
        if let Some(i) = stream_index {
            self.by_index.entry(i).or_insert(index);
        }
        if let Some(id) = id {
            self.by_id.insert(id.to_string(), index);
            output.with_tool_call(index, |block| {
                if block.id.is_empty() {
                    block.id = id.to_string();
                }
            });
        }
        if !name.is_empty() {
            output.with_tool_call(index, |block| {
                if block.name.is_empty() {
                    block.name = name.to_string();
                }
            });
        }
        match call
            .pointer("/function/arguments")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            Some(arguments) => {
                let buffer = self.partial_args.entry(index).or_default();
                buffer.push_str(arguments);
                let parsed = crate::partial_json::parse_streaming_json(buffer);
                output.toolcall_delta(index, arguments, Some(parsed));
            }
            None => output.toolcall_delta(index, "", None),
        }
    }

    fn finish_details(&mut self, output: &mut Output) {
        if let (Some(index), Some(details)) = (self.thinking, self.reasoning_details.as_ref()) {
            let signature = Value::Array(details.clone()).to_string();
            output.with_thinking(index, |block| block.thinking_signature = Some(signature));
        }
    }

    fn finish_block(&mut self, index: usize, output: &mut Output) {
        match output.block(index) {
            Some(AssistantBlock::Text(_)) => output.text_end(index),
            Some(AssistantBlock::Thinking(_)) => {
                self.finish_details(output);
                output.thinking_end(index);
            }
            Some(AssistantBlock::ToolCall(_)) => {
                let buffer = self.partial_args.remove(&index).unwrap_or_default();
                let parsed = crate::partial_json::parse_streaming_json(&buffer);
                output.toolcall_end(index, Some(parsed));
            }
            None => {}
        }
    }
}

fn parse_usage(raw: &Value, model: &Model) -> Usage {
    let n = |v: Option<&Value>| {
        v.and_then(Value::as_f64)
            .filter(|x| *x > 0.0)
            .map_or(0, |x| x as u64)
    };
    let prompt = n(raw.get("prompt_tokens"));
    let cache_read_value = raw
        .pointer("/prompt_tokens_details/cached_tokens")
        .filter(|v| !v.is_null())
        .or_else(|| raw.get("prompt_cache_hit_tokens").filter(|v| !v.is_null()))
        .or_else(|| raw.get("cached_tokens").filter(|v| !v.is_null()));
    let cache_read = n(cache_read_value);
    let cache_write = n(raw.pointer("/prompt_tokens_details/cache_write_tokens"));
    let input = prompt.saturating_sub(cache_read + cache_write);
    let output = n(raw.get("completion_tokens"));
    let mut usage = Usage {
        input,
        output,
        cache_read,
        cache_write,
        cache_write_1h: None,
        reasoning: Some(n(raw.pointer("/completion_tokens_details/reasoning_tokens"))),
        total_tokens: input + output + cache_read + cache_write,
        ..Usage::default()
    };
    calculate_cost(model, &mut usage);
    usage
}

fn map_stop_reason(reason: &str) -> (StopReason, Option<String>) {
    match reason {
        "stop" | "end" => (StopReason::Stop, None),
        "length" => (StopReason::Length, None),
        "function_call" | "tool_calls" => (StopReason::ToolUse, None),
        other => (
            StopReason::Error,
            Some(format!("Provider finish_reason: {other}")),
        ),
    }
}
