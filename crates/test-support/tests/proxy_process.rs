//! The app's real requests (pi-ai's client and its `openai-completions` adapter) through `pi-test-proxy` running
//! as a process of its own: HTTP forwarding, SOCKS5 and `CONNECT` reach a loopback model server under a `.test`
//! name that resolves nowhere but in the proxy, and a loopback base URL never goes through the proxy.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail loudly"
)]

use std::process::Stdio;
use std::time::Duration;

use pi_ai::providers::{
    FetchError, HttpClient, HttpClientOptions, OpenAiCompletions, ProxyChoice, TransportFailure,
};
use pi_ai::{
    Api, ApiProvider, CancellationToken, Context, InputModality, Model, ModelCost,
    SimpleStreamOptions, StopReason, UserMessage,
};
use pi_test_support::openai::{MODEL, OpenAiServer, Reply, text_chunks};
use pi_test_support::{LoopbackServer, Response};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};

/// `pi-test-proxy` as a child process; it exits when dropped (its stdin closes, and it is killed).
struct ProxyProcess {
    _child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    address: String,
}

impl ProxyProcess {
    async fn start() -> ProxyProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pi-test-proxy"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first = next_line(&mut lines).await;
        let address = first["listening"].as_str().unwrap().to_owned();
        ProxyProcess {
            _child: child,
            lines,
            address,
        }
    }

    fn http_url(&self) -> String {
        format!("http://{}", self.address)
    }

    fn socks5h_url(&self) -> String {
        format!("socks5h://{}", self.address)
    }

    /// The next connection the proxy reports making.
    async fn next_proxied(&mut self) -> Value {
        next_line(&mut self.lines).await
    }
}

async fn next_line(lines: &mut Lines<BufReader<ChildStdout>>) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await
        .expect("the proxy reports within 20 s")
        .unwrap()
        .expect("the proxy is still running");
    serde_json::from_str(&line).unwrap()
}

fn client(proxy: ProxyChoice) -> HttpClient {
    HttpClient::new(&HttpClientOptions {
        proxy,
        ..HttpClientOptions::default()
    })
    .unwrap()
}

fn model(base_url: String) -> Model {
    Model {
        id: MODEL.into(),
        name: MODEL.into(),
        api: Api::new("openai-completions"),
        provider: "llama.cpp".into(),
        base_url,
        reasoning: false,
        thinking_level_map: None,
        input: vec![InputModality::Text],
        cost: ModelCost::default(),
        context_window: 128_000,
        max_tokens: 1_000,
        sampling_params: None,
        headers: None,
        compat: None,
    }
}

/// The text of one answer from `base_url` through `client`.
async fn answer(client: &HttpClient, base_url: String) -> String {
    let mut options = SimpleStreamOptions::default();
    options.base.api_key = Some("sk-loopback".into());
    let context = Context {
        system_prompt: None,
        messages: vec![UserMessage::new("Hello").into()],
        tools: None,
    };
    let message = OpenAiCompletions::new(client.clone())
        .stream_simple(model(base_url), context, options)
        .finish()
        .await
        .unwrap();
    assert_eq!(
        message.stop_reason,
        StopReason::Stop,
        "{:?}",
        message.error_message
    );
    message.text()
}

/// The port of a loopback origin `http://127.0.0.1:<port>`.
fn port_of(origin: &str) -> u16 {
    origin
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/v1")
        .parse()
        .unwrap()
}

#[tokio::test]
async fn a_chat_answer_from_a_remote_name_arrives_through_the_http_proxy_process() {
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&["Hello ", "via proxy"]))])
        .await
        .unwrap();
    let port = port_of(server.base_url());
    let mut proxy = ProxyProcess::start().await;
    let client = client(ProxyChoice::Manual(proxy.http_url()));
    let text = answer(&client, format!("http://models.example.test:{port}/v1")).await;
    assert_eq!(text, "Hello via proxy");
    assert_eq!(
        proxy.next_proxied().await,
        json!({"protocol": "forward", "target": format!("models.example.test:{port}")})
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer sk-loopback")
    );
}

#[tokio::test]
async fn a_chat_answer_arrives_through_the_socks5_proxy_process_which_resolves_the_name() {
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&["over ", "SOCKS"]))])
        .await
        .unwrap();
    let port = port_of(server.base_url());
    let mut proxy = ProxyProcess::start().await;
    let client = client(ProxyChoice::Manual(proxy.socks5h_url()));
    let text = answer(&client, format!("http://models.example.test:{port}/v1")).await;
    assert_eq!(text, "over SOCKS");
    assert_eq!(
        proxy.next_proxied().await,
        json!({"protocol": "socks5", "target": format!("models.example.test:{port}")})
    );
}

