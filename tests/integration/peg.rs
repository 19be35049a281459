//! Peg solitaire from the file: the seeds' figures, solutions that replay jump by jump,
//! the distance and count recurrences over every stored row, symmetry handling.

use puzzlebase::PegBoard as Board;
use rusqlite::{Connection, OptionalExtension};

use crate::util::{
    assert_clean_failure, assert_replays, peg_board as board, query_json, run, shared_db,
};

/// (distance, solutions) of the stored row for `bits`, looked up by its canonical form.
fn stored(conn: &Connection, b: &Board, bits: u64) -> Option<(Option<u8>, Option<u64>)> {
    conn.query_row(
        "SELECT distance, solutions FROM positions WHERE puzzle = ?1 AND rank = ?2",
        rusqlite::params![b.name, b.canonical(bits).0 as i64],
        |r| Ok((r.get(0)?, r.get::<_, Option<i64>>(1)?.map(|v| v as u64))),
    )
    .optional()
    .unwrap()
}

#[test]
fn seed_minimums_and_solution_counts() {
    for (name, moves, solutions) in [
        ("chinese-checkers", 9, None),
        ("hoppers", 7, Some(72)),
        ("triangle21", 12, Some(192)),
    ] {
        let a = query_json(&["--puzzle", name, "--start"]);
        assert_eq!(a["distance"], moves, "{name}");
        if let Some(s) = solutions {
            assert_eq!(a["solutions"], s, "{name}");
        }
        assert_replays(&board(name), &a);
    }
}

#[test]
fn seed_counts_with_the_first_move_fixed() {
    // The seeds fix the first jump (hoppers 0->6, triangle21 14->6) and count 18 and 96.
    let conn = Connection::open(shared_db()).unwrap();
    for (name, first, expected) in [("hoppers", [0u8, 6], 18u64), ("triangle21", [14, 6], 96)] {
        let b = board(name);
        let (d, _) = stored(&conn, &b, b.start).unwrap();
        let d = d.unwrap();
        let mut total = 0;
        for (mv, after) in b.moves(b.start) {
            if mv[..2] == first
                && let Some((Some(dd), Some(c))) = stored(&conn, &b, after)
                && dd + 1 == d
            {
                total += c;
            }
        }
        assert_eq!(total, expected, "{name}");
    }
}

#[test]
fn the_seed_chinese_checkers_solution_replays() {
    let b = board("chinese-checkers");
    let seed: [&[u8]; 9] = [
        &[10, 12],
        &[13, 11],
        &[3, 10, 12, 3],
        &[1, 6],
        &[5, 3],
        &[6, 1],
        &[14, 5],
        &[2, 9, 7],
        &[0, 3, 12],
    ];
    let mut cur = b.start;
    for mv in seed {
        cur = b.apply_move(cur, mv).unwrap();
    }
    assert_eq!(cur, b.finish);
}

/// (rank, state, distance, solutions, move) of a `positions` row.
type Row = (i64, String, Option<u8>, Option<i64>, Option<String>);

#[test]
fn every_stored_row_obeys_the_move_recurrences() {
    let conn = Connection::open(shared_db()).unwrap();
    for name in ["chinese-checkers", "hoppers", "triangle21"] {
        let b = board(name);
        let mut st = conn
            .prepare(
                "SELECT rank, state, distance, solutions, move FROM positions WHERE puzzle = ?1",
            )
            .unwrap();
        let rows: Vec<Row> = st
            .query_map([name], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(!rows.is_empty());
        for (rank, state, d, sols, mv) in rows {
            let bits = rank as u64;
            assert_eq!(b.parse(&state), Ok(bits));
            assert_eq!(b.canonical(bits).0, bits, "rows are canonical");
            let succ: Vec<Option<u8>> = b
                .moves(bits)
                .into_iter()
                .map(|(_, after)| stored(&conn, &b, after).and_then(|s| s.0))
                .collect();
            let best = succ.iter().flatten().min().map(|m| m + 1);
            if bits == b.finish {
                assert_eq!((d, sols), (Some(0), Some(1)));
                continue;
            }
            assert_eq!(d, best, "{name} {state}: distance = 1 + min over moves");
            if let Some(d) = d {
                let sum: u64 = b
                    .moves(bits)
                    .into_iter()
                    .filter_map(|(_, after)| stored(&conn, &b, after))
                    .filter(|s| s.0 == Some(d - 1))
                    .map(|s| s.1.unwrap())
                    .sum();
                assert_eq!(
                    sols,
                    Some(sum as i64),
                    "{name} {state}: solutions = sum over optimal moves"
                );
                let mv = mv.expect("a next move");
                let hops: Vec<u8> = mv
                    .trim_matches(['[', ']'])
                    .split(',')
                    .map(|h| h.parse().unwrap())
                    .collect();
                let after = b.apply_move(bits, &hops).expect("stored move is legal");
                assert_eq!(stored(&conn, &b, after).unwrap().0, Some(d - 1));
            }
        }
    }
}

#[test]
fn a_mirrored_position_gets_the_mirrored_answer() {
    let b = board("hoppers");
    let a = query_json(&["--puzzle", "hoppers", "--start"]);
    let second = b.parse(a["path"][1].as_str().unwrap()).unwrap();
    for sym in 0..b.symmetries().len() {
        let image = b.apply_symmetry(second, sym);
        let m = query_json(&["--puzzle", "hoppers", "--state", &b.format(image)]);
        assert_eq!(
            m["state"],
            b.format(image),
            "answers stay in the user's orientation"
        );
        assert_eq!(m["distance"], 6);
        assert_replays(&b, &m);
    }
}

#[test]
fn matrix_diagonal_holds_the_seed_problems() {
    for (name, hole, moves) in [
        ("chinese-checkers", 12, 9),
        ("hoppers", 6, 7),
        ("triangle21", 6, 12),
    ] {
        let m = query_json(&["--puzzle", name, "--matrix"]);
        let rows = m["matrix"].as_array().unwrap();
        assert_eq!(rows.len(), board(name).holes);
        assert!(
            rows.iter()
                .all(|r| r.as_array().unwrap().len() == rows.len())
        );
        assert_eq!(rows[hole][hole], moves, "{name}");
        // The matrix agrees with the full table on the puzzle's own start/finish.
        let a = query_json(&["--puzzle", name, "--start"]);
        assert_eq!(rows[hole][hole], a["distance"]);
    }
}

#[test]
fn peg_positions_without_an_answer_say_why() {
    let db = shared_db().to_str().unwrap();
    // Fourteen pegs with a hole that was never empty at the start: not reachable.
    let err = assert_clean_failure(
        &run(&[
            "query",
            "--db",
            db,
            "--puzzle",
            "hoppers",
            "--state",
            "0111111111111",
        ]),
        1,
    );
    assert!(err.contains("not reachable"), "{err}");
    for bad in ["111111011111", "11111101111121", "111111O111111"] {
        let err = assert_clean_failure(
            &run(&["query", "--db", db, "--puzzle", "hoppers", "--state", bad]),
            2,
        );
        assert!(err.contains("malformed"), "{bad}: {err}");
    }
    let err = assert_clean_failure(
        &run(&["query", "--db", db, "--puzzle", "eight", "--matrix"]),
        2,
    );
    assert!(err.contains("does not answer"), "{err}");
}
