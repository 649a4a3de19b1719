//! "Test connection" against real servers on loopback: each failure the user can meet, said as what it is, and
//! the list that arrives.

use std::time::Duration;

use pi_ai::providers::ProxyChoice;
use pi_test_support::{LoopbackServer, Request, Response, TestProxy};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::settings::NoKeySource;

fn connection(proxy: ProxyChoice) -> ConnectionOptions {
    ConnectionOptions {
        idle_timeout: Duration::from_secs(5),
        head_timeout: Duration::from_secs(5),
        max_retries: 0,
        max_retry_delay: Duration::from_secs(1),
        proxy,
    }
}

fn target_for(preset: &str, base_url: &str, key: &str) -> ProviderTarget {
    target_from_input(
        &ConnectionTestInput {
            preset: preset.to_owned(),
            base_url: base_url.to_owned(),
            api_key: key.to_owned(),
            ..ConnectionTestInput::default()
        },
        &HashMap::new(),
        &NoKeySource,
    )
    .unwrap()
}

async fn report_for(target: &ProviderTarget, proxy: ProxyChoice) -> ConnectionReport {
    test_connection(
        target,
        &connection(proxy),
        &ModelLists::new(None),
        &CancellationToken::new(),
    )
    .await
}

async fn answering(
    script: impl Fn(&Request) -> Response + Send + Sync + 'static,
) -> LoopbackServer {
    LoopbackServer::start(move |request, _| script(request))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_reachable_server_lists_its_models_and_the_picker_gets_them_from_the_cache() {
    let server = answering(|request| match request.path.as_str() {
        "/v1/models" => Response::json(200, &json!({"data": [{"id": "qwen2.5-7b.gguf"}]})),
        _ => Response::json(404, &json!({})),
    })
    .await;
    let target = target_for("llamacpp", &format!("{}/v1", server.origin()), "");
    let lists = ModelLists::new(None);
    let report = test_connection(
        &target,
        &connection(ProxyChoice::System),
        &lists,
        &CancellationToken::new(),
    )
    .await;
    assert!(report.ok, "{report:?}");
    assert_eq!(report.problem, None);
    assert_eq!(report.route, ConnectionRoute::Direct);
    assert_eq!(report.proxy, None);
    assert_eq!(report.url, format!("{}/v1/models", server.origin()));
    assert_eq!(report.models.len(), 1);
    let view = lists
        .list(
            &target,
            &connection(ProxyChoice::System),
            false,
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(view.origin, crate::model_list::ListOrigin::Cache);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn no_list_on_the_models_path_is_reachable_and_asks_for_the_id() {
    let server = answering(|_| Response::complete(404, "text/plain", "File Not Found")).await;
    let report = report_for(
        &target_for("llamacpp", &format!("{}/v1", server.origin()), ""),
        ProxyChoice::Direct,
    )
    .await;
    assert!(report.ok);
    let problem = report.problem.unwrap();
    assert_eq!(problem.kind, ProblemKind::NoModelList);
    assert!(
        problem.message.contains("type the model id"),
        "{}",
        problem.message
    );
}

#[tokio::test]
async fn nothing_listening_is_connection_refused() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let report = report_for(
        &target_for("ollama", &format!("{origin}/v1"), ""),
        ProxyChoice::System,
    )
    .await;
    assert!(!report.ok);
    let problem = report.problem.unwrap();
    assert_eq!(problem.kind, ProblemKind::Refused, "{}", problem.message);
    assert!(
        problem.message.contains("ollama serve"),
        "{}",
        problem.message
    );
}

#[tokio::test]
async fn a_name_that_does_not_resolve_is_a_dns_failure() {
    let report = report_for(
        &target_for("llamacpp", "http://no-such-host.invalid:8080/v1", ""),
        ProxyChoice::Direct,
    )
    .await;
    let problem = report.problem.unwrap();
    assert_eq!(problem.kind, ProblemKind::Dns, "{}", problem.message);
    assert!(
        problem.message.contains("no-such-host.invalid"),
        "{}",
        problem.message
    );
}

#[tokio::test]
async fn https_to_a_plain_http_server_is_a_tls_failure() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let plain = tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut hello = [0u8; 512];
        let _ = socket.read(&mut hello).await;
        let _ = socket
            .write_all(
                b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            )
            .await;
    });
    let report = report_for(
        &target_for("llamacpp", &format!("https://127.0.0.1:{port}/v1"), ""),
        ProxyChoice::Direct,
    )
    .await;
    let problem = report.problem.unwrap();
    assert_eq!(problem.kind, ProblemKind::Tls, "{}", problem.message);
    assert!(problem.message.contains("http://"), "{}", problem.message);
    plain.await.unwrap();
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let mut short = connection(ProxyChoice::Direct);
    short.head_timeout = Duration::from_millis(200);
    let report = test_connection(
        &target_for("llamacpp", &format!("{origin}/v1"), ""),
        &short,
        &ModelLists::new(None),
        &CancellationToken::new(),
    )
    .await;
    let problem = report.problem.unwrap();
    assert_eq!(problem.kind, ProblemKind::Timeout, "{}", problem.message);
    held.abort();
}

