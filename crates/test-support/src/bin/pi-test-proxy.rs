//! `pi-test-proxy`: the tests' loopback proxy ([`pi_test_support::proxy`]) as a process of its own.
//!
//! It binds `127.0.0.1` (the port given with `--port`, else a free one) and prints one JSON line per event on
//! stdout: first `{"listening":"127.0.0.1:<port>"}`, then `{"protocol":"forward"|"connect"|"socks5",
//! "target":"<host>:<port>"}` for every connection it makes for a client, before making it. It exits when its
//! stdin closes, so it never outlives the test that started it.

use std::io::Write as _;
use std::net::Ipv4Addr;

use serde_json::json;
use tokio::io::AsyncReadExt as _;
use tokio::net::TcpListener;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let mut port: u16 = 0;
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().map(|value| value.parse::<u16>())) {
            ("--port", Some(Ok(value))) => port = value,
            _ => {
                eprintln!("usage: pi-test-proxy [--port N]");
                return std::process::ExitCode::from(2);
            }
        }
    }
    let listener = match TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("pi-test-proxy: cannot bind 127.0.0.1:{port}: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let Ok(address) = listener.local_addr() else {
        eprintln!("pi-test-proxy: the listener has no address");
        return std::process::ExitCode::FAILURE;
    };
    print_line(&json!({ "listening": address.to_string() }));
    let proxy = tokio::spawn(pi_test_support::proxy::serve(listener, |proxied| {
        print_line(&json!({
            "protocol": proxied.protocol.as_str(),
            "target": proxied.target,
        }));
    }));
    let mut stdin = tokio::io::stdin();
    let mut sink = [0u8; 256];
    while matches!(stdin.read(&mut sink).await, Ok(read) if read > 0) {}
    proxy.abort();
    std::process::ExitCode::SUCCESS
}

fn print_line(value: &serde_json::Value) {
    let mut stdout = std::io::stdout().lock();
    // A closed stdout means the test is gone; the stdin check ends the process then.
    let _ = writeln!(stdout, "{value}");
    let _ = stdout.flush();
}
