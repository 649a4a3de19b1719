//! The connection to the provider as the host sets it up: the HTTP client with the user's proxy, the request
//! options the connection settings fill in (idle and head timeouts, retries), and what a retry looks like to the
//! window ([`RetryNoticeView`]).
//!
//! pi-ai keeps pi's behaviour by default (no retries, no idle timeout of its own choosing); the host sets these
//! from [`ConnectionOptions`] on every request, so the values of the settings screen apply to every provider.

use std::sync::Arc;

use pi_ai::providers::{HttpClient, HttpClientOptions, ProvidersError};
use pi_ai::{DEFAULT_MAX_RETRY_DELAY_MS, RetryCause, RetryHook, RetryNotice, StreamOptions};
use serde::Serialize;

use crate::settings::ConnectionOptions;

/// The HTTP client for `connection`'s proxy (loopback servers are always reached directly).
pub fn http_client(connection: &ConnectionOptions) -> Result<HttpClient, ProvidersError> {
    HttpClient::new(&HttpClientOptions {
        proxy: connection.proxy.clone(),
        ..HttpClientOptions::default()
    })
}

/// Fills in what the request leaves at pi's defaults: the idle and head timeouts, the retries and the cap on a
/// server-requested wait, and `on_retry`. Values the request sets itself stay.
pub fn apply_connection(
    options: &mut StreamOptions,
    connection: &ConnectionOptions,
    on_retry: Option<&RetryHook>,
) {
    options.idle_timeout.get_or_insert(connection.idle_timeout);
    options.timeout.get_or_insert(connection.head_timeout);
    if options.max_retries == 0 {
        options.max_retries = connection.max_retries;
    }
    if options.max_retry_delay_ms == DEFAULT_MAX_RETRY_DELAY_MS {
        options.max_retry_delay_ms =
            u64::try_from(connection.max_retry_delay.as_millis()).unwrap_or(u64::MAX);
    }
    if options.on_retry.is_none() {
        options.on_retry = on_retry.map(Arc::clone);
    }
}

/// A retry as the window shows it: "retrying in N s (attempt/maxRetries)", with Stop cancelling the wait.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RetryNoticeView {
    /// Which retry this is, from 1.
    pub attempt: u32,
    /// How many retries are allowed.
    pub max_retries: u32,
    /// The wait before it, in milliseconds (the window counts down from it).
    pub delay_ms: u64,
    /// Why the previous attempt failed: `status`, `timeout` or `connection`.
    #[ts(type = "\"status\" | \"timeout\" | \"connection\"")]
    pub cause: &'static str,
    /// The HTTP status, when the cause is `status`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub status: Option<u16>,
}

impl From<&RetryNotice> for RetryNoticeView {
    fn from(notice: &RetryNotice) -> RetryNoticeView {
        let (cause, status) = match notice.cause {
            RetryCause::Status(status) => ("status", Some(status)),
            RetryCause::Timeout => ("timeout", None),
            RetryCause::Connection => ("connection", None),
        };
        RetryNoticeView {
            attempt: notice.attempt,
            max_retries: notice.max_retries,
            delay_ms: u64::try_from(notice.delay.as_millis()).unwrap_or(u64::MAX),
            cause,
            status,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn the_connection_fills_what_the_request_leaves_at_pis_defaults() {
        let connection = ConnectionOptions {
            idle_timeout: Duration::from_secs(7),
            head_timeout: Duration::from_secs(9),
            max_retries: 3,
            max_retry_delay: Duration::from_secs(20),
            proxy: pi_ai::providers::ProxyChoice::Direct,
        };
        let hook: RetryHook = Arc::new(|_| {});
        let mut options = StreamOptions::default();
        apply_connection(&mut options, &connection, Some(&hook));
        assert_eq!(options.idle_timeout, Some(Duration::from_secs(7)));
        assert_eq!(options.timeout, Some(Duration::from_secs(9)));
        assert_eq!(options.max_retries, 3);
        assert_eq!(options.max_retry_delay_ms, 20_000);
        assert!(options.on_retry.is_some());

        let mut own = StreamOptions {
            idle_timeout: Some(Duration::from_millis(5)),
            max_retries: 1,
            max_retry_delay_ms: 0,
            ..StreamOptions::default()
        };
        apply_connection(&mut own, &connection, None);
        assert_eq!(own.idle_timeout, Some(Duration::from_millis(5)));
        assert_eq!(own.max_retries, 1);
        assert_eq!(own.max_retry_delay_ms, 0);
        assert!(own.on_retry.is_none());
    }

    #[test]
    fn a_retry_notice_serialises_for_the_window() {
        let view = RetryNoticeView::from(&RetryNotice {
            attempt: 2,
            max_retries: 3,
            delay: Duration::from_millis(1500),
            cause: RetryCause::Status(429),
        });
        assert_eq!(
            serde_json::to_value(&view).unwrap(),
            serde_json::json!({"attempt": 2, "maxRetries": 3, "delayMs": 1500, "cause": "status", "status": 429})
        );
        let view = RetryNoticeView::from(&RetryNotice {
            attempt: 1,
            max_retries: 1,
            delay: Duration::ZERO,
            cause: RetryCause::Connection,
        });
        assert_eq!(
            serde_json::to_value(&view).unwrap(),
            serde_json::json!({"attempt": 1, "maxRetries": 1, "delayMs": 0, "cause": "connection"})
        );
    }
}
