//! How `pi-chat` answers the approval questions of MCP tool calls: `--yes` allows each call once; at a terminal it
//! asks on the terminal; without one (a script, a pipe) it denies each call, telling the model and the user that
//! `--yes` allows them, so a script never hangs on a question nobody can answer.

use std::io::{BufRead, IsTerminal, Write};

use desktop_host::approval::{ApprovalDecision, ApprovalRequest};
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
                request.tool, request.server
            );
            ApprovalDecision::AllowOnce
        }
        ApprovalMode::Refuse => {
            eprintln!(
                "pi-chat: denied {} from the MCP server \"{}\": no terminal to ask on; pass --yes to allow tool calls",
                request.tool, request.server
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

fn ask_on_terminal(request: &ApprovalRequest) -> ApprovalDecision {
    let arguments = serde_json::to_string_pretty(&request.arguments).unwrap_or_default();
    let claim = if request.destructive_claim {
        " (the server says it may change or delete data)"
    } else if request.read_only_claim {
        " (the server says it only reads)"
    } else {
        ""
    };
    let mut stderr = std::io::stderr();
    let _ = writeln!(
        stderr,
        "\nRun {} from the MCP server \"{}\"{claim} with\n{arguments}",
        request.tool, request.server
    );
    loop {
        let _ = write!(
            stderr,
            "[o]nce, [c]onversation, [t]his tool always, [n]o, no and [s]top? "
        );
        let _ = stderr.flush();
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line).unwrap_or(0) == 0 {
            return ApprovalDecision::Deny { note: None };
        }
        match line.trim() {
            "o" | "y" | "yes" => return ApprovalDecision::AllowOnce,
            "c" => return ApprovalDecision::AllowConversation,
            "t" => return ApprovalDecision::AllowToolAlways,
            "n" | "no" => return ApprovalDecision::Deny { note: None },
            "s" => return ApprovalDecision::DenyAndStop { note: None },
            _ => {}
        }
    }
}
