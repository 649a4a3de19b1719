//! Tool approval: which calls ask the user first, the question as a host notice, the user's answer, and the
//! grants an answer leaves.
//!
//! Contracts:
//! - A tool of an MCP server asks unless a grant covers it, whatever its annotations claim (they are shown as the
//!   server's claim, never trusted). Built-in desktop tools (read-only) run without asking, unless the setting
//!   `askBeforeBuiltInTools` is on; then each of their calls asks too, offering only "allow once", "allow in this
//!   conversation", "deny" and "deny and stop" ([`ApprovalRequest::offered`] says which answers a question takes).
//! - A question is an `approval_requested` notice on the run's stream; the answer comes through
//!   [`Approvals::resolve`]; an `approval_resolved` notice follows either way. Calls of one batch ask one after
//!   another, in order (the loop prepares them in order).
//! - Stop while a question waits withdraws it: the call is not run, nothing is granted.
//! - "Always" grants are kept by an [`AlwaysGrants`] store (the app's `mcp.json`), a tool's pinned to a hash of
//!   its definition so a changed tool asks again. "In this conversation" grants are kept by a
//!   [`ConversationGrants`] store (the conversation database): loaded when the session opens its conversation,
//!   written through when granted. A write that fails is logged and the grant still holds for the running session.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;
use ts_rs::TS;

use crate::store::BUILT_IN_SERVER;

/// What the user answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "decision", rename_all = "snake_case")]
#[ts(export)]
pub enum ApprovalDecision {
    /// Run this call.
    AllowOnce,
    /// Run it, and every call of this tool in this conversation.
    AllowConversation,
    /// Run it, and every call of this tool from now on.
    AllowToolAlways,
    /// Run it, and every call of any tool of this server from now on.
    AllowServerAlways,
    /// Do not run it; the model gets the refusal (with the note, if any) and the run goes on.
    Deny {
        /// What the model is told beside the refusal.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        note: Option<String>,
    },
    /// Do not run it, and end the run.
    DenyAndStop {
        /// What the model is told beside the refusal.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        note: Option<String>,
    },
}

impl ApprovalDecision {
    /// Which of the offered answers this is.
    pub fn choice(&self) -> ApprovalChoice {
        match self {
            ApprovalDecision::AllowOnce => ApprovalChoice::AllowOnce,
            ApprovalDecision::AllowConversation => ApprovalChoice::AllowConversation,
            ApprovalDecision::AllowToolAlways => ApprovalChoice::AllowToolAlways,
            ApprovalDecision::AllowServerAlways => ApprovalChoice::AllowServerAlways,
            ApprovalDecision::Deny { .. } => ApprovalChoice::Deny,
            ApprovalDecision::DenyAndStop { .. } => ApprovalChoice::DenyAndStop,
        }
    }
}

/// An answer a question offers, named as the [`ApprovalDecision`]'s `decision` tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ApprovalChoice {
    /// [`ApprovalDecision::AllowOnce`].
    AllowOnce,
    /// [`ApprovalDecision::AllowConversation`].
    AllowConversation,
    /// [`ApprovalDecision::AllowToolAlways`].
    AllowToolAlways,
    /// [`ApprovalDecision::AllowServerAlways`].
    AllowServerAlways,
    /// [`ApprovalDecision::Deny`].
    Deny,
    /// [`ApprovalDecision::DenyAndStop`].
    DenyAndStop,
}

/// A question to the user about one tool call (the `approval_requested` notice).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ApprovalRequest {
    /// Answer with this id.
    pub request_id: u64,
    /// The call asked about (its tool card shows the question).
    pub tool_call_id: String,
    /// The server the tool belongs to; empty for the app's own tools, which are marked built-in.
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
    /// The tool is one of the app's own (the card names the app as its server). Always sent; optional for the
    /// notices of hosts before it.
    #[ts(optional, as = "Option<bool>")]
    pub built_in: bool,
    /// The answers this question takes, in the card's order. Always sent; optional for the notices of hosts before
    /// it (they took every answer but "always allow this server" for a tool that may destroy data).
    #[ts(optional, as = "Option<Vec<ApprovalChoice>>")]
    pub offered: Vec<ApprovalChoice>,
    /// The arguments the call would run with.
    #[ts(type = "unknown")]
    pub arguments: Value,
    /// The server says the tool only reads (a claim, shown as such).
    pub read_only_claim: bool,
    /// The server says the tool may destroy data: "always allow this server" is not offered.
    pub destructive_claim: bool,
}

