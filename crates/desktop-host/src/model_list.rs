//! The models a provider offers, for the model picker: fetched from the provider (`GET …/models` of
//! OpenAI-compatible servers, Ollama's `/api/tags`, llama.cpp's `/v1/models`, Anthropic's `/v1/models`), cached
//! per provider address and key, refreshed on request, and described with what we know of each model
//! ([`known_models`]: context window, output limit, image input, price; stated defaults for the rest).
//!
//! - [`ProviderTarget`] is what to reach: the API, pi's provider id, the base URL and the key.
//! - [`fetch_models`] asks the server once; [`ListFailure`] says why there is no list (the server has none: type
//!   the id; or it could not be reached), and [`problem::describe`] words it for the user.
//! - [`ModelLists`] is the cache (in memory and in `model-lists.json` in the config folder, never a key in it)
//!   behind [`ModelLists::list`], which the window's model picker calls.
//! - [`describe_model`] gives any id its figures, listed or typed.
//!
//! Requests go through the connection's client ([`crate::connection::http_client`]), so the list takes the same
//! proxy as the chat, and loopback servers are reached directly.

pub mod known_models;
pub mod parse;
pub mod problem;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pi_ai::CancellationToken;
use pi_ai::providers::{FetchError, HttpClient, redact_credentials};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use known_models::{
    KNOWN_MODELS, KnownModel, Pricing, UNKNOWN_CONTEXT_WINDOW, UNKNOWN_MAX_OUTPUT_TOKENS,
    known_model,
};
pub use parse::{ListShape, ListedModel};
pub use problem::{ListFailure, Problem, ProblemKind};

use crate::settings::{
    ApiKey, ConnectionOptions, ProviderPreset, ResolvedSettings, SettingsFailure, SettingsService,
    SettingsServiceError,
};

/// The cache file in the config folder.
pub const MODEL_LISTS_FILE_NAME: &str = "model-lists.json";

/// A cached list younger than this is shown without asking the server again (a refresh always asks).
pub const CACHE_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// The longest a list request may take, whatever the head timeout: the picker and the connection test wait for
/// it.
pub const LIST_TIMEOUT: Duration = Duration::from_secs(20);

/// Anthropic's API version header value.
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// At most this many pages of an Anthropic list are read.
const MAX_PAGES: usize = 10;

/// What to reach: the provider of the settings, or of the settings screen's unsaved form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderTarget {
    /// The preset in effect, if any.
    pub preset: Option<ProviderPreset>,
    /// pi's provider id (`openai`, `ollama`, …).
    pub provider: String,
    /// The wire API (`openai-completions`, `openai-responses`, `anthropic-messages`).
    pub api: String,
    /// The endpoint base, as the chat uses it.
    pub base_url: String,
    /// The key, when there is one.
    pub api_key: Option<ApiKey>,
}

impl ProviderTarget {
    /// The provider of resolved settings.
    pub fn from_settings(settings: &ResolvedSettings) -> ProviderTarget {
        ProviderTarget {
            preset: settings.preset,
            provider: settings.provider.clone(),
            api: settings.api.clone(),
            base_url: settings.base_url.clone(),
            api_key: settings.api_key.clone(),
        }
    }

    /// How messages name the provider: the preset's or provider's name, else the host.
    pub fn label(&self) -> String {
        match self.provider.as_str() {
            "openai" => "OpenAI".to_owned(),
            "anthropic" => "Anthropic".to_owned(),
            "deepseek" => "DeepSeek".to_owned(),
            "openrouter" => "OpenRouter".to_owned(),
            "dashscope" => "Qwen (DashScope)".to_owned(),
            "ollama" => "Ollama".to_owned(),
            "llama.cpp" => "llama.cpp".to_owned(),
            _ => {
                let base = redact_credentials(&self.base_url);
                let host = base
                    .split_once("://")
                    .map_or(base.as_str(), |(_, rest)| rest)
                    .split('/')
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                if host.is_empty() {
                    "The server".to_owned()
                } else {
                    format!("The server at {host}")
                }
            }
        }
    }

    /// Where the list is asked for, in order (Ollama's own list first, then its OpenAI-compatible one).
    pub fn list_requests(&self) -> Vec<(ListShape, String)> {
        let base = self.base_url.trim().trim_end_matches('/');
        if self.api == "anthropic-messages" {
            let root = base.strip_suffix("/v1").unwrap_or(base);
            return vec![(ListShape::Anthropic, format!("{root}/v1/models"))];
        }
        let openai = (ListShape::OpenAi, format!("{base}/models"));
        if self.provider == "ollama" || self.preset == Some(ProviderPreset::Ollama) {
            let root = base.strip_suffix("/v1").unwrap_or(base);
            return vec![(ListShape::Ollama, format!("{root}/api/tags")), openai];
        }
        vec![openai]
    }

