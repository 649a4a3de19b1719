//! The IPC wire format between the host and the UI (used by src-tauri's Channel bridge and `pi-chat --json`).
//!
//! # Envelope JSON (protocol version 1)
//!
//! Every message is one envelope: a protocol version `v`, the conversation it belongs to (`conversationId`, set
//! by the conversations service), the run it belongs to (`runId`: from the run's first envelope to its `idle`;
//! absent on a notice between runs), a sequence number `seq` (starting at 1 per conversation's session,
//! increasing by one, no gaps) and either an agent event or a host notice:
//!
//! ```json
//! {"v":1,"conversationId":"5f0c…","runId":1,"seq":1,"kind":"event","event":{"type":"agent_start"}}
//! {"v":1,"seq":2,"kind":"notice","notice":{"type":"state","isStreaming":true,"pendingToolCalls":[]}}
//! {"v":1,"seq":5,"kind":"event","event":{"type":"message_start","message":{"role":"assistant", "...":"..."}}}
//! {"v":1,"seq":6,"kind":"event","event":{"type":"message_update",
//!     "assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Hel"}}}
//! {"v":1,"seq":7,"kind":"event","event":{"type":"message_update",
//!     "assistantMessageEvent":{"type":"toolcall_start","contentIndex":1,
//!       "block":{"type":"toolCall","id":"call_1","name":"list_download_files","arguments":{}}}}}
//! {"v":1,"seq":9,"kind":"event","event":{"type":"message_end","message":{"role":"assistant", "...":"..."}}}
//! {"v":1,"seq":20,"kind":"notice","notice":{"type":"idle"}}
//! {"v":1,"seq":21,"kind":"notice","notice":{"type":"error","source":"persistence","message":"…"}}
//! ```
//!
//! - `event` is pi's AgentEvent JSON (spec 1.10: camelCase fields, `type` tags, omitted optionals) with one
//!   change: a `message_update` carries only `assistantMessageEvent`, without pi's `message` snapshot and without
//!   the event's `partial`. The UI rebuilds the streaming message from deltas; the full message travels on
//!   `message_start` and `message_end` (and `turn_end`/`agent_end` as in pi).
//! - `*_start` assistant events (`text_start`, `thinking_start`, `toolcall_start`) add `block`: the new content
//!   block as it stands at that moment (an empty text, a redacted thinking block, a tool call's id and name), since
//!   the partial that would have said so is dropped.
//! - Text, thinking and tool-argument deltas of one content block may be coalesced: consecutive deltas within
//!   16 ms become one `*_delta` whose `delta` is their concatenation, so at most one envelope per 16 ms per block.
//! - Notices: `state` (the agent's runtime state after a change: `isStreaming`, `pendingToolCalls` in start
//!   order, `errorMessage` when set), `idle` (the run's last envelope: `prompt()` returned after the
//!   `agent_end` listeners; the UI re-enables Send on this, not on `agent_end`), `error` (`source`:
//!   `persistence`, `settings` or `run`; `message` is safe to show).
//! - The queue of steering and follow-up messages: `message_queued` (`message`: `id`, `kind` `steer` or
//!   `follow_up`, `text`, `status` `waiting` or `held`), then exactly one of `queued_message_consumed` (right after
//!   the injected user message's `message_start`, or before the run it was sent as), `queued_message_cancelled`,
//!   or `queued_messages_held` (`ids`; a run ended first, and the message waits for the user, who sends it:
//!   `queued_message_consumed`, steers it into a run: `message_queued` again, or discards it).
//! - `versions` (added in protocol version 1 without a bump: a new notice type): just before a run's `idle` of a
//!   saved conversation, each user and assistant message of its shown branch as `{seq, role, timestamp, version,
//!   versions}` (`session::branches`); `get_state` carries the same list as the optional `versions`.
//!
//! A window receives the envelopes of every conversation on one stream ([`EnvelopeSink`]; see
//! `conversations::LiveStream`), after a snapshot of the runs in progress that ends where its stream begins.
//!
//! # The lean stream
//!
//! A subscriber that rebuilds every message from its deltas may take the stream in its lean form
//! ([`LeanProjection`], `lean.rs`): the same envelopes, numbered the same, except that a block's text is not sent
//! again once streamed. `text_end` / `thinking_end` then omit `content`, an assistant `message_end`'s block marks
//! such a text `"streamed": true` (and leaves it empty), and `turn_end` / `agent_end` carry only their `type`.
//! The plain form stays the default (`pi-chat --json`, the run logs); a subscriber opts in, so neither form
//! breaks a consumer of the other.
//!
//! # Bump rule
//!
//! Adding a notice type, an event field or an optional field is not a break: consumers ignore what they do not
//! know, and `v` stays. Removing or renaming anything, changing a type or a meaning, or changing the numbering
//! of `seq` bumps [`PROTOCOL_VERSION`], and the UI refuses envelopes of a version it does not know.

mod coalesce;
mod envelope;
mod forwarder;
mod lean;
mod replay;
mod sink;

pub use coalesce::{COALESCE_WINDOW, DeltaCoalescer};
pub use envelope::{Envelope, EnvelopePayload, HostNotice, NoticeSource, PROTOCOL_VERSION, RunId};
pub use forwarder::{ForwardItem, spawn_forwarder};
pub use lean::{LeanEnvelope, LeanProjection};
pub use replay::{ReplayError, WireReplay};
pub use sink::{EnvelopeSink, SinkClosed};
