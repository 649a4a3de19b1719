//! What the settings' form sends for a server (`save_mcp_server`), and its checks: every message names the field.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use serde::Deserialize;
use ts_rs::TS;

use super::McpFileError;
use crate::mcp::config::keychain_name;

/// A server as the settings' form sends it (`save_mcp_server`).
#[derive(Clone, Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct McpServerInput {
    /// Its name (the key in `mcpServers`); surrounding spaces are dropped.
    pub name: String,
    /// The name it had when the form opened on an existing server; absent for a new one.
    #[ts(optional)]
    pub previous_name: Option<String>,
    /// How the app reaches it.
    pub transport: McpTransportInput,
    /// Configured but not started.
    pub disabled: bool,
    /// A call's timeout in seconds (progress resets it); absent for the default.
    #[ts(optional)]
    pub timeout_seconds: Option<u32>,
    /// A call's total cap in seconds; absent for the default.
    #[ts(optional)]
    pub total_timeout_seconds: Option<u32>,
}

/// How the app reaches a server, as the form sends it.
#[derive(Clone, Debug, Deserialize, TS)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum McpTransportInput {
    /// A program the app starts.
    Stdio {
        /// The program (a name looked up in `PATH`, or a full path).
        command: String,
        /// Its arguments, one per item.
        args: Vec<String>,
        /// Its working folder (a full path); absent or empty for none.
        #[ts(optional)]
        cwd: Option<String>,
        /// Its variables.
        env: Vec<McpValueInput>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint (`http://` or `https://`).
        url: String,
        /// Headers sent with every request.
        headers: Vec<McpValueInput>,
    },
}

/// A variable or header as the form sends it.
#[derive(Clone, Deserialize, TS)]
#[ts(export)]
pub struct McpValueInput {
    /// The variable's or header's name.
    pub name: String,
    /// A value entered now (it goes to the keychain); absent to keep what `mcp.json` has for this name.
    #[ts(optional)]
    pub value: Option<String>,
}

impl fmt::Debug for McpValueInput {
    /// Never the value: it is a secret until proven otherwise.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("McpValueInput")
            .field("name", &self.name)
            .field("value", &self.value.as_ref().map(|_| "<entered>"))
            .finish()
    }
}

/// The input's transport, checked.
pub(super) enum CheckedTransport {
    Stdio {
        command: String,
        args: Vec<String>,
        cwd: Option<String>,
    },
    Http {
        url: String,
    },
}

/// What the form sent, checked: how to reach the server and the values of its `env` or `headers`.
pub(super) struct CheckedInput<'a> {
    pub(super) transport: CheckedTransport,
    /// `env` or `headers`.
    pub(super) section: &'static str,
    pub(super) values: &'a [McpValueInput],
}

/// Checks what the form sent; each message names the field.
pub(super) fn check_input<'a>(
    name: &str,
    input: &'a McpServerInput,
) -> Result<CheckedInput<'a>, McpFileError> {
    let invalid = |field: &str, message: &str| McpFileError::Invalid {
        server: name.to_owned(),
        field: field.to_owned(),
        message: message.to_owned(),
    };
    if name.is_empty() {
        return Err(invalid("name", "is empty; give the server a name"));
    }
    if name.chars().any(char::is_control) {
        return Err(invalid(
            "name",
            "holds a control character; type a plain name",
        ));
    }
    for (field, seconds) in [
        ("timeoutSeconds", input.timeout_seconds),
        ("totalTimeoutSeconds", input.total_timeout_seconds),
    ] {
        if seconds == Some(0) {
            return Err(invalid(field, "must be at least 1 second"));
        }
    }
    let checked = match &input.transport {
        McpTransportInput::Stdio {
            command,
            args,
            cwd,
            env,
        } => {
            let command = command.trim();
            if command.is_empty() {
                return Err(invalid(
                    "command",
                    "is empty; name the program that starts the server (for example npx or a full path)",
                ));
            }
            if args.iter().any(|arg| arg.contains('\0')) {
                return Err(invalid("args", "an argument holds a NUL character"));
            }
            let cwd = cwd.as_deref().map(str::trim).filter(|cwd| !cwd.is_empty());
            if cwd.is_some_and(|cwd| !Path::new(cwd).is_absolute()) {
                return Err(invalid(
                    "cwd",
                    "must be a full path (for example /home/you/project)",
                ));
            }
            for value in env {
                let field = format!("env.{}", value.name);
                if value.name.trim().is_empty() || value.name.contains(['=', '\0']) {
                    return Err(invalid(
                        &field,
                        "is not a variable name; use letters, digits and _",
                    ));
                }
                if value
                    .value
                    .as_deref()
                    .is_some_and(|text| text.contains('\0'))
                {
                    return Err(invalid(&field, "the value holds a NUL character"));
                }
            }
            CheckedInput {
                transport: CheckedTransport::Stdio {
                    command: command.to_owned(),
                    args: args.clone(),
                    cwd: cwd.map(str::to_owned),
                },
                section: "env",
                values: env,
            }
        }
        McpTransportInput::Http { url, headers } => {
            let url = url.trim();
            if url.is_empty() {
                return Err(invalid(
                    "url",
                    "is empty; enter the server's streamable HTTP endpoint",
                ));
            }
            match reqwest::Url::parse(url) {
                Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => {}
                Ok(_) | Err(_) => {
                    return Err(invalid(
                        "url",
                        "must be a web address starting with http:// or https://",
                    ));
                }
            }
            for value in headers {
                let field = format!("headers.{}", value.name);
                if http::HeaderName::from_bytes(value.name.as_bytes()).is_err() {
                    return Err(invalid(
                        &field,
                        "is not a header name; use letters, digits and -",
                    ));
                }
                if value
                    .value
                    .as_deref()
                    .is_some_and(|text| http::HeaderValue::from_str(text).is_err())
                {
                    return Err(invalid(
                        &field,
                        "the value holds characters a header cannot carry (line breaks, control characters)",
                    ));
                }
            }
            CheckedInput {
                transport: CheckedTransport::Http {
                    url: url.to_owned(),
                },
                section: "headers",
                values: headers,
            }
        }
    };
    let mut names = BTreeSet::new();
    let mut keychain_names = BTreeSet::new();
    for value in checked.values {
        let field = format!("{}.{}", checked.section, value.name);
        if !names.insert(value.name.as_str()) {
            return Err(invalid(&field, "is listed twice; keep one"));
        }
        if !keychain_names.insert(keychain_name(name, &value.name)) {
            return Err(invalid(
                &field,
                "differs from another name only in characters the keychain name drops; rename one",
            ));
        }
    }
    Ok(checked)
}
