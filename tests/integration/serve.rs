//! `puzzlebase serve`: every route of the JSON API on every light puzzle, checked
//! against `query --json` (one code path), the legal moves against the file, and the bad
//! inputs (unknown puzzle, malformed and unsolvable states, a 1 MB URL, invalid UTF-8,
//! `..`), each a 4xx with a JSON reason.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::OnceLock;

use puzzlebase::Definition;
use serde_json::Value;

use crate::util::{LIGHT, query_json, run, shared_db};

/// A server on a free loopback port over `db`, running for the rest of the test run.
pub fn start_server(db: &Path) -> SocketAddr {
    start_server_with(
        db,
        puzzlebase_cli::server::HEADER_TIMEOUT,
        puzzlebase_cli::server::ServeOptions::default(),
    )
}

/// [`start_server`] with a chosen header timeout and limits.
pub fn start_server_with(
    db: &Path,
    header_timeout: std::time::Duration,
    opts: puzzlebase_cli::server::ServeOptions,
) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let app = puzzlebase_cli::server::router_with(db, opts).expect("the file opens");
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            puzzlebase_cli::server::serve_with(
                listener,
                app,
                std::future::pending(),
                header_timeout,
            )
            .await
            .unwrap();
        });
    });
    addr
}

fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| start_server(shared_db()))
}

/// Sends one raw request line (any bytes) and returns the status, content type and body.
fn raw(target: &[u8], method: &str) -> (u16, String, Vec<u8>) {
    raw_at(server(), target, method)
}

/// [`raw`] to the server at `addr`.
pub fn raw_at(addr: SocketAddr, target: &[u8], method: &str) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    let mut req = format!("{method} ").into_bytes();
    req.extend_from_slice(target);
    req.extend_from_slice(b" HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    // The server may answer an oversized request before reading all of it.
    let _ = s.write_all(&req);
    let mut resp = Vec::new();
    s.read_to_end(&mut resp).unwrap();
    let end = resp
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete response");
    let head = String::from_utf8_lossy(&resp[..end]).to_string();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let ctype = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-type:")
                .map(|v| v.trim().to_string())
        })
        .unwrap_or_default();
    (status, ctype, resp[end + 4..].to_vec())
}

/// GETs `path` from the server at `addr` and parses its JSON answer, which must be a
/// 200 (the other modules' servers of their own files).
pub fn ok_at(addr: SocketAddr, path: &str) -> Value {
    let (status, _, body) = raw_at(addr, path.as_bytes(), "GET");
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(status, 200, "{path}: {v}");
    v
}

/// GETs `path` and parses the JSON answer, with its status.
fn get(path: &str) -> (u16, Value) {
    let (status, ctype, body) = raw(path.as_bytes(), "GET");
    assert_eq!(ctype, "application/json", "{path}");
    (status, serde_json::from_slice(&body).unwrap())
}

fn ok(path: &str) -> Value {
    let (status, v) = get(path);
    assert_eq!(status, 200, "{path}: {v}");
    v
}

/// A 4xx with a JSON reason containing `why`.
fn refused(path: &[u8], status: u16, why: &str) {
    let (got, ctype, body) = raw(path, "GET");
    let text = String::from_utf8_lossy(&body);
    assert_eq!(
        got,
        status,
        "{}: {text}",
        String::from_utf8_lossy(&path[..path.len().min(80)])
    );
    assert_eq!(ctype, "application/json");
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert!(v["error"].as_str().unwrap().contains(why), "{text}");
    assert_eq!(v["status"], status);
}

fn enc(s: &str) -> String {
    s.replace(' ', "%20")
}

#[test]
fn puzzles_route_is_list_json() {
    let o = run(&["list", "--db", shared_db().to_str().unwrap(), "--json"]);
    let listed: Vec<Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(ok("/api/puzzles"), Value::Array(listed));
}

#[test]
fn the_page_and_its_assets_are_served() {
    let (status, ctype, body) = raw(b"/", "GET");
    assert_eq!((status, ctype.as_str()), (200, "text/html; charset=utf-8"));
    let page = String::from_utf8(body).unwrap();
    assert!(page.contains("app.js") && page.contains("id=\"board\""));
    // Nothing is loaded from elsewhere (the SVG namespace is a name, not a fetch).
    for reference in ["src=\"http", "href=\"http", "src=\"//", "href=\"//"] {
        assert!(!page.contains(reference), "no network: {reference}");
    }
    for (path, kind) in [("/app.js", "text/javascript"), ("/app.css", "text/css")] {
        let (status, ctype, body) = raw(path.as_bytes(), "GET");
        assert_eq!(status, 200);
        assert!(ctype.starts_with(kind), "{ctype}");
        assert!(body.len() > 500);
    }
}

