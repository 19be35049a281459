//! Prints speed figures (never asserted): `cargo bench --bench generate`. Heavy runs are
//! opt-in: `cargo bench --bench generate -- eleven` adds the 239,500,800-state 3x4
//! sliding puzzle end to end (generation time and peak memory, its share of the file,
//! and a query on it against the same query on `six`), `-- twelve` the same for the 2x6,
//! `-- english33` the 33-hole central game, and `-- engine` the engine against a naive
//! single-thread breadth-first search on the 3x4 and the 2x6, with a breakdown of where
//! the engine's time goes (`engine-eleven` or `engine-twelve` for one of them). Add
//! `only` to skip the default figures.

use std::process::Command;
use std::time::Instant;

use rayon::prelude::*;

use puzzlebase::{Observer, Options, Summary};
use puzzlebase_core::packed::ChunkLayout;
use puzzlebase_core::progress::{Progress, Silent};
use puzzlebase_core::rank::{FACT, perm_rank, perm_unrank};
use puzzlebase_core::space::{GraphPuzzle, StateSpace};
use puzzlebase_families::catalog::builtin_boards;
use puzzlebase_families::sliding::Sliding;
use puzzlebase_solvers::bfs;
use puzzlebase_solvers::peg::{self, Board};

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

    if args.iter().any(|a| a == "english33") {
        let b = builtin_boards()
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
        packed(dir.path(), "eleven");
    }
    if args.iter().any(|a| a == "twelve") {
        packed(dir.path(), "twelve");
    }
    // `engine` measures both grids; `engine-eleven` or `engine-twelve` just one.
    for (name, rows, cols) in [("eleven", 3, 4), ("twelve", 2, 6)] {
        if args
            .iter()
            .any(|a| a == "engine" || *a == format!("engine-{name}"))
        {
            engine(dir.path(), name, rows, cols);
        }
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

    let boards: Vec<Board> = builtin_boards()
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
    let nightly = puzzlebase_families::catalog::registry();
    for p in nightly
        .iter()
        .filter(|p| puzzlebase_families::catalog::nightly(p))
    {
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

/// The naive baseline of issue 11: one byte per rank of all `n!` permutations (both
/// parities), each level found by scanning the whole table, every neighbour ranked by
/// its Lehmer code, a single thread, nothing written. Returns positions per distance.
fn naive_bfs(rows: usize, cols: usize) -> Vec<u64> {
    let n = rows * cols;
    let mut dist = vec![u8::MAX; FACT[n] as usize];
    let goal: Vec<u8> = (1..n as u8).chain([0]).collect();
    dist[perm_rank(&goal) as usize] = 0;
    let mut levels = vec![1u64];
    let mut cells = vec![0u8; n];
    for d in 0u8.. {
        let mut found = 0u64;
        for r in 0..dist.len() {
            if dist[r] != d {
                continue;
            }
            perm_unrank(r as u64, &mut cells);
            let b = cells.iter().position(|&v| v == 0).unwrap();
            let (row, col) = (b / cols, b % cols);
            let mut to = [usize::MAX; 4];
            if row > 0 {
                to[0] = b - cols;
            }
            if row + 1 < rows {
                to[1] = b + cols;
            }
            if col > 0 {
                to[2] = b - 1;
            }
            if col + 1 < cols {
                to[3] = b + 1;
            }
            for c in to.into_iter().filter(|&c| c != usize::MAX) {
                cells.swap(b, c);
                let nr = perm_rank(&cells) as usize;
                cells.swap(b, c);
                if dist[nr] == u8::MAX {
                    dist[nr] = d + 1;
                    found += 1;
                }
            }
        }
        if found == 0 {
            break;
        }
        levels.push(found);
    }
    levels
}

/// The engine against the naive baseline on one grid, measured in the same run, and a
/// breakdown of the engine's time: ranking, neighbour generation, the level passes
/// (push and pull), packing and the SQLite file.
fn engine(dir: &std::path::Path, name: &str, rows: usize, cols: usize) {
    let t = Instant::now();
    let cpu = cpu_seconds();
    let naive = naive_bfs(rows, cols);
    let naive_s = t.elapsed().as_secs_f64();
    let naive_cpu = cpu_seconds() - cpu;

    let db = dir.join(format!("engine-{name}.sqlite"));
    let _ = std::fs::remove_file(&db);
    let t = Instant::now();
    let cpu = cpu_seconds();
    puzzlebase::generate(
        &Options {
            db: db.clone(),
            only: vec![name.to_string()],
            force: true,
        },
        &Quiet,
    )
    .unwrap();
    let gen_s = t.elapsed().as_secs_f64();
    let gen_cpu = cpu_seconds() - cpu;
    let compute_s = computed(&db)[name];
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut st = conn
        .prepare("SELECT positions FROM histogram WHERE puzzle = ?1 ORDER BY distance")
        .unwrap();
    let stored: Vec<u64> = st
        .query_map([name], |r| r.get::<_, i64>(0).map(|v| v as u64))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(stored, naive, "{name}: the engine and the baseline agree");
    println!(
        "{name}: naive single-thread BFS {naive_s:.1} s wall, {naive_cpu:.1} CPU-s; generate \
         (SQLite file included) {gen_s:.1} s wall, {gen_cpu:.1} CPU-s; {:.2}x faster in wall \
         time (target >= 4x on {} threads), {:.2}x less CPU",
        naive_s / gen_s,
        rayon::current_num_threads(),
        naive_cpu / gen_cpu
    );

    // Where the time goes, each part measured alone over the whole space.
    let g = Sliding::grid(name, rows, cols);
    let size = g.size();
    let blocks = size / g.cells() as u64;
    let t = Instant::now();
    let sum: u64 = (0..blocks)
        .into_par_iter()
        .map(|b| {
            let mut cells = [0u8; 16];
            let r = b * g.cells() as u64;
            g.unrank_into(r, &mut cells[..g.cells()]);
            g.rank_of(&cells[..g.cells()])
        })
        .reduce(|| 0, u64::wrapping_add);
    std::hint::black_box(sum);
    let rank_s = t.elapsed().as_secs_f64() * g.cells() as f64;
    let t = Instant::now();
    let per = 1u64 << 14;
    let sum: u64 = (0..size.div_ceil(per))
        .into_par_iter()
        .map(|c| {
            let mut buf = Vec::with_capacity(4);
            let mut sum = 0u64;
            for r in c * per..(c * per + per).min(size) {
                buf.clear();
                g.neighbors(r, &mut buf);
                sum = sum.wrapping_add(buf.iter().sum::<u64>());
            }
            sum
        })
        .reduce(|| 0, u64::wrapping_add);
    std::hint::black_box(sum);
    let nb_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let table = bfs::solve_with(&g, bfs::Outputs::DISTANCES, &Silent).unwrap();
    let bfs_s = t.elapsed().as_secs_f64();
    let (mut push, mut pull, mut pushes, mut pulls) = (0.0, 0.0, 0, 0);
    for e in &table.expansions {
        if e.pulled {
            pull += e.seconds;
            pulls += 1;
        } else {
            push += e.seconds;
            pushes += 1;
        }
    }
    let layout = g.packing().unwrap();
    let t = Instant::now();
    let bytes: usize = (0..layout.chunks())
        .into_par_iter()
        .map(|c| layout.encode_chunk(c, &table.dist).unwrap().len())
        .sum();
    std::hint::black_box(bytes);
    let pack_s = t.elapsed().as_secs_f64();
    println!(
        "  breakdown: unrank+rank of every rank {rank_s:.1} s; neighbours of every rank \
         {nb_s:.1} s; search {bfs_s:.1} s ({pushes} push levels {push:.1} s, {pulls} pull \
         levels {pull:.1} s, setup and histogram {:.1} s); packing {pack_s:.1} s; \
         generate's compute {compute_s:.1} s and file {:.1} s",
        bfs_s - push - pull,
        gen_s - compute_s
    );
}

/// CPU time of this process so far (user + system).
fn cpu_seconds() -> f64 {
    puzzlebase_core::memory::cpu_seconds().unwrap_or(0.0)
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
