//! A hostile file: copies of the shared database damaged one fact at a time. `query`
//! must refuse with "inconsistent file <path>: ...: run `puzzlebase verify`" (exit 1)
//! or still give the undamaged answer; never a wrong answer with exit 0, never a panic
//! or a huge allocation.

use std::path::{Path, PathBuf};

use puzzlebase::{ChunkLayout, PegBoard as Board};
use rusqlite::{Connection, params};

use crate::util::{damaged_copy, graph, peg_board as peg, rank_of, run, shared_db};

/// A damaged copy of the shared database; the directory lives as long as the test.
struct Damaged {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

fn damaged(damage: impl FnOnce(&Connection)) -> Damaged {
    let (dir, path) = damaged_copy(shared_db(), damage);
    Damaged { _dir: dir, path }
}

fn query(db: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["query", "--db", db.to_str().unwrap(), "--json"];
    all.extend_from_slice(args);
    run(&all)
}

/// Whether `query args` on the damaged file refused as it should; panics on anything
/// else than a refusal or the answer the undamaged file gives.
fn refused(d: &Damaged, args: &[&str]) -> bool {
    let o = query(&d.path, args);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(
        !err.contains("panicked") && !err.contains("memory allocation"),
        "{args:?}: {err}"
    );
    if o.status.success() {
        let good = query(shared_db(), args);
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&good.stdout),
            "{args:?}: a damaged file gave a different answer with exit 0"
        );
        return false;
    }
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    let prefix = format!("puzzlebase: inconsistent file {}: ", d.path.display());
    assert!(
        err.starts_with(&prefix) && err.trim_end().ends_with(": run `puzzlebase verify`"),
        "{args:?}: {err}"
    );
    assert!(o.stdout.is_empty());
    true
}

/// Every question about `puzzle` must be refused or answered as before; `must` are
/// those whose answer the damage touches, which must be refused.
fn check(d: &Damaged, must: &[&[&str]], also: &[&[&str]]) {
    for args in must {
        assert!(refused(d, args), "{args:?} answered from a damaged file");
    }
    for args in also {
        refused(d, args);
    }
}

/// seven's farthest position (36 moves, the only one), stored as a row like every
/// position of a puzzle below the packing line.
const SEVEN_SEED: &str = "07214365";

/// The second position of the seed's path (one move closer).
fn seven_second(conn: &Connection) -> i64 {
    let r = rank_of(conn, "seven", SEVEN_SEED);
    conn.query_row(
        "SELECT next_rank FROM positions WHERE puzzle = 'seven' AND rank = ?1",
        [r],
        |r| r.get(0),
    )
    .unwrap()
}

const SEVEN_QUESTIONS: &[&[&str]] = &[
    &["--puzzle", "seven", "--state", SEVEN_SEED],
    &["--puzzle", "seven", "--state", "12345607"],
    &["--puzzle", "seven", "--longest"],
    &["--puzzle", "seven", "--histogram"],
];

#[test]
fn a_changed_distance_is_refused() {
    let d = damaged(|c| {
        let second = seven_second(c);
        c.execute(
            "UPDATE positions SET distance = distance + 2 WHERE puzzle = 'seven' AND rank = ?1",
            [second],
        )
        .unwrap();
    });
    check(&d, &[SEVEN_QUESTIONS[0]], SEVEN_QUESTIONS);
    // The seed itself claiming to be closer than it is.
    let d = damaged(|c| {
        c.execute(
            "UPDATE positions SET distance = 34 WHERE puzzle = 'seven' AND state = ?1",
            [SEVEN_SEED],
        )
        .unwrap();
    });
    check(
        &d,
        &[SEVEN_QUESTIONS[0], &["--puzzle", "seven", "--longest"]],
        SEVEN_QUESTIONS,
    );
}

#[test]
fn a_next_rank_one_step_closer_but_not_adjacent_is_refused() {
    let g = graph("seven");
    let d = damaged(|c| {
        let seed = rank_of(c, "seven", SEVEN_SEED);
        let mut nbs = Vec::new();
        g.neighbors(seed as u64, &mut nbs);
        let mut st = c
            .prepare("SELECT rank FROM positions WHERE puzzle = 'seven' AND distance = 35")
            .unwrap();
        let far: i64 = st
            .query_map([], |r| r.get::<_, i64>(0))
            .unwrap()
            .map(Result::unwrap)
            .find(|&r| !nbs.contains(&(r as u64)))
            .unwrap();
        c.execute(
            "UPDATE positions SET next_rank = ?1 WHERE puzzle = 'seven' AND rank = ?2",
            [far, seed],
        )
        .unwrap();
    });
    check(&d, &[SEVEN_QUESTIONS[0]], SEVEN_QUESTIONS);
}

