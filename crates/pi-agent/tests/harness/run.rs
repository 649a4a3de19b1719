//! One scenario run: builds the agent, subscribes the recorder and the hook runner, drives the script with the
//! quiescence rule, and assembles the trace (SCENARIOS.md sections 5–8).

use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use futures_util::FutureExt;
use pi_agent::{
    Agent, AgentError, AgentEvent, AgentInitialState, AgentMessage, AgentOptions, HookError,
    PromptInput, QueueMode, SharedAgentTool, WeakAgent,
};
use pi_ai::{ImageContent, ModelThinkingLevel, UserBlock};
use serde_json::{Map, Value, json};
use tokio::task::JoinHandle;

use super::recorder::{Log, Recorder};
use super::scenario::{
    Action, ContinueAction, EventFilter, HookSpec, ModelSpec, PartialMessages, PromptAction,
    PromptSpec, QueueSelection, Scenario,
};
use super::scripted_model::scripted_stream_fn;
use super::scripted_tool::ScriptedTool;
use super::trace::{normalize, object};
use super::{HarnessError, expand_message, loop_hooks, parse_thinking_level};

/// What a settled prompt/continue/… logs.
type Outcome = Vec<(&'static str, Value)>;

/// A started, not yet awaited prompt/continue.
type RunHandle = JoinHandle<Result<(), AgentError>>;

/// State shared by the driver and the listeners of one run.
struct RunContext {
    agent: WeakAgent,
    recorder: Arc<Recorder>,
    tools: Vec<(String, SharedAgentTool)>,
    hooks: Vec<HookSpec>,
    hook_counts: Mutex<Vec<u64>>,
    pending: Mutex<Vec<(String, RunHandle)>>,
}

/// Runs one scenario and returns its trace.
pub async fn run_scenario(scenario: &Scenario, record_events: bool) -> Result<Value, HarnessError> {
    let omit_partial_messages = scenario.trace.partial_messages == PartialMessages::Omit;
    let recorder = Arc::new(Recorder::new(record_events, omit_partial_messages));
    let agent_slot: Arc<OnceLock<WeakAgent>> = Arc::new(OnceLock::new());
    let tools: Vec<(String, SharedAgentTool)> = scenario
        .tools
        .iter()
        .map(|spec| {
            let tool: SharedAgentTool = Arc::new(ScriptedTool::new(
                spec.clone(),
                Arc::clone(&recorder),
                Arc::clone(&agent_slot),
            ));
            (spec.name.clone(), tool)
        })
        .collect();
    let agent = build_agent(scenario, &tools, &recorder, &agent_slot)?;
    let _ = agent_slot.set(agent.downgrade());

    let context = Arc::new(RunContext {
        agent: agent.downgrade(),
        recorder: Arc::clone(&recorder),
        tools,
        hooks: scenario.hooks.clone(),
        hook_counts: Mutex::new(vec![0; scenario.hooks.len()]),
        pending: Mutex::new(Vec::new()),
    });
    // The recorder is subscribed first, so hooks see the event already recorded.
    let record = Arc::clone(&recorder);
    let _recording = agent.subscribe_sync(move |event: &AgentEvent, _cancel| {
        record
            .record_event(event)
            .map_err(|error| HookError::new(error.to_string()))
    });
    if !scenario.hooks.is_empty() {
        let hooks = Arc::clone(&context);
        let _hooks = agent.subscribe(move |event: Arc<AgentEvent>, _cancel| {
            let hooks = Arc::clone(&hooks);
            async move {
                hooks
                    .run_hooks(&event)
                    .await
                    .map_err(|error| HookError::new(error.to_string()))
            }
        });
    }

    let drive = drive(&context, &agent, &scenario.driver);
    match tokio::time::timeout(Duration::from_millis(scenario.timeout_ms), drive).await {
        Ok(outcome) => outcome?,
        Err(_) => {
            agent.abort();
            return Err(HarnessError::new(format!(
                "scenario timed out after {} ms",
                scenario.timeout_ms
            )));
        }
    }

    let mut final_snapshot = context.snapshot_value(&agent, None, true)?;
    if let Value::Object(map) = &mut final_snapshot {
        // `shift_remove` keeps the remaining keys in order (the oracle's file layout).
        map.shift_remove("seq");
        map.shift_remove("label");
        map.shift_remove("at");
    }
    let recorded = recorder.finish();
    Ok(object([
        ("scenario", Value::String(scenario.name.clone())),
        ("eventCount", Value::from(recorded.event_count)),
        ("events", Value::Array(recorded.events)),
        ("requests", Value::Array(recorded.requests)),
        ("toolExecutions", Value::Array(recorded.tool_executions)),
        ("hookCalls", Value::Array(recorded.hook_calls)),
        ("actions", Value::Array(recorded.actions)),
        ("snapshots", Value::Array(recorded.snapshots)),
        ("final", final_snapshot),
    ]))
}

fn build_agent(
    scenario: &Scenario,
    tools: &[(String, SharedAgentTool)],
    recorder: &Arc<Recorder>,
    agent_slot: &Arc<OnceLock<WeakAgent>>,
) -> Result<Agent, HarnessError> {
    let spec = &scenario.agent;
    let mut options = AgentOptions::new(scripted_stream_fn(
        Arc::clone(&scenario.model.responses),
        Arc::clone(recorder),
    ));
    let active: Vec<SharedAgentTool> = match &spec.active_tools {
        None => tools.iter().map(|(_, tool)| Arc::clone(tool)).collect(),
        Some(names) => names
            .iter()
            .map(|name| {
                find_tool(tools, name).ok_or_else(|| {
                    HarnessError::new(format!("agent.activeTools: unknown tool {name}"))
                })
            })
            .collect::<Result<_, _>>()?,
    };
    options.initial_state = AgentInitialState {
        system_prompt: Some(spec.system_prompt.clone().unwrap_or_default()),
        model: spec.model.as_ref().map(ModelSpec::to_model),
        thinking_level: Some(spec.thinking_level.unwrap_or(ModelThinkingLevel::Off)),
        tools: active,
        messages: spec
            .messages
            .iter()
            .map(expand_message)
            .collect::<Result<_, _>>()?,
    };
    if let Some(mode) = spec.tool_execution {
        options.config.tool_execution = mode;
    }
    if let Some(mode) = spec.steering_mode {
        options.steering_mode = mode;
    }
    if let Some(mode) = spec.follow_up_mode {
        options.follow_up_mode = mode;
    }
    loop_hooks::install(&mut options.config, spec, recorder, agent_slot)?;
    Ok(Agent::new(options))
}

fn find_tool(tools: &[(String, SharedAgentTool)], name: &str) -> Option<SharedAgentTool> {
    tools
        .iter()
        .find(|(tool_name, _)| tool_name == name)
        .map(|(_, tool)| Arc::clone(tool))
}

fn parse_queue_mode(mode: &str) -> Result<QueueMode, HarnessError> {
    match mode {
        "all" => Ok(QueueMode::All),
        "one-at-a-time" => Ok(QueueMode::OneAtATime),
        other => Err(HarnessError::new(format!("unknown queue mode {other:?}"))),
    }
}

/// Runs the driver script, waiting for quiescence after each top-level action, then settles what is left.
async fn drive(
    context: &Arc<RunContext>,
    agent: &Agent,
    driver: &[Action],
) -> Result<(), HarnessError> {
    for (index, action) in driver.iter().enumerate() {
        context
            .perform(action, &format!("driver[{index}]"), false)
            .await?;
        settle().await;
    }
    let pending: Vec<_> = std::mem::take(
        &mut *context
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner),
    );
    for (id, handle) in pending {
        let outcome = join_outcome(handle).await;
        context.log_action("end", "await", Some(&id), outcome);
    }
    agent.wait_for_idle().await;
    Ok(())
}

