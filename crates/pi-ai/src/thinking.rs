//! Request-shaping helpers the provider adapters share (spec 4.4): thinking-level clamping, thinking budgets
//! and the max-tokens clamp.

use crate::context::Context;
use crate::model::{Model, ModelThinkingLevel, ThinkingBudgets, ThinkingLevel};
use crate::tokens::estimate_context_tokens;

/// Tokens kept free in the context window besides the estimated prompt.
const CONTEXT_SAFETY_MARGIN: u64 = 4096;

/// The levels `model` supports, lowest first: `[off]` for non-reasoning models; otherwise every level not mapped
/// to `null` in `thinkingLevelMap`, with `xhigh`/`max` only when mapped explicitly.
pub fn supported_thinking_levels(model: &Model) -> Vec<ModelThinkingLevel> {
    if !model.reasoning {
        return vec![ModelThinkingLevel::Off];
    }
    ModelThinkingLevel::ALL
        .into_iter()
        .filter(|level| {
            let mapped = model
                .thinking_level_map
                .as_ref()
                .and_then(|map| map.get(level));
            match level {
                ModelThinkingLevel::Xhigh | ModelThinkingLevel::Max => {
                    mapped.is_some_and(Option::is_some)
                }
                ModelThinkingLevel::Off
                | ModelThinkingLevel::Minimal
                | ModelThinkingLevel::Low
                | ModelThinkingLevel::Medium
                | ModelThinkingLevel::High => !mapped.is_some_and(Option::is_none),
            }
        })
        .collect()
}

/// pi's `clampThinkingLevel`: a supported level is returned as is; otherwise the next supported level above,
/// else the nearest below, else `off`.
pub fn clamp_thinking_level(
    model: &Model,
    level: impl Into<ModelThinkingLevel>,
) -> ModelThinkingLevel {
    let level = level.into();
    let supported = supported_thinking_levels(model);
    if supported.contains(&level) {
        return level;
    }
    let above = supported
        .iter()
        .copied()
        .find(|candidate| *candidate > level);
    let below = supported
        .iter()
        .rev()
        .copied()
        .find(|candidate| *candidate < level);
    above.or(below).unwrap_or(ModelThinkingLevel::Off)
}

/// The provider value for `level` from `model.thinkingLevelMap` (`None` when unmapped or mapped to `null`).
pub fn mapped_thinking_level(model: &Model, level: ModelThinkingLevel) -> Option<&str> {
    model.thinking_level_map.as_ref()?.get(&level)?.as_deref()
}

/// pi's max-tokens clamp: with no context window, `max(1, max_tokens)`; otherwise
/// `min(max_tokens, max(1, contextWindow − estimated context tokens − 4096))`.
pub fn clamp_max_tokens(model: &Model, context: &Context, max_tokens: u64) -> u64 {
    if model.context_window == 0 {
        return max_tokens.max(1);
    }
    let available = model
        .context_window
        .saturating_sub(estimate_context_tokens(context))
        .saturating_sub(CONTEXT_SAFETY_MARGIN)
        .max(1);
    max_tokens.min(available)
}

/// Default budget per level for token-budget APIs: minimal 1024, low 2048, medium 8192, high 16384
/// (`xhigh`/`max` use `high`); `budgets` override per level.
pub fn thinking_budget(level: ThinkingLevel, budgets: Option<&ThinkingBudgets>) -> u64 {
    let budgets = budgets.copied().unwrap_or_default();
    match level {
        ThinkingLevel::Minimal => budgets.minimal.unwrap_or(1024),
        ThinkingLevel::Low => budgets.low.unwrap_or(2048),
        ThinkingLevel::Medium => budgets.medium.unwrap_or(8192),
        ThinkingLevel::High | ThinkingLevel::Xhigh | ThinkingLevel::Max => {
            budgets.high.unwrap_or(16384)
        }
    }
}

/// Max tokens and thinking budget for token-budget APIs (spec 4.4). Returns `(max_tokens, budget)`:
/// `max_tokens` = `model.maxTokens` when `base_max_tokens` is `None`, else `min(base + budget, model.maxTokens)`;
/// if that is ≤ the budget, the budget shrinks to `max(0, max_tokens − 1024)`.
pub fn thinking_max_tokens(
    model: &Model,
    base_max_tokens: Option<u64>,
    level: ThinkingLevel,
    budgets: Option<&ThinkingBudgets>,
) -> (u64, u64) {
    let mut budget = thinking_budget(level, budgets);
    let max_tokens = match base_max_tokens {
        None => model.max_tokens,
        Some(base) => base.saturating_add(budget).min(model.max_tokens),
    };
    if max_tokens <= budget {
        budget = max_tokens.saturating_sub(1024);
    }
    (max_tokens, budget)
}
