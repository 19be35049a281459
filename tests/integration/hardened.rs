//! The file describes itself (meta, sidecar, statistics) and the nightly run is hard to
//! misuse: older schemas, symbolic links, foreign temporaries, hot journals, and every
//! usage error as one line.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::util::{assert_clean_failure, generate_into, run, shared_db};

fn meta(db: &Path) -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn
        .prepare("SELECT key, value FROM meta ORDER BY key")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn names(db: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn
        .prepare("SELECT name FROM puzzles ORDER BY name")
        .unwrap();
    st.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// `sha256sum -c` run in the file's directory, as a recipient of the two files would.
fn sha256sum_check(db: &Path) -> std::process::Output {
    let sidecar = format!("{}.sha256", db.file_name().unwrap().to_str().unwrap());
    Command::new("sha256sum")
        .args(["-c", &sidecar])
        .current_dir(db.parent().unwrap())
        .output()
        .unwrap()
}

#[test]
fn the_file_says_what_wrote_it_and_carries_its_checksum_and_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six", "oshidori"], false);
    let m = meta(&db);
    let get = |k: &str| m.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
    assert_eq!(get("generator"), Some("puzzlebase"));
    assert_eq!(get("generator_version"), Some(env!("CARGO_PKG_VERSION")));
    assert_eq!(
        get("schema_version"),
        Some(puzzlebase::SCHEMA_VERSION.to_string().as_str())
    );
    assert_eq!(get("puzzles"), Some("six,oshidori"));
    let created = get("created_at").unwrap();
    assert!(
        created.len() == 20 && created.ends_with('Z') && created.as_bytes()[10] == b'T',
        "{created}"
    );
    // Present exactly when the build could ask git, and then a full commit id.
    assert_eq!(get("git_commit"), puzzlebase::GIT_COMMIT, "{m:?}");
    if let Some(c) = get("git_commit") {
        assert!(c.len() == 40 && c.bytes().all(|b| b.is_ascii_hexdigit()));
    }

    let o = sha256sum_check(&db);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "p.sqlite: OK\n");

    let conn = rusqlite::Connection::open(&db).unwrap();
    let stats: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'positions'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(stats > 0, "ANALYZE ran");
    let free: i64 = conn
        .query_row("PRAGMA freelist_count", [], |r| r.get(0))
        .unwrap();
    assert_eq!(free, 0, "VACUUM ran");
    drop(conn);

    // Everything asked for: the meta row says so.
    let all = dir.path().join("all.sqlite");
    let o = run(&[
        "generate",
        "--quiet",
        "--db",
        all.to_str().unwrap(),
        "--puzzle",
        "knight-tour",
    ]);
    assert!(o.status.success());
    assert!(meta(&all).contains(&("puzzles".into(), "knight-tour".into())));
}

#[test]
fn a_stale_sidecar_is_repaired_by_the_next_run_even_when_nothing_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six"], false);
    let before = fs::read(&db).unwrap();
    let sidecar = dir.path().join("p.sqlite.sha256");
    // What a crash between the file's rename and the sidecar's leaves.
    fs::write(&sidecar, format!("{}  p.sqlite\n", "0".repeat(64))).unwrap();
    assert!(!sha256sum_check(&db).status.success());
    let again = generate_into(&db, &["six"], false);
    assert!(again.iter().all(|s| s.reused));
    assert_eq!(
        fs::read(&db).unwrap(),
        before,
        "the file itself is untouched"
    );
    assert!(sha256sum_check(&db).status.success());
    fs::remove_file(&sidecar).unwrap();
    generate_into(&db, &["six"], false);
    assert!(sha256sum_check(&db).status.success(), "a missing one too");
}

/// A copy of a generated file made to look like an older schema version.
fn as_older_schema(from: &Path, to: &Path, version: i32) {
    fs::copy(from, to).unwrap();
    let conn = rusqlite::Connection::open(to).unwrap();
    if version < 6 {
        conn.execute_batch("CREATE INDEX positions_by_distance ON positions (puzzle, distance)")
            .unwrap();
    }
    if version < 5 {
        conn.execute_batch("DROP TABLE digests").unwrap();
    }
    if version < 4 {
        conn.execute_batch("ALTER TABLE peg_layers DROP COLUMN reachable_pairs")
            .unwrap();
    }
    if version < 3 {
        conn.execute_batch("DROP TABLE meta").unwrap();
    }
    if version < 2 {
        conn.execute_batch(
            "DROP TABLE farthest; DROP TABLE packed_chunks; DROP TABLE packed_tables;
             ALTER TABLE puzzles DROP COLUMN counts; ALTER TABLE puzzles DROP COLUMN storage;",
        )
        .unwrap();
    }
    conn.pragma_update(None, "user_version", version).unwrap();
}

