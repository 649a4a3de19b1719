//! Runs one provider-conformance fixture through our adapter and records its trace, in the trace format of
//! `tests/data/provider-conformance/README.md` ("Trace format"). Shared by the integration tests and by
//! `examples/provider-replay.rs`.

use std::path::Path;
use std::time::Duration;

use futures_util::StreamExt;
use pi_ai::{
    AssistantBlock, AssistantMessageEvent, CacheRetention, Context, Model, SimpleStreamOptions,
    ThinkingBudgets, ThinkingLevel, ToolChoice,
};
use serde_json::{Map, Value, json};

use super::replay_server;

/// The APIs the oracle covers.
pub(crate) const APIS: [&str; 3] = [
    "openai-completions",
    "openai-responses",
    "anthropic-messages",
];

/// A parsed fixture file.
#[derive(Debug, Clone)]
pub(crate) struct Fixture {
    /// `<api>/<name>`.
    pub(crate) id: String,
    pub(crate) api: String,
    pub(crate) name: String,
    pub(crate) value: Value,
}

/// Reads a fixture; the api is its directory name and must equal its `api` field.
pub(crate) fn load(path: &Path) -> Result<Fixture, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not valid JSON: {e}", path.display()))?;
    if !value.is_object() {
        return Err(format!(
            "{}: a fixture must be a JSON object",
            path.display()
        ));
    }
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".json"))
        .ok_or_else(|| format!("{}: a fixture file name must end in .json", path.display()))?
        .to_string();
    let dir = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    let api = value
        .get("api")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if !APIS.contains(&api.as_str()) {
        return Err(format!(
            "{}: unsupported api {api:?} (expected one of {APIS:?})",
            path.display()
        ));
    }
    if dir != api {
        return Err(format!(
            "{}: fixture api {api:?} does not match its directory {dir:?}",
            path.display()
        ));
    }
    if !value.get("responses").is_some_and(Value::is_array) {
        return Err(format!(
            "{}: \"responses\" must be an array",
            path.display()
        ));
    }
    Ok(Fixture {
        id: format!("{api}/{name}"),
        api,
        name,
        value,
    })
}

