//! The manual proxy's password lives in the key store, never in the settings file nor in what the window is sent:
//! the file keeps the URL without it (`http://user@proxy:3128`), requests get it put back.

use reqwest::Url;

/// The key-store name the password is kept under.
pub(crate) const PROXY_PASSWORD_SECRET: &str = "proxy-password";

/// A proxy URL taken apart: the URL without its password, and the password (percent-encoded as it was written).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SplitProxyUrl {
    pub url: String,
    pub password: Option<String>,
    /// The URL names a user (whose password may be kept from before).
    pub has_user: bool,
}

/// `url` without its password. A URL that does not parse is returned as it is (validation names it).
pub(crate) fn split(url: &str) -> SplitProxyUrl {
    let trimmed = url.trim();
    let Ok(mut parsed) = Url::parse(trimmed) else {
        return SplitProxyUrl {
            url: trimmed.to_owned(),
            password: None,
            has_user: false,
        };
    };
    let password = parsed
        .password()
        .filter(|password| !password.is_empty())
        .map(str::to_owned);
    let has_user = !parsed.username().is_empty();
    if password.is_some() && parsed.set_password(None).is_err() {
        return SplitProxyUrl {
            url: trimmed.to_owned(),
            password: None,
            has_user,
        };
    }
    SplitProxyUrl {
        url: if password.is_some() {
            parsed.to_string()
        } else {
            trimmed.to_owned()
        },
        password,
        has_user,
    }
}

/// `url` with `password` (percent-encoded) as its user's password; `url` as it is when it names no user or
/// does not parse.
pub(crate) fn join(url: &str, password: &str) -> String {
    match Url::parse(url.trim()) {
        Ok(mut parsed) if !parsed.username().is_empty() => {
            if parsed.set_password(Some(password)).is_ok() {
                parsed.to_string()
            } else {
                url.trim().to_owned()
            }
        }
        _ => url.trim().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn the_password_is_taken_out_and_put_back_as_written() {
        let split_url = split(" http://alice:s%40cret@proxy.corp:3128 ");
        assert_eq!(
            split_url,
            SplitProxyUrl {
                url: "http://alice@proxy.corp:3128/".to_owned(),
                password: Some("s%40cret".to_owned()),
                has_user: true,
            }
        );
        assert_eq!(
            join(&split_url.url, "s%40cret"),
            "http://alice:s%40cret@proxy.corp:3128/"
        );
    }

    #[test]
    fn a_url_without_a_password_or_a_user_stays_as_it_is() {
        assert_eq!(
            split("socks5h://127.0.0.1:1080"),
            SplitProxyUrl {
                url: "socks5h://127.0.0.1:1080".to_owned(),
                password: None,
                has_user: false,
            }
        );
        assert!(split("http://bob@proxy:8080").has_user);
        assert_eq!(join("http://proxy:8080", "ignored"), "http://proxy:8080");
        assert_eq!(split("not a url").url, "not a url");
    }
}
