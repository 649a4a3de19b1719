//! Model lists as each kind of server sends them, read into [`ListedModel`]s: the ids, and what the server says
//! of a model beyond its id (OpenRouter's context length, output limit, modalities and prices; llama.cpp's
//! trained context; Anthropic's display names).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model_list::known_models::Pricing;

/// Which shape of list a server sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListShape {
    /// `GET …/models` of OpenAI and the servers that copy it (`{"data": [{"id": …}, …]}`); llama.cpp's and
    /// OpenRouter's extras are read where present.
    OpenAi,
    /// Ollama's own `GET /api/tags` (`{"models": [{"name": …}, …]}`).
    Ollama,
    /// Anthropic's `GET /v1/models` (`{"data": [{"id", "display_name"}], "has_more", "last_id"}`).
    Anthropic,
}

/// One model of a server's list.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedModel {
    /// The id to send as `model`.
    pub id: String,
    /// The server's display name, when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// The context window the server states.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// The output limit the server states.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// Whether the server says the model reads images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_input: Option<bool>,
    /// The server's prices, per million tokens (input, output, cache read, cache write).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pricing: Option<[f64; 4]>,
}

impl ListedModel {
    fn new(id: &str) -> ListedModel {
        ListedModel {
            id: id.to_owned(),
            ..ListedModel::default()
        }
    }

    /// The server's prices as [`Pricing`].
    pub fn server_pricing(&self) -> Option<Pricing> {
        self.pricing
            .map(|[input, output, cache_read, cache_write]| Pricing {
                input,
                output,
                cache_read,
                cache_write,
            })
    }
}

/// One page of a list: its models, and for Anthropic the id to continue after when there are more.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListPage {
    /// The models, in the server's order, without duplicates and without models that cannot chat.
    pub models: Vec<ListedModel>,
    /// `Some(last_id)` when the server has more (Anthropic's `has_more`).
    pub next_after: Option<String>,
}

/// Why a body is not a model list.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the answer is not a model list: {0}")]
pub struct NotAList(pub String);

/// Reads one page of `shape` from `body`.
pub fn parse_list(shape: ListShape, body: &Value) -> Result<ListPage, NotAList> {
    match shape {
        ListShape::OpenAi => parse_openai(body),
        ListShape::Ollama => parse_ollama(body),
        ListShape::Anthropic => parse_anthropic(body),
    }
}

fn parse_openai(body: &Value) -> Result<ListPage, NotAList> {
    // llama.cpp answers with `data` (OpenAI's shape) and `models` (Ollama's); some servers send a bare array.
    let entries = body
        .get("data")
        .and_then(Value::as_array)
        .or_else(|| body.get("models").and_then(Value::as_array))
        .or_else(|| body.as_array())
        .ok_or_else(|| NotAList("no `data` array".to_owned()))?;
    let models = entries
        .iter()
        .filter_map(|entry| {
            let id = entry
                .get("id")
                .or_else(|| entry.get("model"))
                .or_else(|| entry.get("name"))
                .and_then(Value::as_str)?;
            let mut model = ListedModel::new(id);
            model.display_name = entry
                .get("name")
                .and_then(Value::as_str)
                .filter(|name| *name != id)
                .map(str::to_owned);
            // OpenRouter.
            model.context_window = entry
                .get("context_length")
                .and_then(Value::as_u64)
                // llama.cpp: the context the model was trained with.
                .or_else(|| entry.pointer("/meta/n_ctx_train").and_then(Value::as_u64));
            model.max_output_tokens = entry
                .pointer("/top_provider/max_completion_tokens")
                .and_then(Value::as_u64);
            model.image_input = entry
                .pointer("/architecture/input_modalities")
                .and_then(Value::as_array)
                .map(|modalities| modalities.iter().any(|m| m.as_str() == Some("image")));
            model.pricing = entry.get("pricing").and_then(per_token_prices);
            Some(model)
        })
        .collect();
    Ok(ListPage {
        models: cleaned(models),
        next_after: None,
    })
}

/// OpenRouter's `pricing`: dollars per token as strings (`"0.0000025"`), turned into dollars per million.
fn per_token_prices(pricing: &Value) -> Option<[f64; 4]> {
    let rate = |name: &str| {
        let value = pricing.get(name)?;
        let per_token = match value {
            Value::String(text) => text.trim().parse::<f64>().ok()?,
            Value::Number(number) => number.as_f64()?,
            _ => return None,
        };
        // Negative prices mark "varies" (OpenRouter's auto router); they are no price at all.
        (per_token >= 0.0).then_some(per_token * 1_000_000.0)
    };
    Some([
        rate("prompt")?,
        rate("completion")?,
        rate("input_cache_read").unwrap_or(0.0),
        rate("input_cache_write").unwrap_or(0.0),
    ])
}