/// Every `*.json` fixture under `path` (a file, an api directory or a fixtures root), sorted.
pub(crate) fn collect(path: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    let entries = std::fs::read_dir(path)
        .map_err(|e| format!("{}: cannot read directory: {e}", path.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", path.display()))?;
        let p = entry.path();
        if p.is_dir() {
            out.extend(collect(&p)?);
        } else if p.extension().and_then(|e| e.to_str()) == Some("json") {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

/// The model of a fixture: the oracle's defaults, the fixture's overrides, our api and base URL.
pub(crate) fn build_model(
    api: &str,
    overrides: Option<&Value>,
    origin: &str,
) -> Result<Model, String> {
    let provider = if api == "anthropic-messages" {
        "anthropic"
    } else {
        "openai"
    };
    let mut model = json!({
        "id": "fake-model", "api": api, "provider": provider, "reasoning": false, "input": ["text"],
        "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
        "contextWindow": 128000, "maxTokens": 4096,
    });
    let map = model.as_object_mut().ok_or("internal: model defaults")?;
    if let Some(overrides) = overrides {
        let overrides = overrides.as_object().ok_or("\"model\" must be an object")?;
        for (k, v) in overrides {
            map.insert(k.clone(), v.clone());
        }
    }
    if !map.contains_key("name") {
        let id = map.get("id").cloned().unwrap_or(Value::Null);
        map.insert("name".into(), id);
    }
    map.insert("api".into(), json!(api));
    let base = if api == "anthropic-messages" {
        origin.to_string()
    } else {
        format!("{origin}/v1")
    };
    map.insert("baseUrl".into(), json!(base));
    serde_json::from_value(model).map_err(|e| format!("\"model\" is not a valid model: {e}"))
}

/// pi `SimpleStreamOptions` from the fixture's `options` (plus `apiKey: "sk-test"`).
pub(crate) fn build_options(options: Option<&Value>) -> Result<SimpleStreamOptions, String> {
    let empty = Map::new();
    let o = match options {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(o)) => o,
        Some(_) => return Err("\"options\" must be an object".into()),
    };
    let mut out = SimpleStreamOptions::default();
    let from = |key: &str| o.get(key).filter(|v| !v.is_null()).cloned();
    out.base.api_key = Some("sk-test".into());
    if let Some(v) = from("temperature") {
        out.base.temperature = Some(v.as_f64().ok_or("options.temperature must be a number")?);
    }
    if let Some(v) = from("maxTokens") {
        out.base.max_tokens = Some(
            v.as_u64()
                .ok_or("options.maxTokens must be a whole number")?,
        );
    }
    if let Some(v) = from("maxRetries") {
        out.base.max_retries = u32::try_from(
            v.as_u64()
                .ok_or("options.maxRetries must be a whole number")?,
        )
        .map_err(|e| e.to_string())?;
    }
    if let Some(v) = from("maxRetryDelayMs") {
        out.base.max_retry_delay_ms = v
            .as_u64()
            .ok_or("options.maxRetryDelayMs must be a whole number")?;
    }
    if let Some(v) = from("timeoutMs") {
        out.base.timeout = Some(Duration::from_millis(
            v.as_u64().ok_or("options.timeoutMs must be a number")?,
        ));
    }
    if let Some(v) = from("sessionId") {
        out.base.session_id = Some(
            v.as_str()
                .ok_or("options.sessionId must be a string")?
                .to_string(),
        );
    }
    if let Some(v) = from("cacheRetention") {
        out.base.cache_retention = Some(
            serde_json::from_value::<CacheRetention>(v)
                .map_err(|e| format!("options.cacheRetention: {e}"))?,
        );
    }
    if let Some(v) = from("reasoning") {
        out.reasoning = Some(
            serde_json::from_value::<ThinkingLevel>(v)
                .map_err(|e| format!("options.reasoning: {e}"))?,
        );
    }
    if let Some(v) = from("thinkingBudgets") {
        out.thinking_budgets = Some(
            serde_json::from_value::<ThinkingBudgets>(v)
                .map_err(|e| format!("options.thinkingBudgets: {e}"))?,
        );
    }
    if let Some(v) = from("toolChoice") {
        out.tool_choice = Some(
            serde_json::from_value::<ToolChoice>(v)
                .map_err(|e| format!("options.toolChoice: {e}"))?,
        );
    }
    if let Some(v) = from("headers") {
        let headers = v.as_object().ok_or("options.headers must be an object")?;
        out.base.headers = Some(
            headers
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().map(str::to_string)))
                .collect(),
        );
    }
    if let Some(v) = from("metadata") {
        out.base.metadata = Some(
            v.as_object()
                .ok_or("options.metadata must be an object")?
                .clone(),
        );
    }
    Ok(out)
}

/// Deep copy without any `timestamp` key.
pub(crate) fn strip_timestamps(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "timestamp")
                .map(|(k, v)| (k.clone(), strip_timestamps(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip_timestamps).collect()),
        other => other.clone(),
    }
}

