//! Journals beside a shipped file: a `-wal` made by another SQLite program on a copy of
//! the file (a distance raised, histogram rows swapped) and planted beside the untouched
//! file is never read by `query`, `list`, `verify` or the server, and no reader leaves a
//! `-wal` or `-shm` of its own.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::serve::{raw_at, start_server};
use crate::util::{generate_into, query_json_in, run};

/// The 8-puzzle position whose distance the planted log raises (31 moves).
const STATE: &str = "867254301";

/// A file of `six` and `eight`, and beside it a `-wal` (and its `-shm`) written by
/// another SQLite connection on a copy: `STATE`'s distance raised to 33, the first two
/// histogram rows of `eight` given each other's counts.
fn planted() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six", "eight"], false);
    let copy = dir.path().join("copy.sqlite");
    fs::copy(&db, &copy).unwrap();
    let conn = rusqlite::Connection::open(&copy).unwrap();
    conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
        .unwrap();
    conn.execute_batch(
        "PRAGMA wal_autocheckpoint = 0;
         UPDATE positions SET distance = 33 WHERE puzzle = 'eight' AND state = '867254301';
         UPDATE histogram SET positions = positions + 1 WHERE puzzle = 'eight' AND distance = 0;
         UPDATE histogram SET positions = positions - 1 WHERE puzzle = 'eight' AND distance = 1;",
    )
    .unwrap();
    // Copied while the writer is open: its log holds the changes, not yet in the file.
    fs::copy(beside(&copy, "-wal"), beside(&db, "-wal")).unwrap();
    fs::copy(beside(&copy, "-shm"), beside(&db, "-shm")).unwrap();
    drop(conn);
    (dir, db)
}

fn beside(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.file_name().unwrap().to_os_string();
    name.push(suffix);
    db.with_file_name(name)
}

fn distance(answer: &Value) -> i64 {
    answer["distance"].as_i64().unwrap()
}

#[test]
fn a_planted_write_ahead_log_is_never_read() {
    let (_dir, db) = planted();
    let wal = fs::read(beside(&db, "-wal")).unwrap();
    assert!(wal.len() > 32, "the planted log holds frames");
    let file = fs::read(&db).unwrap();

    // Plain SQLite reads the log: the planted change is what an unguarded reader sees.
    {
        let plain =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .unwrap();
        let d: i64 = plain
            .query_row(
                "SELECT distance FROM positions WHERE puzzle = 'eight' AND state = ?1",
                [STATE],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(d, 33, "the planted log changes what plain SQLite reads");
    }

    let answer = query_json_in(&db, &["--puzzle", "eight", "--state", STATE]);
    assert_eq!(distance(&answer), 31, "{answer}");
    let histogram = query_json_in(&db, &["--puzzle", "eight", "--histogram"]);
    let rows = histogram["histogram"].as_array().unwrap();
    assert_eq!(
        (rows[0].as_u64(), rows[1].as_u64()),
        (Some(1), Some(2)),
        "{histogram}"
    );

    let list = run(&["list", "--db", db.to_str().unwrap()]);
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    let verify = run(&["verify", "--db", db.to_str().unwrap()]);
    assert!(
        verify.status.success(),
        "verify reads the file, not the log: {}",
        String::from_utf8_lossy(&verify.stderr)
    );

    let addr = start_server(&db);
    let (status, _, body) = raw_at(
        addr,
        format!("/api/puzzles/eight/positions/{STATE}").as_bytes(),
        "GET",
    );
    let served: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!((status, distance(&served)), (200, 31), "{served}");

    // Nothing the readers did touched the file or the log.
    assert_eq!(fs::read(&db).unwrap(), file);
    assert_eq!(fs::read(beside(&db, "-wal")).unwrap(), wal);
}

#[test]
fn readers_leave_no_journal_files() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six"], false);
    // A file another program switched to WAL mode is still read through its own pages.
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .unwrap();
    }
    let names = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let before = names(dir.path());
    let s = db.to_str().unwrap();
    for args in [
        vec!["query", "--db", s, "--puzzle", "six", "--longest"],
        vec!["list", "--db", s],
        vec!["verify", "--db", s],
    ] {
        let _ = run(&args);
        assert_eq!(names(dir.path()), before, "{args:?} left files");
    }
}

/// What each planted log changes, made with SQL on a copy of the served file.
const EDITS: &[&str] = &[
    "UPDATE positions SET distance = distance + 2 WHERE puzzle = 'eight' AND state = '867254301'",
    "UPDATE histogram SET positions = positions + 1 WHERE puzzle = 'seven' AND distance = 0",
    "PRAGMA foreign_keys = OFF; DELETE FROM puzzles WHERE name = 'knight-swap'",
    "UPDATE positions SET solutions = solutions + 1 WHERE puzzle = 'seven'",
    "DELETE FROM positions WHERE puzzle = 'nine' AND rank % 7 = 0",
    "UPDATE puzzles SET max_distance = max_distance + 1 WHERE name = 'eight'",
];

