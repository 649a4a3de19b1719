//! The scripted provider: pi's faux provider (spec 4.9), an offline test double that plays back queued
//! assistant messages as real, token-chunked streams.
//!
//! Each request dequeues one response (a message or a factory) and streams it: `start`, then per block
//! `*_start`, one `*_delta` per chunk (1 token = 4 characters; chunk sizes cycle through
//! [`ScriptedOptions::tokens_per_chunk`]), `*_end`, then `done` — or `error` for a scripted `error`/`aborted`
//! message. Events are produced lazily, one per pull, and the cancel token is checked before each one: a request
//! cancelled before it starts ends with a single `error(aborted)` and no `start`; a later cancellation ends the
//! stream with `error(aborted)`, the content so far and "Request was aborted" (no `*_end` for the open block).
//! Usage is estimated from the serialized context (prompt) and the answer (output), 4 characters per token.
//!
//! ```
//! use futures_util::StreamExt;
//! use pi_ai::scripted::{ScriptedProvider, text_message};
//! use pi_ai::{Context, SimpleStreamOptions, UserMessage};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let scripted = ScriptedProvider::new(vec![text_message("Hello there")]);
//! let context = Context { messages: vec![UserMessage::new("Hi").into()], ..Context::default() };
//! let mut stream = scripted.stream(context, SimpleStreamOptions::default());
//! let mut types = Vec::new();
//! while let Some(event) = stream.next().await {
//!     types.push(event.event_type());
//! }
//! assert_eq!(types, ["start", "text_start", "text_delta", "text_end", "done"]);
//! let message = stream.result().await.unwrap();
//! assert_eq!(message.text(), "Hello there");
//! # });
//! ```

use std::collections::{HashMap, VecDeque};
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::stream;
use tokio_util::sync::CancellationToken;

use crate::content::{AssistantBlock, TextContent, ThinkingContent, ToolCall, UserBlock};
use crate::context::Context;
use crate::event::{AssistantMessageEvent, DoneReason, ErrorReason};
use crate::event_stream::AssistantMessageEventStream;
use crate::message::{AssistantMessage, Message, StopReason, UserContent};
use crate::model::{Api, InputModality, Model, ModelCost};
use crate::options::{CacheRetention, ResponseInfo, SimpleStreamOptions};
use crate::provider::{ApiProvider, Provider};
use crate::stream_fn::StreamFn;
use crate::usage::Usage;

/// errorMessage of a cancelled request.
pub const ABORTED_MESSAGE: &str = "Request was aborted";
/// errorMessage when the queue is empty.
pub const NO_MORE_RESPONSES: &str = "No more faux responses queued";
/// errorMessage when a scripted message has stopReason `pending`.
pub const NO_STOP_REASON: &str = "Faux response ended without a stop reason";

/// Characters per estimated token.
const CHARS_PER_TOKEN: usize = 4;

/// What a factory sees about the request it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptedCall {
    /// 1-based number of this request.
    pub call_count: usize,
}

/// Builds the response for one request; `Err(text)` ends the stream with a single `error` event (no `start`).
pub type ResponseFactory = Arc<
    dyn Fn(&Context, &SimpleStreamOptions, ScriptedCall, &Model) -> Result<AssistantMessage, String>
        + Send
        + Sync,
>;

/// One queued response.
#[allow(
    clippy::large_enum_variant,
    reason = "queued once per request; boxing buys nothing"
)]
#[derive(Clone)]
pub enum ScriptedResponse {
    /// Stream this message (api / provider / model are replaced by the request model's).
    Message(AssistantMessage),
    /// Compute the message at request time.
    Factory(ResponseFactory),
}

impl From<AssistantMessage> for ScriptedResponse {
    fn from(message: AssistantMessage) -> Self {
        ScriptedResponse::Message(message)
    }
}

