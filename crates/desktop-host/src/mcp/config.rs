//! `mcp.json`: the servers the user plugged in, in the shape Claude Desktop and Cursor already use
//! (`{"mcpServers": {"NAME": {"command", "args", "env", "cwd"} | {"url", "headers"}}}`) plus our own fields
//! (`disabled`, `startTimeoutSeconds`, `timeoutSeconds`, `totalTimeoutSeconds`, `disabledTools`, and the "always" grants the app writes:
//! `alwaysAllow` (tool → a hash of its definition) and `alwaysAllowServer`). Keys other apps add are ignored.
//!
//! Values of `env` and `headers` are a string or `{"keychain": "NAME"}`: a reference to a value kept in the OS
//! keychain under `NAME` ([`keychain_name`] is the name the app gives the values it stores). A plain value whose
//! name says it is a secret (a key, a token, a password, `Authorization`) is used, with a problem telling the user
//! to move it to the keychain.
//!
//! Contract: invalid JSON fails the whole file ([`McpConfigError`]); an invalid entry is left out with a
//! [`McpConfigProblem`] naming the server and the field, and the other servers are kept.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The file's name beside the settings file in the app's config folder.
pub const MCP_FILE_NAME: &str = "mcp.json";

/// How long a server may take from start to its tool list when the entry names no limit.
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(30);

/// A call's timeout when the entry names none: reset by every progress notification.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// A call's total cap when the entry names none, progress or not.
pub const DEFAULT_TOTAL_TIMEOUT: Duration = Duration::from_secs(600);

/// A value of `env` or `headers`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum ConfigValue {
    /// Written in the file.
    Plain(String),
    /// Kept in the OS keychain under this name.
    Keychain {
        /// The keychain entry's name.
        keychain: String,
    },
}

impl ConfigValue {
    /// A plain value.
    pub fn plain(value: impl Into<String>) -> Self {
        ConfigValue::Plain(value.into())
    }

    /// `self` as `mcp.json` writes it.
    pub fn to_json(&self) -> Value {
        match self {
            ConfigValue::Plain(value) => Value::from(value.as_str()),
            ConfigValue::Keychain { keychain } => serde_json::json!({ "keychain": keychain }),
        }
    }
}

/// The keychain name the app gives the value of `field` (an `env` variable or a header) of `server`:
/// `mcp.<server>.<field>`, every character outside `[A-Za-z0-9_.-]` replaced by `_`, at most 64 characters.
pub fn keychain_name(server: &str, field: &str) -> String {
    let clean = |text: &str| -> String {
        text.chars()
            .map(|character| {
                if character.is_ascii_alphanumeric() || "_.-".contains(character) {
                    character
                } else {
                    '_'
                }
            })
            .collect()
    };
    let name = format!("mcp.{}.{}", clean(server), clean(field));
    name.chars().take(64).collect()
}

/// True when a variable or header called `name` usually holds a secret.
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "KEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "AUTH",
        "CREDENTIAL",
        "COOKIE",
    ]
    .iter()
    .any(|word| upper.contains(word))
}

/// How the app reaches a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        /// The program (a name looked up in `PATH`, or a path).
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the clean environment.
        env: BTreeMap<String, ConfigValue>,
        /// The working folder.
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP.
    Http {
        /// The endpoint.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, ConfigValue>,
    },
}

/// One server of `mcp.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpServerConfig {
    /// Its name (the key in `mcpServers`), also the first part of its tools' names.
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
    /// Configured but not started.
    pub disabled: bool,
    /// How long it may take from start to its tool list.
    pub start_timeout: Duration,
    /// A call's timeout, reset by progress.
    pub call_timeout: Duration,
    /// A call's total cap.
    pub total_timeout: Duration,
    /// Tools of this server the agent does not get.
    pub disabled_tools: Vec<String>,
    /// "Always allow this tool" grants: tool → the hash of its definition when it was granted (`alwaysAllow`).
    pub always_allow: BTreeMap<String, String>,
    /// "Always allow this server" (`alwaysAllowServer`).
    pub always_allow_server: bool,
}

impl McpServerConfig {
    /// The exact command line (arguments quoted where a shell would need it), or the URL: what the user agrees to
    /// run. The settings and an import show launches written this way.
    pub fn launch_text(&self) -> String {
        match &self.transport {
            McpTransport::Stdio { command, args, .. } => std::iter::once(command)
                .chain(args)
                .map(|part| {
                    let plain = !part.is_empty()
                        && part.chars().all(|character| {
                            character.is_ascii_alphanumeric() || "-_./:=@+,%".contains(character)
                        });
                    if plain {
                        part.clone()
                    } else {
                        format!("'{}'", part.replace('\'', r"'\''"))
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
            McpTransport::Http { url, .. } => url.clone(),
        }
    }

    /// A stdio server with the default timeouts.
    pub fn stdio(name: impl Into<String>, command: impl Into<String>, args: Vec<String>) -> Self {
        McpServerConfig {
            name: name.into(),
            transport: McpTransport::Stdio {
                command: command.into(),
                args,
                env: BTreeMap::new(),
                cwd: None,
            },
            disabled: false,
            start_timeout: DEFAULT_START_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            total_timeout: DEFAULT_TOTAL_TIMEOUT,
            disabled_tools: Vec::new(),
            always_allow: BTreeMap::new(),
            always_allow_server: false,
        }
    }
}

/// The servers of one `mcp.json`, in the file's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct McpConfig {
    /// The valid entries.
    pub servers: Vec<McpServerConfig>,
}

/// The file as a whole cannot be read as a configuration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum McpConfigError {
    /// Not JSON.
    #[error("mcp.json is not valid JSON ({0}); fix the file, nothing in it was used")]
    InvalidJson(String),
    /// JSON, but not an object with `mcpServers`.
    #[error("mcp.json must be an object with \"mcpServers\": {{\"NAME\": {{...}}}}")]
    NotAConfig,
}

/// An entry left out, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpConfigProblem {
    /// The server's name.
    pub server: String,
    /// The field at fault, when one is.
    pub field: Option<String>,
    /// What is wrong and what to do.
    pub message: String,
}