#[tokio::test]
async fn a_refused_or_limited_key_is_said_so_without_the_key() {
    for (status, kind) in [
        (401, ProblemKind::Unauthorized),
        (403, ProblemKind::Forbidden),
        (429, ProblemKind::RateLimited),
        (502, ProblemKind::ServerError),
    ] {
        let server = answering(move |_| {
            Response::json(
                status,
                &json!({"error": {"message": "key sk-typed-key-1 says no"}}),
            )
        })
        .await;
        let report = report_for(
            &target_for("deepseek", &server.origin(), "sk-typed-key-1"),
            ProxyChoice::Direct,
        )
        .await;
        assert!(!report.ok);
        let problem = report.problem.unwrap();
        assert_eq!(problem.kind, kind, "{}", problem.message);
        assert!(
            problem.message.contains(&status.to_string()),
            "{}",
            problem.message
        );
        assert!(
            !problem.message.contains("sk-typed-key-1"),
            "{}",
            problem.message
        );
        assert_eq!(
            server.requests()[0].header("authorization"),
            Some("Bearer sk-typed-key-1")
        );
    }
}

#[tokio::test]
async fn a_remote_name_goes_through_the_manual_proxy_and_a_dead_proxy_is_named() {
    let server = answering(|request| match request.path.as_str() {
        "/v1/models" => Response::json(200, &json!({"data": [{"id": "gpt-4o"}]})),
        _ => Response::json(404, &json!({})),
    })
    .await;
    let port = server.origin().rsplit(':').next().unwrap().to_owned();
    let proxy = TestProxy::start().await.unwrap();
    let target = target_for(
        "openai",
        &format!("http://api.example.test:{port}/v1"),
        "sk-p",
    );
    let report = report_for(&target, ProxyChoice::Manual(proxy.socks5h_url())).await;
    assert!(report.ok, "{report:?}");
    assert_eq!(report.route, ConnectionRoute::ManualProxy);
    assert_eq!(report.proxy, Some(proxy.socks5h_url()));
    assert_eq!(
        proxy.proxied()[0].target,
        format!("api.example.test:{port}")
    );

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let report = report_for(&target, ProxyChoice::Manual(dead)).await;
    let problem = report.problem.unwrap();
    assert_eq!(problem.kind, ProblemKind::Proxy, "{}", problem.message);
}

#[test]
fn the_form_falls_back_to_the_preset_and_the_stored_or_environment_key() {
    struct OneKey;
    impl ApiKeySource for OneKey {
        fn api_key(&self, provider: &str) -> Result<Option<ApiKey>, String> {
            Ok((provider == "anthropic").then(|| ApiKey::new("sk-stored")))
        }
    }
    let input = |preset: &str, key: &str| ConnectionTestInput {
        preset: preset.to_owned(),
        api_key: key.to_owned(),
        ..ConnectionTestInput::default()
    };
    let stored = target_from_input(&input("anthropic", ""), &HashMap::new(), &OneKey).unwrap();
    assert_eq!(stored.base_url, "https://api.anthropic.com");
    assert_eq!(stored.api, "anthropic-messages");
    assert_eq!(stored.api_key, Some(ApiKey::new("sk-stored")));
    let typed =
        target_from_input(&input("anthropic", " sk-typed "), &HashMap::new(), &OneKey).unwrap();
    assert_eq!(typed.api_key, Some(ApiKey::new("sk-typed")));
    let env = HashMap::from([("OPENAI_API_KEY".to_owned(), "sk-env".to_owned())]);
    let from_env = target_from_input(&input("openai", ""), &env, &OneKey).unwrap();
    assert_eq!(from_env.api_key, Some(ApiKey::new("sk-env")));
    assert_eq!(from_env.provider, "openai");

    for (input, needle) in [
        (input("nope", ""), "Unknown provider preset"),
        (ConnectionTestInput::default(), "Choose a provider"),
        (
            ConnectionTestInput {
                api: "scripted".into(),
                ..ConnectionTestInput::default()
            },
            "offline",
        ),
        (
            ConnectionTestInput {
                api: "openai-completions".into(),
                ..ConnectionTestInput::default()
            },
            "server address",
        ),
    ] {
        let error = target_from_input(&input, &HashMap::new(), &NoKeySource).unwrap_err();
        assert!(error.contains(needle), "{error}");
    }
}
