//! The inspector's derivation against the 51 traces the real pi-agent-core 0.85.1 produced
//! (`crates/pi-agent/tests/data/expected`): for every scenario, the runs, each run's number of turns and its exit
//! condition equal what the trace shows. The table was read off the traces by hand (`node summarize.mjs` in the
//! conformance folder prints each as a timeline): count the `turn_start`s of each `agent_start`…`agent_end`, then
//! read how the last turn ended.

use std::path::Path;

use desktop_host::inspector::{LoggedItem, RunExit, summarize_runs};
use serde_json::Value;

use RunExit::{Aborted, Done, Error, StopAfterTurn, Terminate};

/// Scenario → (turns, exit) of each run, in order.
const EXPECTED: &[(&str, &[(usize, RunExit)])] = &[
    ("abort_before_tool_execution", &[(2, Aborted)]),
    ("abort_during_streaming", &[(1, Aborted)]),
    ("abort_during_streaming_from_driver", &[(1, Aborted)]),
    ("abort_during_tool_sequential", &[(2, Aborted)]),
    ("abort_prepared_parallel", &[(2, Aborted)]),
    ("abort_while_idle", &[(1, Done)]),
    ("after_tool_call_override", &[(2, Done)]),
    ("agent_end_listener_sees_streaming", &[(1, Done)]),
    ("before_tool_call_block", &[(2, Done)]),
    (
        "before_tool_call_block_terminate",
        &[(1, Terminate), (2, Done)],
    ),
    ("concurrent_prompt_rejected", &[(2, Done)]),
    ("continue_assistant_last_with_follow_up", &[(1, Done)]),
    ("continue_from_tool_result", &[(1, Done)]),
    ("continue_from_user_message", &[(1, Done)]),
    ("continue_invalid_assistant_last", &[]),
    ("continue_invalid_empty", &[]),
    ("convert_to_llm_default_filters_custom", &[(1, Done)]),
    ("default_model_when_unset", &[(1, Done)]),
    ("follow_up_after_natural_end", &[(2, Done)]),
    ("follow_up_one_at_a_time", &[(3, Done)]),
    ("long_stream_2000_deltas", &[(1, Done)]),
    ("multi_turn_conversation", &[(1, Done), (1, Done)]),
    ("prepare_arguments_shim", &[(2, Done)]),
    ("prompt_with_image", &[(1, Done)]),
    ("provider_error_first_request", &[(1, Error)]),
    ("provider_error_mid_stream", &[(1, Error)]),
    ("reset_clears_state", &[(1, Error), (1, Done)]),
    ("should_stop_after_turn", &[(1, StopAfterTurn), (1, Done)]),
    ("state_assignment_copies_arrays", &[(1, Done)]),
    ("steer_during_tool_execution_parallel", &[(2, Done)]),
    ("steer_during_tool_execution_sequential", &[(2, Done)]),
    ("steering_one_at_a_time", &[(3, Done)]),
    ("stop_length_no_tools", &[(1, Done)]),
    ("stop_length_with_tool_calls", &[(2, Done)]),
    ("terminate_all_results", &[(1, Terminate)]),
    ("terminate_some_results", &[(2, Done)]),
    ("text_plain", &[(1, Done)]),
    ("thinking_then_text", &[(1, Done)]),
    ("tool_batch_200_parallel", &[(2, Done)]),
    ("tool_batch_200_sequential", &[(2, Done)]),
    ("tool_call_args_streamed_in_chunks", &[(2, Done)]),
    ("tool_execute_throws", &[(2, Done)]),
    ("tool_invalid_arguments", &[(2, Done)]),
    ("tool_not_found", &[(2, Done)]),
    ("tool_progress_updates", &[(2, Done)]),
    ("tool_returns_is_error", &[(2, Done)]),
    ("tool_single", &[(2, Done)]),
    ("tools_two_parallel", &[(2, Done)]),
    ("tools_two_sequential", &[(2, Done)]),
    ("transform_context_keep_last", &[(2, Done)]),
    ("wait_for_idle", &[(1, Done)]),
];

fn traces() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../pi-agent/tests/data/expected")
}

#[test]
fn every_conformance_trace_reads_as_the_runs_turns_and_exits_it_shows() {
    let mut names: Vec<String> = std::fs::read_dir(traces())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|name| name.strip_suffix(".trace.json").map(str::to_owned))
        .collect();
    names.sort();
    let listed: Vec<&str> = EXPECTED.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, listed, "every trace has its line in the table");

    let mut wrong = Vec::new();
    for (name, expected) in EXPECTED {
        let text = std::fs::read_to_string(traces().join(format!("{name}.trace.json"))).unwrap();
        let trace: Value = serde_json::from_str(&text).unwrap();
        let events = trace["events"].as_array().unwrap();
        let log: Vec<LoggedItem<'_>> = events
            .iter()
            .map(|item| LoggedItem { at_ms: None, item })
            .collect();

        let runs = summarize_runs(&log);

        let read: Vec<(usize, RunExit)> = runs
            .iter()
            .map(|run| (run.turns.len(), run.exit.expect("every trace's runs end")))
            .collect();
        if read != *expected {
            wrong.push(format!(
                "{name}: read {read:?}, the trace shows {expected:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_turns_of_a_tool_run_carry_the_prompt_the_calls_and_the_answer() {
    let text =
        std::fs::read_to_string(traces().join("steer_during_tool_execution_sequential.trace.json"))
            .unwrap();
    let trace: Value = serde_json::from_str(&text).unwrap();
    let log: Vec<LoggedItem<'_>> = trace["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| LoggedItem { at_ms: None, item })
        .collect();

    let runs = summarize_runs(&log);

    let turns = &runs[0].turns;
    assert!(turns[0].injected.iter().all(|message| message.is_prompt));
    assert_eq!(turns[0].tool_calls.len(), 2);
    assert!(
        turns[0]
            .tool_calls
            .iter()
            .all(|call| call.is_error == Some(false))
    );
    assert_eq!(turns[0].stop_reason.as_deref(), Some("toolUse"));
    assert_eq!(
        turns[1].injected.len(),
        1,
        "the steering message opens the second turn"
    );
    assert!(!turns[1].injected[0].is_prompt);
    assert_eq!(turns[1].stop_reason.as_deref(), Some("stop"));
}
