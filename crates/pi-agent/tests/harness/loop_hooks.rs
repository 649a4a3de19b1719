//! The scenario's loop callbacks (SCENARIOS.md section 2): rule-driven `beforeToolCall` / `afterToolCall`,
//! `shouldStopAfterTurn`, `transformContext`, `convertToLlm` and `prepareNextTurn`, each logged in `hookCalls`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use futures_util::FutureExt;
use pi_agent::{
    AfterToolCallFn, AfterToolCallResult, AgentConfig, AgentContext, AgentMessage,
    BeforeToolCallFn, BeforeToolCallResult, ConvertToLlmFn, HookError, NextTurnUpdate,
    PrepareNextTurnFn, ShouldStopAfterTurnFn, TransformContextFn, WeakAgent,
};
use pi_ai::{Message, Usage, UserBlock};
use serde_json::{Map, Value};

use super::HarnessError;
use super::recorder::{Log, Recorder};
use super::scenario::{
    AfterToolCallRule, AgentSpec, BeforeToolCallRule, ConvertToLlmRule, PrepareNextTurnRule,
    ShouldStopAfterTurnRule, ToolCallRule, TransformContextRule,
};
use super::trace::{normalize, object};

/// Installs every callback the scenario configures.
pub fn install(
    config: &mut AgentConfig,
    spec: &AgentSpec,
    recorder: &Arc<Recorder>,
    agent: &Arc<OnceLock<WeakAgent>>,
) -> Result<(), HarnessError> {
    if let Some(rules) = &spec.before_tool_call {
        config.before_tool_call = Some(before_tool_call(
            rules.clone(),
            Arc::clone(recorder),
            Arc::clone(agent),
        ));
    }
    if let Some(rules) = &spec.after_tool_call {
        config.after_tool_call = Some(after_tool_call(rules.clone(), Arc::clone(recorder))?);
    }
    if let Some(rule) = &spec.should_stop_after_turn {
        config.should_stop_after_turn =
            Some(should_stop_after_turn(rule.clone(), Arc::clone(recorder)));
    }
    if let Some(rule) = &spec.transform_context {
        config.transform_context = Some(transform_context(rule.clone(), Arc::clone(recorder)));
    }
    if let Some(rule) = &spec.convert_to_llm {
        config.convert_to_llm = Some(convert_to_llm(rule.clone(), Arc::clone(recorder)));
    }
    if let Some(rules) = &spec.prepare_next_turn {
        config.prepare_next_turn = Some(prepare_next_turn(rules.clone(), Arc::clone(recorder)));
    }
    Ok(())
}

/// Every rule whose `tool` matches counts the invocation; the first matching rule whose `nth` equals its count
/// (or has no `nth`) applies.
fn pick_rule<R: ToolCallRule + Clone>(
    rules: &[R],
    counters: &Mutex<Vec<u64>>,
    tool_name: &str,
) -> Option<R> {
    let mut counters = counters.lock().unwrap_or_else(PoisonError::into_inner);
    let mut chosen = None;
    for (index, rule) in rules.iter().enumerate() {
        if rule.tool().is_some_and(|tool| tool != tool_name) {
            continue;
        }
        let count = counters.get_mut(index).map(|count| {
            *count += 1;
            *count
        });
        let nth = rule.nth();
        if chosen.is_none() && (nth.is_none() || nth == count) {
            chosen = Some(rule.clone());
        }
    }
    chosen
}

/// The object a rule returns: its return fields that are present, in this order.
fn returned_fields<const N: usize>(fields: [(&str, &Option<Value>); N]) -> Map<String, Value> {
    fields
        .into_iter()
        .filter_map(|(key, value)| value.clone().map(|value| (key.to_string(), value)))
        .collect()
}

