//! What the three HTTP adapters share: the task that drives one response, request options turned into request
//! settings (max-tokens clamp, reasoning level, cache retention), headers, sending and the event stream.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::error_message;
use super::http::{self, PostRequest, SendPolicy};
use super::output::Output;
use super::sse::{LineBreaks, SseEvents};
use crate::context::{Context, Tool};
use crate::event::{AssistantMessageEvent, ErrorReason};
use crate::event_stream::{AssistantMessageEventStream, assistant_message_channel};
use crate::message::{AssistantMessage, StopReason};
use crate::model::{Api, Model, ModelThinkingLevel};
use crate::options::{CacheRetention, ResponseInfo, SimpleStreamOptions};

/// Time allowed until the response head arrives when the options set none (the provider SDKs' default).
pub(crate) const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);

/// Longest silence inside a streaming body when the options set none, so a stalled server cannot hang a run.
pub(crate) const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// Sent as `User-Agent` on every request.
pub(crate) const USER_AGENT: &str = concat!("pi-desktop/", env!("CARGO_PKG_VERSION"));

/// Starts `drive` on a tokio task and returns the stream it feeds.
///
/// Guarantees the stream contract around it: a signal cancelled before the call gives a single
/// `error(aborted)`; no tokio runtime, or a panic inside `drive`, still ends the stream with `error`.
pub(crate) fn spawn_stream<F, Fut>(model: Model, drive: F) -> AssistantMessageEventStream
where
    F: FnOnce(Model, Output) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (sender, stream) = assistant_message_channel();
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        let error = AssistantMessage::failure(
            &model,
            StopReason::Error,
            "Provider streams need a tokio runtime; none is running on this thread.",
        );
        sender.push(AssistantMessageEvent::Error {
            reason: ErrorReason::Error,
            error: Arc::new(error),
        });
        return stream;
    };
    let guard = sender.clone();
    let fallback = AssistantMessage::empty(&model);
    let output = Output::new(AssistantMessage::empty(&model), sender);
    runtime.spawn(async move {
        let outcome = AssertUnwindSafe(drive(model, output)).catch_unwind().await;
        if outcome.is_err() && !guard.is_done() {
            let mut error = fallback;
            error.stop_reason = StopReason::Error;
            error.error_message = Some(
                "Internal error while reading the provider response (the adapter panicked).".into(),
            );
            guard.push(AssistantMessageEvent::Error {
                reason: ErrorReason::Error,
                error: Arc::new(error),
            });
        }
    });
    stream
}

/// Request settings derived from the options (pi's `buildBaseOptions` + reasoning clamp).
#[derive(Debug, Clone)]
pub(crate) struct RequestSetup {
    /// Clamped max tokens (before any thinking-budget adjustment).
    pub(crate) max_tokens: u64,
    /// The reasoning level after clamping to what the model supports; `None` = off.
    pub(crate) reasoning: Option<ModelThinkingLevel>,
    pub(crate) cache_retention: CacheRetention,
    /// `sessionId` unless caching is off.
    pub(crate) cache_session_id: Option<String>,
}

impl RequestSetup {
    pub(crate) fn new(
        model: &Model,
        context: &Context,
        options: &SimpleStreamOptions,
        _budget_api: bool,
    ) -> Self {
        let requested = options.base.max_tokens.unwrap_or(model.max_tokens);
        let max_tokens = crate::clamp_max_tokens(model, context, requested);
        let reasoning = options
            .reasoning
            .map(|level| crate::clamp_thinking_level(model, level))
            .filter(|level| *level != ModelThinkingLevel::Off);
        let env_long = options
            .base
            .env
            .as_ref()
            .and_then(|env| env.get("PI_CACHE_RETENTION").cloned())
            .or_else(|| std::env::var("PI_CACHE_RETENTION").ok())
            .is_some_and(|v| v == "long");
        let cache_retention = options.base.cache_retention.unwrap_or(if env_long {
            CacheRetention::Long
        } else {
            CacheRetention::Short
        });
        let cache_session_id = if cache_retention == CacheRetention::None {
            None
        } else {
            options.base.session_id.clone()
        };
        Self {
            max_tokens,
            reasoning,
            cache_retention,
            cache_session_id,
        }
    }
}

/// The API key, or `None` when the caller supplies its own `authorization` header.
pub(crate) fn api_key_or_header(
    model: &Model,
    options: &SimpleStreamOptions,
) -> Result<Option<String>, String> {
    if let Some(key) = options.base.api_key.as_ref().filter(|k| !k.is_empty()) {
        return Ok(Some(key.clone()));
    }
    let has_auth_header = options.base.headers.as_ref().is_some_and(|headers| {
        headers.iter().any(|(name, value)| {
            (name.eq_ignore_ascii_case("authorization") || name.eq_ignore_ascii_case("x-api-key"))
                && value.as_ref().is_some_and(|v| !v.trim().is_empty())
        })
    });
    if has_auth_header {
        return Ok(None);
    }
    Err(format!(
        "No API key for provider: {}. Add the key in Settings (or set it in the environment).",
        model.provider
    ))
}

