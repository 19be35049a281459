//! Builds a large peg board's table with the layer solver and prints each phase's time,
//! the layers (reachable and can-finish, positions and classes), the histogram and the
//! stored bytes per class. Scratch files go to the second argument (default `.`).
//!
//! `cargo run --release -p puzzlebase-families --example peg_layers -- french37-c1 /tmp`

use std::sync::Mutex;
use std::time::Instant;

use puzzlebase_core::progress::Progress;
use puzzlebase_families::Puzzle;
use puzzlebase_families::catalog;
use puzzlebase_solvers::peg::layers;

struct Phases(Mutex<Instant>, Instant);

impl Progress for Phases {
    fn phase(&self, name: &str, _total: u64) {
        let mut last = self.0.lock().unwrap();
        eprintln!(
            "{:8.1} s  (+{:.1} s)  {name}",
            self.1.elapsed().as_secs_f64(),
            last.elapsed().as_secs_f64()
        );
        *last = Instant::now();
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "french37".into());
    let scratch = args.next().unwrap_or_else(|| ".".into());
    let Some(Puzzle::Peg(board)) = catalog::find(&name) else {
        eprintln!("{name} is not a peg board");
        std::process::exit(2);
    };
    let now = Instant::now();
    let progress = Phases(Mutex::new(now), now);
    let t = layers::solve(&board, scratch.as_ref(), &progress).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let secs = now.elapsed().as_secs_f64();
    println!("pegs  reachable  classes  can_finish  classes");
    for l in &t.layers {
        println!(
            "{:4} {:12} {:12} {:12} {:12}",
            l.pegs, l.reachable, l.reachable_classes, l.can_finish, l.can_finish_classes
        );
    }
    let reach: u64 = t.layers.iter().map(|l| l.reachable).sum();
    let widest = t.layers.iter().map(|l| l.reachable).max().unwrap_or(0);
    let classes: u64 = t.layers.iter().map(|l| l.can_finish_classes).sum();
    let bytes: u64 = t.tables.iter().map(|l| l.bytes()).sum();
    println!("reachable {reach}, widest {widest}");
    println!("histogram {:?}", t.histogram);
    println!(
        "start distance {}, farthest {} at {}",
        t.start_distance,
        t.farthest.len(),
        t.max_distance()
    );
    println!(
        "stored {classes} classes in {bytes} bytes: {:.3} bytes per class; scratch {} bytes; {secs:.1} s",
        bytes as f64 / classes.max(1) as f64,
        t.scratch_bytes
    );
}
