//! Model lists from real HTTP servers on loopback: each provider's address and headers, the cache and its
//! refresh, and the answers that are no list.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use pi_ai::providers::ProxyChoice;
use pi_test_support::{LoopbackServer, Request, Response};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn connection() -> ConnectionOptions {
    ConnectionOptions {
        idle_timeout: Duration::from_secs(5),
        head_timeout: Duration::from_secs(5),
        max_retries: 0,
        max_retry_delay: Duration::from_secs(1),
        proxy: ProxyChoice::Direct,
    }
}

fn target(provider: &str, api: &str, base_url: String, key: Option<&str>) -> ProviderTarget {
    ProviderTarget {
        preset: ProviderPreset::parse(provider),
        provider: provider.to_owned(),
        api: api.to_owned(),
        base_url,
        api_key: key.map(ApiKey::new),
    }
}

async fn server(script: impl Fn(&Request) -> Response + Send + Sync + 'static) -> LoopbackServer {
    LoopbackServer::start(move |request, _| script(request))
        .await
        .unwrap()
}

fn ids(view: &ModelListView) -> Vec<&str> {
    view.models.iter().map(|model| model.id.as_str()).collect()
}

#[tokio::test]
async fn an_openai_compatible_list_is_asked_with_the_key_and_described() {
    let server = server(|request| match request.path.as_str() {
        "/v1/models" => Response::json(
            200,
            &json!({"object": "list", "data": [{"id": "gpt-4o"}, {"id": "my-finetune"}]}),
        ),
        _ => Response::json(404, &json!({})),
    })
    .await;
    let target = target(
        "openai",
        "openai-responses",
        format!("{}/v1/", server.origin()),
        Some("sk-list"),
    );
    let lists = ModelLists::new(None);
    let view = lists
        .list(&target, &connection(), false, &CancellationToken::new())
        .await;
    assert_eq!(view.origin, ListOrigin::Server);
    assert_eq!(ids(&view), vec!["gpt-4o", "my-finetune"]);
    assert_eq!(view.models[0].facts, FactsSource::Table);
    assert_eq!(view.models[0].context_window, 128_000);
    assert!(view.models[0].image_input);
    assert_eq!(
        view.models[1],
        ModelEntry {
            id: "my-finetune".into(),
            name: "my-finetune".into(),
            context_window: UNKNOWN_CONTEXT_WINDOW,
            max_output_tokens: UNKNOWN_MAX_OUTPUT_TOKENS,
            image_input: false,
            pricing: None,
            facts: FactsSource::Default,
            facts_as_of: None,
        }
    );
    let request = &server.requests()[0];
    assert_eq!(request.method, "GET");
    assert_eq!(request.header("authorization"), Some("Bearer sk-list"));
}

