//! [`McpServers`]: the servers of the app's `mcp.json`, started once for every conversation, and the tools the
//! ready ones give a run.
//!
//! Contract: a server that fails to start is kept with its reason (the settings will show it) and the others
//! still start; a server that becomes ready serves from the next run. A missing `mcp.json` means no servers.

use std::path::{Path, PathBuf};

use serde::Serialize;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use ts_rs::TS;

use crate::approval::{AlwaysGrants, McpToolRef};
use crate::mcp::client::McpClient;
use crate::mcp::config::{
    MCP_FILE_NAME, McpConfig, McpServerConfig, McpTransport, parse_mcp_config,
};
use crate::mcp::launch::RmcpClient;

/// Where a server stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "state", content = "reason", rename_all = "snake_case")]
#[ts(export)]
pub enum McpServerState {
    /// Configured, not started.
    Disabled,
    /// Starting.
    Starting,
    /// Serving its tools.
    Ready,
    /// It could not start; the reason is safe to show.
    Failed(String),
}

/// A tool of a server, as the settings list it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct McpToolView {
    /// Its name on the server.
    pub name: String,
    /// What the server says it does.
    pub description: String,
    /// The server says it only reads.
    pub read_only_claim: bool,
    /// The server says it may destroy data.
    pub destructive_claim: bool,
}

/// A server as the settings show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct McpServerView {
    /// Its name in `mcp.json`.
    pub name: String,
    /// Where it stands.
    pub status: McpServerState,
    /// What runs: the exact command line, or the URL.
    pub launch: String,
    /// Its tools, once it is ready.
    pub tools: Vec<McpToolView>,
    /// The last lines it wrote to stderr.
    pub stderr_tail: Vec<String>,
    /// Tools "always allowed" (kept in `mcp.json`).
    pub always_allowed: Vec<String>,
    /// The whole server is "always allowed".
    pub always_allow_server: bool,
}

/// The servers of `mcp.json` for the settings, and what was wrong with the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct McpServersView {
    /// Where the file is (or would be).
    pub config_file: Option<String>,
    /// Every configured server, in the file's order.
    pub servers: Vec<McpServerView>,
    /// Entries left out and why, safe to show.
    pub problems: Vec<String>,
}

struct Entry {
    config: McpServerConfig,
    state: McpServerState,
    client: Option<Arc<RmcpClient>>,
}

/// The app's MCP servers. Share it (`Arc`).
pub struct McpServers {
    entries: Mutex<Vec<Entry>>,
    config_file: Option<PathBuf>,
    problems: Vec<String>,
    /// True once [`McpServers::start_all`] finished.
    started: tokio::sync::watch::Sender<bool>,
}

