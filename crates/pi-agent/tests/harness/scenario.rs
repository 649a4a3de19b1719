//! The scenario file format (SCENARIOS.md sections 1–6), parsed strictly: an unknown key or a malformed value is a
//! clear [`HarnessError`] naming where it is, never a panic or a silently ignored field.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::HarnessError;

/// One scenario file.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    pub agent: AgentSpec,
    pub tools: Vec<ToolSpec>,
    /// Shared, like node's harness holds the scenario's array: a run takes responses by reference.
    pub responses: Arc<[Arc<Value>]>,
    pub hooks: Vec<HookSpec>,
    pub driver: Vec<Action>,
    pub omit_partial_messages: bool,
    pub timeout_ms: u64,
}

/// `agent`: initial state and loop options.
#[derive(Debug, Clone, Default)]
pub struct AgentSpec {
    pub system_prompt: Option<String>,
    pub thinking_level: Option<String>,
    pub model: Option<Value>,
    pub messages: Vec<Value>,
    pub active_tools: Option<Vec<String>>,
    pub tool_execution: Option<String>,
    pub steering_mode: Option<String>,
    pub follow_up_mode: Option<String>,
    pub before_tool_call: Option<Vec<Map<String, Value>>>,
    pub after_tool_call: Option<Vec<Map<String, Value>>>,
    pub should_stop_after_turn: Option<Map<String, Value>>,
    pub transform_context: Option<Map<String, Value>>,
    pub convert_to_llm: Option<Map<String, Value>>,
    pub prepare_next_turn: Option<Vec<Map<String, Value>>>,
}

/// One scripted tool.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: String,
    pub label: Option<String>,
    pub description: Option<String>,
    pub parameters: Option<Value>,
    pub execution_mode: Option<String>,
    pub rename_keys: Option<Map<String, Value>>,
    pub behavior: Option<Vec<Value>>,
    pub calls: Option<Vec<Vec<Value>>>,
}

/// A hook: actions run by a listener at matching events.
#[derive(Debug, Clone)]
pub struct HookSpec {
    pub filter: EventFilter,
    pub actions: Vec<Action>,
}

/// The `on` filter of a hook.
#[derive(Debug, Clone, Default)]
pub struct EventFilter {
    pub event_type: Option<String>,
    pub nth: Option<u64>,
    pub tool_name: Option<String>,
    pub tool_call_id: Option<String>,
    pub role: Option<String>,
    pub update_type: Option<String>,
}

/// What a prompt action sends.
#[derive(Debug, Clone)]
pub enum PromptSpec {
    Text { text: String, images: Option<Value> },
    Message(Value),
    Messages(Vec<Value>),
}

/// A driver or hook action.
#[derive(Debug, Clone)]
pub enum Action {
    Prompt {
        prompt: PromptSpec,
        wait: bool,
        id: Option<String>,
    },
    Continue {
        wait: bool,
        id: Option<String>,
    },
    Await {
        id: String,
    },
    WaitForIdle,
    Steer {
        message: Value,
    },
    FollowUp {
        message: Value,
    },
    Abort,
    Reset,
    SetSteeringMode {
        mode: String,
    },
    SetFollowUpMode {
        mode: String,
    },
    ClearQueues {
        which: String,
    },
    HasQueuedMessages,
    SetState {
        system_prompt: Option<String>,
        thinking_level: Option<String>,
        model: Option<Value>,
    },
    AssignMessages {
        messages: Vec<Value>,
        mutate_source: bool,
    },
    AssignTools {
        tools: Vec<String>,
        mutate_source: bool,
    },
    Snapshot {
        label: Option<String>,
        messages: bool,
    },
    Sleep {
        ms: u64,
    },
    Throw {
        message: Option<String>,
    },
}

