//! Prints speed figures (never asserted): `cargo bench`, or
//! `cargo bench --bench generate -- 3x4` to add the 239,500,800-state 3x4 puzzle.

use std::process::Command;
use std::time::Instant;

use puzzlebase::bfs;
use puzzlebase::generate::{self, Observer, Options, Summary};
use puzzlebase::progress::{Progress, Silent};
use puzzlebase::puzzles::sliding::Sliding;
use puzzlebase::space::StateSpace;

struct Quiet;
impl Observer for Quiet {
    fn progress(&self, _: &str) -> Box<dyn Progress + '_> {
        Box::new(Silent)
    }
    fn done(&self, _: &Summary) {}
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.sqlite");

    let sliding = ["six", "seven", "eight"].map(String::from).to_vec();
    let runs: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            let opts = Options {
                db: db.clone(),
                only: sliding.clone(),
                force: true,
            };
            generate::generate(&opts, &Quiet).unwrap();
            t.elapsed().as_secs_f64()
        })
        .collect();
    println!(
        "generate six+seven+eight incl. SQLite file: {:.3} s (median of 5; target <= 1 s)",
        median(runs)
    );

    let eight = Sliding::grid("eight", 3, 3);
    let runs: Vec<f64> = (0..10)
        .map(|_| {
            let t = Instant::now();
            bfs::solve(&eight, &Silent).unwrap();
            t.elapsed().as_secs_f64()
        })
        .collect();
    println!(
        "eight table alone (distances, next, counts): {:.1} ms (median of 10; target <= 30 ms)",
        1e3 * median(runs)
    );

    let bin = env!("CARGO_BIN_EXE_puzzlebase");
    let runs: Vec<f64> = (0..20)
        .map(|_| {
            let t = Instant::now();
            let o = Command::new(bin)
                .args([
                    "query",
                    "--db",
                    db.to_str().unwrap(),
                    "--puzzle",
                    "eight",
                    "--state",
                    "867254301",
                    "--json",
                ])
                .output()
                .unwrap();
            assert!(o.status.success());
            t.elapsed().as_secs_f64()
        })
        .collect();
    println!(
        "one `query --state` process: {:.1} ms (median of 20; target <= 20 ms)",
        1e3 * median(runs)
    );

    if args.iter().any(|a| a == "3x4") {
        let p = Sliding::grid("eleven", 3, 4);
        let t = Instant::now();
        let table = bfs::solve(&p, &Silent).unwrap();
        let s = t.elapsed().as_secs_f64();
        println!(
            "3x4 engine: {} states reached of {}, max distance {}, {} at it, {:.1} s, {:.1} M states/s",
            table.reached(),
            p.size(),
            table.max_distance(),
            table.levels.last().unwrap(),
            s,
            table.reached() as f64 / s / 1e6
        );
    }
}
