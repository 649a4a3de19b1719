//! [`RmcpClient`]: an [`McpClient`] over the official Rust SDK (rmcp), for stdio and streamable HTTP servers.
//! The SDK stays in this file: its types change between majors, the rest of the app sees only [`McpClient`].
//!
//! Contract: the connection is owned by a task of its own that waits for it to end, so a server that dies is
//! seen at once ([`RmcpClient::ended`]): calls in flight fail with its last output and later calls fail fast.
//! `tools/list_changed` re-lists the tools. Dropping the client ends the connection and, for stdio, the server's
//! whole process group.

use std::collections::HashMap;
use std::collections::VecDeque;
use std::future::Future;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::future::BoxFuture;
use pi_agent::{AgentToolResult, ToolUpdateSink};
use process_wrap::tokio::{CommandWrap, ProcessGroup};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientConfig,
    ClientRequest, Implementation, ProgressNotificationParam, ProgressToken, ServerResult, Tool,
};
use rmcp::service::{
    MaybeSendFuture, NotificationContext, Peer, PeerRequestOptions, QuitReason, RunningService,
    ServiceError, ServiceExt,
};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Map, Value, json};
use tokio::io::AsyncBufReadExt;
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use crate::mcp::client::{McpClient, McpError, McpToolInfo};
use crate::mcp::config::{McpServerConfig, McpTransport};
use crate::mcp::environment::{resolve_command, server_environment};
use crate::mcp::secret_values::{McpSecrets, resolve_values};

/// Lines of a server's stderr kept for the UI.
const STDERR_TAIL_LINES: usize = 40;

/// How long a server that failed to start may take to finish its stderr.
const STDERR_DRAIN: Duration = Duration::from_secs(1);

/// A connected server. Dropping it ends the connection (and a stdio server's whole process group).
pub struct RmcpClient {
    name: String,
    peer: Peer<RoleClient>,
    tools: Arc<Mutex<Vec<McpToolInfo>>>,
    routes: ProgressRoutes,
    stderr: StderrTail,
    call_timeout: Duration,
    total_timeout: Duration,
    /// Ends the connection.
    stop: CancellationToken,
    /// `Some(why)` once the connection ended.
    ended: watch::Receiver<Option<String>>,
    /// Moves whenever the tools were re-listed.
    relisted: watch::Receiver<u64>,
}

