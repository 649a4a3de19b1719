//! A long transcript opened from its end: the window shows the last messages at once and asks for the rest after
//! its first frame, so the size of a conversation does not decide how long opening it takes.

use std::collections::HashSet;

use pi_agent::AgentMessage;
use serde::Serialize;

use super::SessionState;

/// What a [`SessionState`] opened from its end leaves out of the transcript's beginning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LeftOut {
    /// Messages before the first one given.
    pub messages: u32,
    /// How many of them are user or assistant messages: the messages a transcript shows as rows of their own,
    /// so that rows numbered in order keep their numbers once the beginning arrives.
    pub shown: u32,
}

impl SessionState {
    /// The state with only the end of a transcript longer than `keep` messages: from the first user message
    /// among its last `keep` on (a turn is never cut in two), the versions of those messages alone, and
    /// [`SessionState::left_out`] saying what is missing. A transcript of at most `keep` messages, or one whose
    /// last `keep` messages hold no user message, is given whole.
    #[must_use]
    pub fn from_end(mut self, keep: usize) -> SessionState {
        let Some(start) = end_start(&self.messages, keep) else {
            return self;
        };
        let kept = self.messages.split_off(start);
        let shown = self
            .messages
            .iter()
            .filter(|message| shows_as_row(message))
            .count();
        self.left_out = Some(LeftOut {
            messages: u32::try_from(start).unwrap_or(u32::MAX),
            shown: u32::try_from(shown).unwrap_or(u32::MAX),
        });
        self.messages = kept;
        self.keep_versions_of_own_messages();
        self
    }

    /// Leaves out the versions of messages the state does not hold, matched by timestamp as the window does.
    pub(super) fn keep_versions_of_own_messages(&mut self) {
        let timestamps: HashSet<i64> = self
            .messages
            .iter()
            .filter_map(AgentMessage::timestamp)
            .collect();
        if let Some(versions) = &mut self.versions {
            versions.retain(|version| {
                version
                    .timestamp
                    .is_some_and(|timestamp| timestamps.contains(&timestamp))
            });
        }
    }
}

/// Whether the window shows `message` as a row of its own (user and assistant messages; a tool's result is shown
/// in its call's card).
pub(super) fn shows_as_row(message: &AgentMessage) -> bool {
    matches!(message, AgentMessage::User(_) | AgentMessage::Assistant(_))
}

/// Where the kept end starts, when something is left out.
fn end_start(messages: &[AgentMessage], keep: usize) -> Option<usize> {
    let from = messages.len().checked_sub(keep).filter(|&from| from > 0)?;
    messages[from..]
        .iter()
        .position(|message| matches!(message, AgentMessage::User(_)))
        .map(|offset| from + offset)
}

#[cfg(test)]
mod tests {
    use pi_ai::ModelThinkingLevel;
    use serde_json::json;

    use super::*;
    use crate::session::ModelSummary;
    use crate::store::MessageVersion;

    fn user(timestamp: i64) -> AgentMessage {
        serde_json::from_value(json!({
            "role": "user",
            "content": [{"type": "text", "text": format!("question {timestamp}")}],
            "timestamp": timestamp,
        }))
        .unwrap()
    }

    fn assistant(timestamp: i64) -> AgentMessage {
        serde_json::from_value(json!({
            "role": "assistant",
            "content": [{"type": "text", "text": format!("answer {timestamp}")}],
            "api": "openai-completions",
            "provider": "openai",
            "model": "m",
            "usage": {
                "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
            },
            "stopReason": "stop",
            "timestamp": timestamp,
        }))
        .unwrap()
    }

    fn tool_result(timestamp: i64) -> AgentMessage {
        serde_json::from_value(json!({
            "role": "toolResult",
            "toolCallId": format!("call-{timestamp}"),
            "toolName": "list_downloads",
            "content": [{"type": "text", "text": "[]"}],
            "isError": false,
            "timestamp": timestamp,
        }))
        .unwrap()
    }

    fn version(timestamp: i64) -> MessageVersion {
        MessageVersion {
            seq: timestamp,
            role: "user".to_owned(),
            timestamp: Some(timestamp),
            version: 1,
            versions: 1,
        }
    }

    fn state(messages: Vec<AgentMessage>) -> SessionState {
        let versions = messages
            .iter()
            .filter(|message| !matches!(message, AgentMessage::ToolResult(_)))
            .filter_map(AgentMessage::timestamp)
            .map(version)
            .collect();
        SessionState {
            is_streaming: false,
            pending_tool_calls: Vec::new(),
            error_message: None,
            messages,
            model: ModelSummary {
                provider: "openai".to_owned(),
                id: "m".to_owned(),
                api: "openai-completions".to_owned(),
                context_window: 1,
                image_input: false,
                priced: false,
            },
            thinking_level: ModelThinkingLevel::Off,
            versions: Some(versions),
            left_out: None,
        }
    }

    /// Turns of a question, an answer calling a tool, its result and the final answer; timestamps count up.
    fn turns(count: i64) -> Vec<AgentMessage> {
        (0..count)
            .flat_map(|turn| {
                let at = turn * 10;
                [
                    user(at),
                    assistant(at + 1),
                    tool_result(at + 2),
                    assistant(at + 3),
                ]
            })
            .collect()
    }

    fn timestamps(messages: &[AgentMessage]) -> Vec<i64> {
        messages
            .iter()
            .filter_map(AgentMessage::timestamp)
            .collect()
    }

    #[test]
    fn a_long_transcript_keeps_its_last_turns_from_a_question_on() {
        let cut = state(turns(100)).from_end(10);
        // The last 10 messages start in the middle of turn 97; the kept end starts with turn 98's question.
        assert_eq!(timestamps(&cut.messages), timestamps(&turns(100)[392..]));
        assert_eq!(
            cut.left_out,
            Some(LeftOut {
                messages: 392,
                shown: 98 * 3
            })
        );
        let versions: Vec<i64> = cut
            .versions
            .unwrap()
            .iter()
            .filter_map(|version| version.timestamp)
            .collect();
        assert_eq!(versions, vec![980, 981, 983, 990, 991, 993]);
    }

    #[test]
    fn a_transcript_within_the_limit_is_given_whole() {
        for keep in [400, 401, 1000] {
            let whole = state(turns(100)).from_end(keep);
            assert_eq!(whole.messages.len(), 400);
            assert_eq!(whole.left_out, None);
            assert_eq!(whole.versions.map(|versions| versions.len()), Some(300));
        }
    }

    #[test]
    fn an_end_without_a_question_gives_the_transcript_whole() {
        let mut messages = vec![user(0)];
        messages.extend((1..=50).flat_map(|at| [assistant(at * 2), tool_result(at * 2 + 1)]));
        let whole = state(messages).from_end(20);
        assert_eq!(whole.messages.len(), 101);
        assert_eq!(whole.left_out, None);
    }

    #[test]
    fn a_short_limit_still_keeps_a_whole_turn() {
        // Of the last 11 messages the first is turn 0's answer: the kept end starts at turn 1's question.
        let cut = state(turns(3)).from_end(11);
        assert_eq!(
            timestamps(&cut.messages),
            vec![10, 11, 12, 13, 20, 21, 22, 23]
        );
        assert_eq!(
            cut.left_out,
            Some(LeftOut {
                messages: 4,
                shown: 3
            })
        );
    }
}
