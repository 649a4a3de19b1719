//! Provider ids name keys in the keychain and in the fallback file, so they are checked before use.

use super::error::SecretsError;

/// Accepts pi's provider ids (`openai`, `anthropic`, `openrouter`, `my-proxy.local`): 1 to 64 ASCII letters,
/// digits, `-`, `_` or `.`.
pub(crate) fn check_provider_id(provider: &str) -> Result<(), SecretsError> {
    let is_valid = !provider.is_empty()
        && provider.len() <= 64
        && provider
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.'));
    if is_valid {
        Ok(())
    } else {
        Err(SecretsError::InvalidProvider(provider.to_owned()))
    }
}
