//! The real adapters behind a `Models` registry: how the app wires providers.

use futures_util::StreamExt;
use pi_ai::{Context, Message, Models, SimpleStreamOptions, StopReason, UserMessage};
use serde_json::json;

use crate::support::fixture_run::build_model;
use crate::support::replay_server;
use crate::support::scripts::{Ending, Wire};

#[tokio::test]
async fn models_streams_through_an_openai_compatible_local_server() {
    let wire = Wire::Completions;
    let server = replay_server::start(vec![
        wire.ok(wire.answer(&[], &["Hi ", "there"], &[], Ending::Stop), 16),
    ])
    .await
    .unwrap();
    let client = pi_ai::providers::http_client().unwrap();
    let mut model = build_model(
        wire.api(),
        Some(&json!({"id": "llama3.2"})),
        "http://unused.invalid",
    )
    .unwrap();
    model.provider = "ollama".into();
    let models = Models::new();
    models.set_provider(pi_ai::providers::openai_compatible(
        &client,
        "ollama",
        Some(format!("{}/v1", server.origin())),
        None,
        vec![model],
    ));
    let model = models.model("ollama", "llama3.2").unwrap();
    let context = Context {
        system_prompt: None,
        messages: vec![Message::User(UserMessage::new("Hi"))],
        tools: None,
    };
    let events: Vec<_> = models
        .stream_simple(&model, context, SimpleStreamOptions::default())
        .collect()
        .await;
    let message = events
        .last()
        .and_then(pi_ai::AssistantMessageEvent::final_message)
        .unwrap();
    assert_eq!(
        message.stop_reason,
        StopReason::Stop,
        "{:?}",
        message.error_message
    );
    assert_eq!(message.text(), "Hi there");
    assert_eq!(&*message.provider, "ollama");
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.body["model"], "llama3.2");
}

#[tokio::test]
async fn models_reports_a_missing_anthropic_key_in_the_stream() {
    let client = pi_ai::providers::http_client().unwrap();
    let model = build_model("anthropic-messages", None, "http://127.0.0.1:9").unwrap();
    let models = Models::new();
    let mut provider = pi_ai::providers::anthropic(&client, None, vec![model.clone()]);
    provider.auth = pi_ai::ProviderAuth::ApiKey {
        key: None,
        env_vars: vec!["PI_TEST_UNSET_ANTHROPIC_KEY".into()],
    };
    models.set_provider(provider);
    let events: Vec<_> = models
        .stream_simple(&model, Context::default(), SimpleStreamOptions::default())
        .collect()
        .await;
    assert_eq!(events.len(), 1);
    let message = events[0].final_message().unwrap();
    assert_eq!(message.stop_reason, StopReason::Error);
    assert!(
        message
            .error_message
            .as_deref()
            .unwrap_or_default()
            .contains("anthropic")
    );
}
