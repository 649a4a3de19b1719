//! [`McpServers`]: the servers of the app's `mcp.json`, one supervisor each, and the tools the ready ones give
//! a run.
//!
//! Contracts:
//! - A server that fails to start is kept with its reason (the settings show it) and the others still start; a
//!   server that becomes ready serves from the next run. A missing `mcp.json` means no servers.
//! - A server that stops by itself while ready is restarted after 1, 2, then 4 s (`restarting`, with the
//!   attempt); after [`MAX_RESTARTS`] failed attempts it is `failed` until the user restarts it. One that stayed up
//!   for [`STABLE_AFTER`] starts counting again. A first start that fails is not retried.
//! - Disabling, removing, restarting and [`McpServers::shutdown`] end the server (its whole process group) before
//!   anything else starts under its name; a stopped server's supervisor never touches the entry again
//!   (generations).
//! - Every change of what the settings show bumps [`McpServers::changes`].

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::{oneshot, watch};
use ts_rs::TS;

use crate::approval::{AlwaysGrants, McpToolRef};
use crate::mcp::agent_tool::ServingServer;
use crate::mcp::client::{McpClient, McpToolInfo};
use crate::mcp::config::{
    ConfigValue, MCP_FILE_NAME, McpConfig, McpServerConfig, McpTransport, parse_mcp_config,
};
use crate::mcp::config_file;
use crate::mcp::launch::RmcpClient;
use crate::mcp::secret_values::McpSecrets;

/// Restarts after a crash before the server is left failed.
pub const MAX_RESTARTS: u32 = 3;

/// A server up this long before it stops starts counting its restarts again.
pub const STABLE_AFTER: Duration = Duration::from_secs(60);

/// Where a server stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
#[ts(export)]
pub enum McpServerState {
    /// Configured, not started.
    Disabled,
    /// Starting.
    Starting,
    /// Serving its tools.
    Ready,
    /// It could not start, or stopped too often; safe to show.
    Failed {
        /// Why, with its last output.
        reason: String,
    },
    /// It stopped by itself and is being started again.
    Restarting {
        /// Which restart this is (from 1).
        attempt: u32,
    },
}

impl McpServerState {
    /// The state's name, as `data-state` and `pi-chat --list-tools` show it.
    pub fn label(&self) -> &'static str {
        match self {
            McpServerState::Disabled => "disabled",
            McpServerState::Starting => "starting",
            McpServerState::Ready => "ready",
            McpServerState::Failed { .. } => "failed",
            McpServerState::Restarting { .. } => "restarting",
        }
    }
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
    /// The agent gets it (not in `disabledTools`).
    pub enabled: bool,
}

/// A value of `env` or `headers` as the settings show it: its name and where it is kept, never the value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct McpValueView {
    /// The variable's or header's name.
    pub name: String,
    /// Kept in the keychain (otherwise written in `mcp.json`).
    pub in_keychain: bool,
}

/// How a server is reached, for the settings' edit form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
#[ts(export)]
pub enum McpLaunchView {
    /// A program the app starts.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Its working folder.
        #[ts(optional)]
        cwd: Option<String>,
        /// Its variables.
        env: Vec<McpValueView>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint.
        url: String,
        /// Its headers.
        headers: Vec<McpValueView>,
    },
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
    /// The parts of the launch, for editing.
    pub transport: McpLaunchView,
    /// A call's timeout in seconds (progress resets it).
    pub timeout_seconds: u64,
    /// A call's total cap in seconds.
    pub total_timeout_seconds: u64,
    /// Its tools: those it lists now, or the last it listed while it is not ready.
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
    /// Which supervisor owns the entry; a stopped one finds a newer number and leaves.
    generation: u64,
    /// The tools it listed last, kept while it is not ready.
    last_tools: Vec<McpToolInfo>,
    /// Its stderr when it last stopped.
    stderr_tail: Vec<String>,
}

#[derive(Default)]
struct Registry {
    entries: Vec<Entry>,
    problems: Vec<String>,
    next_generation: u64,
}

impl Registry {
    fn entry(&mut self, name: &str) -> Option<&mut Entry> {
        self.entries
            .iter_mut()
            .find(|entry| entry.config.name == name)
    }

    fn new_entry(&mut self, config: McpServerConfig) -> Entry {
        self.next_generation += 1;
        Entry {
            state: if config.disabled {
                McpServerState::Disabled
            } else {
                McpServerState::Starting
            },
            config,
            client: None,
            generation: self.next_generation,
            last_tools: Vec::new(),
            stderr_tail: Vec::new(),
        }
    }
}

