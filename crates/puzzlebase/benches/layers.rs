//! The layers' own speed figures, printed and never asserted: `cargo bench -p puzzlebase
//! --bench layers` prints the byte search on `eight` alone and the seed peg boards'
//! tables and matrices. Heavy runs are opt-in: `-- english33` adds the 33-hole central
//! game solved alone (time and peak memory), `-- engine` the engine against a naive
//! single-thread breadth-first search on the 3x4 and the 2x6, with a breakdown of where
//! the engine's time goes (`engine-eleven` or `engine-twelve` for one of them). Add
//! `only` to skip the default figures. The command's figures (a whole `generate`, a
//! `query` process) are the root package's `cargo bench --bench generate`.

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
        default_figures();
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

/// The figures printed by every run: a table alone, the seed peg boards.
fn default_figures() {
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
    let database = puzzlebase::Database::open(&db).unwrap();
    let compute_s = (database.puzzles().unwrap().into_iter())
        .find(|p| p.name == name)
        .unwrap()
        .seconds;
    let puzzlebase::Histogram::ByDistance(levels) = database.histogram(name).unwrap() else {
        panic!("{name}: a histogram by distance")
    };
    let stored: Vec<u64> = levels.iter().map(|r| r.positions).collect();
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

/// Peak resident memory of this process so far.
fn peak_memory() -> String {
    puzzlebase_core::memory::peak().map_or("unknown".to_string(), |b| {
        format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64)
    })
}