#[test]
fn a_changed_solution_count_is_refused() {
    for on_successor in [false, true] {
        let d = damaged(|c| {
            let r = if on_successor {
                seven_second(c)
            } else {
                rank_of(c, "seven", SEVEN_SEED)
            };
            c.execute(
                "UPDATE positions SET solutions = solutions + 1 WHERE puzzle = 'seven' AND rank = ?1",
                [r],
            )
            .unwrap();
        });
        check(&d, &[SEVEN_QUESTIONS[0]], SEVEN_QUESTIONS);
    }
}

#[test]
fn a_changed_state_text_is_refused() {
    for on_first in [true, false] {
        let d = damaged(|c| {
            let r = if on_first {
                rank_of(c, "seven", SEVEN_SEED)
            } else {
                seven_second(c)
            };
            c.execute(
                "UPDATE positions SET state = '12345670' WHERE puzzle = 'seven' AND rank = ?1",
                [r],
            )
            .unwrap();
        });
        let longest: &[&str] = &["--puzzle", "seven", "--longest"];
        let must: &[&[&str]] = if on_first {
            &[longest]
        } else {
            &[SEVEN_QUESTIONS[0]]
        };
        check(&d, must, SEVEN_QUESTIONS);
    }
}

#[test]
fn a_changed_histogram_is_refused_and_a_huge_distance_allocates_nothing() {
    let six: &[&[&str]] = &[&["--puzzle", "six", "--histogram"]];
    let d = damaged(|c| {
        c.execute(
            "UPDATE histogram SET positions = positions + 1 WHERE puzzle = 'six' AND distance = 3",
            [],
        )
        .unwrap();
    });
    check(&d, six, six);
    let d = damaged(|c| {
        c.execute(
            "DELETE FROM histogram WHERE puzzle = 'six' AND distance = 7",
            [],
        )
        .unwrap();
    });
    check(&d, six, six);
    for distance in [4_000_000_000i64, -1, 16] {
        let d = damaged(|c| {
            c.execute(
                "INSERT INTO histogram (puzzle, distance, positions, classes) VALUES ('six', ?1, 1, 1)",
                [distance],
            )
            .unwrap();
        });
        check(&d, six, &[&["--puzzle", "six", "--longest"]]);
    }
}

#[test]
fn a_changed_farthest_row_is_refused() {
    let g = graph("nine");
    // One move closer than the farthest 0532194876: a real position, at distance 54.
    let a = crate::util::query_json(&["--puzzle", "nine-packed", "--state", "0532194876"]);
    let closer = a["path"][1].as_str().unwrap().to_string();
    let closer_rank = g.parse(&closer).unwrap() as i64;
    let longest: &[&[&str]] = &[&["--puzzle", "nine-packed", "--longest"]];
    let d = damaged(|c| {
        c.execute(
            "UPDATE farthest SET rank = ?1, state = ?2 WHERE puzzle = 'nine-packed' AND state = '0532194876'",
            params![closer_rank, closer],
        )
        .unwrap();
    });
    check(&d, longest, longest);
    let d = damaged(|c| {
        c.execute(
            "UPDATE farthest SET state = '0937154826' WHERE puzzle = 'nine-packed' AND state = '0532194876'",
            [],
        )
        .unwrap();
    });
    check(&d, longest, longest);
    let d = damaged(|c| {
        c.execute(
            "DELETE FROM farthest WHERE puzzle = 'nine-packed' AND state = '0532194876'",
            [],
        )
        .unwrap();
    });
    check(&d, longest, longest);
}

#[test]
fn a_changed_packed_chunk_byte_is_refused_or_answered_correctly() {
    let g = graph("nine");
    let layout = g.packing().unwrap();
    let state = "0532194876";
    let slot = layout.locate(g.parse(state).unwrap());
    let questions: &[&[&str]] = &[
        &["--puzzle", "nine-packed", "--state", state],
        &["--puzzle", "nine-packed", "--state", "1234567809"],
        &["--puzzle", "nine-packed", "--longest"],
    ];
    // The entry's first-distance byte and its step bits, each changed in a few ways.
    for (byte, delta) in [(0, 2u8), (0, 254), (1, 1), (1, 0x80)] {
        let d = damaged(|c| {
            let mut blob: Vec<u8> = c
                .query_row(
                    "SELECT data FROM packed_chunks WHERE puzzle = 'nine-packed' AND kind = 'distance' AND chunk = ?1",
                    [slot.chunk as i64],
                    |r| r.get(0),
                )
                .unwrap();
            let at = slot.offset + byte;
            blob[at] = if byte == 0 {
                blob[at].wrapping_add(delta)
            } else {
                blob[at] ^ delta
            };
            c.execute(
                "UPDATE packed_chunks SET data = ?1 WHERE puzzle = 'nine-packed' AND kind = 'distance' AND chunk = ?2",
                params![blob, slot.chunk as i64],
            )
            .unwrap();
        });
        let must: &[&[&str]] = if byte == 0 { &questions[..1] } else { &[] };
        check(&d, must, questions);
    }
}