/// The app's MCP servers. Share it (`Arc`): supervisors hold it while their server runs.
pub struct McpServers {
    registry: Mutex<Registry>,
    config_file: Option<PathBuf>,
    secrets: Arc<dyn McpSecrets>,
    /// True once [`McpServers::start_all`] saw every first start end.
    started: watch::Sender<bool>,
    changes: watch::Sender<u64>,
}

/// Why `mcp.json` could not be (re)read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum McpReloadError {
    /// The file is unreadable or not a configuration; the servers running stay as they are.
    #[error("{0}")]
    Unusable(String),
}

impl McpServers {
    /// The servers of `config_dir/mcp.json` (none when there is no file), their `{"keychain": NAME}` values
    /// looked up in `secrets`; problems of the file are kept as texts safe to show. Nothing starts before
    /// [`McpServers::start_all`].
    pub fn load(config_dir: Option<&Path>, secrets: Arc<dyn McpSecrets>) -> McpServers {
        let Some(path) = config_dir.map(|dir| dir.join(MCP_FILE_NAME)) else {
            return McpServers::from_config(McpConfig::default(), Vec::new(), secrets);
        };
        let (config, problems) = match read_config(&path) {
            Ok(read) => read,
            Err(McpReloadError::Unusable(problem)) => (McpConfig::default(), vec![problem]),
        };
        let mut servers = McpServers::from_config(config, problems, secrets);
        servers.config_file = Some(path);
        servers
    }

    /// The servers of `config`, with `problems` of the file they came from.
    pub fn from_config(
        config: McpConfig,
        problems: Vec<String>,
        secrets: Arc<dyn McpSecrets>,
    ) -> McpServers {
        for problem in &problems {
            tracing::warn!(target: "desktop_host::mcp", %problem, "mcp.json");
        }
        let mut registry = Registry {
            problems,
            ..Registry::default()
        };
        registry.entries = config
            .servers
            .into_iter()
            .map(|config| registry.new_entry(config))
            .collect();
        McpServers {
            registry: Mutex::new(registry),
            config_file: None,
            secrets,
            started: watch::Sender::new(false),
            changes: watch::Sender::new(0),
        }
    }

    /// Starts every enabled server, concurrently; resolves when each first start ended (ready or failed).
    pub async fn start_all(self: &Arc<Self>) {
        // The supervisors are only spawned under the lock; each takes it later, on its own task.
        let firsts: Vec<oneshot::Receiver<()>> = self
            .lock()
            .entries
            .iter()
            .filter(|entry| entry.state == McpServerState::Starting)
            .map(|entry| self.supervise(entry.config.name.clone(), entry.generation))
            .collect();
        futures_util::future::join_all(firsts).await;
        self.started.send_replace(true);
    }

    /// Waits (at most `limit`) until [`McpServers::start_all`] finished, so the first run after the app started
    /// gets the tools of servers that were still starting.
    pub async fn wait_started(&self, limit: Duration) {
        let mut started = self.started.subscribe();
        let _ = tokio::time::timeout(limit, started.wait_for(|done| *done)).await;
    }

    /// A counter that moves whenever a server's state, tools or configuration changed.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Reads `mcp.json` again and brings the servers in line with it: a removed or changed server is ended, a
    /// new or changed one starts (a disabled one does not), one whose launch did not change keeps running with its
    /// new grants, timeouts and disabled tools. An unusable file changes nothing and says why.
    pub async fn reload(self: &Arc<Self>) -> Result<(), McpReloadError> {
        let Some(path) = &self.config_file else {
            return Ok(());
        };
        let (config, problems) = read_config(path)?;
        for problem in &problems {
            tracing::warn!(target: "desktop_host::mcp", %problem, "mcp.json");
        }
        let (ended, started) = {
            let mut registry = self.lock();
            let mut old: Vec<Entry> = std::mem::take(&mut registry.entries);
            let mut ended = Vec::new();
            let mut started = Vec::new();
            for fresh in config.servers {
                let kept = old
                    .iter()
                    .position(|entry| entry.config.name == fresh.name)
                    .map(|index| old.remove(index));
                let entry = match kept {
                    Some(mut entry) if same_launch(&entry.config, &fresh) => {
                        entry.config = fresh;
                        entry
                    }
                    kept => {
                        if let Some(client) = kept.and_then(|entry| entry.client) {
                            ended.push(client);
                        }
                        let entry = registry.new_entry(fresh);
                        if entry.state == McpServerState::Starting {
                            started.push((entry.config.name.clone(), entry.generation));
                        }
                        entry
                    }
                };
                registry.entries.push(entry);
            }
            ended.extend(old.into_iter().filter_map(|entry| entry.client));
            registry.problems = problems;
            (ended, started)
        };
        for client in ended {
            client.shutdown().await;
        }
        for (name, generation) in started {
            drop(self.supervise(name, generation));
        }
        self.changed();
        Ok(())
    }