/// The questions asked of the server after each change.
const QUESTIONS: &[&str] = &[
    "/api/puzzles",
    "/api/puzzles/seven",
    "/api/puzzles/seven/positions/07214365",
    "/api/puzzles/eight",
    "/api/puzzles/eight/positions/867254301",
    "/api/puzzles/nine/positions/0532194876",
    "/api/puzzles/knight-swap",
];

fn ask_all(addr: std::net::SocketAddr) -> Vec<(u16, Value)> {
    QUESTIONS
        .iter()
        .map(|q| {
            let (status, _, body) = raw_at(addr, q.as_bytes(), "GET");
            (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
        })
        .collect()
}

/// The server under 300 seeded changes of its companions: a write-ahead log (with or
/// without its `-shm`) planted from a copy that another SQLite program edited, or a
/// hot rollback journal, appearing and disappearing in turn. Every answer is the one the
/// file gives or a refusal, never another answer with 200. Ignored by `cargo test`
/// for its time; `.ci/run` runs it.
#[test]
#[ignore]
fn a_server_is_never_answered_from_a_planted_journal() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("served.sqlite");
    std::fs::copy(crate::util::shared_db(), &db).unwrap();
    // One log (and its -shm) per edit, each made on its own copy and kept while open.
    let mut logs = Vec::new();
    for (i, edit) in EDITS.iter().enumerate() {
        let copy = dir.path().join(format!("copy{i}.sqlite"));
        std::fs::copy(&db, &copy).unwrap();
        let conn = rusqlite::Connection::open(&copy).unwrap();
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .unwrap();
        conn.execute_batch(&format!("PRAGMA wal_autocheckpoint = 0; {edit};"))
            .unwrap_or_else(|e| panic!("{edit}: {e}"));
        logs.push((
            std::fs::read(beside(&copy, "-wal")).unwrap(),
            std::fs::read(beside(&copy, "-shm")).unwrap(),
        ));
        drop(conn);
    }
    // A hot journal: a writer of the served file killed in the middle of a change.
    let hot = {
        let copy = dir.path().join("hot.sqlite");
        std::fs::copy(&db, &copy).unwrap();
        let conn = rusqlite::Connection::open(&copy).unwrap();
        conn.execute_batch(
            "PRAGMA cache_size = 2; BEGIN;
             UPDATE positions SET solutions = solutions + 1 WHERE puzzle = 'seven';",
        )
        .unwrap();
        let journal = std::fs::read(beside(&copy, "-journal")).unwrap();
        conn.execute_batch("ROLLBACK").unwrap();
        journal
    };
    let addr = start_server(&db);
    let good = ask_all(addr);
    assert!(good.iter().all(|(s, _)| *s == 200), "{good:?}");
    let mut rng = 0x10A7_5EEDu64;
    let mut next = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let (mut same, mut refused, mut silent) = (0, 0, Vec::new());
    for trial in 0..300 {
        let what = next(EDITS.len() + 2);
        let planted = if what < EDITS.len() {
            std::fs::write(beside(&db, "-wal"), &logs[what].0).unwrap();
            if next(2) == 0 {
                std::fs::write(beside(&db, "-shm"), &logs[what].1).unwrap();
            }
            format!("log of {:?}", EDITS[what])
        } else if what == EDITS.len() {
            std::fs::write(beside(&db, "-journal"), &hot).unwrap();
            "a hot journal".to_string()
        } else {
            "nothing (the last trial's files removed)".to_string()
        };
        for (i, (now, was)) in ask_all(addr).into_iter().zip(&good).enumerate() {
            if now.0 != 200 {
                refused += 1;
            } else if now == *was {
                same += 1;
            } else {
                silent.push(format!("trial {trial}, {planted}, question {i}: {}", now.1));
            }
        }
        // Most trials leave their files for the next one to find, some remove them.
        if next(3) == 0 || what > EDITS.len() {
            for suffix in ["-wal", "-shm", "-journal"] {
                let _ = std::fs::remove_file(beside(&db, suffix));
            }
        }
    }
    eprintln!(
        "300 planted journals under a running server: {same} answers unchanged, {refused} refused, {} silently different",
        silent.len()
    );
    assert!(silent.is_empty(), "{silent:#?}");
    for suffix in ["-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(beside(&db, suffix));
    }
    assert_eq!(ask_all(addr), good);
}

/// `generate` copies the puzzles it does not rebuild from the previous file, through the
/// file's own pages: a planted log's rows never reach the new file.
#[test]
fn generate_never_copies_from_a_planted_log() {
    let (_dir, db) = planted();
    let s = db.to_str().unwrap();
    let built = run(&[
        "generate", "--quiet", "--force", "--db", s, "--puzzle", "six",
    ]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    for suffix in ["-wal", "-shm"] {
        let _ = fs::remove_file(beside(&db, suffix));
    }
    let answer = query_json_in(&db, &["--puzzle", "eight", "--state", STATE]);
    assert_eq!(distance(&answer), 31, "{answer}");
    let verified = run(&["verify", "--db", s]);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stderr)
    );
}