#[test]
fn a_changed_peg_move_is_refused() {
    let b = peg("hoppers");
    let (start, _) = b.canonical(b.start);
    let conn = Connection::open(shared_db()).unwrap();
    let row = |rank: u64| -> (String, u64) {
        conn.query_row(
            "SELECT state, next_rank FROM positions WHERE puzzle = 'hoppers' AND rank = ?1",
            [rank as i64],
            |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)),
        )
        .unwrap()
    };
    // The start's moves are all alike under the board's symmetry; the position after
    // it has moves to positions that are not the stored next one.
    let (_, second) = row(start);
    let (second_state, next) = row(second);
    let (mv, _) = b
        .moves(second)
        .into_iter()
        .find(|(_, after)| b.canonical(*after).0 != next)
        .expect("a move elsewhere");
    drop(conn);
    let questions: &[&[&str]] = &[
        &["--puzzle", "hoppers", "--state", &second_state],
        &["--puzzle", "hoppers", "--start"],
        &["--puzzle", "hoppers", "--longest"],
    ];
    let d = damaged(|c| {
        c.execute(
            "UPDATE positions SET move = ?1 WHERE puzzle = 'hoppers' AND rank = ?2",
            params![Board::format_moves(&[mv]), second as i64],
        )
        .unwrap();
    });
    check(&d, &questions[..2], questions);
    // A count changed on the start.
    let d = damaged(|c| {
        c.execute(
            "UPDATE positions SET solutions = 71 WHERE puzzle = 'hoppers' AND rank = ?1",
            [start as i64],
        )
        .unwrap();
    });
    check(&d, &questions[1..2], questions);
}

#[test]
fn a_changed_peg_layer_is_refused() {
    let layers: &[&[&str]] = &[&["--puzzle", "hoppers", "--layers"]];
    for sql in [
        "UPDATE peg_layers SET can_finish = can_finish + 1 WHERE puzzle = 'hoppers' AND pegs = 5",
        "UPDATE peg_layers SET reachable = reachable - 1 WHERE puzzle = 'hoppers' AND pegs = 6",
        "UPDATE peg_layers SET can_finish_classes = reachable_classes + 1 WHERE puzzle = 'hoppers' AND pegs = 4",
    ] {
        let d = damaged(|c| {
            c.execute(sql, []).unwrap();
        });
        check(&d, layers, layers);
    }
}

#[test]
fn a_changed_enumeration_row_is_refused() {
    let magic: &[&[&str]] = &[
        &["--puzzle", "magic-triangle", "--sum", "20"],
        &["--puzzle", "magic-triangle", "--all"],
        &["--puzzle", "magic-triangle", "--histogram"],
    ];
    for sql in [
        // Sides no longer equal.
        "UPDATE solutions SET state = '168524973' WHERE puzzle = 'magic-triangle' AND state = '168524937'",
        // The side sum claimed for it.
        "UPDATE solutions SET value = 21 WHERE puzzle = 'magic-triangle' AND state = '249516837'",
        // Another member of the class marked as its representative.
        "UPDATE solutions SET state = '186524937' WHERE puzzle = 'magic-triangle' AND state = '168524937'",
    ] {
        let d = damaged(|c| {
            assert_eq!(c.execute(sql, []).unwrap(), 1, "{sql}");
        });
        check(&d, &magic[1..], magic);
    }
    let tours: &[&[&str]] = &[&["--puzzle", "knight-tour", "--all"]];
    let d = damaged(|c| {
        let n = c
            .execute(
                "UPDATE solutions SET state = '0 6 12 11 4 9 2 1 7 13 8 3 5 10'
                 WHERE puzzle = 'knight-tour' AND canonical = 1",
                [],
            )
            .unwrap();
        assert_eq!(n, 1);
    });
    check(&d, tours, tours);
}

