//! The scenario file format (SCENARIOS.md sections 1–6) as serde types. Every object refuses unknown keys, so a
//! misspelt field is a clear error (with its line and column), never a silently ignored one. Pi data the runtime
//! interprets itself (messages, tool results, JSON Schemas, hook return payloads) stays JSON.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use pi_agent::{QueueMode, ToolExecutionMode};
use pi_ai::{InputModality, Model, ModelThinkingLevel, StopReason};
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::HarnessError;

/// One scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Scenario {
    pub name: String,
    /// What the scenario checks (free text, not used).
    pub description: Option<String>,
    #[serde(default)]
    pub agent: AgentSpec,
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    #[serde(default)]
    pub model: ModelScript,
    #[serde(default)]
    pub hooks: Vec<HookSpec>,
    #[serde(default)]
    pub driver: Vec<Action>,
    #[serde(default)]
    pub trace: TraceOptions,
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
}

fn default_timeout_ms() -> u64 {
    10_000
}

/// `agent`: initial state and loop options.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AgentSpec {
    pub system_prompt: Option<String>,
    pub thinking_level: Option<ModelThinkingLevel>,
    pub model: Option<ModelSpec>,
    #[serde(default)]
    pub messages: Vec<Value>,
    pub active_tools: Option<Vec<String>>,
    pub tool_execution: Option<ToolExecutionMode>,
    pub steering_mode: Option<QueueMode>,
    pub follow_up_mode: Option<QueueMode>,
    pub before_tool_call: Option<Vec<BeforeToolCallRule>>,
    pub after_tool_call: Option<Vec<AfterToolCallRule>>,
    pub should_stop_after_turn: Option<ShouldStopAfterTurnRule>,
    pub transform_context: Option<TransformContextRule>,
    pub convert_to_llm: Option<ConvertToLlmRule>,
    pub prepare_next_turn: Option<Vec<PrepareNextTurnRule>>,
}

/// A `beforeToolCall` rule. The return fields are kept as written: the hook returns (and logs) exactly the ones
/// present, `null` included.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BeforeToolCallRule {
    pub tool: Option<String>,
    pub nth: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    pub block: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub reason: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub terminate: Option<Value>,
    pub throw: Option<String>,
    #[serde(default)]
    pub abort: bool,
    pub delay_ms: Option<u64>,
}

/// An `afterToolCall` rule; return fields as in [`BeforeToolCallRule`].
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AfterToolCallRule {
    pub tool: Option<String>,
    pub nth: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    pub content: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub details: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub is_error: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub usage: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub terminate: Option<Value>,
    pub throw: Option<String>,
}

/// The `tool` / `nth` matching shared by both tool-call rule lists.
pub trait ToolCallRule {
    fn tool(&self) -> Option<&str>;
    fn nth(&self) -> Option<u64>;
}

impl ToolCallRule for BeforeToolCallRule {
    fn tool(&self) -> Option<&str> {
        self.tool.as_deref()
    }
    fn nth(&self) -> Option<u64> {
        self.nth
    }
}

impl ToolCallRule for AfterToolCallRule {
    fn tool(&self) -> Option<&str> {
        self.tool.as_deref()
    }
    fn nth(&self) -> Option<u64> {
        self.nth
    }
}

/// `shouldStopAfterTurn`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ShouldStopAfterTurnRule {
    #[serde(default)]
    pub on_calls: Vec<u64>,
    #[serde(default)]
    pub always: bool,
    pub when_tool_result: Option<String>,
    pub when_stop_reason: Option<StopReason>,
}

/// `transformContext`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TransformContextRule {
    #[serde(default)]
    pub drop_roles: Vec<String>,
    pub keep_last: Option<u64>,
}

/// `convertToLlm`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ConvertToLlmRule {
    #[serde(default)]
    pub map_roles: BTreeMap<String, String>,
    #[serde(default)]
    pub drop_roles: Vec<String>,
}

