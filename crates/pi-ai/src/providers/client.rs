//! The HTTP client the adapters share, and the proxy it goes through.
//!
//! [`HttpClient`] holds two reqwest clients: one that goes through the chosen proxy ([`ProxyChoice`]) and one
//! that never does. Loopback destinations (`localhost`, `*.localhost`, `127.0.0.0/8`, `::1`) always take the
//! direct one, so a local Ollama or llama.cpp keeps working behind a corporate proxy whatever `NO_PROXY` says.
//! Everything else takes the proxied one: with [`ProxyChoice::System`] reqwest reads `HTTP_PROXY`,
//! `HTTPS_PROXY`, `ALL_PROXY` and `NO_PROXY` (upper or lower case) and, on macOS and Windows, the system's
//! proxy settings; a proxy URL may be `http://`, `https://`, `socks5://` or `socks5h://` (the proxy resolves the
//! name), with credentials.
//!
//! Proxy credentials are secrets: [`redact_credentials`] removes them from every text this module makes.

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::ProvidersError;
use super::sse::transport_text;

/// How long connecting (TCP, TLS, the proxy's handshake) may take when the options set nothing.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Which proxy requests to non-loopback hosts go through.
#[derive(Clone, PartialEq, Eq, Default)]
pub enum ProxyChoice {
    /// The system's: the proxy variables of the environment, then (macOS, Windows) the OS settings.
    #[default]
    System,
    /// No proxy at all, whatever the environment says.
    Direct,
    /// This proxy for every request: an `http://`, `https://`, `socks5://` or `socks5h://` URL.
    Manual(String),
}

impl fmt::Debug for ProxyChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyChoice::System => f.write_str("System"),
            ProxyChoice::Direct => f.write_str("Direct"),
            ProxyChoice::Manual(url) => f
                .debug_tuple("Manual")
                .field(&redact_credentials(url))
                .finish(),
        }
    }
}

/// How an [`HttpClient`] is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpClientOptions {
    /// The proxy for non-loopback hosts.
    pub proxy: ProxyChoice,
    /// How long connecting may take.
    pub connect_timeout: Duration,
}

impl Default for HttpClientOptions {
    fn default() -> Self {
        Self {
            proxy: ProxyChoice::System,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
        }
    }
}

/// Which way a request to some URL goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Straight to the host (loopback, or no proxy chosen).
    Direct,
    /// Through the proxy client (which may still go direct when `NO_PROXY` or the system says so).
    Proxied,
}

/// The adapters' HTTP client: the proxied and the direct reqwest client. Cheap to clone (both share their
/// connection pools).
#[derive(Clone)]
pub struct HttpClient {
    proxied: reqwest::Client,
    direct: reqwest::Client,
    proxy: ProxyChoice,
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpClient")
            .field("proxy", &self.proxy)
            .finish_non_exhaustive()
    }
}

/// One reqwest client for every request, loopback included (tests that build their own client).
impl From<reqwest::Client> for HttpClient {
    fn from(client: reqwest::Client) -> Self {
        Self {
            proxied: client.clone(),
            direct: client,
            proxy: ProxyChoice::System,
        }
    }
}

impl HttpClient {
    /// Builds both clients: rustls, HTTP/1.1 and HTTP/2, no overall timeout (streams are long; head and idle
    /// timeouts come from the request options). Fails for a manual proxy URL reqwest cannot use.
    pub fn new(options: &HttpClientOptions) -> Result<Self, ProvidersError> {
        let builder = || reqwest::Client::builder().connect_timeout(options.connect_timeout);
        let build = |builder: reqwest::ClientBuilder| {
            builder
                .build()
                .map_err(|error| ProvidersError::Client(redact_credentials(&error.to_string())))
        };
        let direct = build(builder().no_proxy())?;
        let proxied = match &options.proxy {
            ProxyChoice::System => build(builder())?,
            ProxyChoice::Direct => direct.clone(),
            ProxyChoice::Manual(url) => {
                let proxy = manual_proxy(url)?;
                build(builder().proxy(proxy))?
            }
        };
        Ok(Self {
            proxied,
            direct,
            proxy: options.proxy.clone(),
        })
    }

    /// The proxy choice this client was built with.
    pub fn proxy(&self) -> &ProxyChoice {
        &self.proxy
    }

