//! The loop inspector's reading of a conversation's event log: runs with their exit condition, turns with what
//! they sent and received ([`run_summary`]), and the event view ([`event_rows`]). The window's panel and
//! `pi-chat --inspect` show the same derivation.

pub mod event_rows;
pub mod run_summary;

pub use event_rows::{EventRow, event_rows};
pub use run_summary::{
    InjectedMessage, LoggedItem, RunExit, RunSummary, ToolCallSummary, TurnRequest, TurnSummary,
    TurnUsage, summarize_runs,
};
