//! The values a server starts with: `env` and `headers` of `mcp.json`, references to the keychain looked up
//! through [`McpSecrets`], and the list of secret values to mask in what the server prints.

use std::collections::BTreeMap;

use crate::mcp::client::McpError;
use crate::mcp::config::ConfigValue;
use crate::settings::SettingsService;

/// Where `{"keychain": NAME}` values are looked up.
pub trait McpSecrets: Send + Sync {
    /// The value kept under `name`; `Ok(None)` when none is. The error is safe to show.
    fn secret(&self, name: &str) -> Result<Option<String>, String>;
}

/// No keychain: every reference is missing.
pub struct NoSecrets;

impl McpSecrets for NoSecrets {
    fn secret(&self, _name: &str) -> Result<Option<String>, String> {
        Ok(None)
    }
}

impl McpSecrets for SettingsService {
    fn secret(&self, name: &str) -> Result<Option<String>, String> {
        SettingsService::secret(self, name)
            .map(|value| value.map(|value| value.expose().to_owned()))
            .map_err(|error| error.message)
    }
}

/// The values of `section` (`env` or `headers`) of `server` with every keychain reference looked up, and the
/// values that came from the keychain (to mask). A reference with nothing behind it fails with a message that
/// names the field and where to enter it.
pub(crate) fn resolve_values(
    server: &str,
    section: &str,
    values: &BTreeMap<String, ConfigValue>,
    secrets: &dyn McpSecrets,
) -> Result<(BTreeMap<String, String>, Vec<String>), McpError> {
    let mut resolved = BTreeMap::new();
    let mut masked = Vec::new();
    for (name, value) in values {
        let text = match value {
            ConfigValue::Plain(text) => text.clone(),
            ConfigValue::Keychain { keychain } => {
                let missing = |reason: String| McpError::MissingSecret {
                    server: server.to_owned(),
                    field: format!("{section}.{name}"),
                    reason,
                };
                let found = secrets.secret(keychain).map_err(missing)?;
                let text = found.ok_or_else(|| {
                    missing(format!(
                        "the keychain has no value named \"{keychain}\"; enter it in Settings → Tools & servers"
                    ))
                })?;
                masked.push(text.clone());
                text
            }
        };
        resolved.insert(name.clone(), text);
    }
    Ok((resolved, masked))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct OneSecret;

    impl McpSecrets for OneSecret {
        fn secret(&self, name: &str) -> Result<Option<String>, String> {
            Ok((name == "mcp.gh.TOKEN").then(|| "s3cret-value".to_owned()))
        }
    }

    #[test]
    fn a_reference_is_looked_up_and_masked_and_a_missing_one_names_its_field() {
        let values = BTreeMap::from([
            (
                "TOKEN".to_owned(),
                ConfigValue::Keychain {
                    keychain: "mcp.gh.TOKEN".to_owned(),
                },
            ),
            ("DEBUG".to_owned(), ConfigValue::plain("1")),
        ]);
        let (resolved, masked) = resolve_values("gh", "env", &values, &OneSecret).unwrap();
        assert_eq!(
            resolved.get("TOKEN").map(String::as_str),
            Some("s3cret-value")
        );
        assert_eq!(resolved.get("DEBUG").map(String::as_str), Some("1"));
        assert_eq!(masked, ["s3cret-value"]);

        let error = resolve_values("gh", "env", &values, &NoSecrets).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("env.TOKEN"), "{text}");
        assert!(text.contains("Settings"), "{text}");
    }
}
