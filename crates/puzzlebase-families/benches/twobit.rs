//! The two-bit breadth-first search (distance mod 4) against the one-byte solver, in the
//! same run: `cargo bench -p puzzlebase-families --bench twobit` on `twelve` (239,500,800 states, both solvers,
//! then the two-bit search again on one and on two threads), `cargo bench -p puzzlebase-families --bench twobit
//! -- fourteen` on the 2x7 (43,589,145,600 states, two bits only: 10.9 GB, the one-byte
//! solver would need 43.6 GB; its threads as `RAYON_NUM_THREADS` says; in the built-in
//! definition's rank order, or row-major with `-- fourteen row-major`), printing wall
//! time, CPU seconds per million positions, peak memory and the levels. Figures only,
//! never asserted: the levels of `fourteen` are checked against OEIS A346736 by `cargo
//! test --release -p puzzlebase-families --test fourteen -- --ignored`.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use puzzlebase_core::memory;
use puzzlebase_core::progress::{Progress, Silent};
use puzzlebase_core::space::StateSpace;
use puzzlebase_families::catalog::builtin_spec;
use puzzlebase_families::sliding::{Sliding, spec::sliding};
use puzzlebase_solvers::{bfs, twobit, twobit_led};

/// Prints each level as it is found, with the time since the start.
struct Levels(Instant, std::sync::Mutex<u64>);
impl Progress for Levels {
    fn advance(&self, n: u64) {
        let mut seen = self.1.lock().unwrap();
        *seen += n;
        eprintln!(
            "{:9.1} s  {n:>14} ranks, {:>14} in all",
            self.0.elapsed().as_secs_f64(),
            *seen
        );
    }
}

/// The two-bit search of `g` on `threads` threads (the global pool when `None`): wall
/// seconds and CPU seconds per million positions, printed.
fn timed(g: &Sliding, threads: Option<usize>, progress: &dyn Progress) -> twobit::TwoBitTable {
    let run = || {
        let cpu = memory::cpu_seconds();
        let t = Instant::now();
        let table = twobit::solve(g, progress).unwrap();
        let wall = t.elapsed().as_secs_f64();
        let cpu = memory::cpu_seconds().zip(cpu).map(|(b, a)| b - a);
        println!(
            "two bits, {} thread(s): {wall:.1} s wall, {} CPU-s per million positions, peak {}",
            threads.unwrap_or_else(rayon::current_num_threads),
            cpu.map_or("?".into(), |c| format!("{:.4}", c * 1e6 / g.size() as f64)),
            peak_gib(),
        );
        table
    };
    memory::reset_peak();
    match threads {
        None => run(),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
            .install(run),
    }
}

fn peak_gib() -> String {
    memory::peak().map_or("?".into(), |b| {
        format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64)
    })
}

fn main() {
    let fourteen = std::env::args().any(|a| a == "fourteen");
    let row_major = std::env::args().any(|a| a == "row-major");
    let g = if fourteen && !row_major {
        sliding(&builtin_spec("fourteen").unwrap()).unwrap()
    } else if fourteen {
        Sliding::grid("fourteen", 2, 7)
    } else {
        Sliding::grid("twelve", 2, 6)
    };
    println!("{} states", g.size());
    if !fourteen {
        memory::reset_peak();
        let t = Instant::now();
        let one = bfs::solve_with(&g, bfs::Outputs::DISTANCES, &Silent).unwrap();
        println!(
            "one byte:  {:.1} s, peak {}, max distance {}",
            t.elapsed().as_secs_f64(),
            peak_gib(),
            one.max_distance()
        );
    }
    let t = Instant::now();
    let progress: &dyn Progress = if fourteen {
        &Levels(t, Default::default())
    } else {
        &Silent
    };
    let two = timed(&g, None, progress);
    println!(
        "two bits:  max distance {}, {} at it",
        two.max_distance(),
        *two.levels.last().unwrap()
    );
    if !fourteen {
        // The same search on one and on two threads: what a core does per position, and
        // how much of it a second core adds.
        for threads in [1, 2] {
            let again = timed(&g, Some(threads), &Silent);
            assert_eq!(
                again.levels, two.levels,
                "the same levels whatever the threads"
            );
        }
    }
    if !fourteen {
        // The check `verify` makes of such a table, in place as for `fourteen` and with
        // the codes kept, on the same threads: checking should not be slower than
        // building. The codes are on huge pages, as the search's table is and as
        // `fourteen`'s are when checked: on ordinary pages the check of this 60 MB table
        // took 6% longer, in TLB misses.
        for in_place in [true, false] {
            let words = two.blocks.concat();
            let codes = memory::atomic_words(words.len(), 0, true);
            for (c, w) in codes.iter().zip(words) {
                c.store(w, Relaxed);
            }
            let t = Instant::now();
            let led = twobit_led::check_as(&g, two.modulus, codes, in_place, &Silent).unwrap();
            println!(
                "check, {}: {:.1} s",
                if in_place { "in place" } else { "codes kept" },
                t.elapsed().as_secs_f64()
            );
            assert_eq!(
                led.levels, two.levels,
                "the check finds the search's levels"
            );
        }
    }
    let widest = (0..two.levels.len())
        .max_by_key(|&d| two.levels[d])
        .unwrap();
    println!("widest level {widest}: {}", two.levels[widest]);
    println!("levels {:?}", two.levels);
}
