//! Prints how long `verify` takes against `generate` on the same file (never asserted):
//! `cargo bench --bench verify`. Builds the whole file, `eleven` and `english33`
//! included, then verifies it in the same run; per puzzle and in total.

use std::time::Instant;

use puzzlebase::{Observer, Options, Progress, Silent, Summary};

struct Quiet;
impl Observer for Quiet {
    fn progress(&self, _: &str) -> Box<dyn Progress + '_> {
        Box::new(Silent)
    }
    fn done(&self, _: &Summary) {}
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.sqlite");
    let opts = Options {
        db: db.clone(),
        only: Vec::new(),
        force: true,
    };
    let t = Instant::now();
    let built = puzzlebase::generate(&opts, &Quiet).unwrap();
    let generated = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let reports = puzzlebase::verify_file(&db, &[], &mut |_| {}).unwrap();
    let verified = t.elapsed().as_secs_f64();

    println!(
        "{:<18} {:>10} {:>10} {:>7}",
        "puzzle", "generate", "verify", "ratio"
    );
    for r in &reports {
        let g = built
            .iter()
            .find(|s| s.name == r.puzzle)
            .map_or(0.0, |s| s.seconds);
        println!(
            "{:<18} {:>9.2}s {:>9.2}s {:>7.2}",
            r.puzzle,
            g,
            r.seconds,
            r.seconds / g.max(1e-9)
        );
    }
    println!(
        "whole file ({} puzzles, {:.0} MB): generate {generated:.1} s, verify {verified:.1} s, \
         ratio {:.2} (target <= 1)",
        reports.len(),
        std::fs::metadata(&db).unwrap().len() as f64 / 1e6,
        verified / generated
    );
}