fn before_tool_call(
    rules: Vec<BeforeToolCallRule>,
    recorder: Arc<Recorder>,
    agent: Arc<OnceLock<WeakAgent>>,
) -> BeforeToolCallFn {
    let counters = Arc::new(Mutex::new(vec![0; rules.len()]));
    let rules = Arc::new(rules);
    Arc::new(move |ctx, _cancel| {
        let (rules, counters, recorder, agent) = (
            Arc::clone(&rules),
            Arc::clone(&counters),
            Arc::clone(&recorder),
            Arc::clone(&agent),
        );
        async move {
            let args = normalize(&ctx.args).map_err(|error| HookError::new(error.to_string()))?;
            let position = recorder.push_with_seq(Log::HookCalls, |seq, event_index| {
                object([
                    ("seq", Value::from(seq)),
                    ("hook", Value::String("beforeToolCall".into())),
                    ("eventIndex", Value::from(event_index)),
                    ("toolCallId", Value::String(ctx.tool_call.id.clone())),
                    ("toolName", Value::String(ctx.tool_call.name.clone())),
                    ("args", args),
                    ("contextMessages", Value::from(ctx.context.messages.len())),
                ])
            });
            let rule = pick_rule(&rules, &counters, &ctx.tool_call.name);
            if let Some(delay) = rule
                .as_ref()
                .and_then(|rule| rule.delay_ms)
                .filter(|delay| *delay > 0)
            {
                tokio::time::sleep(Duration::from_millis(delay)).await;
            }
            if rule.as_ref().is_some_and(|rule| rule.abort) {
                if let Some(agent) = agent.get().and_then(WeakAgent::upgrade) {
                    agent.abort();
                }
            }
            if let Some(message) = rule.as_ref().and_then(|rule| rule.throw.clone()) {
                recorder.update(Log::HookCalls, position, |entry, _| {
                    entry.insert("threw".into(), Value::String(message.clone()));
                });
                return Err(HookError::new(message));
            }
            let returned = rule
                .map(|rule| {
                    returned_fields([
                        ("block", &rule.block),
                        ("reason", &rule.reason),
                        ("terminate", &rule.terminate),
                    ])
                })
                .unwrap_or_default();
            let logged = if returned.is_empty() {
                Value::Null
            } else {
                Value::Object(returned.clone())
            };
            recorder.update(Log::HookCalls, position, |entry, _| {
                entry.insert("returned".into(), logged);
            });
            if returned.is_empty() {
                return Ok(None);
            }
            Ok(Some(BeforeToolCallResult {
                block: returned
                    .get("block")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                reason: returned
                    .get("reason")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                terminate: returned.get("terminate").and_then(Value::as_bool),
                args: None,
            }))
        }
        .boxed()
    })
}

fn after_tool_call(
    rules: Vec<AfterToolCallRule>,
    recorder: Arc<Recorder>,
) -> Result<AfterToolCallFn, HarnessError> {
    // Validate the override payloads up front so a malformed scenario fails clearly.
    for rule in &rules {
        if let Some(content) = &rule.content {
            serde_json::from_value::<Vec<UserBlock>>(content.clone()).map_err(|error| {
                HarnessError::new(format!("agent.afterToolCall: invalid content: {error}"))
            })?;
        }
        if let Some(usage) = &rule.usage {
            serde_json::from_value::<Usage>(usage.clone()).map_err(|error| {
                HarnessError::new(format!("agent.afterToolCall: invalid usage: {error}"))
            })?;
        }
    }
    let counters = Arc::new(Mutex::new(vec![0; rules.len()]));
    let rules = Arc::new(rules);
    Ok(Arc::new(move |ctx, _cancel| {
        let (rules, counters, recorder) = (
            Arc::clone(&rules),
            Arc::clone(&counters),
            Arc::clone(&recorder),
        );
        async move {
            let to_hook_error = |error: HarnessError| HookError::new(error.to_string());
            let args = normalize(&ctx.args).map_err(to_hook_error)?;
            let result = normalize(&ctx.result).map_err(to_hook_error)?;
            let position = recorder.push_with_seq(Log::HookCalls, |seq, event_index| {
                object([
                    ("seq", Value::from(seq)),
                    ("hook", Value::String("afterToolCall".into())),
                    ("eventIndex", Value::from(event_index)),
                    ("toolCallId", Value::String(ctx.tool_call.id.clone())),
                    ("toolName", Value::String(ctx.tool_call.name.clone())),
                    ("args", args),
                    ("isError", Value::Bool(ctx.is_error)),
                    ("result", result),
                ])
            });
            let rule = pick_rule(&rules, &counters, &ctx.tool_call.name);
            if let Some(message) = rule.as_ref().and_then(|rule| rule.throw.clone()) {
                recorder.update(Log::HookCalls, position, |entry, _| {
                    entry.insert("threw".into(), Value::String(message.clone()));
                });
                return Err(HookError::new(message));
            }
            let returned = rule
                .map(|rule| {
                    returned_fields([
                        ("content", &rule.content),
                        ("details", &rule.details),
                        ("isError", &rule.is_error),
                        ("usage", &rule.usage),
                        ("terminate", &rule.terminate),
                    ])
                })
                .unwrap_or_default();
            let logged = if returned.is_empty() {
                Value::Null
            } else {
                Value::Object(returned.clone())
            };
            recorder.update(Log::HookCalls, position, |entry, _| {
                entry.insert("returned".into(), logged);
            });
            if returned.is_empty() {
                return Ok(None);
            }
            // pi treats null as absent for every override field.
            let present = |key: &str| returned.get(key).filter(|value| !value.is_null()).cloned();
            Ok(Some(AfterToolCallResult {
                content: present("content")
                    .and_then(|content| serde_json::from_value(content).ok()),
                details: present("details"),
                is_error: present("isError").and_then(|flag| flag.as_bool()),
                usage: present("usage").and_then(|usage| serde_json::from_value(usage).ok()),
                terminate: present("terminate").and_then(|flag| flag.as_bool()),
            }))
        }
        .boxed()
    }))
}

