//! Bounded work: connections that send nothing, trickle their request or idle after one
//! are closed after the header timeout; a search has a deadline, stops when its client
//! goes away, and runs beside at most a set number of others (503 beyond).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use puzzlebase_cli::server::ServeOptions;

use crate::flips::every_kind;
use crate::serve::start_server_with;
use crate::util::{assert_clean_failure, run, shared_db};

/// A position the default 6-6-3 tables take a minute or two to search.
const HARD: &str = "0,12,10,13,15,11,14,9,3,7,2,5,4,8,6,1";
/// One they search in milliseconds.
const EASY: &str = "8,5,7,3,1,15,2,4,6,9,14,11,13,0,10,12";

/// Status line and body of one GET.
fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").as_bytes())
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    (out[9..12].parse().unwrap(), out)
}

fn position(state: &str) -> String {
    format!("/api/puzzles/fifteen/positions/{state}")
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
    let addr = start_server_with(
        shared_db(),
        Duration::from_millis(800),
        ServeOptions::default(),
    );
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
    let (status, out) = get(addr, "/api/puzzles");
    assert_eq!(status, 200, "{out}");
}

/// The address limit the operations guide states, 4,096 bytes, is the one enforced:
/// an address of exactly that length is routed (404 here), one byte more is 414.
#[test]
fn the_stated_address_limit_is_the_enforced_one() {
    let doc = include_str!("../../docs/operations.md");
    assert!(doc.contains("longer than 4,096 bytes 414"));
    let addr = start_server_with(shared_db(), Duration::from_secs(5), ServeOptions::default());
    let status = |len: usize| get(addr, &format!("/{}", "x".repeat(len - 1))).0;
    assert_eq!(status(4096), 404);
    assert_eq!(status(4097), 414);
}

/// A search past its deadline is refused (503), on the server and in `query`.
#[test]
fn a_search_past_its_deadline_is_refused() {
    let opts = ServeOptions {
        search_timeout: Duration::from_millis(500),
        max_searches: 2,
        ..ServeOptions::default()
    };
    let addr = start_server_with(every_kind(), Duration::from_secs(10), opts);
    let started = Instant::now();
    let (status, body) = get(addr, &position(HARD));
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("gave up"), "{body}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(get(addr, &position(EASY)).0, 200);

    let db = every_kind().to_str().unwrap();
    let err = assert_clean_failure(
        &run(&[
            "query",
            "--db",
            db,
            "--puzzle",
            "fifteen",
            "--state",
            HARD,
            "--timeout",
            "0.5",
        ]),
        1,
    );
    assert!(err.contains("gave up"), "{err}");
    // The message counts the whole answer, loading the tables included, and names the
    // option that gives a search more time.
    assert!(err.contains("loading its tables included"), "{err}");
    assert!(err.contains("--timeout"), "{err}");
    let after: f64 = (err.split("gave up after ").nth(1))
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("seconds in {err}"));
    assert!(
        after >= 0.5,
        "the whole half second, not only the search: {err}"
    );
    let o = run(&[
        "query",
        "--db",
        db,
        "--puzzle",
        "fifteen",
        "--state",
        EASY,
        "--timeout",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(2), "a timeout of 0 is a usage error");
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a number of seconds"));
}

/// Beyond the limit a search is refused at once with 503 and `Retry-After`; the cheap
/// routes answer meanwhile; and a search whose client goes away stops, freeing its place.
#[test]
fn searches_are_limited_and_stop_when_their_client_goes_away() {
    let opts = ServeOptions {
        search_timeout: Duration::from_secs(60),
        max_searches: 1,
        ..ServeOptions::default()
    };
    let addr = start_server_with(every_kind(), Duration::from_secs(10), opts);
    // A search that would run for a minute, from a client that leaves after a moment.
    let mut leaving = TcpStream::connect(addr).unwrap();
    leaving
        .write_all(format!("GET {} HTTP/1.1\r\nhost: x\r\n\r\n", position(HARD)).as_bytes())
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let (status, busy) = get(addr, &position(EASY));
    assert_eq!(status, 503, "{busy}");
    assert!(busy.to_lowercase().contains("retry-after: 1"), "{busy}");
    for _ in 0..5 {
        assert_eq!(get(addr, "/api/puzzles").0, 200);
    }
    drop(leaving);
    // Its search stops within moments, and the next one runs.
    let started = Instant::now();
    loop {
        match get(addr, &position(EASY)).0 {
            200 => break,
            503 if started.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(100))
            }
            s => panic!("the abandoned search still holds its place ({s})"),
        }
    }
}