/// Configuration of a [`ScriptedProvider`].
#[derive(Debug, Clone)]
pub struct ScriptedOptions {
    /// Api name (default `scripted`).
    pub api: Api,
    /// Provider id (default `scripted`).
    pub provider: String,
    /// Models (default one: `scripted-1`, "Scripted Model", text + image, 128000 context, 16384 max tokens).
    pub models: Vec<Model>,
    /// Chunk sizes in tokens, cycled deterministically (default 3..=5).
    pub tokens_per_chunk: RangeInclusive<usize>,
    /// Pacing: each chunk waits `tokens / tokens_per_second`; `None` = no waiting (one event per pull).
    pub tokens_per_second: Option<f64>,
}

impl Default for ScriptedOptions {
    fn default() -> Self {
        Self {
            api: Api::SCRIPTED,
            provider: "scripted".into(),
            models: vec![default_model(&Api::SCRIPTED, "scripted")],
            tokens_per_chunk: 3..=5,
            tokens_per_second: None,
        }
    }
}

fn default_model(api: &Api, provider: &str) -> Model {
    Model {
        id: "scripted-1".into(),
        name: "Scripted Model".into(),
        api: api.clone(),
        provider: provider.into(),
        base_url: String::new(),
        reasoning: false,
        thinking_level_map: None,
        input: vec![InputModality::Text, InputModality::Image],
        cost: ModelCost::default(),
        context_window: 128_000,
        max_tokens: 16_384,
        sampling_params: None,
        headers: None,
        compat: None,
    }
}

struct Shared {
    options: ScriptedOptions,
    responses: Mutex<VecDeque<ScriptedResponse>>,
    call_count: AtomicUsize,
    /// Previous prompt per session id, for the prompt-cache simulation.
    sessions: Mutex<HashMap<String, String>>,
}

/// The scripted (faux) provider. Cheap to clone; clones share the queue and counters.
#[derive(Clone)]
pub struct ScriptedProvider {
    shared: Arc<Shared>,
}

impl ScriptedProvider {
    /// A provider with default options and these queued responses.
    pub fn new(responses: impl IntoIterator<Item = impl Into<ScriptedResponse>>) -> Self {
        Self::with_options(ScriptedOptions::default(), responses)
    }

    /// A provider with `options` and these queued responses.
    pub fn with_options(
        options: ScriptedOptions,
        responses: impl IntoIterator<Item = impl Into<ScriptedResponse>>,
    ) -> Self {
        let mut options = options;
        for model in &mut options.models {
            model.api = options.api.clone();
            model.provider.clone_from(&options.provider);
        }
        let shared = Shared {
            options,
            responses: Mutex::new(responses.into_iter().map(Into::into).collect()),
            call_count: AtomicUsize::new(0),
            sessions: Mutex::new(HashMap::new()),
        };
        Self {
            shared: Arc::new(shared),
        }
    }

    /// The model with this id, or the first model for `None`.
    pub fn model(&self, id: Option<&str>) -> Option<Model> {
        let models = &self.shared.options.models;
        match id {
            Some(id) => models.iter().find(|model| model.id == id).cloned(),
            None => models.first().cloned(),
        }
    }

    /// Every model.
    pub fn models(&self) -> &[Model] {
        &self.shared.options.models
    }

    /// Replaces the queue.
    pub fn set_responses(&self, responses: impl IntoIterator<Item = impl Into<ScriptedResponse>>) {
        *self.queue() = responses.into_iter().map(Into::into).collect();
    }

    /// Appends to the queue.
    pub fn append_responses(
        &self,
        responses: impl IntoIterator<Item = impl Into<ScriptedResponse>>,
    ) {
        self.queue().extend(responses.into_iter().map(Into::into));
    }

    /// Responses not yet consumed.
    pub fn pending_response_count(&self) -> usize {
        self.queue().len()
    }

    /// Requests made so far.
    pub fn call_count(&self) -> usize {
        self.shared.call_count.load(Ordering::SeqCst)
    }

    /// A [`Provider`] serving this provider's models, for a [`crate::Models`] registry.
    pub fn provider(&self) -> Provider {
        Provider::new(self.shared.options.provider.clone())
            .with_api(Arc::new(self.clone()))
            .with_models(self.shared.options.models.iter().cloned())
    }

