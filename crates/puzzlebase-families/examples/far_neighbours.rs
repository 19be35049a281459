//! What finding the far neighbours of `fourteen`'s ranks costs apart from the search:
//! the far moves (those that change the tiles' rank: the horizontal ones that jump two
//! tiles in `fourteen`'s rank order, or the vertical ones with `row-major` last) of each
//! of `N` ranks (20 million unless given), picked at random
//! with density `D` (0.05 unless given: a wide level's share of a chunk) from a third
//! of the way into the ranks, 64 ranks per call as the two-bit search asks.
//!
//! ```sh
//! cargo run --release -p puzzlebase-families --example far_neighbours -- 0.05 20000000
//! cargo run --release -p puzzlebase-families --example far_neighbours -- 0.05 20000000 row-major
//! ```
//!
//! Prints, for three rounds, the nanoseconds per rank and a sum of the neighbours (the
//! same sum before and after a change to the arithmetic says it finds the same ones).

use std::time::Instant;

use puzzlebase_core::space::StateSpace;
use puzzlebase_families::catalog::builtin_spec;
use puzzlebase_families::sliding::{Sliding, spec::sliding};

fn main() {
    let mut args = std::env::args().skip(1);
    let density: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(0.05);
    let n: usize = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000_000);
    let g = if args.next().as_deref() == Some("row-major") {
        Sliding::grid("fourteen", 2, 7)
    } else {
        sliding(&builtin_spec("fourteen").unwrap()).unwrap()
    };
    // xorshift64: the same ranks in every run.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let threshold = (density.clamp(0.0, 1.0) * u32::MAX as f64) as u64;
    let mut ranks = Vec::with_capacity(n);
    let mut r = g.size() / 3;
    while ranks.len() < n && r < g.size() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if x & 0xFFFF_FFFF < threshold {
            ranks.push(r);
        }
        r += 1;
    }
    let (mut out, mut ends) = (Vec::new(), Vec::new());
    for round in 0..3 {
        let t = Instant::now();
        let mut sum = 0u64;
        for part in ranks.chunks(64) {
            out.clear();
            ends.clear();
            g.far_neighbors_of(part, &mut out, &mut ends);
            sum = out.iter().fold(sum, |s, &o| s.wrapping_add(o));
        }
        let ns = t.elapsed().as_secs_f64() * 1e9 / ranks.len().max(1) as f64;
        println!("round {round}: {ns:.2} ns per rank, sum {sum}");
    }
}
