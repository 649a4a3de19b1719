//! Token usage and its cost (spec 1.3, 4.8).

use serde::{Deserialize, Serialize};

use crate::js_number::serialize_js_f64;
use crate::model::Model;

/// Dollar cost of a response, per category; integral values serialize without a fraction (spec 6.1).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    /// Input tokens.
    #[serde(serialize_with = "serialize_js_f64")]
    pub input: f64,
    /// Output tokens.
    #[serde(serialize_with = "serialize_js_f64")]
    pub output: f64,
    /// Cache reads.
    #[serde(serialize_with = "serialize_js_f64")]
    pub cache_read: f64,
    /// Cache writes.
    #[serde(serialize_with = "serialize_js_f64")]
    pub cache_write: f64,
    /// Sum of the four.
    #[serde(serialize_with = "serialize_js_f64")]
    pub total: f64,
}

/// Token counts of one response; always present on assistant messages (zeros when unknown).
///
/// Construct with `Usage { input, output, .., ..Usage::default() }`. A message decoded from JSON without a `usage` key keeps that absence: its usage is zero and
/// [`Usage::is_omitted`] is true, and it serializes without `usage` again (scenario files carry such messages).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Uncached input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from cache.
    pub cache_read: u64,
    /// Input tokens written to cache.
    pub cache_write: u64,
    /// Subset of `cache_write` with 1h retention (Anthropic only).
    #[serde(
        rename = "cacheWrite1h",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_write_1h: Option<u64>,
    /// Subset of `output` spent on reasoning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<u64>,
    /// Providers aim for input + output + cacheRead + cacheWrite.
    pub total_tokens: u64,
    /// Dollar cost.
    pub cost: Cost,
    /// True only for a message decoded from JSON without a `usage` key: such a message re-encodes without
    /// `usage`. Leave it `false` (as `Usage::default()` does); it is never serialized.
    #[serde(skip)]
    pub omitted: bool,
}

impl Usage {
    /// Zero usage that serializes as an absent `usage` key.
    pub(crate) fn omitted() -> Self {
        Self {
            omitted: true,
            ..Self::default()
        }
    }

    /// True when decoded from a message without `usage` (and not replaced since).
    pub fn is_omitted(&self) -> bool {
        self.omitted
    }
}

/// Fills `usage.cost` from the model's rates and returns it (pi's `calculateCost`, spec 4.8).
///
/// The rates are `model.cost`, or the tier with the highest `inputTokensAbove` that the request's input tokens
/// (input + cacheRead + cacheWrite) exceed. 1h cache writes cost twice the input rate.
pub fn calculate_cost(model: &Model, usage: &mut Usage) -> Cost {
    let input_tokens = usage.input + usage.cache_read + usage.cache_write;
    let base = &model.cost;
    let (mut rate_input, mut rate_output, mut rate_cache_read, mut rate_cache_write) =
        (base.input, base.output, base.cache_read, base.cache_write);
    if let Some(tiers) = &base.tiers {
        let best = tiers
            .iter()
            .filter(|tier| input_tokens > tier.input_tokens_above)
            .max_by_key(|tier| tier.input_tokens_above);
        if let Some(tier) = best {
            (rate_input, rate_output, rate_cache_read, rate_cache_write) =
                (tier.input, tier.output, tier.cache_read, tier.cache_write);
        }
    }
    // pi divides the rate first (`rate / 1e6 * tokens`); the same order keeps costs bit-identical.
    let per_million = |rate: f64, tokens: u64| rate / 1_000_000.0 * tokens as f64;
    let cache_write_1h = usage.cache_write_1h.unwrap_or(0).min(usage.cache_write);
    let cost = &mut usage.cost;
    cost.input = per_million(rate_input, usage.input);
    cost.output = per_million(rate_output, usage.output);
    cost.cache_read = per_million(rate_cache_read, usage.cache_read);
    cost.cache_write = if cache_write_1h == 0 {
        per_million(rate_cache_write, usage.cache_write)
    } else {
        (rate_cache_write * (usage.cache_write - cache_write_1h) as f64
            + 2.0 * rate_input * cache_write_1h as f64)
            / 1_000_000.0
    };
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write;
    *cost
}

/// The factor OpenAI applies to every rate of a response served in `service_tier` (pi-ai 0.85.1's table:
/// `flex` at half price, `priority` at twice the price, 2.5 times for `gpt-5.5`); 1 for any other tier.
pub fn service_tier_multiplier(model: &Model, service_tier: &str) -> f64 {
    match service_tier {
        "flex" => 0.5,
        "priority" if model.id == "gpt-5.5" => 2.5,
        "priority" => 2.0,
        _ => 1.0,
    }
}

/// Scales `usage.cost` by the service tier's multiplier (after [`calculate_cost`]); the total is summed again
/// in pi's order.
pub fn apply_service_tier_pricing(model: &Model, usage: &mut Usage, service_tier: &str) {
    let multiplier = service_tier_multiplier(model, service_tier);
    if multiplier == 1.0 {
        return;
    }
    let cost = &mut usage.cost;
    cost.input *= multiplier;
    cost.output *= multiplier;
    cost.cache_read *= multiplier;
    cost.cache_write *= multiplier;
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(id: &str) -> Model {
        let mut model = Model::unknown();
        model.id = id.into();
        model.cost.input = 2.0;
        model.cost.output = 8.0;
        model
    }

    #[test]
    fn service_tiers_scale_every_rate_and_sum_the_total_again() {
        let gpt = model("gpt-5");
        let mut usage = Usage {
            input: 1_000_000,
            output: 500_000,
            ..Usage::default()
        };
        calculate_cost(&gpt, &mut usage);
        apply_service_tier_pricing(&gpt, &mut usage, "flex");
        assert_eq!(
            (usage.cost.input, usage.cost.output, usage.cost.total),
            (1.0, 2.0, 3.0)
        );
        assert_eq!(service_tier_multiplier(&gpt, "priority"), 2.0);
        assert_eq!(service_tier_multiplier(&model("gpt-5.5"), "priority"), 2.5);
        for tier in ["default", "auto", "scale", ""] {
            assert_eq!(service_tier_multiplier(&gpt, tier), 1.0, "{tier}");
        }
    }
}
