//! What this host's memory gives a table read and written at random, the way the two-bit
//! search claims far neighbours: figures to set a `fourteen` run beside, since hosts that
//! `lscpu` describes alike have run it in 14.9 and in 22 minutes.
//!
//! ```sh
//! cargo run --release -p puzzlebase-core --example memory_probe -- 10.2 3
//! ```
//!
//! A table of `G` GiB (10.2 unless given: `fourteen`'s) is allocated as the search
//! allocates its own (huge pages where the kernel allows, every word written first), then
//! for each of `R` rounds (3 unless given) it prints:
//! - the latency of one word read at random, each read's address waiting on the last,
//!   within the first 256 KiB of the table, 1 MiB, 4 MiB, ... and the whole: where the
//!   caches end;
//! - a claim's cost, on 1 and on 2 threads: words picked at random in batches of 64, a
//!   batch's words prefetched while the one before is claimed (read, then one bit
//!   cleared), as the search claims its far neighbours. `locked` clears the bit with
//!   `fetch_and`, as the search does; `plain` with a load and a store (lost updates
//!   between threads are possible, so only for timing: what the atomic costs on top).
//!   On 2 threads the figure is the wall time per claim of both together.
//! - the locked claims again, each word first put in a bin by its GiB of the table and a
//!   bin claimed once it holds 2^18 words: what claiming far neighbours a region at a
//!   time could save at most (the search measured with such bins:
//!   docs/notes/performance-history.md, "The AMD host's memory").
//!
//! Then what `fourteen`'s far neighbours would take at the best 2-thread locked rate if
//! each were such a claim: 43,589,145,600 of them read row-major (one vertical move per
//! position), of which the search finds some in the cache (for some cells of the blank
//! the move changes only the rank's low digits). In `fourteen`'s rank order
//! (`src/families/sliding/mod.rs`) 12 of the 14 cells of the blank have a far move and 4
//! of the 14 one that reaches past the cache.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use puzzlebase_core::memory::{atomic_words, prefetch};

/// Words claimed per thread in each measurement.
const CLAIMS: usize = 1 << 24;
/// Reads in the latency chain.
const CHAIN: usize = 1 << 21;
/// Words prefetched together, as the search's batches.
const BATCH: usize = 64;
/// Words a bin holds before it is claimed.
const BIN: usize = 1 << 18;
/// Words per region of the table binned together: 1 GiB.
const REGION: usize = 1 << 27;
/// `fourteen`'s positions, one far neighbour each when read row-major.
const FOURTEEN: f64 = 43_589_145_600.0;

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// `x` (uniform in `u64`) brought into `0..n` by a multiplication: a division would cost
/// more than a read from the cache.
#[inline]
fn below(x: u64, n: usize) -> usize {
    ((x as u128 * n as u128) >> 64) as usize
}

