//! Preferences only the window reads: its colour theme and the key that sends a message. Kept in the settings
//! file (`theme`, `sendKey`) beside the language and saved with the main settings form; absent means the default
//! (follow the system; Enter sends).

use serde::{Deserialize, Serialize};

/// The window's colour theme.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    /// Light or dark as the system's colour scheme says (the default).
    #[default]
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl Theme {
    /// The wire and file name.
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// The theme named `name` (its wire name), if there is one.
    pub fn parse(name: &str) -> Option<Theme> {
        [Theme::System, Theme::Light, Theme::Dark]
            .into_iter()
            .find(|theme| theme.as_str() == name)
    }
}

/// Which key sends the composer's text; the other combination makes a new line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SendKey {
    /// Enter sends, Shift+Enter makes a new line (the default).
    #[default]
    Enter,
    /// Ctrl+Enter sends, Enter makes a new line.
    CtrlEnter,
}

impl SendKey {
    /// The wire and file name.
    pub fn as_str(self) -> &'static str {
        match self {
            SendKey::Enter => "enter",
            SendKey::CtrlEnter => "ctrlEnter",
        }
    }

    /// The send key named `name` (its wire name), if there is one.
    pub fn parse(name: &str) -> Option<SendKey> {
        [SendKey::Enter, SendKey::CtrlEnter]
            .into_iter()
            .find(|key| key.as_str() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_wire_names_are_the_serde_names_and_parse_back() {
        for theme in [Theme::System, Theme::Light, Theme::Dark] {
            assert_eq!(serde_json::to_value(theme).unwrap(), theme.as_str());
            assert_eq!(Theme::parse(theme.as_str()), Some(theme));
        }
        for key in [SendKey::Enter, SendKey::CtrlEnter] {
            assert_eq!(serde_json::to_value(key).unwrap(), key.as_str());
            assert_eq!(SendKey::parse(key.as_str()), Some(key));
        }
        assert_eq!(Theme::parse("Dark"), None);
        assert_eq!(SendKey::parse("ctrl+enter"), None);
    }
}
