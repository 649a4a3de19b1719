//! The user's language for texts the host writes itself (tool error messages, the default system prompt).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// A language the host writes in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Simplified Chinese.
    Zh,
    /// English (the default when nothing says otherwise).
    #[default]
    En,
}

impl Language {
    /// Picks the language from the locale variables (`LC_ALL`, then `LC_MESSAGES`, then `LANG`): `zh*` is
    /// Chinese, anything else English.
    pub fn from_locale_env(env: &HashMap<String, String>) -> Language {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .filter_map(|key| env.get(*key))
            .find(|value| !value.is_empty());
        match locale {
            Some(value) if value.to_lowercase().starts_with("zh") => Language::Zh,
            Some(_) | None => Language::En,
        }
    }

    /// Chooses between the two texts of a message.
    pub fn pick<'a>(self, zh: &'a str, en: &'a str) -> &'a str {
        match self {
            Language::Zh => zh,
            Language::En => en,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_locales_select_chinese_and_lc_all_wins() {
        let env = |pairs: &[(&str, &str)]| -> HashMap<String, String> {
            pairs
                .iter()
                .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
                .collect()
        };
        assert_eq!(
            Language::from_locale_env(&env(&[("LANG", "zh_CN.UTF-8")])),
            Language::Zh
        );
        assert_eq!(
            Language::from_locale_env(&env(&[("LANG", "zh_CN.UTF-8"), ("LC_ALL", "C")])),
            Language::En
        );
        assert_eq!(Language::from_locale_env(&env(&[])), Language::En);
    }
}
