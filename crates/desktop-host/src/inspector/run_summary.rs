//! [`summarize_runs`]: a conversation's event log read as runs and turns, in the book's terms: each run's exit
//! condition, each turn's injected messages, answer, usage and tool calls, and the times that matter.
//!
//! Contract: the input is a log in order — agent events (`agent_start` … `agent_end`, as pi emits them) and the
//! host's own items beside them (`turn_request`: what a turn sent; `approval_resolved`: a user's decision; `idle`:
//! the run settled), each with its time in milliseconds when known. A log cut short (a run still streaming, a
//! crash) gives a run without exit. Pure: the same log always reads the same.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// One item of an event log: an agent event or a host item, and when it happened (ms since any fixed origin).
#[derive(Clone, Copy, Debug)]
pub struct LoggedItem<'a> {
    /// When, in milliseconds; `None` when the log has no times (the conformance traces).
    pub at_ms: Option<u64>,
    /// The event or item (its `type` says which).
    pub item: &'a Value,
}

/// Why a run ended (`data-exit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum RunExit {
    /// The last answer called no tool and no queued message was waiting.
    Done,
    /// The model's answer ended with an error.
    Error,
    /// Stop.
    Aborted,
    /// Every tool result of the last batch asked the loop to stop.
    Terminate,
    /// The host's `shouldStopAfterTurn` ended the run after a tool batch.
    StopAfterTurn,
}

/// A message the loop injected before a turn's request: the prompt, or one that was queued.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InjectedMessage {
    /// Its text (text parts joined).
    pub text: String,
    /// True for the run's first turn (the prompt); false for a steering or follow-up message.
    pub is_prompt: bool,
}

/// What a turn sent to the model, as the host recorded it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TurnRequest {
    /// The model id.
    pub model: String,
    /// The thinking level.
    #[serde(default)]
    pub thinking_level: String,
    /// How many messages went.
    #[serde(default)]
    pub message_count: u64,
    /// The tools offered, by name.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The size of what went, in characters.
    #[serde(default)]
    pub context_chars: u64,
    /// The system prompt that went (the messages are the conversation's up to the turn, in the run's log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub system_prompt: Option<String>,
}

/// Tokens and cost of one answer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TurnUsage {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Tokens read from the cache.
    pub cache_read: u64,
    /// Tokens written to the cache.
    pub cache_write: u64,
    /// Total cost in dollars, as the provider's prices say.
    pub cost: f64,
}

/// One tool call of a turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ToolCallSummary {
    /// The call's id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Its arguments.
    #[ts(type = "unknown")]
    pub arguments: Value,
    /// Milliseconds from `agent_start` to its start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub started_ms: Option<u64>,
    /// How long it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub duration_ms: Option<u64>,
    /// `None` while it runs; then whether it ended as an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub is_error: Option<bool>,
    /// Its result asked the loop to stop (`terminate`).
    pub terminate: bool,
    /// The user's decision when it asked (`allow_once`, `deny`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub approval: Option<String>,
}

/// One turn: the injected messages, the request, the answer and its tool batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TurnSummary {
    /// 1 for the run's first turn.
    pub index: u32,
    /// Milliseconds from `agent_start` to `turn_start`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub started_ms: Option<u64>,
    /// How long the turn took (to `turn_end`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub duration_ms: Option<u64>,
    /// From the request to the answer's first content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub first_token_ms: Option<u64>,
    /// Messages injected before the request.
    pub injected: Vec<InjectedMessage>,
    /// What was sent, when the host recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub request: Option<TurnRequest>,
    /// The model that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<String>,
    /// Why the answer ended (`stop`, `toolUse`, `length`, `error`, `aborted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stop_reason: Option<String>,
    /// The answer's error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error_message: Option<String>,
    /// Its tokens and cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub usage: Option<TurnUsage>,
    /// Output tokens per second of streaming, when times and usage are known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tokens_per_second: Option<f64>,
    /// The tool calls of its batch, in the answer's order.
    pub tool_calls: Vec<ToolCallSummary>,
}

/// One run: `agent_start` to `agent_end` (and the idle after it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RunSummary {
    /// Why it ended; `None` while it runs (or when the log stops before its end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub exit: Option<RunExit>,
    /// When `agent_start` happened (the log's time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub started_at_ms: Option<u64>,
    /// Milliseconds from `agent_start` to `agent_end`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub agent_end_ms: Option<u64>,
    /// Milliseconds from `agent_start` to idle: the gap after `agent_end` is the run settling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub idle_ms: Option<u64>,
    /// Its turns.
    pub turns: Vec<TurnSummary>,
}

