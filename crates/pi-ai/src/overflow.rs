//! Context-overflow classification (pi's `isContextOverflow`, spec 4.8).

use crate::message::{AssistantMessage, StopReason};

/// Provider error texts (lower-cased fragments) that mean the prompt did not fit the context window.
const OVERFLOW_PHRASES: &[&str] = &[
    "prompt is too long",
    "input is too long",
    "exceeds the context window",
    "context window exceeds limit",
    "maximum context length",
    "maximum prompt length",
    "context_length_exceeded",
    "context length exceeded",
    "reduce the length of the messages",
    "exceeds the available context size",
    "greater than the context length",
    "exceeded model token limit",
    "input token count",
    "too many tokens",
    "token limit exceeded",
    "tokens exceeds the limit",
    "exceeds the maximum number of tokens",
    "request too large for model",
];

/// Texts that look similar but are about rate limits or throttling, never overflow.
const NOT_OVERFLOW_PHRASES: &[&str] = &[
    "rate limit",
    "rate_limit",
    "too many requests",
    "throttl",
    "quota",
];

/// Whether `message` failed because its prompt overflowed the context window.
///
/// True for an `error` message whose text matches a known overflow wording (rate-limit and throttling texts
/// excluded), and for a `length` stop with zero output whose input plus cache reads fill `context_window`.
pub fn is_context_overflow(message: &AssistantMessage, context_window: Option<u64>) -> bool {
    if message.stop_reason == StopReason::Error {
        let text = message
            .error_message
            .as_deref()
            .unwrap_or_default()
            .to_lowercase();
        if NOT_OVERFLOW_PHRASES
            .iter()
            .any(|phrase| text.contains(phrase))
        {
            return false;
        }
        return OVERFLOW_PHRASES.iter().any(|phrase| text.contains(phrase));
    }
    if message.stop_reason == StopReason::Length && message.usage.output == 0 {
        if let Some(window) = context_window.filter(|window| *window > 0) {
            return message.usage.input + message.usage.cache_read >= window;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::is_context_overflow;
    use crate::message::{AssistantMessage, StopReason};
    use crate::model::Api;

    fn failed(text: &str) -> AssistantMessage {
        let mut message =
            AssistantMessage::empty_for(Api::OPENAI_COMPLETIONS, "p".into(), "m".into());
        message.stop_reason = StopReason::Error;
        message.error_message = Some(text.into());
        message
    }

    #[test]
    fn provider_overflow_texts_are_recognised() {
        for text in [
            "prompt is too long: 213462 tokens > 200000 maximum",
            "This model's maximum context length is 128000 tokens.",
            "Your input exceeds the context window of this model",
            "the request exceeds the available context size, try increasing it",
        ] {
            assert!(is_context_overflow(&failed(text), Some(200_000)), "{text}");
        }
    }

    #[test]
    fn rate_limits_and_normal_length_stops_are_not_overflow() {
        assert!(!is_context_overflow(
            &failed("Rate limit reached: too many tokens per minute"),
            None
        ));
        assert!(!is_context_overflow(
            &failed("Throttling: too many tokens"),
            None
        ));
        assert!(!is_context_overflow(&failed("Internal server error"), None));
        let mut length = failed("");
        length.stop_reason = StopReason::Length;
        length.error_message = None;
        length.usage.input = 1_000;
        length.usage.output = 10;
        assert!(!is_context_overflow(&length, Some(1_000)));
        length.usage.output = 0;
        assert!(is_context_overflow(&length, Some(1_000)));
        assert!(!is_context_overflow(&length, Some(2_000)));
    }
}