/// How a question ended (the `approval_resolved` notice).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ApprovalOutcome {
    /// The call runs.
    Allowed,
    /// The call does not run.
    Denied,
    /// Stop withdrew the question; the call does not run.
    Withdrawn,
}

/// An answer that could not be taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ApprovalError {
    /// No question with this id waits (answered already, or withdrawn by Stop).
    #[error("this question was already answered or withdrawn")]
    NotPending,
    /// "Always allow this server" for a tool that says it may destroy data.
    #[error("a tool that may destroy data cannot be allowed for its whole server; allow it alone")]
    NotOffered,
    /// An "always" answer for one of the app's own tools.
    #[error(
        "the app's own tools cannot be allowed always; allow the call once or in this conversation"
    )]
    NotOfferedForBuiltIn,
}

/// A tool of an MCP server, as approval needs to know it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct McpToolRef {
    /// The server.
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// The server says the tool only reads.
    pub read_only_claim: bool,
    /// The server says the tool may destroy data.
    pub destructive_claim: bool,
    /// A hash of the tool's definition (name, description, argument schema): an "always" grant holds only while
    /// it is the same.
    pub definition: String,
}

/// The tool a call belongs to, as approval sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ApprovalTool {
    /// One of the app's own desktop tools, by name.
    BuiltIn {
        /// The tool's name.
        name: String,
    },
    /// A tool of an MCP server.
    Mcp(McpToolRef),
}

impl ApprovalTool {
    /// The server its grants are kept under ([`BUILT_IN_SERVER`] for the app's own tools).
    pub fn server(&self) -> &str {
        match self {
            ApprovalTool::BuiltIn { .. } => BUILT_IN_SERVER,
            ApprovalTool::Mcp(tool) => &tool.server,
        }
    }

    /// The tool's name (on its server).
    pub fn name(&self) -> &str {
        match self {
            ApprovalTool::BuiltIn { name } => name,
            ApprovalTool::Mcp(tool) => &tool.tool,
        }
    }

    /// The answers a question about this tool offers, in the card's order.
    pub fn offered(&self) -> Vec<ApprovalChoice> {
        use ApprovalChoice::{
            AllowConversation, AllowOnce, AllowServerAlways, AllowToolAlways, Deny, DenyAndStop,
        };
        match self {
            ApprovalTool::BuiltIn { .. } => vec![AllowOnce, AllowConversation, Deny, DenyAndStop],
            ApprovalTool::Mcp(tool) if tool.destructive_claim => vec![
                AllowOnce,
                AllowConversation,
                AllowToolAlways,
                Deny,
                DenyAndStop,
            ],
            ApprovalTool::Mcp(_) => vec![
                AllowOnce,
                AllowConversation,
                AllowToolAlways,
                AllowServerAlways,
                Deny,
                DenyAndStop,
            ],
        }
    }

    fn key(&self) -> (String, String) {
        (self.server().to_owned(), self.name().to_owned())
    }
}

/// Why a [`ConversationGrants`] store failed (its own error, kept as it is for the log).
pub type ConversationGrantsError = Box<dyn std::error::Error + Send + Sync>;

/// Where "allow in this conversation" grants are kept beyond a session: the conversation database, for the one
/// conversation a session runs.
pub trait ConversationGrants: Send + Sync {
    /// The grants kept for the conversation, as (server, tool).
    fn kept(&self) -> Result<Vec<(String, String)>, ConversationGrantsError>;
    /// Keeps the grant of `tool` of `server` (the tool's name on its server).
    fn keep(&self, server: &str, tool: &str) -> Result<(), ConversationGrantsError>;
}

