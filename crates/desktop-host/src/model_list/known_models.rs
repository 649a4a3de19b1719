//! What we know of the presets' models and their close relatives: context window, output limit, image input and
//! price, from the providers' published model and pricing pages, each entry dated with the month its figures were
//! read. Model lists rarely carry these, so a model is looked up here by its id whatever the base URL: a
//! `gpt-4o` behind a proxy or a compatible gateway is still `gpt-4o`.
//!
//! Ids are compared after [`lookup_key`]: lower case, without a gateway's `vendor/` prefix, an Ollama or
//! OpenRouter `:tag`, or a dated snapshot suffix (`-2024-08-06`, `-20250929`, `-latest`), and with `.` read as
//! `-` (OpenRouter writes `claude-sonnet-4.5`). Models not here get [`UNKNOWN_CONTEXT_WINDOW`] and
//! [`UNKNOWN_MAX_OUTPUT_TOKENS`], no image input and no price.
//!
//! Prices are US dollars per million tokens at the standard tier (no batch, flex or priority discounts, no
//! long-context surcharges). Where a provider's page gave a range or the figure was not certain, the entry errs on
//! the side that cannot break a request: a lower output limit, no image input.

/// Context window assumed for a model this table does not know (tokens).
pub const UNKNOWN_CONTEXT_WINDOW: u64 = 128_000;
/// Output limit assumed for a model this table does not know (tokens).
pub const UNKNOWN_MAX_OUTPUT_TOKENS: u64 = 8_192;

/// Prices in US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pricing {
    /// Input tokens (a cache miss).
    pub input: f64,
    /// Output tokens (reasoning included).
    pub output: f64,
    /// Input tokens read from the prompt cache.
    pub cache_read: f64,
    /// Input tokens written to the prompt cache (Anthropic's 5-minute writes; 0 where writes cost nothing extra).
    pub cache_write: f64,
}

/// One model's published figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KnownModel {
    /// The model id as its provider names it.
    pub id: &'static str,
    /// Tokens of context (input and output together).
    pub context_window: u64,
    /// Tokens one response may have.
    pub max_output_tokens: u64,
    /// Whether it reads images.
    pub image_input: bool,
    /// What it costs; `None` when there is no price to state.
    pub pricing: Option<Pricing>,
    /// The month the figures were read (`YYYY-MM`).
    pub as_of: &'static str,
    /// Where they were read.
    pub source: &'static str,
}

const OPENAI: &str = "https://platform.openai.com/docs/pricing";
const ANTHROPIC: &str = "https://docs.claude.com/en/docs/about-claude/pricing";
const DEEPSEEK: &str = "https://api-docs.deepseek.com/quick_start/pricing";
const QWEN: &str = "https://www.alibabacloud.com/help/en/model-studio/models";
const OLLAMA: &str = "https://ollama.com/library";

const fn price(input: f64, output: f64, cache_read: f64, cache_write: f64) -> Option<Pricing> {
    Some(Pricing {
        input,
        output,
        cache_read,
        cache_write,
    })
}

const fn openai(
    id: &'static str,
    context_window: u64,
    max_output_tokens: u64,
    image_input: bool,
    pricing: Option<Pricing>,
) -> KnownModel {
    KnownModel {
        id,
        context_window,
        max_output_tokens,
        image_input,
        pricing,
        as_of: "2025-12",
        source: OPENAI,
    }
}

const fn anthropic(
    id: &'static str,
    max_output_tokens: u64,
    image_input: bool,
    pricing: Option<Pricing>,
) -> KnownModel {
    KnownModel {
        id,
        context_window: 200_000,
        max_output_tokens,
        image_input,
        pricing,
        as_of: "2025-11",
        source: ANTHROPIC,
    }
}

/// Local models: what the model itself supports (the server may be started with a smaller context); no price.
const fn local(id: &'static str, context_window: u64) -> KnownModel {
    KnownModel {
        id,
        context_window,
        max_output_tokens: UNKNOWN_MAX_OUTPUT_TOKENS,
        image_input: false,
        pricing: None,
        as_of: "2025-11",
        source: OLLAMA,
    }
}