/// The trace record of one event (README "Event records").
pub(crate) fn record_event(event: &AssistantMessageEvent) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), json!(event.event_type()));
    let value = serde_json::to_value(event).unwrap_or(Value::Null);
    let index = value.get("contentIndex").and_then(Value::as_u64);
    if let Some(index) = index {
        out.insert("contentIndex".into(), json!(index));
    }
    let block = match event {
        AssistantMessageEvent::ToolcallStart { partial, .. }
        | AssistantMessageEvent::ToolcallDelta { partial, .. } => index
            .and_then(|i| {
                partial
                    .content
                    .get(usize::try_from(i).unwrap_or(usize::MAX))
            })
            .map(|b| b.as_ref()),
        _ => None,
    };
    if let (AssistantMessageEvent::ToolcallStart { .. }, Some(AssistantBlock::ToolCall(call))) =
        (event, block)
    {
        out.insert("id".into(), json!(call.id));
        out.insert("name".into(), json!(call.name));
    }
    for key in ["delta", "content"] {
        if let Some(v) = value.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    if let Some(AssistantBlock::ToolCall(call)) = block {
        out.insert("arguments".into(), call.arguments.clone());
    }
    if let AssistantMessageEvent::ToolcallEnd { tool_call, .. } = event {
        let tagged = serde_json::to_value(AssistantBlock::ToolCall((**tool_call).clone()))
            .unwrap_or(Value::Null);
        out.insert("toolCall".into(), strip_timestamps(&tagged));
    }
    if let Some(reason) = value.get("reason") {
        out.insert("reason".into(), reason.clone());
    }
    Value::Object(out)
}

/// Replays `fixture` on a fresh loopback server through `api` and returns the trace.
pub(crate) async fn run(
    fixture: &Fixture,
    apis: &[std::sync::Arc<dyn pi_ai::ApiProvider>],
) -> Result<Value, String> {
    let v = &fixture.value;
    let responses = v
        .get("responses")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let server = replay_server::start(responses)
        .await
        .map_err(|e| e.to_string())?;
    let model = build_model(&fixture.api, v.get("model"), &server.origin())?;
    let mut context_json = v.get("context").cloned().unwrap_or_else(|| json!({}));
    if let Some(map) = context_json.as_object_mut() {
        map.entry("messages").or_insert_with(|| json!([]));
    }
    let context: Context = serde_json::from_value(context_json)
        .map_err(|e| format!("\"context\" is not a valid pi Context: {e}"))?;
    let options = build_options(v.get("options"))?;
    let api = apis
        .iter()
        .find(|a| a.api().as_str() == fixture.api)
        .ok_or_else(|| format!("no adapter for api {}", fixture.api))?;
    let watchdog =
        Duration::from_millis(v.get("timeoutMs").and_then(Value::as_u64).unwrap_or(20_000));
    let mut stream = api.stream_simple(model, context, options);
    let consume = async {
        let mut events = Vec::new();
        let mut last = None;
        while let Some(event) = stream.next().await {
            events.push(record_event(&event));
            if let Some(message) = event.final_message() {
                last = Some(message.clone());
            }
        }
        (events, last)
    };
    let (events, last) = tokio::time::timeout(watchdog, consume).await.map_err(|_| {
        format!(
            "{}: the stream did not finish within {} ms",
            fixture.id,
            watchdog.as_millis()
        )
    })?;
    let message =
        last.ok_or_else(|| format!("{}: the stream ended without a terminal event", fixture.id))?;
    let message = strip_timestamps(
        &serde_json::to_value(pi_ai::Message::Assistant(message)).map_err(|e| e.to_string())?,
    );
    let requests: Vec<Value> = server
        .requests()
        .iter()
        .map(replay_server::trace_request)
        .collect();
    Ok(json!({
        "fixture": fixture.id,
        "events": events,
        "message": message,
        "requests": requests,
    }))
}

/// The canonical file form: top-level keys one per line, each element of a top-level array on its own line.
pub(crate) fn serialize_trace(trace: &Value) -> String {
    let mut lines = Vec::new();
    if let Some(map) = trace.as_object() {
        for (key, value) in map {
            let key_text = Value::String(key.clone()).to_string();
            match value {
                Value::Array(items) if !items.is_empty() => {
                    let body: Vec<String> = items.iter().map(|i| format!("    {i}")).collect();
                    lines.push(format!("  {key_text}: [\n{}\n  ]", body.join(",\n")));
                }
                other => lines.push(format!("  {key_text}: {other}")),
            }
        }
    }
    format!("{{\n{}\n}}\n", lines.join(",\n"))
}
