//! Measures the French 37-hole board's reachable positions per peg count, layer by
//! layer, until a layer limit (first argument, default 12) is reached. Only the layer
//! being expanded is kept in memory.
//!
//! `cargo run --release --example peg_french37 -- 14`

use puzzlebase::catalog::builtin_boards as boards;
use puzzlebase::core::progress::Silent;
use puzzlebase::solvers::peg::for_each_reachable_layer;
use rayon::prelude::*;
use std::time::Instant;

fn main() {
    let layers: usize = std::env::args()
        .nth(1)
        .map_or(12, |a| a.parse().expect("layer count"));
    let board = boards().into_iter().find(|b| b.name == "french37").unwrap();
    println!(
        "start {} ({} symmetries)",
        board.format(board.start),
        board.symmetries().len()
    );
    let clock = Instant::now();
    println!("pegs    classes   positions  seconds");
    for_each_reachable_layer(&board, layers, &Silent, |pegs, layer| {
        let positions: u64 = layer.par_iter().map(|&b| board.class_size(b) as u64).sum();
        println!(
            "{pegs:4} {:10} {positions:11} {:8.1}",
            layer.len(),
            clock.elapsed().as_secs_f64()
        );
    });
}