/// The table. The presets' default models are `gpt-4.1-mini` (OpenAI and OpenRouter), `claude-sonnet-4-5`,
/// `deepseek-chat`, `qwen-plus` and `llama3.2`.
pub const KNOWN_MODELS: &[KnownModel] = &[
    openai(
        "gpt-5.2",
        400_000,
        128_000,
        true,
        price(1.75, 14.0, 0.175, 0.0),
    ),
    openai(
        "gpt-5.1",
        400_000,
        128_000,
        true,
        price(1.25, 10.0, 0.125, 0.0),
    ),
    openai(
        "gpt-5",
        400_000,
        128_000,
        true,
        price(1.25, 10.0, 0.125, 0.0),
    ),
    openai(
        "gpt-5-mini",
        400_000,
        128_000,
        true,
        price(0.25, 2.0, 0.025, 0.0),
    ),
    openai(
        "gpt-5-nano",
        400_000,
        128_000,
        true,
        price(0.05, 0.4, 0.005, 0.0),
    ),
    openai(
        "gpt-4.1",
        1_047_576,
        32_768,
        true,
        price(2.0, 8.0, 0.5, 0.0),
    ),
    openai(
        "gpt-4.1-mini",
        1_047_576,
        32_768,
        true,
        price(0.4, 1.6, 0.1, 0.0),
    ),
    openai(
        "gpt-4.1-nano",
        1_047_576,
        32_768,
        true,
        price(0.1, 0.4, 0.025, 0.0),
    ),
    openai("gpt-4o", 128_000, 16_384, true, price(2.5, 10.0, 1.25, 0.0)),
    openai(
        "gpt-4o-mini",
        128_000,
        16_384,
        true,
        price(0.15, 0.6, 0.075, 0.0),
    ),
    openai("o3", 200_000, 100_000, true, price(2.0, 8.0, 0.5, 0.0)),
    openai(
        "o4-mini",
        200_000,
        100_000,
        true,
        price(1.1, 4.4, 0.275, 0.0),
    ),
    openai(
        "o3-mini",
        200_000,
        100_000,
        false,
        price(1.1, 4.4, 0.55, 0.0),
    ),
    anthropic("claude-opus-4-5", 64_000, true, price(5.0, 25.0, 0.5, 6.25)),
    anthropic(
        "claude-sonnet-4-5",
        64_000,
        true,
        price(3.0, 15.0, 0.3, 3.75),
    ),
    anthropic("claude-haiku-4-5", 64_000, true, price(1.0, 5.0, 0.1, 1.25)),
    anthropic(
        "claude-opus-4-1",
        32_000,
        true,
        price(15.0, 75.0, 1.5, 18.75),
    ),
    anthropic("claude-opus-4", 32_000, true, price(15.0, 75.0, 1.5, 18.75)),
    anthropic("claude-sonnet-4", 64_000, true, price(3.0, 15.0, 0.3, 3.75)),
    anthropic(
        "claude-3-7-sonnet",
        64_000,
        true,
        price(3.0, 15.0, 0.3, 3.75),
    ),
    anthropic("claude-3-5-haiku", 8_192, false, price(0.8, 4.0, 0.08, 1.0)),
    KnownModel {
        id: "deepseek-chat",
        context_window: 128_000,
        max_output_tokens: 8_192,
        image_input: false,
        pricing: price(0.28, 0.42, 0.028, 0.0),
        as_of: "2025-12",
        source: DEEPSEEK,
    },
    KnownModel {
        id: "deepseek-reasoner",
        context_window: 128_000,
        max_output_tokens: 8_192,
        image_input: false,
        pricing: price(0.28, 0.42, 0.028, 0.0),
        as_of: "2025-12",
        source: DEEPSEEK,
    },
    KnownModel {
        id: "qwen-plus",
        context_window: 131_072,
        max_output_tokens: 8_192,
        image_input: false,
        // The international (Singapore) price of the smallest input tier.
        pricing: price(0.4, 1.2, 0.0, 0.0),
        as_of: "2025-11",
        source: QWEN,
    },
    local("llama3.2", 131_072),
    local("llama3.1", 131_072),
    local("qwen2.5", 32_768),
];

