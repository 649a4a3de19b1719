//! Scripted tools (SCENARIOS.md section 3): each execution runs a list of ops and is logged in `toolExecutions`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use pi_agent::{
    AgentTool, AgentToolResult, ToolError, ToolExecutionMode, ToolUpdateSink, WeakAgent,
};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::expand_message;
use super::recorder::{Log, Recorder};
use super::scenario::{LateUpdate, ToolOp, ToolSpec};
use super::trace::{normalize, object};

/// A tool whose behaviour comes from a scenario.
pub struct ScriptedTool {
    spec: ToolSpec,
    parameters: Value,
    calls: AtomicU64,
    recorder: Arc<Recorder>,
    agent: Arc<OnceLock<WeakAgent>>,
}

impl ScriptedTool {
    pub fn new(spec: ToolSpec, recorder: Arc<Recorder>, agent: Arc<OnceLock<WeakAgent>>) -> Self {
        let parameters = spec
            .parameters
            .clone()
            .unwrap_or_else(|| json!({ "type": "object", "properties": {} }));
        Self {
            spec,
            parameters,
            calls: AtomicU64::new(0),
            recorder,
            agent,
        }
    }

    fn agent(&self) -> Option<pi_agent::Agent> {
        self.agent.get().and_then(WeakAgent::upgrade)
    }

    async fn run_ops(
        &self,
        ops: &[ToolOp],
        cancel: &CancellationToken,
        on_update: &ToolUpdateSink,
    ) -> Result<AgentToolResult, ToolError> {
        for op in ops {
            match op {
                ToolOp::Update(partial) => on_update.send(parse_result(partial)?),
                ToolOp::Sleep(ms) => tokio::time::sleep(Duration::from_millis(*ms)).await,
                ToolOp::WaitForAbort(_) => cancel.cancelled().await,
                ToolOp::ThrowIfAborted(message) => {
                    if cancel.is_cancelled() {
                        return Err(ToolError::new(message.as_str()));
                    }
                }
                ToolOp::Return(result) => return parse_result(result),
                ToolOp::Throw(message) => return Err(ToolError::new(message.as_str())),
                ToolOp::LateUpdate(LateUpdate { delay_ms, partial }) => {
                    let delay = *delay_ms;
                    let partial = parse_result(&Value::Object(partial.clone()))?;
                    let sink = on_update.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(delay)).await;
                        sink.send(partial);
                    });
                }
                ToolOp::AbortAgent(_) => {
                    if let Some(agent) = self.agent() {
                        agent.abort();
                    }
                }
                ToolOp::Steer(message) | ToolOp::FollowUp(message) => {
                    let message = expand_message(message)
                        .map_err(|error| ToolError::new(error.to_string()))?;
                    if let Some(agent) = self.agent() {
                        if matches!(op, ToolOp::Steer(_)) {
                            agent.steer(message);
                        } else {
                            agent.follow_up(message);
                        }
                    }
                }
            }
        }
        Ok(AgentToolResult::text("ok", Value::Object(Map::new())))
    }
}

fn parse_result(value: &Value) -> Result<AgentToolResult, ToolError> {
    serde_json::from_value(value.clone())
        .map_err(|error| ToolError::new(format!("invalid tool result {value}: {error}")))
}

impl AgentTool for ScriptedTool {
    fn name(&self) -> &str {
        &self.spec.name
    }

    fn label(&self) -> &str {
        self.spec.label.as_deref().unwrap_or(&self.spec.name)
    }

    fn description(&self) -> &str {
        self.spec.description.as_deref().unwrap_or_default()
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn execution_mode(&self) -> Option<ToolExecutionMode> {
        self.spec.execution_mode
    }

    fn prepare_arguments(&self, arguments: Value) -> Result<Value, ToolError> {
        let Some(renames) = self
            .spec
            .prepare_arguments
            .as_ref()
            .and_then(|prepare| prepare.rename_keys.as_ref())
        else {
            return Ok(arguments);
        };
        let Value::Object(args) = &arguments else {
            return Ok(arguments);
        };
        if !renames.keys().any(|from| args.contains_key(from)) {
            return Ok(arguments);
        }
        let mut out = Map::new();
        for (key, value) in args {
            let target = renames.get(key).map_or(key.as_str(), String::as_str);
            out.insert(target.to_string(), value.clone());
        }
        Ok(Value::Object(out))
    }

    fn execute(
        &self,
        tool_call_id: String,
        arguments: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateSink,
    ) -> BoxFuture<'_, Result<AgentToolResult, ToolError>> {
        async move {
            let call = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
            let args = normalize(&arguments).map_err(|error| ToolError::new(error.to_string()))?;
            let started_aborted = cancel.is_cancelled();
            let position = self
                .recorder
                .push_with_seq(Log::ToolExecutions, |seq, event_index| {
                    object([
                        ("seq", Value::from(seq)),
                        ("toolCallId", Value::String(tool_call_id.clone())),
                        ("toolName", Value::String(self.spec.name.clone())),
                        ("call", Value::from(call)),
                        ("args", args),
                        ("eventIndex", Value::from(event_index)),
                        ("signalAbortedAtStart", Value::Bool(started_aborted)),
                    ])
                });
            let index = usize::try_from(call - 1).unwrap_or(usize::MAX);
            let ops: &[ToolOp] = match self.spec.calls.as_ref().and_then(|calls| calls.get(index)) {
                Some(ops) => ops,
                None => self.spec.behavior.as_deref().unwrap_or_default(),
            };
            let outcome = self.run_ops(ops, &cancel, &on_update).await;
            self.recorder
                .update(Log::ToolExecutions, position, |entry, event_index| {
                    match &outcome {
                        Ok(_) => {
                            entry.insert("outcome".into(), Value::String("returned".into()));
                        }
                        Err(error) => {
                            entry.insert("outcome".into(), Value::String("threw".into()));
                            entry.insert("error".into(), Value::String(error.to_string()));
                        }
                    }
                    entry.insert("endEventIndex".into(), Value::from(event_index));
                    entry.insert(
                        "signalAbortedAtEnd".into(),
                        Value::Bool(cancel.is_cancelled()),
                    );
                });
            outcome
        }
        .boxed()
    }
}
