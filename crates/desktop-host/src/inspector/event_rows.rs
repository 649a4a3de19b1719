//! [`event_rows`]: a run's log as the inspector's event view — every event in order with its time from
//! `agent_start`, a run of `message_update`s folded into one row that counts them.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::inspector::run_summary::LoggedItem;

/// One row of the event view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct EventRow {
    /// Milliseconds from the run's `agent_start` (of the row's first event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub at_ms: Option<u64>,
    /// The event's type (`message_update` for a folded run of them).
    pub kind: String,
    /// What the event was about: the role of a message, the tool of a call, the kind of an update.
    pub about: String,
    /// How many events the row stands for (more than 1 only for folded updates).
    pub count: u32,
}

/// The rows of every event of `log` (one run's, from its `agent_start`).
pub fn event_rows(log: &[LoggedItem<'_>]) -> Vec<EventRow> {
    let origin = log.first().and_then(|entry| entry.at_ms);
    let mut rows: Vec<EventRow> = Vec::new();
    for entry in log {
        let item = entry.item;
        let kind = item["type"].as_str().unwrap_or("unknown");
        let at_ms = entry
            .at_ms
            .zip(origin)
            .map(|(at, origin)| at.saturating_sub(origin));
        if kind == "message_update"
            && let Some(last) = rows.last_mut()
            && last.kind == "message_update"
        {
            last.count = last.count.saturating_add(1);
            continue;
        }
        rows.push(EventRow {
            at_ms,
            kind: kind.to_owned(),
            about: about(kind, item),
            count: 1,
        });
    }
    rows
}

fn about(kind: &str, item: &Value) -> String {
    match kind {
        "message_start" | "message_end" => {
            item["message"]["role"].as_str().unwrap_or("").to_owned()
        }
        "message_update" => item["message"]["role"]
            .as_str()
            .unwrap_or("assistant")
            .to_owned(),
        "tool_execution_start" | "tool_execution_update" | "tool_execution_end" => {
            item["toolName"].as_str().unwrap_or("").to_owned()
        }
        "approval_requested" | "approval_resolved" => item["tool"]
            .as_str()
            .or_else(|| item["outcome"].as_str())
            .unwrap_or("")
            .to_owned(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn updates_in_a_row_fold_into_one_counted_row() {
        let items = [
            json!({"type": "agent_start"}),
            json!({"type": "message_update", "message": {"role": "assistant"}}),
            json!({"type": "message_update", "message": {"role": "assistant"}}),
            json!({"type": "message_update", "message": {"role": "assistant"}}),
            json!({"type": "tool_execution_start", "toolName": "list_folder"}),
            json!({"type": "message_update", "message": {"role": "assistant"}}),
        ];
        let log: Vec<LoggedItem<'_>> = items
            .iter()
            .enumerate()
            .map(|(index, item)| LoggedItem {
                at_ms: Some(500 + index as u64 * 10),
                item,
            })
            .collect();

        let rows = event_rows(&log);

        let shape: Vec<(&str, u32, Option<u64>)> = rows
            .iter()
            .map(|row| (row.kind.as_str(), row.count, row.at_ms))
            .collect();
        assert_eq!(
            shape,
            [
                ("agent_start", 1, Some(0)),
                ("message_update", 3, Some(10)),
                ("tool_execution_start", 1, Some(40)),
                ("message_update", 1, Some(50)),
            ]
        );
        assert_eq!(rows[2].about, "list_folder");
    }
}
