//! Micro-benchmarks of the engine's inner loops (criterion): ranking and unranking,
//! successor generation, and lookups, in memory and through the file.
//! `cargo bench -p puzzlebase --bench engine` (add a filter such as `-- lookup` to run a group).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

use puzzlebase::Database;
use puzzlebase::{Observer, Options, Summary};
use puzzlebase_core::packed::{ChunkLayout, RunLayout};
use puzzlebase_core::progress::{Progress, Silent};
use puzzlebase_core::rank::{perm_rank, perm_unrank};
use puzzlebase_core::space::{GraphPuzzle, StateSpace};
use puzzlebase_families::sliding::Sliding;

/// Ranks spread over the whole space (a fixed multiplicative sequence).
fn spread(size: u64, n: usize) -> Vec<u64> {
    (0..n as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % size)
        .collect()
}

fn ranking(c: &mut Criterion) {
    let mut g = c.benchmark_group("rank");
    let mut perm = [0u8; 11];
    perm_unrank(19_958_399, &mut perm);
    g.bench_function("perm_rank 11 elements", |b| {
        b.iter(|| perm_rank(black_box(&perm)))
    });
    g.bench_function("perm_unrank 11 elements", |b| {
        b.iter(|| perm_unrank(black_box(19_958_399), &mut perm))
    });
    let eleven = Sliding::grid("eleven", 3, 4);
    let ranks = spread(eleven.size(), 1024);
    let mut cells = [0u8; 12];
    g.bench_function("eleven unrank + rank (1024 states)", |b| {
        b.iter(|| {
            for &r in &ranks {
                eleven.unrank_into(r, &mut cells);
                black_box(eleven.rank_of(&cells));
            }
        })
    });
    g.finish();
}

fn successors(c: &mut Criterion) {
    let mut g = c.benchmark_group("successors");
    for p in [Sliding::grid("eight", 3, 3), Sliding::grid("eleven", 3, 4)] {
        let ranks = spread(p.size(), 1024);
        let mut out = Vec::with_capacity(4);
        g.bench_function(format!("{} neighbours (1024 states)", p.name()), |b| {
            b.iter(|| {
                for &r in &ranks {
                    out.clear();
                    p.neighbors(r, &mut out);
                    black_box(&out);
                }
            })
        });
    }
    g.finish();
}

struct Quiet;
impl Observer for Quiet {
    fn progress(&self, _: &str) -> Box<dyn Progress + '_> {
        Box::new(Silent)
    }
    fn done(&self, _: &Summary) {}
}

fn lookups(c: &mut Criterion) {
    let mut g = c.benchmark_group("lookup");
    // Decoding one distance from a packed chunk of eleven's layout.
    let eleven = Sliding::grid("eleven", 3, 4);
    let layout: RunLayout = eleven.packing().unwrap();
    let chunk: Vec<u8> = (0..layout.ranks_per_chunk() / 4 * 2)
        .map(|i| if i % 2 == 0 { 40 } else { 0b101 })
        .collect();
    g.bench_function("eleven packed entry decode", |b| {
        b.iter(|| layout.distance(black_box(&chunk), black_box(7_000)))
    });

    // Whole answers through the file: six, eight and nine from their rows.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.sqlite");
    let opts = Options {
        db: db.clone(),
        only: vec!["six".into(), "eight".into(), "nine".into()],
        force: false,
    };
    puzzlebase::generate(&opts, &Quiet).unwrap();
    let file = Database::open(&db).unwrap();
    for (puzzle, state) in [
        ("six", "1526340"),
        ("eight", "867254301"),
        ("nine", "0532194876"),
    ] {
        g.bench_function(format!("{puzzle} state with its optimal path"), |b| {
            b.iter(|| file.state(puzzle, black_box(state)).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, ranking, successors, lookups);
criterion_main!(benches);