/// Nanoseconds per read within `table`, each read's address made from the word the
/// last one read.
fn latency(table: &[AtomicU64]) -> f64 {
    let mut at = 12345u64;
    let start = Instant::now();
    for i in 0..CHAIN as u64 {
        let w = table[below(at, table.len())].load(Relaxed);
        at = (at ^ w ^ i).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    let ns = start.elapsed().as_secs_f64() * 1e9 / CHAIN as f64;
    std::hint::black_box(at);
    ns
}

/// Claims word `w`: clears one of its bits, with `fetch_and` when `locked`, a load and a
/// store otherwise; 1 if the bit was set.
#[inline]
fn claim(table: &[AtomicU64], w: usize, locked: bool) -> u64 {
    let bit = 1u64 << (w % 64);
    let word = &table[w];
    let was = if locked {
        word.fetch_and(!bit, Relaxed)
    } else {
        let v = word.load(Relaxed);
        word.store(v & !bit, Relaxed);
        v
    };
    (was & bit != 0) as u64
}

/// One thread's claims: [`CLAIMS`] words at random from `seed`, in batches.
fn claim_run(table: &[AtomicU64], seed: u64, locked: bool) -> u64 {
    let mut x = seed | 1;
    let mut batches = [[0usize; BATCH]; 2];
    let mut cleared = 0u64;
    for b in 0..=CLAIMS / BATCH {
        if b < CLAIMS / BATCH {
            for slot in batches[b % 2].iter_mut() {
                *slot = below(xorshift(&mut x), table.len());
                prefetch(&table[*slot]);
            }
        }
        if b > 0 {
            for &w in &batches[(b - 1) % 2] {
                cleared += claim(table, w, locked);
            }
        }
    }
    cleared
}

/// One thread's claims as [`claim_run`] (locked), but each word first put in the bin of
/// its region of [`REGION`] words, a bin claimed (its words prefetched [`BATCH`] ahead)
/// once it holds [`BIN`], the rest at the end.
fn binned_run(table: &[AtomicU64], seed: u64) -> u64 {
    let mut x = seed | 1;
    let mut bins: Vec<Vec<usize>> = vec![Vec::with_capacity(BIN); table.len().div_ceil(REGION)];
    let mut cleared = 0u64;
    let mut claim_bin = |bin: &mut Vec<usize>| {
        for (i, &w) in bin.iter().enumerate() {
            if let Some(&ahead) = bin.get(i + BATCH) {
                prefetch(&table[ahead]);
            }
            cleared += claim(table, w, true);
        }
        bin.clear();
    };
    for _ in 0..CLAIMS {
        let w = below(xorshift(&mut x), table.len());
        let bin = &mut bins[w / REGION];
        bin.push(w);
        if bin.len() == BIN {
            claim_bin(bin);
        }
    }
    for bin in &mut bins {
        claim_bin(bin);
    }
    cleared
}

/// Nanoseconds of wall time per claim, `threads` threads each running `run` (given a
/// seed of its own) at once.
fn timed(threads: usize, run: impl Fn(u64) -> u64 + Sync) -> f64 {
    let start = Instant::now();
    std::thread::scope(|s| {
        let run = &run;
        let runs: Vec<_> = (0..threads as u64)
            .map(|t| {
                s.spawn(move || {
                    run(0x5851_F42D_4C95_7F2D ^ t << 32 ^ start.elapsed().as_nanos() as u64)
                })
            })
            .collect();
        for r in runs {
            std::hint::black_box(r.join().unwrap());
        }
    });
    start.elapsed().as_secs_f64() * 1e9 / (threads * CLAIMS) as f64
}

fn main() {
    let mut args = std::env::args().skip(1);
    let gib: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(10.2);
    let rounds: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let words = (gib * (1u64 << 30) as f64 / 8.0) as usize;
    let start = Instant::now();
    let table = atomic_words(words.max(1 << 20), u64::MAX, true);
    let size = |words: usize| {
        let bytes = 8 * words as u64;
        if bytes >= 1 << 30 {
            format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
        } else if bytes >= 1 << 20 {
            format!("{} MiB", bytes >> 20)
        } else {
            format!("{} KiB", bytes >> 10)
        }
    };
    println!(
        "table: {}, written in {:.1} s",
        size(table.len()),
        start.elapsed().as_secs_f64()
    );
    // 256 KiB, 1 MiB, ..., 1 GiB: which caches there are and what they hold.
    let ladder: Vec<usize> = (0..)
        .map(|k| (1usize << 15) << (2 * k))
        .take_while(|&w| w < table.len())
        .chain([table.len()])
        .collect();
    let mut best = f64::INFINITY;
    for round in 1..=rounds {
        let reads: Vec<String> = (ladder.iter())
            .map(|&w| format!("{} {:.1} ns", size(w), latency(&table[..w])))
            .collect();
        println!("round {round}");
        println!("  a read at random, within {}", reads.join(", "));
        let claims = |threads, locked| timed(threads, |seed| claim_run(&table, seed, locked));
        let (one_locked, one_plain) = (claims(1, true), claims(1, false));
        let (two_locked, two_plain) = (claims(2, true), claims(2, false));
        best = best.min(two_locked);
        println!(
            "  a claim at random: 1 thread {one_locked:.1} ns locked, {one_plain:.1} ns plain; \
             2 threads {two_locked:.1} ns locked, {two_plain:.1} ns plain"
        );
        let binned = |threads| timed(threads, |seed| binned_run(&table, seed));
        let (b1, b2) = (binned(1), binned(2));
        println!("  the same in bins by GiB: 1 thread {b1:.1} ns, 2 threads {b2:.1} ns");
    }
    println!(
        "fourteen's far neighbours as such claims on 2 threads: {:.0} s (at {best:.1} ns each)",
        FOURTEEN * best / 1e9
    );
}
