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
