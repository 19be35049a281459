//! Builds one pattern database of the 4x4 and prints its size, time and peak memory:
//! `cargo run --release -p puzzlebase-solvers --example fifteen_pattern -- 1,5,6,9,10,13`.

use std::time::Instant;

use puzzlebase_core::memory;
use puzzlebase_core::progress::Silent;
use puzzlebase_solvers::pattern::{self, Grid, Pattern};

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "2,3,4".into());
    let tiles: Vec<u8> = arg.split(',').map(|t| t.trim().parse().unwrap()).collect();
    let p = Pattern::new(Grid::new(4, 4), &tiles).unwrap();
    memory::reset_peak();
    let t = Instant::now();
    let table = pattern::build(&p, &Silent).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let max = table
        .bytes
        .iter()
        .map(|&b| table.entry.minimum(b))
        .max()
        .unwrap();
    let raised = table
        .bytes
        .iter()
        .filter(|&&b| table.entry.bound(b, true) > table.entry.minimum(b) as u32)
        .count();
    let peak = memory::peak().unwrap_or(0) as f64 / (1u64 << 20) as f64;
    println!(
        "pattern {tiles:?}: {} placements, largest entry {max} ({}), {raised} raised in their largest region, built in {secs:.2} s, peak {peak:.0} MiB",
        p.placements(),
        table.entry.name()
    );
    let t = Instant::now();
    pattern::check_local(&p, &table).unwrap();
    println!("local check {:.2} s", t.elapsed().as_secs_f64());
    if std::env::args().any(|a| a == "--check") {
        let t = Instant::now();
        pattern::check(&p, &table).unwrap();
        println!("full check {:.2} s", t.elapsed().as_secs_f64());
    }
}
