//! Grouping the conversation list by calendar day, as the sidebar shows it.

use jiff::Timestamp;
use jiff::tz::{Offset, TimeZone};

use super::store_handle::ConversationSummary;

/// Which calendar decides where a day begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DayZone {
    /// The system's time zone (with its daylight-saving rules).
    System,
    /// A fixed offset from UTC, in seconds east (tests, or a zone the user chose).
    FixedOffset { seconds_east: i32 },
}

/// The conversations last updated on one day.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DayGroup {
    /// The day, `YYYY-MM-DD`.
    pub day: String,
    /// Its conversations, in the order given (newest first when given [`super::Store::list_conversations`]).
    pub conversations: Vec<ConversationSummary>,
}

/// Groups conversations by the day of their `updated_at` in `zone`, keeping their order; consecutive
/// conversations of one day share a group, so a newest-first list gives newest-first days.
pub fn group_by_day(conversations: &[ConversationSummary], zone: DayZone) -> Vec<DayGroup> {
    let time_zone = match zone {
        DayZone::System => TimeZone::system(),
        DayZone::FixedOffset { seconds_east } => {
            TimeZone::fixed(Offset::from_seconds(seconds_east).unwrap_or(Offset::UTC))
        }
    };
    let mut groups: Vec<DayGroup> = Vec::new();
    for conversation in conversations {
        let day = Timestamp::from_millisecond(conversation.updated_at).map_or_else(
            |_| "unknown".to_owned(),
            |timestamp| time_zone.to_datetime(timestamp).date().to_string(),
        );
        match groups.last_mut() {
            Some(group) if group.day == day => group.conversations.push(conversation.clone()),
            Some(_) | None => groups.push(DayGroup {
                day,
                conversations: vec![conversation.clone()],
            }),
        }
    }
    groups
}