fn parse_ollama(body: &Value) -> Result<ListPage, NotAList> {
    let entries = body
        .get("models")
        .and_then(Value::as_array)
        .ok_or_else(|| NotAList("no `models` array".to_owned()))?;
    let models = entries
        .iter()
        .filter_map(|entry| {
            let id = entry
                .get("name")
                .or_else(|| entry.get("model"))
                .and_then(Value::as_str)?;
            let mut model = ListedModel::new(id);
            let families = entry
                .pointer("/details/families")
                .and_then(Value::as_array)
                .map(|families| {
                    families
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            // Vision models carry their image encoder's family (`clip`, `mllama`).
            if families
                .iter()
                .any(|family| matches!(*family, "clip" | "mllama"))
            {
                model.image_input = Some(true);
            }
            Some(model)
        })
        .collect();
    Ok(ListPage {
        models: cleaned(models),
        next_after: None,
    })
}

fn parse_anthropic(body: &Value) -> Result<ListPage, NotAList> {
    let entries = body
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| NotAList("no `data` array".to_owned()))?;
    let models = entries
        .iter()
        .filter_map(|entry| {
            let id = entry.get("id").and_then(Value::as_str)?;
            let mut model = ListedModel::new(id);
            model.display_name = entry
                .get("display_name")
                .and_then(Value::as_str)
                .map(str::to_owned);
            Some(model)
        })
        .collect();
    let has_more = body.get("has_more").and_then(Value::as_bool) == Some(true);
    let next_after = body
        .get("last_id")
        .and_then(Value::as_str)
        .filter(|_| has_more)
        .map(str::to_owned);
    Ok(ListPage {
        models: cleaned(models),
        next_after,
    })
}

/// Without duplicates, empty ids and the models that cannot chat (embeddings, speech, images, moderation).
fn cleaned(models: Vec<ListedModel>) -> Vec<ListedModel> {
    let mut seen = std::collections::HashSet::new();
    models
        .into_iter()
        .filter(|model| !model.id.trim().is_empty() && can_chat(&model.id))
        .filter(|model| seen.insert(model.id.clone()))
        .collect()
}

fn can_chat(id: &str) -> bool {
    let lower = id.to_ascii_lowercase();
    const NOT_CHAT: [&str; 11] = [
        "embed",
        "whisper",
        "transcribe",
        "tts",
        "dall-e",
        "gpt-image",
        "moderation",
        "rerank",
        "davinci",
        "babbage",
        "sora",
    ];
    !NOT_CHAT.iter().any(|word| lower.contains(word))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn ids(page: &ListPage) -> Vec<&str> {
        page.models.iter().map(|model| model.id.as_str()).collect()
    }

    #[test]
    fn openai_lists_keep_the_chat_models_in_order() {
        let body = json!({"object": "list", "data": [
            {"id": "gpt-4o", "object": "model", "created": 1715367049, "owned_by": "system"},
            {"id": "text-embedding-3-small", "object": "model", "owned_by": "system"},
            {"id": "whisper-1", "object": "model", "owned_by": "openai-internal"},
            {"id": "gpt-4o-mini-tts", "object": "model"},
            {"id": "dall-e-3", "object": "model"},
            {"id": "omni-moderation-latest", "object": "model"},
            {"id": "gpt-4.1-mini", "object": "model"},
            {"id": "gpt-4o", "object": "model"},
        ]});
        let page = parse_list(ListShape::OpenAi, &body).unwrap();
        assert_eq!(ids(&page), vec!["gpt-4o", "gpt-4.1-mini"]);
        assert_eq!(page.models[0], ListedModel::new("gpt-4o"));
        assert_eq!(page.next_after, None);
    }

    #[test]
    fn deepseek_and_dashscope_lists_are_plain_openai_lists() {
        let deepseek = json!({"object": "list", "data": [
            {"id": "deepseek-chat", "object": "model", "owned_by": "deepseek"},
            {"id": "deepseek-reasoner", "object": "model", "owned_by": "deepseek"},
        ]});
        assert_eq!(
            ids(&parse_list(ListShape::OpenAi, &deepseek).unwrap()),
            vec!["deepseek-chat", "deepseek-reasoner"]
        );
        let dashscope = json!({"data": [
            {"id": "qwen-plus", "object": "model", "created": 0, "owned_by": "system"},
            {"id": "text-embedding-v3", "object": "model"},
        ], "object": "list"});
        assert_eq!(
            ids(&parse_list(ListShape::OpenAi, &dashscope).unwrap()),
            vec!["qwen-plus"]
        );
    }

    #[test]
    fn openrouter_lists_carry_context_limits_modalities_and_prices() {
        let body = json!({"data": [{
            "id": "anthropic/claude-sonnet-4.5",
            "name": "Anthropic: Claude Sonnet 4.5",
            "context_length": 1_000_000,
            "architecture": {"input_modalities": ["text", "image", "file"], "output_modalities": ["text"]},
            "pricing": {"prompt": "0.000003", "completion": "0.000015", "input_cache_read": "0.0000003",
                        "input_cache_write": "0.00000375", "request": "0", "image": "0.0048"},
            "top_provider": {"context_length": 1_000_000, "max_completion_tokens": 64_000, "is_moderated": true}
        }, {
            "id": "openrouter/auto",
            "name": "Auto Router",
            "context_length": 2_000_000,
            "architecture": {"input_modalities": ["text"]},
            "pricing": {"prompt": "-1", "completion": "-1"}
        }]});
        let page = parse_list(ListShape::OpenAi, &body).unwrap();
        let sonnet = &page.models[0];
        assert_eq!(
            sonnet.display_name.as_deref(),
            Some("Anthropic: Claude Sonnet 4.5")
        );
        assert_eq!(sonnet.context_window, Some(1_000_000));
        assert_eq!(sonnet.max_output_tokens, Some(64_000));
        assert_eq!(sonnet.image_input, Some(true));
        let [input, output, cache_read, cache_write] = sonnet.pricing.unwrap();
        assert!((input - 3.0).abs() < 1e-9 && (output - 15.0).abs() < 1e-9);
        assert!((cache_read - 0.3).abs() < 1e-9 && (cache_write - 3.75).abs() < 1e-9);
        let auto = &page.models[1];
        assert_eq!(auto.pricing, None);
        assert_eq!(auto.image_input, Some(false));
    }

    #[test]
    fn llama_cpp_lists_carry_the_trained_context() {
        let body = json!({
            "models": [{"name": "qwen2.5-7b-instruct-q4_k_m.gguf", "model": "qwen2.5-7b-instruct-q4_k_m.gguf",
                        "type": "model", "capabilities": ["completion"]}],
            "object": "list",
            "data": [{"id": "qwen2.5-7b-instruct-q4_k_m.gguf", "object": "model", "owned_by": "llamacpp",
                      "meta": {"vocab_type": 2, "n_vocab": 152064, "n_ctx_train": 32768, "n_embd": 3584}}]
        });
        let page = parse_list(ListShape::OpenAi, &body).unwrap();
        assert_eq!(ids(&page), vec!["qwen2.5-7b-instruct-q4_k_m.gguf"]);
        assert_eq!(page.models[0].context_window, Some(32_768));
        // An older llama.cpp without `data`.
        let models_only = json!({"models": [{"name": "m.gguf", "model": "m.gguf"}]});
        assert_eq!(
            ids(&parse_list(ListShape::OpenAi, &models_only).unwrap()),
            vec!["m.gguf"]
        );
    }

    #[test]
    fn ollama_tags_name_the_models_and_spot_vision_ones() {
        let body = json!({"models": [
            {"name": "llama3.2:latest", "model": "llama3.2:latest", "size": 2019393189,
             "details": {"format": "gguf", "family": "llama", "families": ["llama"], "parameter_size": "3.2B"}},
            {"name": "llava:7b", "model": "llava:7b", "details": {"family": "llama", "families": ["llama", "clip"]}},
            {"name": "nomic-embed-text:latest", "model": "nomic-embed-text:latest", "details": {"family": "nomic-bert"}}
        ]});
        let page = parse_list(ListShape::Ollama, &body).unwrap();
        assert_eq!(ids(&page), vec!["llama3.2:latest", "llava:7b"]);
        assert_eq!(page.models[0].image_input, None);
        assert_eq!(page.models[1].image_input, Some(true));
    }

    #[test]
    fn anthropic_lists_have_display_names_and_pages() {
        let body = json!({
            "data": [
                {"type": "model", "id": "claude-sonnet-4-5-20250929", "display_name": "Claude Sonnet 4.5",
                 "created_at": "2025-09-29T00:00:00Z"},
                {"type": "model", "id": "claude-haiku-4-5-20251001", "display_name": "Claude Haiku 4.5",
                 "created_at": "2025-10-15T00:00:00Z"}
            ],
            "has_more": true,
            "first_id": "claude-sonnet-4-5-20250929",
            "last_id": "claude-haiku-4-5-20251001"
        });
        let page = parse_list(ListShape::Anthropic, &body).unwrap();
        assert_eq!(
            ids(&page),
            vec!["claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"]
        );
        assert_eq!(
            page.models[0].display_name.as_deref(),
            Some("Claude Sonnet 4.5")
        );
        assert_eq!(
            page.next_after.as_deref(),
            Some("claude-haiku-4-5-20251001")
        );
        let last = json!({"data": [], "has_more": false, "last_id": null});
        assert_eq!(
            parse_list(ListShape::Anthropic, &last).unwrap(),
            ListPage::default()
        );
    }

    #[test]
    fn bodies_that_are_not_lists_say_so() {
        for (shape, body) in [
            (
                ListShape::OpenAi,
                json!({"error": {"message": "not found"}}),
            ),
            (ListShape::OpenAi, json!("models")),
            (ListShape::Ollama, json!({"data": []})),
            (ListShape::Anthropic, json!({"type": "error"})),
        ] {
            assert!(parse_list(shape, &body).is_err(), "{shape:?} {body}");
        }
    }
}