impl McpServers {
    /// The servers of `config_dir/mcp.json` (none when there is no file); problems of the file are kept as texts
    /// safe to show. Nothing starts before [`McpServers::start_all`].
    pub fn load(config_dir: Option<&Path>) -> McpServers {
        let Some(path) = config_dir.map(|dir| dir.join(MCP_FILE_NAME)) else {
            return McpServers::from_config(McpConfig::default(), Vec::new());
        };
        let mut servers = match std::fs::read_to_string(&path) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                McpServers::from_config(McpConfig::default(), Vec::new())
            }
            Err(error) => McpServers::from_config(
                McpConfig::default(),
                vec![format!("{} cannot be read: {error}", path.display())],
            ),
            Ok(text) => match parse_mcp_config(&text) {
                Ok((config, problems)) => McpServers::from_config(
                    config,
                    problems.iter().map(ToString::to_string).collect(),
                ),
                Err(error) => {
                    McpServers::from_config(McpConfig::default(), vec![error.to_string()])
                }
            },
        };
        servers.config_file = Some(path);
        servers
    }

    /// The servers of `config`, with `problems` of the file they came from.
    pub fn from_config(config: McpConfig, problems: Vec<String>) -> McpServers {
        for problem in &problems {
            tracing::warn!(target: "desktop_host::mcp", %problem, "mcp.json");
        }
        let entries = config
            .servers
            .into_iter()
            .map(|config| Entry {
                state: if config.disabled {
                    McpServerState::Disabled
                } else {
                    McpServerState::Starting
                },
                config,
                client: None,
            })
            .collect();
        McpServers {
            entries: Mutex::new(entries),
            config_file: None,
            problems,
            started: tokio::sync::watch::Sender::new(false),
        }
    }

    /// Starts every enabled server, concurrently; resolves when each is ready or failed.
    pub async fn start_all(&self) {
        let starting: Vec<McpServerConfig> = self
            .lock()
            .iter()
            .filter(|entry| entry.state == McpServerState::Starting)
            .map(|entry| entry.config.clone())
            .collect();
        let started = futures_util::future::join_all(starting.iter().map(RmcpClient::start)).await;
        let mut entries = self.lock();
        for (config, outcome) in starting.iter().zip(started) {
            let Some(entry) = entries
                .iter_mut()
                .find(|entry| entry.config.name == config.name)
            else {
                continue;
            };
            match outcome {
                Ok(client) => {
                    tracing::info!(target: "desktop_host::mcp", server = %config.name, tools = client.tools().len(), "ready");
                    entry.state = McpServerState::Ready;
                    entry.client = Some(Arc::new(client));
                }
                Err(error) => {
                    tracing::warn!(target: "desktop_host::mcp", server = %config.name, %error, "failed to start");
                    entry.state = McpServerState::Failed(error.to_string());
                }
            }
        }
        drop(entries);
        self.started.send_replace(true);
    }

    /// Waits (at most `limit`) until [`McpServers::start_all`] finished, so the first run after the app started
    /// gets the tools of servers that were still starting.
    pub async fn wait_started(&self, limit: Duration) {
        let mut started = self.started.subscribe();
        let _ = tokio::time::timeout(limit, started.wait_for(|done| *done)).await;
    }

    /// The ready servers, in the file's order.
    pub fn ready(&self) -> Vec<Arc<dyn McpClient>> {
        self.lock()
            .iter()
            .filter_map(|entry| {
                entry
                    .client
                    .clone()
                    .map(|client| client as Arc<dyn McpClient>)
            })
            .collect()
    }

    /// Every configured server and where it stands.
    pub fn states(&self) -> Vec<(String, McpServerState)> {
        self.lock()
            .iter()
            .map(|entry| (entry.config.name.clone(), entry.state.clone()))
            .collect()
    }

    /// Every server for the settings: state, command line, tools, stderr tail.
    pub fn view(&self) -> McpServersView {
        let servers = self
            .lock()
            .iter()
            .map(|entry| McpServerView {
                name: entry.config.name.clone(),
                status: entry.state.clone(),
                launch: launch_text(&entry.config),
                tools: entry
                    .client
                    .iter()
                    .flat_map(|client| client.tools())
                    .map(|tool| McpToolView {
                        name: tool.name.clone(),
                        description: tool.description.clone(),
                        read_only_claim: tool.read_only_hint,
                        destructive_claim: tool.destructive_hint,
                    })
                    .collect(),
                stderr_tail: entry
                    .client
                    .as_ref()
                    .map(|client| client.stderr_tail())
                    .unwrap_or_default(),
                always_allowed: entry.config.always_allow.keys().cloned().collect(),
                always_allow_server: entry.config.always_allow_server,
            })
            .collect();
        McpServersView {
            config_file: self
                .config_file
                .as_ref()
                .map(|path| path.display().to_string()),
            servers,
            problems: self.problems.clone(),
        }
    }

    /// What was wrong with `mcp.json`.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// Revokes an "always" grant of `server`: the one of `tool`, or with `None` the whole-server one. Gone from
    /// memory at once; `mcp.json` is changed as for a grant.
    pub fn revoke(&self, server: &str, tool: Option<&str>) -> Result<(), RevokeError> {
        {
            let mut entries = self.lock();
            let Some(entry) = entries.iter_mut().find(|entry| entry.config.name == server) else {
                return Err(RevokeError::UnknownServer(server.to_owned()));
            };
            match tool {
                Some(tool) => {
                    entry.config.always_allow.remove(tool);
                }
                None => entry.config.always_allow_server = false,
            }
        }
        let revoke = match tool {
            Some(tool) => GrantWrite::RevokeTool {
                tool: tool.to_owned(),
            },
            None => GrantWrite::RevokeServer,
        };
        self.write_grant(server, &revoke)
            .map_err(RevokeError::NotKept)
    }

    /// Keeps `grant` in the server's entry of `mcp.json`: the file is read again and only that entry's grant
    /// changes (everything else in it, keys of other apps included, stays as it is), written to a new file that
    /// then replaces it.
    fn write_grant(&self, server: &str, grant: &GrantWrite) -> Result<(), String> {
        let Some(path) = &self.config_file else {
            return Ok(());
        };
        let text = std::fs::read_to_string(path).map_err(|error| error.to_string())?;
        let mut value: serde_json::Value =
            serde_json::from_str(&text).map_err(|error| error.to_string())?;
        let Some(entry) = value
            .get_mut("mcpServers")
            .and_then(|servers| servers.get_mut(server))
            .and_then(serde_json::Value::as_object_mut)
        else {
            return Err(format!("the server \"{server}\" is no longer in the file"));
        };
        match grant {
            GrantWrite::Tool { tool, definition } => {
                let tools = entry
                    .entry("alwaysAllow")
                    .or_insert_with(|| serde_json::json!({}));
                if let Some(tools) = tools.as_object_mut() {
                    tools.insert(tool.clone(), serde_json::Value::from(definition.clone()));
                }
            }
            GrantWrite::Server => {
                entry.insert(
                    "alwaysAllowServer".to_owned(),
                    serde_json::Value::Bool(true),
                );
            }
            GrantWrite::RevokeTool { tool } => {
                if let Some(tools) = entry
                    .get_mut("alwaysAllow")
                    .and_then(serde_json::Value::as_object_mut)
                {
                    tools.remove(tool);
                }
            }
            GrantWrite::RevokeServer => {
                entry.remove("alwaysAllowServer");
            }
        }
        let pretty = serde_json::to_string_pretty(&value).map_err(|error| error.to_string())?;
        let fresh = path.with_extension("json.new");
        std::fs::write(&fresh, pretty + "\n").map_err(|error| error.to_string())?;
        std::fs::rename(&fresh, path).map_err(|error| error.to_string())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Why a grant could not be revoked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RevokeError {
    /// No such server in `mcp.json`.
    #[error("there is no MCP server \"{0}\"")]
    UnknownServer(String),
    /// Revoked until the app quits, but `mcp.json` could not be changed.
    #[error("the grant is revoked until Pi Desktop quits, but mcp.json could not keep it: {0}")]
    NotKept(String),
}

/// A change of the grants in `mcp.json`.
enum GrantWrite {
    Tool { tool: String, definition: String },
    Server,
    RevokeTool { tool: String },
    RevokeServer,
}

impl AlwaysGrants for McpServers {
    fn always_allows(&self, tool: &McpToolRef) -> bool {
        self.lock().iter().any(|entry| {
            entry.config.name == tool.server
                && (entry.config.always_allow.get(&tool.tool) == Some(&tool.definition)
                    || (entry.config.always_allow_server && !tool.destructive_claim))
        })
    }

    fn grant_always(&self, tool: &McpToolRef, whole_server: bool) {
        let grant = {
            let mut entries = self.lock();
            let Some(entry) = entries
                .iter_mut()
                .find(|entry| entry.config.name == tool.server)
            else {
                return;
            };
            if whole_server {
                entry.config.always_allow_server = true;
                GrantWrite::Server
            } else {
                entry
                    .config
                    .always_allow
                    .insert(tool.tool.clone(), tool.definition.clone());
                GrantWrite::Tool {
                    tool: tool.tool.clone(),
                    definition: tool.definition.clone(),
                }
            }
        };
        if let Err(reason) = self.write_grant(&tool.server, &grant) {
            tracing::warn!(target: "desktop_host::mcp", server = %tool.server, %reason, "the grant holds until the app quits; mcp.json could not keep it");
        }
    }
}

/// The exact command line (arguments quoted where a shell would need it), or the URL: what the user agrees to run.
fn launch_text(config: &McpServerConfig) -> String {
    match &config.transport {
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

#[cfg(test)]
mod tests {
    use super::*;

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
            launch_text(&config),
            r"npx -y @scope/server 'My Notes' 'it'\''s'"
        );
    }

    #[test]
    fn a_configured_server_shows_as_starting_and_a_disabled_one_as_disabled() {
        let mut off = McpServerConfig::stdio("off", "node", Vec::new());
        off.disabled = true;
        let servers = McpServers::from_config(
            McpConfig {
                servers: vec![McpServerConfig::stdio("on", "node", Vec::new()), off],
            },
            vec!["MCP server \"x\": needs \"command\"".to_owned()],
        );

        let view = servers.view();

        let states: Vec<(&str, &McpServerState)> = view
            .servers
            .iter()
            .map(|server| (server.name.as_str(), &server.status))
            .collect();
        assert_eq!(
            states,
            [
                ("on", &McpServerState::Starting),
                ("off", &McpServerState::Disabled)
            ]
        );
        assert_eq!(view.problems.len(), 1);
    }
}
