//! Rebuilding one puzzle of an existing file: done in a copy of the previous file's
//! pages (`generate/rebuild.rs`), it keeps every other puzzle's rows and checksum, leaves
//! a file `verify` and `sha256sum -c` accept, leaves the previous file intact when killed
//! at any moment, and does not grow the file run after run.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use crate::util::{assert_no_temporaries, generate_into, run};

/// `list --json`'s name and checksum of every puzzle, sorted.
fn listed(db: &Path) -> Vec<(String, String)> {
    let o = run(&["list", "--json", "--db", db.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut out: Vec<(String, String)> = (String::from_utf8(o.stdout).unwrap().lines())
        .map(|l| {
            let p: serde_json::Value = serde_json::from_str(l).unwrap();
            let text = |k: &str| {
                p[k].as_str()
                    .unwrap_or_else(|| panic!("{k} in {l}"))
                    .to_string()
            };
            (text("puzzle"), text("checksum"))
        })
        .collect();
    out.sort();
    out
}

/// `generate --force --puzzle NAME` through the binary, logging every phase.
fn rebuild(db: &Path, name: &str) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
        .args(["generate", "--db", db.to_str().unwrap()])
        .args(["--puzzle", name, "--force"])
        .env_remove("PUZZLEBASE_DB")
        .env("PUZZLEBASE_PROGRESS_SECONDS", "0")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

/// The file and its sidecar as a recipient checks them, and `verify` of every puzzle.
fn assert_sound(db: &Path) {
    let sidecar = format!("{}.sha256", db.file_name().unwrap().to_str().unwrap());
    let o = Command::new("sha256sum")
        .args(["-c", &sidecar])
        .current_dir(db.parent().unwrap())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    let o = run(&["verify", "--db", db.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

const KEPT: &[&str] = &["six", "eight", "nine-packed", "hoppers", "magic-triangle"];

/// The planner statistics of the file at `db`, and those ANALYZE writes in a copy of it.
fn statistics_and_analyzed(db: &Path) -> (Vec<String>, Vec<String>) {
    let read = |conn: &rusqlite::Connection| -> Vec<String> {
        let mut st = conn
            .prepare("SELECT tbl || ' ' || ifnull(idx, '') || ' ' || stat FROM sqlite_stat1 ORDER BY tbl, idx")
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let copy = db.with_extension("analyzed");
    fs::copy(db, &copy).unwrap();
    let conn = rusqlite::Connection::open(&copy).unwrap();
    let held = read(&conn);
    // As the file was when `generate` analysed it: its seal is written after.
    conn.execute_batch("DELETE FROM meta WHERE key = 'seal'; ANALYZE")
        .unwrap();
    let fresh = read(&conn);
    drop(conn);
    fs::remove_file(&copy).unwrap();
    (held, fresh)
}

#[test]
fn a_one_puzzle_rebuild_keeps_every_other_puzzle_and_its_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, KEPT, false);
    let before = listed(&db);
    let value_before = fs::read(&db).unwrap()[4096 - 16..4096 - 8].to_vec();
    // A puzzle added, then rebuilt: each time in a copy of the previous file's pages,
    // not a new file row by row.
    for round in 0..2 {
        let o = rebuild(&db, "seven");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("the file: copying"), "{err}");
        let after = listed(&db);
        assert_eq!(after.len(), KEPT.len() + 1);
        assert!(
            before.iter().all(|b| after.contains(b)),
            "every other checksum as it was: {before:?} {after:?}"
        );
        assert_sound(&db);
        // The statistics are those ANALYZE writes, whether it ran (a puzzle added) or
        // was found unneeded (a puzzle rebuilt as it was).
        let (held, fresh) = statistics_and_analyzed(&db);
        assert!(!held.is_empty());
        assert_eq!(held, fresh, "round {round}");
    }
    // The copy has a file value of its own: no page of the previous file passes in it.
    let bytes = fs::read(&db).unwrap();
    assert_eq!(u16::from_be_bytes([bytes[16], bytes[17]]), 4096);
    assert_ne!(bytes[4096 - 16..4096 - 8], value_before[..]);
    let a = crate::util::query_json_in(&db, &["--puzzle", "seven", "--state", "01234576"]);
    assert_eq!(a["distance"], 22, "{a}");
    assert_no_temporaries(dir.path());
}

/// Without its sidecar (or with one that names other bytes) the previous file is not
/// known to be what a run wrote: the new file is written row by row, each kept puzzle
/// hashed again, and the result is the same.
#[test]
fn a_file_without_its_sidecar_is_rebuilt_row_by_row_to_the_same_checksums() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six", "seven"], false);
    let before = listed(&db);
    fs::remove_file(dir.path().join("p.sqlite.sha256")).unwrap();
    let o = rebuild(&db, "six");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("the file: copying"), "{err}");
    assert_eq!(listed(&db), before);
    assert_sound(&db);
    // A sidecar that names other bytes: the copy is made, found not to be the file a
    // run wrote, and discarded.
    fs::write(
        dir.path().join("p.sqlite.sha256"),
        format!("{}  p.sqlite\n", "0".repeat(64)),
    )
    .unwrap();
    let o = rebuild(&db, "seven");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("the file: copying done"), "{err}");
    assert_eq!(listed(&db), before);
    assert_sound(&db);
    assert_no_temporaries(dir.path());
}

