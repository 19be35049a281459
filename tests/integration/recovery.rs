//! A file another SQLite program changed (its application id, its user version, WAL
//! mode, `ANALYZE`, `VACUUM`) is refused by the readers and rebuilt by
//! `generate --force`, and `verify` accepts what it builds.

use crate::util::{assert_clean_failure, generate_into, run};

#[test]
fn generate_force_rebuilds_whatever_another_program_changed() {
    let dir = tempfile::tempdir().unwrap();
    let made = dir.path().join("made.sqlite");
    generate_into(&made, &["six", "seven"], false);
    for change in [
        "PRAGMA application_id = 42",
        "PRAGMA user_version = 99",
        "PRAGMA journal_mode = WAL",
        "ANALYZE",
        "VACUUM",
    ] {
        let db = dir.path().join("p.sqlite");
        std::fs::copy(&made, &db).unwrap();
        {
            // Through SQLite's own VFS, as another program writes.
            let conn = rusqlite::Connection::open_with_flags_and_vfs(
                &db,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE,
                c"unix",
            )
            .unwrap();
            conn.execute_batch(&format!("{change};")).unwrap();
        }
        let s = db.to_str().unwrap();
        assert_clean_failure(
            &run(&["query", "--db", s, "--puzzle", "six", "--longest"]),
            1,
        );
        let built = run(&[
            "generate", "--quiet", "--force", "--db", s, "--puzzle", "six",
        ]);
        assert!(
            built.status.success(),
            "{change}: {}",
            String::from_utf8_lossy(&built.stderr)
        );
        let verified = run(&["verify", "--db", s]);
        assert!(
            verified.status.success(),
            "{change}: {}",
            String::from_utf8_lossy(&verified.stderr)
        );
        let listed = String::from_utf8(run(&["list", "--db", s]).stdout).unwrap();
        assert!(
            listed.contains("six") && listed.contains("seven"),
            "{change}: {listed}"
        );
    }
}
