//! A small proxy on loopback for the proxy tests, speaking the three ways clients use one, all on one port:
//! HTTP forwarding (a request in absolute form, `GET http://host:port/path`), HTTP `CONNECT` tunnels and SOCKS5
//! (no authentication, `CONNECT` only; the first byte tells them apart). It notes every connection it makes for a
//! client ([`Proxied`]) before it makes it.
//!
//! Host names under the reserved `.test` top-level domain (RFC 6761) resolve to `127.0.0.1`, so a test can name a
//! loopback model server `http://models.example.test:<port>/v1`: a client reaches it only through the proxy, as
//! the name resolves nowhere else. [`TestProxy`] runs it in the test's process; the `pi-test-proxy` binary runs
//! the same code as a process of its own.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::{JoinHandle, JoinSet};

use crate::error::ServerError;

/// How a client asked the proxy for a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProxyProtocol {
    /// An HTTP request in absolute form, forwarded.
    Forward,
    /// An HTTP `CONNECT` tunnel.
    Connect,
    /// A SOCKS5 `CONNECT`.
    Socks5,
}

impl ProxyProtocol {
    /// `forward`, `connect` or `socks5`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProxyProtocol::Forward => "forward",
            ProxyProtocol::Connect => "connect",
            ProxyProtocol::Socks5 => "socks5",
        }
    }
}

/// One connection the proxy made for a client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proxied {
    /// How the client asked.
    pub protocol: ProxyProtocol,
    /// `host:port` as the client named it.
    pub target: String,
    /// The `Proxy-Authorization` header of an HTTP request (`Basic …`), if any.
    pub authorization: Option<String>,
}

/// A running proxy on a free loopback port; it stops, closing every connection, when dropped.
pub struct TestProxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

#[derive(Default)]
struct Shared {
    proxied: Mutex<Vec<Proxied>>,
    changed: Notify,
}

impl Drop for TestProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl TestProxy {
    /// Binds `127.0.0.1` on a free port and proxies every connection.
    pub async fn start() -> Result<TestProxy, ServerError> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .map_err(ServerError::Bind)?;
        let addr = listener.local_addr().map_err(ServerError::LocalAddr)?;
        let shared = Arc::new(Shared::default());
        let task = tokio::spawn({
            let shared = Arc::clone(&shared);
            async move {
                serve(listener, move |proxied| {
                    shared
                        .proxied
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(proxied);
                    shared.changed.notify_waiters();
                })
                .await;
            }
        });
        Ok(TestProxy { addr, shared, task })
    }

    /// `http://127.0.0.1:<port>`, for HTTP forwarding and `CONNECT`.
    pub fn http_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `socks5h://127.0.0.1:<port>` (the proxy resolves the names).
    pub fn socks5h_url(&self) -> String {
        format!("socks5h://{}", self.addr)
    }

    /// The connections made so far, in order.
    pub fn proxied(&self) -> Vec<Proxied> {
        self.shared
            .proxied
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits until `n` connections were made; returns them all.
    pub async fn wait_proxied(&self, n: usize) -> Vec<Proxied> {
        loop {
            let changed = self.shared.changed.notified();
            let proxied = self.proxied();
            if proxied.len() >= n {
                return proxied;
            }
            changed.await;
        }
    }
}

/// Proxies every connection `listener` accepts until the task is dropped; `on_proxied` hears of each connection
/// before it is made.
pub async fn serve(listener: TcpListener, on_proxied: impl Fn(Proxied) + Send + Sync + 'static) {
    let on_proxied = Arc::new(on_proxied);
    // Dropping the set (when the task is aborted) aborts the connections still open.
    let mut connections = JoinSet::new();
    while let Ok((socket, _)) = listener.accept().await {
        while connections.try_join_next().is_some() {}
        let on_proxied = Arc::clone(&on_proxied);
        connections.spawn(async move {
            // A client that goes away mid-handshake is no concern of the test's.
            let _ = handle(socket, &*on_proxied).await;
        });
    }
}

