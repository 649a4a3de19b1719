//! Driving one response of an HTTP adapter, the same for every wire protocol: the task and its stream
//! contract, the API key, the `onPayload` hook, the headers (shared defaults, the protocol's, the key, the
//! adapter's, then the model's and the request's), sending with the retry policy (an error status becomes
//! pi's error text; each retry is told to `on_retry`), `onResponse`, `start`, and the response's SSE events
//! bounded by the idle timeout and the cancellation token. A [`Protocol`] supplies the rest: its endpoint,
//! compat, request and reading.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::client::HttpClient;
use super::common::RequestSetup;
use super::error_message;
use super::http::{self, PostRequest, SendPolicy};
use super::output::Output;
use super::sse::{LineBreaks, SseEvent, SseEvents};
use crate::context::Context;
use crate::event::{AssistantMessageEvent, ErrorReason};
use crate::event_stream::{AssistantMessageEventStream, assistant_message_channel};
use crate::message::{AssistantMessage, StopReason};
use crate::model::Model;
use crate::options::{ResponseInfo, SimpleStreamOptions};
use crate::tool_choice::UnsupportedToolChoice;

/// Time allowed until the response head arrives when the options set none (the provider SDKs' default).
const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);

/// Longest silence inside a streaming body when the options set none, so a stalled server cannot hang a run.
const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// Sent as `User-Agent` on every request.
const USER_AGENT: &str = concat!("pi-desktop/", env!("CARGO_PKG_VERSION"));

/// A wire protocol, as [`stream`] drives it.
pub(crate) trait Protocol: 'static {
    /// The model's compat settings as this protocol reads them.
    type Compat: Send + Sync + 'static;

    const ENDPOINT: Endpoint;

    fn compat(model: &Model) -> Self::Compat;

    /// The request; built only once there is a key. `Err` for a tool choice the API cannot take: the stream
    /// then ends with that error before anything is sent.
    fn request(call: &Call<'_, Self::Compat>) -> Result<Request, UnsupportedToolChoice>;

    /// Reads the response to its end and ends the output with `done` or `error`.
    fn read(call: &Call<'_, Self::Compat>, response: Opened) -> impl Future<Output = ()> + Send;
}

/// One call, as a [`Protocol`] sees it.
pub(crate) struct Call<'a, C> {
    pub(crate) model: &'a Model,
    pub(crate) context: &'a Context,
    pub(crate) options: &'a SimpleStreamOptions,
    pub(crate) compat: &'a C,
    pub(crate) setup: &'a RequestSetup,
}

impl<C> Clone for Call<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Call<'_, C> {}

/// A response that arrived: its events and the output they go to (`start` already pushed).
pub(crate) struct Opened {
    pub(crate) events: ResponseEvents,
    pub(crate) output: Output,
}

/// Streams one response of protocol `P` on a tokio task.
pub(crate) fn stream<P: Protocol>(
    client: &HttpClient,
    model: Model,
    context: Context,
    options: SimpleStreamOptions,
) -> AssistantMessageEventStream {
    let client = client.clone();
    spawn_stream(model, move |model, output| {
        run::<P>(client, model, context, options, output)
    })
}

async fn run<P: Protocol>(
    client: HttpClient,
    model: Model,
    context: Context,
    options: SimpleStreamOptions,
    mut output: Output,
) {
    let compat = P::compat(&model);
    let setup = RequestSetup::new(&model, &context, &options);
    let call = Call {
        model: &model,
        context: &context,
        options: &options,
        compat: &compat,
        setup: &setup,
    };
    let build = || P::request(&call);
    if let Some(events) = open(&client, &model, &options, &P::ENDPOINT, &mut output, build).await {
        P::read(&call, Opened { events, output }).await;
    }
}

/// Starts `drive` on a tokio task and returns the stream it feeds.
///
/// Guarantees the stream contract around it: a signal cancelled before the call gives a single
/// `error(aborted)`; no tokio runtime, or a panic inside `drive`, still ends the stream with `error`.
fn spawn_stream<F, Fut>(model: Model, drive: F) -> AssistantMessageEventStream
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

/// How the API key is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyHeader {
    /// `authorization: Bearer <key>`.
    Bearer,
    /// `x-api-key: <key>`.
    XApiKey,
}

/// What a wire protocol fixes about every request it sends.
#[derive(Debug)]
pub(crate) struct Endpoint {
    /// Appended to the model's base URL (less its trailing `/`).
    pub(crate) path: &'static str,
    /// Sent after `content-type` and `accept`, before `user-agent`.
    pub(crate) protocol_headers: &'static [(&'static str, &'static str)],
    pub(crate) key_header: KeyHeader,
    /// Whether a body replaced by `onPayload` is set back to `stream: true` (pi's Anthropic adapter does so).
    pub(crate) restream_replaced_payload: bool,
    /// pi parses Anthropic's SSE by hand and the OpenAI APIs' with the OpenAI SDK's parser.
    pub(crate) line_breaks: LineBreaks,
}

impl Endpoint {
    /// An OpenAI API at `path`: a bearer key, no protocol headers, SSE line breaks by the standard.
    pub(crate) const fn openai(path: &'static str) -> Self {
        Self {
            path,
            protocol_headers: &[],
            key_header: KeyHeader::Bearer,
            restream_replaced_payload: false,
            line_breaks: LineBreaks::Standard,
        }
    }
}

