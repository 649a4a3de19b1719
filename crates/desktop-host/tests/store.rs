//! Integration tests of the conversation store, on real SQLite files in temporary folders. Time comes from a
//! `ManualClock`; nothing sleeps.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers panic on setup failures"
)]

/// Opening stores, sample messages, the transcripts copied from the conformance traces.
#[path = "store/support.rs"]
mod support;

/// "Allow in this conversation" grants: kept across a restart, listed with titles, revoked, gone with a purge.
#[path = "store/approval_grants.rs"]
mod approval_grants;
/// Versions and branches: regenerate, edit, switching, restart, search, export, pair deletion, the upgrade from 5.
#[path = "store/branches.rs"]
mod branches;
/// Checkpoint throttling of the streaming message and what a second process sees on disk.
#[path = "store/checkpoints.rs"]
mod checkpoints;
/// Create, title, rename, list (newest first, by day), soft delete, undo, purge.
#[path = "store/conversations.rs"]
mod conversations;
/// Markdown and JSON-lines export.
#[path = "store/export.rs"]
mod export;
/// Upgrades from every earlier schema version, the backup taken first, and a too-new schema left alone.
#[path = "store/migrations.rs"]
mod migrations;
/// Corrupt files moved aside and replaced; other open failures reported without touching anything.
#[path = "store/open_failures.rs"]
mod open_failures;
/// Saving every conformance transcript and reading it back after a restart, including an interrupted stream.
#[path = "store/round_trip.rs"]
mod round_trip;
/// The loop inspector's run logs: kept across a restart, capped per conversation, gone with a purge.
#[path = "store/run_logs.rs"]
mod run_logs;
/// Full-text search in English and Chinese, with highlighted snippets.
#[path = "store/search.rs"]
mod search;