/// A `prepareNextTurn` rule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PrepareNextTurnRule {
    pub call: u64,
    pub model: Option<ModelSpec>,
    pub thinking_level: Option<ModelThinkingLevel>,
    pub context_keep_last: Option<u64>,
    pub system_prompt: Option<String>,
}

/// A model spec: an id, or `{ id, api?, provider?, reasoning?, input?, contextWindow?, maxTokens?, name? }`.
#[derive(Debug, Clone)]
pub enum ModelSpec {
    Id(String),
    Fields(ModelFields),
}

/// The object form of a [`ModelSpec`].
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ModelFields {
    pub id: String,
    pub name: Option<String>,
    pub api: Option<String>,
    pub provider: Option<String>,
    pub reasoning: Option<bool>,
    pub input: Option<Vec<InputModality>>,
    pub context_window: Option<u64>,
    pub max_tokens: Option<u64>,
}

impl<'de> Deserialize<'de> for ModelSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SpecVisitor;

        impl<'de> Visitor<'de> for SpecVisitor {
            type Value = ModelSpec;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a model id or a model object")
            }

            fn visit_str<E: de::Error>(self, id: &str) -> Result<ModelSpec, E> {
                Ok(ModelSpec::Id(id.to_string()))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ModelSpec, A::Error> {
                ModelFields::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(ModelSpec::Fields)
            }
        }

        deserializer.deserialize_any(SpecVisitor)
    }
}

impl ModelSpec {
    /// The pi-ai model the oracle expands this spec to.
    pub fn to_model(&self) -> Model {
        let mut model = Model::unknown();
        let fields = match self {
            ModelSpec::Id(id) => {
                model.id.clone_from(id);
                model.name.clone_from(id);
                None
            }
            ModelSpec::Fields(fields) => {
                model.id.clone_from(&fields.id);
                model.name = fields.name.clone().unwrap_or_else(|| fields.id.clone());
                Some(fields)
            }
        };
        model.api = match fields.and_then(|fields| fields.api.as_deref()) {
            // The static constant clones without allocating (every partial snapshot clones the api).
            None | Some("scripted") => pi_ai::Api::SCRIPTED,
            Some(api) => pi_ai::Api::new(api),
        };
        model.provider = fields
            .and_then(|fields| fields.provider.clone())
            .unwrap_or_else(|| "scripted".into());
        model.reasoning = fields.and_then(|fields| fields.reasoning).unwrap_or(false);
        model.input = fields
            .and_then(|fields| fields.input.clone())
            .unwrap_or_else(|| vec![InputModality::Text, InputModality::Image]);
        model.context_window = fields
            .and_then(|fields| fields.context_window)
            .unwrap_or(128_000);
        model.max_tokens = fields
            .and_then(|fields| fields.max_tokens)
            .unwrap_or(16_384);
        model
    }
}

/// One scripted tool.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ToolSpec {
    pub name: String,
    pub label: Option<String>,
    pub description: Option<String>,
    pub parameters: Option<Value>,
    pub execution_mode: Option<ToolExecutionMode>,
    pub prepare_arguments: Option<PrepareArguments>,
    pub behavior: Option<Vec<ToolOp>>,
    pub calls: Option<Vec<Vec<ToolOp>>>,
}

/// A tool's `prepareArguments` shim.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PrepareArguments {
    pub rename_keys: Option<BTreeMap<String, String>>,
}

/// One step of a scripted tool execution: an object with exactly one of these keys.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolOp {
    /// A partial result, sent through `on_update`.
    Update(Value),
    Sleep(u64),
    WaitForAbort(IgnoredAny),
    ThrowIfAborted(String),
    /// The tool's result, passed through as written.
    Return(Value),
    Throw(String),
    LateUpdate(LateUpdate),
    AbortAgent(IgnoredAny),
    /// A message spec to queue.
    Steer(Value),
    /// A message spec to queue.
    FollowUp(Value),
}