/// Waits until every task is blocked on a timer or on cancellation: with paused time the clock only advances
/// when the runtime is otherwise idle, so a 1 ms sleep returns exactly at quiescence.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(1)).await;
}

fn run_outcome(outcome: Result<(), AgentError>) -> Outcome {
    match outcome {
        Ok(()) => vec![("outcome", Value::String("ok".into()))],
        Err(error) => threw(&error.to_string()),
    }
}

fn threw(message: &str) -> Outcome {
    vec![
        ("outcome", Value::String("threw".into())),
        ("error", Value::String(message.to_string())),
    ]
}

fn ok_value(value: Option<Value>) -> Outcome {
    let mut outcome = vec![("outcome", Value::String("ok".into()))];
    if let Some(value) = value {
        outcome.push(("value", value));
    }
    outcome
}

async fn join_outcome(handle: JoinHandle<Result<(), AgentError>>) -> Outcome {
    match handle.await {
        Ok(outcome) => run_outcome(outcome),
        Err(error) => threw(&format!("run task failed: {error}")),
    }
}

fn event_matches(filter: &EventFilter, event: &AgentEvent) -> bool {
    let tool = event.tool_call();
    let role = match event {
        AgentEvent::TurnEnd { .. } => Some("assistant"),
        other => other.message().map(AgentMessage::role),
    };
    let update_type = match event {
        AgentEvent::MessageUpdate {
            assistant_message_event,
            ..
        } => Some(assistant_message_event.event_type()),
        _ => None,
    };
    filter
        .event_type
        .as_deref()
        .is_none_or(|kind| kind == event.event_type())
        && filter
            .tool_name
            .as_deref()
            .is_none_or(|name| tool.map(|(_, tool_name)| tool_name) == Some(name))
        && filter
            .tool_call_id
            .as_deref()
            .is_none_or(|id| tool.map(|(call_id, _)| call_id) == Some(id))
        && filter
            .role
            .as_deref()
            .is_none_or(|wanted| role == Some(wanted))
        && filter
            .update_type
            .as_deref()
            .is_none_or(|wanted| update_type == Some(wanted))
}