impl RmcpClient {
    /// Connects to the server of `config` (starting it, for stdio), completes the handshake and lists its tools.
    /// `{"keychain": NAME}` values are looked up in `secrets`.
    pub async fn start(
        config: &McpServerConfig,
        secrets: &dyn McpSecrets,
    ) -> Result<RmcpClient, McpError> {
        let name = config.name.clone();
        let routes = ProgressRoutes::default();
        let relist = Arc::new(Notify::new());
        let handler = Handler {
            routes: routes.clone(),
            relist: Arc::clone(&relist),
        };
        let tail = StderrTail::default();
        let (service, mut reader) = match &config.transport {
            McpTransport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let (own_env, masked) = resolve_values(&name, "env", env, secrets)?;
                // The server's own values (tokens among them) never reach the log or a message, even when it
                // prints them.
                let secrets: Vec<String> = own_env
                    .values()
                    .filter(|value| value.len() >= 6)
                    .cloned()
                    .chain(masked)
                    .collect();
                // Asking the login shell for its PATH and searching it block: off the async workers.
                let (wanted, folder) = (command.clone(), cwd.clone());
                let (env, program) = tokio::task::spawn_blocking(move || {
                    let env = server_environment(&own_env);
                    let program = resolve_command(&wanted, env.get("PATH"), folder.as_deref());
                    (env, program)
                })
                .await
                .map_err(|error| McpError::Spawn {
                    server: name.clone(),
                    command: command.clone(),
                    source: std::io::Error::other(error.to_string()),
                })?;
                let program = program.map_err(|hint| McpError::CommandNotFound {
                    server: name.clone(),
                    command: command.clone(),
                    hint,
                })?;
                let mut process = tokio::process::Command::new(program);
                process.args(args).env_clear().envs(env);
                if let Some(cwd) = cwd {
                    process.current_dir(cwd);
                }
                let mut wrapped = CommandWrap::from(process);
                wrapped.wrap(ProcessGroup::leader());
                let (transport, stderr) = TokioChildProcess::builder(wrapped)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|source| McpError::Spawn {
                        server: name.clone(),
                        command: command.clone(),
                        source,
                    })?;
                let reader = stderr.map(|stderr| tail.follow(name.clone(), stderr, secrets));
                (
                    connect(handler, transport, &name, config.start_timeout).await,
                    reader,
                )
            }
            McpTransport::Http { url, headers } => {
                let (headers, _) = resolve_values(&name, "headers", headers, secrets)?;
                let transport = http_transport(&name, url, &headers)?;
                (
                    connect(handler, transport, &name, config.start_timeout).await,
                    None,
                )
            }
        };
        let (service, listed) = match service {
            Ok(started) => started,
            Err(reason) => {
                // A server that failed to start usually said why on stderr as it exited: read it to the end.
                if let Some(reader) = reader.as_mut() {
                    let _ = tokio::time::timeout(STDERR_DRAIN, reader).await;
                }
                return Err(McpError::Handshake {
                    server: name,
                    reason,
                    stderr: tail.as_suffix(),
                });
            }
        };
        let peer = service.peer().clone();
        let tools = Arc::new(Mutex::new(listed.iter().map(tool_info).collect()));
        let stop = CancellationToken::new();
        let (ended_tx, ended) = watch::channel(None);
        let (relisted_tx, relisted) = watch::channel(0);
        tokio::spawn(own_connection(service, stop.clone(), ended_tx));
        tokio::spawn(relist_on_change(
            peer.clone(),
            relist,
            Arc::clone(&tools),
            ended.clone(),
            relisted_tx,
            name.clone(),
        ));
        Ok(RmcpClient {
            name,
            peer,
            tools,
            routes,
            stderr: tail,
            call_timeout: config.call_timeout,
            total_timeout: config.total_timeout,
            stop,
            ended,
            relisted,
        })
    }

    /// A counter that moves whenever the server's tools were re-listed (after `tools/list_changed`).
    pub fn relisted(&self) -> watch::Receiver<u64> {
        self.relisted.clone()
    }

    /// The last lines the server wrote to stderr.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr.lines()
    }

    /// Resolves with why the connection ended (the server exited or crashed, or [`RmcpClient::shutdown`]).
    pub fn ended(&self) -> impl Future<Output = String> + Send + 'static {
        let mut ended = self.ended.clone();
        async move {
            match ended.wait_for(Option::is_some).await {
                Ok(reason) => reason.clone().unwrap_or_default(),
                Err(_) => "the connection ended".to_owned(),
            }
        }
    }

    /// Ends the connection (and a stdio server's process group) and waits until it ended.
    pub async fn shutdown(&self) {
        self.stop.cancel();
        let _ = self.ended().await;
    }

    async fn call_tool(
        &self,
        tool: &str,
        arguments: Value,
        progress: ToolUpdateSink,
        cancel: CancellationToken,
    ) -> Result<Value, McpError> {
        if let Some(reason) = self.ended.borrow().clone() {
            return Err(self.closed_because(reason));
        }
        let arguments = match arguments {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(McpError::Refused {
                    server: self.name.clone(),
                    tool: tool.to_owned(),
                    message: format!("the arguments must be a JSON object, not {other}"),
                });
            }
        };
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(
            CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments),
        ));
        let options = PeerRequestOptions::with_timeout(self.call_timeout)
            .reset_timeout_on_progress()
            .with_max_total_timeout(self.total_timeout);
        let handle = self
            .peer
            .send_request_with_option(request, options)
            .await
            .map_err(|error| self.closed(error))?;
        let request_id = handle.id.clone();
        let _route = self.routes.route(handle.progress_token.clone(), progress);
        tokio::select! {
            response = handle.await_response() => match response {
                Ok(ServerResult::CallToolResult(result)) => serde_json::to_value(result).map_err(|error| {
                    McpError::Refused { server: self.name.clone(), tool: tool.to_owned(), message: error.to_string() }
                }),
                Ok(_) => Err(McpError::Refused {
                    server: self.name.clone(),
                    tool: tool.to_owned(),
                    message: "it answered with something other than a tool result".to_owned(),
                }),
                Err(ServiceError::Timeout { timeout }) => Err(McpError::Timeout {
                    server: self.name.clone(),
                    tool: tool.to_owned(),
                    reason: format!("{} s without an answer or progress", timeout.as_secs()),
                }),
                Err(ServiceError::McpError(error)) => Err(McpError::Refused {
                    server: self.name.clone(),
                    tool: tool.to_owned(),
                    message: error.message.to_string(),
                }),
                Err(error) => Err(self.closed(error)),
            },
            reason = self.ended() => Err(self.closed_because(reason)),
            () = cancel.cancelled() => {
                let notice = CancelledNotificationParam::new(Some(request_id), Some("stopped by the user".to_owned()));
                let _ = self.peer.notify_cancelled(notice).await;
                Err(McpError::Cancelled)
            }
        }
    }

    fn closed(&self, error: ServiceError) -> McpError {
        self.closed_because(error.to_string())
    }

    fn closed_because(&self, reason: String) -> McpError {
        McpError::Closed {
            server: self.name.clone(),
            reason: format!("{reason}{}", self.stderr.as_suffix()),
        }
    }
}