#[test]
fn an_older_schema_is_migrated_with_every_puzzle_carried_over() {
    let dir = tempfile::tempdir().unwrap();
    let current = dir.path().join("current.sqlite");
    generate_into(&current, &["six", "seven", "hoppers"], false);
    let want = names(&current);
    for version in [1, 2, 3, 4, 5] {
        let db = dir.path().join(format!("v{version}.sqlite"));
        as_older_schema(&current, &db, version);
        let o = run(&[
            "generate",
            "--quiet",
            "--db",
            db.to_str().unwrap(),
            "--puzzle",
            "oshidori",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut expected = want.clone();
        expected.push("oshidori".into());
        expected.sort();
        assert_eq!(names(&db), expected, "version {version}");
        let conn = rusqlite::Connection::open(&db).unwrap();
        let v: i32 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, puzzlebase::SCHEMA_VERSION);
        // The carried puzzles still answer (and from the same rows as before).
        let a = crate::util::query_json_in(&db, &["--puzzle", "seven", "--longest"]);
        assert_eq!(a["distance"], 36);
        let a = crate::util::query_json_in(&db, &["--puzzle", "hoppers", "--start"]);
        assert_eq!(a["solutions"], 72);
    }
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_writes_and_locks_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let real_dir = dir.path().join("real");
    fs::create_dir(&real_dir).unwrap();
    let target = real_dir.join("p.sqlite");
    let link = dir.path().join("link.sqlite");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    generate_into(&link, &["six"], false);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    assert!(target.is_file());
    assert!(real_dir.join("p.sqlite.sha256").is_file());
    assert!(!dir.path().join("link.sqlite.sha256").exists());
    assert!(sha256sum_check(&target).status.success());

    // No lock file is left beside the target; a run holding the target's lock (a file
    // it made) refuses a run through the link.
    assert!(!real_dir.join("p.sqlite.lock").exists());
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(real_dir.join("p.sqlite.lock"))
        .unwrap();
    lock.lock().unwrap();
    let err = assert_clean_failure(
        &run(&["generate", "--db", link.to_str().unwrap(), "--force"]),
        1,
    );
    assert!(err.contains("already"), "{err}");
    lock.unlock().unwrap();
    let a = crate::util::query_json_in(&link, &["--puzzle", "six", "--longest"]);
    assert_eq!(a["distance"], 15);
}

#[test]
fn only_our_own_temporaries_are_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six"], false);
    let file = fs::read(&db).unwrap();
    let d = dir.path();
    fs::write(d.join("p.sqlite.tmp-backup"), &file).unwrap();
    fs::write(d.join("p.sqlite.tmp-4242"), &file[..4096]).unwrap();
    fs::write(d.join("p.sqlite.tmp-4343"), b"a user's notes").unwrap();
    generate_into(&db, &["six"], true);
    assert_eq!(fs::read(d.join("p.sqlite.tmp-backup")).unwrap(), file);
    assert!(!d.join("p.sqlite.tmp-4242").exists());
    assert_eq!(
        fs::read(d.join("p.sqlite.tmp-4343")).unwrap(),
        b"a user's notes"
    );
}

