//! `verify` on damaged copies of a generated file: each kind of damage is found, and the
//! report names the puzzle and the damaged fact. Also `verify` on a fresh file and
//! `generate --verify`.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};

use crate::util::{
    LIGHT, PACKED, assert_clean_failure, assert_no_temporaries, damaged_copy, generate_into, graph,
    run, shared_db,
};

/// A copy of the shared file, damaged by `sql` (statements with their parameters).
fn damaged(sql: &[(&str, &[i64])]) -> (tempfile::TempDir, PathBuf) {
    damaged_copy(shared_db(), |conn| {
        for (statement, params) in sql {
            let n = conn
                .execute(statement, rusqlite::params_from_iter(params.iter()))
                .unwrap();
            assert!(n > 0, "the damage changed nothing: {statement}");
        }
    })
}

/// Runs `verify` on one puzzle of `db`, expects exit 1 with one line on stderr naming
/// the puzzle, and returns that line.
fn verify_fails(db: &Path, puzzle: &str) -> String {
    let o = run(&["verify", "--db", db.to_str().unwrap(), "--puzzle", puzzle]);
    let err = assert_clean_failure(&o, 1);
    assert!(err.contains(&format!("verify: {puzzle}: ")), "{err}");
    err
}

/// A copy of the shared file with one blob of a packed table changed by `f`.
fn damaged_blob(kind: &str, chunk: i64, f: impl Fn(&mut Vec<u8>)) -> (tempfile::TempDir, PathBuf) {
    let (dir, db) = damaged(&[]);
    let conn = Connection::open(&db).unwrap();
    let select =
        "SELECT data FROM packed_chunks WHERE puzzle = 'nine-packed' AND kind = ?1 AND chunk = ?2";
    let mut data: Vec<u8> = conn
        .query_row(select, params![kind, chunk], |r| r.get(0))
        .unwrap();
    f(&mut data);
    conn.execute(
        "UPDATE packed_chunks SET data = ?3 WHERE puzzle = 'nine-packed' AND kind = ?1 AND chunk = ?2",
        params![kind, chunk, data],
    )
    .unwrap();
    (dir, db)
}

fn one(sql: &str, params: impl rusqlite::Params) -> i64 {
    Connection::open(shared_db())
        .unwrap()
        .query_row(sql, params, |r| r.get(0))
        .unwrap()
}

#[test]
fn a_fresh_file_verifies_with_one_line_per_puzzle() {
    let db = shared_db().to_str().unwrap();
    let o = run(&["verify", "--db", db]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.stderr.is_empty());
    // The catalog's puzzles in its order, then the fixtures (puzzles of the file's own).
    let names: Vec<String> = (puzzlebase::puzzle_names().into_iter())
        .filter(|n| LIGHT.contains(&n.as_str()))
        .chain(PACKED.iter().map(|n| n.to_string()))
        .collect();
    assert_eq!(text.lines().count(), names.len(), "{text}");
    for (line, name) in text.lines().zip(names) {
        assert!(
            line.starts_with(&format!("{name} ")) && line.contains(" ok "),
            "{line}"
        );
    }
    // --json: one object per puzzle.
    let o = run(&[
        "verify",
        "--db",
        db,
        "--json",
        "--puzzle",
        "six",
        "--puzzle",
        "nine-packed",
    ]);
    assert!(o.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        (&lines[0]["puzzle"], &lines[0]["ok"]),
        (&"six".into(), &true.into())
    );
    assert_eq!(lines[0]["solvable"], 5040);
    assert_eq!(
        (&lines[1]["puzzle"], &lines[1]["max_distance"]),
        (&"nine-packed".into(), &55.into())
    );
}

#[test]
fn usage_and_missing_puzzles() {
    let db = shared_db().to_str().unwrap();
    let err = assert_clean_failure(&run(&["verify", "--db", db, "--puzzle", "nope"]), 2);
    assert!(err.contains("unknown puzzle"), "{err}");
    let err = assert_clean_failure(&run(&["verify", "--db", db, "--puzzle", "english33"]), 1);
    assert!(err.contains("not in the database"), "{err}");
    let err = assert_clean_failure(&run(&["verify", "--db", "/nonexistent/p.sqlite"]), 1);
    assert!(err.contains("no database"), "{err}");
}

