//! Prints speed figures of the library and the command (never asserted): `cargo bench
//! --bench generate`. Heavy runs are opt-in: `cargo bench --bench generate -- eleven`
//! adds the 239,500,800-state 3x4 sliding puzzle end to end (generation time and peak
//! memory, its share of the file, and a query on it against the same query on `six`),
//! `-- twelve` the same for the 2x6. Add `only` to skip the default figures. The layers'
//! own figures (a table alone, the peg solver, the engine against a naive search) are
//! `cargo bench -p puzzlebase --bench layers`.

use std::process::Command;
use std::time::Instant;

use puzzlebase::{Definition, Observer, Options, Progress, Silent, Summary};

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

    // `only` skips the default figures, for running one heavy section alone.
    if !args.iter().any(|a| a == "only") {
        default_figures(&dir);
    }

    if args.iter().any(|a| a == "eleven") {
        packed(dir.path(), "eleven");
    }
    if args.iter().any(|a| a == "twelve") {
        packed(dir.path(), "twelve");
    }
}

/// The figures printed by every run: small tables, queries, peg boards, the nightly job.
fn default_figures(dir: &tempfile::TempDir) {
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
            puzzlebase::generate(&opts, &Quiet).unwrap();
            t.elapsed().as_secs_f64()
        })
        .collect();
    println!(
        "generate six+seven+eight incl. SQLite file: {:.3} s (median of 5; target <= 1 s)",
        median(runs)
    );

    // Writing the file against computing the tables, for eight alone in a fresh file.
    let runs: Vec<(f64, f64)> = (0..5)
        .map(|_| {
            let db = dir.path().join("eight.sqlite");
            let _ = std::fs::remove_file(&db);
            let t = Instant::now();
            let opts = Options {
                db: db.clone(),
                only: vec!["eight".into()],
                force: true,
            };
            puzzlebase::generate(&opts, &Quiet).unwrap();
            let wall = t.elapsed().as_secs_f64();
            (wall, computed(&db)["eight"])
        })
        .collect();
    let (wall, compute) = runs[runs.len() / 2];
    println!(
        "generate --puzzle eight, fresh file: {:.3} s = compute {:.3} s + file {:.3} s \
         (file/compute {:.2}; target <= 1)",
        wall,
        compute,
        wall - compute,
        (wall - compute) / compute
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

    // The nightly job over every puzzle (english33 included), then again with nothing changed.
    let db2 = dir.path().join("nightly.sqlite");
    let t = Instant::now();
    let summaries = puzzlebase::generate(
        &Options {
            db: db2.clone(),
            only: Vec::new(),
            force: true,
        },
        &Quiet,
    )
    .unwrap();
    let full = t.elapsed().as_secs_f64();
    compute_vs_write(&db2, &summaries, full);
    let t = Instant::now();
    puzzlebase::generate(
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
    puzzlebase::generate(
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
}

/// Compute seconds per puzzle as stored in the file (`puzzles.seconds`: the tables,
/// before any row is written).
fn computed(db: &std::path::Path) -> std::collections::HashMap<String, f64> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn.prepare("SELECT name, seconds FROM puzzles").unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Per puzzle of a full run: computing the tables against writing them (rows, packed
/// chunks, checksum), from the run's own per-puzzle wall times and the file's compute
/// times; the rest of the wall time (verification, commit, rename) counts as writing.
fn compute_vs_write(db: &std::path::Path, summaries: &[Summary], full: f64) {
    let compute = computed(db);
    println!("  puzzle             compute s    write s   write/compute");
    let mut total_compute = 0.0;
    let nightly = Definition::builtins();
    for p in nightly.iter().filter(|p| p.in_default_run()) {
        let c = compute[p.name()];
        let w = (summaries.iter())
            .find(|s| s.name == p.name())
            .map_or(0.0, |s| s.seconds - c);
        total_compute += c;
        println!(
            "  {:<16} {c:>10.3} {w:>10.3} {:>10.2}",
            p.name(),
            w / c.max(1e-9)
        );
    }
    println!(
        "  whole run        {total_compute:>10.3} {:>10.3} {:>10.2}  (target <= 1 per puzzle and in total)",
        full - total_compute,
        (full - total_compute) / total_compute
    );
}

/// A packed puzzle (`eleven`, `twelve`) through the nightly job, its share of the file,
/// and query processes on one of its farthest positions and on `six` from the same file.
fn packed(dir: &std::path::Path, name: &str) {
    let db = dir.join(format!("{name}.sqlite"));
    let build = |only: &[&str]| {
        puzzlebase::generate(
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
    let summaries = build(&["six", name]);
    let with = std::fs::metadata(&db).unwrap().len();
    let s = summaries.iter().find(|s| s.name == name).unwrap();
    println!(
        "{name} via generate: {} states in {:.1} s ({:.1} M states/s), peak memory {} MiB \
         (targets <= 60 s, <= 1 GiB); max distance {}",
        s.states,
        s.seconds,
        s.states as f64 / s.seconds / 1e6,
        s.peak_memory.map_or(0, |b| b >> 20),
        s.max_distance.unwrap()
    );
    println!(
        "{name}'s share of the file: {:.1} MB (target <= 150 MB)",
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
    let file = puzzlebase::Database::open(&db).unwrap();
    let longest = file.longest(name).unwrap();
    let six = time_query("six", "1526340");
    let far = time_query(name, &longest.states[0]);
    println!(
        "`query --state` process: six {:.1} ms, {name} at distance {} {:.1} ms ({:.2}x; target <= 2x)",
        1e3 * six,
        longest.distance,
        1e3 * far,
        far / six
    );
}
