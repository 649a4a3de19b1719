//! Loopback model servers for the tests: real HTTP/1.1 and server-sent events on `127.0.0.1`, scripted per
//! request, recording every request they receive.
//!
//! - [`LoopbackServer`] is the server itself: it binds a free port, reads each request ([`Request`]) and
//!   answers with the [`Response`] its script returns for it: a complete body, or a [`Stream`] written in paced
//!   pieces that ends by closing, resetting the connection, holding it open or writing what the test feeds it
//!   ([`StreamEnd`]). It notes when a client closes a connection early and when a stream was written to the end.
//! - [`openai`] puts an OpenAI-compatible chat-completions script on top: the n-th request gets the n-th
//!   [`openai::Reply`], built from the chunk builders there.
//!
//! - [`proxy`] is a loopback proxy (HTTP forwarding, `CONNECT`, SOCKS5) that notes every connection it makes:
//!   [`TestProxy`] in the test's process, or the `pi-test-proxy` binary as a process of its own.
//!
//! The server stops, closing every connection, when it is dropped. [`ReferenceServer`] finds the MCP reference
//! server the tests run. [`pdf`] writes small PDFs (with a text layer, or pages without one, as a scan).

mod error;
mod mcp_server;
pub mod openai;
mod pacing;
pub mod pdf;
pub mod proxy;
mod request;
mod response;
mod server;
mod write;

pub use error::ServerError;
pub use mcp_server::{ReferenceServer, ReferenceServerError};
pub use proxy::{Proxied, ProxyProtocol, TestProxy};
pub use request::Request;
pub use response::{Pacing, Response, Stream, StreamEnd};
pub use server::LoopbackServer;