    /// Which way a request to `url` goes: loopback hosts and a [`ProxyChoice::Direct`] client go direct.
    pub fn route(&self, url: &str) -> Route {
        if self.proxy == ProxyChoice::Direct || is_loopback_url(url) {
            Route::Direct
        } else {
            Route::Proxied
        }
    }

    /// The proxy a request to `url` goes through (credentials removed), or `None` when it goes direct: never for
    /// loopback or [`ProxyChoice::Direct`], the manual one, or the one the system settings name for this URL
    /// (reqwest's own matcher: the proxy variables, `NO_PROXY`, the OS settings).
    pub fn proxy_for(&self, url: &str) -> Option<String> {
        if self.route(url) == Route::Direct {
            return None;
        }
        match &self.proxy {
            ProxyChoice::Direct => None,
            ProxyChoice::Manual(proxy) => Some(redact_credentials(proxy)),
            ProxyChoice::System => {
                let uri: http::Uri = url.parse().ok()?;
                let intercept =
                    hyper_util::client::proxy::matcher::Matcher::from_system().intercept(&uri)?;
                Some(redact_credentials(&intercept.uri().to_string()))
            }
        }
    }

    /// The reqwest client for a request to `url`.
    pub(crate) fn for_url(&self, url: &str) -> &reqwest::Client {
        match self.route(url) {
            Route::Direct => &self.direct,
            Route::Proxied => &self.proxied,
        }
    }

    /// `GET url` with `headers`, read as JSON: the head within `timeout`, the body within `timeout` again.
    /// For listing models and testing a connection; never retried. The error says which step failed.
    pub async fn get_json(
        &self,
        url: &str,
        headers: &[(String, String)],
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<Value, FetchError> {
        let parsed = reqwest::Url::parse(url).map_err(|error| {
            FetchError::InvalidUrl(format!("{}: {error}", redact_credentials(url)))
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(FetchError::InvalidUrl(format!(
                "{}: only http:// and https:// addresses are supported",
                redact_credentials(url)
            )));
        }
        let proxied = self.proxy_for(url).is_some();
        let mut request = self.for_url(url).get(parsed);
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let response = bounded(timeout, cancel, request.send())
            .await?
            .map_err(|error| FetchError::from_reqwest(&error, proxied))?;
        let status = response.status().as_u16();
        let body = bounded(timeout, cancel, response.text())
            .await?
            .map_err(|error| FetchError::from_reqwest(&error, proxied))?;
        if !(200..300).contains(&status) {
            return Err(FetchError::Status { status, body });
        }
        serde_json::from_str(&body).map_err(|error| FetchError::NotJson {
            detail: error.to_string(),
            body: body.chars().take(200).collect(),
        })
    }
}

async fn bounded<T>(
    timeout: Duration,
    cancel: &CancellationToken,
    future: impl Future<Output = T>,
) -> Result<T, FetchError> {
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(FetchError::Aborted),
        outcome = tokio::time::timeout(timeout, future) => outcome.map_err(|_| FetchError::Timeout(timeout)),
    }
}

/// Why a [`HttpClient::get_json`] failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The URL cannot be requested.
    #[error("invalid address {0}")]
    InvalidUrl(String),
    /// The token fired.
    #[error("the request was cancelled")]
    Aborted,
    /// No answer within the limit.
    #[error("no answer within {:.1} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// Connecting or reading failed; `kind` says what broke.
    #[error("{detail}")]
    Transport {
        /// What broke.
        kind: TransportFailure,
        /// reqwest's text (credentials removed).
        detail: String,
    },
    /// The server answered with a non-success status.
    #[error("HTTP {status}")]
    Status {
        /// The status.
        status: u16,
        /// The body as text.
        body: String,
    },
    /// A success status whose body is not JSON.
    #[error("the answer is not JSON ({detail})")]
    NotJson {
        /// The parser's words.
        detail: String,
        /// The start of the body.
        body: String,
    },
}

/// What broke when a request failed below HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportFailure {
    /// The host name does not resolve.
    Dns,
    /// Nothing listens at that address and port.
    Refused,
    /// The TLS handshake failed (a certificate, or plain HTTP on an `https://` address).
    Tls,
    /// The proxy could not be reached, or it refused to connect to the host.
    Proxy,
    /// The connection was reset or closed early.
    Reset,
    /// Something else.
    Other,
}

