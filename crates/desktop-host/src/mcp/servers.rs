//! [`McpServers`]: the servers of the app's `mcp.json`, started once for every conversation, and the tools the
//! ready ones give a run.
//!
//! Contract: a server that fails to start is kept with its reason (the settings will show it) and the others
//! still start; a server that becomes ready serves from the next run. A missing `mcp.json` means no servers.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::mcp::client::McpClient;
use crate::mcp::config::{MCP_FILE_NAME, McpConfig, McpServerConfig, parse_mcp_config};
use crate::mcp::launch::RmcpClient;

/// Where a server stands.
#[derive(Clone, Debug, PartialEq, Eq)]
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

struct Entry {
    config: McpServerConfig,
    state: McpServerState,
    client: Option<Arc<RmcpClient>>,
}

/// The app's MCP servers. Share it (`Arc`).
pub struct McpServers {
    entries: Mutex<Vec<Entry>>,
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
        match std::fs::read_to_string(&path) {
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
        }
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

    /// What was wrong with `mcp.json`.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