impl RunContext {
    fn agent(&self) -> Result<Agent, HarnessError> {
        self.agent
            .upgrade()
            .ok_or_else(|| HarnessError::new("the agent is gone"))
    }

    async fn run_hooks(&self, event: &AgentEvent) -> Result<(), HarnessError> {
        for (hook_index, hook) in self.hooks.iter().enumerate() {
            if !event_matches(&hook.on, event) {
                continue;
            }
            let count = {
                let mut counts = self
                    .hook_counts
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                let Some(count) = counts.get_mut(hook_index) else {
                    continue;
                };
                *count += 1;
                *count
            };
            if hook.on.nth.is_some_and(|nth| nth != count) {
                continue;
            }
            for (action_index, action) in hook.actions.iter().enumerate() {
                self.perform(
                    action,
                    &format!("hooks[{hook_index}].actions[{action_index}]"),
                    true,
                )
                .await?;
            }
        }
        Ok(())
    }

    fn log_action(&self, at: &str, name: &str, id: Option<&str>, outcome: Outcome) {
        self.recorder
            .push_with_seq(Log::Actions, |seq, event_index| {
                let mut entries = vec![
                    ("seq", Value::from(seq)),
                    ("at", Value::String(at.to_string())),
                    ("do", Value::String(name.to_string())),
                ];
                if let Some(id) = id {
                    entries.push(("id", Value::String(id.to_string())));
                }
                entries.push(("eventIndex", Value::from(event_index)));
                entries.extend(outcome);
                object(entries)
            });
    }

    fn prompt_input(prompt: &PromptSpec) -> Result<PromptInput, HarnessError> {
        Ok(match prompt {
            PromptSpec::Text { text, images } => {
                let images: Vec<ImageContent> = match images {
                    None | Some(Value::Null) => Vec::new(),
                    Some(images) => serde_json::from_value::<Vec<UserBlock>>(images.clone())
                        .map_err(|error| HarnessError::new(format!("prompt.images: {error}")))?
                        .into_iter()
                        .filter_map(|block| match block {
                            UserBlock::Image(image) => Some(image),
                            UserBlock::Text(_) => None,
                        })
                        .collect(),
                };
                PromptInput::with_images(text.clone(), images)
            }
            PromptSpec::Message(message) => PromptInput::Messages(vec![expand_message(message)?]),
            PromptSpec::Messages(messages) => PromptInput::Messages(
                messages
                    .iter()
                    .map(expand_message)
                    .collect::<Result<_, _>>()?,
            ),
        })
    }