impl Action {
    /// The `do` name, as logged.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Prompt { .. } => "prompt",
            Action::Continue { .. } => "continue",
            Action::Await { .. } => "await",
            Action::WaitForIdle => "waitForIdle",
            Action::Steer { .. } => "steer",
            Action::FollowUp { .. } => "followUp",
            Action::Abort => "abort",
            Action::Reset => "reset",
            Action::SetSteeringMode { .. } => "setSteeringMode",
            Action::SetFollowUpMode { .. } => "setFollowUpMode",
            Action::ClearQueues { .. } => "clearQueues",
            Action::HasQueuedMessages => "hasQueuedMessages",
            Action::SetState { .. } => "setState",
            Action::AssignMessages { .. } => "assignMessages",
            Action::AssignTools { .. } => "assignTools",
            Action::Snapshot { .. } => "snapshot",
            Action::Sleep { .. } => "sleep",
            Action::Throw { .. } => "throw",
        }
    }
}

/// Reads and parses a scenario file; its `name` must equal the file name.
pub fn load_scenario(path: &Path) -> Result<Scenario, HarnessError> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| HarnessError::new(format!("{}: cannot read: {error}", path.display())))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|error| HarnessError::new(format!("{}: invalid JSON: {error}", path.display())))?;
    let scenario = parse_scenario(&value)
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

/// Parses a scenario object.
pub fn parse_scenario(value: &Value) -> Result<Scenario, HarnessError> {
    let object = Fields::new(
        value,
        "scenario",
        &[
            "name",
            "description",
            "agent",
            "tools",
            "model",
            "hooks",
            "driver",
            "trace",
            "timeoutMs",
        ],
    )?;
    let name = object.required_string("name")?;
    object.optional_string("description")?;
    let agent = match object.get("agent") {
        Some(agent) => parse_agent(agent)?,
        None => AgentSpec::default(),
    };
    let tools = object
        .optional_array("tools")?
        .iter()
        .enumerate()
        .map(|(i, tool)| parse_tool(tool, i))
        .collect::<Result<_, _>>()?;
    let responses = match object.get("model") {
        Some(model) => {
            let model = Fields::new(model, "model", &["responses"])?;
            let responses = model.optional_array("responses")?;
            for (index, response) in responses.iter().enumerate() {
                validate_response(response, index)?;
            }
            responses.iter().cloned().map(Arc::new).collect()
        }
        None => Arc::from([]),
    };
    let hooks = object
        .optional_array("hooks")?
        .iter()
        .enumerate()
        .map(|(index, hook)| parse_hook(hook, index))
        .collect::<Result<_, _>>()?;
    let driver = object
        .optional_array("driver")?
        .iter()
        .enumerate()
        .map(|(index, action)| parse_action(action, &format!("driver[{index}]"), false))
        .collect::<Result<_, _>>()?;
    let omit_partial_messages = match object.get("trace") {
        Some(trace) => {
            let trace = Fields::new(trace, "trace", &["partialMessages"])?;
            match trace.optional_string("partialMessages")?.as_deref() {
                None | Some("full") => false,
                Some("omit") => true,
                Some(other) => {
                    return Err(HarnessError::new(format!(
                        "trace.partialMessages: unknown value {other:?}"
                    )));
                }
            }
        }
        None => false,
    };
    let timeout_ms = object.optional_u64("timeoutMs")?.unwrap_or(10_000);
    Ok(Scenario {
        name,
        agent,
        tools,
        responses,
        hooks,
        driver,
        omit_partial_messages,
        timeout_ms,
    })
}