fn should_stop_after_turn(
    rule: ShouldStopAfterTurnRule,
    recorder: Arc<Recorder>,
) -> ShouldStopAfterTurnFn {
    let calls = Arc::new(AtomicU64::new(0));
    let rule = Arc::new(rule);
    Arc::new(move |turn, _cancel| {
        let call = calls.fetch_add(1, Ordering::SeqCst) + 1;
        let stop_reason = serde_json::to_value(turn.message.stop_reason).unwrap_or(Value::Null);
        let on_calls = rule.on_calls.contains(&call);
        let when_tool = rule.when_tool_result.as_deref().is_some_and(|name| {
            turn.tool_results
                .iter()
                .any(|result| result.tool_name == name)
        });
        let when_reason = rule
            .when_stop_reason
            .is_some_and(|reason| reason == turn.message.stop_reason);
        let stop = rule.always || on_calls || when_tool || when_reason;
        recorder.push_with_seq(Log::HookCalls, |seq, event_index| {
            object([
                ("seq", Value::from(seq)),
                ("hook", Value::String("shouldStopAfterTurn".into())),
                ("eventIndex", Value::from(event_index)),
                ("call", Value::from(call)),
                ("stopReason", stop_reason.clone()),
                ("toolResults", Value::from(turn.tool_results.len())),
                ("newMessages", Value::from(turn.new_messages.len())),
                ("contextMessages", Value::from(turn.context.messages.len())),
                ("returned", Value::Bool(stop)),
            ])
        });
        futures_util::future::ready(Ok(stop)).boxed()
    })
}

fn transform_context(rule: TransformContextRule, recorder: Arc<Recorder>) -> TransformContextFn {
    let rule = Arc::new(rule);
    Arc::new(move |messages: Vec<AgentMessage>, _cancel| {
        let input = messages.len();
        let mut out = messages;
        out.retain(|message| !rule.drop_roles.iter().any(|role| role == message.role()));
        if let Some(keep) = rule.keep_last {
            let keep = usize::try_from(keep).unwrap_or(usize::MAX);
            if out.len() > keep {
                out.drain(..out.len() - keep);
            }
        }
        let output = out.len();
        recorder.push_with_seq(Log::HookCalls, |seq, event_index| {
            object([
                ("seq", Value::from(seq)),
                ("hook", Value::String("transformContext".into())),
                ("eventIndex", Value::from(event_index)),
                ("input", Value::from(input)),
                ("output", Value::from(output)),
            ])
        });
        futures_util::future::ready(Ok(out)).boxed()
    })
}