/// `{ "lateUpdate": { "delayMs": n, ...partialResult } }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LateUpdate {
    #[serde(default)]
    pub delay_ms: u64,
    #[serde(flatten)]
    pub partial: Map<String, Value>,
}

/// `model`: the scripted responses, shared with every run (a run takes them by reference, like node's harness).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ModelScript {
    #[serde(default = "no_responses", deserialize_with = "shared_list")]
    pub responses: Arc<[Arc<ResponseSpec>]>,
}

impl Default for ModelScript {
    fn default() -> Self {
        Self {
            responses: no_responses(),
        }
    }
}

fn no_responses() -> Arc<[Arc<ResponseSpec>]> {
    Arc::from([])
}

fn shared_list<'de, D, T>(deserializer: D) -> Result<Arc<[Arc<T>]>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let items = Vec::<T>::deserialize(deserializer)?;
    Ok(items.into_iter().map(Arc::new).collect())
}

/// One scripted model response.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResponseSpec {
    #[serde(default)]
    pub steps: Vec<StepSpec>,
    pub stop_reason: Option<ScriptedStopReason>,
    pub error_message: Option<String>,
    pub usage: Option<UsageSpec>,
    pub response_id: Option<String>,
    pub fail_before_start: Option<String>,
    /// The stream function itself fails with this message instead of returning a stream.
    pub throw: Option<String>,
}

/// The stop reasons a response may script.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ScriptedStopReason {
    Stop,
    Length,
    ToolUse,
    Error,
    Aborted,
}

impl From<ScriptedStopReason> for StopReason {
    fn from(reason: ScriptedStopReason) -> Self {
        match reason {
            ScriptedStopReason::Stop => StopReason::Stop,
            ScriptedStopReason::Length => StopReason::Length,
            ScriptedStopReason::ToolUse => StopReason::ToolUse,
            ScriptedStopReason::Error => StopReason::Error,
            ScriptedStopReason::Aborted => StopReason::Aborted,
        }
    }
}

/// A partial usage: counters default to 0, `totalTokens` to their sum, cost to zeros.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UsageSpec {
    #[serde(default)]
    pub input: u64,
    #[serde(default)]
    pub output: u64,
    #[serde(default)]
    pub cache_read: u64,
    #[serde(default)]
    pub cache_write: u64,
    pub total_tokens: Option<u64>,
    pub cost: Option<CostSpec>,
}

/// A partial cost; absent prices are zero.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CostSpec {
    pub input: Option<f64>,
    pub output: Option<f64>,
    pub cache_read: Option<f64>,
    pub cache_write: Option<f64>,
    pub total: Option<f64>,
}

/// One stream step of a response.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "StepFields")]
pub enum StepSpec {
    Text { chunks: Vec<String>, end: bool },
    Thinking { chunks: Vec<String>, end: bool },
    ToolCall { call: ToolCallStep, end: bool },
    Sleep(u64),
    WaitForAbort,
    Error(String),
}

/// A `toolCall` step's call. `args` is a JSON value (sent as one chunk) or a list of raw string chunks.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ToolCallStep {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default, deserialize_with = "present")]
    pub args: Option<Value>,
}

/// A step as written: exactly one kind key, plus `end` for the kinds that have an end event.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StepFields {
    text: Option<Vec<String>>,
    thinking: Option<Vec<String>>,
    tool_call: Option<ToolCallStep>,
    sleep: Option<u64>,
    wait_for_abort: Option<IgnoredAny>,
    error: Option<String>,
    end: Option<bool>,
}

impl TryFrom<StepFields> for StepSpec {
    type Error = String;

