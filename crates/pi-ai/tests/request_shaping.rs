//! Request shaping shared by the adapters (spec 4.4, 4.8) and the registry's setup contract (spec 4.2, 4.3).

#![allow(clippy::unwrap_used, reason = "test code")]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use pi_ai::scripted::{ScriptedProvider, text_message};
use pi_ai::{
    Api, ApiProvider, AssistantMessageEventStream, Context, CostTier, Model, ModelCost,
    ModelThinkingLevel, Models, Provider, ProviderAuth, SimpleStreamOptions, StopReason,
    StreamOptions, ThinkingBudgets, ThinkingLevel, Usage, UserMessage, calculate_cost,
    clamp_max_tokens, clamp_thinking_level, thinking_max_tokens,
};

fn model() -> Model {
    let mut model = Model::unknown();
    model.id = "m".into();
    model.provider = "p".into();
    model.api = Api::OPENAI_COMPLETIONS;
    model.context_window = 200_000;
    model.max_tokens = 32_000;
    model
}

fn reasoning_model(map: &[(ModelThinkingLevel, Option<&str>)]) -> Model {
    let mut model = model();
    model.reasoning = true;
    model.thinking_level_map = Some(
        map.iter()
            .map(|(level, value)| (*level, value.map(str::to_owned)))
            .collect(),
    );
    model
}

#[test]
fn thinking_levels_clamp_up_then_down_and_xhigh_needs_an_explicit_mapping() {
    let plain = model();
    assert_eq!(
        clamp_thinking_level(&plain, ThinkingLevel::High),
        ModelThinkingLevel::Off
    );
    let reasoning = reasoning_model(&[]);
    assert_eq!(
        clamp_thinking_level(&reasoning, ThinkingLevel::Medium),
        ModelThinkingLevel::Medium
    );
    assert_eq!(
        clamp_thinking_level(&reasoning, ThinkingLevel::Xhigh),
        ModelThinkingLevel::High
    );
    let no_minimal = reasoning_model(&[(ModelThinkingLevel::Minimal, None)]);
    assert_eq!(
        clamp_thinking_level(&no_minimal, ThinkingLevel::Minimal),
        ModelThinkingLevel::Low
    );
    let with_max = reasoning_model(&[(ModelThinkingLevel::Max, Some("max"))]);
    assert_eq!(
        clamp_thinking_level(&with_max, ThinkingLevel::Xhigh),
        ModelThinkingLevel::Max
    );
    let only_low = reasoning_model(&[
        (ModelThinkingLevel::Medium, None),
        (ModelThinkingLevel::High, None),
        (ModelThinkingLevel::Minimal, None),
    ]);
    assert_eq!(
        clamp_thinking_level(&only_low, ThinkingLevel::High),
        ModelThinkingLevel::Low
    );
}

#[test]
fn max_tokens_are_clamped_to_the_room_left_in_the_context_window() {
    let mut small = model();
    small.context_window = 10_000;
    let context = Context {
        messages: vec![UserMessage::new("x".repeat(8_000)).into()],
        ..Context::default()
    };
    // 10,000 − 2,000 estimated − 4,096 margin.
    assert_eq!(clamp_max_tokens(&small, &context, 32_000), 3_904);
    assert_eq!(clamp_max_tokens(&small, &context, 1_000), 1_000);
    small.context_window = 1_000;
    assert_eq!(clamp_max_tokens(&small, &context, 32_000), 1);
    small.context_window = 0;
    assert_eq!(clamp_max_tokens(&small, &context, 0), 1);
}

#[test]
fn thinking_budgets_follow_pi() {
    let model = model();
    assert_eq!(
        thinking_max_tokens(&model, None, ThinkingLevel::Medium, None),
        (32_000, 8_192)
    );
    assert_eq!(
        thinking_max_tokens(&model, Some(4_000), ThinkingLevel::Low, None),
        (6_048, 2_048)
    );
    assert_eq!(
        thinking_max_tokens(&model, Some(30_000), ThinkingLevel::Xhigh, None),
        (32_000, 16_384)
    );
    let budgets = ThinkingBudgets {
        high: Some(40_000),
        ..ThinkingBudgets::default()
    };
    assert_eq!(
        thinking_max_tokens(&model, None, ThinkingLevel::High, Some(&budgets)),
        (32_000, 30_976)
    );
}