/// Every run of `log`, in order.
pub fn summarize_runs(log: &[LoggedItem<'_>]) -> Vec<RunSummary> {
    let mut runs: Vec<RunReader> = Vec::new();
    for entry in log {
        let kind = entry.item.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "agent_start" {
            runs.push(RunReader::new(entry.at_ms));
            continue;
        }
        if let Some(run) = runs.last_mut() {
            run.read(kind, entry);
        }
    }
    runs.into_iter().map(RunReader::finish).collect()
}

struct RunReader {
    summary: RunSummary,
    /// The turn being read.
    open_turn: Option<TurnSummary>,
    /// When the open turn's request went (its `turn_start`, or the recorded request).
    request_at: Option<u64>,
    /// The last answer seen started streaming (a `message_start` of the assistant).
    answer_started: bool,
    ended: bool,
}

impl RunReader {
    fn new(at_ms: Option<u64>) -> RunReader {
        RunReader {
            summary: RunSummary {
                exit: None,
                started_at_ms: at_ms,
                agent_end_ms: None,
                idle_ms: None,
                turns: Vec::new(),
            },
            open_turn: None,
            request_at: None,
            answer_started: false,
            ended: false,
        }
    }

    /// Milliseconds from `agent_start` to `at`.
    fn since_start(&self, at: Option<u64>) -> Option<u64> {
        Some(at?.saturating_sub(self.summary.started_at_ms?))
    }

    fn read(&mut self, kind: &str, entry: &LoggedItem<'_>) {
        let item = entry.item;
        let at = self.since_start(entry.at_ms);
        match kind {
            "turn_start" => {
                self.close_turn();
                let index = u32::try_from(self.summary.turns.len() + 1).unwrap_or(u32::MAX);
                self.open_turn = Some(TurnSummary {
                    index,
                    started_ms: at,
                    duration_ms: None,
                    first_token_ms: None,
                    injected: Vec::new(),
                    request: None,
                    model: None,
                    stop_reason: None,
                    error_message: None,
                    usage: None,
                    tokens_per_second: None,
                    tool_calls: Vec::new(),
                });
                self.request_at = at;
                self.answer_started = false;
            }
            "turn_request" => {
                self.request_at = at.or(self.request_at);
                if let Some(turn) = self.open_turn.as_mut() {
                    turn.request = serde_json::from_value::<TurnRequest>(item.clone()).ok();
                }
            }
            "message_start" => {
                let message = &item["message"];
                let Some(turn) = self.open_turn.as_mut() else {
                    return;
                };
                match message["role"].as_str() {
                    Some("user") => turn.injected.push(InjectedMessage {
                        text: message_text(message),
                        is_prompt: turn.index == 1,
                    }),
                    Some("assistant") => self.answer_started = true,
                    _ => {}
                }
            }
            "message_update" => {
                if let Some(turn) = self.open_turn.as_mut()
                    && turn.first_token_ms.is_none()
                    && self.answer_started
                {
                    turn.first_token_ms = at
                        .zip(self.request_at)
                        .map(|(at, sent)| at.saturating_sub(sent));
                }
            }
            "message_end" => {
                let message = &item["message"];
                if message["role"].as_str() != Some("assistant") {
                    return;
                }
                let Some(turn) = self.open_turn.as_mut() else {
                    return;
                };
                turn.model = message["model"].as_str().map(str::to_owned);
                turn.stop_reason = message["stopReason"].as_str().map(str::to_owned);
                turn.error_message = message["errorMessage"].as_str().map(str::to_owned);
                turn.usage = usage_of(&message["usage"]);
                let streamed = at
                    .zip(self.request_at)
                    .map(|(at, sent)| at.saturating_sub(sent + turn.first_token_ms.unwrap_or(0)));
                turn.tokens_per_second = match (&turn.usage, streamed) {
                    (Some(usage), Some(ms)) if ms > 0 && usage.output > 0 => {
                        Some(usage.output as f64 * 1000.0 / ms as f64)
                    }
                    _ => None,
                };
            }
            "tool_execution_start" => {
                if let Some(turn) = self.open_turn.as_mut() {
                    turn.tool_calls.push(ToolCallSummary {
                        id: item["toolCallId"].as_str().unwrap_or_default().to_owned(),
                        name: item["toolName"].as_str().unwrap_or_default().to_owned(),
                        arguments: item["args"].clone(),
                        started_ms: at,
                        duration_ms: None,
                        is_error: None,
                        terminate: false,
                        approval: None,
                    });
                }
            }
            "tool_execution_end" => {
                if let Some(call) = self.call(item["toolCallId"].as_str()) {
                    call.duration_ms = at
                        .zip(call.started_ms)
                        .map(|(at, started)| at.saturating_sub(started));
                    call.is_error = item["isError"].as_bool();
                    call.terminate = item["result"]["terminate"].as_bool() == Some(true);
                }
            }
            "approval_resolved" => {
                let decision = item["decision"]["decision"]
                    .as_str()
                    .or_else(|| item["outcome"].as_str())
                    .map(str::to_owned);
                if let Some(call) = self.call(item["toolCallId"].as_str()) {
                    call.approval = decision;
                }
            }
            "turn_end" => {
                if let Some(turn) = self.open_turn.as_mut() {
                    turn.duration_ms = at
                        .zip(turn.started_ms)
                        .map(|(at, started)| at.saturating_sub(started));
                }
                self.close_turn();
            }
            "agent_end" => {
                self.close_turn();
                self.summary.agent_end_ms = at;
                self.ended = true;
            }
            "idle" => self.summary.idle_ms = at,
            _ => {}
        }
    }

    fn call(&mut self, id: Option<&str>) -> Option<&mut ToolCallSummary> {
        let id = id?;
        self.open_turn
            .as_mut()?
            .tool_calls
            .iter_mut()
            .rev()
            .find(|call| call.id == id)
    }

    fn close_turn(&mut self) {
        if let Some(turn) = self.open_turn.take() {
            self.summary.turns.push(turn);
        }
    }

    fn finish(mut self) -> RunSummary {
        self.close_turn();
        if self.ended {
            self.summary.exit = Some(exit_of(self.summary.turns.last()));
        }
        self.summary
    }
}

/// The exit condition a finished run's last turn shows: its stop reason first (error, aborted); then a tool batch
/// the loop did not follow with another request — every result terminating, or `shouldStopAfterTurn`; otherwise
/// the loop ran out of tool calls and queued messages.
fn exit_of(last: Option<&TurnSummary>) -> RunExit {
    let Some(turn) = last else {
        return RunExit::Done;
    };
    match turn.stop_reason.as_deref() {
        Some("error") => return RunExit::Error,
        Some("aborted") => return RunExit::Aborted,
        _ => {}
    }
    let finished: Vec<&ToolCallSummary> = turn
        .tool_calls
        .iter()
        .filter(|call| call.is_error.is_some())
        .collect();
    if finished.is_empty() {
        RunExit::Done
    } else if finished.iter().all(|call| call.terminate) {
        RunExit::Terminate
    } else {
        RunExit::StopAfterTurn
    }
}

/// The text parts of `message`, joined.
fn message_text(message: &Value) -> String {
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn usage_of(usage: &Value) -> Option<TurnUsage> {
    if !usage.is_object() {
        return None;
    }
    let count = |key: &str| usage[key].as_u64().unwrap_or(0);
    Some(TurnUsage {
        input: count("input"),
        output: count("output"),
        cache_read: count("cacheRead"),
        cache_write: count("cacheWrite"),
        cost: usage["cost"]["total"].as_f64().unwrap_or(0.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn timed(items: &[(u64, Value)]) -> Vec<Value> {
        items.iter().map(|(_, item)| item.clone()).collect()
    }

    #[test]
    fn times_usage_and_tokens_per_second_come_from_the_timed_log() {
        let items = [
            (1000, json!({"type": "agent_start"})),
            (1001, json!({"type": "turn_start"})),
            (
                1002,
                json!({"type": "message_start", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}),
            ),
            (
                1003,
                json!({"type": "turn_request", "model": "m", "thinkingLevel": "off", "messageCount": 1, "tools": ["list_folder"], "contextChars": 42}),
            ),
            (
                1100,
                json!({"type": "message_start", "message": {"role": "assistant", "content": []}}),
            ),
            (
                1203,
                json!({"type": "message_update", "message": {"role": "assistant"}}),
            ),
            (
                2203,
                json!({"type": "message_end", "message": {"role": "assistant", "model": "m", "stopReason": "stop",
                "usage": {"input": 10, "output": 50, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.25}}}}),
            ),
            (2204, json!({"type": "turn_end"})),
            (2205, json!({"type": "agent_end"})),
            (2300, json!({"type": "idle"})),
        ];
        let values = timed(&items);
        let log: Vec<LoggedItem<'_>> = items
            .iter()
            .zip(&values)
            .map(|((at, _), item)| LoggedItem {
                at_ms: Some(*at),
                item,
            })
            .collect();

        let runs = summarize_runs(&log);

        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!(run.exit, Some(RunExit::Done));
        assert_eq!((run.agent_end_ms, run.idle_ms), (Some(1205), Some(1300)));
        let turn = &run.turns[0];
        assert_eq!(turn.first_token_ms, Some(200));
        assert_eq!(turn.duration_ms, Some(1203));
        assert_eq!(
            turn.request.as_ref().map(|request| request.context_chars),
            Some(42)
        );
        assert_eq!(turn.usage.as_ref().map(|usage| usage.cost), Some(0.25));
        assert_eq!(turn.tokens_per_second, Some(50.0));
        assert_eq!(
            turn.injected,
            [InjectedMessage {
                text: "hi".to_owned(),
                is_prompt: true
            }]
        );
    }

    #[test]
    fn a_log_cut_during_a_run_has_no_exit_yet() {
        let items = [
            json!({"type": "agent_start"}),
            json!({"type": "turn_start"}),
        ];
        let log: Vec<LoggedItem<'_>> = items
            .iter()
            .map(|item| LoggedItem { at_ms: None, item })
            .collect();

        let runs = summarize_runs(&log);

        assert_eq!(runs[0].exit, None);
        assert_eq!(runs[0].turns.len(), 1);
    }
}
