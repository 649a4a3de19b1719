//! Questions, answers and grants of [`Approvals`], with in-memory grant stores.

use std::sync::Mutex;

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn tool(destructive: bool) -> ApprovalTool {
    ApprovalTool::Mcp(McpToolRef {
        server: "files".to_owned(),
        tool: "write_file".to_owned(),
        read_only_claim: false,
        destructive_claim: destructive,
        definition: "d1".to_owned(),
    })
}

fn built_in(name: &str) -> ApprovalTool {
    ApprovalTool::BuiltIn {
        name: name.to_owned(),
    }
}

/// Grants kept in memory; `fail` makes every write fail, as a full disk would.
#[derive(Default)]
struct KeptGrants {
    kept: Mutex<Vec<(String, String)>>,
    fail: bool,
}

impl ConversationGrants for KeptGrants {
    fn kept(&self) -> Result<Vec<(String, String)>, ConversationGrantsError> {
        Ok(self.kept.lock().unwrap().clone())
    }

    fn keep(&self, server: &str, tool: &str) -> Result<(), ConversationGrantsError> {
        if self.fail {
            return Err("database or disk is full".into());
        }
        self.kept
            .lock()
            .unwrap()
            .push((server.to_owned(), tool.to_owned()));
        Ok(())
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

    assert!(!request.offered.contains(&ApprovalChoice::AllowServerAlways));
    assert_eq!(
        approvals.resolve(request.request_id, ApprovalDecision::AllowServerAlways),
        Err(ApprovalError::NotOffered)
    );
    approvals.record(&tool(false), &ApprovalDecision::AllowServerAlways);
    assert!(!approvals.granted(&destructive));
    assert!(approvals.granted(&tool(false)));
}

#[test]
fn a_built_in_tool_is_asked_about_as_the_apps_own_and_never_allowed_always() {
    let approvals = Approvals::default();
    let list_folder = built_in("list_folder");
    let (request, mut answer) =
        approvals.ask("call_1", &list_folder, &json!({"folder": "Documents"}));

    assert_eq!(
        (
            request.server.as_str(),
            request.tool.as_str(),
            request.built_in
        ),
        ("", "list_folder", true)
    );
    assert_eq!(
        request.offered,
        vec![
            ApprovalChoice::AllowOnce,
            ApprovalChoice::AllowConversation,
            ApprovalChoice::Deny,
            ApprovalChoice::DenyAndStop
        ]
    );
    for always in [
        ApprovalDecision::AllowToolAlways,
        ApprovalDecision::AllowServerAlways,
    ] {
        assert_eq!(
            approvals.resolve(request.request_id, always),
            Err(ApprovalError::NotOfferedForBuiltIn)
        );
    }
    approvals
        .resolve(request.request_id, ApprovalDecision::AllowOnce)
        .unwrap();
    assert_eq!(answer.try_recv(), Ok(ApprovalDecision::AllowOnce));
    approvals.record(&list_folder, &ApprovalDecision::AllowServerAlways);
    assert!(
        !approvals.granted(&list_folder),
        "no always grant for the app's own tools"
    );
}

#[test]
fn conversation_grants_are_loaded_written_through_and_forgotten() {
    let store = Arc::new(KeptGrants::default());
    store
        .kept
        .lock()
        .unwrap()
        .push(("files".to_owned(), "write_file".to_owned()));
    let approvals = Approvals::new(
        None,
        Some(Arc::clone(&store) as Arc<dyn ConversationGrants>),
    );

    assert!(approvals.granted(&tool(false)), "loaded at the start");
    approvals.record(
        &built_in("read_document"),
        &ApprovalDecision::AllowConversation,
    );
    assert!(approvals.granted(&built_in("read_document")));
    assert_eq!(
        store.kept.lock().unwrap().last(),
        Some(&(String::new(), "read_document".to_owned()))
    );

    approvals.forget_conversation_grant("files", "write_file");
    assert!(!approvals.granted(&tool(false)));
}

#[test]
fn a_grant_whose_write_fails_still_holds_for_the_session() {
    let store = Arc::new(KeptGrants {
        fail: true,
        ..KeptGrants::default()
    });
    let approvals = Approvals::new(
        None,
        Some(Arc::clone(&store) as Arc<dyn ConversationGrants>),
    );

    approvals.record(&tool(false), &ApprovalDecision::AllowConversation);

    assert!(approvals.granted(&tool(false)));
    assert_eq!(store.kept.lock().unwrap().len(), 0);
}

#[test]
fn the_model_reads_the_denial_and_the_users_note() {
    assert_eq!(
        denial_message(&tool(false), Some(" use the Documents folder ")),
        "The user denied this call of write_file (MCP server \"files\"); it was not run. The user's note: use \
         the Documents folder"
    );
    assert_eq!(
        denial_message(&built_in("list_folder"), None),
        "The user denied this call of list_folder; it was not run."
    );
}