    /// A [`StreamFn`] that streams from this provider whatever model it is given (it never returns `Err`).
    pub fn stream_fn(&self) -> StreamFn {
        let provider = self.clone();
        Arc::new(move |model, context, options| {
            let stream = provider.stream_simple(model, context, options);
            Box::pin(async move { Ok(stream) })
        })
    }

    /// Streams the next response for the first model.
    pub fn stream(
        &self,
        context: Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        let model = self
            .model(None)
            .unwrap_or_else(|| default_model(&self.shared.options.api, "scripted"));
        self.stream_simple(model, context, options)
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, VecDeque<ScriptedResponse>> {
        self.shared
            .responses
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn estimate_usage(
        &self,
        context: &Context,
        options: &SimpleStreamOptions,
        answer: &AssistantMessage,
    ) -> Usage {
        let prompt = serialize_context(context);
        let prompt_tokens = tokens(prompt.chars().count());
        let output_tokens = tokens(answer_text(answer).chars().count());
        let mut usage = Usage {
            output: output_tokens,
            ..Usage::default()
        };
        let caching = options.base.cache_retention != Some(CacheRetention::None);
        match options.base.session_id.as_ref().filter(|_| caching) {
            Some(session) => {
                let mut sessions = self
                    .shared
                    .sessions
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                let previous = sessions
                    .insert(session.clone(), prompt.clone())
                    .unwrap_or_default();
                let common = common_prefix_chars(&previous, &prompt);
                usage.cache_read = tokens(common);
                usage.cache_write = tokens(prompt.chars().count() - common);
                usage.input = prompt_tokens.saturating_sub(usage.cache_read);
            }
            None => usage.input = prompt_tokens,
        }
        usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write;
        usage
    }
}

impl ApiProvider for ScriptedProvider {
    fn api(&self) -> Api {
        self.shared.options.api.clone()
    }

    fn stream_simple(
        &self,
        model: Model,
        context: Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        let step = self.queue().pop_front();
        let call_count = self.shared.call_count.fetch_add(1, Ordering::SeqCst) + 1;
        if let Some(on_response) = &options.base.on_response {
            on_response(
                &ResponseInfo {
                    status: 200,
                    headers: Default::default(),
                },
                &model,
            );
        }
        let resolved = match step {
            None => Err(NO_MORE_RESPONSES.to_owned()),
            Some(ScriptedResponse::Message(message)) => Ok(message),
            Some(ScriptedResponse::Factory(factory)) => {
                factory(&context, &options, ScriptedCall { call_count }, &model)
            }
        };
        let mut message = match resolved {
            Ok(message) => message,
            Err(text) => {
                return AssistantMessageEventStream::from_error(AssistantMessage::failure(
                    &model,
                    StopReason::Error,
                    text,
                ));
            }
        };
        message.api = model.api.clone();
        message.provider = model.provider.as_str().into();
        message.model = model.id.as_str().into();
        message.usage = self.estimate_usage(&context, &options, &message);
        let pacing = self
            .shared
            .options
            .tokens_per_second
            .filter(|rate| *rate > 0.0);
        let playback = Playback::new(
            model,
            message,
            options.base.signal,
            &self.shared.options.tokens_per_chunk,
            pacing,
        );
        AssistantMessageEventStream::from_events(stream::unfold(
            playback,
            |mut playback| async move {
                let event = playback.next_event().await?;
                Some((event, playback))
            },
        ))
    }
}

/// One step of a playback.
enum Step {
    Start,
    BlockStart(usize),
    Delta {
        index: usize,
        chunk: String,
        tokens: usize,
    },
    BlockEnd(usize),
    Finish,
}

/// The live state of one streamed response.
struct Playback {
    model: Model,
    message: AssistantMessage,
    /// Shared with the events; mutated in place when no event holds it any more (`Arc::make_mut`).
    partial: Arc<AssistantMessage>,
    steps: VecDeque<Step>,
    signal: Option<CancellationToken>,
    tokens_per_second: Option<f64>,
    finished: bool,
}

impl Playback {
    fn new(
        model: Model,
        message: AssistantMessage,
        signal: Option<CancellationToken>,
        tokens_per_chunk: &RangeInclusive<usize>,
        tokens_per_second: Option<f64>,
    ) -> Self {
        let mut sizes = ChunkSizes::new(tokens_per_chunk);
        let mut steps = VecDeque::new();
        steps.push_back(Step::Start);
        for (index, block) in message.content.iter().enumerate() {
            steps.push_back(Step::BlockStart(index));
            let text = match block.as_ref() {
                AssistantBlock::Text(text) => text.text.to_string(),
                AssistantBlock::Thinking(thinking) => thinking.thinking.to_string(),
                AssistantBlock::ToolCall(tool_call) => tool_call.arguments.to_string(),
            };
            for (chunk, tokens) in chunk_text(&text, &mut sizes) {
                steps.push_back(Step::Delta {
                    index,
                    chunk,
                    tokens,
                });
            }
            steps.push_back(Step::BlockEnd(index));
        }
        steps.push_back(Step::Finish);
        let mut partial = message.clone();
        partial.content = Vec::with_capacity(message.content.len());
        partial.stop_reason = StopReason::Pending;
        partial.error_message = None;
        Self {
            model,
            message,
            partial: Arc::new(partial),
            steps,
            signal,
            tokens_per_second,
            finished: false,
        }
    }

    fn is_cancelled(&self) -> bool {
        self.signal
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled)
    }

    /// Waits for one chunk's worth of pacing, cut short by cancellation.
    async fn pace(&self, tokens: usize) {
        let Some(rate) = self.tokens_per_second else {
            return;
        };
        let delay = Duration::from_secs_f64(tokens as f64 / rate);
        match &self.signal {
            Some(signal) => {
                tokio::select! {
                    () = tokio::time::sleep(delay) => {}
                    () = signal.cancelled() => {}
                }
            }
            None => tokio::time::sleep(delay).await,
        }
    }

    async fn next_event(&mut self) -> Option<AssistantMessageEvent> {
        if self.finished {
            return None;
        }
        let step = self.steps.pop_front()?;
        if let Step::Delta { tokens, .. } = &step {
            self.pace(*tokens).await;
        }
        if self.is_cancelled() {
            self.finished = true;
            let mut error = (*self.partial).clone();
            error.stop_reason = StopReason::Aborted;
            error.error_message = Some(ABORTED_MESSAGE.to_owned());
            return Some(AssistantMessageEvent::Error {
                reason: ErrorReason::Aborted,
                error: Arc::new(error),
            });
        }
        Some(self.apply(step))
    }

    fn apply(&mut self, step: Step) -> AssistantMessageEvent {
        match step {
            Step::Start => AssistantMessageEvent::Start {
                partial: Arc::clone(&self.partial),
            },
            Step::BlockStart(index) => {
                let Some(block) = self.message.content.get(index) else {
                    return self.finish();
                };
                let (empty, event): (AssistantBlock, StartEvent) = match block.as_ref() {
                    AssistantBlock::Text(_) => (
                        AssistantBlock::Text(TextContent::default()),
                        |content_index, partial| AssistantMessageEvent::TextStart {
                            content_index,
                            partial,
                        },
                    ),
                    AssistantBlock::Thinking(_) => (
                        AssistantBlock::Thinking(ThinkingContent::default()),
                        |content_index, partial| AssistantMessageEvent::ThinkingStart {
                            content_index,
                            partial,
                        },
                    ),
                    AssistantBlock::ToolCall(tool_call) => {
                        let mut started = ToolCall::new(
                            tool_call.id.clone(),
                            tool_call.name.clone(),
                            serde_json::json!({}),
                        );
                        started.namespace.clone_from(&tool_call.namespace);
                        (
                            AssistantBlock::ToolCall(started),
                            |content_index, partial| AssistantMessageEvent::ToolcallStart {
                                content_index,
                                partial,
                            },
                        )
                    }
                };
                Arc::make_mut(&mut self.partial)
                    .content
                    .push(Arc::new(empty));
                event(index, Arc::clone(&self.partial))
            }
            Step::Delta { index, chunk, .. } => {
                let Some(current) = Arc::make_mut(&mut self.partial).content.get_mut(index) else {
                    return self.finish();
                };
                match current.as_ref() {
                    AssistantBlock::Text(text) => {
                        let grown = TextContent {
                            text: text.text.appended(&chunk),
                            text_signature: None,
                        };
                        *current = Arc::new(AssistantBlock::Text(grown));
                        AssistantMessageEvent::TextDelta {
                            content_index: index,
                            delta: chunk,
                            partial: Arc::clone(&self.partial),
                        }
                    }
                    AssistantBlock::Thinking(thinking) => {
                        let grown = ThinkingContent {
                            thinking: thinking.thinking.appended(&chunk),
                            ..ThinkingContent::default()
                        };
                        *current = Arc::new(AssistantBlock::Thinking(grown));
                        AssistantMessageEvent::ThinkingDelta {
                            content_index: index,
                            delta: chunk,
                            partial: Arc::clone(&self.partial),
                        }
                    }
                    // pi's faux provider leaves the arguments at `{}` until the block ends.
                    AssistantBlock::ToolCall(_) => AssistantMessageEvent::ToolcallDelta {
                        content_index: index,
                        delta: chunk,
                        partial: Arc::clone(&self.partial),
                    },
                }
            }
            Step::BlockEnd(index) => {
                let (Some(finished), Some(slot)) = (
                    self.message.content.get(index),
                    Arc::make_mut(&mut self.partial).content.get_mut(index),
                ) else {
                    return self.finish();
                };
                *slot = Arc::clone(finished);
                let partial = Arc::clone(&self.partial);
                match finished.as_ref() {
                    AssistantBlock::Text(text) => AssistantMessageEvent::TextEnd {
                        content_index: index,
                        content: text.text.to_string(),
                        partial,
                    },
                    AssistantBlock::Thinking(thinking) => AssistantMessageEvent::ThinkingEnd {
                        content_index: index,
                        content: thinking.thinking.to_string(),
                        partial,
                    },
                    AssistantBlock::ToolCall(tool_call) => AssistantMessageEvent::ToolcallEnd {
                        content_index: index,
                        tool_call: Box::new(tool_call.clone()),
                        partial,
                    },
                }
            }
            Step::Finish => self.finish(),
        }
    }

    fn finish(&mut self) -> AssistantMessageEvent {
        self.finished = true;
        let message = Arc::new(self.message.clone());
        match message.stop_reason {
            StopReason::Pending => AssistantMessageEvent::Error {
                reason: ErrorReason::Error,
                error: Arc::new(AssistantMessage::failure(
                    &self.model,
                    StopReason::Error,
                    NO_STOP_REASON,
                )),
            },
            StopReason::Error => AssistantMessageEvent::Error {
                reason: ErrorReason::Error,
                error: message,
            },
            StopReason::Aborted => AssistantMessageEvent::Error {
                reason: ErrorReason::Aborted,
                error: message,
            },
            StopReason::Stop => AssistantMessageEvent::Done {
                reason: DoneReason::Stop,
                message,
            },
            StopReason::Length => AssistantMessageEvent::Done {
                reason: DoneReason::Length,
                message,
            },
            StopReason::ToolUse => AssistantMessageEvent::Done {
                reason: DoneReason::ToolUse,
                message,
            },
            StopReason::Deferred => AssistantMessageEvent::Done {
                reason: DoneReason::Deferred,
                message,
            },
        }
    }
}

/// Builds a block's `*_start` event from its index and the partial.
type StartEvent = fn(usize, Arc<AssistantMessage>) -> AssistantMessageEvent;

/// Cycles deterministically through a range of chunk sizes.
struct ChunkSizes {
    min: usize,
    max: usize,
    next: usize,
}

impl ChunkSizes {
    fn new(range: &RangeInclusive<usize>) -> Self {
        let min = (*range.start()).max(1);
        let max = (*range.end()).max(min);
        Self {
            min,
            max,
            next: min,
        }
    }

