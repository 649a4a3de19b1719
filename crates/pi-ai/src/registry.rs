//! [`Models`]: the provider collection and the unified `stream_simple` entry point (spec 4.2, 4.3).

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, PoisonError, RwLock};

use crate::context::Context;
use crate::event_stream::AssistantMessageEventStream;
use crate::message::{AssistantMessage, StopReason};
use crate::model::Model;
use crate::options::SimpleStreamOptions;
use crate::provider::{Provider, ProviderAuth};

/// A mutable collection of [`Provider`]s keyed by id, and the dispatcher for requests.
///
/// Cheap to share (`Arc<Models>`): every method takes `&self` and locks only briefly.
#[derive(Debug, Default)]
pub struct Models {
    providers: RwLock<BTreeMap<String, Arc<Provider>>>,
}

impl Models {
    /// An empty collection.
    pub fn new() -> Self {
        Self::default()
    }

    /// Inserts or replaces the provider with the same id.
    pub fn set_provider(&self, provider: Provider) {
        let mut providers = self
            .providers
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        providers.insert(provider.id.clone(), Arc::new(provider));
    }

    /// Removes a provider; returns whether it existed.
    pub fn delete_provider(&self, id: &str) -> bool {
        self.providers
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id)
            .is_some()
    }

    /// Removes every provider.
    pub fn clear_providers(&self) {
        self.providers
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// Every provider, by id.
    pub fn providers(&self) -> Vec<Arc<Provider>> {
        self.providers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }

    /// The provider with this id.
    pub fn provider(&self, id: &str) -> Option<Arc<Provider>> {
        self.providers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    /// Every model of one provider (or of all providers when `provider` is `None`).
    pub fn models(&self, provider: Option<&str>) -> Vec<Model> {
        let providers = self
            .providers
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        providers
            .values()
            .filter(|candidate| provider.is_none_or(|id| candidate.id == id))
            .flat_map(|candidate| candidate.models.iter().cloned())
            .collect()
    }

    /// The model `id` of `provider`.
    pub fn model(&self, provider: &str, id: &str) -> Option<Model> {
        self.provider(provider)
            .and_then(|found| found.model(id).cloned())
    }

    /// Streams one response (pi's `Models.streamSimple`).
    ///
    /// Returns at once. Failures before the provider runs become a stream whose only event is `error`:
    /// unknown provider ("Unknown provider: {id}"), missing credentials ("Provider is not configured: {id}", with a
    /// hint naming the environment variables), no implementation for `model.api`, an adapter that panics while
    /// starting the request. Otherwise the request options
    /// are completed (API key, merged headers, env, base URL) and the provider's stream is returned.
    pub fn stream_simple(
        &self,
        model: &Model,
        context: Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        let fail = |options: &SimpleStreamOptions, text: String| {
            AssistantMessageEventStream::from_error(setup_failure(model, options, text))
        };
        let Some(provider) = self.provider(&model.provider) else {
            return fail(&options, format!("Unknown provider: {}", model.provider));
        };
        let mut options = options;
        match resolve_api_key(&provider, &options) {
            Ok(key) => {
                if options.base.api_key.is_none() {
                    options.base.api_key = key;
                }
            }
            Err(text) => return fail(&options, text),
        }
        let mut request_model = model.clone();
        if let Some(base_url) = &provider.base_url {
            request_model.base_url.clone_from(base_url);
        }
        options.base.headers = Some(merge_headers(&provider, model, options.base.headers.take()));
        let Some(api) = provider.apis.get(&model.api) else {
            return fail(
                &options,
                format!(
                    "Provider {} has no API implementation for \"{}\"",
                    provider.id, model.api
                ),
            );
        };
        // An adapter that panics while setting up is a setup failure like any other: it ends the stream.
        let signal_options = options.clone();
        let api = Arc::clone(api);
        match std::panic::catch_unwind(AssertUnwindSafe(move || {
            api.stream_simple(request_model, context, options)
        })) {
            Ok(stream) => stream,
            Err(panic) => {
                let detail = panic
                    .downcast_ref::<&str>()
                    .map(|text| (*text).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_owned());
                fail(
                    &signal_options,
                    format!(
                        "Provider {} failed to start the request: {detail}",
                        provider.id
                    ),
                )
            }
        }
    }

    /// [`Models::stream_simple`] then the final message. A stream that ended without a result yields a failure
    /// message ("Stream ended without a terminal event").
    pub async fn complete_simple(
        &self,
        model: &Model,
        context: Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessage {
        let aborted = options.clone();
        match self.stream_simple(model, context, options).finish().await {
            Ok(message) => message,
            Err(_) => setup_failure(
                model,
                &aborted,
                "Stream ended without a terminal event".to_owned(),
            ),
        }
    }
}

/// A failure message for a request that never reached the provider: aborted if the signal is cancelled.
fn setup_failure(model: &Model, options: &SimpleStreamOptions, text: String) -> AssistantMessage {
    let reason = if options.is_cancelled() {
        StopReason::Aborted
    } else {
        StopReason::Error
    };
    AssistantMessage::failure(model, reason, text)
}

fn resolve_api_key(
    provider: &Provider,
    options: &SimpleStreamOptions,
) -> Result<Option<String>, String> {
    match &provider.auth {
        ProviderAuth::None => Ok(None),
        ProviderAuth::ApiKey { key, env_vars } => {
            if let Some(explicit) = options
                .base
                .api_key
                .as_ref()
                .filter(|value| !value.is_empty())
            {
                return Ok(Some(explicit.clone()));
            }
            if let Some(configured) = key.as_ref().filter(|value| !value.is_empty()) {
                return Ok(Some(configured.clone()));
            }
            for name in env_vars {
                let from_request = options
                    .base
                    .env
                    .as_ref()
                    .and_then(|env| env.get(name))
                    .cloned();
                let value = from_request.or_else(|| std::env::var(name).ok());
                if let Some(value) = value.filter(|value| !value.is_empty()) {
                    return Ok(Some(value));
                }
            }
            let hint = if env_vars.is_empty() {
                "add an API key for it in settings".to_owned()
            } else {
                format!(
                    "set {} or add an API key for it in settings",
                    env_vars.join(" or ")
                )
            };
            Err(format!(
                "Provider is not configured: {} ({hint})",
                provider.id
            ))
        }
    }
}

/// Provider headers, then model headers, then request headers; names compare case-insensitively and a request
/// value of `None` removes the default (it is kept as `None` so adapters suppress their own default too).
fn merge_headers(
    provider: &Provider,
    model: &Model,
    request: Option<BTreeMap<String, Option<String>>>,
) -> BTreeMap<String, Option<String>> {
    let mut merged: BTreeMap<String, Option<String>> = BTreeMap::new();
    let defaults = provider
        .headers
        .iter()
        .chain(model.headers.iter().flatten());
    let overrides = request.into_iter().flatten();
    for (name, value) in defaults
        .map(|(name, value)| (name.clone(), Some(value.clone())))
        .chain(overrides)
    {
        merged.retain(|existing, _| !existing.eq_ignore_ascii_case(&name));
        merged.insert(name, value);
    }
    merged
}