#[tokio::test]
async fn anthropic_is_asked_at_v1_models_with_its_headers_and_every_page_is_read() {
    let server = server(|request| {
        if request.path == "/v1/models?limit=1000" {
            Response::json(
                200,
                &json!({"data": [{"id": "claude-sonnet-4-5-20250929", "display_name": "Claude Sonnet 4.5"}],
                        "has_more": true, "last_id": "claude-sonnet-4-5-20250929"}),
            )
        } else if request.path == "/v1/models?limit=1000&after_id=claude-sonnet-4-5-20250929" {
            Response::json(
                200,
                &json!({"data": [{"id": "claude-3-5-haiku-20241022", "display_name": "Claude Haiku 3.5"}],
                        "has_more": false, "last_id": "claude-3-5-haiku-20241022"}),
            )
        } else {
            Response::json(404, &json!({"type": "error"}))
        }
    })
    .await;
    let target = target(
        "anthropic",
        "anthropic-messages",
        server.origin(),
        Some("sk-ant"),
    );
    let fetched = fetch_models(
        &crate::connection::http_client(&connection()).unwrap(),
        &target,
        Duration::from_secs(5),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    let listed: Vec<&str> = fetched.models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        listed,
        vec!["claude-sonnet-4-5-20250929", "claude-3-5-haiku-20241022"]
    );
    let entry = describe_model(&fetched.models[0].id, Some(&fetched.models[0]));
    assert_eq!(entry.name, "Claude Sonnet 4.5");
    assert_eq!(entry.max_output_tokens, 64_000);
    assert_eq!(entry.pricing.map(|p| p.input), Some(3.0));
    let request = &server.requests()[0];
    assert_eq!(request.header("x-api-key"), Some("sk-ant"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("authorization"), None);
}

#[tokio::test]
async fn ollama_is_asked_for_its_tags_and_then_its_openai_list() {
    let tags = server(|request| match request.path.as_str() {
        "/api/tags" => Response::json(200, &json!({"models": [{"name": "llama3.2:latest"}]})),
        _ => Response::json(404, &json!({})),
    })
    .await;
    let view = ModelLists::new(None)
        .list(
            &target(
                "ollama",
                "openai-completions",
                format!("{}/v1", tags.origin()),
                None,
            ),
            &connection(),
            false,
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(ids(&view), vec!["llama3.2:latest"]);
    assert_eq!(view.models[0].context_window, 131_072);
    assert_eq!(view.models[0].pricing, None);
    assert_eq!(tags.requests()[0].header("authorization"), None);

    // An Ollama-like server without /api/tags still has the OpenAI-compatible list.
    let compatible = server(|request| match request.path.as_str() {
        "/v1/models" => Response::json(200, &json!({"data": [{"id": "qwen2.5:7b"}]})),
        _ => Response::complete(404, "text/plain", "404 page not found"),
    })
    .await;
    let view = ModelLists::new(None)
        .list(
            &target(
                "ollama",
                "openai-completions",
                format!("{}/v1", compatible.origin()),
                None,
            ),
            &connection(),
            false,
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(ids(&view), vec!["qwen2.5:7b"]);
    let paths: Vec<String> = compatible.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, vec!["/api/tags", "/v1/models"]);
}

#[tokio::test]
async fn a_server_without_a_list_gives_the_free_text_field_and_says_why() {
    let server = server(|_| Response::complete(404, "text/plain", "Not Found")).await;
    let view = ModelLists::new(None)
        .list(
            &target(
                "llama.cpp",
                "openai-completions",
                format!("{}/v1", server.origin()),
                None,
            ),
            &connection(),
            false,
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(view.origin, ListOrigin::None);
    assert!(view.models.is_empty());
    let problem = view.problem.unwrap();
    assert_eq!(problem.kind, ProblemKind::NoModelList);
    assert!(
        problem.message.contains("/v1/models"),
        "{}",
        problem.message
    );
    assert!(problem.message.contains("404"), "{}", problem.message);
}

#[tokio::test]
async fn the_cache_answers_until_a_refresh_and_outlives_a_failed_one() {
    let folder = tempfile::tempdir().unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let server = server({
        let calls = Arc::clone(&calls);
        move |_| match calls.fetch_add(1, Ordering::SeqCst) {
            0 => Response::json(200, &json!({"data": [{"id": "deepseek-chat"}]})),
            1 => Response::json(
                200,
                &json!({"data": [{"id": "deepseek-chat"}, {"id": "deepseek-reasoner"}]}),
            ),
            _ => Response::json(503, &json!({"error": {"message": "maintenance"}})),
        }
    })
    .await;
    let target = target(
        "deepseek",
        "openai-completions",
        server.origin(),
        Some("sk-ds"),
    );
    let cancel = CancellationToken::new();
    let lists = ModelLists::new(Some(folder.path()));
    let first = lists.list(&target, &connection(), false, &cancel).await;
    assert_eq!(
        (first.origin, ids(&first)),
        (ListOrigin::Server, vec!["deepseek-chat"])
    );

    // A second picker (a restart) reads the file: no request.
    let restarted = ModelLists::new(Some(folder.path()));
    let cached = restarted.list(&target, &connection(), false, &cancel).await;
    assert_eq!(
        (cached.origin, ids(&cached)),
        (ListOrigin::Cache, vec!["deepseek-chat"])
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let file = std::fs::read_to_string(folder.path().join(MODEL_LISTS_FILE_NAME)).unwrap();
    assert!(!file.contains("sk-ds"), "{file}");

    let refreshed = restarted.list(&target, &connection(), true, &cancel).await;
    assert_eq!(
        (refreshed.origin, ids(&refreshed)),
        (
            ListOrigin::Server,
            vec!["deepseek-chat", "deepseek-reasoner"]
        )
    );

    let failed = restarted.list(&target, &connection(), true, &cancel).await;
    assert_eq!(failed.origin, ListOrigin::Cache);
    assert_eq!(ids(&failed), vec!["deepseek-chat", "deepseek-reasoner"]);
    let problem = failed.problem.unwrap();
    assert_eq!(problem.kind, ProblemKind::ServerError);
    assert!(
        problem.message.contains("maintenance"),
        "{}",
        problem.message
    );

    // Another key is another account: its list is not the cached one.
    let other = ProviderTarget {
        api_key: Some(ApiKey::new("sk-other")),
        ..target.clone()
    };
    let other_view = restarted.list(&other, &connection(), false, &cancel).await;
    assert_eq!(other_view.origin, ListOrigin::None);
}

#[tokio::test]
async fn a_refused_key_is_named_and_the_key_never_appears() {
    let server = server(|_| {
        Response::json(
            401,
            &json!({"error": {"message": "Incorrect API key provided: sk-secret-123.", "type": "invalid_request_error"}}),
        )
    })
    .await;
    let view = ModelLists::new(None)
        .list(
            &target(
                "openai",
                "openai-responses",
                format!("{}/v1", server.origin()),
                Some("sk-secret-123"),
            ),
            &connection(),
            false,
            &CancellationToken::new(),
        )
        .await;
    let problem = view.problem.unwrap();
    assert_eq!(problem.kind, ProblemKind::Unauthorized);
    assert!(problem.message.contains("401"), "{}", problem.message);
    assert!(
        !problem.message.contains("sk-secret-123"),
        "{}",
        problem.message
    );
}