/// SQL-level edits that once gave answers with exit 0: a goal's count, zeroed count
/// chunks, a count table gone, and a row without a distance are refused as damage.
#[test]
fn counts_and_distances_the_rules_fix_are_refused_when_edited() {
    let goal: &[&str] = &["--puzzle", "seven", "--state", "12345670"];
    let d = damaged(|c| {
        c.execute(
            "UPDATE positions SET solutions = -1 WHERE puzzle = 'seven' AND distance = 0",
            [],
        )
        .unwrap();
    });
    check(&d, &[goal], SEVEN_QUESTIONS);

    let eight: &[&str] = &["--puzzle", "eight-packed", "--state", "867254301"];
    let d = damaged(|c| {
        c.execute(
            "UPDATE packed_chunks SET data = zeroblob(length(data))
             WHERE puzzle = 'eight-packed' AND kind = 'solutions'",
            [],
        )
        .unwrap();
    });
    check(&d, &[eight], &[]);
    let d = damaged(|c| {
        c.execute_batch(
            "PRAGMA foreign_keys = OFF;
             DELETE FROM packed_chunks WHERE puzzle = 'eight-packed' AND kind = 'solutions';
             DELETE FROM packed_tables WHERE puzzle = 'eight-packed' AND kind = 'solutions';",
        )
        .unwrap();
    });
    check(&d, &[eight], &[]);

    let d = damaged(|c| {
        c.execute(
            "UPDATE positions SET distance = NULL WHERE puzzle = 'seven' AND state = ?1",
            [SEVEN_SEED],
        )
        .unwrap();
    });
    check(&d, &[SEVEN_QUESTIONS[0]], &[]);
}

/// More SQL-level edits that once gave answers with exit 0: a matrix entry, two layers'
/// figures swapped with their totals intact, a tour moved to another puzzle, a peg row
/// deleted and a peg row's distance removed.
#[test]
fn matrices_layers_enumerations_and_peg_rows_edited_are_refused() {
    let d = damaged(|c| {
        c.execute(
            "UPDATE peg_matrix SET distance = distance + 1 WHERE puzzle = 'chinese-checkers'
             AND (start, finish) = (SELECT start, finish FROM peg_matrix
                 WHERE puzzle = 'chinese-checkers' AND distance IS NOT NULL
                 ORDER BY start, finish LIMIT 1)",
            [],
        )
        .unwrap();
    });
    check(&d, &[&["--puzzle", "chinese-checkers", "--matrix"]], &[]);

    let d = damaged(|c| {
        c.execute_batch(
            "CREATE TEMP TABLE a AS SELECT * FROM peg_layers WHERE puzzle = 'hoppers' AND pegs = 11;
             CREATE TEMP TABLE b AS SELECT * FROM peg_layers WHERE puzzle = 'hoppers' AND pegs = 10;
             UPDATE peg_layers SET reachable = (SELECT reachable FROM b),
                 can_finish = (SELECT can_finish FROM b),
                 reachable_classes = (SELECT reachable_classes FROM b),
                 can_finish_classes = (SELECT can_finish_classes FROM b)
             WHERE puzzle = 'hoppers' AND pegs = 11;
             UPDATE peg_layers SET reachable = (SELECT reachable FROM a),
                 can_finish = (SELECT can_finish FROM a),
                 reachable_classes = (SELECT reachable_classes FROM a),
                 can_finish_classes = (SELECT can_finish_classes FROM a)
             WHERE puzzle = 'hoppers' AND pegs = 10;",
        )
        .unwrap();
    });
    check(&d, &[&["--puzzle", "hoppers", "--layers"]], &[]);

    let d = damaged(|c| {
        c.execute_batch(
            "PRAGMA foreign_keys = OFF;
             UPDATE solutions SET puzzle = 'knight-tour-7x7' WHERE puzzle = 'knight-tour-6x6'
             AND rank = (SELECT min(rank) FROM solutions WHERE puzzle = 'knight-tour-6x6');",
        )
        .unwrap();
    });
    check(&d, &[&["--puzzle", "knight-tour-6x6", "--all"]], &[]);

    // A position one jump from hoppers' start (11 of its 13 holes filled) that can finish.
    let conn = Connection::open(shared_db()).unwrap();
    let state: String = conn
        .query_row(
            "SELECT state FROM positions WHERE puzzle = 'hoppers' AND distance IS NOT NULL
             AND length(replace(state, '0', '')) = 11 ORDER BY rank LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    drop(conn);
    let d = damaged(|c| {
        c.execute(
            "DELETE FROM positions WHERE puzzle = 'hoppers' AND state = ?1",
            [&state],
        )
        .unwrap();
    });
    check(&d, &[&["--puzzle", "hoppers", "--state", &state]], &[]);
    let d = damaged(|c| {
        c.execute(
            "UPDATE positions SET distance = NULL, next_rank = NULL, solutions = NULL, move = NULL
             WHERE puzzle = 'hoppers' AND state = ?1",
            [&state],
        )
        .unwrap();
    });
    check(&d, &[&["--puzzle", "hoppers", "--state", &state]], &[]);
}
