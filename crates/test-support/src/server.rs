//! The loopback server: a listener on `127.0.0.1` with a free port, one task per connection reading requests and
//! writing what the script answers, and what the tests can ask of it afterwards (the requests, when clients
//! closed connections early, when the last stream ended) or give it (bytes for a fed stream).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, mpsc};
use tokio::task::{JoinHandle, JoinSet};

use crate::error::ServerError;
use crate::request::{Request, read_request};
use crate::response::Response;
use crate::write::{After, write_response};

/// What the script of a [`LoopbackServer`] is: the answer to a request, given the request and its place in
/// arrival order (0 for the first).
type Script = dyn Fn(&Request, usize) -> Response + Send + Sync;

/// A running loopback server; it stops, closing every connection, when dropped.
pub struct LoopbackServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

/// What a test gives the open stream of a [`crate::StreamEnd::Feed`].
#[derive(Debug)]
pub(crate) enum Fed {
    /// Written as they are.
    Bytes(Vec<u8>),
    /// Written, and then the body ends as [`crate::StreamEnd::Close`] ends it.
    Last(Vec<u8>),
}

/// The state the connections share with the server's handle.
pub(crate) struct Shared {
    requests: Mutex<Vec<Request>>,
    closed: Mutex<Vec<Instant>>,
    last_byte_at: Mutex<Option<Instant>>,
    changed: Notify,
    feed: mpsc::UnboundedSender<Fed>,
    /// What is fed to the stream of a [`crate::StreamEnd::Feed`] (one such stream at a time).
    pub(crate) fed: tokio::sync::Mutex<mpsc::UnboundedReceiver<Fed>>,
}

impl Shared {
    fn new() -> Self {
        let (feed, fed) = mpsc::unbounded_channel();
        Self {
            requests: Mutex::new(Vec::new()),
            closed: Mutex::new(Vec::new()),
            last_byte_at: Mutex::new(None),
            changed: Notify::new(),
            feed,
            fed: tokio::sync::Mutex::new(fed),
        }
    }

    /// Records a request; returns its place in arrival order.
    fn push_request(&self, request: Request) -> usize {
        let mut requests = self.requests.lock().unwrap_or_else(PoisonError::into_inner);
        requests.push(request);
        let index = requests.len() - 1;
        drop(requests);
        self.changed.notify_waiters();
        index
    }

    /// Notes that the client closed a connection while a response was being written or held open.
    pub(crate) fn note_client_closed(&self) {
        self.closed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Instant::now());
        self.changed.notify_waiters();
    }

    /// Notes that a stream was written to its end.
    pub(crate) fn note_last_byte(&self) {
        *self
            .last_byte_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl LoopbackServer {
    /// Binds `127.0.0.1` on a free port and answers every request with what `script` returns for it (given
    /// the request and its place in arrival order, 0 for the first).
    pub async fn start<F>(script: F) -> Result<Self, ServerError>
    where
        F: Fn(&Request, usize) -> Response + Send + Sync + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(ServerError::Bind)?;
        let addr = listener.local_addr().map_err(ServerError::LocalAddr)?;
        let shared = Arc::new(Shared::new());
        let script: Arc<Script> = Arc::new(script);
        let task = tokio::spawn({
            let shared = Arc::clone(&shared);
            async move {
                // Dropping the set (when the server is dropped) aborts the connections still open.
                let mut connections = JoinSet::new();
                while let Ok((socket, _)) = listener.accept().await {
                    while connections.try_join_next().is_some() {}
                    let shared = Arc::clone(&shared);
                    let script = Arc::clone(&script);
                    connections.spawn(async move { serve(socket, &shared, &*script).await });
                }
            }
        });
        Ok(Self { addr, shared, task })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The requests received so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// When clients closed a connection while a response was being written or held open, in order.
    pub fn closed(&self) -> Vec<Instant> {
        self.shared
            .closed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits until clients closed `n` connections early (see [`LoopbackServer::closed`]); returns when the
    /// n-th was closed (at once if that already happened).
    pub async fn wait_closed(&self, n: usize) -> Instant {
        loop {
            let changed = self.shared.changed.notified();
            if let Some(at) = self.closed().get(n.saturating_sub(1)) {
                return *at;
            }
            changed.await;
        }
    }

    /// When the last stream that ended as [`crate::StreamEnd::Close`] (or a fed one ended by
    /// [`LoopbackServer::finish_feed`]) was written to its end.
    pub fn last_byte_at(&self) -> Option<Instant> {
        *self
            .shared
            .last_byte_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes `bytes` to the open stream of a [`crate::StreamEnd::Feed`]; queued until that stream starts.
    pub fn feed(&self, bytes: impl Into<Vec<u8>>) {
        self.send(Fed::Bytes(bytes.into()));
    }

    /// Writes `last` to the open stream of a [`crate::StreamEnd::Feed`] and ends its body; queued like
    /// [`LoopbackServer::feed`].
    pub fn finish_feed(&self, last: impl Into<Vec<u8>>) {
        self.send(Fed::Last(last.into()));
    }

    fn send(&self, fed: Fed) {
        // The receiving end lives in `shared` as long as `self`, so the channel is never closed here.
        let _ = self.shared.feed.send(fed);
    }
}

/// Answers the requests of one connection until it closes or a response ends it.
async fn serve(mut socket: TcpStream, shared: &Shared, script: &Script) {
    let mut buffer = Vec::new();
    while let Some(request) = read_request(&mut socket, &mut buffer).await {
        let response = script(&request, shared.push_request(request.clone()));
        if matches!(
            write_response(&mut socket, &response, shared).await,
            After::Close
        ) {
            return;
        }
    }
}
