//! pi's `parseStreamingJson` results recorded in the conformance traces: after every `toolcall_delta`, the
//! partial message shows the arguments parsed from the raw text streamed so far; the port's parser must give
//! the same value for every prefix (scenarios `tool_call_args_streamed_in_chunks`, `stop_length_with_tool_calls`
//! send incomplete JSON).

#![allow(clippy::unwrap_used, reason = "test code")]

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use pi_ai::parse_streaming_json;
use pretty_assertions::assert_eq;
use serde_json::Value;

#[test]
fn every_streamed_argument_prefix_parses_as_pi_parsed_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces");
    let mut checked = 0;
    let mut failures = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let trace: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        // Raw argument text per content index of the message being streamed.
        let mut buffers: HashMap<u64, String> = HashMap::new();
        for event in trace["events"].as_array().unwrap() {
            match event["type"].as_str() {
                Some("message_start") => buffers.clear(),
                Some("message_update") => {}
                _ => continue,
            }
            let update = &event["assistantMessageEvent"];
            if update["type"] != "toolcall_delta" {
                continue;
            }
            let index = update["contentIndex"].as_u64().unwrap();
            let buffer = buffers.entry(index).or_default();
            buffer.push_str(update["delta"].as_str().unwrap());
            let Some(recorded) = event.pointer(&format!("/message/content/{index}/arguments"))
            else {
                continue;
            };
            checked += 1;
            let parsed = parse_streaming_json(buffer);
            if &parsed != recorded {
                failures.push(format!(
                    "{}: {buffer:?} parsed to {parsed}, pi had {recorded}",
                    path.display()
                ));
            }
        }
    }
    assert_eq!(failures, Vec::<String>::new());
    assert!(checked >= 10, "only {checked} recorded parses");
}