impl Drop for RmcpClient {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl McpClient for RmcpClient {
    fn server_name(&self) -> &str {
        &self.name
    }

    fn tools(&self) -> Vec<McpToolInfo> {
        self.tools
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn call<'a>(
        &'a self,
        tool: &'a str,
        arguments: Value,
        progress: ToolUpdateSink,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<Value, McpError>> {
        Box::pin(self.call_tool(tool, arguments, progress, cancel))
    }
}

/// The handshake over `transport` and the first tool list, within `limit`; the error is safe to show.
async fn connect<T, E, A>(
    handler: Handler,
    transport: T,
    server: &str,
    limit: Duration,
) -> Result<(RunningService<RoleClient, Handler>, Vec<Tool>), String>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let started = async {
        let service = handler
            .serve(transport)
            .await
            .map_err(|error| error.to_string())?;
        let listed = service
            .peer()
            .list_all_tools()
            .await
            .map_err(|error| format!("listing its tools failed: {error}"))?;
        Ok::<_, String>((service, listed))
    };
    tokio::time::timeout(limit, started)
        .await
        .unwrap_or_else(|_| {
            tracing::warn!(target: "desktop_host::mcp", %server, "no answer to the handshake");
            Err(format!("no answer within {} s", limit.as_secs()))
        })
}

/// A streamable HTTP transport to `url` sending `headers` with every request.
fn http_transport(
    server: &str,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, McpError> {
    // reqwest is built without a TLS provider of its own; ring (already in the tree) serves every HTTPS client.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let invalid = |name: &str, reason: String| McpError::Handshake {
        server: server.to_owned(),
        reason: format!("the header \"{name}\" cannot be sent: {reason}"),
        stderr: String::new(),
    };
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let header = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|error| invalid(name, error.to_string()))?;
        let mut value = http::HeaderValue::from_str(value).map_err(|_| {
            invalid(
                name,
                "the value has characters a header cannot hold".to_owned(),
            )
        })?;
        value.set_sensitive(true);
        custom.insert(header, value);
    }
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .map_err(|error| McpError::Handshake {
            server: server.to_owned(),
            reason: format!("no HTTP client: {error}"),
            stderr: String::new(),
        })?;
    Ok(StreamableHttpClientTransport::with_client(client, config))
}

/// Owns the connection until it ends by itself or `stop` fires, then says why on `ended`.
async fn own_connection(
    service: RunningService<RoleClient, Handler>,
    stop: CancellationToken,
    ended: watch::Sender<Option<String>>,
) {
    let token = service.cancellation_token();
    let waiting = service.waiting();
    tokio::pin!(waiting);
    let reason = tokio::select! {
        quit = &mut waiting => match quit {
            Ok(QuitReason::Cancelled) => "the connection was closed".to_owned(),
            Ok(QuitReason::JoinError(error)) | Err(error) => format!("the connection failed: {error}"),
            Ok(_) => "the server closed the connection (it exited or crashed)".to_owned(),
        },
        () = stop.cancelled() => {
            token.cancel();
            let _ = waiting.await;
            "stopped by Pi Desktop".to_owned()
        }
    };
    ended.send_replace(Some(reason));
}

