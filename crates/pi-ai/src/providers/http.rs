//! Sending one provider request: headers, per-attempt timeout, cancellation, and pi's retry policy
//! (spec 4.3): `maxRetries` (default 0) retries 408/409/429/5xx and connection failures, only before any
//! response body byte was accepted; `retry-after-ms` / `retry-after` are honoured up to `maxRetryDelayMs`
//! (default 60 s, 0 = no cap) and a longer requested delay fails at once. Beyond pi, `on_retry` is told of each
//! retry before its wait, and the request goes through the proxy client or the direct one by its URL.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio_util::sync::CancellationToken;

use super::client::HttpClient;
use super::sse::transport_text;
use crate::options::{RetryCause, RetryHook, RetryNotice};

/// Default cap on a server-requested retry delay.
pub(crate) const DEFAULT_MAX_RETRY_DELAY_MS: u64 = 60_000;

/// A prepared POST.
#[derive(Debug, Clone)]
pub(crate) struct PostRequest {
    pub(crate) url: String,
    /// Header name/value pairs, applied in order (a later one replaces an earlier one of the same name).
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

/// Retry and timeout settings of one call.
#[derive(Clone, Copy, Default)]
pub(crate) struct SendPolicy<'a> {
    pub(crate) max_retries: u32,
    /// `None` = default (60 s); `Some(0)` = no cap.
    pub(crate) max_retry_delay_ms: Option<u64>,
    /// Per attempt, until the response head arrived.
    pub(crate) timeout: Option<Duration>,
    /// Told of each retry before its wait.
    pub(crate) on_retry: Option<&'a RetryHook>,
}

/// Why no usable response was obtained.
#[derive(Debug)]
pub(crate) enum SendFailure {
    /// The token fired before or during the request.
    Aborted,
    /// The server answered with a non-success status; `body` is the whole response body as text.
    Status { status: u16, body: String },
    /// The server asked to wait longer than allowed before retrying.
    RetryDelayTooLong {
        requested_ms: u64,
        max_ms: u64,
        status: u16,
        body: String,
    },
    /// No response head within the request timeout.
    Timeout(Duration),
    /// Connecting or sending failed.
    Transport(String),
    /// A header given by the caller is not a valid HTTP header.
    InvalidHeader(String),
}

/// Sends `request`, retrying as pi does. Returns a successful (2xx) response whose body is still unread.
pub(crate) async fn send(
    client: &HttpClient,
    request: &PostRequest,
    policy: SendPolicy<'_>,
    cancel: &CancellationToken,
) -> Result<reqwest::Response, SendFailure> {
    let headers = header_map(&request.headers)?;
    let client = client.for_url(&request.url);
    let mut retries_done: u32 = 0;
    loop {
        if cancel.is_cancelled() {
            return Err(SendFailure::Aborted);
        }
        let outcome = attempt_once(client, request, &headers, policy.timeout, cancel).await;
        let (failure, response_headers) = match outcome {
            Ok(response) => return Ok(response),
            Err(Attempt::Final(failure)) => return Err(failure),
            Err(Attempt::Retryable(failure, headers)) => (failure, headers),
        };
        let notice = plan_retry(failure, &response_headers, retries_done, &policy)?;
        if let Some(hook) = policy.on_retry {
            hook(&notice);
        }
        retries_done = notice.attempt;
        tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(SendFailure::Aborted),
            () = tokio::time::sleep(notice.delay) => {}
        }
    }
}

/// What follows a retryable failure after `retries_done` retries: `Ok` = retry after the notice's delay,
/// `Err` = give up with this failure (no retries left, or the server asks for a longer wait than allowed).
fn plan_retry(
    failure: SendFailure,
    response_headers: &HeaderMap,
    retries_done: u32,
    policy: &SendPolicy<'_>,
) -> Result<RetryNotice, SendFailure> {
    if retries_done >= policy.max_retries {
        return Err(failure);
    }
    let cause = match &failure {
        SendFailure::Status { status, .. } => RetryCause::Status(*status),
        SendFailure::Timeout(_) => RetryCause::Timeout,
        SendFailure::Transport(_) => RetryCause::Connection,
        SendFailure::Aborted
        | SendFailure::RetryDelayTooLong { .. }
        | SendFailure::InvalidHeader(_) => return Err(failure),
    };
    match retry_delay(response_headers, retries_done, policy.max_retry_delay_ms) {
        Ok(delay) => Ok(RetryNotice {
            attempt: retries_done + 1,
            max_retries: policy.max_retries,
            delay,
            cause,
        }),
        Err((requested_ms, max_ms)) => Err(match failure {
            SendFailure::Status { status, body } => SendFailure::RetryDelayTooLong {
                requested_ms,
                max_ms,
                status,
                body,
            },
            other => other,
        }),
    }
}