/// Where "always" grants are kept beyond a session (the app's `mcp.json`).
pub trait AlwaysGrants: Send + Sync {
    /// True when an "always" grant covers `tool` as it is defined now.
    fn always_allows(&self, tool: &McpToolRef) -> bool;
    /// Keeps "always allow this tool" (pinned to its definition) or, with `whole_server`, "always allow this server".
    fn grant_always(&self, tool: &McpToolRef, whole_server: bool);
}

/// The questions waiting and the grants of one session. Share it (`Arc`).
#[derive(Default)]
pub struct Approvals {
    state: Mutex<ApprovalState>,
    always: Option<Arc<dyn AlwaysGrants>>,
    conversation: Option<Arc<dyn ConversationGrants>>,
}

#[derive(Default)]
struct ApprovalState {
    next_id: u64,
    pending: HashMap<u64, Pending>,
    /// (server, tool) allowed in this conversation.
    conversation: HashSet<(String, String)>,
    tools_always: HashSet<(String, String)>,
    servers_always: HashSet<String>,
}

struct Pending {
    offered: Vec<ApprovalChoice>,
    built_in: bool,
    reply: oneshot::Sender<ApprovalDecision>,
}

impl Approvals {
    /// Approvals whose "always" grants are kept in `always`.
    pub fn with_always(always: Arc<dyn AlwaysGrants>) -> Approvals {
        Approvals::new(Some(always), None)
    }

    /// Approvals keeping "always" grants in `always` and "in this conversation" grants in `conversation`, starting
    /// with the grants `conversation` kept. A store that cannot be read is logged and starts the session without
    /// its grants (their tools ask again).
    pub fn new(
        always: Option<Arc<dyn AlwaysGrants>>,
        conversation: Option<Arc<dyn ConversationGrants>>,
    ) -> Approvals {
        let mut state = ApprovalState::default();
        if let Some(conversation) = &conversation {
            match conversation.kept() {
                Ok(kept) => state.conversation.extend(kept),
                Err(error) => tracing::warn!(
                    target: "desktop_host::approval",
                    %error,
                    "reading the conversation's grants failed; its tools ask again"
                ),
            }
        }
        Approvals {
            state: Mutex::new(state),
            always,
            conversation,
        }
    }

    /// True when a grant covers `tool`: it may run without asking.
    pub fn granted(&self, tool: &ApprovalTool) -> bool {
        let state = self.lock();
        if state.conversation.contains(&tool.key()) {
            return true;
        }
        match tool {
            ApprovalTool::BuiltIn { .. } => false,
            ApprovalTool::Mcp(mcp_tool) => {
                // The lock is released first: the "always" store reads its own state.
                let key = tool.key();
                let in_memory = state.tools_always.contains(&key)
                    || (!mcp_tool.destructive_claim
                        && state.servers_always.contains(&mcp_tool.server));
                drop(state);
                in_memory
                    || self
                        .always
                        .as_ref()
                        .is_some_and(|always| always.always_allows(mcp_tool))
            }
        }
    }

    /// Opens a question about a call of `tool`; the receiver gets the answer.
    pub(crate) fn ask(
        &self,
        tool_call_id: &str,
        tool: &ApprovalTool,
        arguments: &Value,
    ) -> (ApprovalRequest, oneshot::Receiver<ApprovalDecision>) {
        let (reply, answer) = oneshot::channel();
        let offered = tool.offered();
        let built_in = matches!(tool, ApprovalTool::BuiltIn { .. });
        let (read_only_claim, destructive_claim) = match tool {
            ApprovalTool::BuiltIn { .. } => (false, false),
            ApprovalTool::Mcp(mcp_tool) => (mcp_tool.read_only_claim, mcp_tool.destructive_claim),
        };
        let mut state = self.lock();
        state.next_id += 1;
        let request_id = state.next_id;
        state.pending.insert(
            request_id,
            Pending {
                offered: offered.clone(),
                built_in,
                reply,
            },
        );
        let request = ApprovalRequest {
            request_id,
            tool_call_id: tool_call_id.to_owned(),
            server: tool.server().to_owned(),
            tool: tool.name().to_owned(),
            built_in,
            offered,
            arguments: arguments.clone(),
            read_only_claim,
            destructive_claim,
        };
        (request, answer)
    }

