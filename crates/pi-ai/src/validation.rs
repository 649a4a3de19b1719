//! Tool argument validation with pi's AJV-compatible coercion and pi's error text (spec 4.6).
//!
//! The raw arguments are never changed: validation works on a copy, which is coerced (optional `null`s dropped,
//! primitives converted as AJV's `coerceTypes` does) and then checked with the `jsonschema` crate. Errors are
//! reported in TypeBox's words, required-property errors first.

use serde_json::{Number, Value};

use crate::content::ToolCall;
use crate::context::Tool;

mod validator_cache;

/// Validation failed; `Display` is pi's full message (`Validation failed for tool "…":` …).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolValidationError {
    /// pi's message text.
    pub message: String,
}

/// Validates `arguments` against `tool.parameters` and returns the coerced copy (`"3"` → 3 for an integer
/// field, 7 → `"7"` for a string field, optional `null`s removed). On failure the error text is
/// `Validation failed for tool "{name}":`, one `  - {path}: {message}` line per problem, a blank line,
/// `Received arguments:` and the original arguments as 2-space-indented JSON.
pub fn validate_tool_arguments(
    tool: &Tool,
    arguments: &Value,
) -> Result<Value, ToolValidationError> {
    validate_arguments(&tool.name, &tool.parameters, arguments)
}

/// [`validate_tool_arguments`] for a tool given by its name and parameter schema, so a caller that holds them
/// (an agent tool) need not build a [`Tool`] per call.
pub fn validate_arguments(
    tool_name: &str,
    parameters: &Value,
    arguments: &Value,
) -> Result<Value, ToolValidationError> {
    let mut coerced = arguments.clone();
    drop_optional_nulls(&mut coerced, parameters);
    let coerced = coerce(coerced, parameters);
    let validator = match validator_cache::validator_for(parameters) {
        Ok(validator) => validator,
        Err(error) => {
            let lines = vec![format!("  - root: invalid parameter schema: {error}")];
            return Err(failure(tool_name, arguments, &lines));
        }
    };
    let mut required = Vec::new();
    let mut others = Vec::new();
    for error in validator.iter_errors(&coerced) {
        collect_error(&error, &mut required, &mut others);
    }
    if required.is_empty() && others.is_empty() {
        return Ok(coerced);
    }
    required.extend(others);
    Err(failure(tool_name, arguments, &required))
}

/// pi's `validateToolCall`: finds the tool by name (`Tool "{name}" not found`), then validates the call's
/// arguments.
pub fn validate_tool_call(
    tools: &[Tool],
    tool_call: &ToolCall,
) -> Result<Value, ToolValidationError> {
    let Some(tool) = tools.iter().find(|tool| tool.name == tool_call.name) else {
        return Err(ToolValidationError {
            message: format!("Tool \"{}\" not found", tool_call.name),
        });
    };
    validate_tool_arguments(tool, &tool_call.arguments)
}

fn failure(tool_name: &str, arguments: &Value, lines: &[String]) -> ToolValidationError {
    let listed = if lines.is_empty() {
        "Unknown validation error".to_owned()
    } else {
        lines.join("\n")
    };
    let received =
        serde_json::to_string_pretty(arguments).unwrap_or_else(|_| arguments.to_string());
    ToolValidationError {
        message: format!(
            "Validation failed for tool \"{tool_name}\":\n{listed}\n\nReceived arguments:\n{received}"
        ),
    }
}