enum Attempt {
    Final(SendFailure),
    Retryable(SendFailure, HeaderMap),
}

async fn attempt_once(
    client: &reqwest::Client,
    request: &PostRequest,
    headers: &HeaderMap,
    timeout: Option<Duration>,
    cancel: &CancellationToken,
) -> Result<reqwest::Response, Attempt> {
    let send = client
        .post(&request.url)
        .headers(headers.clone())
        .body(request.body.clone())
        .send();
    let sent = async {
        match timeout {
            Some(limit) => tokio::time::timeout(limit, send).await.map_err(|_| limit),
            None => Ok(send.await),
        }
    };
    let result = tokio::select! {
        biased;
        () = cancel.cancelled() => return Err(Attempt::Final(SendFailure::Aborted)),
        result = sent => result,
    };
    let response = match result {
        Err(limit) => {
            return Err(Attempt::Retryable(
                SendFailure::Timeout(limit),
                HeaderMap::new(),
            ));
        }
        Ok(Err(error)) => {
            return Err(Attempt::Retryable(
                SendFailure::Transport(transport_text(&error)),
                HeaderMap::new(),
            ));
        }
        Ok(Ok(response)) => response,
    };
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let response_headers = response.headers().clone();
    let body = tokio::select! {
        biased;
        () = cancel.cancelled() => return Err(Attempt::Final(SendFailure::Aborted)),
        body = response.text() => body.unwrap_or_default(),
    };
    let failure = SendFailure::Status {
        status: status.as_u16(),
        body,
    };
    if is_retryable(status.as_u16(), &response_headers) {
        Err(Attempt::Retryable(failure, response_headers))
    } else {
        Err(Attempt::Final(failure))
    }
}

fn is_retryable(status: u16, headers: &HeaderMap) -> bool {
    match headers.get("x-should-retry").and_then(|v| v.to_str().ok()) {
        Some("true") => return true,
        Some("false") => return false,
        _ => {}
    }
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// The delay before retry number `attempt` (0-based), or `Err((requested, max))` when the server asks for
/// more than the cap.
fn retry_delay(
    headers: &HeaderMap,
    attempt: u32,
    max_retry_delay_ms: Option<u64>,
) -> Result<Duration, (u64, u64)> {
    let max_ms = max_retry_delay_ms.unwrap_or(DEFAULT_MAX_RETRY_DELAY_MS);
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    let requested_ms =
        if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
            Some(ms)
        } else if let Some(value) = header("retry-after") {
            match value.parse::<f64>() {
                Ok(seconds) => Some(seconds * 1000.0),
                Err(_) => httpdate_delay_ms(value),
            }
        } else {
            None
        };
    if let Some(ms) = requested_ms {
        let ms = ms.max(0.0);
        if max_ms > 0 && ms > max_ms as f64 {
            return Err((ms.ceil() as u64, max_ms));
        }
        return Ok(Duration::from_secs_f64(ms / 1000.0));
    }
    // Exponential backoff like the SDKs: 0.5 s, 1 s, 2 s, … capped at 8 s, minus up to 25 % jitter.
    let base = (0.5 * 2f64.powi(attempt.min(16) as i32)).min(8.0);
    let jitter = f64::from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos())
            % 1000,
    ) / 4000.0;
    Ok(Duration::from_secs_f64(base * (1.0 - jitter)))
}

/// `retry-after` as an HTTP date: not worth a date parser; an unparsable value falls back to backoff.
fn httpdate_delay_ms(_value: &str) -> Option<f64> {
    None
}