    async fn perform(
        &self,
        action: &Action,
        at: &str,
        in_listener: bool,
    ) -> Result<(), HarnessError> {
        let agent = self.agent()?;
        let name = action.name();
        match action {
            Action::Prompt(PromptAction { prompt, run }) => {
                let started = agent.prompt(Self::prompt_input(prompt)?);
                self.start_run(started.boxed(), run.wait, run.id.as_deref(), at, name)
                    .await;
            }
            Action::Continue(ContinueAction { run }) => {
                let started = agent.continue_run();
                self.start_run(started.boxed(), run.wait, run.id.as_deref(), at, name)
                    .await;
            }
            Action::Await { id } => {
                let handle = {
                    let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
                    let position = pending.iter().position(|(pending_id, _)| pending_id == id);
                    position.map(|position| pending.remove(position).1)
                };
                let handle = handle.ok_or_else(|| {
                    HarnessError::new(format!("{at}: nothing pending with id {id}"))
                })?;
                let outcome = join_outcome(handle).await;
                self.log_action(at, name, Some(id), outcome);
            }
            Action::WaitForIdle {} => {
                if in_listener {
                    return Err(HarnessError::new(format!(
                        "{at}: waitForIdle inside a listener would deadlock"
                    )));
                }
                agent.wait_for_idle().await;
                self.log_action(at, name, None, ok_value(None));
            }
            Action::Steer { message } | Action::FollowUp { message } => {
                let outcome = match expand_message(message) {
                    Ok(message) => {
                        if matches!(action, Action::Steer { .. }) {
                            agent.steer(message);
                        } else {
                            agent.follow_up(message);
                        }
                        ok_value(None)
                    }
                    Err(error) => threw(&error.to_string()),
                };
                self.log_action(at, name, None, outcome);
            }
            Action::Abort {} => {
                agent.abort();
                self.log_action(at, name, None, ok_value(None));
            }
            Action::Reset {} => self.log_action(at, name, None, run_outcome(agent.reset())),
            Action::SetSteeringMode { mode } | Action::SetFollowUpMode { mode } => {
                let outcome = match parse_queue_mode(mode) {
                    Ok(mode) if matches!(action, Action::SetSteeringMode { .. }) => {
                        agent.set_steering_mode(mode);
                        ok_value(None)
                    }
                    Ok(mode) => {
                        agent.set_follow_up_mode(mode);
                        ok_value(None)
                    }
                    Err(error) => threw(&error.to_string()),
                };
                self.log_action(at, name, None, outcome);
            }
            Action::ClearQueues { which } => {
                match which {
                    QueueSelection::Steering => agent.clear_steering_queue(),
                    QueueSelection::FollowUp => agent.clear_follow_up_queue(),
                    QueueSelection::All => agent.clear_all_queues(),
                }
                self.log_action(at, name, None, ok_value(None));
            }
            Action::HasQueuedMessages {} => {
                self.log_action(
                    at,
                    name,
                    None,
                    ok_value(Some(Value::Bool(agent.has_queued_messages()))),
                );
            }
            Action::SetState {
                system_prompt,
                thinking_level,
                model,
            } => {
                let outcome = (|| -> Result<(), HarnessError> {
                    if let Some(system_prompt) = system_prompt {
                        agent.set_system_prompt(system_prompt.clone());
                    }
                    if let Some(level) = thinking_level {
                        agent.set_thinking_level(parse_thinking_level(level)?);
                    }
                    if let Some(model) = model {
                        agent.set_model(model.to_model());
                    }
                    Ok(())
                })();
                let outcome = match outcome {
                    Ok(()) => ok_value(None),
                    Err(error) => threw(&error.to_string()),
                };
                self.log_action(at, name, None, outcome);
            }
            Action::AssignMessages {
                messages,
                mutate_source,
            } => {
                let outcome = match messages
                    .iter()
                    .map(expand_message)
                    .collect::<Result<Vec<_>, _>>()
                {
                    Ok(mut source) => {
                        agent.set_messages(source.clone());
                        if *mutate_source {
                            source.push(expand_message(&json!({
                                "role": "user",
                                "content": [{ "type": "text", "text": "(pushed onto the source array)" }]
                            }))?);
                        }
                        let agent_count = agent.state().messages.len();
                        ok_value(Some(
                            json!({ "agentCount": agent_count, "sourceCount": source.len(), "sameArray": false }),
                        ))
                    }
                    Err(error) => threw(&error.to_string()),
                };
                self.log_action(at, name, None, outcome);
            }
            Action::AssignTools {
                tools,
                mutate_source,
            } => {
                let source: Result<Vec<SharedAgentTool>, HarnessError> = tools
                    .iter()
                    .map(|tool| {
                        find_tool(&self.tools, tool)
                            .ok_or_else(|| HarnessError::new(format!("unknown tool {tool}")))
                    })
                    .collect();
                let outcome = match source {
                    Ok(mut source) => {
                        agent.set_tools(source.clone());
                        if *mutate_source {
                            source.pop();
                        }
                        let agent_count = agent.state().tools.len();
                        ok_value(Some(
                            json!({ "agentCount": agent_count, "sourceCount": source.len(), "sameArray": false }),
                        ))
                    }
                    Err(error) => threw(&error.to_string()),
                };
                self.log_action(at, name, None, outcome);
            }
            Action::Snapshot { label, messages } => {
                let label = label.clone().unwrap_or_else(|| at.to_string());
                let snapshot = self.snapshot_value(&agent, Some((&label, at)), *messages)?;
                self.recorder.push(Log::Snapshots, snapshot);
            }
            Action::Sleep { ms } => {
                tokio::time::sleep(Duration::from_millis(*ms)).await;
                self.log_action(at, name, None, ok_value(None));
            }
            Action::Throw { message } => {
                self.log_action(at, name, None, ok_value(None));
                return Err(HarnessError::new(
                    message.clone().unwrap_or_else(|| "listener failure".into()),
                ));
            }
        }
        Ok(())
    }

