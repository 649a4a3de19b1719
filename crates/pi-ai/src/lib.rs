//! The model layer: pi-ai's message types and event protocol, streams, the model registry and providers.

#![warn(missing_docs)]

mod content;
mod context;
mod event;
mod event_stream;
mod js_number;
mod message;
mod model;
mod options;
pub mod partial_json;
mod provider;
pub mod providers;
mod registry;
pub mod scripted;
mod shared_text;
mod stream_fn;
mod thinking;
mod tokens;
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
    ResponseInfo, SimpleStreamOptions, StreamOptions, ToolChoice, Transport,
};
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
pub use transform::transform_messages;
pub use usage::{Cost, Usage, calculate_cost};
pub use validation::{ToolValidationError, validate_tool_arguments, validate_tool_call};