async fn handle(
    mut client: TcpStream,
    on_proxied: &(dyn Fn(Proxied) + Sync),
) -> std::io::Result<()> {
    let mut first = [0u8; 1];
    client.peek(&mut first).await?;
    if first[0] == 5 {
        return socks5(client, on_proxied).await;
    }
    let mut buffer = Vec::new();
    let Some(head_end) = read_head(&mut client, &mut buffer).await? else {
        return Ok(());
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let rest = buffer[head_end + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (method, target, version) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or("HTTP/1.1"),
    );
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .collect();
    let authorization = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("proxy-authorization"))
        .map(|(_, value)| value.clone());
    if method.eq_ignore_ascii_case("CONNECT") {
        on_proxied(Proxied {
            protocol: ProxyProtocol::Connect,
            target: target.to_owned(),
            authorization,
        });
        let Ok(mut upstream) = connect(target).await else {
            client
                .write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
                .await?;
            return Ok(());
        };
        client
            .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            .await?;
        upstream.write_all(&rest).await?;
        tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
        return Ok(());
    }
    let Some((authority, path)) = absolute_form(target) else {
        client
            .write_all(
                b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            )
            .await?;
        return Ok(());
    };
    on_proxied(Proxied {
        protocol: ProxyProtocol::Forward,
        target: authority.clone(),
        authorization,
    });
    let Ok(mut upstream) = connect(&authority).await else {
        client
            .write_all(
                b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            )
            .await?;
        return Ok(());
    };
    // One request per connection: both sides are told the connection closes after it.
    let mut forwarded = format!("{method} {path} {version}\r\n");
    for (name, value) in &headers {
        let lower = name.to_ascii_lowercase();
        if lower.starts_with("proxy-") || lower == "connection" {
            continue;
        }
        forwarded.push_str(&format!("{name}: {value}\r\n"));
    }
    forwarded.push_str("connection: close\r\n\r\n");
    upstream.write_all(forwarded.as_bytes()).await?;
    upstream.write_all(&rest).await?;
    let (mut client_read, mut client_write) = client.split();
    let (mut upstream_read, mut upstream_write) = upstream.split();
    // The request body ends when the client half-closes or sends its next request: the response decides.
    let request_body = async {
        let _ = tokio::io::copy(&mut client_read, &mut upstream_write).await;
        std::future::pending::<()>().await;
    };
    let response = async {
        let mut buffer = Vec::new();
        let Some(head_end) = read_head(&mut upstream_read, &mut buffer).await? else {
            return Ok(());
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
        let mut rewritten = String::new();
        for line in head.split("\r\n") {
            if line
                .split_once(':')
                .is_some_and(|(name, _)| name.trim().eq_ignore_ascii_case("connection"))
            {
                continue;
            }
            rewritten.push_str(line);
            rewritten.push_str("\r\n");
        }
        rewritten.push_str("connection: close\r\n\r\n");
        client_write.write_all(rewritten.as_bytes()).await?;
        client_write.write_all(&buffer[head_end + 4..]).await?;
        tokio::io::copy(&mut upstream_read, &mut client_write).await?;
        client_write.shutdown().await
    };
    tokio::select! {
        result = response => result,
        () = request_body => Ok(()),
    }
}

/// `http://host:port/path` → (`host:port`, `/path`); the port defaults to 80.
fn absolute_form(target: &str) -> Option<(String, String)> {
    let rest = target.strip_prefix("http://")?;
    let (authority, path) = match rest.find('/') {
        Some(slash) => (&rest[..slash], &rest[slash..]),
        None => (rest, "/"),
    };
    if authority.is_empty() {
        return None;
    }
    let authority = if authority
        .rsplit_once(':')
        .is_some_and(|(_, port)| !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()))
    {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    Some((authority, path.to_owned()))
}

/// Connects to `host:port`; names under `.test` are `127.0.0.1`.
async fn connect(authority: &str) -> std::io::Result<TcpStream> {
    let invalid = || std::io::Error::new(std::io::ErrorKind::InvalidInput, "not host:port");
    let (host, port) = authority.rsplit_once(':').ok_or_else(invalid)?;
    let port: u16 = port.parse().map_err(|_| invalid())?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let lower = host.to_ascii_lowercase();
    if lower == "test" || lower.ends_with(".test") {
        return TcpStream::connect((Ipv4Addr::LOCALHOST, port)).await;
    }
    TcpStream::connect((host, port)).await
}

/// Reads until the end of an HTTP head; the index of its `\r\n\r\n`, or `None` when the peer closed first.
async fn read_head(
    socket: &mut (impl AsyncReadExt + Unpin),
    buffer: &mut Vec<u8>,
) -> std::io::Result<Option<usize>> {
    loop {
        if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            return Ok(Some(end));
        }
        if buffer.len() > 64 * 1024 {
            return Ok(None);
        }
        let mut chunk = [0u8; 4096];
        let read = socket.read(&mut chunk).await?;
        if read == 0 {
            return Ok(None);
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
}

/// SOCKS5 without authentication (RFC 1928): the greeting, one `CONNECT`, then the tunnel.
async fn socks5(
    mut client: TcpStream,
    on_proxied: &(dyn Fn(Proxied) + Sync),
) -> std::io::Result<()> {
    let mut greeting = [0u8; 2];
    client.read_exact(&mut greeting).await?;
    let mut methods = vec![0u8; usize::from(greeting[1])];
    client.read_exact(&mut methods).await?;
    if !methods.contains(&0) {
        client.write_all(&[5, 0xff]).await?;
        return Ok(());
    }
    client.write_all(&[5, 0]).await?;
    let mut request = [0u8; 4];
    client.read_exact(&mut request).await?;
    let host = match request[3] {
        1 => {
            let mut ip = [0u8; 4];
            client.read_exact(&mut ip).await?;
            Ipv4Addr::from(ip).to_string()
        }
        3 => {
            let mut length = [0u8; 1];
            client.read_exact(&mut length).await?;
            let mut name = vec![0u8; usize::from(length[0])];
            client.read_exact(&mut name).await?;
            String::from_utf8_lossy(&name).into_owned()
        }
        4 => {
            let mut ip = [0u8; 16];
            client.read_exact(&mut ip).await?;
            format!("[{}]", std::net::Ipv6Addr::from(ip))
        }
        _ => {
            client.write_all(&[5, 8, 0, 1, 0, 0, 0, 0, 0, 0]).await?;
            return Ok(());
        }
    };
    let mut port = [0u8; 2];
    client.read_exact(&mut port).await?;
    let target = format!("{host}:{}", u16::from_be_bytes(port));
    if request[1] != 1 {
        client.write_all(&[5, 7, 0, 1, 0, 0, 0, 0, 0, 0]).await?;
        return Ok(());
    }
    on_proxied(Proxied {
        protocol: ProxyProtocol::Socks5,
        target: target.clone(),
        authorization: None,
    });
    let Ok(mut upstream) = connect(&target).await else {
        client.write_all(&[5, 5, 0, 1, 0, 0, 0, 0, 0, 0]).await?;
        return Ok(());
    };
    client.write_all(&[5, 0, 0, 1, 0, 0, 0, 0, 0, 0]).await?;
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_form_targets_split_into_authority_and_path() {
        assert_eq!(
            absolute_form("http://models.example.test:8080/v1/models?x=1"),
            Some((
                "models.example.test:8080".to_owned(),
                "/v1/models?x=1".to_owned()
            ))
        );
        assert_eq!(
            absolute_form("http://example.test"),
            Some(("example.test:80".to_owned(), "/".to_owned()))
        );
        assert_eq!(absolute_form("/v1/models"), None);
        assert_eq!(absolute_form("http:///x"), None);
    }
}
