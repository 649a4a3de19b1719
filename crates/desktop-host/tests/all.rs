//! The integration tests of desktop-host, one binary. Each module of `suite` covers one area.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail loudly on broken fixtures"
)]

/// Shared helpers: the temporary home, the PDF writer, the envelope replay.
mod support;

mod suite {
    /// Tool approval beyond one session: conversation grants kept in the database, revoked; built-in tools asking.
    mod approval;
    /// The connection on the host's road to a model: idle timeout, retries, Stop in the wait, proxies.
    mod connection;
    /// The conversations service: sessions per conversation on a real SQLite file, switching, restart, fallback.
    mod conversations;
    /// The desktop tools as plain functions: listing, reading, refusals and safe messages.
    mod desktop_tools;
    /// The loop inspector's derivation against pi's conformance traces.
    mod inspector;
    /// MCP servers as tool sources: the real reference server over stdio, through the agent loop.
    mod mcp;
    /// MCP servers over time: crashes and restarts, timeouts, junk, list_changed, reload, HTTP.
    mod mcp_supervisor;
    /// `pi-chat` as a process: loopback OpenAI-compatible server, scripted model, settings errors.
    mod pi_chat;
    /// The loop inspector's run logs through the conversations service: kept, read, replayed, exported.
    mod run_logs;
    /// The session facade: envelopes, replay, busy refusal, abort, coalescing, persistence notices.
    mod session;
    /// The envelope JSON and the replay's checks.
    mod wire;
}
