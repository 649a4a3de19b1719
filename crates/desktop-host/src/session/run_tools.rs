//! The tools of a run — the desktop tools and those of the ready MCP servers — and the approval every MCP call
//! passes before it runs (`before_tool_call`; see the `approval` module for the rules).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use pi_agent::{
    BeforeToolCallContext, BeforeToolCallFn, BeforeToolCallResult, HookError, SharedAgentTool,
    WeakAgent,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::approval::{
    ApprovalDecision, ApprovalOutcome, Approvals, McpToolRef, WITHDRAWN_MESSAGE, denial_message,
};
use crate::desktop_tools::{DesktopToolContext, desktop_agent_tools};
use crate::mcp::{McpServers, mcp_agent_tools};
use crate::wire::{ForwardItem, HostNotice};

/// The longest a run waits for MCP servers that are still starting.
const SERVERS_STARTING_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// What a session's runs use beside the model: the servers, the approvals, and which tool is whose.
pub(crate) struct RunTools {
    mcp: Option<Arc<McpServers>>,
    approvals: Arc<Approvals>,
    /// Model name → the MCP tool it is, for the tools of the latest run.
    mcp_tools: Arc<Mutex<HashMap<String, McpToolRef>>>,
    /// The agent, once made (a denied-and-stopped call ends its run).
    agent: Arc<OnceLock<WeakAgent>>,
}

impl RunTools {
    pub(crate) fn new(mcp: Option<Arc<McpServers>>) -> RunTools {
        let approvals = match &mcp {
            Some(mcp) => Arc::new(Approvals::with_always(
                Arc::clone(mcp) as Arc<dyn crate::approval::AlwaysGrants>
            )),
            None => Arc::default(),
        };
        RunTools {
            mcp,
            approvals,
            mcp_tools: Arc::default(),
            agent: Arc::default(),
        }
    }

    /// The approvals of this session.
    pub(crate) fn approvals(&self) -> &Approvals {
        &self.approvals
    }

    /// Tells the hook which agent it serves.
    pub(crate) fn bind(&self, agent: WeakAgent) {
        let _ = self.agent.set(agent);
    }

    /// Waits (briefly) for MCP servers still starting, so a first run right after the app started gets them.
    pub(crate) async fn servers_started(&self) {
        if let Some(mcp) = &self.mcp {
            mcp.wait_started(SERVERS_STARTING_WAIT).await;
        }
    }

    /// The desktop tools, then every ready MCP server's (named `<server>__<tool>`).
    pub(crate) fn tools(&self, context: &DesktopToolContext) -> Vec<SharedAgentTool> {
        let mut tools = desktop_agent_tools(context);
        let Some(mcp) = &self.mcp else {
            return tools;
        };
        let built_in: Vec<String> = tools.iter().map(|tool| tool.name().to_owned()).collect();
        let taken: Vec<&str> = built_in.iter().map(String::as_str).collect();
        let from_servers = mcp_agent_tools(&mcp.ready(), &taken, true);
        let refs = from_servers
            .iter()
            .map(|tool| {
                (
                    pi_agent::AgentTool::name(tool.as_ref()).to_owned(),
                    tool.approval_ref(),
                )
            })
            .collect();
        *self
            .mcp_tools
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = refs;
        tools.extend(from_servers.into_iter().map(|tool| tool as SharedAgentTool));
        tools
    }

    /// The `before_tool_call` hook: asks the user about MCP calls no grant covers.
    pub(crate) fn before_tool_call(
        &self,
        forward_tx: mpsc::Sender<ForwardItem>,
    ) -> BeforeToolCallFn {
        let approvals = Arc::clone(&self.approvals);
        let mcp_tools = Arc::clone(&self.mcp_tools);
        let agent = Arc::clone(&self.agent);
        Arc::new(
            move |context: BeforeToolCallContext, cancel: CancellationToken| {
                let tool = mcp_tools
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(&context.tool_call.name)
                    .cloned();
                let approvals = Arc::clone(&approvals);
                let forward_tx = forward_tx.clone();
                let agent = Arc::clone(&agent);
                Box::pin(async move {
                    let Some(tool) = tool else {
                        return Ok(None);
                    };
                    if approvals.granted(&tool) {
                        return Ok(None);
                    }
                    let (request, answer) =
                        approvals.ask(&context.tool_call.id, &tool, &context.args);
                    let (request_id, tool_call_id) =
                        (request.request_id, request.tool_call_id.clone());
                    let _ = forward_tx
                        .send(ForwardItem::Notice(HostNotice::ApprovalRequested(request)))
                        .await;
                    let decision = tokio::select! {
                        answer = answer => answer.ok(),
                        () = cancel.cancelled() => None,
                    };
                    let resolved = |outcome| {
                        ForwardItem::Notice(HostNotice::ApprovalResolved {
                            request_id,
                            tool_call_id: tool_call_id.clone(),
                            outcome,
                        })
                    };
                    let Some(decision) = decision else {
                        approvals.withdraw(request_id);
                        let _ = forward_tx.send(resolved(ApprovalOutcome::Withdrawn)).await;
                        return Ok(Some(blocked(WITHDRAWN_MESSAGE.to_owned())));
                    };
                    match decision {
                        ApprovalDecision::Deny { note } => {
                            let _ = forward_tx.send(resolved(ApprovalOutcome::Denied)).await;
                            Ok(Some(blocked(denial_message(&tool, note.as_deref()))))
                        }
                        ApprovalDecision::DenyAndStop { note } => {
                            let _ = forward_tx.send(resolved(ApprovalOutcome::Denied)).await;
                            if let Some(agent) = agent.get().and_then(WeakAgent::upgrade) {
                                agent.abort();
                            }
                            Ok(Some(blocked(denial_message(&tool, note.as_deref()))))
                        }
                        allowed => {
                            approvals.record(&tool, &allowed);
                            let _ = forward_tx.send(resolved(ApprovalOutcome::Allowed)).await;
                            Ok::<_, HookError>(None)
                        }
                    }
                })
            },
        )
    }
}

fn blocked(reason: String) -> BeforeToolCallResult {
    BeforeToolCallResult {
        block: true,
        reason: Some(reason),
        ..BeforeToolCallResult::default()
    }
}