fn parse_agent(value: &Value) -> Result<AgentSpec, HarnessError> {
    let object = Fields::new(
        value,
        "agent",
        &[
            "systemPrompt",
            "thinkingLevel",
            "model",
            "messages",
            "activeTools",
            "toolExecution",
            "steeringMode",
            "followUpMode",
            "beforeToolCall",
            "afterToolCall",
            "shouldStopAfterTurn",
            "transformContext",
            "convertToLlm",
            "prepareNextTurn",
        ],
    )?;
    let rules =
        |key: &str, allowed: &[&str]| -> Result<Option<Vec<Map<String, Value>>>, HarnessError> {
            match object.get(key) {
                None => Ok(None),
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| {
                        Fields::new(item, &format!("agent.{key}[{index}]"), allowed)
                            .map(|fields| fields.map.clone())
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(Some),
                Some(other) => Err(HarnessError::new(format!(
                    "agent.{key}: expected a list of rules, got {other}"
                ))),
            }
        };
    let rule = |key: &str, allowed: &[&str]| -> Result<Option<Map<String, Value>>, HarnessError> {
        object
            .get(key)
            .map(|item| {
                Fields::new(item, &format!("agent.{key}"), allowed).map(|fields| fields.map.clone())
            })
            .transpose()
    };
    let spec = AgentSpec {
        system_prompt: object.optional_string("systemPrompt")?,
        thinking_level: object.optional_string("thinkingLevel")?,
        model: object.get("model").cloned(),
        messages: object.optional_array("messages")?.to_vec(),
        active_tools: object
            .get("activeTools")
            .map(|names| string_list(names, "agent.activeTools"))
            .transpose()?,
        tool_execution: object.optional_string("toolExecution")?,
        steering_mode: object.optional_string("steeringMode")?,
        follow_up_mode: object.optional_string("followUpMode")?,
        before_tool_call: rules(
            "beforeToolCall",
            &[
                "tool",
                "nth",
                "block",
                "reason",
                "terminate",
                "throw",
                "abort",
                "delayMs",
            ],
        )?,
        after_tool_call: rules(
            "afterToolCall",
            &[
                "tool",
                "nth",
                "content",
                "details",
                "isError",
                "usage",
                "terminate",
                "throw",
            ],
        )?,
        should_stop_after_turn: rule(
            "shouldStopAfterTurn",
            &["onCalls", "always", "whenToolResult", "whenStopReason"],
        )?,
        transform_context: rule("transformContext", &["dropRoles", "keepLast"])?,
        convert_to_llm: rule("convertToLlm", &["mapRoles", "dropRoles"])?,
        prepare_next_turn: rules(
            "prepareNextTurn",
            &[
                "call",
                "model",
                "thinkingLevel",
                "contextKeepLast",
                "systemPrompt",
            ],
        )?,
    };
    if let Some(model) = &spec.model {
        validate_model_spec(model, "agent.model")?;
    }
    Ok(spec)
}

/// A model spec is an id or `{ id, api?, provider?, reasoning?, input?, contextWindow?, maxTokens?, name? }`.
pub fn validate_model_spec(value: &Value, at: &str) -> Result<(), HarnessError> {
    if value.is_string() {
        return Ok(());
    }
    let object = Fields::new(
        value,
        at,
        &[
            "id",
            "name",
            "api",
            "provider",
            "reasoning",
            "input",
            "contextWindow",
            "maxTokens",
        ],
    )?;
    object.required_string("id").map(|_| ())
}

fn parse_tool(value: &Value, index: usize) -> Result<ToolSpec, HarnessError> {
    let at = format!("tools[{index}]");
    let object = Fields::new(
        value,
        &at,
        &[
            "name",
            "label",
            "description",
            "parameters",
            "executionMode",
            "prepareArguments",
            "behavior",
            "calls",
        ],
    )?;
    let ops = |list: &Value, where_: &str| -> Result<Vec<Value>, HarnessError> {
        let Value::Array(items) = list else {
            return Err(HarnessError::new(format!(
                "{where_}: expected a list of ops"
            )));
        };
        for (op_index, op) in items.iter().enumerate() {
            validate_tool_op(op, &format!("{where_}[{op_index}]"))?;
        }
        Ok(items.clone())
    };
    let rename_keys = match object.get("prepareArguments") {
        None => None,
        Some(prepare) => {
            let prepare = Fields::new(prepare, &format!("{at}.prepareArguments"), &["renameKeys"])?;
            match prepare.get("renameKeys") {
                None => None,
                Some(Value::Object(map)) => Some(map.clone()),
                Some(_) => {
                    return Err(HarnessError::new(format!(
                        "{at}.prepareArguments.renameKeys: expected an object"
                    )));
                }
            }
        }
    };
    let calls = match object.get("calls") {
        None => None,
        Some(Value::Array(calls)) => Some(
            calls
                .iter()
                .enumerate()
                .map(|(call, list)| ops(list, &format!("{at}.calls[{call}]")))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => {
            return Err(HarnessError::new(format!(
                "{at}.calls: expected a list of op lists"
            )));
        }
    };
    let execution_mode = object.optional_string("executionMode")?;
    if let Some(mode) = &execution_mode {
        if mode != "sequential" && mode != "parallel" {
            return Err(HarnessError::new(format!(
                "{at}.executionMode: unknown value {mode:?}"
            )));
        }
    }
    Ok(ToolSpec {
        name: object.required_string("name")?,
        label: object.optional_string("label")?,
        description: object.optional_string("description")?,
        parameters: object.get("parameters").cloned(),
        execution_mode,
        rename_keys,
        behavior: object
            .get("behavior")
            .map(|list| ops(list, &format!("{at}.behavior")))
            .transpose()?,
        calls,
    })
}

fn validate_tool_op(op: &Value, at: &str) -> Result<(), HarnessError> {
    let Value::Object(map) = op else {
        return Err(HarnessError::new(format!(
            "{at}: a tool op must be an object"
        )));
    };
    let known = [
        "update",
        "sleep",
        "waitForAbort",
        "throwIfAborted",
        "return",
        "throw",
        "lateUpdate",
        "abortAgent",
        "steer",
        "followUp",
    ];
    if map.len() != 1 || !map.keys().all(|key| known.contains(&key.as_str())) {
        return Err(HarnessError::new(format!("{at}: unknown tool op {op}")));
    }
    Ok(())
}

fn validate_response(response: &Value, index: usize) -> Result<(), HarnessError> {
    let at = format!("model.responses[{index}]");
    let object = Fields::new(
        response,
        &at,
        &[
            "steps",
            "stopReason",
            "errorMessage",
            "usage",
            "responseId",
            "failBeforeStart",
            "throw",
        ],
    )?;
    for (step_index, step) in object.optional_array("steps")?.iter().enumerate() {
        let step_at = format!("{at}.steps[{step_index}]");
        let Value::Object(map) = step else {
            return Err(HarnessError::new(format!(
                "{step_at}: a step must be an object"
            )));
        };
        let kind = [
            "text",
            "thinking",
            "toolCall",
            "sleep",
            "waitForAbort",
            "error",
        ]
        .into_iter()
        .find(|kind| map.contains_key(*kind))
        .ok_or_else(|| HarnessError::new(format!("{step_at}: unknown model step {step}")))?;
        let allowed: &[&str] = match kind {
            "text" | "thinking" | "toolCall" => &[kind, "end"],
            _ => &[kind],
        };
        Fields::new(step, &step_at, allowed)?;
        if kind == "toolCall" {
            Fields::new(
                &map[kind],
                &format!("{step_at}.toolCall"),
                &["id", "name", "args"],
            )?;
        }
    }
    if let Some(reason) = object.optional_string("stopReason")? {
        if !["stop", "length", "toolUse", "error", "aborted"].contains(&reason.as_str()) {
            return Err(HarnessError::new(format!(
                "{at}.stopReason: unknown value {reason:?}"
            )));
        }
    }
    Ok(())
}

fn parse_hook(value: &Value, index: usize) -> Result<HookSpec, HarnessError> {
    let at = format!("hooks[{index}]");
    let object = Fields::new(value, &at, &["on", "actions"])?;
    let filter = match object.get("on") {
        None => EventFilter::default(),
        Some(on) => {
            let on = Fields::new(
                on,
                &format!("{at}.on"),
                &[
                    "type",
                    "nth",
                    "toolName",
                    "toolCallId",
                    "role",
                    "updateType",
                ],
            )?;
            EventFilter {
                event_type: on.optional_string("type")?,
                nth: on.optional_u64("nth")?,
                tool_name: on.optional_string("toolName")?,
                tool_call_id: on.optional_string("toolCallId")?,
                role: on.optional_string("role")?,
                update_type: on.optional_string("updateType")?,
            }
        }
    };
    let actions = object
        .optional_array("actions")?
        .iter()
        .enumerate()
        .map(|(action, item)| parse_action(item, &format!("{at}.actions[{action}]"), true))
        .collect::<Result<_, _>>()?;
    Ok(HookSpec { filter, actions })
}

fn parse_action(value: &Value, at: &str, in_hook: bool) -> Result<Action, HarnessError> {
    let Value::Object(map) = value else {
        return Err(HarnessError::new(format!(
            "{at}: an action must be an object"
        )));
    };
    let Some(Value::String(kind)) = map.get("do") else {
        return Err(HarnessError::new(format!("{at}: missing \"do\"")));
    };
    let fields = |allowed: &[&str]| -> Result<Fields<'_>, HarnessError> {
        let mut all = vec!["do"];
        all.extend_from_slice(allowed);
        Fields::new(value, at, &all)
    };
    let run_flags = |object: &Fields<'_>| -> Result<(bool, Option<String>), HarnessError> {
        let wait = object.optional_bool("await")?.unwrap_or(true);
        let id = object.optional_string("id")?;
        if !wait && id.is_none() {
            return Err(HarnessError::new(format!(
                "{at}: a non-awaited {kind} needs an id"
            )));
        }
        Ok((wait, id))
    };
    let action = match kind.as_str() {
        "prompt" => {
            let object = fields(&["text", "images", "message", "messages", "await", "id"])?;
            let prompt = if let Some(messages) = object.get("messages") {
                let Value::Array(messages) = messages else {
                    return Err(HarnessError::new(format!("{at}.messages: expected a list")));
                };
                PromptSpec::Messages(messages.clone())
            } else if let Some(message) = object.get("message") {
                PromptSpec::Message(message.clone())
            } else {
                PromptSpec::Text {
                    text: object.required_string("text")?,
                    images: object.get("images").cloned(),
                }
            };
            let (wait, id) = run_flags(&object)?;
            Action::Prompt { prompt, wait, id }
        }
        "continue" => {
            let object = fields(&["await", "id"])?;
            let (wait, id) = run_flags(&object)?;
            Action::Continue { wait, id }
        }
        "await" => Action::Await {
            id: fields(&["id"])?.required_string("id")?,
        },
        "waitForIdle" => {
            fields(&[])?;
            Action::WaitForIdle
        }
        "steer" => Action::Steer {
            message: fields(&["message"])?.required("message")?.clone(),
        },
        "followUp" => Action::FollowUp {
            message: fields(&["message"])?.required("message")?.clone(),
        },
        "abort" => {
            fields(&[])?;
            Action::Abort
        }
        "reset" => {
            fields(&[])?;
            Action::Reset
        }
        "setSteeringMode" => Action::SetSteeringMode {
            mode: fields(&["mode"])?.required_string("mode")?,
        },
        "setFollowUpMode" => Action::SetFollowUpMode {
            mode: fields(&["mode"])?.required_string("mode")?,
        },
        "clearQueues" => {
            let which = fields(&["which"])?
                .optional_string("which")?
                .unwrap_or_else(|| "all".into());
            if !["steering", "followUp", "all"].contains(&which.as_str()) {
                return Err(HarnessError::new(format!(
                    "{at}.which: unknown value {which:?}"
                )));
            }
            Action::ClearQueues { which }
        }
        "hasQueuedMessages" => {
            fields(&[])?;
            Action::HasQueuedMessages
        }
        "setState" => {
            let object = fields(&["systemPrompt", "thinkingLevel", "model"])?;
            let model = object.get("model").cloned();
            if let Some(model) = &model {
                validate_model_spec(model, &format!("{at}.model"))?;
            }
            Action::SetState {
                system_prompt: object.optional_string("systemPrompt")?,
                thinking_level: object.optional_string("thinkingLevel")?,
                model,
            }
        }
        "assignMessages" => {
            let object = fields(&["messages", "mutateSource"])?;
            Action::AssignMessages {
                messages: object.optional_array("messages")?.to_vec(),
                mutate_source: object.optional_bool("mutateSource")?.unwrap_or(false),
            }
        }
        "assignTools" => {
            let object = fields(&["tools", "mutateSource"])?;
            Action::AssignTools {
                tools: object
                    .get("tools")
                    .map(|tools| string_list(tools, &format!("{at}.tools")))
                    .transpose()?
                    .unwrap_or_default(),
                mutate_source: object.optional_bool("mutateSource")?.unwrap_or(false),
            }
        }
        "snapshot" => {
            let object = fields(&["label", "messages"])?;
            Action::Snapshot {
                label: object.optional_string("label")?,
                messages: object.optional_bool("messages")?.unwrap_or(false),
            }
        }
        "sleep" => Action::Sleep {
            ms: fields(&["ms"])?.optional_u64("ms")?.unwrap_or(0),
        },
        "throw" => {
            if !in_hook {
                return Err(HarnessError::new(format!(
                    "{at}: \"throw\" is only allowed in hooks"
                )));
            }
            Action::Throw {
                message: fields(&["message"])?.optional_string("message")?,
            }
        }
        other => return Err(HarnessError::new(format!("{at}: unknown action {other:?}"))),
    };
    Ok(action)
}