#[test]
fn a_changed_distance() {
    // A position at the maximum distance: no other position's facts depend on it.
    let rank = one(
        "SELECT rank FROM positions WHERE puzzle = 'six' AND distance = 15 ORDER BY rank LIMIT 1",
        [],
    );
    let (_d, db) = damaged(&[(
        "UPDATE positions SET distance = 16 WHERE puzzle = 'six' AND rank = ?1",
        &[rank],
    )]);
    let err = verify_fails(&db, "six");
    let state = graph("six").format(rank as u64);
    assert!(
        err.contains(&format!(
            "rank {rank} (state {state}): distance 16 but its successors' minimum is 14"
        )),
        "{err}"
    );
}

#[test]
fn a_next_rank_one_step_closer_but_not_adjacent() {
    let g = graph("seven");
    let (rank, next): (i64, i64) = Connection::open(shared_db())
        .unwrap()
        .query_row(
            "SELECT rank, next_rank FROM positions WHERE puzzle = 'seven' AND distance = 20
             ORDER BY rank LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let mut nbs = Vec::new();
    g.neighbors(rank as u64, &mut nbs);
    let conn = Connection::open(shared_db()).unwrap();
    let mut st = conn
        .prepare(
            "SELECT rank FROM positions WHERE puzzle = 'seven' AND distance = 19 ORDER BY rank",
        )
        .unwrap();
    let wrong: i64 = st
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .find(|&r: &i64| r != next && !nbs.contains(&(r as u64)))
        .unwrap();
    let (_d, db) = damaged(&[(
        "UPDATE positions SET next_rank = ?2 WHERE puzzle = 'seven' AND rank = ?1",
        &[rank, wrong],
    )]);
    let err = verify_fails(&db, "seven");
    assert!(
        err.contains(&format!("rank {rank} "))
            && err.contains(&format!("next rank {wrong} is not one legal move away")),
        "{err}"
    );
}

#[test]
fn a_changed_count() {
    // seven's farthest position: no count depends on its own.
    let rank = one(
        "SELECT rank FROM positions WHERE puzzle = 'seven' AND distance = 36 ORDER BY rank LIMIT 1",
        [],
    );
    let (_d, db) = damaged(&[(
        "UPDATE positions SET solutions = solutions + 1 WHERE puzzle = 'seven' AND rank = ?1",
        &[rank],
    )]);
    let err = verify_fails(&db, "seven");
    assert!(
        err.contains(&format!("rank {rank} "))
            && err
                .contains("shortest solutions stored but its closer successors' counts add up to"),
        "{err}"
    );
}

#[test]
fn a_changed_state_text() {
    let (_d, db) = damaged(&[(
        "UPDATE positions SET state = '1234560' WHERE puzzle = 'six' AND rank = 100",
        &[],
    )]);
    let err = verify_fails(&db, "six");
    assert!(
        err.contains("rank 100 (state ")
            && err.contains("state text \"1234560\" is not the notation of the rank"),
        "{err}"
    );
}

#[test]
fn a_changed_histogram() {
    let (_d, db) = damaged(&[(
        "UPDATE histogram SET positions = positions + 1 WHERE puzzle = 'six' AND distance = 3",
        &[],
    )]);
    let err = verify_fails(&db, "six");
    assert!(
        err.contains("histogram distance 3: stored (3, 23, 22) but the rules give (3, 22, 22)"),
        "{err}"
    );
    // A row far beyond the maximum distance is named, never followed.
    let (_d, db) = damaged(&[(
        "INSERT INTO histogram (puzzle, distance, positions, classes) VALUES ('six', 4000000000, 1, 1)",
        &[],
    )]);
    let err = verify_fails(&db, "six");
    assert!(
        err.contains("histogram distance 4000000000: a row the rules do not give"),
        "{err}"
    );
}

#[test]
fn a_changed_farthest_row() {
    let rank = one(
        "SELECT rank FROM farthest WHERE puzzle = 'nine-packed' ORDER BY rank LIMIT 1",
        [],
    );
    let (_d, db) = damaged(&[(
        "UPDATE farthest SET state = '1234567890' WHERE puzzle = 'nine-packed' AND rank = ?1",
        &[rank],
    )]);
    let err = verify_fails(&db, "nine-packed");
    assert!(
        err.contains(&format!("farthest rank {rank} (state 0532194876)"))
            && err.contains("state text \"1234567890\""),
        "{err}"
    );
    // A position that is not at the maximum distance, in place of one that is.
    let (_d, db) = damaged(&[(
        "UPDATE farthest SET rank = 5, state = '1234567809' WHERE puzzle = 'nine-packed' AND rank = ?1",
        &[rank],
    )]);
    let err = verify_fails(&db, "nine-packed");
    assert!(err.contains("farthest rank"), "{err}");
}

#[test]
fn a_damaged_packed_chunk_byte() {
    // A bit no reader looks at: nine's runs are rows of five, so bit 7 of a steps byte
    // is unused. Only the exact encoding check can see it.
    let (_d, db) = damaged_blob("distance", 7, |b| b[11] |= 0x80);
    let err = verify_fails(&db, "nine-packed");
    assert!(
        err.contains("distance chunk 7 byte 11: not the encoding of the distances it decodes to"),
        "{err}"
    );
    // A distance byte: the first position whose facts no longer hold is named with
    // the chunk that holds its entry.
    let (_d, db) = damaged_blob("distance", 3, |b| b[100] = b[100].wrapping_add(2));
    let err = verify_fails(&db, "nine-packed");
    assert!(err.contains("distance chunk "), "{err}");
    // A count.
    let (_d, db) = damaged_blob("solutions", 11, |b| b[8] = b[8].wrapping_add(1));
    let err = verify_fails(&db, "nine-packed");
    assert!(err.contains("shortest solutions"), "{err}");
}

/// nine's counts (all below 255) are stored one byte each. The same counts rewritten two
/// bytes each decode to the same numbers, but are not the layout the rules give; a name
/// that is no count encoding is refused before any chunk is read.
#[test]
fn a_count_table_in_another_width() {
    let (_d, db) = damaged(&[]);
    let conn = Connection::open(&db).unwrap();
    let bytes = crate::packed::chunks(&conn, "nine-packed", "solutions").concat();
    assert_eq!(bytes.len(), 1_814_400, "one byte per rank");
    let wide: Vec<u8> = bytes.iter().flat_map(|&b| [b, 0]).collect();
    conn.execute(
        "DELETE FROM packed_chunks WHERE puzzle = 'nine-packed' AND kind = 'solutions'",
        [],
    )
    .unwrap();
    for (c, blob) in wide.chunks(4000).enumerate() {
        conn.execute(
            "INSERT INTO packed_chunks (puzzle, kind, chunk, data) VALUES ('nine-packed', 'solutions', ?1, ?2)",
            params![c as i64, blob],
        )
        .unwrap();
    }
    let layout = serde_json::json!({
        "encoding": "u16le", "ranks": 1_814_400, "ranks_per_chunk": 2000, "entry_bytes": 2,
    });
    conn.execute(
        "UPDATE packed_tables SET encoding = 'u16le', ranks_per_chunk = 2000, chunks = ?1, layout = ?2
         WHERE puzzle = 'nine-packed' AND kind = 'solutions'",
        params![wide.len().div_ceil(4000) as i64, layout.to_string()],
    )
    .unwrap();
    drop(conn);
    let most = bytes.iter().max().unwrap();
    let err = verify_fails(&db, "nine-packed");
    assert!(
        err.contains(&format!(
            "packed_tables solutions encoding: u16le, but counts up to {most} take u8"
        )),
        "{err}"
    );

    let (_d, db) = damaged(&[(
        "UPDATE packed_tables SET encoding = 'u24le' WHERE puzzle = 'nine-packed' AND kind = 'solutions'",
        &[],
    )]);
    let err = verify_fails(&db, "nine-packed");
    assert!(
        err.contains("packed_tables solutions encoding: u24le is not a count encoding"),
        "{err}"
    );
}

#[test]
fn a_changed_peg_move() {
    let rank = one(
        "SELECT rank FROM positions WHERE puzzle = 'hoppers' AND distance = 3 ORDER BY rank LIMIT 1",
        [],
    );
    let (_d, db) = damaged(&[(
        "UPDATE positions SET move = '[0,1]' WHERE puzzle = 'hoppers' AND rank = ?1",
        &[rank],
    )]);
    let err = verify_fails(&db, "hoppers");
    assert!(
        err.contains(&format!("rank {rank} ")) && err.contains("move [0,1] is not a legal move"),
        "{err}"
    );
}

#[test]
fn a_changed_peg_layer() {
    let (_d, db) = damaged(&[(
        "UPDATE peg_layers SET can_finish = can_finish + 1 WHERE puzzle = 'hoppers' AND pegs = 5",
        &[],
    )]);
    let err = verify_fails(&db, "hoppers");
    assert!(err.contains("peg_layers pegs 5: stored ("), "{err}");
    // The matrix is recomputed too.
    let (_d, db) = damaged(&[(
        "UPDATE peg_matrix SET distance = 3 WHERE puzzle = 'chinese-checkers' AND start = 12 AND finish = 12",
        &[],
    )]);
    let err = verify_fails(&db, "chinese-checkers");
    assert!(
        err.contains(
            "peg_matrix start 12 finish 12: stored (12, 12, 3) but the rules give (12, 12, 9)"
        ),
        "{err}"
    );
}

#[test]
fn a_changed_enumeration_row() {
    let rank = one(
        "SELECT rank FROM solutions WHERE puzzle = 'magic-triangle' ORDER BY rank LIMIT 1",
        [],
    );
    let (_d, db) = damaged(&[(
        "UPDATE solutions SET state = '123456789' WHERE puzzle = 'magic-triangle' AND rank = ?1",
        &[rank],
    )]);
    let err = verify_fails(&db, "magic-triangle");
    assert!(
        err.contains(&format!(
            "rank {rank} (state 123456789): its three sides have different sums"
        )),
        "{err}"
    );
    // Two representatives of one class.
    let (_d, db) = damaged(&[(
        "UPDATE solutions SET canonical = 1 WHERE puzzle = 'magic-triangle'
         AND rank = (SELECT min(rank) FROM solutions WHERE puzzle = 'magic-triangle' AND canonical = 0)",
        &[],
    )]);
    let err = verify_fails(&db, "magic-triangle");
    assert!(
        err.contains("marked canonical, but its class's representative is another row"),
        "{err}"
    );
    // A missing tour.
    let (_d, db) = damaged(&[(
        "DELETE FROM solutions WHERE puzzle = 'knight-tour-6x6' AND rank = 77",
        &[],
    )]);
    let err = verify_fails(&db, "knight-tour-6x6");
    assert!(
        err.contains("rank 77 (state 0 ") && err.contains("a solution, but it is missing"),
        "{err}"
    );
    // A row in a table an enumeration does not use, with the solutions untouched (its
    // emptiness is told by the read that takes the checksum).
    let (_d, db) = damaged(&[(
        "INSERT INTO farthest (puzzle, rank, state, distance) VALUES ('magic-triangle', 5, '', 1)",
        &[],
    )]);
    let err = verify_fails(&db, "magic-triangle");
    assert!(
        err.contains("1 rows in farthest, which this puzzle does not use"),
        "{err}"
    );
}

#[test]
fn a_changed_checksum() {
    let (_d, db) = damaged(&[(
        "UPDATE puzzles SET checksum = '00' || substr(checksum, 3) WHERE name = 'oshidori'",
        &[],
    )]);
    let err = verify_fails(&db, "oshidori");
    assert!(err.contains("puzzles.checksum is 00"), "{err}");
    // Every other puzzle still verifies.
    let o = run(&[
        "verify",
        "--db",
        db.to_str().unwrap(),
        "--puzzle",
        "six",
        "--puzzle",
        "knight-swap",
    ]);
    assert!(o.status.success());
}

#[test]
fn generate_verify_checks_the_new_file_before_the_rename() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    let o = run(&[
        "generate",
        "--verify",
        "--db",
        db.to_str().unwrap(),
        "--puzzle",
        "six",
        "--puzzle",
        "hoppers",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        text.contains("verified six ") && text.contains("verified hoppers "),
        "{text}"
    );

    // Nothing was carried: both are re-derived, and the line says so.
    assert!(
        text.contains("verify: six, hoppers re-derived; no carried puzzles"),
        "{text}"
    );

    // A carried-over puzzle is not re-derived but checked by its checksum: damage that
    // keeps its checksum (recomputed to match) passes `generate --verify`, which says
    // which puzzles it re-derived and which it checked by checksum, and `verify`
    // finds it.
    generate_into(&db, &["six", "nine-packed"], false);
    let conn = Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE farthest SET state = '1234567890' WHERE puzzle = 'nine-packed'
         AND rank = (SELECT min(rank) FROM farthest WHERE puzzle = 'nine-packed')",
        [],
    )
    .unwrap();
    let reader = puzzlebase::open_unchecked(&db).unwrap();
    let sum = reader.checksum("nine-packed").unwrap();
    conn.execute(
        "UPDATE puzzles SET checksum = ?1 WHERE name = 'nine-packed'",
        params![sum],
    )
    .unwrap();
    drop(conn);
    let args = [
        "generate",
        "--db",
        db.to_str().unwrap(),
        "--puzzle",
        "six",
        "--force",
        "--verify",
    ];
    let o = run(&args);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(text.contains("verified six "), "{text}");
    assert!(!text.contains("verified nine-packed"), "{text}");
    assert!(
        text.contains("verify: six re-derived; 2 carried puzzles checked by checksum"),
        "{text}"
    );
    let err = verify_fails(&db, "nine-packed");
    assert!(err.contains("verify: nine-packed: farthest rank"), "{err}");

    // Damage that changes the checksum is caught by it: the new file is refused and the
    // previous one stays exactly as it was.
    let conn = Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE farthest SET state = '1234567809' WHERE puzzle = 'nine-packed'
         AND rank = (SELECT min(rank) FROM farthest WHERE puzzle = 'nine-packed')",
        [],
    )
    .unwrap();
    drop(conn);
    let before = std::fs::read(&db).unwrap();
    let mut quiet = args.to_vec();
    quiet.push("--quiet");
    let err = assert_clean_failure(&run(&quiet), 1);
    assert!(err.contains("nine-packed"), "{err}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the previous file is untouched"
    );
    assert_no_temporaries(dir.path());
}