    fn headers(&self, shape: ListShape) -> Vec<(String, String)> {
        let mut headers = vec![("accept".to_owned(), "application/json".to_owned())];
        let key = self
            .api_key
            .as_ref()
            .map(|key| key.expose().to_owned())
            .filter(|key| !key.is_empty());
        match (shape, key) {
            (ListShape::Anthropic, key) => {
                headers.push(("anthropic-version".to_owned(), ANTHROPIC_VERSION.to_owned()));
                if let Some(key) = key {
                    headers.push(("x-api-key".to_owned(), key));
                }
            }
            (ListShape::OpenAi | ListShape::Ollama, Some(key)) => {
                headers.push(("authorization".to_owned(), format!("Bearer {key}")));
            }
            (ListShape::OpenAi | ListShape::Ollama, None) => {}
        }
        headers
    }

    /// The cache's key: the API and address, and a short fingerprint of the key (lists differ by account).
    fn cache_key(&self) -> String {
        let fingerprint = self.api_key.as_ref().map_or_else(
            || "-".to_owned(),
            |key| {
                let digest = Sha256::digest(key.expose().as_bytes());
                digest
                    .iter()
                    .take(6)
                    .map(|byte| format!("{byte:02x}"))
                    .collect()
            },
        );
        format!(
            "{} {} {fingerprint}",
            self.api,
            self.base_url.trim().trim_end_matches('/')
        )
    }
}

/// A list the server sent.
#[derive(Clone, Debug, PartialEq)]
pub struct FetchedList {
    /// The models, in the server's order.
    pub models: Vec<ListedModel>,
    /// Where they were read.
    pub url: String,
}

/// Asks `target`'s server for its models once (each address of [`ProviderTarget::list_requests`] in turn while
/// the previous one has no list); every request within `timeout`.
pub async fn fetch_models(
    client: &HttpClient,
    target: &ProviderTarget,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<FetchedList, ListFailure> {
    let mut last_failure = None;
    for (shape, url) in target.list_requests() {
        match fetch_one(client, target, shape, &url, timeout, cancel).await {
            Ok(models) => return Ok(FetchedList { models, url }),
            Err(failure @ ListFailure::NoList { .. }) => last_failure = Some(failure),
            Err(failure @ ListFailure::Fetch { .. }) => return Err(failure),
        }
    }
    Err(last_failure.unwrap_or_else(|| ListFailure::NoList {
        url: target.base_url.clone(),
        status: None,
        detail: "no address to ask".to_owned(),
    }))
}

async fn fetch_one(
    client: &HttpClient,
    target: &ProviderTarget,
    shape: ListShape,
    url: &str,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<Vec<ListedModel>, ListFailure> {
    let headers = target.headers(shape);
    let mut models = Vec::new();
    let mut page_url = match shape {
        ListShape::Anthropic => format!("{url}?limit=1000"),
        ListShape::OpenAi | ListShape::Ollama => url.to_owned(),
    };
    for _ in 0..MAX_PAGES {
        let body = match client.get_json(&page_url, &headers, timeout, cancel).await {
            Ok(body) => body,
            Err(FetchError::Status { status, body }) if matches!(status, 404 | 405 | 501) => {
                return Err(ListFailure::NoList {
                    url: url.to_owned(),
                    status: Some(status),
                    detail: brief(&body),
                });
            }
            Err(FetchError::NotJson { detail, .. }) => {
                return Err(ListFailure::NoList {
                    url: url.to_owned(),
                    status: None,
                    detail: format!("the answer is not JSON ({detail})"),
                });
            }
            Err(error) => {
                return Err(ListFailure::Fetch {
                    url: url.to_owned(),
                    error,
                });
            }
        };
        let page = parse::parse_list(shape, &body).map_err(|error| ListFailure::NoList {
            url: url.to_owned(),
            status: None,
            detail: error.to_string(),
        })?;
        models.extend(page.models);
        match page.next_after {
            Some(after) => page_url = format!("{url}?limit=1000&after_id={after}"),
            None => break,
        }
    }
    Ok(models)
}

fn brief(body: &str) -> String {
    let text: String = body.trim().chars().take(120).collect();
    if text.is_empty() {
        "no details given".to_owned()
    } else {
        text
    }
}

/// Where a model's figures come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum FactsSource {
    /// Our table of published figures ([`known_models`]).
    Table,
    /// What the server's list said.
    Server,
    /// The stated defaults: the model is unknown.
    Default,
}

/// Prices in US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PricingView {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

impl From<Pricing> for PricingView {
    fn from(pricing: Pricing) -> PricingView {
        PricingView {
            input: pricing.input,
            output: pricing.output,
            cache_read: pricing.cache_read,
            cache_write: pricing.cache_write,
        }
    }
}

/// One model as the picker shows it.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ModelEntry {
    /// The id to send.
    pub id: String,
    /// A name to show (the server's display name, else the id).
    pub name: String,
    /// Tokens of context.
    pub context_window: u64,
    /// Tokens one answer may have.
    pub max_output_tokens: u64,
    /// Whether it reads images.
    pub image_input: bool,
    /// Its price; absent when unknown (local models have none).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub pricing: Option<PricingView>,
    /// Where these figures come from.
    pub facts: FactsSource,
    /// The month the table's figures were read (`YYYY-MM`), for table facts.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub facts_as_of: Option<String>,
}

