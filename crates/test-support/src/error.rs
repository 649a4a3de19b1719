//! Why a loopback server could not start.

/// A loopback server could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// No listener on `127.0.0.1` with a free port.
    #[error("cannot bind a loopback port: {0}")]
    Bind(#[source] std::io::Error),
    /// The listener has no local address to report.
    #[error("the loopback listener has no local address: {0}")]
    LocalAddr(#[source] std::io::Error),
}