    /// Ends `name` and starts it again (a failed server's retry). A disabled server stays disabled.
    pub async fn restart(self: &Arc<Self>, name: &str) -> Result<(), McpRestartError> {
        let (client, generation) = {
            let mut registry = self.lock();
            registry.next_generation += 1;
            let generation = registry.next_generation;
            let Some(entry) = registry.entry(name) else {
                return Err(McpRestartError::UnknownServer(name.to_owned()));
            };
            if entry.config.disabled {
                return Err(McpRestartError::Disabled(name.to_owned()));
            }
            entry.generation = generation;
            entry.state = McpServerState::Starting;
            (entry.client.take(), generation)
        };
        self.changed();
        if let Some(client) = client {
            client.shutdown().await;
        }
        drop(self.supervise(name.to_owned(), generation));
        Ok(())
    }

    /// Ends every server (their whole process groups) and waits until they ended; nothing restarts.
    pub async fn shutdown(&self) {
        let clients: Vec<Arc<RmcpClient>> = {
            let mut registry = self.lock();
            registry.next_generation += 1;
            let generation = registry.next_generation;
            registry
                .entries
                .iter_mut()
                .filter_map(|entry| {
                    entry.generation = generation;
                    entry.client.take()
                })
                .collect()
        };
        futures_util::future::join_all(clients.iter().map(|client| client.shutdown())).await;
    }

    /// The ready servers, in the file's order, with the tools the user turned off.
    pub fn ready(&self) -> Vec<ServingServer> {
        self.lock()
            .entries
            .iter()
            .filter_map(|entry| {
                entry.client.clone().map(|client| ServingServer {
                    client: client as Arc<dyn McpClient>,
                    disabled_tools: entry.config.disabled_tools.clone(),
                })
            })
            .collect()
    }

    /// Every configured server and where it stands.
    pub fn states(&self) -> Vec<(String, McpServerState)> {
        self.lock()
            .entries
            .iter()
            .map(|entry| (entry.config.name.clone(), entry.state.clone()))
            .collect()
    }

    /// Every server for the settings: state, command line, tools, stderr tail.
    pub fn view(&self) -> McpServersView {
        let registry = self.lock();
        let servers = registry
            .entries
            .iter()
            .map(|entry| {
                let tools = match &entry.client {
                    Some(client) => client.tools(),
                    None => entry.last_tools.clone(),
                };
                McpServerView {
                    name: entry.config.name.clone(),
                    status: entry.state.clone(),
                    launch: entry.config.launch_text(),
                    transport: launch_view(&entry.config.transport),
                    timeout_seconds: entry.config.call_timeout.as_secs(),
                    total_timeout_seconds: entry.config.total_timeout.as_secs(),
                    tools: tools
                        .iter()
                        .map(|tool| McpToolView {
                            name: tool.name.clone(),
                            description: tool.description.clone(),
                            read_only_claim: tool.read_only_hint,
                            destructive_claim: tool.destructive_hint,
                            enabled: !entry.config.disabled_tools.contains(&tool.name),
                        })
                        .collect(),
                    stderr_tail: match &entry.client {
                        Some(client) => client.stderr_tail(),
                        None => entry.stderr_tail.clone(),
                    },
                    always_allowed: entry.config.always_allow.keys().cloned().collect(),
                    always_allow_server: entry.config.always_allow_server,
                }
            })
            .collect();
        McpServersView {
            config_file: self
                .config_file
                .as_ref()
                .map(|path| path.display().to_string()),
            servers,
            problems: registry.problems.clone(),
        }
    }

    /// Where `mcp.json` is, when the platform names a config folder.
    pub fn config_file(&self) -> Option<&Path> {
        self.config_file.as_deref()
    }

