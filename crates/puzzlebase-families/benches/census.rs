//! The census of every Rush Hour layout without walls (`blocks::census`): `cargo bench
//! -p puzzlebase-families --bench census` takes the 6x6 board (49,425,302,142 layouts;
//! about three quarters of an hour on two cores), `-- ROWS COLS RED_ROW` another shape;
//! `--clusters` counts the solvable clusters too, by their deepest layout (a second walk);
//! `--every N` searches one group in N, a sample to time (N times its wall time is about
//! the whole census's; its progress has no total).
//! Prints progress to stderr, then the layouts at each distance, split by their number
//! of pieces, the solvable and unsolvable counts, the deepest layouts (in Fogleman's
//! notation on 6x6, else each cell's digit of the rank order), the wall time, CPU time and peak memory. Figures only, never
//! asserted: the census is checked against a plain search on small boards by `cargo
//! test -p puzzlebase-families census`.

use std::sync::Mutex;
use std::time::Instant;

use puzzlebase_core::memory;
use puzzlebase_core::progress::Progress;
use puzzlebase_families::blocks::census::{Census, layouts_of};

/// Prints the share of layouts searched every percent, with the time since the start.
struct Share(Instant, Mutex<(u64, u64, u64)>);
impl Progress for Share {
    fn phase(&self, _name: &str, total: u64) {
        self.1.lock().unwrap().0 = total;
    }
    fn advance(&self, n: u64) {
        let mut s = self.1.lock().unwrap();
        s.1 += n;
        let pct = s.1 * 100 / s.0.max(1);
        if pct > s.2 {
            s.2 = pct;
            eprintln!(
                "{:8.1} s  {pct:>3}%  {} of {} layouts",
                self.0.elapsed().as_secs_f64(),
                s.1,
                s.0
            );
        }
    }
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .take_while(|a| a != "--every")
        .filter_map(|a| a.parse().ok())
        .collect();
    let census = match args[..] {
        [rows, cols, red_row] => Census::new(rows, cols, red_row),
        _ => Ok(Census::rush_hour()),
    };
    let census = census.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let census = if std::env::args().any(|a| a == "--clusters") {
        census.with_clusters()
    } else {
        census
    };
    let start = Instant::now();
    let cpu0 = memory::cpu_seconds().unwrap_or(0.0);
    let every = std::env::args()
        .skip_while(|a| a != "--every")
        .nth(1)
        .and_then(|n| n.parse::<u64>().ok());
    let share = Share(start, Mutex::new((0, 0, 0)));
    let found = match every {
        Some(n) => census.run_every(n, &share),
        None => census.run(&share),
    };
    let found = found.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    });
    let wall = start.elapsed().as_secs_f64();
    let cpu = memory::cpu_seconds().unwrap_or(0.0) - cpu0;
    println!("distance,layouts,by pieces (1, 2, ...)");
    for (d, row) in found.by_distance.iter().enumerate() {
        let total: u64 = row.iter().sum();
        let split: Vec<String> = row.iter().skip(1).map(|n| n.to_string()).collect();
        println!("{d},{total},{}", split.join(" "));
    }
    let solvable = found.solvable();
    println!("layouts {}", found.layouts);
    println!("transfer matrix {:?}", layouts_of(&census));
    println!("solvable {solvable}");
    println!("unsolvable {}", found.layouts - solvable);
    println!(
        "deepest {} moves: {} layouts",
        found.deepest_distance, found.deepest_count
    );
    for l in &found.deepest {
        match l.to_board() {
            Ok(b) => println!("  {}", b.notation()),
            // Another shape: each cell's digit of the rank order, rows joined by '/'.
            Err(_) => println!(
                "  {}",
                l.cells
                    .chunks(l.cols)
                    .map(|row| row.iter().map(|&c| (b'0' + c as u8) as char).collect())
                    .collect::<Vec<String>>()
                    .join("/")
            ),
        }
    }
    if !found.clusters.is_empty() {
        println!("solvable clusters {}", found.clusters.iter().sum::<u64>());
        println!("deepest distance,clusters");
        for (d, n) in found.clusters.iter().enumerate() {
            println!("{d},{n}");
        }
    }
    if let Some(n) = every {
        println!(
            "a sample: one group in {n}; {n} times its wall time is {:.0} s",
            wall * n as f64
        );
    }
    println!(
        "wall {wall:.1} s, cpu {cpu:.1} s, peak {} kB, threads {}",
        memory::peak().unwrap_or(0) / 1024,
        rayon::current_num_threads()
    );
}
