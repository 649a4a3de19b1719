//! Request options: [`StreamOptions`] (per API) and [`SimpleStreamOptions`] (unified, spec 4.4).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::model::{Model, ThinkingBudgets, ThinkingLevel};
use crate::tool_choice::ToolChoice;

/// Default cap for a server-requested retry delay, in ms (spec 4.4).
pub const DEFAULT_MAX_RETRY_DELAY_MS: u64 = 60_000;

/// Transport for APIs that offer more than one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    /// Server-sent events.
    Sse,
    /// WebSocket.
    Websocket,
    /// WebSocket with a cached connection.
    WebsocketCached,
    /// Adapter's choice.
    Auto,
}

/// Prompt-cache retention (default `short`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheRetention {
    /// No caching.
    None,
    /// Short retention (the default).
    #[default]
    Short,
    /// Long retention.
    Long,
}

/// What an HTTP response looked like, for [`StreamOptions::on_response`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResponseInfo {
    /// HTTP status.
    pub status: u16,
    /// Response headers (lower-case names).
    pub headers: BTreeMap<String, String>,
}

/// Inspects (and may replace, by returning `Some`) the request payload before it is sent.
pub type PayloadHook = Arc<dyn Fn(&Value, &Model) -> Option<Value> + Send + Sync>;

/// Observes the HTTP response status and headers before streaming starts.
pub type ResponseHook = Arc<dyn Fn(&ResponseInfo, &Model) + Send + Sync>;

/// Told of every retry before its wait begins (see [`StreamOptions::on_retry`]). Must return quickly and never
/// block: it runs on the request's task.
pub type RetryHook = Arc<dyn Fn(&RetryNotice) + Send + Sync>;

/// A retry about to happen: the previous attempt failed before any of the response body arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryNotice {
    /// Which retry this is, from 1 (so `attempt` of `max_retries`).
    pub attempt: u32,
    /// How many retries the options allow.
    pub max_retries: u32,
    /// The wait before the retry is sent (the server's `retry-after`, or the backoff).
    pub delay: Duration,
    /// Why the previous attempt failed.
    pub cause: RetryCause,
}

/// Why an attempt is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryCause {
    /// The server answered with this status (408, 409, 429, 5xx, or `x-should-retry: true`).
    Status(u16),
    /// No response head within the head timeout ([`StreamOptions::timeout`]).
    Timeout,
    /// Connecting or sending failed.
    Connection,
}

/// Options every API understands (pi's `StreamOptions`). All optional.
#[derive(Clone)]
pub struct StreamOptions {
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Extra body parameters (OpenAI-compatible adapters), merged over `model.samplingParams`.
    pub sampling_params: Option<Map<String, Value>>,
    /// Output token cap (defaults to the model's, clamped; see [`crate::clamp_max_tokens`]).
    pub max_tokens: Option<u64>,
    /// Cancellation (pi's `signal`): a cancelled token ends the stream with `error(aborted)`.
    pub signal: Option<CancellationToken>,
    /// API key; wins over the provider's resolved key.
    pub api_key: Option<String>,
    /// Transport preference.
    pub transport: Option<Transport>,
    /// Prompt-cache retention.
    pub cache_retention: Option<CacheRetention>,
    /// Cache routing / affinity id.
    pub session_id: Option<String>,
    /// Extra headers; a `None` value suppresses a default header. Names match case-insensitively.
    pub headers: Option<BTreeMap<String, Option<String>>>,
    /// Time allowed per attempt until the response head arrives (pi's `timeoutMs`, as the SDKs apply it);
    /// `None` = 600 s.
    pub timeout: Option<Duration>,
    /// Longest silence allowed between two received chunks of a streaming response; `None` = 300 s. Not in pi,
    /// whose streams can wait forever: hitting it ends the stream with `error`, the partial content kept.
    pub idle_timeout: Option<Duration>,
    /// WebSocket connect timeout.
    pub websocket_connect_timeout: Option<Duration>,
    /// Client retries (default 0).
    pub max_retries: u32,
    /// A server-requested retry delay above this fails at once (default 60000; 0 disables the cap).
    pub max_retry_delay_ms: u64,
    /// Provider metadata (e.g. Anthropic `user_id`).
    pub metadata: Option<Map<String, Value>>,
    /// Provider-scoped environment overrides.
    pub env: Option<BTreeMap<String, String>>,
    /// Payload hook.
    pub on_payload: Option<PayloadHook>,
    /// Response hook.
    pub on_response: Option<ResponseHook>,
    /// Told of each retry before its wait (not in pi; `None` = nobody is told). Cancelling `signal` during the
    /// wait ends the stream with `error(aborted)` and sends nothing more.
    pub on_retry: Option<RetryHook>,
}

