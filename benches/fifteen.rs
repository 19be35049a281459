//! Prints the command's figures for `fifteen` (never asserted): `cargo bench --bench
//! fifteen` builds the 6-6-3 tables through the library, `-- 7-8` (or `-- 6-6-3 7-8`)
//! the partitions named, and `-- --db PATH` reads a file `generate` already wrote (the
//! 7-8 tables take minutes to build). Per partition: Korf's 100 answered in process as
//! `query` answers them (`solve_loaded`, total length 5305), then one `query --state`
//! process per instance on Korf 1 to 10 (tables read from the file each time). The
//! search's own figures (every option, the 17 positions of 80 moves) are `cargo bench
//! -p puzzlebase --bench search`.

use std::process::Command;
use std::time::Instant;

use puzzlebase::{Database, Job, Observer, Options, Summary, solve_loaded};

#[path = "../tests/integration/korf.rs"]
mod korf;

struct Quiet;
impl Observer for Quiet {
    fn done(&self, _: &Summary) {}
}

const NAME: &str = "fifteen";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let given =
        (args.iter().position(|a| a == "--db")).map(|i| std::path::PathBuf::from(&args[i + 1]));
    let mut parts: Vec<String> = (args.iter())
        .filter(|a| ["6-6-3", "7-8"].contains(&a.as_str()))
        .cloned()
        .collect();
    if parts.is_empty() {
        parts.push("6-6-3".to_string());
    }
    let instances = korf::korf100();
    assert_eq!(instances.len(), 100);
    let dir = tempfile::tempdir().unwrap();
    for part in &parts {
        let db = match &given {
            Some(path) => path.clone(),
            None => {
                let db = dir.path().join(format!("fifteen-{part}.sqlite"));
                let opts = Options {
                    db: db.clone(),
                    only: vec![NAME.to_string()],
                    force: true,
                };
                let job = Job {
                    partitions: vec![part.clone()],
                    ..Default::default()
                };
                let t = Instant::now();
                puzzlebase::generate_job(&opts, job, &Quiet).unwrap();
                println!(
                    "{part}: generate (tables and file) {:.1} s",
                    t.elapsed().as_secs_f64()
                );
                db
            }
        };

        let loaded = Database::open(&db)
            .unwrap()
            .pattern_tables(NAME, Some(part), true)
            .unwrap();
        let t = Instant::now();
        let mut total = 0;
        for k in &instances {
            let a = solve_loaded(&loaded, NAME, &k.cells).unwrap();
            assert_eq!(a.distance, k.length, "instance {}", k.number);
            total += a.distance;
        }
        println!(
            "{part}: `solve_loaded` (query's answer, tables in ordinary pages as one `query` reads them) \
             Korf's 100: total length {total} (published 5305), mean {:.4} s",
            t.elapsed().as_secs_f64() / 100.0
        );

        let bin = env!("CARGO_BIN_EXE_puzzlebase");
        let mut walls = Vec::new();
        for k in instances.iter().take(10) {
            let state: Vec<String> = k.cells.iter().map(|c| c.to_string()).collect();
            let t = Instant::now();
            let out = Command::new(bin)
                .args(["query", "--db", db.to_str().unwrap(), "--puzzle", NAME])
                .args(["--state", &state.join(","), "--json"])
                .output()
                .unwrap();
            walls.push(t.elapsed().as_secs_f64());
            assert!(out.status.success());
        }
        println!(
            "{part}: one `query --state` process (tables read from the file), Korf 1-10: mean {:.3} s, max {:.3} s",
            walls.iter().sum::<f64>() / walls.len() as f64,
            walls.iter().cloned().fold(0.0, f64::max)
        );
    }
}