fn header_map(pairs: &[(String, String)]) -> Result<HeaderMap, SendFailure> {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| SendFailure::InvalidHeader(format!("invalid header name {name:?}")))?;
        let value = HeaderValue::from_str(value)
            .map_err(|_| SendFailure::InvalidHeader(format!("invalid value for header {name}")))?;
        map.insert(name, value);
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let owned: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        header_map(&owned).unwrap()
    }

    #[test]
    fn retry_after_headers_are_honoured_up_to_the_cap() {
        let delay = retry_delay(&headers(&[("retry-after", "2")]), 0, None).unwrap();
        assert_eq!(delay, Duration::from_secs(2));
        let delay = retry_delay(
            &headers(&[("retry-after-ms", "250"), ("retry-after", "9")]),
            0,
            None,
        )
        .unwrap();
        assert_eq!(delay, Duration::from_millis(250));
        assert_eq!(
            retry_delay(&headers(&[("retry-after", "120")]), 0, None),
            Err((120_000, 60_000))
        );
        assert_eq!(
            retry_delay(&headers(&[("retry-after", "120")]), 0, Some(0)),
            Ok(Duration::from_secs(120))
        );
    }

    #[test]
    fn backoff_without_a_header_grows_and_is_capped() {
        let first = retry_delay(&HeaderMap::new(), 0, None).unwrap();
        let late = retry_delay(&HeaderMap::new(), 10, None).unwrap();
        assert!(first <= Duration::from_millis(500) && first >= Duration::from_millis(375));
        assert!(late <= Duration::from_secs(8) && late >= Duration::from_secs(6));
    }

    fn policy(max_retries: u32) -> SendPolicy<'static> {
        SendPolicy {
            max_retries,
            ..SendPolicy::default()
        }
    }

    fn status(status: u16) -> SendFailure {
        SendFailure::Status {
            status,
            body: "{}".into(),
        }
    }

    #[test]
    fn a_429_with_retry_after_is_retried_after_that_delay_and_counted() {
        let notice = plan_retry(
            status(429),
            &headers(&[("retry-after", "1")]),
            0,
            &policy(3),
        )
        .unwrap();
        assert_eq!(
            notice,
            RetryNotice {
                attempt: 1,
                max_retries: 3,
                delay: Duration::from_secs(1),
                cause: RetryCause::Status(429),
            }
        );
        let notice = plan_retry(status(503), &HeaderMap::new(), 2, &policy(3)).unwrap();
        assert_eq!(notice.attempt, 3);
        assert_eq!(notice.cause, RetryCause::Status(503));
        assert!(
            notice.delay <= Duration::from_secs(2) && notice.delay >= Duration::from_millis(1500)
        );
    }

    #[test]
    fn connection_failures_and_head_timeouts_are_retried_with_backoff() {
        let notice = plan_retry(
            SendFailure::Transport("connection refused".into()),
            &HeaderMap::new(),
            0,
            &policy(1),
        )
        .unwrap();
        assert_eq!(notice.cause, RetryCause::Connection);
        assert!(notice.delay <= Duration::from_millis(500));
        let notice = plan_retry(
            SendFailure::Timeout(Duration::from_secs(1)),
            &HeaderMap::new(),
            0,
            &policy(1),
        )
        .unwrap();
        assert_eq!(notice.cause, RetryCause::Timeout);
    }

    #[test]
    fn no_retry_is_left_after_max_retries_and_none_by_default() {
        assert!(matches!(
            plan_retry(status(429), &HeaderMap::new(), 0, &policy(0)),
            Err(SendFailure::Status { status: 429, .. })
        ));
        assert!(matches!(
            plan_retry(status(500), &HeaderMap::new(), 3, &policy(3)),
            Err(SendFailure::Status { status: 500, .. })
        ));
        assert!(matches!(
            plan_retry(SendFailure::Aborted, &HeaderMap::new(), 0, &policy(3)),
            Err(SendFailure::Aborted)
        ));
    }

    #[test]
    fn a_retry_after_above_the_cap_gives_up_at_once_naming_both() {
        let capped = SendPolicy {
            max_retries: 3,
            max_retry_delay_ms: Some(30_000),
            ..SendPolicy::default()
        };
        match plan_retry(status(429), &headers(&[("retry-after", "45")]), 0, &capped) {
            Err(SendFailure::RetryDelayTooLong {
                requested_ms,
                max_ms,
                status,
                ..
            }) => assert_eq!((requested_ms, max_ms, status), (45_000, 30_000, 429)),
            other => panic!("expected RetryDelayTooLong, got {other:?}"),
        }
    }

    #[test]
    fn retryable_statuses_follow_the_sdks() {
        for status in [408, 409, 429, 500, 503, 529] {
            assert!(is_retryable(status, &HeaderMap::new()), "{status}");
        }
        for status in [400, 401, 403, 404, 422] {
            assert!(!is_retryable(status, &HeaderMap::new()), "{status}");
        }
        assert!(!is_retryable(503, &headers(&[("x-should-retry", "false")])));
        assert!(is_retryable(400, &headers(&[("x-should-retry", "true")])));
    }
}
