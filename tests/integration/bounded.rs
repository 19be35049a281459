//! Bounded work in the server: connections that send nothing, trickle their request or
//! idle after one are closed after the header timeout.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::util::shared_db;

/// A server over `db` whose header timeout is `timeout`.
fn server_with_timeout(db: &Path, timeout: Duration) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let app = puzzlebase::server::router(db).expect("the file opens");
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            puzzlebase::server::serve_with(listener, app, std::future::pending(), timeout)
                .await
                .unwrap();
        });
    });
    addr
}

/// Whether the server closes `s` within `limit` (reads until end of stream).
fn closed_within(mut s: TcpStream, limit: Duration) -> bool {
    s.set_read_timeout(Some(limit)).unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
        if started.elapsed() > limit {
            return false;
        }
    }
}

#[test]
fn silent_trickling_and_idle_connections_are_closed() {
    let addr = server_with_timeout(shared_db(), Duration::from_millis(800));
    let silent = TcpStream::connect(addr).unwrap();
    let mut trickle = TcpStream::connect(addr).unwrap();
    trickle.write_all(b"GET /api/puzzles HT").unwrap();
    let mut idle = TcpStream::connect(addr).unwrap();
    idle.write_all(b"GET /app.css HTTP/1.1\r\nhost: x\r\n\r\n")
        .unwrap();
    // Many at once, as a slowloris client opens them.
    let many: Vec<TcpStream> = (0..50).map(|_| TcpStream::connect(addr).unwrap()).collect();
    let limit = Duration::from_secs(5);
    assert!(
        closed_within(silent, limit),
        "a silent connection stays open"
    );
    assert!(
        closed_within(trickle, limit),
        "a trickling request stays open"
    );
    assert!(
        closed_within(idle, limit),
        "an idle kept-alive connection stays open"
    );
    for s in many {
        assert!(closed_within(s, limit));
    }
    // The server still answers.
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(b"GET /api/puzzles HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
}

/// The address limit the operations guide states, 4,096 bytes, is the one enforced:
/// an address of exactly that length is routed (404 here), one byte more is 414.
#[test]
fn the_stated_address_limit_is_the_enforced_one() {
    let doc = include_str!("../../docs/operations.md");
    assert!(doc.contains("longer than 4,096 bytes 414"));
    let addr = server_with_timeout(shared_db(), Duration::from_secs(5));
    let status = |len: usize| {
        let path = format!("/{}", "x".repeat(len - 1));
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(
            format!("GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").as_bytes(),
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out[9..12].to_string()
    };
    assert_eq!(status(4096), "404");
    assert_eq!(status(4097), "414");
}