#[tokio::test]
async fn a_loopback_base_url_never_goes_through_the_proxy() {
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&["answered"]))])
        .await
        .unwrap();
    let port = port_of(server.base_url());
    let mut proxy = ProxyProcess::start().await;
    for proxy_url in [proxy.http_url(), proxy.socks5h_url()] {
        let client = client(ProxyChoice::Manual(proxy_url));
        for host in ["127.0.0.1", "localhost"] {
            assert_eq!(
                answer(&client, format!("http://{host}:{port}/v1")).await,
                "answered"
            );
        }
    }
    // The proxy reports every connection before making it, so the first it reports is the one after the loopback
    // answers: none of those four went through it.
    let client = client(ProxyChoice::Manual(proxy.http_url()));
    answer(&client, format!("http://models.example.test:{port}/v1")).await;
    assert_eq!(
        proxy.next_proxied().await,
        json!({"protocol": "forward", "target": format!("models.example.test:{port}")})
    );
    assert_eq!(server.requests().len(), 5);
}

#[tokio::test]
async fn without_the_proxy_the_test_name_does_not_resolve() {
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&["x"]))])
        .await
        .unwrap();
    let port = port_of(server.base_url());
    let error = client(ProxyChoice::Direct)
        .get_json(
            &format!("http://models.example.test:{port}/v1/models"),
            &[],
            Duration::from_secs(10),
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            FetchError::Transport {
                kind: TransportFailure::Dns,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_model_list_comes_through_the_proxy_and_https_goes_through_connect() {
    let server = LoopbackServer::start(|request, _| {
        if request.path == "/v1/models" {
            Response::json(200, &json!({"object": "list", "data": [{"id": "m-1"}]}))
        } else {
            Response::json(404, &json!({}))
        }
    })
    .await
    .unwrap();
    let port = port_of(&server.origin());
    let mut proxy = ProxyProcess::start().await;
    let client = client(ProxyChoice::Manual(proxy.http_url()));
    let cancel = CancellationToken::new();
    let list = client
        .get_json(
            &format!("http://models.example.test:{port}/v1/models"),
            &[("authorization".into(), "Bearer k".into())],
            Duration::from_secs(10),
            &cancel,
        )
        .await
        .unwrap();
    assert_eq!(list["data"][0]["id"], "m-1");
    assert_eq!(proxy.next_proxied().await["protocol"], "forward");
    // An https:// address is tunnelled with CONNECT; a plain HTTP server answers the TLS handshake inside the
    // tunnel with an HTTP error, so the handshake fails, and says so.
    let plain = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let plain_port = plain.local_addr().unwrap().port();
    let plain_server = tokio::spawn(async move {
        let (mut socket, _) = plain.accept().await.unwrap();
        let mut hello = [0u8; 512];
        let _ = socket.read(&mut hello).await;
        socket
            .write_all(
                b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
            )
            .await
            .unwrap();
    });
    let port = plain_port;
    let error = client
        .get_json(
            &format!("https://models.example.test:{port}/v1/models"),
            &[],
            Duration::from_secs(10),
            &cancel,
        )
        .await
        .unwrap_err();
    assert_eq!(
        proxy.next_proxied().await,
        json!({"protocol": "connect", "target": format!("models.example.test:{port}")})
    );
    assert!(
        matches!(
            error,
            FetchError::Transport {
                kind: TransportFailure::Tls,
                ..
            }
        ),
        "{error:?}"
    );
    plain_server.await.unwrap();
}

#[tokio::test]
async fn a_proxy_that_is_not_there_is_named_as_the_failure() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let error = client(ProxyChoice::Manual(dead))
        .get_json(
            "http://models.example.test:9/v1/models",
            &[],
            Duration::from_secs(10),
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            FetchError::Transport {
                kind: TransportFailure::Proxy,
                ..
            }
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_chat_through_a_proxy_that_is_not_there_says_so() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let mut options = SimpleStreamOptions::default();
    options.base.api_key = Some("sk-loopback".into());
    let message = OpenAiCompletions::new(client(ProxyChoice::Manual(dead.clone())))
        .stream_simple(
            model("http://models.example.test:9/v1".into()),
            Context::default(),
            options,
        )
        .finish()
        .await
        .unwrap();
    assert_eq!(message.stop_reason, StopReason::Error);
    let error = message.error_message.unwrap_or_default();
    assert!(
        error.contains(&format!("through the proxy {dead}")),
        "{error}"
    );
    assert!(!error.contains("sk-loopback"), "{error}");
}