    fn take(&mut self) -> usize {
        let size = self.next;
        self.next = if self.next >= self.max {
            self.min
        } else {
            self.next + 1
        };
        size
    }
}

/// Splits `text` into chunks of whole tokens (4 characters each); an empty text yields one empty chunk.
fn chunk_text(text: &str, sizes: &mut ChunkSizes) -> Vec<(String, usize)> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![(String::new(), 1)];
    }
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let tokens = sizes.take();
        let end = (start + tokens * CHARS_PER_TOKEN).min(chars.len());
        chunks.push((chars[start..end].iter().collect(), tokens));
        start = end;
    }
    chunks
}

fn tokens(chars: usize) -> u64 {
    chars.div_ceil(CHARS_PER_TOKEN) as u64
}

fn common_prefix_chars(left: &str, right: &str) -> usize {
    left.chars()
        .zip(right.chars())
        .take_while(|(a, b)| a == b)
        .count()
}

fn answer_text(message: &AssistantMessage) -> String {
    let mut parts = Vec::new();
    for block in &message.content {
        match block.as_ref() {
            AssistantBlock::Text(text) => parts.push(text.text.to_string()),
            AssistantBlock::Thinking(thinking) => parts.push(thinking.thinking.to_string()),
            AssistantBlock::ToolCall(tool_call) => {
                parts.push(format!("{}:{}", tool_call.name, tool_call.arguments))
            }
        }
    }
    parts.join("\n")
}

