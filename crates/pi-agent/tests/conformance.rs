//! Conformance suite: every scenario in `tests/data/scenarios` must produce exactly the trace that
//! pi-agent-core 0.85.1 produced (`tests/data/expected`), compared structurally with numbers by value.

#![allow(
    clippy::unwrap_used,
    reason = "tests unwrap what they set up themselves"
)]

mod harness;

use std::path::PathBuf;

use serde_json::Value;

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

/// The only code that runs scenarios: load, run, compare; on a difference, show the first differing element.
fn check(name: &str) {
    let scenario = harness::load_scenario(&data(&format!("scenarios/{name}.json"))).unwrap();
    let actual = harness::run_blocking(&scenario, true).unwrap();
    let expected_text =
        std::fs::read_to_string(data(&format!("expected/{name}.trace.json"))).unwrap();
    let expected: Value = serde_json::from_str(&expected_text).unwrap();
    if let Some(difference) = harness::compare_traces(&expected, &actual) {
        let (mut expected_part, mut actual_part) = (expected.clone(), actual.clone());
        // Narrow the diff to the top-level section and element that differ.
        if let Some(section) = difference
            .strip_prefix("$.")
            .and_then(|rest| rest.split(['.', '[', ':']).next())
        {
            expected_part = expected.get(section).cloned().unwrap_or(Value::Null);
            actual_part = actual.get(section).cloned().unwrap_or(Value::Null);
            let index = difference
                .split_once('[')
                .and_then(|(_, rest)| rest.split_once(']'))
                .and_then(|(index, _)| index.parse::<usize>().ok());
            if let (Some(index), Value::Array(left), Value::Array(right)) =
                (index, &expected_part, &actual_part)
            {
                let (left, right) = (left.get(index).cloned(), right.get(index).cloned());
                expected_part = left.unwrap_or(Value::Null);
                actual_part = right.unwrap_or(Value::Null);
            }
        }
        harness::canonical_numbers(&mut expected_part);
        harness::canonical_numbers(&mut actual_part);
        pretty_assertions::assert_eq!(
            expected_part,
            actual_part,
            "{name}: first difference at {difference}"
        );
        panic!("{name}: {difference}");
    }
}

macro_rules! scenarios {
    ($($name:ident,)*) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*
    };
}

scenarios! {
    abort_before_tool_execution,
    abort_during_streaming,
    abort_during_streaming_from_driver,
    abort_during_tool_sequential,
    abort_prepared_parallel,
    abort_while_idle,
    after_tool_call_override,
    agent_end_listener_sees_streaming,
    before_tool_call_block,
    before_tool_call_block_terminate,
    concurrent_prompt_rejected,
    continue_assistant_last_with_follow_up,
    continue_from_tool_result,
    continue_from_user_message,
    continue_invalid_assistant_last,
    continue_invalid_empty,
    convert_to_llm_default_filters_custom,
    default_model_when_unset,
    follow_up_after_natural_end,
    follow_up_one_at_a_time,
    long_stream_2000_deltas,
    multi_turn_conversation,
    prepare_arguments_shim,
    prompt_with_image,
    provider_error_first_request,
    provider_error_mid_stream,
    reset_clears_state,
    should_stop_after_turn,
    state_assignment_copies_arrays,
    steer_during_tool_execution_parallel,
    steer_during_tool_execution_sequential,
    steering_one_at_a_time,
    stop_length_no_tools,
    stop_length_with_tool_calls,
    terminate_all_results,
    terminate_some_results,
    text_plain,
    thinking_then_text,
    tool_batch_200_parallel,
    tool_batch_200_sequential,
    tool_call_args_streamed_in_chunks,
    tool_execute_throws,
    tool_invalid_arguments,
    tool_not_found,
    tool_progress_updates,
    tool_returns_is_error,
    tool_single,
    tools_two_parallel,
    tools_two_sequential,
    transform_context_keep_last,
    wait_for_idle,
}

#[test]
fn unknown_scenario_fields_are_refused() {
    let cases = [
        (
            serde_json::json!({ "name": "x", "driver": [], "agnet": {} }),
            "agnet",
        ),
        (
            serde_json::json!({ "name": "x", "agent": { "beforeToolCall": [{ "tool": "t", "blok": true }] } }),
            "blok",
        ),
        (
            serde_json::json!({ "name": "x", "model": { "responses": [{ "steps": [{ "text": ["a"], "ends": false }] }] } }),
            "ends",
        ),
        (
            serde_json::json!({ "name": "x", "driver": [{ "do": "prompt", "text": "hi", "wait": false }] }),
            "wait",
        ),
        (
            serde_json::json!({ "name": "x", "driver": [{ "do": "abort", "now": true }] }),
            "now",
        ),
    ];
    for (scenario, unknown) in cases {
        let error = harness::parse_scenario(&scenario.to_string()).unwrap_err();
        assert!(
            error
                .to_string()
                .contains(&format!("unknown field `{unknown}`")),
            "{error}"
        );
    }
}

#[test]
fn unknown_driver_actions_are_refused() {
    let scenario = serde_json::json!({ "name": "x", "driver": [{ "do": "dance" }] });
    let error = harness::parse_scenario(&scenario.to_string()).unwrap_err();
    assert!(
        error.to_string().contains("unknown variant `dance`"),
        "{error}"
    );
}