    /// Runs the supervisor of `name` for `generation` on a task of its own; the receiver fires once its first
    /// start ended (or the supervisor left).
    fn supervise(self: &Arc<Self>, name: String, generation: u64) -> oneshot::Receiver<()> {
        let (first_tx, first) = oneshot::channel();
        let servers = Arc::clone(self);
        tokio::spawn(async move { servers.supervisor(name, generation, first_tx).await });
        first
    }

    async fn supervisor(
        self: Arc<Self>,
        name: String,
        generation: u64,
        first: oneshot::Sender<()>,
    ) {
        let mut first = Some(first);
        let mut attempt: u32 = 0;
        loop {
            let Some(config) = self.current_config(&name, generation) else {
                return;
            };
            let failure = match RmcpClient::start(&config, self.secrets.as_ref()).await {
                Ok(client) => {
                    let client = Arc::new(client);
                    let tools = client.tools();
                    let owned = self.update(&name, generation, |entry| {
                        entry.state = McpServerState::Ready;
                        entry.client = Some(Arc::clone(&client));
                        entry.last_tools = tools.clone();
                    });
                    if !owned {
                        client.shutdown().await;
                        return;
                    }
                    tracing::info!(target: "desktop_host::mcp", server = %name, tools = tools.len(), "ready");
                    if let Some(first) = first.take() {
                        let _ = first.send(());
                    }
                    let up_since = Instant::now();
                    let ended = client.ended();
                    tokio::pin!(ended);
                    let mut relisted = client.relisted();
                    let reason = loop {
                        tokio::select! {
                            reason = &mut ended => break reason,
                            Ok(()) = relisted.changed() => self.changed(),
                        }
                    };
                    if up_since.elapsed() >= STABLE_AFTER {
                        attempt = 0;
                    }
                    let tail = client.stderr_tail();
                    let last_tools = client.tools();
                    let owned = self.update(&name, generation, |entry| {
                        entry.client = None;
                        entry.stderr_tail = tail.clone();
                        entry.last_tools = last_tools;
                    });
                    if !owned {
                        return;
                    }
                    tracing::warn!(target: "desktop_host::mcp", server = %name, %reason, "stopped");
                    let last = tail.iter().rev().take(5).rev().cloned().collect::<Vec<_>>();
                    if last.is_empty() {
                        format!("MCP server \"{name}\" stopped: {reason}")
                    } else {
                        format!(
                            "MCP server \"{name}\" stopped: {reason} — its last output: {}",
                            last.join(" | ")
                        )
                    }
                }
                Err(error) => {
                    tracing::warn!(target: "desktop_host::mcp", server = %name, %error, "failed to start");
                    if attempt == 0 {
                        self.update(&name, generation, |entry| {
                            entry.state = McpServerState::Failed {
                                reason: error.to_string(),
                            };
                        });
                        if let Some(first) = first.take() {
                            let _ = first.send(());
                        }
                        return;
                    }
                    error.to_string()
                }
            };
            attempt += 1;
            if attempt > MAX_RESTARTS {
                self.update(&name, generation, |entry| {
                    entry.state = McpServerState::Failed {
                        reason: format!(
                            "{failure} (restarted {MAX_RESTARTS} times; restart it from Settings → Tools & servers)"
                        ),
                    };
                });
                return;
            }
            if !self.update(&name, generation, |entry| {
                entry.state = McpServerState::Restarting { attempt };
            }) {
                return;
            }
            tokio::time::sleep(Duration::from_secs(1 << (attempt - 1))).await;
        }
    }

    /// The configuration of `name` while `generation` still owns it.
    fn current_config(&self, name: &str, generation: u64) -> Option<McpServerConfig> {
        self.lock()
            .entry(name)
            .filter(|entry| entry.generation == generation)
            .map(|entry| entry.config.clone())
    }

    /// Changes the entry of `name` while `generation` still owns it; false when it no longer does.
    fn update(&self, name: &str, generation: u64, change: impl FnOnce(&mut Entry)) -> bool {
        let owned = {
            let mut registry = self.lock();
            match registry.entry(name) {
                Some(entry) if entry.generation == generation => {
                    change(entry);
                    true
                }
                _ => false,
            }
        };
        if owned {
            self.changed();
        }
        owned
    }

    fn changed(&self) {
        self.changes.send_modify(|count| *count += 1);
    }