#[test]
fn cost_uses_the_highest_exceeded_tier_and_prices_1h_cache_writes_at_twice_input() {
    let mut model = model();
    model.cost = ModelCost {
        input: 3.0,
        output: 15.0,
        cache_read: 0.3,
        cache_write: 3.75,
        tiers: Some(vec![
            CostTier {
                input_tokens_above: 200_000,
                input: 6.0,
                output: 22.5,
                cache_read: 0.6,
                cache_write: 7.5,
            },
            CostTier {
                input_tokens_above: 100,
                input: 4.0,
                output: 20.0,
                cache_read: 0.4,
                cache_write: 5.0,
            },
        ]),
    };
    let mut usage = Usage {
        input: 1_000,
        output: 500,
        ..Usage::default()
    };
    let cost = calculate_cost(&model, &mut usage);
    assert_eq!(cost.input, 4.0 / 1e6 * 1_000.0);
    assert_eq!(cost.output, 20.0 / 1e6 * 500.0);
    assert_eq!(usage.cost, cost);
    let mut small = Usage {
        input: 50,
        cache_write: 40,
        cache_write_1h: Some(10),
        ..Usage::default()
    };
    let cost = calculate_cost(&model, &mut small);
    assert_eq!(cost.cache_write, (3.75 * 30.0 + 2.0 * 3.0 * 10.0) / 1e6);
    assert_eq!(
        cost.total,
        cost.input + cost.output + cost.cache_read + cost.cache_write
    );
    assert_eq!(
        serde_json::to_value(Usage::default().cost).unwrap()["total"],
        serde_json::json!(0)
    );
}

/// Records the options an API implementation receives.
struct Recorder {
    seen: Mutex<Vec<(Model, SimpleStreamOptions)>>,
}

impl ApiProvider for Recorder {
    fn api(&self) -> Api {
        Api::OPENAI_COMPLETIONS
    }

    fn stream_simple(
        &self,
        model: Model,
        _: Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        self.seen.lock().unwrap().push((model.clone(), options));
        ScriptedProvider::new([text_message("ok")]).stream_simple(
            model,
            Context::default(),
            SimpleStreamOptions::default(),
        )
    }
}

#[tokio::test]
async fn the_registry_completes_options_before_dispatch() {
    let recorder = Arc::new(Recorder {
        seen: Mutex::new(Vec::new()),
    });
    let mut provider = Provider::new("p")
        .with_api(recorder.clone())
        .with_auth(ProviderAuth::ApiKey {
            key: None,
            env_vars: vec!["PI_AI_TEST_UNSET_KEY".into()],
        })
        .with_models([model()]);
    provider.base_url = Some("http://localhost:9/v1".into());
    provider.headers = BTreeMap::from([
        ("X-Default".into(), "1".into()),
        ("X-Drop".into(), "1".into()),
    ]);
    let models = Models::new();
    models.set_provider(provider);

    let headers = BTreeMap::from([
        ("x-default".to_owned(), Some("2".to_owned())),
        ("x-drop".to_owned(), None),
    ]);
    let env = BTreeMap::from([("PI_AI_TEST_UNSET_KEY".to_owned(), "from-env".to_owned())]);
    let options = SimpleStreamOptions::from(StreamOptions {
        headers: Some(headers),
        env: Some(env),
        ..StreamOptions::default()
    });
    let message = models
        .complete_simple(&model(), Context::default(), options)
        .await;
    assert_eq!(message.stop_reason, StopReason::Stop);
    let seen = recorder.seen.lock().unwrap();
    let (request_model, request_options) = &seen[0];
    assert_eq!(request_model.base_url, "http://localhost:9/v1");
    assert_eq!(request_options.base.api_key.as_deref(), Some("from-env"));
    assert_eq!(
        request_options.base.headers,
        Some(BTreeMap::from([
            ("x-default".to_owned(), Some("2".to_owned())),
            ("x-drop".to_owned(), None)
        ]))
    );
}

#[tokio::test]
async fn setup_failures_are_single_error_events() {
    let models = Models::new();
    models.set_provider(
        Provider::new("p")
            .with_auth(ProviderAuth::ApiKey {
                key: None,
                env_vars: vec!["PI_AI_TEST_UNSET_KEY".into()],
            })
            .with_models([model()]),
    );
    let mut stream =
        models.stream_simple(&model(), Context::default(), SimpleStreamOptions::default());
    let event = stream.next().await.unwrap();
    assert_eq!(event.event_type(), "error");
    assert!(stream.next().await.is_none());
    let message = stream.result().await.unwrap();
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some(
            "Provider is not configured: p (set PI_AI_TEST_UNSET_KEY or add an API key for it in settings)"
        )
    );

    let keyed = SimpleStreamOptions::from(StreamOptions {
        api_key: Some("k".into()),
        ..StreamOptions::default()
    });
    let message = models
        .complete_simple(&model(), Context::default(), keyed)
        .await;
    assert_eq!(
        message.error_message.as_deref(),
        Some("Provider p has no API implementation for \"openai-completions\"")
    );
}

/// An adapter that panics before returning its stream.
struct Panicking;

impl ApiProvider for Panicking {
    fn api(&self) -> Api {
        Api::OPENAI_COMPLETIONS
    }

    fn stream_simple(
        &self,
        _: Model,
        _: Context,
        _: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        panic!("bad adapter state")
    }
}

#[tokio::test]
async fn an_adapter_panicking_at_setup_becomes_an_error_event() {
    let models = Models::new();
    models.set_provider(
        Provider::new("p")
            .with_api(Arc::new(Panicking))
            .with_models([model()]),
    );
    let message = models
        .complete_simple(&model(), Context::default(), SimpleStreamOptions::default())
        .await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("Provider p failed to start the request: bad adapter state")
    );
}