impl Default for StreamOptions {
    fn default() -> Self {
        Self {
            temperature: None,
            sampling_params: None,
            max_tokens: None,
            signal: None,
            api_key: None,
            transport: None,
            cache_retention: None,
            session_id: None,
            headers: None,
            timeout: None,
            idle_timeout: None,
            websocket_connect_timeout: None,
            max_retries: 0,
            max_retry_delay_ms: DEFAULT_MAX_RETRY_DELAY_MS,
            metadata: None,
            env: None,
            on_payload: None,
            on_response: None,
            on_retry: None,
        }
    }
}

impl StreamOptions {
    /// True when the signal is present and cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.signal
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled)
    }
}

impl fmt::Debug for StreamOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The API key is a secret: only its presence is shown.
        f.debug_struct("StreamOptions")
            .field("temperature", &self.temperature)
            .field("sampling_params", &self.sampling_params)
            .field("max_tokens", &self.max_tokens)
            .field("signal", &self.signal)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("transport", &self.transport)
            .field("cache_retention", &self.cache_retention)
            .field("session_id", &self.session_id)
            .field(
                "headers",
                &self
                    .headers
                    .as_ref()
                    .map(|headers| headers.keys().collect::<Vec<_>>()),
            )
            .field("timeout", &self.timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("websocket_connect_timeout", &self.websocket_connect_timeout)
            .field("max_retries", &self.max_retries)
            .field("max_retry_delay_ms", &self.max_retry_delay_ms)
            .field("metadata", &self.metadata)
            .field(
                "env",
                &self.env.as_ref().map(|env| env.keys().collect::<Vec<_>>()),
            )
            .field("on_payload", &self.on_payload.is_some())
            .field("on_response", &self.on_response.is_some())
            .field("on_retry", &self.on_retry.is_some())
            .finish()
    }
}

/// `deferred` of [`SimpleStreamOptions`]: ask a capable provider for a durable handle.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeferredOptions {
    /// Requested window (`15m`, `1h`, `24h`); `None` = provider default.
    pub window: Option<String>,
}

/// The unified options of `stream_simple` (pi's `SimpleStreamOptions`): [`StreamOptions`] plus reasoning.
#[derive(Debug, Clone, Default)]
pub struct SimpleStreamOptions {
    /// The shared options.
    pub base: StreamOptions,
    /// Reasoning level; `None` = off.
    pub reasoning: Option<ThinkingLevel>,
    /// Token budgets per level (token-budget APIs).
    pub thinking_budgets: Option<ThinkingBudgets>,
    /// Tool choice in the form of the model's API (see [`ToolChoice`]); `None` = provider default.
    pub tool_choice: Option<ToolChoice>,
    /// Ask for a deferred response.
    pub deferred: Option<DeferredOptions>,
}

impl SimpleStreamOptions {
    /// True when the signal is present and cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.base.is_cancelled()
    }
}

impl From<StreamOptions> for SimpleStreamOptions {
    fn from(base: StreamOptions) -> Self {
        Self {
            base,
            ..Self::default()
        }
    }
}