#[test]
fn a_hot_journal_left_by_a_killed_writer_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six", "seven"], false);
    let hot = dir.path().join("hot.sqlite");
    {
        // A writer in the middle of a large transaction, with pages already spilled
        // into the file: copying the pair now is what its death would leave.
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "PRAGMA cache_size = 2; BEGIN;
             UPDATE positions SET solutions = solutions + 1 WHERE puzzle = 'seven';",
        )
        .unwrap();
        fs::copy(&db, &hot).unwrap();
        let journal = dir.path().join("p.sqlite-journal");
        assert!(journal.is_file(), "the writer has a journal");
        fs::copy(&journal, dir.path().join("hot.sqlite-journal")).unwrap();
        conn.execute_batch("ROLLBACK").unwrap();
    }
    let hot_s = hot.to_str().unwrap();
    for args in [
        vec!["query", "--db", hot_s, "--puzzle", "six", "--longest"],
        vec!["list", "--db", hot_s],
        vec!["generate", "--quiet", "--db", hot_s, "--puzzle", "six"],
    ] {
        let err = assert_clean_failure(&run(&args), 1);
        assert!(
            err.contains("hot journal") && err.contains("roll") && !err.contains("readonly"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn every_usage_error_is_one_line_and_a_hint() {
    let db = shared_db().to_str().unwrap();
    let cases: &[&[&str]] = &[
        &[],
        &["--frobnicate"],
        &[
            "query",
            "--db",
            db,
            "--puzzle",
            "eight",
            "--longest",
            "--nope",
        ],
        &[
            "query",
            "--db",
            db,
            "--puzzle",
            "magic-triangle",
            "--sum",
            "abc",
        ],
        &[
            "query",
            "--db",
            db,
            "--puzzle",
            "eight",
            "--start",
            "--longest",
        ],
        &["query", "--db", db],
        &["query"],
        &["frobnicate"],
        &["generate", "--puzzle"],
    ];
    for args in cases {
        let o = run(args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert!(
            lines.len() == 1 || (lines.len() == 2 && lines[1].contains("--help")),
            "{args:?}: {err}"
        );
        assert!(lines[0].starts_with("puzzlebase: "), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    // A negative side sum is a number (with no solutions), not an unknown flag.
    let a = crate::util::query_json(&["--puzzle", "magic-triangle", "--sum", "-5"]);
    assert_eq!(a["count"], 0);
    for args in [&["--help"][..], &["--version"], &["query", "--help"]] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(!o.stdout.is_empty());
    }
}

#[test]
fn errors_say_things_once_and_do_not_echo_huge_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("no/such/dir/x.sqlite");
    let err = assert_clean_failure(
        &run(&["generate", "--quiet", "--db", db.to_str().unwrap()]),
        1,
    );
    assert_eq!(err.matches("does not exist").count(), 1, "{err}");

    let huge = "x".repeat(100_000);
    let shared = shared_db().to_str().unwrap();
    for (args, code) in [
        (
            vec!["query", "--db", shared, "--puzzle", &huge, "--longest"],
            2,
        ),
        (
            vec![
                "query", "--db", shared, "--puzzle", "eight", "--state", &huge,
            ],
            2,
        ),
        (vec!["generate", "--quiet", "--puzzle", &huge], 2),
        (vec!["query", "--db", shared, &huge], 2),
    ] {
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(
            o.status.code(),
            Some(code),
            "{}",
            &err[..err.len().min(300)]
        );
        assert!(err.len() < 2000, "{} bytes: {}", err.len(), &err[..300]);
    }
    // The reason after a long argument is still there.
    let ones = "1".repeat(100_000);
    let o = run(&[
        "query", "--db", shared, "--puzzle", "eight", "--state", &ones,
    ]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected 9 cells"));
}

/// The README's Python example, exactly as printed there.
fn readme_python() -> String {
    let readme = include_str!("../../docs/file-format.md");
    let (_, after) = readme
        .split_once("<!-- python-example -->\n```python\n")
        .expect("the README has the marked Python example");
    after.split_once("\n```").unwrap().0.to_string()
}

#[test]
fn the_readme_python_example_runs_against_a_generated_file() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("example.py");
    fs::write(&script, readme_python()).unwrap();
    // eleven is not built by the default tests; nine-packed has the same packed layout rules.
    let o = Command::new("python3")
        .arg(&script)
        .arg(shared_db())
        .arg("nine-packed")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("written by puzzlebase"), "{out}");
    assert!(out.contains("seven 07214365: 36 moves, "), "{out}");
    // The count is not published; it must be the one `query` reads through its own code.
    let a = crate::util::query_json(&["--puzzle", "seven", "--state", "07214365"]);
    let count = format!("36 moves, {} shortest solutions", a["solutions"]);
    assert!(out.contains(&count), "{out}");
    let path = out.lines().find_map(|l| l.strip_prefix("path: ")).unwrap();
    let path: Vec<serde_json::Value> = path.split(' ').map(|s| s.into()).collect();
    assert_eq!(path.len(), 37);
    crate::util::assert_legal_path("seven", &path);
    assert!(out.contains("seven longest: [('07214365', 36)]"), "{out}");
    assert!(
        out.contains("nine-packed 0532194876: ") && out.contains("distance 55"),
        "{out}"
    );
}

/// Another program (a SQLite that keeps no page checksums, as `sqlite3 FILE ANALYZE`)
/// writes to the file: the readers refuse it, and `generate` rebuilds every puzzle the
/// file named (a user's too) instead of failing or copying from those pages, and says so.
#[test]
fn generate_rebuilds_a_file_another_program_wrote_to() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six", "seven"], false);
    crate::util::generate_example(&db, "guarini");
    another_program_analyzes(&db);
    let d = db.to_str().unwrap();
    let err = assert_clean_failure(
        &run(&["query", "--db", d, "--puzzle", "six", "--longest"]),
        1,
    );
    assert!(err.contains("checksum"), "{err}");
    for force in [false, true] {
        let mut args = vec!["generate", "--db", d, "--puzzle", "six"];
        if force {
            args.push("--force");
        }
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        if !force {
            assert!(err.contains("fail their checksums"), "{err}");
            let named = err.rsplit("rebuilt: ").next().unwrap().trim();
            assert_eq!(named, "guarini, seven, six", "{err}");
            let out = String::from_utf8_lossy(&o.stdout);
            for name in ["six", "seven", "guarini"] {
                let line = out.lines().find(|l| l.starts_with(name)).unwrap();
                assert!(!line.contains("reused"), "{name} rebuilt: {line}");
            }
        }
        let a = crate::util::query_json_in(&db, &["--puzzle", "seven", "--longest"]);
        assert_eq!(a["distance"], 36);
        let a = crate::util::query_json_in(&db, &["--puzzle", "guarini", "--start"]);
        assert_eq!(a["distance"], 16);
        let o = run(&["verify", "--db", d]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // The next run breaks it again for the forced case.
        another_program_analyzes(&db);
    }
}

/// `sqlite3 FILE ANALYZE` as a program that keeps no page checksums runs it: SQLite's
/// own `unix` VFS. SQLite itself finds nothing wrong with the file afterwards.
fn another_program_analyzes(db: &Path) {
    let conn = rusqlite::Connection::open_with_flags_and_vfs(
        db,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE,
        c"unix",
    )
    .unwrap();
    conn.execute_batch("ANALYZE").unwrap();
    let ok: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok", "SQLite itself finds nothing wrong");
}