    fn try_from(fields: StepFields) -> Result<Self, String> {
        let StepFields {
            text,
            thinking,
            tool_call,
            sleep,
            wait_for_abort,
            error,
            end,
        } = fields;
        let mut kinds = Vec::new();
        if let Some(chunks) = text {
            kinds.push(StepSpec::Text {
                chunks,
                end: end != Some(false),
            });
        }
        if let Some(chunks) = thinking {
            kinds.push(StepSpec::Thinking {
                chunks,
                end: end != Some(false),
            });
        }
        if let Some(call) = tool_call {
            kinds.push(StepSpec::ToolCall {
                call,
                end: end != Some(false),
            });
        }
        let ends = !kinds.is_empty();
        if let Some(ms) = sleep {
            kinds.push(StepSpec::Sleep(ms));
        }
        if wait_for_abort.is_some() {
            kinds.push(StepSpec::WaitForAbort);
        }
        if let Some(message) = error {
            kinds.push(StepSpec::Error(message));
        }
        if kinds.len() != 1 {
            return Err(
                "a model step needs exactly one of text, thinking, toolCall, sleep, waitForAbort, error"
                    .into(),
            );
        }
        if end.is_some() && !ends {
            return Err("\"end\" is only allowed on text, thinking and toolCall steps".into());
        }
        Ok(kinds.remove(0))
    }
}

/// A hook: actions run by a listener at matching events.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HookSpec {
    #[serde(default)]
    pub on: EventFilter,
    #[serde(default)]
    pub actions: Vec<Action>,
}

/// The `on` filter of a hook.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EventFilter {
    #[serde(rename = "type")]
    pub event_type: Option<String>,
    pub nth: Option<u64>,
    pub tool_name: Option<String>,
    pub tool_call_id: Option<String>,
    pub role: Option<String>,
    pub update_type: Option<String>,
}

/// Trace options.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TraceOptions {
    #[serde(default)]
    pub partial_messages: PartialMessages,
}

/// Whether `message_update` events keep their `message` in the trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PartialMessages {
    #[default]
    Full,
    Omit,
}

/// A driver or hook action, by its `do`. Modes and thinking levels of the setters stay strings: an invalid one
/// is the action's logged failure, not a malformed scenario.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    tag = "do",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum Action {
    Prompt(PromptAction),
    Continue(ContinueAction),
    Await {
        id: String,
    },
    WaitForIdle {},
    Steer {
        message: Value,
    },
    FollowUp {
        message: Value,
    },
    Abort {},
    Reset {},
    SetSteeringMode {
        mode: String,
    },
    SetFollowUpMode {
        mode: String,
    },
    ClearQueues {
        #[serde(default)]
        which: QueueSelection,
    },
    HasQueuedMessages {},
    SetState {
        system_prompt: Option<String>,
        thinking_level: Option<String>,
        model: Option<ModelSpec>,
    },
    AssignMessages {
        #[serde(default)]
        messages: Vec<Value>,
        #[serde(default)]
        mutate_source: bool,
    },
    AssignTools {
        #[serde(default)]
        tools: Vec<String>,
        #[serde(default)]
        mutate_source: bool,
    },
    Snapshot {
        label: Option<String>,
        #[serde(default)]
        messages: bool,
    },
    Sleep {
        #[serde(default)]
        ms: u64,
    },
    /// Only in hooks: the listener fails.
    Throw {
        message: Option<String>,
    },
}

impl Action {
    /// The `do` name, as logged.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Prompt(_) => "prompt",
            Action::Continue(_) => "continue",
            Action::Await { .. } => "await",
            Action::WaitForIdle {} => "waitForIdle",
            Action::Steer { .. } => "steer",
            Action::FollowUp { .. } => "followUp",
            Action::Abort {} => "abort",
            Action::Reset {} => "reset",
            Action::SetSteeringMode { .. } => "setSteeringMode",
            Action::SetFollowUpMode { .. } => "setFollowUpMode",
            Action::ClearQueues { .. } => "clearQueues",
            Action::HasQueuedMessages {} => "hasQueuedMessages",
            Action::SetState { .. } => "setState",
            Action::AssignMessages { .. } => "assignMessages",
            Action::AssignTools { .. } => "assignTools",
            Action::Snapshot { .. } => "snapshot",
            Action::Sleep { .. } => "sleep",
            Action::Throw { .. } => "throw",
        }
    }
}

