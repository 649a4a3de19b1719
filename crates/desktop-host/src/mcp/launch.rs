//! [`RmcpClient`]: an [`McpClient`] over the official Rust SDK (rmcp), for stdio servers. The SDK stays in this
//! file: its types change between majors, the rest of the app sees only [`McpClient`].

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
    ClientRequest, Implementation, ProgressNotificationParam, ProgressToken, ServerResult,
};
use rmcp::service::{
    MaybeSendFuture, NotificationContext, PeerRequestOptions, RunningService, ServiceError,
    ServiceExt,
};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Map, Value, json};
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use crate::mcp::client::{McpClient, McpError, McpToolInfo};
use crate::mcp::config::{McpServerConfig, McpTransport};
use crate::mcp::environment::{resolve_command, server_environment};

/// How long a server may take from start to its tool list.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Lines of a server's stderr kept for the UI.
const STDERR_TAIL_LINES: usize = 40;

/// How long a server that failed to start may take to finish its stderr.
const STDERR_DRAIN: Duration = Duration::from_secs(1);

/// A connected stdio server. Dropping it ends the server's whole process group.
pub struct RmcpClient {
    name: String,
    service: RunningService<RoleClient, Handler>,
    tools: Vec<McpToolInfo>,
    routes: ProgressRoutes,
    stderr: StderrTail,
    call_timeout: Duration,
    total_timeout: Duration,
}

impl RmcpClient {
    /// Starts the server of `config`, completes the handshake and lists its tools.
    pub async fn start(config: &McpServerConfig) -> Result<RmcpClient, McpError> {
        let name = config.name.clone();
        let McpTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } = &config.transport
        else {
            return Err(McpError::Unsupported {
                server: name,
                transport: "streamable HTTP",
            });
        };
        // The server's own values (tokens among them) never reach the log or a message, even when it prints them.
        let secrets: Vec<String> = env
            .values()
            .filter(|value| value.len() >= 6)
            .cloned()
            .collect();
        // Asking the login shell for its PATH and searching it block: off the async workers.
        let (own_env, wanted, folder) = (env.clone(), command.clone(), cwd.clone());
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
        let tail = StderrTail::default();
        let mut reader = stderr.map(|stderr| tail.follow(name.clone(), stderr, secrets));
        let routes = ProgressRoutes::default();
        let handler = Handler {
            routes: routes.clone(),
        };
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
        let outcome = tokio::time::timeout(START_TIMEOUT, started)
            .await
            .unwrap_or_else(|_| Err(format!("no answer within {} s", START_TIMEOUT.as_secs())));
        let (service, listed) = match outcome {
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
        let tools = listed
            .into_iter()
            .filter(|tool| {
                !config
                    .disabled_tools
                    .iter()
                    .any(|off| off == tool.name.as_ref())
            })
            .map(|tool| {
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
            })
            .collect();
        Ok(RmcpClient {
            name,
            service,
            tools,
            routes,
            stderr: tail,
            call_timeout: config.call_timeout,
            total_timeout: config.total_timeout,
        })
    }

    /// The last lines the server wrote to stderr.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr.lines()
    }

    /// Ends the connection and the server's process group.
    pub async fn shutdown(self) {
        let _ = self.service.cancel().await;
    }

    async fn call_tool(
        &self,
        tool: &str,
        arguments: Value,
        progress: ToolUpdateSink,
        cancel: CancellationToken,
    ) -> Result<Value, McpError> {
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
        let peer = self.service.peer();
        let handle = peer
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
            () = cancel.cancelled() => {
                let notice = CancelledNotificationParam::new(Some(request_id), Some("stopped by the user".to_owned()));
                let _ = peer.notify_cancelled(notice).await;
                Err(McpError::Cancelled)
            }
        }
    }

    fn closed(&self, error: ServiceError) -> McpError {
        McpError::Closed {
            server: self.name.clone(),
            reason: format!("{error}{}", self.stderr.as_suffix()),
        }
    }
}

impl McpClient for RmcpClient {
    fn server_name(&self) -> &str {
        &self.name
    }

    fn tools(&self) -> &[McpToolInfo] {
        &self.tools
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

/// Receives the server's notifications; declares no client capabilities (no sampling, elicitation, roots).
struct Handler {
    routes: ProgressRoutes,
}

impl ClientHandler for Handler {
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