    /// The user's answer to question `request_id`; an answer the question does not offer is refused and the
    /// question keeps waiting.
    pub fn resolve(
        &self,
        request_id: u64,
        decision: ApprovalDecision,
    ) -> Result<(), ApprovalError> {
        let mut state = self.lock();
        let Some(pending) = state.pending.get(&request_id) else {
            return Err(ApprovalError::NotPending);
        };
        if !pending.offered.contains(&decision.choice()) {
            return Err(if pending.built_in {
                ApprovalError::NotOfferedForBuiltIn
            } else {
                ApprovalError::NotOffered
            });
        }
        let Some(pending) = state.pending.remove(&request_id) else {
            return Err(ApprovalError::NotPending);
        };
        pending
            .reply
            .send(decision)
            .map_err(|_| ApprovalError::NotPending)
    }

    /// Stop withdrew question `request_id`.
    pub(crate) fn withdraw(&self, request_id: u64) {
        self.lock().pending.remove(&request_id);
    }

    /// Keeps the grant `decision` gives for `tool`. "In this conversation" is written through to the
    /// conversation's store; a failed write is logged and the grant holds for this session anyway.
    pub(crate) fn record(&self, tool: &ApprovalTool, decision: &ApprovalDecision) {
        match (decision, tool) {
            (ApprovalDecision::AllowConversation, _) => {
                self.lock().conversation.insert(tool.key());
                if let Some(conversation) = &self.conversation
                    && let Err(error) = conversation.keep(tool.server(), tool.name())
                {
                    tracing::warn!(
                        target: "desktop_host::approval",
                        server = tool.server(),
                        tool = tool.name(),
                        %error,
                        "keeping an \"allow in this conversation\" grant failed; it holds until the conversation closes"
                    );
                }
            }
            (ApprovalDecision::AllowToolAlways, ApprovalTool::Mcp(mcp_tool)) => {
                self.lock().tools_always.insert(tool.key());
                if let Some(always) = &self.always {
                    always.grant_always(mcp_tool, false);
                }
            }
            (ApprovalDecision::AllowServerAlways, ApprovalTool::Mcp(mcp_tool)) => {
                self.lock().servers_always.insert(mcp_tool.server.clone());
                if let Some(always) = &self.always {
                    always.grant_always(mcp_tool, true);
                }
            }
            // "Always" is never offered for the app's own tools (resolve refuses it).
            (
                ApprovalDecision::AllowToolAlways | ApprovalDecision::AllowServerAlways,
                ApprovalTool::BuiltIn { .. },
            )
            | (
                ApprovalDecision::AllowOnce
                | ApprovalDecision::Deny { .. }
                | ApprovalDecision::DenyAndStop { .. },
                _,
            ) => {}
        }
    }

    /// Forgets the "in this conversation" grant of `tool` of `server` for this session (the caller removes it
    /// from the conversation's store): its next call asks again.
    pub fn forget_conversation_grant(&self, server: &str, tool: &str) {
        self.lock()
            .conversation
            .remove(&(server.to_owned(), tool.to_owned()));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ApprovalState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What the model reads when the user denied a call.
pub fn denial_message(tool: &ApprovalTool, note: Option<&str>) -> String {
    let base = match tool {
        ApprovalTool::BuiltIn { name } => {
            format!("The user denied this call of {name}; it was not run.")
        }
        ApprovalTool::Mcp(mcp_tool) => format!(
            "The user denied this call of {} (MCP server \"{}\"); it was not run.",
            mcp_tool.tool, mcp_tool.server
        ),
    };
    match note.map(str::trim).filter(|note| !note.is_empty()) {
        Some(note) => format!("{base} The user's note: {note}"),
        None => base,
    }
}

/// What the call's result says when Stop withdrew the question.
pub const WITHDRAWN_MESSAGE: &str = "Stopped before the user answered; the call was not run.";

#[cfg(test)]
mod tests;