/// Every light puzzle's page: layout, figures and its family's extras; every position
/// answer equals `query --json` plus the legal moves, whose distances are the file's.
#[test]
fn every_puzzle_and_its_positions() {
    for &name in LIGHT {
        let p = Definition::builtin(name).unwrap();
        let page = ok(&format!("/api/puzzles/{name}"));
        assert_eq!(page["puzzle"], name);
        let cells = page["layout"]["cells"].as_array().unwrap();
        assert!(cells.len() >= 7, "{name}");
        let family = page["family"].as_str().unwrap();
        if family != "tour" {
            assert!(page["histogram"].is_array() || page["histogram"].is_object());
        }
        if p.graph().is_some() || p.peg_board().is_some() {
            let h: u64 = page["histogram"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .sum();
            assert!(h > 0);
            let longest = query_json(&["--puzzle", name, "--longest"]);
            assert_eq!(page["longest"]["states"], longest["states"], "{name}");
            let mut examples: Vec<String> = longest["states"]
                .as_array()
                .unwrap()
                .iter()
                .take(2)
                .map(|s| s.as_str().unwrap().to_string())
                .collect();
            if let Some(s) = page["start"].as_str() {
                examples.push(s.to_string());
            }
            for s in examples {
                check_position(&p, &s);
            }
        } else if family == "magic" {
            let sums = page["solutions"].as_object().unwrap();
            let total: usize = sums.values().map(|v| v.as_array().unwrap().len()).sum();
            assert_eq!(total, 18, "18 canonical magic triangles over sums 17-23");
            assert_eq!(sums["20"].as_array().unwrap().len(), 6);
        } else if family == "tour" {
            let count = page["tours"]["count"].as_u64().unwrap();
            assert_eq!(count, if name == "knight-tour" { 1 } else { 9862 });
        } else {
            // `fifteen`'s pages are tested in fifteen.rs, Rush Hour's in blocks.rs.
            panic!("{name}: a {family} puzzle in the light file");
        }
        if let Some(b) = p.peg_board() {
            assert_eq!(page["matrix"].as_array().unwrap().len(), b.holes);
        }
    }
}

/// The position answer is the `query --json` answer plus every legal move, each with
/// the distance `query` gives for where it leads, best first.
fn check_position(p: &Definition, state: &str) {
    let name = p.name();
    let mut a = ok(&format!("/api/puzzles/{name}/positions/{}", enc(state)));
    let moves = a["legal_moves"].take();
    a.as_object_mut().unwrap().remove("legal_moves");
    assert_eq!(
        a,
        query_json(&["--puzzle", name, "--state", state]),
        "{name}"
    );
    let moves = moves.as_array().unwrap();
    let expected = match (p.graph(), p.peg_board()) {
        (Some(g), _) => {
            let mut nbs = Vec::new();
            g.neighbors(g.parse(state).unwrap(), &mut nbs);
            nbs.len()
        }
        (_, Some(b)) => b.moves(b.parse(state).unwrap()).len(),
        _ => unreachable!(),
    };
    assert_eq!(moves.len(), expected, "{name} {state}: every legal move");
    let d = a["distance"].as_u64().unwrap();
    let mut last = 0;
    for m in moves {
        let to = m["state"].as_str().unwrap();
        let q = crate::util::run(&[
            "query",
            "--db",
            shared_db().to_str().unwrap(),
            "--json",
            "--puzzle",
            name,
            "--state",
            to,
        ]);
        let dist = if q.status.success() {
            let v: Value = serde_json::from_slice(&q.stdout).unwrap();
            v["distance"].as_u64()
        } else {
            None
        };
        assert_eq!(m["distance"].as_u64(), dist, "{name} {state} -> {to}");
        let rank = dist.unwrap_or(u64::MAX);
        assert!(rank >= last, "{name}: best first");
        last = rank;
        if let Some(x) = dist {
            assert!(
                x + 1 >= d && x <= d + 1,
                "{name}: one move changes the distance by one at most"
            );
        }
    }
    if d > 0 {
        assert_eq!(
            moves[0]["distance"].as_u64(),
            Some(d - 1),
            "{name}: a best move"
        );
    }
}

#[test]
fn published_answers_through_the_api() {
    let a = ok("/api/puzzles/eight/positions/867254301");
    assert_eq!(
        (a["distance"].as_u64(), a["solutions"].as_u64()),
        (Some(31), Some(40))
    );
    let moves = a["legal_moves"].as_array().unwrap();
    assert_eq!(moves.len(), 3);
    assert!(moves.iter().all(|m| m["distance"] == 30));
    // The blank (cell 7) takes the tile from cell 4, 6 or 8.
    assert_eq!(moves[0]["move"]["to"], serde_json::json!([7]));

    let h = ok("/api/puzzles/hoppers/positions/1111110111111");
    assert_eq!(
        (h["distance"].as_u64(), h["solutions"].as_u64()),
        (Some(7), Some(72))
    );
    let first = &h["legal_moves"][0]["move"];
    assert_eq!(first["jumps"].as_array().unwrap().len(), 2);

    let k = ok("/api/puzzles/knight-swap/positions/BBB------WWW");
    assert_eq!(k["distance"], 16);
    let o = ok("/api/puzzles/oshidori/positions/BWBWBW--");
    assert_eq!(o["distance"], 4);
    assert!(
        o["legal_moves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| { m["move"]["from"].as_array().unwrap().len() == 2 })
    );

    let m = ok("/api/puzzles/magic-triangle/positions/168524937");
    assert_eq!(m["sums"], serde_json::json!([20, 20, 20]));
    assert_eq!(
        (m["solution"].as_bool(), m["canonical"].as_str()),
        (Some(true), Some("168524937"))
    );
    let not = ok("/api/puzzles/magic-triangle/positions/123456789");
    assert_eq!(not["solution"], false);
    let t = ok(&format!(
        "/api/puzzles/knight-tour/positions/{}",
        enc("6 12 11 4 9 2 1 7 13 8 3 10 5 0")
    ));
    assert_eq!(t["state"], "0 6 12 11 4 9 2 1 7 13 8 3 10 5");
    assert_eq!(t["solution"], true);
}

#[test]
fn a_position_that_cannot_finish_still_lists_its_moves() {
    // hoppers stores every reachable position; some of them cannot finish.
    let b = crate::util::peg_board("hoppers");
    // Breadth-first from the start until the file says a position cannot finish.
    let mut layer = vec![b.start];
    let mut dead = None;
    'search: for _ in 0..6 {
        let mut next = Vec::new();
        for &bits in &layer {
            for (_, after) in b.moves(bits) {
                let s = b.format(after);
                let (status, v) = get(&format!("/api/puzzles/hoppers/positions/{s}"));
                if status == 422 {
                    dead = Some(v);
                    break 'search;
                }
                assert_eq!(status, 200, "{v}");
                next.push(after);
            }
        }
        next.sort_unstable();
        next.dedup();
        next.truncate(50);
        layer = next;
    }
    let v = dead.expect("hoppers has reachable positions that cannot finish");
    assert!(
        v["error"].as_str().unwrap().contains("cannot finish"),
        "{v}"
    );
    assert_eq!(v["status"], 422);
    assert!(v["distance"].is_null());
    assert!(
        v["legal_moves"].is_array(),
        "still described, to step back from"
    );
}

#[test]
fn bad_inputs_are_json_4xx() {
    refused(b"/api/puzzles/nope", 404, "unknown puzzle");
    refused(b"/api/puzzles/nope/positions/1", 404, "unknown puzzle");
    refused(b"/api/puzzles/eleven", 404, "generate --puzzle eleven");
    refused(
        b"/api/puzzles/eight/positions/12345",
        400,
        "expected 9 cells",
    );
    refused(b"/api/puzzles/eight/positions/1234567a0", 400, "malformed");
    refused(
        b"/api/puzzles/eight/positions/123456870",
        422,
        "cannot be solved",
    );
    refused(
        b"/api/puzzles/knight-swap/positions/BBBB-----WWW",
        400,
        "malformed",
    );
    refused(
        b"/api/puzzles/magic-triangle/positions/11",
        400,
        "malformed",
    );
    refused(
        b"/api/puzzles/knight-tour/positions/0%201",
        400,
        "malformed",
    );
    refused(b"/api/puzzles/eight/positions/%FF%FE", 400, "UTF-8");
    refused(b"/api/puzzles/%C0%AF", 400, "UTF-8");
    refused(
        b"/api/puzzles/..%2F..%2Fetc%2Fpasswd",
        404,
        "unknown puzzle",
    );
    refused(b"/../../etc/passwd", 404, "nothing at");
    refused(b"/api/../../Cargo.toml", 404, "nothing at");
    refused(b"/web/index.html", 404, "nothing at");
    let mut long = b"/api/puzzles/eight/positions/".to_vec();
    long.extend(std::iter::repeat_n(b'1', 1 << 20));
    refused(&long, 414, "longer than");
    let mut medium = b"/api/puzzles/".to_vec();
    medium.extend(std::iter::repeat_n(b'a', 6000));
    refused(&medium, 414, "at most");
    let (status, _, body) = raw(b"/api/puzzles", "POST");
    assert_eq!(status, 405);
    assert!(String::from_utf8_lossy(&body).contains("read-only"));
}

#[test]
fn the_server_never_writes_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("copy.sqlite");
    std::fs::copy(shared_db(), &db).unwrap();
    let before = std::fs::read(&db).unwrap();
    let addr = start_server(&db);
    for path in ["/api/puzzles", "/api/puzzles/eight/positions/867254301"] {
        let mut s = TcpStream::connect(addr).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut r = String::new();
        s.read_to_string(&mut r).unwrap();
        assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "no journal or other file beside it");
}

