//! Identifiers replayed across turns: tool-call ids `"<call_id>|<item_id>"` normalised like pi, text
//! signatures `{"v":1,"id":…,"phase"?:…}`, and pi's `shortHash` that shortens both.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use crate::message::Message;
use crate::model::Model;

const TOOL_CALL_PROVIDERS: [&str; 3] = ["openai", "openai-codex", "opencode"];

/// pi's `shortHash`: two 32-bit multiplicative hashes over UTF-16 code units, printed in base 36.
pub(super) fn pi_short_hash(text: &str) -> String {
    let mut h1: u32 = 0xdead_beef;
    let mut h2: u32 = 0x41c6_ce57;
    for unit in text.encode_utf16() {
        let ch = u32::from(unit);
        h1 = (h1 ^ ch).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ ch).wrapping_mul(1_597_334_677);
    }
    h1 = (h1 ^ (h1 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h2 ^ (h2 >> 13)).wrapping_mul(3_266_489_909);
    h2 = (h2 ^ (h2 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h1 ^ (h1 >> 13)).wrapping_mul(3_266_489_909);
    format!("{}{}", base36(h2), base36(h1))
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

fn normalize_id_part(part: &str) -> String {
    let sanitized: String = part
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let cut: String = sanitized.chars().take(64).collect();
    cut.trim_end_matches('_').to_string()
}

/// Responses tool-call ids `call|item`: both parts sanitised; the item id of a call made by another provider
/// or API is replaced by `fc_<hash>` (its own item ids mean nothing here), others get an `fc_` prefix.
pub(super) fn normalize_tool_call_id(model: &Model, id: &str, foreign: bool) -> String {
    if !TOOL_CALL_PROVIDERS.contains(&model.provider.as_str()) {
        return normalize_id_part(id);
    }
    let Some((call, item)) = id.split_once('|') else {
        return normalize_id_part(id);
    };
    let call = normalize_id_part(call);
    let item = item.split('|').next().unwrap_or_default();
    let mut item = if foreign {
        format!("fc_{}", pi_short_hash(item))
            .chars()
            .take(64)
            .collect()
    } else {
        normalize_id_part(item)
    };
    if !item.starts_with("fc_") {
        item = normalize_id_part(&format!("fc_{item}"));
    }
    format!("{call}|{item}")
}

/// Ids of tool calls made by another provider or API (their item ids are not replayable here).
pub(super) fn foreign_tool_call_ids(model: &Model, messages: &[Message]) -> HashSet<String> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) if *a.provider != *model.provider || a.api != model.api => {
                Some(a)
            }
            _ => None,
        })
        .flat_map(|a| a.tool_calls().map(|c| c.id.clone()).collect::<Vec<_>>())
        .collect()
}

/// `{"v":1,"id":…,"phase"?:…}`.
pub(super) fn encode_text_signature(id: &str, phase: Option<&str>) -> String {
    let mut payload = Map::new();
    payload.insert("v".into(), json!(1));
    payload.insert("id".into(), json!(id));
    if let Some(phase) = phase.filter(|p| !p.is_empty()) {
        payload.insert("phase".into(), json!(phase));
    }
    Value::Object(payload).to_string()
}

pub(super) fn parse_text_signature(signature: Option<&str>) -> Option<(String, Option<String>)> {
    let signature = signature?;
    if signature.starts_with('{') {
        if let Ok(parsed) = serde_json::from_str::<Value>(signature) {
            if parsed.get("v").and_then(Value::as_i64) == Some(1) {
                if let Some(id) = parsed.get("id").and_then(Value::as_str) {
                    let phase = parsed
                        .get("phase")
                        .and_then(Value::as_str)
                        .filter(|p| matches!(*p, "commentary" | "final_answer"))
                        .map(str::to_string);
                    return Some((id.to_string(), phase));
                }
            }
        }
    }
    Some((signature.to_string(), None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_hash_matches_pi() {
        // Values printed by pi-ai 0.85.1's `shortHash`.
        assert_eq!(pi_short_hash(""), "k4n83c7h0j2b");
        assert_eq!(pi_short_hash("call_abc|fc_123"), "jp01dsxufnom");
        assert_eq!(pi_short_hash("toolu_01/AbC+xyz"), "1iyc4dfuh4alu");
        assert_eq!(pi_short_hash("简历📄"), "1jt1uo711mdwr9");
        assert_eq!(pi_short_hash(&"x".repeat(300)), "1ri0b25fse44j");
    }

    #[test]
    fn tool_call_ids_are_normalised_like_pi() {
        let model: Model = serde_json::from_value(json!({
            "id": "gpt-5", "name": "gpt-5", "api": "openai-responses", "provider": "openai", "baseUrl": "http://x",
            "reasoning": true, "input": ["text"], "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            "contextWindow": 1000, "maxTokens": 100
        }))
        .unwrap();
        assert_eq!(
            normalize_tool_call_id(&model, "toolu_01/AbC+xyz", true),
            "toolu_01_AbC_xyz"
        );
        assert_eq!(
            normalize_tool_call_id(&model, "call_1|fc_2", false),
            "call_1|fc_2"
        );
        assert_eq!(
            normalize_tool_call_id(&model, "call_1|item+2", false),
            "call_1|fc_item_2"
        );
        // Another provider's item id is replaced by a hash (pi: `fc_${shortHash(itemId)}`).
        let foreign = normalize_tool_call_id(&model, "call_abc|fc_123", true);
        assert_eq!(foreign, format!("call_abc|fc_{}", pi_short_hash("fc_123")));
    }

    #[test]
    fn text_signatures_round_trip() {
        let sig = encode_text_signature("msg_1", Some("commentary"));
        assert_eq!(sig, r#"{"v":1,"id":"msg_1","phase":"commentary"}"#);
        assert_eq!(
            parse_text_signature(Some(&sig)),
            Some(("msg_1".into(), Some("commentary".into())))
        );
        assert_eq!(
            parse_text_signature(Some("legacy")),
            Some(("legacy".into(), None))
        );
    }
}