    /// Revokes an "always" grant of `server`: the one of `tool`, or with `None` the whole-server one. Gone from
    /// memory at once; `mcp.json` is changed as for a grant.
    pub fn revoke(&self, server: &str, tool: Option<&str>) -> Result<(), RevokeError> {
        {
            let mut registry = self.lock();
            let Some(entry) = registry.entry(server) else {
                return Err(RevokeError::UnknownServer(server.to_owned()));
            };
            match tool {
                Some(tool) => {
                    entry.config.always_allow.remove(tool);
                }
                None => entry.config.always_allow_server = false,
            }
        }
        self.changed();
        let revoke = match tool {
            Some(tool) => GrantWrite::RevokeTool {
                tool: tool.to_owned(),
            },
            None => GrantWrite::RevokeServer,
        };
        self.write_grant(server, &revoke)
            .map_err(RevokeError::NotKept)
    }

    /// Keeps `grant` in the server's entry of `mcp.json` (through `config_file`, so only that entry's grant
    /// changes and the edit never interleaves with the settings' edits).
    fn write_grant(&self, server: &str, grant: &GrantWrite) -> Result<(), String> {
        let Some(path) = &self.config_file else {
            return Ok(());
        };
        config_file::edit_entry(path, server, |entry| match grant {
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
        })
        .map_err(|error| error.to_string())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Why a server could not be restarted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum McpRestartError {
    /// No such server in `mcp.json`.
    #[error("there is no MCP server \"{0}\"")]
    UnknownServer(String),
    /// It is disabled.
    #[error("the MCP server \"{0}\" is disabled; enable it to start it")]
    Disabled(String),
}

/// `path`'s servers and the problems of its entries; a missing file is no servers.
fn read_config(path: &Path) -> Result<(McpConfig, Vec<String>), McpReloadError> {
    match std::fs::read_to_string(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Ok((McpConfig::default(), Vec::new()))
        }
        Err(error) => Err(McpReloadError::Unusable(format!(
            "{} cannot be read: {error}",
            path.display()
        ))),
        Ok(text) => match parse_mcp_config(&text) {
            Ok((config, problems)) => {
                Ok((config, problems.iter().map(ToString::to_string).collect()))
            }
            Err(error) => Err(McpReloadError::Unusable(error.to_string())),
        },
    }
}

/// True when `new` starts the same server as `old` (same transport and enabled state): grants, timeouts and
/// disabled tools change without a restart.
fn same_launch(old: &McpServerConfig, new: &McpServerConfig) -> bool {
    old.transport == new.transport
        && old.disabled == new.disabled
        && old.start_timeout == new.start_timeout
        && old.call_timeout == new.call_timeout
        && old.total_timeout == new.total_timeout
}

/// The parts of a launch, values replaced by where they are kept.
fn launch_view(transport: &McpTransport) -> McpLaunchView {
    let values = |values: &std::collections::BTreeMap<String, ConfigValue>| {
        values
            .iter()
            .map(|(name, value)| McpValueView {
                name: name.clone(),
                in_keychain: matches!(value, ConfigValue::Keychain { .. }),
            })
            .collect()
    };
    match transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => McpLaunchView::Stdio {
            command: command.clone(),
            args: args.clone(),
            cwd: cwd.as_ref().map(|cwd| cwd.display().to_string()),
            env: values(env),
        },
        McpTransport::Http { url, headers } => McpLaunchView::Http {
            url: url.clone(),
            headers: values(headers),
        },
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
        self.lock().entries.iter().any(|entry| {
            entry.config.name == tool.server
                && (entry.config.always_allow.get(&tool.tool) == Some(&tool.definition)
                    || (entry.config.always_allow_server && !tool.destructive_claim))
        })
    }

    fn grant_always(&self, tool: &McpToolRef, whole_server: bool) {
        let grant = {
            let mut registry = self.lock();
            let Some(entry) = registry.entry(&tool.server) else {
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
        self.changed();
        if let Err(reason) = self.write_grant(&tool.server, &grant) {
            tracing::warn!(target: "desktop_host::mcp", server = %tool.server, %reason, "the grant holds until the app quits; mcp.json could not keep it");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configured_server_shows_as_starting_and_a_disabled_one_as_disabled() {
        let mut off = McpServerConfig::stdio("off", "node", Vec::new());
        off.disabled = true;
        let servers = McpServers::from_config(
            McpConfig {
                servers: vec![McpServerConfig::stdio("on", "node", Vec::new()), off],
            },
            vec!["MCP server \"x\": needs \"command\"".to_owned()],
            Arc::new(crate::mcp::NoSecrets),
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