/// What `generate_and_verify` told its observer.
#[derive(Default)]
struct Recorded {
    verified: std::sync::Mutex<Vec<String>>,
    by_checksum: std::sync::Mutex<Vec<String>>,
}

impl puzzlebase::Observer for Recorded {
    fn progress(&self, _: &str) -> Box<dyn puzzlebase::Progress + '_> {
        Box::new(puzzlebase::Silent)
    }
    fn done(&self, _: &puzzlebase::Summary) {}
    fn verified(&self, r: &puzzlebase::Report) {
        self.verified.lock().unwrap().push(r.puzzle.clone());
    }
    fn checked(&self, c: &puzzlebase::Checked) {
        *self.by_checksum.lock().unwrap() = c.by_checksum.clone();
    }
}

#[test]
fn generate_verify_re_derives_what_it_built_and_checks_the_carried_by_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six", "seven", "hoppers"], false);
    let opts = puzzlebase::Options {
        db: db.clone(),
        only: vec!["seven".to_string()],
        force: true,
    };
    let built = |observer: &Recorded| {
        puzzlebase::generate_job(
            &opts,
            crate::util::job(crate::util::fixtures(), true),
            observer,
        )
    };
    let seen = Recorded::default();
    built(&seen).expect("generate --verify");
    assert_eq!(*seen.verified.lock().unwrap(), ["seven"]);
    assert_eq!(*seen.by_checksum.lock().unwrap(), ["six", "hoppers"]);

    // A carried puzzle whose rows no longer match its checksum is caught.
    let conn = Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE positions SET distance = distance + 2 WHERE puzzle = 'hoppers'
         AND rank = (SELECT max(rank) FROM positions WHERE puzzle = 'hoppers')",
        [],
    )
    .unwrap();
    drop(conn);
    let before = std::fs::read(&db).unwrap();
    let seen = Recorded::default();
    let err = built(&seen)
        .expect_err("damage in a carried puzzle")
        .to_string();
    assert!(err.contains("hoppers"), "{err}");
    assert_eq!(std::fs::read(&db).unwrap(), before);
}