impl FetchError {
    fn from_reqwest(error: &reqwest::Error, proxied: bool) -> Self {
        if error.is_timeout() {
            // reqwest's own timeouts (the connect timeout) carry no duration worth showing.
            return FetchError::Transport {
                kind: TransportFailure::Other,
                detail: redact_credentials(&transport_text(error)),
            };
        }
        FetchError::Transport {
            kind: classify(error, proxied),
            detail: redact_credentials(&transport_text(error)),
        }
    }
}

/// What broke, from the error's chain of causes: the I/O error kind where there is one, else the words of
/// hyper's resolver, rustls and the proxy connectors. A refused or unresolvable connection through a proxy is
/// the proxy's (the connection is made to the proxy).
pub(crate) fn classify(error: &reqwest::Error, proxied: bool) -> TransportFailure {
    let mut texts = Vec::new();
    let mut io_kind = None;
    // reqwest's own text names the request's URL, whose words say nothing about the failure: only its causes
    // are read.
    let mut source = std::error::Error::source(error);
    while let Some(current) = source {
        if let Some(io) = current.downcast_ref::<std::io::Error>() {
            io_kind.get_or_insert(io.kind());
        }
        texts.push(current.to_string().to_ascii_lowercase());
        source = current.source();
    }
    let said = |needles: &[&str]| {
        texts
            .iter()
            .any(|text| needles.iter().any(|needle| text.contains(needle)))
    };
    let found = if said(&["socks", "tunnel", "proxy"]) {
        TransportFailure::Proxy
    } else if io_kind == Some(std::io::ErrorKind::ConnectionRefused)
        || said(&["connection refused"])
    {
        TransportFailure::Refused
    } else if said(&[
        "dns error",
        "failed to lookup address",
        "name or service not known",
        "no such host",
        "nodename nor servname",
        "name resolution",
    ]) {
        TransportFailure::Dns
    } else if said(&["certificate", "tls", "handshake", "corrupt message"]) {
        TransportFailure::Tls
    } else if matches!(
        io_kind,
        Some(
            std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::ConnectionAborted
                | std::io::ErrorKind::BrokenPipe
                | std::io::ErrorKind::UnexpectedEof
        )
    ) || said(&[
        "connection reset",
        "connection closed",
        "incomplete message",
    ]) {
        TransportFailure::Reset
    } else {
        TransportFailure::Other
    };
    match found {
        TransportFailure::Refused | TransportFailure::Dns if proxied => TransportFailure::Proxy,
        other => other,
    }
}

fn manual_proxy(url: &str) -> Result<reqwest::Proxy, ProvidersError> {
    // An unparsable URL is not echoed: there is no telling which part of it is a password.
    let parsed = reqwest::Url::parse(url.trim()).map_err(|error| {
        ProvidersError::Proxy(format!("the proxy setting is not a URL ({error})"))
    })?;
    let shown = redact_credentials(parsed.as_str());
    if !matches!(parsed.scheme(), "http" | "https" | "socks5" | "socks5h") {
        return Err(ProvidersError::Proxy(format!(
            "{shown}: use an http://, https://, socks5:// or socks5h:// proxy URL"
        )));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(ProvidersError::Proxy(format!("{shown} names no host")));
    }
    reqwest::Proxy::all(parsed).map_err(|error| {
        ProvidersError::Proxy(format!(
            "{shown}: {}",
            redact_credentials(&error.to_string())
        ))
    })
}

/// True when `url`'s host is this machine: `localhost`, a `*.localhost` name, `127.0.0.0/8`, `::1` (also
/// IPv4-mapped) or the unspecified address. Unparsable URLs are not loopback.
pub fn is_loopback_url(url: &str) -> bool {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = parsed.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let lower = host.to_ascii_lowercase();
    if lower == "localhost" || lower.ends_with(".localhost") {
        return true;
    }
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => ip.is_loopback() || ip.is_unspecified(),
        Ok(IpAddr::V6(ip)) => {
            ip.is_loopback()
                || ip.is_unspecified()
                || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        Err(_) => false,
    }
}

