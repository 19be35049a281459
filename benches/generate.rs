//! Prints speed figures (never asserted): `cargo bench --bench generate`. Heavy runs are
//! opt-in: `cargo bench --bench generate -- eleven` adds the 239,500,800-state 3x4
//! sliding puzzle end to end (generation time and peak memory, its share of the file,
//! and a query on it against the same query on `six`), `-- english33` the 33-hole
//! central game.

use std::process::Command;
use std::time::Instant;

use puzzlebase::bfs;
use puzzlebase::generate::{self, Observer, Options, Summary};
use puzzlebase::peg::{self, Board};
use puzzlebase::progress::{Progress, Silent};
use puzzlebase::puzzles::sliding::Sliding;

struct Quiet;
impl Observer for Quiet {
    fn progress(&self, _: &str) -> Box<dyn Progress + '_> {
        Box::new(Silent)
    }
    fn done(&self, _: &Summary) {}
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.sqlite");

    let sliding = ["six", "seven", "eight"].map(String::from).to_vec();
    let runs: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            let opts = Options {
                db: db.clone(),
                only: sliding.clone(),
                force: true,
            };
            generate::generate(&opts, &Quiet).unwrap();
            t.elapsed().as_secs_f64()
        })
        .collect();
    println!(
        "generate six+seven+eight incl. SQLite file: {:.3} s (median of 5; target <= 1 s)",
        median(runs)
    );

    let eight = Sliding::grid("eight", 3, 3);
    let runs: Vec<f64> = (0..10)
        .map(|_| {
            let t = Instant::now();
            bfs::solve(&eight, &Silent).unwrap();
            t.elapsed().as_secs_f64()
        })
        .collect();
    println!(
        "eight table alone (distances, next, counts): {:.1} ms (median of 10; target <= 30 ms)",
        1e3 * median(runs)
    );

    let bin = env!("CARGO_BIN_EXE_puzzlebase");
    let runs: Vec<f64> = (0..20)
        .map(|_| {
            let t = Instant::now();
            let o = Command::new(bin)
                .args([
                    "query",
                    "--db",
                    db.to_str().unwrap(),
                    "--puzzle",
                    "eight",
                    "--state",
                    "867254301",
                    "--json",
                ])
                .output()
                .unwrap();
            assert!(o.status.success());
            t.elapsed().as_secs_f64()
        })
        .collect();
    println!(
        "one `query --state` process: {:.1} ms (median of 20; target <= 20 ms)",
        1e3 * median(runs)
    );

    let boards: Vec<Board> = peg::boards()
        .into_iter()
        .filter(|b| ["chinese-checkers", "hoppers", "triangle21"].contains(&b.name))
        .collect();
    let runs: Vec<f64> = (0..3)
        .map(|_| {
            let t = Instant::now();
            for b in &boards {
                peg::solve(b, &Silent).unwrap();
                peg::matrix(b, &Silent);
            }
            t.elapsed().as_secs_f64()
        })
        .collect();
    println!(
        "peg seed boards (tables + start/finish matrices): {:.3} s (median of 3; target <= 2 s)",
        median(runs)
    );

    // The nightly job over every puzzle (english33 included), then again with nothing changed.
    let db2 = dir.path().join("nightly.sqlite");
    let t = Instant::now();
    generate::generate(
        &Options {
            db: db2.clone(),
            only: Vec::new(),
            force: true,
        },
        &Quiet,
    )
    .unwrap();
    let full = t.elapsed().as_secs_f64();
    let t = Instant::now();
    generate::generate(
        &Options {
            db: db2.clone(),
            only: Vec::new(),
            force: false,
        },
        &Quiet,
    )
    .unwrap();
    let rerun = t.elapsed().as_secs_f64();
    let t = Instant::now();
    generate::generate(
        &Options {
            db: db2.clone(),
            only: vec!["six".into()],
            force: true,
        },
        &Quiet,
    )
    .unwrap();
    let one = t.elapsed().as_secs_f64();
    println!(
        "generate of every puzzle: full {full:.2} s; unchanged re-run {rerun:.3} s ({:.1}% of full); \
         one puzzle forced, the rest copied {one:.2} s ({:.0}%)",
        100.0 * rerun / full,
        100.0 * one / full
    );

    if args.iter().any(|a| a == "english33") {
        let b = peg::boards()
            .into_iter()
            .find(|b| b.name == "english33")
            .unwrap();
        let t = Instant::now();
        let table = peg::solve(&b, &Silent).unwrap();
        let s = t.elapsed().as_secs_f64();
        let reachable: u64 = table.layers.iter().map(|l| l.reachable).sum();
        let can_finish: u64 = table.layers.iter().map(|l| l.can_finish).sum();
        println!(
            "english33: {reachable} reachable, {can_finish} can finish, {} rows, start distance {}, {s:.1} s, \
             {:.2} M positions/s, peak memory {} (target <= 10 min, <= 8 GiB)",
            table.rows.len(),
            table.max_distance,
            reachable as f64 / s / 1e6,
            peak_memory()
        );
    }

    if args.iter().any(|a| a == "eleven") {
        eleven(dir.path());
    }
}

/// `eleven` through the nightly job, its share of the file, and query processes on it
/// and on `six` from the same file.
fn eleven(dir: &std::path::Path) {
    let db = dir.join("eleven.sqlite");
    let build = |only: &[&str]| {
        generate::generate(
            &Options {
                db: db.clone(),
                only: only.iter().map(|s| s.to_string()).collect(),
                force: false,
            },
            &Quiet,
        )
        .unwrap()
    };
    build(&["six"]);
    let without = std::fs::metadata(&db).unwrap().len();
    let summaries = build(&["six", "eleven"]);
    let with = std::fs::metadata(&db).unwrap().len();
    let s = summaries.iter().find(|s| s.name == "eleven").unwrap();
    println!(
        "eleven via generate: {} states in {:.1} s ({:.1} M states/s), peak memory {} MiB \
         (targets <= 60 s, <= 1 GiB); max distance {}",
        s.states,
        s.seconds,
        s.states as f64 / s.seconds / 1e6,
        s.peak_memory.map_or(0, |b| b >> 20),
        s.max_distance.unwrap()
    );
    println!(
        "eleven's share of the file: {:.1} MB (target <= 150 MB)",
        (with - without) as f64 / 1e6
    );

    let bin = env!("CARGO_BIN_EXE_puzzlebase");
    let time_query = |puzzle: &str, state: &str| {
        let runs: Vec<f64> = (0..30)
            .map(|_| {
                let t = Instant::now();
                let o = Command::new(bin)
                    .args(["query", "--db", db.to_str().unwrap(), "--puzzle", puzzle])
                    .args(["--state", state, "--json"])
                    .output()
                    .unwrap();
                assert!(o.status.success());
                t.elapsed().as_secs_f64()
            })
            .collect();
        median(runs)
    };
    let six = time_query("six", "1526340");
    let far = time_query("eleven", "0,3,2,1,8,7,6,5,4,11,10,9");
    println!(
        "`query --state` process: six {:.1} ms, eleven at distance 53 {:.1} ms ({:.2}x; target <= 2x)",
        1e3 * six,
        1e3 * far,
        far / six
    );
}

/// Peak resident memory of this process (Linux `VmHWM`).
fn peak_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l[6..].trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}
