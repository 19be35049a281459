//! Bad input of every kind gives one clear line on stderr and a non-zero exit (2 when
//! the user typed something malformed), never a panic.

use std::fs;

use crate::util::{assert_clean_failure, run, shared_db};

fn query(args: &[&str]) -> std::process::Output {
    let db = shared_db().to_str().unwrap();
    let mut all = vec!["query", "--db", db];
    all.extend_from_slice(args);
    run(&all)
}

#[test]
fn unknown_puzzle_is_a_usage_error() {
    let err = assert_clean_failure(&query(&["--puzzle", "twenty-four", "--longest"]), 2);
    assert!(
        err.contains("unknown puzzle") && err.contains("eight"),
        "{err}"
    );
}

#[test]
fn malformed_states_are_usage_errors() {
    for (state, why) in [
        ("86725430", "expected 9 cells"),
        ("8672543011", "expected 9 cells"),
        ("867254331", "appears twice"),
        ("86725x301", "unexpected character"),
        ("867254309", "out of range"),
        ("", "expected 9 cells"),
    ] {
        let err = assert_clean_failure(&query(&["--puzzle", "eight", "--state", state]), 2);
        assert!(err.contains(why), "{state:?}: {err}");
    }
}

#[test]
fn unsolvable_state_says_so() {
    let err = assert_clean_failure(&query(&["--puzzle", "eight", "--state", "123456870"]), 1);
    assert!(err.contains("cannot be solved"), "{err}");
    let err = assert_clean_failure(&query(&["--puzzle", "seven", "--state", "21345670"]), 1);
    assert!(err.contains("cannot be solved"), "{err}");
}

#[test]
fn missing_database_says_to_generate() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.sqlite");
    let o = run(&[
        "query",
        "--db",
        db.to_str().unwrap(),
        "--puzzle",
        "eight",
        "--longest",
    ]);
    let err = assert_clean_failure(&o, 1);
    assert!(err.contains("generate"), "{err}");
    let o = run(&["list", "--db", db.to_str().unwrap()]);
    assert_clean_failure(&o, 1);
}

#[test]
fn foreign_and_newer_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.sqlite");
    fs::write(&text, "just some text, not a database at all").unwrap();
    let other = dir.path().join("other.sqlite");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();
    for f in [&text, &other] {
        let err = assert_clean_failure(&run(&["list", "--db", f.to_str().unwrap()]), 1);
        assert!(err.contains("not a puzzlebase database"), "{err}");
        // generate must not overwrite somebody else's file either
        let before = fs::read(f).unwrap();
        let err = assert_clean_failure(
            &run(&[
                "generate",
                "--quiet",
                "--db",
                f.to_str().unwrap(),
                "--puzzle",
                "six",
            ]),
            1,
        );
        assert!(err.contains("refusing"), "{err}");
        assert_eq!(fs::read(f).unwrap(), before);
    }
    let newer = dir.path().join("newer.sqlite");
    fs::copy(shared_db(), &newer).unwrap();
    rusqlite::Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", 999)
        .unwrap();
    let err = assert_clean_failure(&run(&["list", "--db", newer.to_str().unwrap()]), 1);
    assert!(err.contains("newer"), "{err}");
}

#[test]
fn unwritable_output_path_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("no/such/dir/x.sqlite");
    let err = assert_clean_failure(
        &run(&["generate", "--quiet", "--db", db.to_str().unwrap()]),
        1,
    );
    assert!(err.contains("does not exist"), "{err}");
}

#[test]
fn missing_query_mode_and_unknown_generate_puzzle_are_usage_errors() {
    let db = shared_db().to_str().unwrap();
    let o = run(&["query", "--db", db, "--puzzle", "eight"]);
    assert_eq!(o.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.sqlite");
    let err = assert_clean_failure(
        &run(&[
            "generate",
            "--db",
            out.to_str().unwrap(),
            "--puzzle",
            "twenty-four",
        ]),
        2,
    );
    assert!(err.contains("unknown puzzle"), "{err}");
    assert!(!out.exists());
}

#[test]
fn a_damaged_file_is_reported_not_looped_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("damaged.sqlite");
    fs::copy(shared_db(), &db).unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    // seven: its farthest position now points at itself; hoppers: the start's move is off the board.
    conn.execute(
        "UPDATE positions SET next_rank = rank WHERE puzzle = 'seven' AND state = '07214365'",
        [],
    )
    .unwrap();
    conn.execute(
        "UPDATE positions SET move = '[0,99]' WHERE puzzle = 'hoppers' AND state = '1111110111111'",
        [],
    )
    .unwrap();
    drop(conn);
    let db = db.to_str().unwrap();
    for args in [
        ["--puzzle", "seven", "--state", "07214365"],
        ["--puzzle", "hoppers", "--state", "1111110111111"],
    ] {
        let mut all = vec!["query", "--db", db];
        all.extend_from_slice(&args);
        let err = assert_clean_failure(&run(&all), 1);
        assert!(err.contains("inconsistent"), "{args:?}: {err}");
    }
}