/// Which queue `clearQueues` clears.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum QueueSelection {
    Steering,
    FollowUp,
    #[default]
    All,
}

/// `prompt`: what it sends, and whether the driver waits for it.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "PromptFields")]
pub struct PromptAction {
    pub prompt: PromptSpec,
    pub run: RunFlags,
}

/// What a prompt action sends.
#[derive(Debug, Clone)]
pub enum PromptSpec {
    Text { text: String, images: Option<Value> },
    Message(Value),
    Messages(Vec<Value>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PromptFields {
    text: Option<String>,
    images: Option<Value>,
    message: Option<Value>,
    messages: Option<Vec<Value>>,
    #[serde(rename = "await")]
    wait: Option<bool>,
    id: Option<String>,
}

impl TryFrom<PromptFields> for PromptAction {
    type Error = String;

    fn try_from(fields: PromptFields) -> Result<Self, String> {
        let prompt = match (fields.messages, fields.message, fields.text) {
            (Some(messages), _, _) => PromptSpec::Messages(messages),
            (None, Some(message), _) => PromptSpec::Message(message),
            (None, None, Some(text)) => PromptSpec::Text {
                text,
                images: fields.images,
            },
            (None, None, None) => {
                return Err("a prompt needs \"text\", \"message\" or \"messages\"".into());
            }
        };
        Ok(PromptAction {
            prompt,
            run: RunFlags::new("prompt", fields.wait, fields.id)?,
        })
    }
}

/// `continue`.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "ContinueFields")]
pub struct ContinueAction {
    pub run: RunFlags,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContinueFields {
    #[serde(rename = "await")]
    wait: Option<bool>,
    id: Option<String>,
}

impl TryFrom<ContinueFields> for ContinueAction {
    type Error = String;

    fn try_from(fields: ContinueFields) -> Result<Self, String> {
        Ok(ContinueAction {
            run: RunFlags::new("continue", fields.wait, fields.id)?,
        })
    }
}

/// `await` (default true) and `id` of a prompt or continue; a non-awaited one needs an id to be awaited by.
#[derive(Debug, Clone)]
pub struct RunFlags {
    pub wait: bool,
    pub id: Option<String>,
}

impl RunFlags {
    fn new(kind: &str, wait: Option<bool>, id: Option<String>) -> Result<Self, String> {
        let wait = wait.unwrap_or(true);
        if !wait && id.is_none() {
            return Err(format!("a non-awaited {kind} needs an id"));
        }
        Ok(RunFlags { wait, id })
    }
}

/// Deserializes a field that is present, keeping `null` as `Some(Value::Null)` (absent is `None` via `default`).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// Reads and parses a scenario file; its `name` must equal the file name.
pub fn load_scenario(path: &Path) -> Result<Scenario, HarnessError> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| HarnessError::new(format!("{}: cannot read: {error}", path.display())))?;
    let scenario = parse_scenario(&text)
        .map_err(|error| HarnessError::new(format!("{}: {error}", path.display())))?;
    let stem = path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or_default();
    if scenario.name != stem {
        return Err(HarnessError::new(format!(
            "{}: scenario name {:?} must equal the file name {stem}",
            path.display(),
            scenario.name
        )));
    }
    Ok(scenario)
}

/// Parses a scenario from its JSON text.
pub fn parse_scenario(text: &str) -> Result<Scenario, HarnessError> {
    let scenario: Scenario = serde_json::from_str(text)
        .map_err(|error| HarnessError::new(format!("invalid scenario: {error}")))?;
    if let Some(index) = scenario
        .driver
        .iter()
        .position(|action| matches!(action, Action::Throw { .. }))
    {
        return Err(HarnessError::new(format!(
            "driver[{index}]: \"throw\" is only allowed in hooks"
        )));
    }
    Ok(scenario)
}
