//! Tool approval: which calls ask the user first, the question as a host notice, the user's answer, and the
//! grants an answer leaves.
//!
//! Contracts:
//! - Built-in desktop tools (read-only) run without asking. A tool of an MCP server asks unless a grant covers it,
//!   whatever its annotations claim (they are shown as the server's claim, never trusted).
//! - A question is an `approval_requested` notice on the run's stream; the answer comes through
//!   [`Approvals::resolve`]; an `approval_resolved` notice follows either way. Calls of one batch ask one after
//!   another, in order (the loop prepares them in order).
//! - Stop while a question waits withdraws it: the call is not run, nothing is granted.
//! - "Always" grants are kept by an [`AlwaysGrants`] store (the app's `mcp.json`), a tool's pinned to a hash of
//!   its definition so a changed tool asks again; "in this conversation" lives as long as the session.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;
use ts_rs::TS;

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

/// A question to the user about one tool call (the `approval_requested` notice).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ApprovalRequest {
    /// Answer with this id.
    pub request_id: u64,
    /// The call asked about (its tool card shows the question).
    pub tool_call_id: String,
    /// The server the tool belongs to.
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
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
}

#[derive(Default)]
struct ApprovalState {
    next_id: u64,
    pending: HashMap<u64, Pending>,
    conversation: HashSet<(String, String)>,
    tools_always: HashSet<(String, String)>,
    servers_always: HashSet<String>,
}

struct Pending {
    destructive: bool,
    reply: oneshot::Sender<ApprovalDecision>,
}

impl Approvals {
    /// Approvals whose "always" grants are kept in `always`.
    pub fn with_always(always: Arc<dyn AlwaysGrants>) -> Approvals {
        Approvals {
            state: Mutex::default(),
            always: Some(always),
        }
    }

    /// True when a grant covers `tool`: it may run without asking.
    pub fn granted(&self, tool: &McpToolRef) -> bool {
        if self
            .always
            .as_ref()
            .is_some_and(|always| always.always_allows(tool))
        {
            return true;
        }
        let state = self.lock();
        let key = (tool.server.clone(), tool.tool.clone());
        state.conversation.contains(&key)
            || state.tools_always.contains(&key)
            || (!tool.destructive_claim && state.servers_always.contains(&tool.server))
    }

    /// Opens a question about a call of `tool`; the receiver gets the answer.
    pub(crate) fn ask(
        &self,
        tool_call_id: &str,
        tool: &McpToolRef,
        arguments: &Value,
    ) -> (ApprovalRequest, oneshot::Receiver<ApprovalDecision>) {
        let (reply, answer) = oneshot::channel();
        let mut state = self.lock();
        state.next_id += 1;
        let request_id = state.next_id;
        state.pending.insert(
            request_id,
            Pending {
                destructive: tool.destructive_claim,
                reply,
            },
        );
        let request = ApprovalRequest {
            request_id,
            tool_call_id: tool_call_id.to_owned(),
            server: tool.server.clone(),
            tool: tool.tool.clone(),
            arguments: arguments.clone(),
            read_only_claim: tool.read_only_claim,
            destructive_claim: tool.destructive_claim,
        };
        (request, answer)
    }

    /// The user's answer to question `request_id`.
    pub fn resolve(
        &self,
        request_id: u64,
        decision: ApprovalDecision,
    ) -> Result<(), ApprovalError> {
        let mut state = self.lock();
        let Some(pending) = state.pending.get(&request_id) else {
            return Err(ApprovalError::NotPending);
        };
        if pending.destructive && decision == ApprovalDecision::AllowServerAlways {
            return Err(ApprovalError::NotOffered);
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

    /// Keeps the grant `decision` gives for `tool`.
    pub(crate) fn record(&self, tool: &McpToolRef, decision: &ApprovalDecision) {
        let mut state = self.lock();
        let key = (tool.server.clone(), tool.tool.clone());
        match decision {
            ApprovalDecision::AllowConversation => {
                state.conversation.insert(key);
            }
            ApprovalDecision::AllowToolAlways => {
                state.tools_always.insert(key);
                if let Some(always) = &self.always {
                    always.grant_always(tool, false);
                }
            }
            ApprovalDecision::AllowServerAlways => {
                state.servers_always.insert(tool.server.clone());
                if let Some(always) = &self.always {
                    always.grant_always(tool, true);
                }
            }
            ApprovalDecision::AllowOnce
            | ApprovalDecision::Deny { .. }
            | ApprovalDecision::DenyAndStop { .. } => {}
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ApprovalState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What the model reads when the user denied a call.
pub fn denial_message(tool: &McpToolRef, note: Option<&str>) -> String {
    let base = format!(
        "The user denied this call of {} (MCP server \"{}\"); it was not run.",
        tool.tool, tool.server
    );
    match note.map(str::trim).filter(|note| !note.is_empty()) {
        Some(note) => format!("{base} The user's note: {note}"),
        None => base,
    }
}

/// What the call's result says when Stop withdrew the question.
pub const WITHDRAWN_MESSAGE: &str = "Stopped before the user answered; the call was not run.";

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(destructive: bool) -> McpToolRef {
        McpToolRef {
            server: "files".to_owned(),
            tool: "write_file".to_owned(),
            read_only_claim: false,
            destructive_claim: destructive,
            definition: "d1".to_owned(),
        }
    }

    #[test]
    fn an_answer_reaches_the_question_once_and_leaves_the_grant_it_names() {
        let approvals = Approvals::default();
        let write = tool(false);
        let (request, mut answer) = approvals.ask("call_1", &write, &json!({"path": "a.txt"}));

        approvals
            .resolve(request.request_id, ApprovalDecision::AllowConversation)
            .unwrap();

        assert_eq!(answer.try_recv(), Ok(ApprovalDecision::AllowConversation));
        assert_eq!(
            approvals.resolve(request.request_id, ApprovalDecision::AllowOnce),
            Err(ApprovalError::NotPending)
        );
        assert!(!approvals.granted(&write), "granted only once recorded");
        approvals.record(&write, &ApprovalDecision::AllowConversation);
        assert!(approvals.granted(&write));
    }

    #[test]
    fn a_destructive_tool_cannot_be_allowed_for_its_whole_server_and_a_server_grant_does_not_cover_it()
     {
        let approvals = Approvals::default();
        let destructive = tool(true);
        let (request, _answer) = approvals.ask("call_1", &destructive, &json!({}));

        assert_eq!(
            approvals.resolve(request.request_id, ApprovalDecision::AllowServerAlways),
            Err(ApprovalError::NotOffered)
        );
        approvals.record(&tool(false), &ApprovalDecision::AllowServerAlways);
        assert!(!approvals.granted(&destructive));
        assert!(approvals.granted(&tool(false)));
    }

    #[test]
    fn the_model_reads_the_denial_and_the_users_note() {
        assert_eq!(
            denial_message(&tool(false), Some(" use the Documents folder ")),
            "The user denied this call of write_file (MCP server \"files\"); it was not run. The user's note: use \
             the Documents folder"
        );
    }
}