/// One request as its adapter built it.
#[derive(Debug, Default)]
pub(crate) struct Request {
    pub(crate) body: Value,
    /// Sent after the key; the model's and the request's headers may replace or remove them.
    pub(crate) headers: Vec<(String, String)>,
    /// Set last, replacing any the model or the request gave (the adapter has already folded those in);
    /// `None` sends none of that name.
    pub(crate) computed_headers: Vec<(&'static str, Option<String>)>,
}

/// The events of a response that arrived, and how its errors name the provider.
pub(crate) struct ResponseEvents {
    events: SseEvents,
    label: String,
}

impl ResponseEvents {
    /// The provider as error texts name it.
    pub(crate) fn label(&self) -> &str {
        &self.label
    }

    /// The next event; `Ok(None)` at the end of the body. `Err` holds pi's text for a body that broke, stalled
    /// or was cancelled.
    pub(crate) async fn next(&mut self) -> Result<Option<SseEvent>, String> {
        self.events
            .next()
            .await
            .map_err(|failure| error_message::stream_failure(&self.label, &failure))
    }

    /// The next event's `data` as JSON, past the OpenAI APIs' `[DONE]` sentinel; `Ok(None)` at the end of the
    /// body. `Err` holds pi's text, also for data that is not JSON.
    pub(crate) async fn next_json(&mut self) -> Result<Option<Value>, String> {
        while let Some(event) = self.next().await? {
            if event.data.starts_with("[DONE]") {
                continue;
            }
            return serde_json::from_str(&event.data)
                .map(Some)
                .map_err(|error| error_message::invalid_json(&self.label, &error, &event.data));
        }
        Ok(None)
    }
}

/// Sends the request `build` returns and, once the response arrived, pushes `start` and returns its events.
///
/// pi starts a response only after the HTTP response arrived, so a missing key or a failed request ends
/// `output` with the error (and no `start`) and returns `None`. `build` runs only when there is a key.
async fn open(
    client: &HttpClient,
    model: &Model,
    options: &SimpleStreamOptions,
    endpoint: &Endpoint,
    output: &mut Output,
    build: impl FnOnce() -> Result<Request, UnsupportedToolChoice>,
) -> Option<ResponseEvents> {
    let label = error_message::provider_label(&model.provider);
    let api_key = match api_key_or_header(model, options) {
        Ok(key) => key,
        Err(text) => {
            output.fail(options.is_cancelled(), text);
            return None;
        }
    };
    let Request {
        mut body,
        headers: adapter_headers,
        computed_headers,
    } = match build() {
        Ok(request) => request,
        Err(unsupported) => {
            output.fail(options.is_cancelled(), unsupported.to_string());
            return None;
        }
    };
    if let Some(hook) = &options.base.on_payload {
        if let Some(mut replaced) = hook(&body, model) {
            if endpoint.restream_replaced_payload {
                if let Some(obj) = replaced.as_object_mut() {
                    obj.insert("stream".into(), json!(true));
                }
            }
            body = replaced;
        }
    }
    let mut headers: Vec<(String, String)> = vec![
        ("content-type".into(), "application/json".into()),
        ("accept".into(), "application/json".into()),
    ];
    headers.extend(
        endpoint
            .protocol_headers
            .iter()
            .map(|(name, value)| ((*name).to_string(), (*value).to_string())),
    );
    headers.push(("user-agent".into(), USER_AGENT.into()));
    if let Some(key) = api_key {
        headers.push(match endpoint.key_header {
            KeyHeader::Bearer => ("authorization".into(), format!("Bearer {key}")),
            KeyHeader::XApiKey => ("x-api-key".into(), key),
        });
    }
    headers.extend(adapter_headers);
    let mut headers = merge_headers(headers, model, options);
    for (name, value) in computed_headers {
        headers.retain(|(k, _)| k != name);
        if let Some(value) = value {
            headers.push((name.to_string(), value));
        }
    }
    let url = format!("{}{}", model.base_url.trim_end_matches('/'), endpoint.path);
    let request = PostRequest {
        url,
        headers,
        body: body.to_string().into_bytes(),
    };
    let policy = SendPolicy {
        max_retries: options.base.max_retries,
        max_retry_delay_ms: Some(options.base.max_retry_delay_ms),
        timeout: Some(options.base.timeout.unwrap_or(DEFAULT_REQUEST_TIMEOUT)),
        on_retry: options.base.on_retry.as_ref(),
    };
    match http::send(client, &request, policy, &token(options)).await {
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
            let events = SseEvents::new(
                response,
                endpoint.line_breaks,
                token(options),
                Some(options.base.idle_timeout.unwrap_or(DEFAULT_IDLE_TIMEOUT)),
            );
            Some(ResponseEvents { events, label })
        }
        Err(failure) => {
            let proxy = client.proxy_for(&request.url);
            let text =
                error_message::send_failure(&label, &request.url, proxy.as_deref(), &failure);
            output.fail(options.is_cancelled(), text);
            None
        }
    }
}

/// The request's cancellation token (a fresh one that never fires when none was given).
fn token(options: &SimpleStreamOptions) -> CancellationToken {
    options.base.signal.clone().unwrap_or_default()
}

/// The API key, or `None` when the caller supplies its own `authorization` header.
fn api_key_or_header(
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
fn merge_headers(
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
