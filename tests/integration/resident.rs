//! The server's in-memory copy of the move puzzles' tables (`query::Resident`): every
//! answer read from memory is the answer read from the file, byte for byte, on the
//! shared database and on copies damaged one fact at a time (where the file's answer is
//! a refusal, so is the copy's). A table that does not load cleanly stays in the file.

use std::path::Path;

use puzzlebase::ChunkLayout;
use puzzlebase::json;
use puzzlebase::{Database, Resident};
use rusqlite::{Connection, params};

use crate::util::{damaged_copy, graph, peg_board, rank_of, shared_db};

/// seven's farthest position (36 moves), stored as a row.
const SEVEN_SEED: &str = "07214365";
const NINE_FAR: &str = "0532194876";

/// A reader of `db` that keeps `names` in memory; whether each one loaded.
fn in_memory(db: &Path, names: &[&str]) -> (Database, Vec<bool>) {
    let mut d = Database::open_for_serving(db).unwrap();
    let resident = Resident::new();
    d.share_resident(resident.clone());
    let held = names.iter().map(|n| d.load_resident(n).unwrap()).collect();
    (d, held)
}

/// The JSON text of the position answer, or the error's text.
fn answer(db: &Database, name: &str, state: &str) -> String {
    match db.snapshot(|db| json::position(db, name, state)) {
        Ok(v) => v.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

/// Positions spread over a move puzzle's ranks, and its goals and start.
fn sample(name: &str, count: u64) -> Vec<String> {
    let g = graph(name);
    let step = (g.size() / count).max(1);
    let mut out: Vec<String> = (0..g.size())
        .step_by(step as usize)
        .map(|r| g.format(r))
        .collect();
    out.extend(g.goals().iter().chain(&g.start()).map(|&r| g.format(r)));
    out
}

#[test]
fn answers_from_memory_are_the_files_answers() {
    let graphs = [
        "six",
        "seven",
        "eight",
        "nine",
        "eight-packed",
        "nine-packed",
        "knight-swap",
        "oshidori",
    ];
    let file = Database::open_for_serving(shared_db()).unwrap();
    let (memory, held) = in_memory(shared_db(), &graphs);
    assert_eq!(held, vec![true; graphs.len()], "every move puzzle loads");
    for name in graphs {
        for state in sample(name, 300) {
            assert_eq!(
                answer(&memory, name, &state),
                answer(&file, name, &state),
                "{name} {state}"
            );
        }
    }
    // Peg boards and enumerations keep reading the file, with the same answers.
    let (memory, held) = in_memory(shared_db(), &["hoppers", "magic-triangle"]);
    assert_eq!(held, vec![false, false]);
    let hoppers = peg_board("hoppers");
    let start = hoppers.format(hoppers.start);
    for (name, state) in [("hoppers", start.as_str()), ("magic-triangle", "168524937")] {
        let a = answer(&memory, name, state);
        assert!(!a.starts_with("error"), "{name} {state}: {a}");
        assert_eq!(a, answer(&file, name, state));
    }
    // An unknown puzzle is an error, as it is from the file.
    assert!(in_memory_load_fails(shared_db(), "no-such-puzzle"));
}

fn in_memory_load_fails(db: &Path, name: &str) -> bool {
    let mut d = Database::open_for_serving(db).unwrap();
    d.share_resident(Resident::new());
    d.load_resident(name).is_err()
}

/// A damaged copy of the shared database.
fn damaged(damage: impl FnOnce(&Connection)) -> (tempfile::TempDir, std::path::PathBuf) {
    damaged_copy(shared_db(), damage)
}

/// On the damaged copy: `name` loads into memory (or not, `loads`), the answers for
/// `states` from memory equal those from the file, and the first is a refusal.
fn same_refusal(path: &Path, name: &str, loads: bool, states: &[&str]) {
    let file = Database::open_for_serving(path).unwrap();
    let (memory, held) = in_memory(path, &[name]);
    assert_eq!(held, vec![loads], "{name}: loaded into memory");
    for state in states {
        assert_eq!(
            answer(&memory, name, state),
            answer(&file, name, state),
            "{name} {state}"
        );
    }
    let refused = answer(&memory, name, states[0]);
    assert!(
        refused.starts_with("error: inconsistent file"),
        "{name} {}: {refused}",
        states[0]
    );
}

#[test]
fn damaged_rows_are_refused_from_memory_as_from_the_file() {
    let seed_row = |c: &Connection| rank_of(c, "seven", SEVEN_SEED);
    let damage: [&str; 4] = [
        "UPDATE positions SET distance = 34 WHERE puzzle = 'seven' AND rank = ?1",
        "UPDATE positions SET solutions = solutions + 1 WHERE puzzle = 'seven' AND rank = ?1",
        "UPDATE positions SET state = '12345670' WHERE puzzle = 'seven' AND rank = ?1",
        "UPDATE positions SET next_rank = next_rank + 1 WHERE puzzle = 'seven' AND rank = ?1",
    ];
    for sql in damage {
        let (_dir, path) = damaged(|c| {
            c.execute(sql, [seed_row(c)]).unwrap();
        });
        // Its group no longer matches its digest: the table stays in the file.
        same_refusal(&path, "seven", false, &[SEVEN_SEED, "12345670", "12345607"]);
    }
    // A value no single-row read accepts (distances are 32 bits): the table stays in the
    // file.
    let (_dir, path) = damaged(|c| {
        c.execute(
            "UPDATE positions SET distance = 5000000000 WHERE puzzle = 'seven' AND rank = ?1",
            [seed_row(c)],
        )
        .unwrap();
    });
    same_refusal(&path, "seven", false, &[SEVEN_SEED, "12345670"]);
}

#[test]
fn damaged_chunks_are_refused_from_memory_as_from_the_file() {
    let g = graph("nine");
    let slot = g.packing().unwrap().locate(g.parse(NINE_FAR).unwrap());
    let chunk = |c: &Connection| -> Vec<u8> {
        c.query_row(
            "SELECT data FROM packed_chunks WHERE puzzle = 'nine-packed' AND kind = 'distance' AND chunk = ?1",
            [slot.chunk as i64],
            |r| r.get(0),
        )
        .unwrap()
    };
    let put = |c: &Connection, blob: Vec<u8>| {
        c.execute(
            "UPDATE packed_chunks SET data = ?1 WHERE puzzle = 'nine-packed' AND kind = 'distance' AND chunk = ?2",
            params![blob, slot.chunk as i64],
        )
        .unwrap();
    };
    // A changed distance byte: its chunk no longer matches its digest, so the table
    // stays in the file, which refuses every read of it.
    let (_dir, path) = damaged(|c| {
        let mut blob = chunk(c);
        blob[slot.offset] = blob[slot.offset].wrapping_add(2);
        put(c, blob);
    });
    same_refusal(&path, "nine-packed", false, &[NINE_FAR, "1234567809"]);
    // A short or missing chunk: the table stays in the file, which refuses.
    let (_dir, path) = damaged(|c| {
        let mut blob = chunk(c);
        blob.truncate(slot.offset);
        put(c, blob);
    });
    same_refusal(&path, "nine-packed", false, &[NINE_FAR, "1234567809"]);
    let (_dir, path) = damaged(|c| {
        c.execute(
            "DELETE FROM packed_chunks WHERE puzzle = 'nine-packed' AND kind = 'distance' AND chunk = ?1",
            [slot.chunk as i64],
        )
        .unwrap();
    });
    same_refusal(&path, "nine-packed", false, &[NINE_FAR, "1234567809"]);
}