/// SIGKILL at moments spread over a rebuild (copying, deleting, writing, checking,
/// renaming): the file at the path is always either the previous one, byte for byte, or
/// a complete new one with every checksum kept; the next run cleans up.
#[cfg(unix)]
#[test]
fn a_rebuild_killed_at_any_moment_leaves_the_previous_file_intact() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["seven", "eight", "nine"], false);
    let before = fs::read(&db).unwrap();
    let sums = listed(&db);
    let mut outcomes = (0, 0);
    for delay_ms in [0u64, 5, 20, 50, 100, 200, 400, 800] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
            .args(["generate", "-q", "--force", "--db", db.to_str().unwrap()])
            .args(["--puzzle", "eight"])
            .spawn()
            .unwrap();
        // From the moment its temporary exists.
        let started = std::time::Instant::now();
        while !fs::read_dir(dir.path())
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().contains(".tmp-"))
            && child.try_wait().unwrap().is_none()
        {
            assert!(started.elapsed().as_secs() < 60, "the run starts");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        let after = fs::read(&db).unwrap();
        if after == before {
            outcomes.0 += 1;
        } else {
            // The run got to its rename: a whole new file.
            outcomes.1 += 1;
        }
        // Either way a whole file, with every checksum as it was.
        assert_eq!(listed(&db), sums, "killed after {delay_ms} ms");
    }
    assert!(
        outcomes.0 > 0,
        "some kills landed inside the run: {outcomes:?}"
    );
    // The next run removes what the killed ones left, and the result is sound.
    rebuild(&db, "seven");
    assert_eq!(listed(&db), sums);
    assert_sound(&db);
    assert_no_temporaries(dir.path());
}

/// Rebuilding the same puzzle again and again reuses the pages its previous rows held:
/// the file stays the size of the first rebuild's (within a few pages), and its free
/// pages stay under the share that makes a rebuild compact it.
#[test]
fn repeated_rebuilds_do_not_grow_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six", "seven", "eight"], false);
    let sums = listed(&db);
    let mut sizes = Vec::new();
    for _ in 0..5 {
        let o = rebuild(&db, "eight");
        assert!(String::from_utf8_lossy(&o.stderr).contains("the file: copying"));
        sizes.push(fs::metadata(&db).unwrap().len());
        let conn =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .unwrap();
        let count = |p: &str| -> i64 {
            conn.query_row(&format!("PRAGMA {p}"), [], |r| r.get(0))
                .unwrap()
        };
        let (free, pages) = (count("freelist_count"), count("page_count"));
        assert!(free * 8 <= pages, "{free} free of {pages} pages");
    }
    let first = sizes[0];
    assert!(
        sizes.iter().all(|&s| s <= first + 16 * 4096),
        "sizes after each rebuild: {sizes:?}"
    );
    assert_eq!(listed(&db), sums);
    assert_sound(&db);
}
