//! Load benchmark of `puzzlebase serve`: the server and 64 keep-alive client connections
//! in one process on loopback, each asking for random positions of `eight` and then
//! `eleven` for a fixed time. Prints requests per second, p50/p99/max latency, the
//! number of failed requests (any status but 200, or a broken connection) and the
//! process's CPU time per lookup. The first lookup of each puzzle, which copies its
//! tables into memory, is timed on its own; before HTTP, the same answers are timed in
//! process on one thread, read from the file and from memory.
//!
//! `cargo bench --bench serve` reads `data/puzzles.sqlite` (or `PUZZLEBASE_DB`), which
//! must hold `eight` and `eleven` (`puzzlebase generate`). `SERVE_BENCH_SECONDS` sets
//! the time per case (default 10).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use puzzlebase::Definition;

const CONNECTIONS: usize = 64;

/// Random positions of a move puzzle in its notation: every rank of the sliding
/// puzzles' spaces is a solvable arrangement.
fn positions(name: &str, count: usize) -> Vec<String> {
    let d = Definition::builtin(name).expect("a built-in puzzle");
    let g = d.graph().expect("a move puzzle");
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..count)
        .map(|_| {
            // xorshift64*: reproducible and good enough to spread lookups over the file.
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
            g.format(r % g.size())
        })
        .collect()
}

struct Outcome {
    latencies_us: Vec<u32>,
    failures: u64,
}

async fn client(
    addr: SocketAddr,
    paths: Arc<Vec<hyper::Uri>>,
    start: usize,
    stop: Arc<AtomicBool>,
) -> Outcome {
    let mut out = Outcome {
        latencies_us: Vec::new(),
        failures: 0,
    };
    let mut i = start;
    'connect: while !stop.load(Ordering::Relaxed) {
        let Ok(stream) = tokio::net::TcpStream::connect(addr).await else {
            out.failures += 1;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let Ok((mut sender, conn)) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await
        else {
            out.failures += 1;
            continue;
        };
        tokio::spawn(conn);
        while !stop.load(Ordering::Relaxed) {
            // A parsed address is shared, not copied: the client costs little per request.
            let uri = paths[i % paths.len()].clone();
            i += 1;
            let req = hyper::Request::get(uri)
                .header(hyper::header::HOST, "bench")
                .body(Empty::<Bytes>::new())
                .unwrap();
            let t = Instant::now();
            let ok = match sender.send_request(req).await {
                Ok(resp) => {
                    let status = resp.status();
                    resp.into_body().collect().await.is_ok() && status == 200
                }
                Err(_) => false,
            };
            if ok {
                out.latencies_us
                    .push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
            } else {
                out.failures += 1;
                continue 'connect;
            }
        }
    }
    out
}

fn run_case(rt: &tokio::runtime::Runtime, addr: SocketAddr, name: &str, seconds: u64) {
    let paths: Vec<String> = positions(name, 100_000)
        .into_iter()
        .map(|s| format!("/api/puzzles/{name}/positions/{s}"))
        .collect();
    // The server copies a puzzle's tables into memory on its first lookup: that one is
    // timed on its own, outside the measured load.
    let first = rt.block_on(async {
        let t = Instant::now();
        let stream = tokio::net::TcpStream::connect(addr).await.ok()?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .ok()?;
        tokio::spawn(conn);
        let req = hyper::Request::get(paths[0].as_str())
            .header(hyper::header::HOST, "bench")
            .body(Empty::<Bytes>::new())
            .ok()?;
        let resp = sender.send_request(req).await.ok()?;
        let status = resp.status();
        resp.into_body().collect().await.ok()?;
        Some((status, t.elapsed()))
    });
    match first {
        Some((status, t)) => println!(
            "{name:<8} first lookup (loads the tables): {status}, {:.3} s",
            t.as_secs_f64()
        ),
        None => println!("{name:<8} first lookup failed"),
    }
    let paths: Vec<hyper::Uri> = paths.iter().map(|p| p.parse().unwrap()).collect();
    let paths = Arc::new(paths);
    let stop = Arc::new(AtomicBool::new(false));
    let cpu_before = cpu_seconds();
    let started = Instant::now();
    let outcomes: Vec<Outcome> = rt.block_on(async {
        let tasks: Vec<_> = (0..CONNECTIONS)
            .map(|c| {
                tokio::spawn(client(
                    addr,
                    paths.clone(),
                    c * paths.len() / CONNECTIONS,
                    stop.clone(),
                ))
            })
            .collect();
        tokio::time::sleep(Duration::from_secs(seconds)).await;
        stop.store(true, Ordering::Relaxed);
        let mut all = Vec::new();
        for t in tasks {
            all.push(t.await.unwrap());
        }
        all
    });
    let wall = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(cpu_before).map(|(a, b)| a - b);
    let mut lat: Vec<u32> = outcomes
        .iter()
        .flat_map(|o| o.latencies_us.iter().copied())
        .collect();
    let failures: u64 = outcomes.iter().map(|o| o.failures).sum();
    lat.sort_unstable();
    let pct = |p: f64| -> f64 {
        if lat.is_empty() {
            return f64::NAN;
        }
        lat[((lat.len() - 1) as f64 * p).round() as usize] as f64 / 1000.0
    };
    println!(
        "{name:<8} {CONNECTIONS} connections {seconds:>3} s: {:>9.0} lookups/s  p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>7.2} ms  ok {:>8}  failed {failures}",
        lat.len() as f64 / wall,
        pct(0.50),
        pct(0.99),
        lat.last().map_or(f64::NAN, |&m| m as f64 / 1000.0),
        lat.len(),
    );
    // CPU time of the process (server and client together) per lookup: unlike the
    // rate, it does not depend on what else the shared machine is running.
    if let Some(cpu) = cpu {
        println!(
            "{name:<8} process CPU {:.2} s of {:.2} s wall: {:.1} us per lookup (server + client)",
            cpu,
            wall,
            cpu * 1e6 / lat.len().max(1) as f64
        );
    }
}

