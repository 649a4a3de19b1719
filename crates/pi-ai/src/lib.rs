//! The model layer of the Pi runtime: a Rust port of pi-ai 0.85.1.
//!
//! # Overview
//!
//! * **Messages** ([`Message`] = [`UserMessage`] | [`AssistantMessage`] | [`ToolResultMessage`]) and their
//!   content blocks ([`UserBlock`], [`AssistantBlock`]: text, thinking, image, [`ToolCall`]) serialize exactly
//!   as pi's JSON: camelCase keys, pi's tags, absent optionals omitted, integral costs without a fraction.
//! * **Models** ([`Model`], selected by an open [`Api`] name and a provider id) and request options
//!   ([`SimpleStreamOptions`] wrapping [`StreamOptions`], with a [`CancellationToken`] as the abort signal;
//!   a [`ToolChoice`] in the form of the model's API).
//! * **The event protocol**: one response is an [`AssistantMessageEventStream`] of
//!   [`AssistantMessageEvent`]s — `start`, `text_*`, `thinking_*`, `toolcall_*`, then exactly one `done` or
//!   `error`. Every non-terminal event carries `partial`, an immutable snapshot that costs O(blocks) to take
//!   ([`SharedText`] shares the growing text between snapshots).
//! * **Streams** are [`EventStream`]s: the producer pushes without waiting, the consumer is a
//!   [`futures_util::Stream`], and [`EventStream::result`] always resolves (ending without a result is
//!   [`StreamError::EndedWithoutResult`], never a hang).
//! * **Providers**: an [`ApiProvider`] implements one wire protocol; a [`Provider`] bundles auth, models and
//!   APIs; [`Models`] is the registry whose [`Models::stream_simple`] never fails outside the stream (unknown
//!   provider, missing key … become a single `error` event). [`providers`] holds the HTTP adapters
//!   (`openai-completions`, `openai-responses`, `anthropic-messages`); [`scripted`] is the offline test double.
//! * **Helpers the adapters and the agent share**: [`parse_streaming_json`] (tolerant partial JSON),
//!   [`validate_tool_arguments`] (JSON Schema with pi's coercion and error text), [`transform_messages`]
//!   (replay normalization), [`calculate_cost`], [`clamp_max_tokens`], [`clamp_thinking_level`].
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//!
//! use futures_util::StreamExt;
//! use pi_ai::scripted::{ScriptedProvider, text_message};
//! use pi_ai::{AssistantMessageEvent, Context, Models, SimpleStreamOptions, UserMessage};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let models = Arc::new(Models::new());
//! let scripted = ScriptedProvider::new(vec![text_message("Hello! How can I help?")]);
//! models.set_provider(scripted.provider());
//!
//! let model = models.model("scripted", "scripted-1").expect("registered above");
//! let context = Context {
//!     system_prompt: Some("You are helpful.".into()),
//!     messages: vec![UserMessage::new("Hi").into()],
//!     tools: None,
//! };
//! let mut stream = models.stream_simple(&model, context, SimpleStreamOptions::default());
//! let mut text = String::new();
//! while let Some(event) = stream.next().await {
//!     if let AssistantMessageEvent::TextDelta { delta, .. } = &event {
//!         text.push_str(delta);
//!     }
//! }
//! let message = stream.result().await.expect("the stream ended with done");
//! assert_eq!(text, "Hello! How can I help?");
//! assert_eq!(message.text(), text);
//! assert!(message.usage.input > 0);
//! # });
//! ```
//!
//! # Failure contract
//!
//! Stream entry points return a stream synchronously and never fail for request, model or runtime problems:
//! those end the stream with one `error` event whose message has stopReason `error` (or `aborted` when the
//! signal was cancelled) and an `errorMessage`. Cancelling [`StreamOptions::signal`] ends a running stream with
//! `error(aborted)` and "Request was aborted", the partial content kept.

#![warn(missing_docs)]

mod content;
mod context;
mod event;
mod event_stream;
mod js_number;
mod message;
mod model;
mod options;
mod overflow;
pub mod partial_json;
mod provider;
pub mod providers;
mod registry;
pub mod scripted;
mod shared_text;
mod stream_fn;
mod thinking;
mod tokens;
mod tool_choice;
pub mod transform;
mod usage;
mod validation;

pub use content::{
    AssistantBlock, ImageContent, TextContent, ThinkingContent, ToolCall, UserBlock,
};
pub use context::{Context, Tool};
pub use event::{AssistantMessageEvent, DoneReason, ErrorReason, EventWithoutPartial};
pub use event_stream::{
    AssistantMessageEventSender, AssistantMessageEventStream, EventSender, EventStream,
    ResultExtractor, StreamError, assistant_message_channel,
};
pub use message::{
    AssistantMessage, DeferredHandle, Diagnostic, DiagnosticError, Message, StopReason,
    ToolResultMessage, UserContent, UserMessage, now_millis,
};
pub use model::{
    Api, CostTier, InputModality, Model, ModelCost, ModelThinkingLevel, ThinkingBudgets,
    ThinkingLevel,
};
pub use options::{
    CacheRetention, DEFAULT_MAX_RETRY_DELAY_MS, DeferredOptions, PayloadHook, ResponseHook,
    ResponseInfo, RetryCause, RetryHook, RetryNotice, SimpleStreamOptions, StreamOptions,
    Transport,
};
pub use overflow::is_context_overflow;
pub use partial_json::parse_streaming_json;
pub use provider::{ApiProvider, Provider, ProviderAuth};
pub use registry::Models;
pub use shared_text::{SharedText, TextRef};
pub use stream_fn::{StreamFn, StreamFnError};
pub use thinking::{
    clamp_max_tokens, clamp_thinking_level, mapped_thinking_level, supported_thinking_levels,
    thinking_budget, thinking_max_tokens,
};
pub use tokens::{estimate_context_tokens, estimate_text_tokens};
pub use tokio_util::sync::CancellationToken;
pub use tool_choice::{
    AllowedToolsMode, HostedTool, InvalidToolChoice, ToolChoice, ToolChoiceApi,
    UnsupportedToolChoice,
};
pub use transform::transform_messages;
pub use usage::{Cost, Usage, apply_service_tier_pricing, calculate_cost, service_tier_multiplier};
pub use validation::{
    ToolValidationError, validate_arguments, validate_tool_arguments, validate_tool_call,
};
