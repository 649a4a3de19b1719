use serde_json::{Value, json};

use super::{validate_tool_arguments, validate_tool_call};
use crate::content::ToolCall;
use crate::context::Tool;

fn tool(parameters: Value) -> Tool {
    Tool::new("write_file", "Write a file.", parameters)
}

fn write_file() -> Tool {
    tool(json!({
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}, "mode": {"type": "integer"}},
        "required": ["path", "content"]
    }))
}

fn coerced(schema_type: Value, value: Value) -> Result<Value, String> {
    let tool = tool(
        json!({"type": "object", "properties": {"v": {"type": schema_type}}, "required": ["v"]}),
    );
    validate_tool_arguments(&tool, &json!({"v": value}))
        .map(|value| value["v"].clone())
        .map_err(|e| e.message)
}

#[test]
fn missing_required_property_reads_as_in_the_trace() {
    let error = validate_tool_arguments(&write_file(), &json!({"path": "a.txt"})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Validation failed for tool \"write_file\":\n  - content: must have required properties content\n\n\
         Received arguments:\n{\n  \"path\": \"a.txt\"\n}"
    );
}

#[test]
fn type_errors_list_every_property_in_order() {
    let arguments = json!({"path": "b.txt", "content": {"nested": true}, "mode": "rw"});
    let error = validate_tool_arguments(&write_file(), &arguments).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Validation failed for tool \"write_file\":\n  - content: must be string\n  - mode: must be integer\n\n\
         Received arguments:\n{\n  \"path\": \"b.txt\",\n  \"content\": {\n    \"nested\": true\n  },\n  \"mode\": \"rw\"\n}"
    );
}

#[test]
fn required_errors_come_before_property_errors() {
    let error = validate_tool_arguments(&write_file(), &json!({"mode": "rw"}))
        .unwrap_err()
        .message;
    let lines: Vec<&str> = error.lines().skip(1).take(3).collect();
    assert_eq!(
        lines,
        vec![
            "  - path: must have required properties path",
            "  - content: must have required properties content",
            "  - mode: must be integer"
        ]
    );
}

#[test]
fn primitives_are_coerced_like_ajv() {
    assert_eq!(coerced(json!("number"), json!("42")), Ok(json!(42)));
    assert_eq!(coerced(json!("number"), json!("1.5")), Ok(json!(1.5)));
    assert_eq!(coerced(json!("number"), json!(true)), Ok(json!(1)));
    assert_eq!(coerced(json!("number"), json!(null)), Ok(json!(0)));
    assert_eq!(coerced(json!("integer"), json!("42")), Ok(json!(42)));
    assert_eq!(coerced(json!("boolean"), json!("true")), Ok(json!(true)));
    assert_eq!(coerced(json!("boolean"), json!("false")), Ok(json!(false)));
    assert_eq!(coerced(json!("boolean"), json!(1)), Ok(json!(true)));
    assert_eq!(coerced(json!("boolean"), json!(0)), Ok(json!(false)));
    assert_eq!(coerced(json!("string"), json!(null)), Ok(json!("")));
    assert_eq!(coerced(json!("string"), json!(true)), Ok(json!("true")));
    assert_eq!(coerced(json!("string"), json!(7)), Ok(json!("7")));
    assert_eq!(coerced(json!("null"), json!("")), Ok(json!(null)));
    assert_eq!(coerced(json!("null"), json!(0)), Ok(json!(null)));
    assert_eq!(coerced(json!("null"), json!(false)), Ok(json!(null)));
    assert_eq!(
        coerced(json!(["number", "string"]), json!("1")),
        Ok(json!("1"))
    );
    assert_eq!(
        coerced(json!(["boolean", "number"]), json!("1")),
        Ok(json!(1))
    );
}

#[test]
fn impossible_coercions_are_rejected() {
    for (schema_type, value) in [
        (json!("boolean"), json!("1")),
        (json!("boolean"), json!("0")),
        (json!("null"), json!("null")),
        (json!("integer"), json!("42.1")),
        (json!("number"), json!("  ")),
    ] {
        let result = coerced(schema_type.clone(), value.clone());
        assert!(
            result
                .as_ref()
                .is_err_and(|message| message.starts_with("Validation failed")),
            "{schema_type} {value}: {result:?}"
        );
    }
}

#[test]
fn optional_nulls_are_dropped_and_required_nulls_coerced() {
    let tool = tool(json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "note": {"type": "string"}, "tags": {"type": ["array", "null"], "items": {"type": "string"}}},
        "required": ["name"]
    }));
    let arguments = json!({"name": null, "note": null, "tags": null});
    assert_eq!(
        validate_tool_arguments(&tool, &arguments),
        Ok(json!({"name": "", "tags": null}))
    );
    assert_eq!(
        arguments,
        json!({"name": null, "note": null, "tags": null}),
        "raw arguments untouched"
    );
}

#[test]
fn coercion_reaches_nested_items_and_additional_properties() {
    let tool = tool(json!({
        "type": "object",
        "properties": {"counts": {"type": "array", "items": {"type": "integer"}}},
        "additionalProperties": {"type": "boolean"}
    }));
    let result = validate_tool_arguments(&tool, &json!({"counts": ["1", 2], "flag": "true"}));
    assert_eq!(result, Ok(json!({"counts": [1, 2], "flag": true})));
}

#[test]
fn any_of_keeps_an_accepted_value_and_otherwise_takes_the_first_coercible_alternative() {
    let tool = tool(json!({
        "type": "object",
        "properties": {"v": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}
    }));
    assert_eq!(
        validate_tool_arguments(&tool, &json!({"v": "x"})),
        Ok(json!({"v": "x"}))
    );
    assert_eq!(
        validate_tool_arguments(&tool, &json!({"v": true})),
        Ok(json!({"v": 1}))
    );
}

#[test]
fn messages_use_typebox_words() {
    let tool = tool(json!({
        "type": "object",
        "properties": {
            "level": {"enum": ["low", "high"]},
            "count": {"type": "integer", "minimum": 1},
            "name": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"}
        },
        "additionalProperties": false
    }));
    let error = validate_tool_arguments(
        &tool,
        &json!({"level": "mid", "count": 0, "name": "A", "x": 1}),
    )
    .unwrap_err()
    .message;
    for expected in [
        "  - level: must be equal to one of the allowed values",
        "  - count: must be >= 1",
        "  - name: must not have fewer than 2 characters",
        "  - name: must match pattern \"^[a-z]+$\"",
        "  - root: must not have additional properties",
    ] {
        assert!(error.contains(expected), "missing {expected:?} in {error}");
    }
}

#[test]
fn validate_tool_call_reports_unknown_tools_with_quotes() {
    let call = ToolCall::new("c1", "nope", json!({}));
    let error = validate_tool_call(&[write_file()], &call).unwrap_err();
    assert_eq!(error.to_string(), "Tool \"nope\" not found");
}

#[test]
fn any_of_failures_list_the_alternatives_errors_first() {
    let tool = tool(json!({
        "type": "object",
        "properties": {"v": {"anyOf": [{"type": "string", "minLength": 3}, {"type": "integer"}]}}
    }));
    let error = validate_tool_arguments(&tool, &json!({"v": "ab"}))
        .unwrap_err()
        .message;
    let lines: Vec<&str> = error
        .lines()
        .skip(1)
        .take_while(|line| !line.is_empty())
        .collect();
    assert_eq!(
        lines,
        vec![
            "  - v: must not have fewer than 3 characters",
            "  - v: must be integer",
            "  - v: must match a schema in anyOf"
        ]
    );
}