/// A definition that is not a regular file, or a huge one, is refused within a second
/// with one line: `check-definition` of `/dev/zero` or a FIFO, and a FIFO or a link to
/// `/dev/zero` among the definitions `generate` reads.
#[cfg(unix)]
#[test]
fn definitions_are_regular_files_of_bounded_size() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("waiting.toml");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let big = dir.path().join("big.toml");
    fs::write(&big, vec![b'#'; 2 << 20]).unwrap();
    for path in [std::path::Path::new("/dev/zero"), &fifo, &big] {
        let started = std::time::Instant::now();
        let err = assert_clean_failure(&run(&["check-definition", path.to_str().unwrap()]), 1);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(1),
            "{err}"
        );
        assert!(
            err.contains("not a regular file") || err.contains("larger than"),
            "{err}"
        );
    }
    // Among the definitions of a run: refused, not passed over.
    for name in ["fifo", "zero"] {
        let defs = tempfile::tempdir().unwrap();
        let entry = defs.path().join(format!("{name}.toml"));
        if name == "fifo" {
            std::process::Command::new("mkfifo")
                .arg(&entry)
                .status()
                .unwrap();
        } else {
            std::os::unix::fs::symlink("/dev/zero", &entry).unwrap();
        }
        let db = defs.path().join("p.sqlite");
        let started = std::time::Instant::now();
        let err = assert_clean_failure(
            &run(&[
                "generate",
                "--db",
                db.to_str().unwrap(),
                "--puzzle",
                "six",
                "--definitions",
                defs.path().to_str().unwrap(),
            ]),
            1,
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(1),
            "{err}"
        );
        assert!(err.contains("not a regular file"), "{name}: {err}");
        assert!(!db.exists(), "{name}: nothing built");
    }
}

/// `--db` naming a directory says so, for every command, `generate` included.
#[test]
fn a_directory_as_the_database_is_named_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for args in [
        vec!["generate", "--db", d, "--puzzle", "six"],
        vec!["query", "--db", d, "--puzzle", "six", "--longest"],
        vec!["list", "--db", d],
        vec!["verify", "--db", d],
    ] {
        let err = assert_clean_failure(&run(&args), 1);
        assert!(err.contains("is a directory"), "{args:?}: {err}");
        assert!(err.contains("puzzles.sqlite"), "{args:?}: {err}");
    }
}

/// A damaged page under a user's puzzle's row is damage (exit 1), not an unknown puzzle
/// (a usage error, exit 2), as it already was for the built-in puzzles.
#[test]
fn a_damaged_puzzles_page_is_damage_for_a_users_puzzle_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("mine.sqlite");
    crate::util::generate_example(&db, "guarini");
    let (page_size, root): (i64, i64) = {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let size = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .unwrap();
        let root = conn
            .query_row(
                "SELECT rootpage FROM sqlite_master WHERE name = 'puzzles'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        (size, root)
    };
    let mut bytes = fs::read(&db).unwrap();
    // The middle of the page that holds the one row of `puzzles`.
    let at = ((root - 1) * page_size + page_size / 2) as usize;
    bytes[at] ^= 0x10;
    fs::write(&db, &bytes).unwrap();
    let d = db.to_str().unwrap();
    for args in [
        vec!["query", "--db", d, "--puzzle", "guarini", "--start"],
        vec!["verify", "--db", d, "--puzzle", "guarini"],
    ] {
        let err = assert_clean_failure(&run(&args), 1);
        assert!(err.contains("damaged"), "{args:?}: {err}");
        assert!(!err.contains("unknown puzzle"), "{args:?}: {err}");
    }
}

/// `verify` refuses bytes after the last page and a file cut short by a few bytes: the
/// file is exactly the pages `generate` wrote.
#[test]
fn verify_refuses_trailing_bytes_and_a_file_cut_short() {
    let full = fs::read(shared_db()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    let cut = |n: usize| full[..full.len() - n].to_vec();
    let mut trailing = full.clone();
    trailing.extend_from_slice(b"appended by another program");
    for (what, bytes, why) in [
        ("trailing", trailing, "follow the last of its pages"),
        ("cut by 1", cut(1), "cut short"),
        ("cut by 9", cut(9), "cut short"),
    ] {
        fs::write(&db, &bytes).unwrap();
        let o = run(&["verify", "--db", db.to_str().unwrap(), "--puzzle", "six"]);
        let err = assert_clean_failure(&o, 1);
        assert!(err.contains(why), "{what}: {err}");
    }
}
