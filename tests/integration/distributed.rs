//! The backend across processes, with the processes simulated by threads (the MPI build
//! is checked the same way by `.ci/run` under `mpirun`): every puzzle the breadth-first
//! search serves comes out with the checksum of the plain build, whatever the number of
//! processes, and a killed run resumes from its checkpoints.

use std::path::{Path, PathBuf};

use puzzlebase::distributed::{Checkpoints, Comm, Processes, Threads, work};
use puzzlebase::{Definition, Job, Options};

use crate::util::{Quiet, fixtures, generate_into};

/// One of each kind of unit: a table of rows (eight, knight-swap, oshidori), packed
/// chunks with counts (nine-packed, a test fixture), pattern tables (fifteen's 6-6-3).
const SERVED: [&str; 5] = ["eight", "nine-packed", "knight-swap", "oshidori", "fifteen"];

fn checksums(db: &Path) -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn
        .prepare("SELECT name, checksum FROM puzzles ORDER BY name")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// `generate --puzzle ...` on `procs` processes; process 0's result.
fn generate_in(procs: usize, db: &Path, checkpoints: Option<Checkpoints>) -> Result<(), String> {
    let opts = Options {
        db: db.to_path_buf(),
        only: SERVED.iter().map(|s| s.to_string()).collect(),
        force: true,
    };
    let results = Threads::run(procs, |comm: &Threads| {
        if comm.rank() != 0 {
            return work(comm, checkpoints.clone())
                .map(|_| ())
                .map_err(|e| e.to_string());
        }
        let backend = Processes::new(comm, checkpoints.clone(), None).unwrap();
        let job = Job {
            processes: Some(&backend),
            ..crate::util::job(fixtures(), false)
        };
        let r = puzzlebase::generate_job(&opts, job, &Quiet);
        backend.finish(r.is_ok());
        r.map(|_| ()).map_err(|e| e.to_string())
    });
    results.into_iter().next().unwrap()
}

#[test]
#[ignore = "heavy: about 1 minute of processes; .ci/run runs it"]
fn any_number_of_processes_writes_the_plain_checksums() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain.sqlite");
    generate_into(&plain, &SERVED, false);
    let want = checksums(&plain);
    assert_eq!(want.len(), SERVED.len());
    for procs in [1, 2, 3] {
        let db = tmp.path().join(format!("p{procs}.sqlite"));
        let dir = tmp.path().join(format!("p{procs}.checkpoints"));
        let c = Checkpoints {
            dir: dir.clone(),
            resume: false,
        };
        generate_in(procs, &db, Some(c)).unwrap();
        assert_eq!(checksums(&db), want, "{procs} processes");
        assert!(!dir.exists(), "the checkpoints go once the file is written");
    }
}

/// Kill a run (here: a process fails to write its checkpoint part-way, as a full disk
/// or a killed node would leave it), then resume: the file is the plain build's.
#[test]
fn a_failed_run_resumes_from_its_checkpoints() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain.sqlite");
    generate_into(&plain, &SERVED, false);
    let db = tmp.path().join("resumed.sqlite");
    let dir: PathBuf = tmp.path().join("checkpoints");
    let c = |resume| Checkpoints {
        dir: dir.clone(),
        resume,
    };
    // Stop the run half-way through nine by making process 1's level 20 unwritable.
    std::fs::create_dir_all(&dir).unwrap();
    let blocker = |dir: &Path| {
        let nine = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("nine-packed-")
            });
        nine.map(|n| n.join("p1of2/level-20"))
    };
    // A watcher thread puts a directory where the level file goes as soon as nine's
    // first level is written.
    let stop = std::sync::atomic::AtomicBool::new(false);
    let failed = std::thread::scope(|s| {
        s.spawn(|| {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if let Some(level) = blocker(&dir)
                    && level.parent().unwrap().join("level-1").exists()
                {
                    let _ = std::fs::create_dir_all(&level);
                    std::fs::create_dir_all(level.join("x")).unwrap();
                    return;
                }
                std::thread::yield_now();
            }
        });
        let r = generate_in(2, &db, Some(c(false)));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        r
    });
    let err = failed.expect_err("the run stops when a checkpoint cannot be written");
    assert!(err.contains("nine") && err.contains("checkpoint"), "{err}");
    assert!(!db.exists(), "nothing is written by a failed run");
    let level = blocker(&dir).unwrap();
    let listing: Vec<String> = std::fs::read_dir(level.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(
        level.parent().unwrap().join("level-19").exists(),
        "{err} {listing:?}"
    );
    std::fs::remove_dir_all(&level).unwrap();

    // Three processes cannot resume two's checkpoint; two can.
    let e = generate_in(3, &db, Some(c(true))).unwrap_err();
    assert!(e.contains("written by 2 processes"), "{e}");
    generate_in(2, &db, Some(c(true))).unwrap();
    assert_eq!(checksums(&db), checksums(&plain));
    assert!(!dir.exists());
}

/// Two-bit tables: `nine` asked for two bits is split across the processes (distance
/// mod 4; each process packs its share and process 0 receives the others' chunks a piece
/// at a time), the hexagonal `six` asked for two bits is not bipartite and is solved by
/// process 0 alone (mod 3). Either way the checksums are the plain build's.
#[test]
fn two_bit_tables_across_processes_write_the_plain_checksums() {
    let tmp = tempfile::tempdir().unwrap();
    let extra = || {
        crate::util::two_bit_definitions()
            .into_iter()
            .map(|(file, text)| Definition::from_toml(file, &text).unwrap())
            .collect::<Vec<_>>()
    };
    let opts = |db: &Path| Options {
        db: db.to_path_buf(),
        only: vec![
            "nine-codes".to_string(),
            "six-codes".to_string(),
            "nine-columns".to_string(),
        ],
        force: true,
    };
    let plain = tmp.path().join("plain.sqlite");
    puzzlebase::generate_job(&opts(&plain), crate::util::job(extra(), false), &Quiet).unwrap();
    let want = checksums(&plain);
    assert_eq!(want.len(), 3);
    for procs in [1, 2, 3] {
        let db = tmp.path().join(format!("codes{procs}.sqlite"));
        let log = tmp.path().join(format!("exchange{procs}.csv"));
        let results = Threads::run(procs, |comm: &Threads| {
            if comm.rank() != 0 {
                return work(comm, None).map(|_| ()).map_err(|e| e.to_string());
            }
            let backend = Processes::new(comm, None, Some(&log)).unwrap();
            let job = Job {
                processes: Some(&backend),
                ..crate::util::job(extra(), false)
            };
            let r = puzzlebase::generate_job(&opts(&db), job, &Quiet);
            backend.finish(r.is_ok());
            r.map(|_| ()).map_err(|e| e.to_string())
        });
        for r in results {
            r.unwrap();
        }
        assert_eq!(checksums(&db), want, "{procs} processes");
        // The split search logs a line per level (nine's 2x5 has 55 levels); six, solved
        // by process 0 alone, none.
        let lines = std::fs::read_to_string(&log).unwrap();
        let nine_lines = lines
            .lines()
            .filter(|l| l.starts_with("nine-codes-two-bit-"));
        assert_eq!(nine_lines.count(), 56, "{lines}");
        assert!(!lines.contains("six-codes"), "{lines}");
    }
}
