//! The moments of a run worth a system notification, read off the envelope stream of every conversation: a run
//! that settled (answered or failed) and a tool call that waits for the user's approval. The Tauri shell feeds
//! every envelope to a [`RunAlerts`], asks [`RunAlert::wanted`] whether the user would miss it (its conversation
//! is not the one on screen, or the window is hidden or unfocused) and shows [`RunAlert::text`].
//!
//! Contract: one alert per run at most, at its `idle` (the run's last envelope); none for a run the user
//! stopped (its last turn ended `aborted`) or one that never reached the model without an error; one alert per
//! approval question, when it is asked.

use std::collections::HashMap;

use pi_agent::AgentEvent;
use pi_ai::StopReason;

use crate::language::Language;
use crate::store::ConversationId;
use crate::wire::{Envelope, EnvelopePayload, HostNotice, NoticeSource};

/// The longest error text a notification repeats, in characters; the window shows the whole of it.
const ERROR_CHARS: usize = 160;

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunAlertKind {
    /// The run settled with an answer.
    Finished,
    /// The run settled with an error.
    Failed {
        /// The error as the run reported it.
        error: String,
    },
    /// A tool call waits for the user's approval.
    ApprovalWaiting {
        /// The tool's name.
        tool: String,
    },
}

/// Something a conversation's run wants the user to know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunAlert {
    /// The conversation it happened in.
    pub conversation_id: ConversationId,
    /// What happened.
    pub kind: RunAlertKind,
}

/// What the user sees at the moment of an alert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnScreen<'a> {
    /// The conversation the window shows (the active one).
    pub active: Option<&'a ConversationId>,
    /// The window is shown (not hidden, not minimized).
    pub window_visible: bool,
    /// The window has the keyboard focus.
    pub window_focused: bool,
}

/// A notification's texts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlertText {
    /// The first line: the conversation's title.
    pub summary: String,
    /// What happened.
    pub body: String,
    /// The label of the action that opens the conversation.
    pub open_label: String,
}

impl RunAlert {
    /// Whether the user would miss it: its conversation is not on screen, or the window is out of sight or
    /// without the focus.
    pub fn wanted(&self, on_screen: OnScreen<'_>) -> bool {
        on_screen.active != Some(&self.conversation_id)
            || !on_screen.window_visible
            || !on_screen.window_focused
    }

    /// The notification's texts in `language`, under the conversation's `title` (none: not titled yet).
    pub fn text(&self, title: Option<&str>, language: Language) -> AlertText {
        let summary = title
            .map(str::trim)
            .filter(|title| !title.is_empty())
            .map_or_else(
                || language.pick("新对话", "New conversation").to_owned(),
                str::to_owned,
            );
        let body = match &self.kind {
            RunAlertKind::Finished => language
                .pick("回答已完成。", "The answer is ready.")
                .to_owned(),
            RunAlertKind::Failed { error } => {
                let error = shortened(error);
                match language {
                    Language::Zh => format!("回答失败：{error}"),
                    Language::En => format!("The answer failed: {error}"),
                }
            }
            RunAlertKind::ApprovalWaiting { tool } => match language {
                Language::Zh => format!("工具 {tool} 等待你的批准。"),
                Language::En => format!("The tool {tool} waits for your approval."),
            },
        };
        AlertText {
            summary,
            body,
            open_label: language
                .pick("打开对话", "Open the conversation")
                .to_owned(),
        }
    }
}

/// How a conversation's run in progress ended its last turn so far.
#[derive(Clone, Debug, PartialEq, Eq)]
enum RunEnd {
    Answered,
    Failed(String),
    Stopped,
}

/// Follows every conversation's envelopes and says when one of them makes an alert.
#[derive(Debug, Default)]
pub struct RunAlerts {
    runs: HashMap<ConversationId, RunEnd>,
}

impl RunAlerts {
    /// Takes the next envelope (of any conversation, in each conversation's order); an alert when it makes one.
    pub fn observe(&mut self, envelope: &Envelope) -> Option<RunAlert> {
        let conversation_id = envelope.conversation_id.as_ref()?;
        let alert = |kind| {
            Some(RunAlert {
                conversation_id: conversation_id.clone(),
                kind,
            })
        };
        match &envelope.payload {
            EnvelopePayload::Event(event) => {
                if let AgentEvent::TurnEnd { message, .. } = event.as_ref() {
                    let end = match message.stop_reason {
                        StopReason::Error => {
                            RunEnd::Failed(message.error_message.clone().unwrap_or_default())
                        }
                        StopReason::Aborted => RunEnd::Stopped,
                        _ => RunEnd::Answered,
                    };
                    self.runs.insert(conversation_id.clone(), end);
                }
                None
            }
            EnvelopePayload::Notice(HostNotice::Error {
                source: NoticeSource::Run,
                message,
            }) => {
                self.runs
                    .insert(conversation_id.clone(), RunEnd::Failed(message.clone()));
                None
            }
            EnvelopePayload::Notice(HostNotice::ApprovalRequested(request)) => {
                alert(RunAlertKind::ApprovalWaiting {
                    tool: request.tool.clone(),
                })
            }
            EnvelopePayload::Notice(HostNotice::Idle) => match self.runs.remove(conversation_id)? {
                RunEnd::Answered => alert(RunAlertKind::Finished),
                RunEnd::Failed(error) => alert(RunAlertKind::Failed { error }),
                RunEnd::Stopped => None,
            },
            EnvelopePayload::Notice(_) => None,
        }
    }
}

/// `error` on one line, cut to [`ERROR_CHARS`] characters with an ellipsis.
fn shortened(error: &str) -> String {
    let line = error.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= ERROR_CHARS {
        return line;
    }
    let mut cut: String = line.chars().take(ERROR_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests;