fn string_list(value: &Value, at: &str) -> Result<Vec<String>, HarnessError> {
    let Value::Array(items) = value else {
        return Err(HarnessError::new(format!(
            "{at}: expected a list of strings"
        )));
    };
    items
        .iter()
        .map(|item| {
            item.as_str()
                .map(str::to_string)
                .ok_or_else(|| HarnessError::new(format!("{at}: expected strings, got {item}")))
        })
        .collect()
}

/// A JSON object whose keys were checked against an allow-list.
struct Fields<'a> {
    map: &'a Map<String, Value>,
    at: String,
}

impl<'a> Fields<'a> {
    fn new(value: &'a Value, at: &str, allowed: &[&str]) -> Result<Self, HarnessError> {
        let Value::Object(map) = value else {
            return Err(HarnessError::new(format!(
                "{at}: expected an object, got {value}"
            )));
        };
        if let Some(unknown) = map.keys().find(|key| !allowed.contains(&key.as_str())) {
            return Err(HarnessError::new(format!(
                "{at}: unknown field {unknown:?}"
            )));
        }
        Ok(Self {
            map,
            at: at.to_string(),
        })
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    fn required(&self, key: &str) -> Result<&'a Value, HarnessError> {
        self.get(key)
            .ok_or_else(|| HarnessError::new(format!("{}: missing field {key:?}", self.at)))
    }

