//! Prints the search figures of `fifteen` (never asserted): `cargo bench -p puzzlebase
//! --bench search` runs the 6-6-3 partition, `-- 7-8` (or `-- 6-6-3 7-8`) the partitions
//! named. Per partition:
//! the tables built through `generate` (wall time, peak memory, file size), the time to
//! read them back from the file, and Korf's 100 instances solved with and without the
//! reflected lookup (total of the optimal lengths, which must be 5305; mean and maximum
//! nodes and seconds per instance). The command's `query` processes on the same
//! instances are the root package's `cargo bench --bench fifteen`.
//! `-- --db PATH` skips the build and reads the tables of the partitions named from a file
//! `generate` already wrote (the 7-8 tables take minutes to build).
//! Each set of tables is searched by the plain IDA* of Korf 1985 (what `query` runs), and
//! by it with ordered children, with pathmax, and with both, all over the same tables
//! moved to huge pages (as a long-lived process would); then once more as one `query`
//! loads them (ordinary pages).

use std::time::Instant;

use puzzlebase::{Database, solve_loaded};
use puzzlebase::{Observer, Options, Summary};
use puzzlebase_core::progress::{Progress, Silent};
use puzzlebase_families::fifteen;
use puzzlebase_solvers::search;
use puzzlebase_solvers::search::Options as SearchOptions;

struct Quiet;
impl Observer for Quiet {
    fn progress(&self, _: &str) -> Box<dyn Progress + '_> {
        Box::new(Silent)
    }
    fn done(&self, _: &Summary) {}
}

/// Korf's instances turned to this goal, with their published lengths.
fn korf() -> Vec<(u32, u32, Vec<u8>)> {
    fifteen::korf_instances(fifteen::KORF100)
        .unwrap()
        .into_iter()
        .map(|k| (k.number, k.length, k.cells))
        .collect()
}

/// The built-in `fifteen`, as its definition file describes it.
fn puzzle() -> fifteen::Fifteen {
    match puzzlebase_families::catalog::find(NAME) {
        Some(puzzlebase_families::Puzzle::Patterns(f)) => f,
        _ => panic!("{NAME} is a built-in pattern-database puzzle"),
    }
}

const NAME: &str = "fifteen";

