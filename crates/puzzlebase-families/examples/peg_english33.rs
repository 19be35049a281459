//! Solves the English 33-hole central game and prints the figures.
//!
//! `cargo run --release -p puzzlebase-families --example peg_english33` (run under `/usr/bin/time -v` to see
//! the peak memory).

use puzzlebase_core::progress::Progress;
use puzzlebase_families::catalog::builtin_boards as boards;
use puzzlebase_solvers::peg::solve;
use std::time::Instant;

/// Prints each phase with the time since the start.
struct Phases(Instant);
impl Progress for Phases {
    fn phase(&self, name: &str, total: u64) {
        eprintln!("[{:7.1}s] {name} ({total})", self.0.elapsed().as_secs_f64());
    }
}

fn main() {
    let board = boards()
        .into_iter()
        .find(|b| b.name == "english33")
        .unwrap();
    let clock = Instant::now();
    let table = solve(&board, &Phases(clock)).expect("english33 is tabulated");
    let secs = clock.elapsed().as_secs_f64();
    println!("pegs  reachable  can_finish  reachable_classes  can_finish_classes");
    for l in &table.layers {
        println!(
            "{:4} {:10} {:11} {:18} {:19}",
            l.pegs, l.reachable, l.can_finish, l.reachable_classes, l.can_finish_classes
        );
    }
    let sum = |f: fn(&puzzlebase_solvers::peg::LayerStats) -> u64| {
        table.layers.iter().map(f).sum::<u64>()
    };
    println!("reachable positions:      {}", sum(|l| l.reachable));
    println!("can finish:               {}", sum(|l| l.can_finish));
    println!("reachable classes:        {}", sum(|l| l.reachable_classes));
    println!(
        "can-finish classes:       {}",
        sum(|l| l.can_finish_classes)
    );
    println!(
        "rows stored:              {} (all reachable: {})",
        table.rows.len(),
        table.all_reachable_stored
    );
    println!("start distance (moves):   {}", table.max_distance);
    let start = table.row(board.canonical(board.start).0).unwrap();
    println!("optimal solutions:        {:?}", start.solutions);
    // Follow the stored next moves from the start, mapping each back to the real board.
    let (mut bits, mut moves) = (board.start, Vec::new());
    while bits != board.finish {
        let (canon, g) = board.canonical(bits);
        let row = table.row(canon).unwrap();
        let mv = board.map_move(row.next_move.as_ref().unwrap(), g, true);
        bits = board.apply_move(bits, &mv).unwrap();
        moves.push(mv);
    }
    println!(
        "a shortest solution:      {}",
        puzzlebase_solvers::peg::Board::format_moves(&moves)
    );
    println!("solve time:               {secs:.1} s");
}
