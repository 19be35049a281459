//! The nightly job: atomic replacement, refusal of concurrent runs, reuse of unchanged
//! puzzles, determinism across thread counts.

use std::fs;
use std::process::Command;

use crate::util::{assert_clean_failure, assert_no_temporaries, generate_into, run};

fn checksums(db: &std::path::Path) -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn
        .prepare("SELECT name, checksum FROM puzzles ORDER BY name")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn unchanged_puzzles_are_reused_and_force_recomputes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    let first = generate_into(&db, &["six", "seven", "nine-packed"], false);
    assert!(first.iter().all(|s| !s.reused));
    let before = checksums(&db);
    let second = generate_into(&db, &["six", "seven", "nine-packed"], false);
    assert!(second.iter().all(|s| s.reused));
    let forced = generate_into(&db, &["six"], true);
    // six recomputed, seven (rows) and nine-packed carried over although not named
    assert_eq!(
        forced
            .iter()
            .map(|s| (s.name.as_str(), s.reused))
            .collect::<Vec<_>>(),
        [("six", false), ("seven", true), ("nine-packed", true)]
    );
    assert_eq!(
        checksums(&db),
        before,
        "the copies and the recomputation are identical"
    );
    let a = crate::util::query_json_in(&db, &["--puzzle", "nine-packed", "--state", "0532194876"]);
    assert_eq!(a["distance"], 55);
    assert_no_temporaries(dir.path());
}

/// One or two cheap puzzles of every family.
const EVERY_FAMILY: &[&str] = &[
    "seven",
    "eight",
    "nine",
    "knight-swap",
    "oshidori",
    "hoppers",
    "triangle21",
    "magic-triangle",
    "knight-tour-6x6",
];

#[test]
fn tables_are_identical_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut sums = Vec::new();
    for threads in ["1", "2"] {
        let db = dir.path().join(format!("t{threads}.sqlite"));
        let o = Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
            .args(["generate", "--quiet", "--db", db.to_str().unwrap()])
            .args(EVERY_FAMILY.iter().flat_map(|p| ["--puzzle", p]))
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        sums.push(checksums(&db));
    }
    assert_eq!(sums[0].len(), EVERY_FAMILY.len());
    assert_eq!(sums[0], sums[1]);
}

#[test]
fn stale_temporaries_are_cleaned_and_a_locked_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six"], false);
    let before = fs::read(&db).unwrap();
    // What a run killed with -9 leaves behind: the first pages of one of our files.
    let half = &before[..before.len().min(4096)];
    fs::write(dir.path().join("p.sqlite.tmp-99999"), half).unwrap();

    // A finished run leaves no lock file; one that holds it refuses another.
    assert!(!dir.path().join("p.sqlite.lock").exists());
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.path().join("p.sqlite.lock"))
        .unwrap();
    lock.lock().unwrap();
    let err = assert_clean_failure(
        &run(&["generate", "--db", db.to_str().unwrap(), "--puzzle", "six"]),
        1,
    );
    assert!(err.contains("already"), "{err}");
    assert_eq!(
        fs::read(&db).unwrap(),
        before,
        "the refused run left the file alone"
    );
    lock.unlock().unwrap();

    generate_into(&db, &["six"], true);
    assert!(!dir.path().join("p.sqlite.tmp-99999").exists());
}

#[test]
fn a_killed_run_leaves_the_previous_file_readable() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six"], false);
    let before = fs::read(&db).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
        .args([
            "generate",
            "--quiet",
            "--force",
            "--db",
            db.to_str().unwrap(),
            "--puzzle",
            "eight",
        ])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(150));
    child.kill().unwrap();
    child.wait().unwrap();
    // Either the run finished and renamed a complete file, or the old file is untouched.
    let after = fs::read(&db).unwrap();
    let o = run(&["list", "--db", db.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    if after != before {
        assert!(String::from_utf8_lossy(&o.stdout).contains("eight"));
    }
    generate_into(&db, &["six"], false);
    assert_no_temporaries(dir.path());
}

#[test]
fn a_carried_over_puzzle_whose_rows_no_longer_match_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six", "seven"], false);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE positions SET distance = 3 WHERE puzzle = 'seven' AND distance = 36",
        [],
    )
    .unwrap();
    drop(conn);
    let before = fs::read(&db).unwrap();
    // six is recomputed, seven would be copied: its rows no longer match its checksum.
    let o = run(&[
        "generate",
        "--quiet",
        "--force",
        "--db",
        db.to_str().unwrap(),
        "--puzzle",
        "six",
    ]);
    let err = assert_clean_failure(&o, 1);
    assert!(err.contains("checksum mismatch for seven"), "{err}");
    assert_eq!(
        fs::read(&db).unwrap(),
        before,
        "the previous file is left as it was"
    );
    assert_no_temporaries(dir.path());
}

/// `generate` hashes the large tables as it writes them; the checksum it stores must be
/// the one recomputed from the file, for every kind of puzzle (rows, packed, peg, lists).
#[test]
fn stored_checksums_are_those_of_the_rows_in_the_file() {
    let db = crate::util::shared_db();
    let conn = puzzlebase::open_unchecked(db).unwrap();
    let stored = checksums(db);
    assert_eq!(
        stored.len(),
        crate::util::LIGHT.len() + crate::util::PACKED.len()
    );
    for (name, sum) in stored {
        assert_eq!(conn.checksum(&name).unwrap(), sum, "{name}");
    }
}