impl fmt::Display for McpConfigProblem {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(
                formatter,
                "MCP server \"{}\", field \"{field}\": {}",
                self.server, self.message
            ),
            None => write!(
                formatter,
                "MCP server \"{}\": {}",
                self.server, self.message
            ),
        }
    }
}

/// Reads `mcp.json`'s text: the valid servers, and a problem for each entry left out.
pub fn parse_mcp_config(text: &str) -> Result<(McpConfig, Vec<McpConfigProblem>), McpConfigError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|error| McpConfigError::InvalidJson(error.to_string()))?;
    let Some(servers) = value.get("mcpServers").and_then(Value::as_object) else {
        return Err(McpConfigError::NotAConfig);
    };
    let mut config = McpConfig::default();
    let mut problems = Vec::new();
    for (name, entry) in servers {
        match server_config(name, entry) {
            Ok(server) => {
                problems.extend(plain_secrets(&server));
                config.servers.push(server);
            }
            Err(problem) => problems.push(problem),
        }
    }
    Ok((config, problems))
}

fn server_config(name: &str, entry: &Value) -> Result<McpServerConfig, McpConfigProblem> {
    let problem = |field: Option<&str>, message: String| McpConfigProblem {
        server: name.to_owned(),
        field: field.map(str::to_owned),
        message,
    };
    if name.trim().is_empty() {
        return Err(problem(
            None,
            "the name is empty; give the server a name".to_owned(),
        ));
    }
    let Some(entry) = entry.as_object() else {
        return Err(problem(
            None,
            "must be an object with \"command\" or \"url\"".to_owned(),
        ));
    };
    let transport = match (
        field_of::<String>(entry, "command")
            .map_err(|message| problem(Some("command"), message))?,
        field_of::<String>(entry, "url").map_err(|message| problem(Some("url"), message))?,
    ) {
        (Some(_), Some(_)) => {
            return Err(problem(
                None,
                "has both \"command\" and \"url\"; keep the one that reaches the server".to_owned(),
            ));
        }
        (Some(command), None) if command.trim().is_empty() => {
            return Err(problem(Some("command"), "is empty".to_owned()));
        }
        (Some(command), None) => McpTransport::Stdio {
            command,
            args: field_of(entry, "args")
                .map_err(|message| problem(Some("args"), message))?
                .unwrap_or_default(),
            env: field_of(entry, "env")
                .map_err(|message| problem(Some("env"), message))?
                .unwrap_or_default(),
            cwd: field_of(entry, "cwd").map_err(|message| problem(Some("cwd"), message))?,
        },
        (None, Some(url)) if !(url.starts_with("http://") || url.starts_with("https://")) => {
            return Err(problem(
                Some("url"),
                "must start with http:// or https://".to_owned(),
            ));
        }
        (None, Some(url)) => McpTransport::Http {
            url,
            headers: field_of(entry, "headers")
                .map_err(|message| problem(Some("headers"), message))?
                .unwrap_or_default(),
        },
        (None, None) => {
            return Err(problem(
                None,
                "needs \"command\" (a program to start) or \"url\" (a streamable HTTP endpoint)"
                    .to_owned(),
            ));
        }
    };
    let seconds = |key: &str, default: Duration| -> Result<Duration, McpConfigProblem> {
        match field_of::<u64>(entry, key).map_err(|message| problem(Some(key), message))? {
            Some(0) => Err(problem(Some(key), "must be at least 1 second".to_owned())),
            Some(seconds) => Ok(Duration::from_secs(seconds)),
            None => Ok(default),
        }
    };
    Ok(McpServerConfig {
        name: name.to_owned(),
        transport,
        disabled: field_of(entry, "disabled")
            .map_err(|message| problem(Some("disabled"), message))?
            .unwrap_or(false),
        start_timeout: seconds("startTimeoutSeconds", DEFAULT_START_TIMEOUT)?,
        call_timeout: seconds("timeoutSeconds", DEFAULT_CALL_TIMEOUT)?,
        total_timeout: seconds("totalTimeoutSeconds", DEFAULT_TOTAL_TIMEOUT)?,
        disabled_tools: field_of(entry, "disabledTools")
            .map_err(|message| problem(Some("disabledTools"), message))?
            .unwrap_or_default(),
        always_allow: field_of(entry, "alwaysAllow")
            .map_err(|message| problem(Some("alwaysAllow"), message))?
            .unwrap_or_default(),
        always_allow_server: field_of(entry, "alwaysAllowServer")
            .map_err(|message| problem(Some("alwaysAllowServer"), message))?
            .unwrap_or(false),
    })
}

