//! OpenRouter's `reasoning_details`: the list that replays a model's reasoning, validated, merged from
//! streamed pieces, and kept as a thinking block's signature.

use serde_json::Value;

/// OpenRouter `reasoning_details` kept in a thinking signature, when it holds a valid list.
pub(super) fn parse_reasoning_details(signature: Option<&str>) -> Option<Vec<Value>> {
    let parsed: Value = serde_json::from_str(signature?).ok()?;
    let list = parsed.as_array()?;
    (!list.is_empty() && list.iter().all(is_reasoning_detail)).then(|| list.clone())
}

pub(super) fn is_reasoning_detail(detail: &Value) -> bool {
    let Some(o) = detail.as_object() else {
        return false;
    };
    let id_ok = o.get("id").is_none_or(|v| v.is_null() || v.is_string());
    let format_ok = o.get("format").is_none_or(Value::is_string);
    let index_ok = o.get("index").is_none_or(Value::is_number);
    if !(id_ok && format_ok && index_ok) {
        return false;
    }
    match o.get("type").and_then(Value::as_str) {
        Some("reasoning.summary") => o.get("summary").is_some_and(Value::is_string),
        Some("reasoning.encrypted") => o.get("data").is_some_and(Value::is_string),
        Some("reasoning.text") => {
            o.get("text").is_some_and(Value::is_string)
                && o.get("signature")
                    .is_none_or(|v| v.is_null() || v.is_string())
        }
        _ => false,
    }
}

/// Merges a streamed reasoning detail into the list (consecutive text/summary pieces join).
pub(super) fn append_reasoning_detail(details: &mut Vec<Value>, detail: &Value) {
    let kind = detail
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if let Some(last) = details.last_mut().and_then(Value::as_object_mut) {
        let last_kind = last
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let field = match (kind, last_kind.as_str()) {
            ("reasoning.text", "reasoning.text") => Some("text"),
            ("reasoning.summary", "reasoning.summary") => Some("summary"),
            _ => None,
        };
        if let Some(field) = field {
            let added = detail
                .get(field)
                .and_then(Value::as_str)
                .unwrap_or_default();
            let joined = format!(
                "{}{added}",
                last.get(field).and_then(Value::as_str).unwrap_or_default()
            );
            last.insert(field.into(), Value::String(joined));
            if field == "text" {
                let has_signature = last
                    .get("signature")
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty());
                // pi's `last.signature ||= detail.signature`: an empty signature takes the next piece's,
                // and is gone when that piece has none.
                if !has_signature {
                    match detail.get("signature") {
                        Some(sig) => last.insert("signature".into(), sig.clone()),
                        None => last.shift_remove("signature"),
                    };
                }
            }
            for key in ["id", "index"] {
                if last.get(key).is_none_or(Value::is_null) {
                    if let Some(v) = detail.get(key) {
                        last.insert(key.into(), v.clone());
                    }
                }
            }
            if last
                .get("format")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                if let Some(v) = detail.get("format") {
                    last.insert("format".into(), v.clone());
                }
            }
            return;
        }
    }
    details.push(detail.clone());
}
