//! Error texts a user can act on. Every failure of an adapter ends up in `errorMessage`; these say who failed,
//! the HTTP status when there is one (the conformance oracle requires it), the provider's own words, and what
//! to do next.

use super::http::SendFailure;
use super::sse::SseFailure;

/// How a provider id is named to the user.
pub(crate) fn provider_label(provider: &str) -> String {
    match provider {
        "anthropic" => "Anthropic".into(),
        "openai" => "OpenAI".into(),
        "deepseek" => "DeepSeek".into(),
        "openrouter" => "OpenRouter".into(),
        "ollama" => "Ollama".into(),
        "lmstudio" | "lm-studio" => "LM Studio".into(),
        "vllm" => "vLLM".into(),
        "groq" => "Groq".into(),
        "xai" => "xAI".into(),
        "mistral" => "Mistral".into(),
        "" => "The provider".into(),
        other => other.into(),
    }
}

/// The most useful text of an error body: `error.message`, `message`, a string `error`, else the body.
pub(crate) fn body_message(body: &str) -> String {
    let trimmed = body.trim();
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(trimmed) {
        let candidates = [
            value.pointer("/error/message"),
            value.pointer("/message"),
            value.pointer("/error").filter(|v| v.is_string()),
            value.pointer("/detail").filter(|v| v.is_string()),
        ];
        if let Some(text) = candidates.into_iter().flatten().find_map(|v| v.as_str()) {
            return truncate(text.trim());
        }
    }
    if trimmed.is_empty() {
        "no details given".into()
    } else {
        truncate(trimmed)
    }
}

fn truncate(text: &str) -> String {
    const MAX: usize = 4000;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [truncated {} bytes]", &text[..end], text.len() - end)
}

/// A non-success HTTP status.
pub(crate) fn http_status(label: &str, status: u16, body: &str) -> String {
    let said = body_message(body);
    match status {
        401 => {
            format!("{label} rejected the API key ({status}). Check the key in Settings. ({said})")
        }
        403 => format!(
            "{label} refused access ({status}): {said}. The key may not be allowed to use this model or region."
        ),
        404 => {
            format!("{label} returned {status}: {said}. Check the model id and the server address.")
        }
        429 => format!(
            "{label} is rate limiting requests ({status}): {said}. Wait a moment and try again."
        ),
        400 | 413 | 422 => format!("{label} rejected the request ({status}): {said}"),
        529 => format!("{label} is overloaded ({status}): {said}. Try again in a moment."),
        500..=599 => format!("{label} had a server error ({status}): {said}. Try again later."),
        _ => format!("{label} returned HTTP {status}: {said}"),
    }
}

/// A failure to obtain a response; `proxy` is the proxy the request went through (credentials removed), if any.
pub(crate) fn send_failure(
    label: &str,
    url: &str,
    proxy: Option<&str>,
    failure: &SendFailure,
) -> String {
    match failure {
        SendFailure::Aborted => "Request was aborted".into(),
        SendFailure::Status { status, body } => http_status(label, *status, body),
        SendFailure::RetryDelayTooLong {
            requested_ms,
            max_ms,
            status,
            body,
        } => format!(
            "Server requested {}s retry delay (max: {}s). {status} {}",
            requested_ms.div_ceil(1000),
            max_ms.div_ceil(1000),
            body_message(body)
        ),
        SendFailure::Timeout(limit) => format!(
            "{label} did not answer within {:.1} s (request timeout). Check the server address or raise the timeout.",
            limit.as_secs_f64()
        ),
        SendFailure::Transport(detail) => match proxy {
            Some(proxy) => format!(
                "Could not reach {label} at {url} through the proxy {proxy}: {detail}. Check the proxy setting \
                 (Settings → Connection, or HTTPS_PROXY / ALL_PROXY) and the server address."
            ),
            None => format!(
                "Could not reach {label} at {url}: {detail}. Check the server address and your connection."
            ),
        },
        SendFailure::InvalidHeader(detail) => format!("Invalid request header: {detail}"),
    }
}

/// A failure while reading the event stream.
pub(crate) fn stream_failure(label: &str, failure: &SseFailure) -> String {
    match failure {
        SseFailure::Aborted => "Request was aborted".into(),
        SseFailure::Idle(limit) => format!(
            "{label} stopped sending data for {:.1} s (idle timeout); the response is incomplete. Try again.",
            limit.as_secs_f64()
        ),
        SseFailure::Transport(detail) => {
            format!("The connection to {label} was interrupted mid-response: {detail}")
        }
        SseFailure::Decode(detail) => format!("{label} sent an unreadable event stream: {detail}"),
    }
}

/// Unparsable JSON in a data line.
pub(crate) fn invalid_json(label: &str, error: &serde_json::Error, data: &str) -> String {
    if data.is_empty() {
        return format!("{label} sent an event without data");
    }
    let mut shown: String = data.chars().take(200).collect();
    if shown.len() < data.len() {
        shown.push('…');
    }
    format!("{label} sent an event that is not valid JSON ({error}): {shown}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_errors_name_the_provider_status_and_remedy() {
        let body = r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
        assert_eq!(
            http_status("Anthropic", 401, body),
            "Anthropic rejected the API key (401). Check the key in Settings. (invalid x-api-key)"
        );
        let text = http_status(
            "OpenAI",
            429,
            r#"{"error":{"message":"Rate limit reached"}}"#,
        );
        assert!(
            text.contains("429")
                && text.contains("Rate limit reached")
                && text.contains("try again")
        );
        assert!(
            http_status("llama.cpp", 502, "<html>bad gateway</html>")
                .contains("<html>bad gateway</html>")
        );
        assert!(http_status("X", 500, "").contains("no details given"));
    }

    #[test]
    fn a_failure_through_a_proxy_names_the_proxy() {
        let failure = SendFailure::Transport("connection refused".into());
        let direct = send_failure("Ollama", "http://h/v1/chat/completions", None, &failure);
        assert!(!direct.contains("proxy"), "{direct}");
        let proxied = send_failure(
            "OpenAI",
            "https://api.openai.com/v1/responses",
            Some("http://***@proxy.corp:3128"),
            &failure,
        );
        assert!(
            proxied.contains("through the proxy http://***@proxy.corp:3128"),
            "{proxied}"
        );
    }

    #[test]
    fn long_bodies_are_cut_on_a_char_boundary() {
        let body = "é".repeat(3000);
        let text = body_message(&body);
        assert!(text.contains("[truncated"));
        assert!(text.len() < 4100);
    }

    #[test]
    fn an_event_without_data_says_so_instead_of_quoting_nothing() {
        let error = serde_json::from_str::<serde_json::Value>("").unwrap_err();
        assert_eq!(
            invalid_json("Anthropic", &error, ""),
            "Anthropic sent an event without data"
        );
        let error = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        assert!(invalid_json("Anthropic", &error, "{").ends_with("): {"));
    }
}
