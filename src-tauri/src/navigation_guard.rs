//! The webview never leaves the app: every top-level navigation whose URL is not the app's own page is refused
//! (Tauri's navigation hook, for every webview of the app). Links in answers open in the system browser through
//! the opener plugin instead; this guard is what holds when something gets past the page's own click handling
//! (a drag, a middle click, a script the sanitiser missed).

use tauri::plugin::{Builder, TauriPlugin};
use tauri::{Manager as _, Runtime, Url};

/// The plugin; it holds no state and adds no command.
pub(crate) fn plugin<R: Runtime>() -> TauriPlugin<R> {
    Builder::new("navigation-guard")
        .on_navigation(|webview, url| {
            let dev_url = if tauri::is_dev() {
                webview.config().build.dev_url.clone()
            } else {
                None
            };
            let allowed = is_app_url(url, dev_url.as_ref());
            if !allowed {
                // Scheme and host only: a link's path or query may carry anything.
                tracing::warn!(
                    scheme = url.scheme(),
                    host = url.host_str().unwrap_or(""),
                    "refused a navigation away from the app"
                );
            }
            allowed
        })
        .build()
}

/// Whether `url` is the app's own page: the embedded UI (`tauri://localhost` on Linux and macOS,
/// `http(s)://tauri.localhost` on Windows) or, in a development build, the origin of the dev server.
pub(crate) fn is_app_url(url: &Url, dev_url: Option<&Url>) -> bool {
    let embedded = match url.scheme() {
        "tauri" => url.host_str() == Some("localhost"),
        "http" | "https" => url.host_str() == Some("tauri.localhost"),
        _ => false,
    };
    embedded || dev_url.is_some_and(|dev_url| dev_url.origin() == url.origin())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn the_embedded_ui_is_the_app() {
        assert!(is_app_url(&url("tauri://localhost/index.html"), None));
        assert!(is_app_url(&url("http://tauri.localhost/"), None));
        assert!(is_app_url(
            &url("https://tauri.localhost/assets/x.js"),
            None
        ));
    }

    #[test]
    fn web_pages_mail_and_other_schemes_are_refused() {
        for refused in [
            "https://example.com/",
            "http://localhost:1420/",
            "https://tauri.localhost.example.com/",
            "tauri://example.com/",
            "mailto:someone@example.com",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "about:blank",
        ] {
            assert!(!is_app_url(&url(refused), None), "{refused}");
        }
    }

    #[test]
    fn the_dev_server_is_the_app_only_at_its_own_origin() {
        let dev_url = url("http://localhost:1420");

        assert!(is_app_url(
            &url("http://localhost:1420/src/main.tsx"),
            Some(&dev_url)
        ));
        assert!(!is_app_url(&url("http://localhost:1421/"), Some(&dev_url)));
        assert!(!is_app_url(&url("https://localhost:1420/"), Some(&dev_url)));
    }
}
