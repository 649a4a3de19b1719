//! API keys: a redacting wrapper and the pluggable source the keychain will fill.

use std::fmt;

/// An API key. `Debug` prints `ApiKey(***)`; there is no `Display`, so a key cannot slip into a log line or an
/// error text by formatting. Read it with [`ApiKey::expose`] only where it goes into a request.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key; surrounding whitespace (a pasted newline) is dropped.
    pub fn new(key: impl Into<String>) -> ApiKey {
        let key: String = key.into();
        ApiKey(key.trim().to_owned())
    }

    /// The key itself, for the request that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("ApiKey(***)")
    }
}

/// Where a key came from (safe to log).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApiKeyOrigin {
    /// An environment variable (or the command line flag that mirrors it), by name.
    Env(String),
    /// The pluggable key source (the OS keychain in the app).
    KeySource,
}

/// A stored-key look-up, plugged into settings resolution. The app passes the keychain (`secrets`); tests pass a
/// map. Contract: return `Ok(None)` when no key is stored for the provider; an `Err` is reported to the user as a
/// settings error, never with the key in it.
pub trait ApiKeySource: Send + Sync {
    /// The stored key for pi's provider id (`"openai"`, `"anthropic"`, …).
    fn api_key(&self, provider: &str) -> Result<Option<ApiKey>, String>;
}

/// A key source that has no keys (for terminals and tests that rely on the environment alone).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoKeySource;

impl ApiKeySource for NoKeySource {
    fn api_key(&self, _provider: &str) -> Result<Option<ApiKey>, String> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_the_key() {
        let key = ApiKey::new(" sk-very-secret\n");
        assert_eq!(key.expose(), "sk-very-secret");
        assert_eq!(format!("{key:?}"), "ApiKey(***)");
        assert!(!format!("{:?}", Some(&key)).contains("secret"));
    }
}