fn main() {
    let f = puzzle();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let given = args
        .iter()
        .position(|a| a == "--db")
        .map(|i| std::path::PathBuf::from(&args[i + 1]));
    let mut parts: Vec<String> = args
        .iter()
        .filter(|a| f.partitions().iter().any(|p| &p.name == *a))
        .cloned()
        .collect();
    if parts.is_empty() {
        parts.extend(f.built().iter().map(|p| p.name.clone()));
    }
    let instances = korf();
    assert_eq!(instances.len(), 100);
    let dir = tempfile::tempdir().unwrap();
    for part in &parts {
        let db = match &given {
            Some(path) => path.clone(),
            None => {
                let db = dir.path().join(format!("fifteen-{part}.sqlite"));
                let opts = Options {
                    db: db.clone(),
                    only: vec![NAME.to_string()],
                    force: true,
                };
                let t = Instant::now();
                let job = puzzlebase::Job {
                    partitions: vec![part.clone()],
                    ..Default::default()
                };
                let summary = puzzlebase::generate_job(&opts, job, &Quiet).unwrap();
                let build = t.elapsed().as_secs_f64();
                let peak = summary[0].peak_memory.unwrap_or(0) as f64 / (1u64 << 30) as f64;
                let size = std::fs::metadata(&db).unwrap().len() as f64 / 1e6;
                println!(
                    "{part}: generate (tables and file) {build:.1} s, peak {peak:.2} GiB, file {size:.1} MB"
                );
                db
            }
        };

        let database = Database::open(&db).unwrap();
        if args.iter().any(|a| a == "--hardest") {
            hardest(&database, part);
            continue;
        }
        for reflect in [false, true] {
            let mut loaded = database.pattern_tables(NAME, Some(part), reflect).unwrap();
            let t = Instant::now();
            loaded.heuristic.move_to_huge_pages();
            let huge = t.elapsed().as_secs_f64();
            let label = if reflect { "with reflection" } else { "plain" };
            let start: f64 = instances
                .iter()
                .map(|(_, _, c)| loaded.heuristic.estimate(c) as f64)
                .sum::<f64>()
                / 100.0;
            // Each pattern's placements are equally likely over all positions, so the
            // mean bound over every position is the sum of the tables' means.
            let everywhere: f64 = loaded
                .heuristic
                .tables()
                .map(|(_, t)| {
                    let sum: u64 = t.bytes.iter().map(|&b| t.entry.minimum(b) as u64).sum();
                    sum as f64 / t.bytes.len() as f64
                })
                .sum();
            println!(
                "{part} {label}: tables read in {:.3} s, moved to huge pages in {huge:.3} s; \
                 mean bound of the 100 starts {start:.3} (without reflection, over all positions: {everywhere:.3})",
                loaded.load_seconds,
            );
            let only = |ordered, pathmax, dual| SearchOptions {
                ordered,
                pathmax,
                parallel: false,
                dual,
            };
            let mut runs = vec![
                (
                    "Korf's IDA* (Korf's child order, one thread)",
                    SearchOptions::PLAIN,
                ),
                ("ordered only (one thread)", only(true, false, false)),
                ("pathmax only (one thread)", only(false, true, false)),
                (
                    "ordered and pathmax (one thread)",
                    SearchOptions::FEWER_NODES,
                ),
                ("dual lookups only (one thread)", only(false, false, true)),
                ("dual and ordered (one thread)", only(true, false, true)),
                ("dual and BPMX (one thread)", only(false, true, true)),
                ("dual, ordered and BPMX (one thread)", SearchOptions::DUAL),
                (
                    "ordered, every thread",
                    SearchOptions {
                        parallel: true,
                        ..SearchOptions::ORDERED
                    },
                ),
            ];
            if SearchOptions::QUERY != runs[runs.len() - 1].1 {
                runs.push(("query's search (every thread)", SearchOptions::QUERY));
            }
            for (how, opts) in runs {
                let (mut total, mut nodes, mut max_nodes, mut secs, mut max_secs) =
                    (0u32, 0u64, 0u64, 0f64, 0f64);
                let (mut generated, mut max_generated) = (0u64, 0u64);
                for (id, published, cells) in &instances {
                    let t = Instant::now();
                    let a = search::solve_with(&loaded.heuristic, cells, opts).unwrap();
                    let s = t.elapsed().as_secs_f64();
                    assert_eq!(a.length, *published, "instance {id}");
                    let path = search::replay(&loaded.heuristic, cells, &a.blanks).unwrap();
                    assert_eq!(path.last().unwrap(), &f.goal(), "instance {id}");
                    total += a.length;
                    nodes += a.expanded;
                    generated += a.generated;
                    max_nodes = max_nodes.max(a.expanded);
                    max_generated = max_generated.max(a.generated);
                    secs += s;
                    max_secs = max_secs.max(s);
                }
                println!(
                    "{part} {label}, {how}: Korf's 100: total length {total} (published 5305), \
                     nodes expanded mean {:.0} max {max_nodes}, generated mean {:.0} max {max_generated}, \
                     seconds mean {:.4} max {max_secs:.4}, all 100 in {secs:.2} s",
                    nodes as f64 / 100.0,
                    generated as f64 / 100.0,
                    secs / 100.0,
                );
            }
        }
        // The in-process answer `query` gives (path replayed, answer assembled).
        let loaded = database.pattern_tables(NAME, Some(part), true).unwrap();
        let t = Instant::now();
        for (id, published, cells) in &instances {
            let a = solve_loaded(&loaded, NAME, cells).unwrap();
            assert_eq!(a.distance, *published, "instance {id}");
        }
        println!(
            "{part}: `solve_loaded` (query's answer, tables in ordinary pages as one `query` reads them) mean {:.4} s",
            t.elapsed().as_secs_f64() / 100.0
        );

        hardest(&database, part);
    }
}

/// The 17 positions that need 80 moves, each solved by `query`'s search and by the dual
/// lookups with BPMX on every thread, over the tables in ordinary pages as one `query`
/// reads them (`-- --hardest` runs only this).
fn hardest(database: &Database, part: &str) {
    let positions = puzzle().positions(fifteen::HARDEST80).unwrap();
    let loaded = database.pattern_tables(NAME, Some(part), true).unwrap();
    let dual = SearchOptions {
        parallel: true,
        ..SearchOptions::DUAL
    };
    for (how, opts) in [
        ("query's search", SearchOptions::QUERY),
        ("dual and BPMX, every thread", dual),
    ] {
        let (mut secs, mut max, mut nodes) = (0f64, 0f64, 0u64);
        for cells in &positions {
            let t = Instant::now();
            let a = search::solve_with(&loaded.heuristic, cells, opts).unwrap();
            let s = t.elapsed().as_secs_f64();
            assert_eq!(a.length, 80, "{cells:?}");
            secs += s;
            max = max.max(s);
            nodes += a.expanded;
        }
        println!(
            "{part} {how}: the 17 positions of 80 moves: seconds mean {:.3} max {max:.3}, nodes expanded mean {:.0}",
            secs / positions.len() as f64,
            nodes as f64 / positions.len() as f64
        );
    }
}