/// Defaults, then the model's headers, then the request's (a `None` value removes a header); names compare
/// case-insensitively and are sent lower-case.
pub(crate) fn merge_headers(
    defaults: Vec<(String, String)>,
    model: &Model,
    options: &SimpleStreamOptions,
) -> Vec<(String, String)> {
    let mut merged: Vec<(String, String)> = Vec::new();
    let mut set = |name: &str, value: Option<&str>| {
        let lower = name.to_ascii_lowercase();
        merged.retain(|(k, _)| *k != lower);
        if let Some(value) = value {
            merged.push((lower, value.to_string()));
        }
    };
    for (name, value) in &defaults {
        set(name, Some(value));
    }
    for (name, value) in model.headers.iter().flatten() {
        set(name, Some(value));
    }
    for (name, value) in options.base.headers.iter().flatten() {
        set(name, value.as_deref());
    }
    merged
}

/// Sends the request and, once the response arrived, pushes `start` and returns its SSE events, bounded by the
/// idle timeout and the cancellation token. pi starts a response only after the HTTP response arrived, so a
/// failed request ends `output` with the error (and no `start`) and returns `None`.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site per adapter; a struct would only rename them"
)]
pub(crate) async fn open_event_stream(
    client: &reqwest::Client,
    model: &Model,
    options: &SimpleStreamOptions,
    url: &str,
    headers: Vec<(String, String)>,
    body: &Value,
    label: &str,
    output: &mut Output,
) -> Option<SseEvents> {
    let cancel = token(options);
    let request = PostRequest {
        url: url.to_string(),
        headers,
        body: body.to_string().into_bytes(),
    };
    let policy = SendPolicy {
        max_retries: options.base.max_retries,
        max_retry_delay_ms: Some(options.base.max_retry_delay_ms),
        timeout: Some(options.base.timeout.unwrap_or(DEFAULT_REQUEST_TIMEOUT)),
    };
    match http::send(client, &request, policy, &cancel).await {
        Ok(response) => {
            if let Some(hook) = &options.base.on_response {
                let headers = response
                    .headers()
                    .iter()
                    .filter_map(|(k, v)| {
                        Some((k.as_str().to_string(), v.to_str().ok()?.to_string()))
                    })
                    .collect();
                hook(
                    &ResponseInfo {
                        status: response.status().as_u16(),
                        headers,
                    },
                    model,
                );
            }
            output.start();
            Some(events(response, model, options))
        }
        Err(failure) => {
            let aborted = options.is_cancelled();
            let text = error_message::send_failure(label, url, &failure);
            output.fail(aborted, text);
            None
        }
    }
}

/// The request's cancellation token (a fresh one that never fires when none was given).
pub(crate) fn token(options: &SimpleStreamOptions) -> CancellationToken {
    options.base.signal.clone().unwrap_or_default()
}

/// SSE events of a successful response, bounded by the idle timeout and the cancellation token.
fn events(response: reqwest::Response, model: &Model, options: &SimpleStreamOptions) -> SseEvents {
    // pi parses Anthropic's SSE by hand and the OpenAI APIs with the OpenAI SDK's parser.
    let line_breaks = if model.api == Api::ANTHROPIC_MESSAGES {
        LineBreaks::SplitCrLfAcrossReads
    } else {
        LineBreaks::Standard
    };
    SseEvents::new(
        response,
        line_breaks,
        token(options),
        Some(options.base.idle_timeout.unwrap_or(DEFAULT_IDLE_TIMEOUT)),
    )
}

/// pi replaces lone UTF-16 surrogates; a Rust `str` cannot hold them, so text passes unchanged.
pub(crate) fn sanitize(text: &str) -> String {
    text.to_string()
}

/// `prompt_cache_key` is limited to 64 characters.
pub(crate) fn clamp_prompt_cache_key(key: &str) -> String {
    key.chars().take(64).collect()
}

/// A short stable hash (FNV-1a, 8 hex digits) for shortening ids.
pub(crate) fn short_hash(text: &str) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in text.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    format!("{hash:08x}")
}

/// Whether a tool asks for strict JSON-schema sampling (`constrainedSampling: {type: "json_schema"}`).
pub(crate) fn strict_sampling(tool: &Tool, supported: bool) -> bool {
    supported
        && tool.constrained_sampling.as_ref().is_some_and(|c| {
            c.get("type").and_then(Value::as_str) == Some("json_schema")
                && matches!(
                    c.get("strict").and_then(Value::as_str),
                    Some("require" | "prefer")
                )
        })
}

/// `model.samplingParams` overlaid with the request's.
pub(crate) fn merged_sampling_params(
    model: &Model,
    options: &SimpleStreamOptions,
) -> Map<String, Value> {
    let mut merged = model.sampling_params.clone().unwrap_or_default();
    if let Some(extra) = &options.base.sampling_params {
        for (k, v) in extra {
            merged.insert(k.clone(), v.clone());
        }
    }
    merged
}
