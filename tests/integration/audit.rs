//! `verify` on the file as a whole: what no single puzzle's check can see (a `puzzles`
//! row deleted, `meta` edited or dropped, an index dropped, rows of no listed puzzle).

use crate::util::{damaged_copy, run, shared_db};

/// `verify` of the whole copy damaged by `sql` (foreign keys off, as an editor of the
/// file may have them) fails with one line on stderr saying `words`, after the lines of
/// the puzzles that passed.
fn whole_file_damage_is_named(sql: &str, words: &str) {
    let (_dir, db) = damaged_copy(shared_db(), |conn| {
        conn.execute_batch(&format!("PRAGMA foreign_keys = OFF; {sql}"))
            .unwrap();
    });
    // A phase that runs a minute writes a progress line to a log; on a loaded host one
    // of `nine`'s may, and the error must still be the only line here.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
        .args(["verify", "--db", db.to_str().unwrap()])
        .env_remove("PUZZLEBASE_DB")
        .env("PUZZLEBASE_PROGRESS_SECONDS", "86400")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{sql}: {err}");
    assert_eq!(err.lines().count(), 1, "{sql}: {err}");
    assert!(err.contains(words), "{sql}: {err}");
}

#[test]
fn a_fresh_file_passes_the_whole_file_checks() {
    let o = run(&["verify", "--db", shared_db().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_deleted_puzzles_row_is_named() {
    whole_file_damage_is_named(
        "DELETE FROM puzzles WHERE name = 'oshidori'",
        "puzzle oshidori is recorded in meta but has no puzzles row",
    );
}

#[test]
fn edited_and_dropped_meta_are_named() {
    whole_file_damage_is_named(
        "UPDATE meta SET value = 'puzzlebase 0.0.1 / tables 1' WHERE key = 'tables_version'",
        "meta tables_version",
    );
    whole_file_damage_is_named(
        "DELETE FROM meta WHERE key = 'generator'",
        "meta generator is missing",
    );
    whole_file_damage_is_named(
        "DELETE FROM meta WHERE key = 'contents'",
        "no record of the puzzles",
    );
    whole_file_damage_is_named("DELETE FROM meta", "meta generator is missing");
}

#[test]
fn a_dropped_index_is_named() {
    whole_file_damage_is_named(
        "DROP INDEX solutions_by_value",
        "the index solutions_by_value is missing",
    );
}

#[test]
fn orphan_rows_are_named() {
    whole_file_damage_is_named(
        "INSERT INTO histogram (puzzle, distance, positions, classes) VALUES ('ghost', 0, 1, 1)",
        "histogram holds rows of puzzle \"ghost\"",
    );
}
