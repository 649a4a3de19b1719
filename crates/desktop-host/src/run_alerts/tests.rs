use std::sync::Arc;

use pi_agent::AgentEvent;
use pi_ai::{Api, AssistantMessage, StopReason};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::approval::ApprovalRequest;
use crate::wire::{Envelope, EnvelopePayload, HostNotice, NoticeSource};

fn conversation(id: &str) -> ConversationId {
    ConversationId::from(id)
}

fn envelope(id: &str, payload: EnvelopePayload) -> Envelope {
    Envelope {
        conversation_id: Some(conversation(id)),
        ..Envelope::new(1, payload)
    }
}

fn turn_end(id: &str, stop_reason: StopReason, error: Option<&str>) -> Envelope {
    let mut message = AssistantMessage::empty_for(
        Api::OPENAI_COMPLETIONS,
        "loopback".to_owned(),
        "m".to_owned(),
    );
    message.stop_reason = stop_reason;
    message.error_message = error.map(str::to_owned);
    envelope(
        id,
        EnvelopePayload::Event(Arc::new(AgentEvent::TurnEnd {
            message: Arc::new(message),
            tool_results: Vec::new(),
        })),
    )
}

fn idle(id: &str) -> Envelope {
    envelope(id, EnvelopePayload::Notice(HostNotice::Idle))
}

fn approval(id: &str, tool: &str) -> Envelope {
    envelope(
        id,
        EnvelopePayload::Notice(HostNotice::ApprovalRequested(ApprovalRequest {
            request_id: 1,
            tool_call_id: "call_1".to_owned(),
            server: "files".to_owned(),
            tool: tool.to_owned(),
            built_in: false,
            offered: Vec::new(),
            arguments: json!({}),
            read_only_claim: false,
            destructive_claim: false,
        })),
    )
}

fn alert(id: &str, kind: RunAlertKind) -> Option<RunAlert> {
    Some(RunAlert {
        conversation_id: conversation(id),
        kind,
    })
}

#[test]
fn a_run_that_answered_alerts_once_at_its_idle() {
    let mut alerts = RunAlerts::default();
    assert_eq!(
        alerts.observe(&turn_end("a", StopReason::ToolUse, None)),
        None
    );
    assert_eq!(alerts.observe(&turn_end("a", StopReason::Stop, None)), None);
    assert_eq!(
        alerts.observe(&idle("a")),
        alert("a", RunAlertKind::Finished)
    );
    assert_eq!(alerts.observe(&idle("a")), None, "one alert per run");
}

#[test]
fn a_failed_run_alerts_with_its_error_and_a_stopped_one_not_at_all() {
    let mut alerts = RunAlerts::default();
    alerts.observe(&turn_end(
        "a",
        StopReason::Error,
        Some("429 Too Many Requests"),
    ));
    alerts.observe(&turn_end("b", StopReason::Aborted, Some("aborted")));
    assert_eq!(
        alerts.observe(&idle("a")),
        alert(
            "a",
            RunAlertKind::Failed {
                error: "429 Too Many Requests".to_owned()
            }
        )
    );
    assert_eq!(alerts.observe(&idle("b")), None);
}

#[test]
fn a_run_error_notice_without_a_turn_is_a_failure_and_a_bare_idle_is_nothing() {
    let mut alerts = RunAlerts::default();
    assert_eq!(alerts.observe(&idle("a")), None);
    alerts.observe(&envelope(
        "a",
        EnvelopePayload::Notice(HostNotice::Error {
            source: NoticeSource::Run,
            message: "No model is configured".to_owned(),
        }),
    ));
    assert_eq!(
        alerts.observe(&idle("a")),
        alert(
            "a",
            RunAlertKind::Failed {
                error: "No model is configured".to_owned()
            }
        )
    );
}

#[test]
fn conversations_are_followed_apart_and_approvals_alert_when_asked() {
    let mut alerts = RunAlerts::default();
    alerts.observe(&turn_end("a", StopReason::Stop, None));
    assert_eq!(
        alerts.observe(&approval("b", "delete_file")),
        alert(
            "b",
            RunAlertKind::ApprovalWaiting {
                tool: "delete_file".to_owned()
            }
        )
    );
    assert_eq!(alerts.observe(&idle("b")), None);
    assert_eq!(
        alerts.observe(&idle("a")),
        alert("a", RunAlertKind::Finished)
    );
}

#[test]
fn an_alert_is_wanted_unless_its_conversation_is_shown_in_the_focused_window() {
    let finished = RunAlert {
        conversation_id: conversation("a"),
        kind: RunAlertKind::Finished,
    };
    let a = conversation("a");
    let b = conversation("b");
    let shown = OnScreen {
        active: Some(&a),
        window_visible: true,
        window_focused: true,
    };
    assert!(!finished.wanted(shown));
    assert!(finished.wanted(OnScreen {
        active: Some(&b),
        ..shown
    }));
    assert!(finished.wanted(OnScreen {
        active: None,
        ..shown
    }));
    assert!(finished.wanted(OnScreen {
        window_focused: false,
        ..shown
    }));
    assert!(finished.wanted(OnScreen {
        window_visible: false,
        ..shown
    }));
}

#[test]
fn the_texts_name_the_conversation_and_what_happened_in_both_languages() {
    let finished = RunAlert {
        conversation_id: conversation("a"),
        kind: RunAlertKind::Finished,
    };
    assert_eq!(
        finished.text(Some("Trip plans"), Language::En),
        AlertText {
            summary: "Trip plans".to_owned(),
            body: "The answer is ready.".to_owned(),
            open_label: "Open the conversation".to_owned(),
        }
    );
    assert_eq!(
        finished.text(Some("  "), Language::Zh),
        AlertText {
            summary: "新对话".to_owned(),
            body: "回答已完成。".to_owned(),
            open_label: "打开对话".to_owned(),
        }
    );
    let waiting = RunAlert {
        conversation_id: conversation("a"),
        kind: RunAlertKind::ApprovalWaiting {
            tool: "delete_file".to_owned(),
        },
    };
    assert_eq!(
        waiting.text(None, Language::En).body,
        "The tool delete_file waits for your approval."
    );
    assert_eq!(
        waiting.text(None, Language::Zh).body,
        "工具 delete_file 等待你的批准。"
    );
}

#[test]
fn a_long_error_is_one_line_cut_with_an_ellipsis() {
    let failed = RunAlert {
        conversation_id: conversation("a"),
        kind: RunAlertKind::Failed {
            error: format!("first line\nsecond {}", "x".repeat(400)),
        },
    };
    let body = failed.text(None, Language::En).body;
    let error = body.strip_prefix("The answer failed: ").unwrap();
    assert!(error.starts_with("first line second x"), "{error}");
    assert_eq!(error.chars().count(), ERROR_CHARS);
    assert!(error.ends_with('…'));
}