/// Answers random positions of `name` through the library on this thread, as the
/// server does for one request (one read transaction, the JSON text).
fn library_only(db: &puzzlebase::Database, name: &str, from: &str) {
    let states = positions(name, 20_000);
    let t = Instant::now();
    let mut ok = 0;
    let mut bytes = 0;
    for s in &states {
        if let Ok(v) = db.snapshot(|db| puzzlebase::json::position(db, name, s)) {
            ok += 1;
            bytes += v.to_string().len();
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{name:<8} library only, 1 thread, {from}: {:>9.0} lookups/s, {:>6.1} us each ({ok} of {} answered, {} bytes of JSON on average)",
        states.len() as f64 / secs,
        secs * 1e6 / states.len() as f64,
        states.len(),
        bytes / ok.max(1),
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument selects cases by name.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let db = std::env::var_os("PUZZLEBASE_DB")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("data/puzzles.sqlite"));
    let seconds = std::env::var("SERVE_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    // The same answers without HTTP, one thread: what the server adds on top. First
    // read from the file, then from the copy in memory the server makes.
    if let Ok(mut direct) = puzzlebase::Database::open_for_serving(&db) {
        for name in ["eight", "eleven"] {
            if !(filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()))) {
                continue;
            }
            library_only(&direct, name, "from the file");
        }
        let resident = puzzlebase::Resident::new();
        direct.share_resident(resident.clone());
        for name in ["eight", "eleven"] {
            if !(filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()))) {
                continue;
            }
            let t = Instant::now();
            let held = direct.load_resident(name);
            println!(
                "{name:<8} copied into memory in {:.3} s: {held:?}, {:.1} MB held in all",
                t.elapsed().as_secs_f64(),
                resident.bytes() as f64 / 1e6
            );
            library_only(&direct, name, "from memory");
        }
    }
    let app = match puzzlebase_cli::server::router(&db) {
        Ok(app) => app,
        Err(e) => {
            eprintln!("serve bench: {e} (set PUZZLEBASE_DB to a file with eight and eleven)");
            return;
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    rt.spawn(puzzlebase_cli::server::serve(
        listener,
        app,
        std::future::pending(),
    ));
    println!(
        "serve bench: {} on {addr}, {} worker threads",
        db.display(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    for name in ["eight", "eleven"] {
        if filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str())) {
            run_case(&rt, addr, name, seconds);
        }
    }
    if filter.is_empty() || filter.iter().any(|f| "searches".contains(f.as_str())) {
        under_searches(addr, seconds);
    }
}

/// A fifteen position the default tables take a minute or more to search.
const HARD: &str = "0,12,10,13,15,11,14,9,3,7,2,5,4,8,6,1";

/// One blocking GET on a fresh connection: the status (503 from a search that gave up
/// is told apart as 504) and the time it took.
fn get(addr: SocketAddr, path: &str) -> (u16, f64) {
    use std::io::{Read, Write};
    let t = Instant::now();
    let Ok(mut s) = std::net::TcpStream::connect(addr) else {
        return (0, t.elapsed().as_secs_f64());
    };
    let _ = s.write_all(
        format!("GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").as_bytes(),
    );
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let status = std::str::from_utf8(out.get(9..12).unwrap_or_default())
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let gave_up = status == 503 && String::from_utf8_lossy(&out).contains("gave up");
    (
        if gave_up { 504 } else { status },
        t.elapsed().as_secs_f64(),
    )
}

/// `/api/puzzles` while 8 clients keep asking for a hard fifteen position (searches run
/// up to the server's limit, the others are refused with 503): its latency percentiles,
/// and what the searching clients got.
fn under_searches(addr: SocketAddr, seconds: u64) {
    let until = Instant::now() + Duration::from_secs(seconds.max(5));
    let path = format!("/api/puzzles/fifteen/positions/{HARD}");
    let searchers: Vec<_> = (0..8)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut seen = std::collections::BTreeMap::<u16, u64>::new();
                while Instant::now() < until {
                    let (status, _) = get(addr, &path);
                    *seen.entry(status).or_default() += 1;
                    if status == 503 {
                        std::thread::sleep(Duration::from_millis(200));
                    }
                }
                seen
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut times = Vec::new();
    let mut failed = 0;
    while Instant::now() < until {
        let (status, t) = get(addr, "/api/puzzles");
        if status != 200 {
            failed += 1;
        }
        times.push(t * 1e3);
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut statuses = std::collections::BTreeMap::<u16, u64>::new();
    for h in searchers {
        for (s, n) in h.join().unwrap_or_default() {
            *statuses.entry(s).or_default() += n;
        }
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let pct = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    println!(
        "/api/puzzles under 8 hard searches: {} requests, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, failed {failed}; the searching clients got {statuses:?} (503: refused at once, busy; 504: a search that gave up at its deadline)",
        times.len(),
        pct(0.5),
        pct(0.99),
        times.last().copied().unwrap_or(0.0)
    );
}

/// The CPU seconds this process has used (user and system), from `/proc/self/stat`
/// (Linux; `None` elsewhere).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // utime and stime, in clock ticks of 1/100 s, are the 12th and 13th fields after
    // the command's name (in parentheses, which may hold spaces).
    let after = &stat[stat.rfind(')')? + 2..];
    let mut fields = after.split(' ').skip(11);
    let user: f64 = fields.next()?.parse().ok()?;
    let system: f64 = fields.next()?.parse().ok()?;
    Some((user + system) / 100.0)
}