    fn required_string(&self, key: &str) -> Result<String, HarnessError> {
        self.optional_string(key)?
            .ok_or_else(|| HarnessError::new(format!("{}: missing field {key:?}", self.at)))
    }

    fn optional_string(&self, key: &str) -> Result<Option<String>, HarnessError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(HarnessError::new(format!(
                "{}.{key}: expected a string, got {other}",
                self.at
            ))),
        }
    }

    fn optional_bool(&self, key: &str) -> Result<Option<bool>, HarnessError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(other) => Err(HarnessError::new(format!(
                "{}.{key}: expected a boolean, got {other}",
                self.at
            ))),
        }
    }

    fn optional_u64(&self, key: &str) -> Result<Option<u64>, HarnessError> {
        match self.get(key) {
            None => Ok(None),
            Some(value) => value
                .as_u64()
                .or_else(|| {
                    value
                        .as_f64()
                        .filter(|n| *n >= 0.0 && n.fract() == 0.0)
                        .map(|n| n as u64)
                })
                .map(Some)
                .ok_or_else(|| {
                    HarnessError::new(format!(
                        "{}.{key}: expected a non-negative integer, got {value}",
                        self.at
                    ))
                }),
        }
    }

    fn optional_array(&self, key: &str) -> Result<&'a [Value], HarnessError> {
        match self.get(key) {
            None => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(HarnessError::new(format!(
                "{}.{key}: expected a list, got {other}",
                self.at
            ))),
        }
    }
}