#[test]
fn serve_refuses_a_missing_file_and_a_taken_address() {
    let o = run(&["serve", "--db", "/nonexistent/x.sqlite"]);
    let err = crate::util::assert_clean_failure(&o, 1);
    assert!(err.contains("no database at"), "{err}");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let o = run(&[
        "serve",
        "--db",
        shared_db().to_str().unwrap(),
        "--addr",
        &addr,
    ]);
    let err = crate::util::assert_clean_failure(&o, 1);
    assert!(err.contains("cannot listen"), "{err}");
    let o = run(&["serve", "--addr", "nonsense"]);
    assert_eq!(o.status.code(), Some(2), "a usage error");
}

#[test]
fn ctrl_c_stops_the_server_cleanly() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
        .args([
            "serve",
            "--db",
            shared_db().to_str().unwrap(),
            "--addr",
            &addr,
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while TcpStream::connect(&addr).is_err() {
        assert!(start.elapsed().as_secs() < 20, "the server listens");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SIGINT, as Ctrl-C sends it.
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed().as_secs() < 10, "the server stops");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(
        err.contains("serving") && !err.contains("panicked"),
        "{err}"
    );
}

/// A user's puzzle, built from data/puzzles/examples/guarini.toml with
/// `generate --definitions` and served from the file alone (no definitions given to the
/// server): listed, its page drawn from the layout in its stored definition, and its
/// positions answered like `query --json` answers them, with every legal move.
#[test]
fn users_puzzles_are_served_from_their_stored_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("users.sqlite");
    crate::util::generate_example(&path, "guarini");
    let addr = start_server(&path);
    let get = |target: &str| {
        let (status, ctype, body) = raw_at(addr, target.as_bytes(), "GET");
        assert_eq!(
            (status, ctype.as_str()),
            (200, "application/json"),
            "{target}"
        );
        serde_json::from_slice::<Value>(&body).unwrap()
    };
    let list = get("/api/puzzles");
    let names: Vec<&str> = (list.as_array().unwrap().iter())
        .filter_map(|p| p["puzzle"].as_str())
        .collect();
    assert!(names.contains(&"guarini"), "{list}");

    let page = get("/api/puzzles/guarini");
    assert_eq!(page["family"], "tokens");
    assert_eq!(page["start"], "W-W---B-B");
    // Guarini's board: nine squares, the eight knight's moves around the ring, none to
    // the centre.
    assert_eq!(page["layout"]["cells"].as_array().unwrap().len(), 9);
    assert_eq!(page["layout"]["edges"].as_array().unwrap().len(), 8);
    assert_eq!(page["layout"], page["definition"]["layout"]);

    let mut a = get("/api/puzzles/guarini/positions/W-W---B-B");
    let moves = a["legal_moves"].take();
    a.as_object_mut().unwrap().remove("legal_moves");
    let q = crate::util::query_json_in(&path, &["--puzzle", "guarini", "--start"]);
    assert_eq!(a, q);
    // Guarini's problem takes the published 16 moves.
    assert_eq!(a["distance"], 16);
    // Every move leads where `query` says, at the distance it gives; the best first.
    let moves = moves.as_array().unwrap();
    assert!(!moves.is_empty());
    assert_eq!(moves[0]["distance"], 15, "the best move is one step nearer");
    for m in moves {
        let to = m["state"].as_str().unwrap();
        let q = crate::util::query_json_in(&path, &["--puzzle", "guarini", "--state", to]);
        assert_eq!(m["distance"], q["distance"], "{to}");
    }
}