/// A problem for each plain value whose name says it is a secret (the server still starts with it).
fn plain_secrets(server: &McpServerConfig) -> Vec<McpConfigProblem> {
    let (section, values) = match &server.transport {
        McpTransport::Stdio { env, .. } => ("env", env),
        McpTransport::Http { headers, .. } => ("headers", headers),
    };
    values
        .iter()
        .filter(|(name, value)| matches!(value, ConfigValue::Plain(_)) && looks_secret(name))
        .map(|(name, _)| McpConfigProblem {
            server: server.name.clone(),
            field: Some(format!("{section}.{name}")),
            message: "is written in plain text in mcp.json; move it to the keychain from Settings → Tools & servers".to_owned(),
        })
        .collect()
}

/// The field `key` of `entry` as `T`; absent and `null` are `None`.
fn field_of<T: DeserializeOwned>(
    entry: &Map<String, Value>,
    key: &str,
) -> Result<Option<T>, String> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => serde_json::from_value(value.clone())
            .map(Some)
            .map_err(|error| format!("{error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claude_desktop_config_reads_as_stdio_servers_and_an_invalid_entry_is_named_without_losing_the_others()
     {
        let text = r#"{"mcpServers": {
            "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"],
                           "env": {"LOG": "1"}, "active": true},
            "broken": {"command": "node", "args": "not a list"},
            "remote": {"url": "https://example.com/mcp", "headers": {"X-Team": "a"}, "timeoutSeconds": 5},
            "neither": {}
        }}"#;

        let (config, problems) = parse_mcp_config(text).unwrap();

        let names: Vec<&str> = config
            .servers
            .iter()
            .map(|server| server.name.as_str())
            .collect();
        assert_eq!(names, ["everything", "remote"]);
        assert_eq!(
            config.servers[0].transport,
            McpTransport::Stdio {
                command: "npx".to_owned(),
                args: vec![
                    "-y".to_owned(),
                    "@modelcontextprotocol/server-everything".to_owned()
                ],
                env: BTreeMap::from([("LOG".to_owned(), ConfigValue::plain("1"))]),
                cwd: None,
            }
        );
        assert_eq!(config.servers[1].call_timeout, Duration::from_secs(5));
        assert_eq!(problems.len(), 2);
        assert_eq!(problems[0].server, "broken");
        assert_eq!(problems[0].field.as_deref(), Some("args"));
        assert!(
            problems[0]
                .to_string()
                .starts_with("MCP server \"broken\", field \"args\": ")
        );
        assert!(
            problems[1].message.contains("\"command\""),
            "{}",
            problems[1]
        );
    }

    #[test]
    fn a_value_is_plain_or_a_keychain_reference_and_a_plain_secret_is_named_as_a_problem() {
        let text = r#"{"mcpServers": {
            "github": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": {"keychain": "mcp.github.GITHUB_TOKEN"}, "DEBUG": "1"}},
            "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer abc"}}
        }}"#;

        let (config, problems) = parse_mcp_config(text).unwrap();

        let McpTransport::Stdio { env, .. } = &config.servers[0].transport else {
            panic!("stdio expected");
        };
        assert_eq!(
            env.get("GITHUB_TOKEN"),
            Some(&ConfigValue::Keychain {
                keychain: "mcp.github.GITHUB_TOKEN".to_owned()
            })
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].server, "remote");
        assert_eq!(problems[0].field.as_deref(), Some("headers.Authorization"));
        assert!(!problems[0].to_string().contains("abc"));
    }

    #[test]
    fn the_keychain_name_of_a_value_is_clean_and_bounded() {
        assert_eq!(keychain_name("my notes", "API_KEY"), "mcp.my_notes.API_KEY");
        assert_eq!(keychain_name(&"x".repeat(100), "K").len(), 64);
    }

    #[test]
    fn the_command_line_shown_is_exact_and_quoted_where_a_shell_would_need_it() {
        let config = McpServerConfig::stdio(
            "notes",
            "npx",
            vec![
                "-y".to_owned(),
                "@scope/server".to_owned(),
                "My Notes".to_owned(),
                "it's".to_owned(),
            ],
        );
        assert_eq!(
            config.launch_text(),
            r"npx -y @scope/server 'My Notes' 'it'\''s'"
        );
    }

    #[test]
    fn a_file_that_is_not_json_or_not_a_config_is_refused_as_a_whole() {
        assert!(matches!(
            parse_mcp_config("{\"mcpServers\": "),
            Err(McpConfigError::InvalidJson(_))
        ));
        assert_eq!(parse_mcp_config("[]"), Err(McpConfigError::NotAConfig));
    }
}
