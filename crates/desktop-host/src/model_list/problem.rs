//! Why a provider could not be reached or listed, in words the user can act on: the kind the window branches on
//! ([`ProblemKind`]) and a message that says what failed and what to do. Messages never hold the API key (a
//! server that echoes it has it masked) nor a proxy's password.

use pi_ai::providers::{FetchError, TransportFailure, redact_credentials};
use serde::Serialize;

use crate::model_list::ProviderTarget;

/// What kind of problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ProblemKind {
    /// The server answered but has no model list there (404, 405, 501, or not a list): type the model id.
    NoModelList,
    /// The host name does not resolve.
    Dns,
    /// Nothing listens at that address.
    Refused,
    /// The secure connection failed.
    Tls,
    /// The proxy failed or could not be reached.
    Proxy,
    /// No answer in time.
    Timeout,
    /// 401: the key was refused.
    Unauthorized,
    /// 403: the key may not do this.
    Forbidden,
    /// 429: too many requests.
    RateLimited,
    /// 5xx.
    ServerError,
    /// The address cannot be used.
    InvalidUrl,
    /// Anything else (another status, a broken connection).
    Other,
}

/// A problem as the window shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Problem {
    /// What kind.
    pub kind: ProblemKind,
    /// What happened and what to do.
    pub message: String,
}

/// Why a model list was not obtained.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListFailure {
    /// The server answered, but not with a list: `status` when it was an error status.
    NoList {
        /// The list's address.
        url: String,
        /// The status, for 404, 405 and 501.
        status: Option<u16>,
        /// What the server sent instead, briefly.
        detail: String,
    },
    /// The request failed.
    Fetch {
        /// The list's address.
        url: String,
        /// How.
        error: FetchError,
    },
}

impl ListFailure {
    /// The address that failed.
    pub fn url(&self) -> &str {
        match self {
            ListFailure::NoList { url, .. } | ListFailure::Fetch { url, .. } => url,
        }
    }
}

/// The problem `failure` is for the user, naming `target`'s provider.
pub fn describe(failure: &ListFailure, target: &ProviderTarget) -> Problem {
    let label = target.label();
    let url = redact_credentials(failure.url());
    let host = host_of(&url);
    let (kind, message) = match failure {
        ListFailure::NoList { status, detail, .. } => (
            ProblemKind::NoModelList,
            format!(
                "{label} answered, but has no model list at {url}{}: {detail}. If the address is right, type the \
                 model id yourself; OpenAI-compatible servers usually have it under …/v1.",
                status.map(|s| format!(" ({s})")).unwrap_or_default()
            ),
        ),
        ListFailure::Fetch { error, .. } => match error {
            FetchError::InvalidUrl(detail) => (
                ProblemKind::InvalidUrl,
                format!(
                    "The address cannot be used ({detail}). Enter it as http://host:port/… or https://…."
                ),
            ),
            FetchError::Aborted => (ProblemKind::Other, "The check was cancelled.".to_owned()),
            FetchError::Timeout(limit) => (
                ProblemKind::Timeout,
                format!(
                    "{host} did not answer within {} s. Check the address and your connection; a local server may \
                     still be loading its model.",
                    limit.as_secs()
                ),
            ),
            FetchError::Transport { kind, detail } => {
                transport_problem(*kind, &host, &label, detail)
            }
            FetchError::Status { status, body } => {
                status_problem(*status, &said(body, target), &label, &url)
            }
            FetchError::NotJson { detail, .. } => (
                ProblemKind::NoModelList,
                format!(
                    "{label} answered at {url} with something that is not a model list ({detail}). Check the \
                     address, or type the model id yourself."
                ),
            ),
        },
    };
    Problem {
        kind,
        message: mask_key(&message, target),
    }
}

fn transport_problem(
    kind: TransportFailure,
    host: &str,
    label: &str,
    detail: &str,
) -> (ProblemKind, String) {
    match kind {
        TransportFailure::Dns => (
            ProblemKind::Dns,
            format!(
                "Cannot find {host}: the name does not resolve. Check the address for typos, and your network or \
                 VPN."
            ),
        ),
        TransportFailure::Refused => (
            ProblemKind::Refused,
            format!(
                "Nothing answers at {host} (connection refused). Is the server running? Start Ollama with \
                 `ollama serve`, llama.cpp with `llama-server`, or check the port."
            ),
        ),
        TransportFailure::Tls => (
            ProblemKind::Tls,
            format!(
                "The secure connection to {host} failed ({detail}). A local server usually speaks http://, not \
                 https://; otherwise check the system's certificates or the proxy."
            ),
        ),
        TransportFailure::Proxy => (
            ProblemKind::Proxy,
            format!(
                "The proxy failed on the way to {host} ({detail}). Check the proxy in Settings → Connection (or \
                 HTTPS_PROXY / ALL_PROXY), or choose no proxy."
            ),
        ),
        TransportFailure::Reset | TransportFailure::Other => (
            ProblemKind::Other,
            format!(
                "The connection to {label} failed: {detail}. Check the address and your connection."
            ),
        ),
    }
}

fn status_problem(status: u16, said: &str, label: &str, url: &str) -> (ProblemKind, String) {
    match status {
        401 => (
            ProblemKind::Unauthorized,
            format!("{label} rejected the API key (401): {said}. Check the key (or enter one)."),
        ),
        403 => (
            ProblemKind::Forbidden,
            format!(
                "{label} refused access (403): {said}. The key may not be allowed to list models, or not from your \
                 region."
            ),
        ),
        404 | 405 | 501 => (
            ProblemKind::NoModelList,
            format!(
                "{label} answered, but has no model list at {url} ({status}). If the address is right, type the \
                 model id yourself; OpenAI-compatible servers usually have it under …/v1."
            ),
        ),
        429 => (
            ProblemKind::RateLimited,
            format!(
                "{label} is rate limiting requests (429): {said}. Wait a moment and try again."
            ),
        ),
        500..=599 => (
            ProblemKind::ServerError,
            format!("{label} had a server error ({status}): {said}. Try again later."),
        ),
        _ => (
            ProblemKind::Other,
            format!("{label} answered HTTP {status}: {said}"),
        ),
    }
}

/// The most telling words of an error body: `error.message`, `message`, a string `error`, else its start.
fn said(body: &str, target: &ProviderTarget) -> String {
    let text = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|value| {
            [
                value.pointer("/error/message"),
                value.pointer("/message"),
                value.pointer("/error").filter(|v| v.is_string()),
                value.pointer("/detail").filter(|v| v.is_string()),
            ]
            .into_iter()
            .flatten()
            .find_map(|v| v.as_str().map(str::to_owned))
        })
        .unwrap_or_else(|| body.trim().to_owned());
    let mut shown: String = text.chars().take(300).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    if shown.is_empty() {
        shown = "no details given".to_owned();
    }
    mask_key(&shown, target)
}

/// `text` with the target's key replaced by `***`, in case a server echoed it.
fn mask_key(text: &str, target: &ProviderTarget) -> String {
    match target.api_key.as_ref().map(|key| key.expose()) {
        Some(key) if key.len() >= 4 => text.replace(key, "***"),
        _ => text.to_owned(),
    }
}

/// `host:port` of a URL, for messages.
fn host_of(url: &str) -> String {
    reqwest_host(url).unwrap_or_else(|| url.to_owned())
}

fn reqwest_host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    (!authority.is_empty()).then(|| authority.to_owned())
}