/// The figures of `id`: the table's when it knows the model, else what the server's list said, else the stated
/// defaults.
pub fn describe_model(id: &str, listed: Option<&ListedModel>) -> ModelEntry {
    let name = listed
        .and_then(|listed| listed.display_name.clone())
        .unwrap_or_else(|| id.to_owned());
    if let Some(known) = known_model(id) {
        return ModelEntry {
            id: id.to_owned(),
            name,
            context_window: known.context_window,
            max_output_tokens: known.max_output_tokens,
            image_input: known.image_input,
            pricing: known.pricing.map(PricingView::from),
            facts: FactsSource::Table,
            facts_as_of: Some(known.as_of.to_owned()),
        };
    }
    let listed = listed.cloned().unwrap_or_default();
    let said_something = listed.context_window.is_some()
        || listed.max_output_tokens.is_some()
        || listed.image_input.is_some()
        || listed.pricing.is_some();
    let context_window = listed.context_window.unwrap_or(UNKNOWN_CONTEXT_WINDOW);
    ModelEntry {
        id: id.to_owned(),
        name,
        context_window,
        max_output_tokens: listed
            .max_output_tokens
            .unwrap_or(UNKNOWN_MAX_OUTPUT_TOKENS)
            .min(context_window),
        image_input: listed.image_input.unwrap_or(false),
        pricing: listed.server_pricing().map(PricingView::from),
        facts: if said_something {
            FactsSource::Server
        } else {
            FactsSource::Default
        },
        facts_as_of: None,
    }
}

/// Where a shown list comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum ListOrigin {
    /// Just asked.
    Server,
    /// The cache (`fetchedAtMs` says when it was asked).
    Cache,
    /// No list: the picker offers a free-text field (`problem` says why).
    None,
}

/// What the model picker shows.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ModelListView {
    /// The models, in the server's order.
    pub models: Vec<ModelEntry>,
    /// Where the list comes from.
    pub origin: ListOrigin,
    /// When the list was asked for (ms since the epoch).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub fetched_at_ms: Option<u64>,
    /// Why there is no list, or why a cached one is shown (the refresh failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub problem: Option<Problem>,
}

/// A list kept in the cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CachedList {
    fetched_at_ms: u64,
    models: Vec<ListedModel>,
}

/// The model-list cache over one config folder (or memory only). Cheap to clone.
#[derive(Clone, Debug)]
pub struct ModelLists {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    path: Option<PathBuf>,
    /// `None` until the file was read.
    lists: Mutex<Option<HashMap<String, CachedList>>>,
}

impl ModelLists {
    /// The cache kept in `config_dir/model-lists.json` (memory only without a folder).
    pub fn new(config_dir: Option<&Path>) -> ModelLists {
        ModelLists {
            inner: Arc::new(Inner {
                path: config_dir.map(|dir| dir.join(MODEL_LISTS_FILE_NAME)),
                lists: Mutex::new(None),
            }),
        }
    }

    /// The picker's list for `target`: the cached one while it is younger than [`CACHE_MAX_AGE`] (unless
    /// `refresh`), else the server's (then cached). When the server has no list, or cannot be reached and nothing
    /// is cached, the view has no models and says why.
    pub async fn list(
        &self,
        target: &ProviderTarget,
        connection: &ConnectionOptions,
        refresh: bool,
        cancel: &CancellationToken,
    ) -> ModelListView {
        let cached = self.cached(target);
        if !refresh
            && let Some(cached) = &cached
            && now_ms().saturating_sub(cached.fetched_at_ms)
                < u64::try_from(CACHE_MAX_AGE.as_millis()).unwrap_or(u64::MAX)
        {
            return view(cached, ListOrigin::Cache, None);
        }
        let client = match crate::connection::http_client(connection) {
            Ok(client) => client,
            Err(error) => {
                return ModelListView {
                    models: Vec::new(),
                    origin: ListOrigin::None,
                    fetched_at_ms: None,
                    problem: Some(Problem {
                        kind: ProblemKind::Proxy,
                        message: format!(
                            "{}. Fix the proxy in Settings → Connection.",
                            redact_credentials(&error.to_string())
                        ),
                    }),
                };
            }
        };
        let timeout = connection.head_timeout.min(LIST_TIMEOUT);
        match fetch_models(&client, target, timeout, cancel).await {
            Ok(fetched) => {
                let stored = self.remember(target, fetched.models);
                view(&stored, ListOrigin::Server, None)
            }
            Err(failure) => {
                let problem = problem::describe(&failure, target);
                match (cached, &failure) {
                    (Some(cached), ListFailure::Fetch { .. }) => {
                        view(&cached, ListOrigin::Cache, Some(problem))
                    }
                    _ => ModelListView {
                        models: Vec::new(),
                        origin: ListOrigin::None,
                        fetched_at_ms: None,
                        problem: Some(problem),
                    },
                }
            }
        }
    }

