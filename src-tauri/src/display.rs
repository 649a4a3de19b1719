//! Whether a graphical display can be reached before GTK is asked for one: without it GTK aborts the process
//! from deep inside the toolkit, where the user would see a panic instead of a reason.

use std::ffi::OsString;

/// The environment variables through which X11 and Wayland clients find their display.
const DISPLAY_VARIABLES: [&str; 2] = ["WAYLAND_DISPLAY", "DISPLAY"];

/// `true` when one of [`DISPLAY_VARIABLES`] is set to a non-empty value; `var` reads the environment.
pub(crate) fn display_configured(var: impl Fn(&str) -> Option<OsString>) -> bool {
    DISPLAY_VARIABLES
        .iter()
        .any(|name| var(name).is_some_and(|value| !value.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let pairs: Vec<(String, OsString)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), OsString::from(v)))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn x11_or_wayland_is_enough() {
        assert!(display_configured(env_of(&[("DISPLAY", ":99")])));
        assert!(display_configured(env_of(&[(
            "WAYLAND_DISPLAY",
            "wayland-0"
        )])));
    }

    #[test]
    fn unset_or_empty_variables_mean_no_display() {
        assert!(!display_configured(env_of(&[])));
        assert!(!display_configured(env_of(&[
            ("DISPLAY", ""),
            ("WAYLAND_DISPLAY", "")
        ])));
        assert!(!display_configured(env_of(&[("XDG_SESSION_TYPE", "x11")])));
    }
}
