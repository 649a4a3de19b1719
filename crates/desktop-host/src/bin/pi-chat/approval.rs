//! How `pi-chat` answers the approval questions of MCP tool calls: `--yes` allows each call once; at a terminal it
//! asks on the terminal; without one (a script, a pipe) it denies each call, telling the model and the user that
//! `--yes` allows them, so a script never hangs on a question nobody can answer.

use std::io::{BufRead, IsTerminal, Write};

use desktop_host::approval::{ApprovalChoice, ApprovalDecision, ApprovalRequest};
use desktop_host::session::DesktopSession;

/// How questions are answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ApprovalMode {
    /// Allow every call once.
    Yes,
    /// Ask on the terminal.
    Ask,
    /// Deny every call (no terminal to ask on).
    Refuse,
}

impl ApprovalMode {
    /// `--yes`, else asking when stdin and stderr are a terminal, else refusing.
    pub(crate) fn detect(yes: bool) -> ApprovalMode {
        if yes {
            ApprovalMode::Yes
        } else if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
            ApprovalMode::Ask
        } else {
            ApprovalMode::Refuse
        }
    }
}

/// What the model reads when pi-chat could not ask.
pub(crate) const NO_TERMINAL_NOTE: &str =
    "pi-chat runs without a terminal to ask on; run it with --yes to allow tool calls";

/// Answers `request` of `session` the way `mode` says.
pub(crate) async fn answer(session: DesktopSession, request: ApprovalRequest, mode: ApprovalMode) {
    let decision = match mode {
        ApprovalMode::Yes => {
            eprintln!(
                "[allowed: {} from {}] (--yes)",
                request.tool,
                source(&request)
            );
            ApprovalDecision::AllowOnce
        }
        ApprovalMode::Refuse => {
            eprintln!(
                "pi-chat: denied {} from {}: no terminal to ask on; pass --yes to allow tool calls",
                request.tool,
                source(&request)
            );
            ApprovalDecision::Deny {
                note: Some(NO_TERMINAL_NOTE.to_owned()),
            }
        }
        ApprovalMode::Ask => {
            let asked = request.clone();
            tokio::task::spawn_blocking(move || ask_on_terminal(&asked))
                .await
                .unwrap_or(ApprovalDecision::Deny { note: None })
        }
    };
    if let Err(error) = session.resolve_approval(request.request_id, decision) {
        eprintln!("pi-chat: {error}");
    }
}

/// Where the tool comes from, as a sentence part: the app itself or an MCP server.
fn source(request: &ApprovalRequest) -> String {
    if request.built_in {
        "Pi Desktop itself".to_owned()
    } else {
        format!("the MCP server \"{}\"", request.server)
    }
}

/// The key that picks `choice` on the terminal, and what it says.
fn key_of(choice: &ApprovalChoice) -> (&'static str, &'static str) {
    match choice {
        ApprovalChoice::AllowOnce => ("o", "[o]nce"),
        ApprovalChoice::AllowConversation => ("c", "[c]onversation"),
        ApprovalChoice::AllowToolAlways => ("t", "[t]his tool always"),
        ApprovalChoice::AllowServerAlways => ("a", "[a]ll of this server always"),
        ApprovalChoice::Deny => ("n", "[n]o"),
        ApprovalChoice::DenyAndStop => ("s", "no and [s]top"),
    }
}

/// The decision `answer` picks among the `offered` answers; `None` for anything else.
fn decision_for(answer: &str, offered: &[ApprovalChoice]) -> Option<ApprovalDecision> {
    let answer = match answer {
        "y" | "yes" => "o",
        "no" => "n",
        other => other,
    };
    let choice = offered.iter().find(|choice| key_of(choice).0 == answer)?;
    Some(match choice {
        ApprovalChoice::AllowOnce => ApprovalDecision::AllowOnce,
        ApprovalChoice::AllowConversation => ApprovalDecision::AllowConversation,
        ApprovalChoice::AllowToolAlways => ApprovalDecision::AllowToolAlways,
        ApprovalChoice::AllowServerAlways => ApprovalDecision::AllowServerAlways,
        ApprovalChoice::Deny => ApprovalDecision::Deny { note: None },
        ApprovalChoice::DenyAndStop => ApprovalDecision::DenyAndStop { note: None },
    })
}

fn ask_on_terminal(request: &ApprovalRequest) -> ApprovalDecision {
    let arguments = serde_json::to_string_pretty(&request.arguments).unwrap_or_default();
    let claim = if request.destructive_claim {
        " (the server says it may change or delete data)"
    } else if request.read_only_claim {
        " (the server says it only reads)"
    } else {
        ""
    };
    let prompt = request
        .offered
        .iter()
        .map(|choice| key_of(choice).1)
        .collect::<Vec<_>>()
        .join(", ");
    let mut stderr = std::io::stderr();
    let _ = writeln!(
        stderr,
        "\nRun {} from {}{claim} with\n{arguments}",
        request.tool,
        source(request)
    );
    loop {
        let _ = write!(stderr, "{prompt}? ");
        let _ = stderr.flush();
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line).unwrap_or(0) == 0 {
            return ApprovalDecision::Deny { note: None };
        }
        if let Some(decision) = decision_for(line.trim(), &request.offered) {
            return decision;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_offered_answers_are_taken() {
        let built_in = [
            ApprovalChoice::AllowOnce,
            ApprovalChoice::AllowConversation,
            ApprovalChoice::Deny,
            ApprovalChoice::DenyAndStop,
        ];
        assert_eq!(decision_for("t", &built_in), None);
        assert_eq!(decision_for("a", &built_in), None);
        assert_eq!(
            decision_for("y", &built_in),
            Some(ApprovalDecision::AllowOnce)
        );
        assert_eq!(
            decision_for("s", &built_in),
            Some(ApprovalDecision::DenyAndStop { note: None })
        );
        let mcp = [
            ApprovalChoice::AllowToolAlways,
            ApprovalChoice::AllowServerAlways,
        ];
        assert_eq!(
            decision_for("a", &mcp),
            Some(ApprovalDecision::AllowServerAlways)
        );
    }
}