    /// The picker's list for the stored settings resolved with `env` (see [`ModelLists::list`]); the scripted
    /// model has none. `Err` when the settings name no usable provider.
    pub async fn list_for_settings(
        &self,
        service: &SettingsService,
        env: &HashMap<String, String>,
        refresh: bool,
    ) -> Result<ModelListView, SettingsServiceError> {
        // Resolving reads the settings file and may ask the keychain: off the async workers.
        let settings = {
            let service = service.clone();
            let env = env.clone();
            tokio::task::spawn_blocking(move || service.resolve(&env, None))
                .await
                .map_err(|error| SettingsServiceError {
                    kind: SettingsFailure::Settings,
                    message: format!(
                        "Reading the settings stopped unexpectedly ({error}). Try again."
                    ),
                })??
        };
        if settings.api == "scripted" {
            return Ok(ModelListView {
                models: Vec::new(),
                origin: ListOrigin::None,
                fetched_at_ms: None,
                problem: Some(Problem {
                    kind: ProblemKind::NoModelList,
                    message: "The scripted model is offline and has no list.".to_owned(),
                }),
            });
        }
        let target = ProviderTarget::from_settings(&settings);
        Ok(self
            .list(
                &target,
                &settings.connection,
                refresh,
                &CancellationToken::new(),
            )
            .await)
    }

    /// Keeps `models` as `target`'s list (the connection test does, after it listed them).
    fn remember(&self, target: &ProviderTarget, models: Vec<ListedModel>) -> CachedList {
        let stored = CachedList {
            fetched_at_ms: now_ms(),
            models,
        };
        let snapshot = {
            let mut lists = self.lock_loaded();
            let lists = lists.get_or_insert_with(HashMap::new);
            lists.insert(target.cache_key(), stored.clone());
            lists.clone()
        };
        self.save(&snapshot);
        stored
    }

    /// Keeps a list fetched elsewhere (the connection test) for `target`.
    pub fn store(&self, target: &ProviderTarget, models: Vec<ListedModel>) {
        self.remember(target, models);
    }

    fn cached(&self, target: &ProviderTarget) -> Option<CachedList> {
        self.lock_loaded()
            .as_ref()
            .and_then(|lists| lists.get(&target.cache_key()).cloned())
    }

    /// The lists, read from the file on first use (a missing or broken file is an empty cache).
    fn lock_loaded(&self) -> std::sync::MutexGuard<'_, Option<HashMap<String, CachedList>>> {
        let mut lists = self
            .inner
            .lists
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if lists.is_none() {
            let loaded = self
                .inner
                .path
                .as_deref()
                .and_then(|path| std::fs::read_to_string(path).ok())
                .and_then(|text| serde_json::from_str(&text).ok())
                .unwrap_or_default();
            *lists = Some(loaded);
        }
        lists
    }

    fn save(&self, lists: &HashMap<String, CachedList>) {
        let Some(path) = self.inner.path.as_deref() else {
            return;
        };
        let written = serde_json::to_string(lists)
            .map_err(std::io::Error::other)
            .and_then(|json| {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                let temporary = path.with_extension("json.tmp");
                std::fs::write(&temporary, json)?;
                std::fs::rename(&temporary, path)
            });
        if let Err(error) = written {
            // The cache only saves a request; the list itself was shown.
            tracing::warn!(path = %path.display(), %error, "cannot write the model-list cache");
        }
    }
}

fn view(cached: &CachedList, origin: ListOrigin, problem: Option<Problem>) -> ModelListView {
    ModelListView {
        models: cached
            .models
            .iter()
            .map(|listed| describe_model(&listed.id, Some(listed)))
            .collect(),
        origin,
        fetched_at_ms: Some(cached.fetched_at_ms),
        problem,
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

#[cfg(test)]
mod tests;