/// Turns one validator error (and, for `anyOf`/`oneOf`, the alternatives' errors before it) into report lines.
fn collect_error(
    error: &jsonschema::ValidationError<'_>,
    required: &mut Vec<String>,
    others: &mut Vec<String>,
) {
    use jsonschema::error::ValidationErrorKind as Kind;

    let base = error
        .instance_path()
        .as_str()
        .trim_start_matches('/')
        .replace('/', ".");
    let at = |message: String| {
        let path = if base.is_empty() {
            "root"
        } else {
            base.as_str()
        };
        format!("  - {path}: {message}")
    };
    let message = match error.kind() {
        Kind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            let path = if base.is_empty() {
                name.clone()
            } else {
                format!("{base}.{name}")
            };
            required.push(format!("  - {path}: must have required properties {name}"));
            return;
        }
        Kind::AnyOf { context } | Kind::OneOfNotValid { context } => {
            for alternative in context {
                for inner in alternative {
                    collect_error(inner, required, others);
                }
            }
            if matches!(error.kind(), Kind::AnyOf { .. }) {
                "must match a schema in anyOf".to_owned()
            } else {
                "must match exactly one schema in oneOf".to_owned()
            }
        }
        Kind::OneOfMultipleValid { .. } => "must match exactly one schema in oneOf".to_owned(),
        Kind::Type { kind } => {
            let names: Vec<String> = match kind {
                jsonschema::error::TypeKind::Single(single) => vec![single.to_string()],
                jsonschema::error::TypeKind::Multiple(set) => {
                    set.iter().map(|item| item.to_string()).collect()
                }
            };
            format!("must be {}", names.join(","))
        }
        Kind::AdditionalProperties { .. } => "must not have additional properties".to_owned(),
        Kind::Enum { .. } => "must be equal to one of the allowed values".to_owned(),
        Kind::Constant { .. } => "must be equal to constant".to_owned(),
        Kind::Minimum { limit } => format!("must be >= {limit}"),
        Kind::Maximum { limit } => format!("must be <= {limit}"),
        Kind::ExclusiveMinimum { limit } => format!("must be > {limit}"),
        Kind::ExclusiveMaximum { limit } => format!("must be < {limit}"),
        Kind::MinLength { limit } => format!("must not have fewer than {limit} characters"),
        Kind::MaxLength { limit } => format!("must not have more than {limit} characters"),
        Kind::MinItems { limit } => format!("must not have fewer than {limit} items"),
        Kind::MaxItems { limit } => format!("must not have more than {limit} items"),
        Kind::MinProperties { limit } => format!("must not have fewer than {limit} properties"),
        Kind::MaxProperties { limit } => format!("must not have more than {limit} properties"),
        Kind::Pattern { pattern } => format!("must match pattern \"{pattern}\""),
        Kind::Format { format } => format!("must match format \"{format}\""),
        Kind::UniqueItems => "must not have duplicate items".to_owned(),
        Kind::MultipleOf { .. } => multiple_of_message(error),
        _ => error.to_string(),
    };
    others.push(at(message));
}

fn multiple_of_message(error: &jsonschema::ValidationError<'_>) -> String {
    let text = error.to_string();
    // The crate words it "{value} is not a multiple of {n}"; TypeBox says "must be multiple of {n}".
    text.rsplit_once("multiple of ")
        .map_or(text.clone(), |(_, n)| format!("must be multiple of {n}"))
}

