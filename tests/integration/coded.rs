//! Packed tables of move graphs without runs: two-bit distance codes beside the solution
//! counts (`cube2`, `klotski`, `pancake-9`: every such graph above 131,072 positions, or
//! one whose definition asks for `storage = "packed"`). Read back as another tool would,
//! from the file format's description alone, they hold what the rows of the same puzzle
//! hold; `query` gives the same answers from both; `verify` re-derives them and refuses a
//! count changed in the file.

use std::path::Path;

use rusqlite::Connection;

use puzzlebase::{Definition, Job, Options};

use crate::util::{Quiet, assert_clean_failure, assert_verifies, damaged_copy, query_json_in, run};

/// The hexagonal `six` (5,040 positions, rows by default) and its twin asking for
/// packed tables, built into a fresh file through the library (so that a test may edit
/// the file as another program would).
fn six_and_its_packed_twin(dir: &Path) -> std::path::PathBuf {
    let defs = dir.join("defs");
    std::fs::create_dir(&defs).unwrap();
    let six = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/puzzles/six.toml"),
    )
    .unwrap()
    .replace(
        "name = \"six\"",
        "name = \"six-packed\"\nstorage = \"packed\"",
    );
    std::fs::write(defs.join("six-packed.toml"), six).unwrap();
    let db = dir.join("coded.sqlite");
    let opts = Options {
        db: db.clone(),
        only: vec!["six".to_string(), "six-packed".to_string()],
        force: false,
    };
    let job = Job {
        definitions: Definition::read_dir(&defs).unwrap(),
        ..Job::default()
    };
    puzzlebase::generate_job(&opts, job, &Quiet).expect("generate");
    db
}

fn layout(conn: &Connection, puzzle: &str, kind: &str) -> serde_json::Value {
    let text: String = conn
        .query_row(
            "SELECT layout FROM packed_tables WHERE puzzle = ?1 AND kind = ?2",
            [puzzle, kind],
            |r| r.get(0),
        )
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn chunks(conn: &Connection, puzzle: &str, kind: &str) -> Vec<Vec<u8>> {
    let mut stmt = conn
        .prepare("SELECT data FROM packed_chunks WHERE puzzle = ?1 AND kind = ?2 ORDER BY chunk")
        .unwrap();
    stmt.query_map([puzzle, kind], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn codes_beside_counts_hold_what_the_rows_hold() {
    let dir = tempfile::tempdir().unwrap();
    let db = six_and_its_packed_twin(dir.path());
    let conn = Connection::open(&db).unwrap();
    let (storage, counts, states): (String, bool, i64) = conn
        .query_row(
            "SELECT storage, counts, states FROM puzzles WHERE name = 'six-packed'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((storage.as_str(), counts, states), ("packed", true, 5040));

    // The codes: rank r is bits 2 (r % 4) of byte (r % 16000) / 4 of chunk r / 16000,
    // the distance modulo 3 (the hexagon is not bipartite), 3 out of reach.
    let d = layout(&conn, "six-packed", "distance");
    assert_eq!(d["encoding"], "mod3", "{d}");
    assert_eq!(d["ranks_per_chunk"], 16000, "{d}");
    let codes = chunks(&conn, "six-packed", "distance");
    let code = |r: usize| codes[r / 16000][(r % 16000) / 4] >> (2 * (r % 4)) & 3;
    // The counts: `entry_bytes` little-endian bytes a rank.
    let c = layout(&conn, "six-packed", "solutions");
    let (width, per) = (
        c["entry_bytes"].as_u64().unwrap() as usize,
        c["ranks_per_chunk"].as_u64().unwrap() as usize,
    );
    let counted = chunks(&conn, "six-packed", "solutions");
    let count = |r: usize| {
        let mut le = [0u8; 8];
        le[..width].copy_from_slice(&counted[r / per][width * (r % per)..][..width]);
        u64::from_le_bytes(le)
    };

    let mut stmt = conn
        .prepare(
            "SELECT rank, distance, solutions FROM positions WHERE puzzle = 'six' ORDER BY rank",
        )
        .unwrap();
    let rows: Vec<(usize, u32, u64)> = stmt
        .query_map([], |r| {
            let (rank, solutions): (i64, i64) = (r.get(0)?, r.get(2)?);
            Ok((rank as usize, r.get(1)?, solutions as u64))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows.len(), 5040);
    for &(rank, distance, solutions) in &rows {
        assert_eq!(code(rank) as u32, distance % 3, "rank {rank}");
        assert_eq!(count(rank), solutions, "rank {rank}");
    }
    let no_rows: i64 = conn
        .query_row(
            "SELECT count(*) FROM positions WHERE puzzle = 'six-packed'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(no_rows, 0, "packed: no row per position");

    // The same histogram and farthest positions, and the same answers to `query`:
    // distance, count and path (the smallest-ranked neighbour one move closer).
    let histogram = |p: &str| {
        let h = query_json_in(&db, &["--puzzle", p, "--histogram"]);
        h["histogram"].clone()
    };
    assert_eq!(histogram("six"), histogram("six-packed"));
    let longest = |p: &str| query_json_in(&db, &["--puzzle", p, "--longest"])["states"].clone();
    assert_eq!(longest("six"), longest("six-packed"));
    for &(rank, _, _) in rows.iter().step_by(613) {
        let state: String = conn
            .query_row(
                "SELECT state FROM positions WHERE puzzle = 'six' AND rank = ?1",
                [rank as i64],
                |r| r.get(0),
            )
            .unwrap();
        let a = query_json_in(&db, &["--puzzle", "six", "--state", &state]);
        let b = query_json_in(&db, &["--puzzle", "six-packed", "--state", &state]);
        for key in ["distance", "solutions", "path"] {
            assert_eq!(a[key], b[key], "{state}: {key}");
        }
    }
    assert_verifies(&db, &["six", "six-packed"]);
}

#[test]
fn a_count_changed_in_the_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = six_and_its_packed_twin(dir.path());
    // One more shortest solution for rank 1 than the file says.
    let (_keep, damaged) = damaged_copy(&db, |conn| {
        let mut blob = chunks(conn, "six-packed", "solutions").remove(0);
        let width = layout(conn, "six-packed", "solutions")["entry_bytes"]
            .as_u64()
            .unwrap() as usize;
        blob[width] = blob[width].wrapping_add(1);
        conn.execute(
            "UPDATE packed_chunks SET data = ?1 WHERE puzzle = 'six-packed' AND kind = 'solutions' AND chunk = 0",
            [blob],
        )
        .unwrap();
    });
    let o = run(&[
        "verify",
        "--db",
        damaged.to_str().unwrap(),
        "--puzzle",
        "six-packed",
    ]);
    let err = assert_clean_failure(&o, 1);
    assert!(
        err.contains("verify: six-packed: rank 1 ")
            && err.contains("solutions chunk 0")
            && err.contains("by its neighbours one move closer"),
        "{err}"
    );
    let state: String = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT state FROM positions WHERE puzzle = 'six' AND rank = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let o = run(&[
        "query",
        "--db",
        damaged.to_str().unwrap(),
        "--puzzle",
        "six-packed",
        "--state",
        &state,
    ]);
    assert!(!o.status.success(), "a changed count is not answered");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
}
