//! The tools of a run — the desktop tools and those of the ready MCP servers — and the approval a call passes
//! before it runs (`before_tool_call`; see the `approval` module for the rules): every MCP call, and every
//! desktop tool call while the setting `askBeforeBuiltInTools` is on.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use pi_agent::{
    BeforeToolCallContext, BeforeToolCallFn, BeforeToolCallResult, HookError, SharedAgentTool,
    WeakAgent,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::approval::{
    AlwaysGrants, ApprovalDecision, ApprovalOutcome, ApprovalTool, Approvals, ConversationGrants,
    ConversationGrantsError, WITHDRAWN_MESSAGE, denial_message,
};
use crate::desktop_tools::{DesktopToolContext, desktop_agent_tools};
use crate::mcp::{McpServers, mcp_agent_tools};
use crate::store::{ConversationId, ConversationRecorder, Store};
use crate::wire::{ForwardItem, HostNotice};

/// The longest a run waits for MCP servers that are still starting.
const SERVERS_STARTING_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// What a session's runs use beside the model: the servers, the approvals, and which tool is whose.
pub(crate) struct RunTools {
    mcp: Option<Arc<McpServers>>,
    approvals: Arc<Approvals>,
    /// Model name → the tool approval sees, for the tools of the latest run.
    tools_by_name: Arc<Mutex<HashMap<String, ApprovalTool>>>,
    /// The setting `askBeforeBuiltInTools`: desktop tool calls ask too.
    ask_before_built_in_tools: Arc<AtomicBool>,
    /// The model takes images (MCP image results go to it); set from the settings.
    model_takes_images: AtomicBool,
    /// The agent, once made (a denied-and-stopped call ends its run).
    agent: Arc<OnceLock<WeakAgent>>,
}

impl RunTools {
    /// Tools over `mcp`'s servers, with "in this conversation" grants kept in `conversation_grants`.
    pub(crate) fn new(
        mcp: Option<Arc<McpServers>>,
        conversation_grants: Option<Arc<dyn ConversationGrants>>,
        ask_before_built_in_tools: bool,
    ) -> RunTools {
        let always = mcp
            .as_ref()
            .map(|mcp| Arc::clone(mcp) as Arc<dyn AlwaysGrants>);
        RunTools {
            mcp,
            approvals: Arc::new(Approvals::new(always, conversation_grants)),
            tools_by_name: Arc::default(),
            ask_before_built_in_tools: Arc::new(AtomicBool::new(ask_before_built_in_tools)),
            model_takes_images: AtomicBool::new(true),
            agent: Arc::default(),
        }
    }

    /// Whether the model takes images: an MCP tool's image reaches it, or a placeholder line says one was left out.
    pub(crate) fn set_model_takes_images(&self, takes_images: bool) {
        self.model_takes_images
            .store(takes_images, Ordering::Relaxed);
    }

    /// Applies the setting `askBeforeBuiltInTools`; calls prepared from now on follow it.
    pub(crate) fn set_ask_before_built_in_tools(&self, ask: bool) {
        self.ask_before_built_in_tools.store(ask, Ordering::Relaxed);
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
        let mut by_name: HashMap<String, ApprovalTool> = tools
            .iter()
            .map(|tool| {
                let name = tool.name().to_owned();
                (name.clone(), ApprovalTool::BuiltIn { name })
            })
            .collect();
        if let Some(mcp) = &self.mcp {
            let built_in: Vec<String> = tools.iter().map(|tool| tool.name().to_owned()).collect();
            let taken: Vec<&str> = built_in.iter().map(String::as_str).collect();
            let from_servers = mcp_agent_tools(
                &mcp.ready(),
                &taken,
                self.model_takes_images.load(Ordering::Relaxed),
            );
            by_name.extend(from_servers.iter().map(|tool| {
                (
                    pi_agent::AgentTool::name(tool.as_ref()).to_owned(),
                    ApprovalTool::Mcp(tool.approval_ref()),
                )
            }));
            tools.extend(from_servers.into_iter().map(|tool| tool as SharedAgentTool));
        }
        *self
            .tools_by_name
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = by_name;
        tools
    }

    /// The `before_tool_call` hook: asks the user about the calls no grant covers (MCP calls, and desktop tool
    /// calls while `askBeforeBuiltInTools` is on).
    pub(crate) fn before_tool_call(
        &self,
        forward_tx: mpsc::Sender<ForwardItem>,
    ) -> BeforeToolCallFn {
        let approvals = Arc::clone(&self.approvals);
        let tools_by_name = Arc::clone(&self.tools_by_name);
        let ask_before_built_in_tools = Arc::clone(&self.ask_before_built_in_tools);
        let agent = Arc::clone(&self.agent);
        Arc::new(
            move |context: BeforeToolCallContext, cancel: CancellationToken| {
                let tool = tools_by_name
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(&context.tool_call.name)
                    .cloned()
                    .filter(|tool| match tool {
                        ApprovalTool::BuiltIn { .. } => {
                            ask_before_built_in_tools.load(Ordering::Relaxed)
                        }
                        ApprovalTool::Mcp(_) => true,
                    });
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

/// "In this conversation" grants go where the recorder saves the conversation; a session without one keeps them in
/// memory only.
pub(crate) fn conversation_grants(
    recorder: Option<&Arc<Mutex<ConversationRecorder>>>,
) -> Option<Arc<dyn ConversationGrants>> {
    let recorder = recorder?.lock().unwrap_or_else(PoisonError::into_inner);
    Some(Arc::new(StoredConversationGrants {
        store: recorder.store().clone(),
        conversation_id: recorder.conversation_id().clone(),
    }))
}

/// "In this conversation" grants kept in the conversation database, for the one conversation a session records.
struct StoredConversationGrants {
    store: Store,
    conversation_id: ConversationId,
}

impl ConversationGrants for StoredConversationGrants {
    fn kept(&self) -> Result<Vec<(String, String)>, ConversationGrantsError> {
        Ok(self
            .store
            .conversation_grants(&self.conversation_id)?
            .into_iter()
            .map(|grant| (grant.server, grant.tool))
            .collect())
    }

    fn keep(&self, server: &str, tool: &str) -> Result<(), ConversationGrantsError> {
        Ok(self
            .store
            .grant_in_conversation(&self.conversation_id, server, tool)?)
    }
}