/// Removes properties whose value is `null` when the property is optional, has no `$ref` and its schema does
/// not accept `null` (recursively through `properties` and `items`).
fn drop_optional_nulls(value: &mut Value, schema: &Value) {
    let Some(schema) = schema.as_object() else {
        return;
    };
    match value {
        Value::Object(object) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            object.retain(|key, item| {
                let Some(property) = properties.get(key) else {
                    return true;
                };
                let droppable = item.is_null()
                    && !required.contains(&key.as_str())
                    && property.get("$ref").is_none()
                    && !accepts_null(property);
                !droppable
            });
            for (key, item) in object.iter_mut() {
                if let Some(property) = properties.get(key) {
                    drop_optional_nulls(item, property);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|items| items.is_object()) {
                for item in items {
                    drop_optional_nulls(item, item_schema);
                }
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// Whether a schema admits `null` (by type, `nullable`, `const`/`enum`, or an alternative that does).
fn accepts_null(schema: &Value) -> bool {
    match schema {
        Value::Bool(accepts) => *accepts,
        Value::Object(object) => {
            if object.get("nullable") == Some(&Value::Bool(true)) {
                return true;
            }
            if object.get("const") == Some(&Value::Null) {
                return true;
            }
            if let Some(options) = object.get("enum").and_then(Value::as_array) {
                return options.contains(&Value::Null);
            }
            match object.get("type") {
                Some(Value::String(name)) => return name == "null",
                Some(Value::Array(names)) => return names.iter().any(|name| name == "null"),
                Some(_) => return false,
                None => {}
            }
            for keyword in ["anyOf", "oneOf"] {
                if let Some(alternatives) = object.get(keyword).and_then(Value::as_array) {
                    return alternatives.iter().any(accepts_null);
                }
            }
            if let Some(all) = object.get("allOf").and_then(Value::as_array) {
                return all.iter().all(accepts_null);
            }
            // No type constraint at all: anything goes.
            true
        }
        Value::Null | Value::Number(_) | Value::String(_) | Value::Array(_) => false,
    }
}

/// AJV-compatible coercion of `value` toward `schema` (spec 4.6 step 4).
fn coerce(value: Value, schema: &Value) -> Value {
    let Some(object) = schema.as_object() else {
        return value;
    };
    let mut value = coerce_to_types(value, object.get("type"));
    match &mut value {
        Value::Object(fields) => {
            let properties = object.get("properties").and_then(Value::as_object);
            let additional = object
                .get("additionalProperties")
                .filter(|schema| schema.is_object());
            let keys: Vec<String> = fields.keys().cloned().collect();
            for key in keys {
                let item_schema = properties
                    .and_then(|properties| properties.get(&key))
                    .or(additional);
                if let (Some(item_schema), Some(item)) = (item_schema, fields.get_mut(&key)) {
                    *item = coerce(std::mem::take(item), item_schema);
                }
            }
        }
        Value::Array(items) => {
            let tuple = object
                .get("prefixItems")
                .and_then(Value::as_array)
                .or_else(|| object.get("items").and_then(Value::as_array));
            match (
                tuple,
                object.get("items").filter(|schema| schema.is_object()),
            ) {
                (Some(tuple), _) => {
                    for (item, item_schema) in items.iter_mut().zip(tuple) {
                        *item = coerce(std::mem::take(item), item_schema);
                    }
                }
                (None, Some(item_schema)) => {
                    for item in items.iter_mut() {
                        *item = coerce(std::mem::take(item), item_schema);
                    }
                }
                (None, None) => {}
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
    if let Some(all) = object.get("allOf").and_then(Value::as_array) {
        for sub_schema in all {
            value = coerce(value, sub_schema);
        }
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(alternatives) = object.get(keyword).and_then(Value::as_array) {
            value = coerce_to_alternative(value, alternatives);
        }
    }
    value
}

/// Keeps `value` if some alternative accepts it unchanged, else takes the first alternative's coerced copy
/// that validates.
fn coerce_to_alternative(value: Value, alternatives: &[Value]) -> Value {
    let is_valid = |schema: &Value, candidate: &Value| {
        jsonschema::validator_for(schema).is_ok_and(|validator| validator.is_valid(candidate))
    };
    if alternatives
        .iter()
        .any(|alternative| is_valid(alternative, &value))
    {
        return value;
    }
    for alternative in alternatives {
        let candidate = coerce(value.clone(), alternative);
        if is_valid(alternative, &candidate) {
            return candidate;
        }
    }
    value
}

fn coerce_to_types(value: Value, types: Option<&Value>) -> Value {
    let names: Vec<&str> = match types {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        Some(_) | None => return value,
    };
    if names.iter().any(|name| matches_type(&value, name)) {
        return value;
    }
    for name in names {
        if let Some(coerced) = coerce_primitive(&value, name) {
            return coerced;
        }
    }
    value
}

fn matches_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => is_integer(value),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    }
}

fn is_integer(value: &Value) -> bool {
    match value {
        Value::Number(number) => {
            number.is_i64()
                || number.is_u64()
                || number.as_f64().is_some_and(|float| float.fract() == 0.0)
        }
        Value::Null | Value::Bool(_) | Value::String(_) | Value::Array(_) | Value::Object(_) => {
            false
        }
    }
}

/// The JSON number JavaScript would hold for `float`: integral values print as integers.
fn js_number(float: f64) -> Option<Value> {
    if float.fract() == 0.0 && float.abs() < 9_007_199_254_740_992.0 {
        return Some(Value::Number(Number::from(float as i64)));
    }
    Number::from_f64(float).map(Value::Number)
}

/// A non-blank string that JavaScript's `+text` turns into a finite number (decimal forms only).
fn numeric_string(text: &str) -> Option<f64> {
    let trimmed = text.trim();
    let decimal = !trimmed.is_empty()
        && trimmed
            .chars()
            .all(|ch| ch.is_ascii_digit() || matches!(ch, '.' | '-' | '+' | 'e' | 'E'));
    if !decimal {
        return None;
    }
    trimmed
        .parse::<f64>()
        .ok()
        .filter(|float| float.is_finite())
}

/// Coerces a primitive toward `name` as AJV's `coerceTypes` does; `None` when no rule applies.
fn coerce_primitive(value: &Value, name: &str) -> Option<Value> {
    match (name, value) {
        ("number", Value::Null) | ("integer", Value::Null) => Some(Value::from(0)),
        ("number", Value::Bool(flag)) | ("integer", Value::Bool(flag)) => {
            Some(Value::from(u8::from(*flag)))
        }
        ("number", Value::String(text)) => numeric_string(text).and_then(js_number),
        ("integer", Value::String(text)) => numeric_string(text)
            .filter(|float| float.fract() == 0.0)
            .and_then(js_number),
        ("boolean", Value::Null) => Some(Value::Bool(false)),
        ("boolean", Value::String(text)) => match text.as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ("boolean", Value::Number(number)) => match number.as_f64() {
            Some(1.0) => Some(Value::Bool(true)),
            Some(0.0) => Some(Value::Bool(false)),
            _ => None,
        },
        ("string", Value::Null) => Some(Value::String(String::new())),
        ("string", Value::Bool(flag)) => Some(Value::String(flag.to_string())),
        ("string", Value::Number(number)) => Some(Value::String(number.to_string())),
        ("null", Value::String(text)) if text.is_empty() => Some(Value::Null),
        ("null", Value::Bool(false)) => Some(Value::Null),
        ("null", Value::Number(number)) if number.as_f64() == Some(0.0) => Some(Value::Null),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