fn user_blocks_text(blocks: &[UserBlock]) -> String {
    blocks
        .iter()
        .map(|block| match block {
            UserBlock::Text(text) => text.text.to_string(),
            UserBlock::Image(image) => format!("[image:{}:{}]", image.mime_type, image.data.len()),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The prompt as the faux provider serializes it for token estimation.
fn serialize_context(context: &Context) -> String {
    let mut parts = Vec::new();
    if let Some(prompt) = &context.system_prompt {
        parts.push(format!("system:{prompt}"));
    }
    for message in &context.messages {
        let text = match message {
            Message::User(user) => match &user.content {
                UserContent::Text(text) => text.clone(),
                UserContent::Blocks(blocks) => user_blocks_text(blocks),
            },
            Message::Assistant(assistant) => answer_text(assistant),
            Message::ToolResult(result) => format!(
                "{}\n{}",
                result.tool_name,
                user_blocks_text(&result.content)
            ),
        };
        parts.push(format!("{}:{text}", message.role()));
    }
    if let Some(tools) = &context.tools {
        parts.push(format!(
            "tools:{}",
            serde_json::to_string(tools).unwrap_or_default()
        ));
    }
    parts.join("\n\n")
}

/// An assistant message with these blocks and stop reason (api / provider / model are filled in when streamed).
pub fn message(content: Vec<AssistantBlock>, stop_reason: StopReason) -> AssistantMessage {
    let mut message =
        AssistantMessage::empty_for(Api::SCRIPTED, "scripted".into(), "scripted-1".into());
    message.content = content.into_iter().map(Arc::new).collect();
    message.stop_reason = stop_reason;
    message
}

/// An assistant message with one text block, stopReason `stop`.
pub fn text_message(text: impl Into<String>) -> AssistantMessage {
    message(vec![AssistantBlock::text(text)], StopReason::Stop)
}

/// An assistant message with these tool calls, stopReason `toolUse`.
pub fn tool_call_message(calls: impl IntoIterator<Item = ToolCall>) -> AssistantMessage {
    message(
        calls.into_iter().map(AssistantBlock::ToolCall).collect(),
        StopReason::ToolUse,
    )
}

/// An assistant message that fails with `error_message` (stopReason `error`) after streaming `content`.
pub fn error_message(
    content: Vec<AssistantBlock>,
    error_message: impl Into<String>,
) -> AssistantMessage {
    let mut failed = message(content, StopReason::Error);
    failed.error_message = Some(error_message.into());
    failed
}

#[cfg(test)]
mod tests;
