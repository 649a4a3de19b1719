//! `pi-chat --inspect`: after each run, the loop inspector's reading of it — the exit condition that ended it and
//! one line per turn (what was sent, first token, duration, tokens, stop reason, cost, tool calls) — from the same
//! derivation the window's panel shows.

use desktop_host::conversations::{log_line, summarize_log_lines};
use desktop_host::inspector::{RunExit, RunSummary, TurnSummary};
use desktop_host::wire::Envelope;
use serde_json::Value;

/// The envelopes of the run in progress, as log lines.
#[derive(Default)]
pub(crate) struct RunRecorder {
    lines: Vec<Value>,
    started: Option<std::time::Instant>,
}

impl RunRecorder {
    /// Takes one envelope; at the run's `idle` returns the run read as a summary.
    pub(crate) fn take(&mut self, envelope: &Envelope) -> Option<RunSummary> {
        envelope.run_id?;
        let started = *self.started.get_or_insert_with(std::time::Instant::now);
        let at = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
        self.lines.extend(log_line(at, envelope));
        if !envelope.is_idle() {
            return None;
        }
        self.started = None;
        let lines = std::mem::take(&mut self.lines);
        summarize_log_lines(&lines).into_iter().last()
    }
}

/// The summary as the terminal shows it.
pub(crate) fn summary_text(summary: &RunSummary) -> String {
    let exit = match summary.exit {
        Some(RunExit::Done) => "done (no tool calls, queues empty)",
        Some(RunExit::Error) => "error",
        Some(RunExit::Aborted) => "aborted",
        Some(RunExit::Terminate) => "terminate (every tool result asked to stop)",
        Some(RunExit::StopAfterTurn) => "stop after turn",
        None => "still running",
    };
    let mut lines = vec![format!(
        "[inspect] run: {} turn(s), exit {exit}, agent_end at {}, idle at {}",
        summary.turns.len(),
        millis(summary.agent_end_ms),
        millis(summary.idle_ms)
    )];
    lines.extend(summary.turns.iter().map(turn_text));
    lines.join("\n")
}

fn turn_text(turn: &TurnSummary) -> String {
    let mut parts = vec![format!("[inspect]   turn {}:", turn.index)];
    if let Some(request) = &turn.request {
        parts.push(format!(
            "sent {} message(s), {} tool(s), {} chars to {} (thinking {});",
            request.message_count,
            request.tools.len(),
            request.context_chars,
            request.model,
            request.thinking_level
        ));
    }
    for injected in turn.injected.iter().filter(|message| !message.is_prompt) {
        parts.push(format!("injected {:?};", injected.text));
    }
    parts.push(format!(
        "first token {}, duration {}, stop {}",
        millis(turn.first_token_ms),
        millis(turn.duration_ms),
        turn.stop_reason.as_deref().unwrap_or("-")
    ));
    if let Some(usage) = &turn.usage {
        parts.push(format!(
            "| {} in, {} out, ${:.4}",
            usage.input, usage.output, usage.cost
        ));
    }
    if let Some(rate) = turn.tokens_per_second {
        parts.push(format!("| {rate:.1} tok/s"));
    }
    for call in &turn.tool_calls {
        let outcome = match call.is_error {
            Some(true) => "error",
            Some(false) => "done",
            None => "running",
        };
        parts.push(format!(
            "| {} {outcome} in {}{}",
            call.name,
            millis(call.duration_ms),
            call.approval
                .as_ref()
                .map(|approval| format!(" ({approval})"))
                .unwrap_or_default()
        ));
    }
    parts.join(" ")
}

fn millis(value: Option<u64>) -> String {
    value.map_or_else(|| "-".to_owned(), |ms| format!("{ms} ms"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use desktop_host::inspector::{InjectedMessage, ToolCallSummary};
    use serde_json::json;

    #[test]
    fn a_tool_run_reads_as_its_exit_and_a_line_per_turn() {
        let summary = RunSummary {
            exit: Some(RunExit::Done),
            started_at_ms: Some(0),
            agent_end_ms: Some(40),
            idle_ms: Some(42),
            turns: vec![TurnSummary {
                index: 1,
                started_ms: Some(1),
                duration_ms: Some(20),
                first_token_ms: Some(5),
                injected: vec![InjectedMessage {
                    text: "which PDFs?".to_owned(),
                    is_prompt: true,
                }],
                request: None,
                model: Some("m".to_owned()),
                stop_reason: Some("toolUse".to_owned()),
                error_message: None,
                usage: None,
                tokens_per_second: None,
                tool_calls: vec![ToolCallSummary {
                    id: "call_1".to_owned(),
                    name: "list_download_files".to_owned(),
                    arguments: json!({}),
                    started_ms: Some(10),
                    duration_ms: Some(3),
                    is_error: Some(false),
                    terminate: false,
                    approval: None,
                }],
            }],
        };

        let text = summary_text(&summary);

        assert_eq!(
            text,
            "[inspect] run: 1 turn(s), exit done (no tool calls, queues empty), agent_end at 40 ms, idle at 42 ms\n\
             [inspect]   turn 1: first token 5 ms, duration 20 ms, stop toolUse | list_download_files done in 3 ms"
        );
    }
}