    /// Awaits a prompt/continue and logs it, or (with `await: false`) spawns it and remembers it by id.
    async fn start_run(
        &self,
        run: futures_util::future::BoxFuture<'static, Result<(), AgentError>>,
        wait: bool,
        id: Option<&str>,
        at: &str,
        name: &str,
    ) {
        if wait {
            let outcome = run_outcome(run.await);
            self.log_action(at, name, None, outcome);
            return;
        }
        let handle = tokio::spawn(run);
        let id = id.unwrap_or_default().to_string();
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((id, handle));
    }

    /// A state snapshot (SCENARIOS.md 7.7); `label` is `(label, at)` for driver snapshots, `None` for `final`.
    fn snapshot_value(
        &self,
        agent: &Agent,
        label: Option<(&str, &str)>,
        with_messages: bool,
    ) -> Result<Value, HarnessError> {
        let has_queued = agent.has_queued_messages();
        let state = agent.state();
        let seq = self.recorder.next_seq();
        let event_index = self.recorder.event_count();
        let mut snapshot = Map::new();
        snapshot.insert("seq".into(), Value::from(seq));
        if let Some((label, at)) = label {
            snapshot.insert("label".into(), Value::String(label.to_string()));
            snapshot.insert("at".into(), Value::String(at.to_string()));
        }
        snapshot.insert("eventIndex".into(), Value::from(event_index));
        snapshot.insert("isStreaming".into(), Value::Bool(state.is_streaming));
        let streaming = match &state.streaming_message {
            Some(message) => normalize(message)?,
            None => Value::Null,
        };
        snapshot.insert("streamingMessage".into(), streaming);
        snapshot.insert(
            "pendingToolCalls".into(),
            Value::Array(
                state
                    .pending_tool_calls
                    .iter()
                    .cloned()
                    .map(Value::String)
                    .collect(),
            ),
        );
        snapshot.insert(
            "errorMessage".into(),
            state
                .error_message
                .clone()
                .map_or(Value::Null, Value::String),
        );
        snapshot.insert("messageCount".into(), Value::from(state.messages.len()));
        snapshot.insert(
            "lastMessageRole".into(),
            state.messages.last().map_or(Value::Null, |message| {
                Value::String(message.role().to_string())
            }),
        );
        snapshot.insert("hasQueuedMessages".into(), Value::Bool(has_queued));
        snapshot.insert("model".into(), Value::String(state.model.id.clone()));
        snapshot.insert(
            "thinkingLevel".into(),
            serde_json::to_value(state.thinking_level).unwrap_or(Value::Null),
        );
        snapshot.insert(
            "tools".into(),
            Value::Array(
                state
                    .tools
                    .iter()
                    .map(|tool| Value::String(tool.name().to_string()))
                    .collect(),
            ),
        );
        if with_messages {
            snapshot.insert("messages".into(), normalize(&state.messages)?);
        }
        Ok(Value::Object(snapshot))
    }
}
