//! Trace values: normalisation (SCENARIOS.md 7.1), the oracle's file layout, and structural comparison with
//! numbers compared by value.

use serde::Serialize;
use serde_json::{Map, Number, Value};

use super::HarnessError;

/// Serializes `value` to JSON and removes every `timestamp` key at any depth (a deep copy at record time).
pub fn normalize<T: Serialize + ?Sized>(value: &T) -> Result<Value, HarnessError> {
    let mut json = serde_json::to_value(value)
        .map_err(|error| HarnessError::new(format!("cannot serialize: {error}")))?;
    strip_timestamps(&mut json);
    Ok(json)
}

/// Removes every `timestamp` key at any depth.
pub fn strip_timestamps(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("timestamp");
            map.values_mut().for_each(strip_timestamps);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_timestamps),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// Rewrites integral floats as integers, so `0.0` and `0` compare equal (JavaScript has one number type).
pub fn canonical_numbers(value: &mut Value) {
    match value {
        Value::Number(number) => {
            if number.is_f64() {
                if let Some(float) = number.as_f64() {
                    if float.fract() == 0.0 && float.abs() < 9_007_199_254_740_992.0 {
                        *number = Number::from(float as i64);
                    }
                }
            }
        }
        Value::Object(map) => map.values_mut().for_each(canonical_numbers),
        Value::Array(items) => items.iter_mut().for_each(canonical_numbers),
        Value::Null | Value::Bool(_) | Value::String(_) => {}
    }
}

/// The first difference between two traces as `path: expected X, got Y`, or `None` when structurally equal.
pub fn first_difference(expected: &Value, actual: &Value) -> Option<String> {
    difference_at(expected, actual, "$")
}

fn describe(value: Option<&Value>) -> String {
    match value {
        None => "(absent)".into(),
        Some(value) => {
            let text = value.to_string();
            if text.chars().count() > 160 {
                format!("{}...", text.chars().take(157).collect::<String>())
            } else {
                text
            }
        }
    }
}

fn numbers_equal(left: &Number, right: &Number) -> bool {
    match (left.as_i64(), right.as_i64(), left.as_u64(), right.as_u64()) {
        (Some(a), Some(b), _, _) => a == b,
        (_, _, Some(a), Some(b)) => a == b,
        _ => left.as_f64() == right.as_f64(),
    }
}

fn difference_at(expected: &Value, actual: &Value, path: &str) -> Option<String> {
    match (expected, actual) {
        (Value::Number(left), Value::Number(right)) => {
            (!numbers_equal(left, right)).then(|| format!("{path}: expected {left}, got {right}"))
        }
        (Value::Array(left), Value::Array(right)) => {
            for (index, (a, b)) in left.iter().zip(right.iter()).enumerate() {
                if let Some(diff) = difference_at(a, b, &format!("{path}[{index}]")) {
                    return Some(diff);
                }
            }
            (left.len() != right.len()).then(|| {
                let extra = if left.len() > right.len() {
                    left.get(right.len())
                } else {
                    right.get(left.len())
                };
                format!(
                    "{path}: expected length {}, got {} (first extra: {})",
                    left.len(),
                    right.len(),
                    describe(extra)
                )
            })
        }
        (Value::Object(left), Value::Object(right)) => {
            let keys = left
                .keys()
                .chain(right.keys().filter(|key| !left.contains_key(*key)));
            for key in keys {
                match (left.get(key), right.get(key)) {
                    (Some(a), Some(b)) => {
                        if let Some(diff) = difference_at(a, b, &format!("{path}.{key}")) {
                            return Some(diff);
                        }
                    }
                    (a, b) => {
                        return Some(format!(
                            "{path}.{key}: expected {}, got {}",
                            describe(a),
                            describe(b)
                        ));
                    }
                }
            }
            None
        }
        _ => (expected != actual).then(|| {
            format!(
                "{path}: expected {}, got {}",
                describe(Some(expected)),
                describe(Some(actual))
            )
        }),
    }
}

/// The oracle's file form (`serializeTrace` in lib/normalize.mjs): the top-level object and objects directly inside
/// it have one key per line; arrays at those levels have one compact element per line.
pub fn serialize_trace(trace: &Value) -> String {
    let mut out = String::new();
    layout(trace, 0, "", &mut out);
    out.push('\n');
    out
}

fn layout(value: &Value, depth: usize, indent: &str, out: &mut String) {
    let inner = format!("{indent}  ");
    match value {
        Value::Array(items) if depth <= 2 => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push_str("[\n");
            for (index, item) in items.iter().enumerate() {
                out.push_str(&inner);
                out.push_str(&item.to_string());
                out.push_str(if index + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(indent);
            out.push(']');
        }
        Value::Object(map) if depth <= 1 => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push_str("{\n");
            for (index, (key, item)) in map.iter().enumerate() {
                out.push_str(&inner);
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                layout(item, depth + 1, &inner, out);
                out.push_str(if index + 1 < map.len() { ",\n" } else { "\n" });
            }
            out.push_str(indent);
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Builds a JSON object from key/value pairs in order.
pub fn object(entries: impl IntoIterator<Item = (&'static str, Value)>) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(key, value)| (key.to_string(), value))
            .collect::<Map<String, Value>>(),
    )
}