/// A user's puzzle whose stored definition no longer builds is never dropped: the run
/// stops with one line naming it and leaves the file as it was, with or without
/// `--force`.
#[test]
fn a_stored_puzzle_that_cannot_be_rebuilt_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("users.sqlite");
    crate::util::generate_example(&path, "guarini");
    let (_keep, damaged) = crate::util::damaged_copy(&path, |conn| {
        conn.execute(
            "UPDATE puzzles SET definition = '{\"spec\": {\"name\": \"guarini\"}}' WHERE name = 'guarini'",
            [],
        )
        .unwrap();
    });
    let before = std::fs::read(&damaged).unwrap();
    let db = damaged.to_str().unwrap();
    for force in [false, true] {
        let mut args = vec!["generate", "-q", "--db", db, "--puzzle", "six"];
        if force {
            args.push("--force");
        }
        let err = crate::util::assert_clean_failure(&crate::util::run(&args), 1);
        assert!(
            err.contains("\"guarini\"") && err.contains("stored definition"),
            "{err}"
        );
        assert_eq!(
            std::fs::read(&damaged).unwrap(),
            before,
            "the file is left as it was"
        );
    }
}

/// SIGINT (Ctrl-C) and SIGTERM stop a run at once and leave no temporary file beside
/// the database: the handler removes it, since no destructor runs; the previous file
/// is untouched.
#[cfg(target_os = "linux")]
#[test]
fn an_interrupted_run_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six"], false);
    let before = fs::read(&db).unwrap();
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
            .args(["generate", "-q", "--db", db.to_str().unwrap()])
            .args(["--puzzle", "english33", "--force"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until the run is writing its temporary file.
        let started = std::time::Instant::now();
        while !fs::read_dir(dir.path())
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().contains(".tmp-"))
        {
            assert!(started.elapsed().as_secs() < 30, "the run starts");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
        unsafe { libc::kill(child.id() as i32, signal) };
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "signal {signal}: {err}");
        assert!(err.contains("interrupted"), "{err}");
        assert_no_temporaries(dir.path());
        assert_eq!(
            fs::read(&db).unwrap(),
            before,
            "the previous file is untouched"
        );
    }
}

/// `verify` stopped by SIGINT or SIGTERM says so and exits 130, as `generate` does,
/// rather than leave a log at its last progress line; it only read the file.
#[cfg(target_os = "linux")]
#[test]
fn an_interrupted_verify_says_so() {
    use std::io::{BufRead, Read};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["eight", "topspin", "pancake-9"], false);
    let before = fs::read(&db).unwrap();
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
            .args(["verify", "--db", db.to_str().unwrap()])
            .env("PUZZLEBASE_PROGRESS_SECONDS", "0")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // At its first progress line the handler is in place, and two of the three
        // puzzles (about a second of checking) are still to come.
        let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        err.read_line(&mut first).unwrap();
        assert!(first.contains("% ("), "{first}");
        unsafe { libc::kill(child.id() as i32, signal) };
        let mut rest = String::new();
        err.read_to_string(&mut rest).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "signal {signal}: {first}{rest}");
        let last = rest.lines().last().unwrap_or_default();
        assert_eq!(
            last,
            "puzzlebase: verify interrupted; the file was only read, nothing changed"
        );
    }
    assert_eq!(fs::read(&db).unwrap(), before, "the file is as it was");
}

/// `generate` and `verify` with stderr not a terminal (a log): a progress line at most
/// every `PUZZLEBASE_PROGRESS_SECONDS`, each naming the puzzle, and a closing line per
/// phase that wrote one; nothing from a short run at the default interval, nor with
/// `--quiet`.
#[test]
fn a_log_gets_progress_lines_from_long_phases_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    let db = db.to_str().unwrap();
    let logged = |args: &[&str], every: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_puzzlebase"));
        c.args(args).env_remove("PUZZLEBASE_PROGRESS_SECONDS");
        if let Some(every) = every {
            c.env("PUZZLEBASE_PROGRESS_SECONDS", every);
        }
        let o = c.output().unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(o.status.success(), "{args:?}: {err}");
        err
    };
    let generate = ["generate", "--db", db, "--puzzle", "eight", "--force"];
    // The puzzle's phases, then the whole file's (compacting, checking).
    let err = logged(&generate, Some("0.01"));
    let (eight, file): (Vec<&str>, Vec<&str>) = err
        .lines()
        .partition(|l| l.starts_with("puzzlebase: eight: "));
    assert!(
        file.iter().all(|l| l.starts_with("puzzlebase: the file: ")),
        "{err}"
    );
    assert!(eight.iter().any(|l| l.contains("% (")), "{err}");
    assert!(eight.last().unwrap().contains(" done in "), "{err}");

    let err = logged(&["verify", "--db", db, "--puzzle", "eight"], Some("0"));
    assert!(err.lines().count() >= 2, "{err}");
    assert!(
        err.lines().all(|l| l.starts_with("puzzlebase: eight: ")),
        "{err}"
    );

    // At the default interval (a minute) a run of a second writes nothing, and with
    // --quiet nothing is written whatever the interval.
    assert_eq!(logged(&generate, None), "");
    let quiet: Vec<&str> = generate.iter().copied().chain(["--quiet"]).collect();
    assert_eq!(logged(&quiet, Some("0")), "");
}