/// `text` with the credentials of every URL in it replaced by `***` (`http://user:secret@host` →
/// `http://***@host`).
pub fn redact_credentials(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let authority_end = tail
            .find(|c: char| c == '/' || c == '?' || c == '#' || c.is_whitespace() || c == ')')
            .unwrap_or(tail.len());
        let authority = &tail[..authority_end];
        match authority.rfind('@') {
            Some(at_sign) => {
                out.push_str("***");
                out.push_str(&authority[at_sign..]);
            }
            None => out.push_str(authority),
        }
        rest = &tail[authority_end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_recognised() {
        for url in [
            "http://localhost:11434/v1",
            "http://LOCALHOST/v1",
            "http://ollama.localhost:8080",
            "http://127.0.0.1:8080/v1",
            "http://127.1.2.3/",
            "http://[::1]:8080/v1",
            "http://[::ffff:127.0.0.1]:80/",
            "http://0.0.0.0:11434",
        ] {
            assert!(is_loopback_url(url), "{url}");
        }
        for url in [
            "https://api.openai.com/v1",
            "http://192.168.1.10:11434/v1",
            "http://localhost.example.com/",
            "http://10.0.0.1/",
            "not a url",
        ] {
            assert!(!is_loopback_url(url), "{url}");
        }
    }

    #[test]
    fn loopback_goes_direct_and_the_rest_through_the_proxy() {
        let client = HttpClient::new(&HttpClientOptions {
            proxy: ProxyChoice::Manual("http://127.0.0.1:3128".into()),
            ..HttpClientOptions::default()
        })
        .unwrap();
        assert_eq!(client.route("http://127.0.0.1:11434/v1"), Route::Direct);
        assert_eq!(client.route("https://api.openai.com/v1"), Route::Proxied);
        let direct = HttpClient::new(&HttpClientOptions {
            proxy: ProxyChoice::Direct,
            ..HttpClientOptions::default()
        })
        .unwrap();
        assert_eq!(direct.route("https://api.openai.com/v1"), Route::Direct);
        assert_eq!(direct.proxy_for("https://api.openai.com/v1"), None);
        let manual = HttpClient::new(&HttpClientOptions {
            proxy: ProxyChoice::Manual("http://me:pw@127.0.0.1:3128".into()),
            ..HttpClientOptions::default()
        })
        .unwrap();
        assert_eq!(
            manual.proxy_for("https://api.openai.com/v1").as_deref(),
            Some("http://***@127.0.0.1:3128")
        );
        assert_eq!(manual.proxy_for("http://localhost:11434/v1"), None);
    }

    #[test]
    fn a_bad_manual_proxy_is_refused_without_its_password() {
        for url in [
            "ftp://user:hunter2@proxy.example:21",
            "not a url with hunter2",
            "http://user:hunter2@",
        ] {
            let error = HttpClient::new(&HttpClientOptions {
                proxy: ProxyChoice::Manual(url.into()),
                ..HttpClientOptions::default()
            })
            .unwrap_err();
            let text = error.to_string();
            assert!(matches!(error, ProvidersError::Proxy(_)), "{url}: {text}");
            assert!(!text.contains("hunter2"), "{url}: {text}");
        }
        for url in [
            "http://proxy.example:3128",
            "https://proxy.example",
            "socks5://127.0.0.1:1080",
            "socks5h://user:pw@127.0.0.1:1080",
        ] {
            assert!(
                HttpClient::new(&HttpClientOptions {
                    proxy: ProxyChoice::Manual(url.into()),
                    ..HttpClientOptions::default()
                })
                .is_ok(),
                "{url}"
            );
        }
    }

    #[test]
    fn credentials_are_redacted_from_urls_in_text() {
        assert_eq!(
            redact_credentials("error via http://alice:s3cret@proxy.corp:3128/ (x)"),
            "error via http://***@proxy.corp:3128/ (x)"
        );
        assert_eq!(
            redact_credentials("socks5h://token@127.0.0.1:1080"),
            "socks5h://***@127.0.0.1:1080"
        );
        assert_eq!(
            redact_credentials("https://api.openai.com/v1/models?x=a@b"),
            "https://api.openai.com/v1/models?x=a@b"
        );
        assert_eq!(redact_credentials("no url here"), "no url here");
        assert_eq!(
            format!("{:?}", ProxyChoice::Manual("http://u:p@h:1".into())),
            "Manual(\"http://***@h:1\")"
        );
    }
}