/// The entry for `model_id`, if the table has one (see the module doc for how ids compare).
pub fn known_model(model_id: &str) -> Option<&'static KnownModel> {
    let key = lookup_key(model_id);
    KNOWN_MODELS
        .iter()
        .find(|known| lookup_key(known.id) == key)
}

/// `model_id` as the table compares it: lower case, no `vendor/` prefix, no `:tag`, no dated snapshot or `-latest`
/// suffix, `.` as `-`.
pub fn lookup_key(model_id: &str) -> String {
    let lower = model_id.trim().to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let name = name.split(':').next().unwrap_or(name);
    let name = name.split('@').next().unwrap_or(name);
    let name = strip_snapshot(name);
    name.replace('.', "-")
}

/// Without a trailing `-latest`, `-YYYY-MM-DD` or `-YYYYMMDD`.
fn strip_snapshot(name: &str) -> &str {
    if let Some(stripped) = name.strip_suffix("-latest") {
        return stripped;
    }
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if let Some((head, date)) = name.rsplit_once('-')
        && date.len() == 8
        && digits(date)
        && date.starts_with("20")
    {
        return head;
    }
    // `-2024-08-06`: three dash-separated groups of 4, 2 and 2 digits at the end.
    let parts: Vec<&str> = name.rsplitn(4, '-').collect();
    if let [day, month, year, head] = parts.as_slice()
        && year.len() == 4
        && month.len() == 2
        && day.len() == 2
        && digits(year)
        && digits(month)
        && digits(day)
        && year.starts_with("20")
    {
        return head;
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_is_found_whatever_the_gateway_or_snapshot_calls_it() {
        for (id, expected) in [
            ("gpt-4o", "gpt-4o"),
            ("GPT-4o", "gpt-4o"),
            ("openai/gpt-4o", "gpt-4o"),
            ("gpt-4o-2024-08-06", "gpt-4o"),
            ("gpt-4o-mini", "gpt-4o-mini"),
            ("openai/gpt-4.1-mini", "gpt-4.1-mini"),
            ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
            ("anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"),
            ("claude-3-7-sonnet-latest", "claude-3-7-sonnet"),
            ("claude-opus-4-1@20250805", "claude-opus-4-1"),
            ("deepseek/deepseek-chat:free", "deepseek-chat"),
            ("llama3.2:latest", "llama3.2"),
            ("qwen2.5:7b", "qwen2.5"),
        ] {
            assert_eq!(
                known_model(id).map(|known| known.id),
                Some(expected),
                "{id}"
            );
        }
    }

    #[test]
    fn look_alikes_and_unknown_models_are_not_matched() {
        for id in [
            "gpt-4o-audio",
            "gpt-4",
            "claude-sonnet",
            "my-finetune",
            "default",
            "",
        ] {
            assert_eq!(known_model(id), None, "{id}");
        }
    }

    #[test]
    fn the_presets_default_models_are_all_known_and_every_entry_is_dated() {
        for preset in crate::settings::ProviderPreset::ALL {
            let model = preset.defaults().model;
            if model == "default" {
                // llama.cpp serves whatever model it was started with.
                continue;
            }
            assert!(known_model(model).is_some(), "{model}");
        }
        for known in KNOWN_MODELS {
            assert_eq!(known.as_of.len(), 7, "{}", known.id);
            assert!(known.source.starts_with("https://"), "{}", known.id);
            assert!(
                known.max_output_tokens <= known.context_window,
                "{}",
                known.id
            );
            assert_eq!(known_model(known.id).map(|k| k.id), Some(known.id));
        }
    }
}