fn convert_to_llm(rule: ConvertToLlmRule, recorder: Arc<Recorder>) -> ConvertToLlmFn {
    let rule = Arc::new(rule);
    Arc::new(move |messages: Vec<AgentMessage>| {
        let dropped = |role: &str| rule.drop_roles.iter().any(|dropped| dropped == role);
        let mut out = Vec::new();
        let mut failure = None;
        for message in &messages {
            let mapped = rule.map_roles.get(message.role());
            if let Some(new_role) = mapped {
                match remap(message, new_role) {
                    Ok(mapped) => out.push(mapped),
                    Err(error) => failure = Some(error),
                }
            } else if let Some(llm) = message.to_llm().filter(|_| !dropped(message.role())) {
                out.push(llm);
            }
        }
        let input_roles: Vec<Value> = messages
            .iter()
            .map(|message| Value::String(message.role().to_string()))
            .collect();
        let output = out.len();
        recorder.push_with_seq(Log::HookCalls, |seq, event_index| {
            object([
                ("seq", Value::from(seq)),
                ("hook", Value::String("convertToLlm".into())),
                ("eventIndex", Value::from(event_index)),
                ("input", Value::from(messages.len())),
                ("output", Value::from(output)),
                ("inputRoles", Value::Array(input_roles)),
            ])
        });
        futures_util::future::ready(match failure {
            Some(error) => Err(error),
            None => Ok(out),
        })
        .boxed()
    })
}

/// `{ role: newRole, content, timestamp }` as an LLM message.
fn remap(message: &AgentMessage, new_role: &str) -> Result<Message, HookError> {
    let json = serde_json::to_value(message).map_err(|error| HookError::new(error.to_string()))?;
    let mut mapped = Map::new();
    mapped.insert("role".into(), Value::String(new_role.to_string()));
    if let Some(content) = json.get("content") {
        mapped.insert("content".into(), content.clone());
    }
    mapped.insert(
        "timestamp".into(),
        json.get("timestamp").cloned().unwrap_or(Value::from(0)),
    );
    serde_json::from_value(Value::Object(mapped)).map_err(|error| {
        HookError::new(format!(
            "cannot map a {} message to {new_role}: {error}",
            message.role()
        ))
    })
}

fn prepare_next_turn(
    rules: Vec<PrepareNextTurnRule>,
    recorder: Arc<Recorder>,
) -> PrepareNextTurnFn {
    let calls = Arc::new(AtomicU64::new(0));
    let rules = Arc::new(rules);
    Arc::new(move |turn, _cancel| {
        let call = calls.fetch_add(1, Ordering::SeqCst) + 1;
        let rule = rules.iter().find(|rule| rule.call == call).cloned();
        let stop_reason = serde_json::to_value(turn.message.stop_reason).unwrap_or(Value::Null);
        let position = recorder.push_with_seq(Log::HookCalls, |seq, event_index| {
            object([
                ("seq", Value::from(seq)),
                ("hook", Value::String("prepareNextTurn".into())),
                ("eventIndex", Value::from(event_index)),
                ("call", Value::from(call)),
                ("stopReason", stop_reason),
                ("newMessages", Value::from(turn.new_messages.len())),
                ("contextMessages", Value::from(turn.context.messages.len())),
                ("returned", Value::Null),
            ])
        });
        let Some(rule) = rule else {
            return futures_util::future::ready(Ok(None)).boxed();
        };
        let mut update = NextTurnUpdate::default();
        let mut returned = Map::new();
        if let Some(model) = &rule.model {
            let model = model.to_model();
            returned.insert("model".into(), Value::String(model.id.clone()));
            update.model = Some(model);
        }
        if let Some(level) = rule.thinking_level {
            returned.insert(
                "thinkingLevel".into(),
                serde_json::to_value(level).unwrap_or(Value::Null),
            );
            update.thinking_level = Some(level);
        }
        let keep_last = rule.context_keep_last;
        let system_prompt = rule.system_prompt;
        if keep_last.is_some() || system_prompt.is_some() {
            let mut context: AgentContext = (*turn.context).clone();
            if let Some(prompt) = &system_prompt {
                context.system_prompt = prompt.clone();
            }
            if let Some(keep) = keep_last {
                let keep = usize::try_from(keep).unwrap_or(usize::MAX);
                if context.messages.len() > keep {
                    context.messages.drain(..context.messages.len() - keep);
                }
            }
            returned.insert(
                "contextMessages".into(),
                Value::from(context.messages.len()),
            );
            update.context = Some(context);
        }
        if let Some(prompt) = system_prompt {
            returned.insert("systemPrompt".into(), Value::String(prompt));
        }
        recorder.update(Log::HookCalls, position, |entry, _| {
            entry.insert("returned".into(), Value::Object(returned));
        });
        futures_util::future::ready(Ok(Some(update))).boxed()
    })
}