/// Re-lists the tools whenever the server says they changed, until the connection ends.
async fn relist_on_change(
    peer: Peer<RoleClient>,
    changed: Arc<Notify>,
    tools: Arc<Mutex<Vec<McpToolInfo>>>,
    mut ended: watch::Receiver<Option<String>>,
    relisted: watch::Sender<u64>,
    server: String,
) {
    loop {
        tokio::select! {
            () = changed.notified() => {}
            _ = ended.wait_for(Option::is_some) => return,
        }
        match peer.list_all_tools().await {
            Ok(listed) => {
                let listed: Vec<McpToolInfo> = listed.iter().map(tool_info).collect();
                tracing::info!(target: "desktop_host::mcp", %server, tools = listed.len(), "tools re-listed");
                *tools.lock().unwrap_or_else(PoisonError::into_inner) = listed;
                relisted.send_modify(|count| *count += 1);
            }
            Err(error) => {
                tracing::warn!(target: "desktop_host::mcp", %server, %error, "re-listing tools failed");
            }
        }
    }
}

/// A listed tool as the app keeps it.
fn tool_info(tool: &Tool) -> McpToolInfo {
    let annotations = tool.annotations.as_ref();
    McpToolInfo {
        name: tool.name.to_string(),
        description: tool.description.as_deref().unwrap_or_default().to_owned(),
        input_schema: Value::Object(tool.input_schema.as_ref().clone()),
        read_only_hint: annotations.and_then(|a| a.read_only_hint).unwrap_or(false),
        destructive_hint: annotations
            .and_then(|a| a.destructive_hint)
            .unwrap_or(false),
    }
}

/// Receives the server's notifications; declares no client capabilities (no sampling, elicitation, roots).
struct Handler {
    routes: ProgressRoutes,
    relist: Arc<Notify>,
}

impl ClientHandler for Handler {
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        // Several notices in a row re-list once.
        self.relist.notify_one();
        std::future::ready(())
    }

    fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.routes.report(&params);
        std::future::ready(())
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            Default::default(),
            Implementation::new("pi-desktop", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// Which running call a progress token belongs to.
#[derive(Clone, Default)]
struct ProgressRoutes(Arc<Mutex<HashMap<ProgressToken, ToolUpdateSink>>>);

impl ProgressRoutes {
    /// Sends `token`'s progress to `sink` until the returned guard drops (then later progress is dropped).
    fn route(&self, token: ProgressToken, sink: ToolUpdateSink) -> RouteGuard {
        self.lock().insert(token.clone(), sink);
        RouteGuard {
            routes: self.clone(),
            token,
        }
    }

    fn report(&self, params: &ProgressNotificationParam) {
        let sink = self.lock().get(&params.progress_token).cloned();
        if let Some(sink) = sink {
            sink.send(progress_update(params));
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ProgressToken, ToolUpdateSink>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

struct RouteGuard {
    routes: ProgressRoutes,
    token: ProgressToken,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.routes.lock().remove(&self.token);
    }
}

/// A progress notification as the tool card's progress: its message (or "n of total"), and the numbers.
fn progress_update(params: &ProgressNotificationParam) -> AgentToolResult {
    let text = match (&params.message, params.total) {
        (Some(message), _) => message.clone(),
        (None, Some(total)) => format!("{} of {}", params.progress, total),
        (None, None) => format!("{}", params.progress),
    };
    AgentToolResult::text(
        text,
        json!({"progress": params.progress, "total": params.total, "message": params.message}),
    )
}

/// The last lines of a server's stderr.
#[derive(Clone, Default)]
struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    /// Reads `stderr` line by line on a task of its own, with `secrets` masked: into the tail, and into the log.
    /// The task ends at the end of the stream.
    fn follow(
        &self,
        server: String,
        stderr: tokio::process::ChildStderr,
        secrets: Vec<String>,
    ) -> tokio::task::JoinHandle<()> {
        let tail = self.clone();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(mut line)) = lines.next_line().await {
                for secret in &secrets {
                    line = line.replace(secret.as_str(), "***");
                }
                tracing::debug!(target: "desktop_host::mcp", %server, "stderr: {line}");
                let mut kept = tail.0.lock().unwrap_or_else(PoisonError::into_inner);
                if kept.len() == STDERR_TAIL_LINES {
                    kept.pop_front();
                }
                kept.push_back(line);
            }
        })
    }

    fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }

    /// The last few lines after a separator, for an error message; empty when there are none.
    fn as_suffix(&self) -> String {
        let lines = self.lines();
        let last: Vec<&String> = lines.iter().rev().take(5).rev().collect();
        if last.is_empty() {
            String::new()
        } else {
            format!(
                " — its last output: {}",
                last.iter()
                    .map(|line| line.as_str())
                    .collect::<Vec<_>>()
                    .join(" | ")
            )
        }
    }
}
