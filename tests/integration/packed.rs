//! The packed tables (`eight` and `nine` asked for packed storage here, the fixtures
//! `eight-packed` and `nine-packed`; `eleven` and `twelve` in the ignored tests at the end): read back as
//! another tool would, with plain SQL and the layout documented in the README, and
//! checked against a fresh solve and against the distance invariant.

use rusqlite::Connection;

use crate::util::{
    COUNT_OVERFLOW, UNREACHED, assert_clean_failure, assert_legal_path, graph, histogram_total,
    query_json, query_json_in, run, shared_db, solve_apart,
};

/// A packed distance table decoded with nothing but the README's description: the
/// layout JSON, and per run two bytes (first distance, step bits).
struct Decoded {
    dist: Vec<u8>,
}

fn layout(conn: &Connection, puzzle: &str, kind: &str) -> (serde_json::Value, u64) {
    let (text, chunks): (String, i64) = conn
        .query_row(
            "SELECT layout, chunks FROM packed_tables WHERE puzzle = ?1 AND kind = ?2",
            [puzzle, kind],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    (serde_json::from_str(&text).unwrap(), chunks as u64)
}

/// Every chunk of a packed table, in order (numbered from 0 without gaps).
pub(crate) fn chunks(conn: &Connection, puzzle: &str, kind: &str) -> Vec<Vec<u8>> {
    let mut st = conn
        .prepare(
            "SELECT chunk, data FROM packed_chunks WHERE puzzle = ?1 AND kind = ?2 ORDER BY chunk",
        )
        .unwrap();
    let rows: Vec<(i64, Vec<u8>)> = st
        .query_map([puzzle, kind], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (i, (c, _)) in rows.iter().enumerate() {
        assert_eq!(*c, i as i64, "chunks are numbered from 0 without gaps");
    }
    rows.into_iter().map(|(_, d)| d).collect()
}

/// Distance of position `k` of a run from its two bytes, as the README gives it.
fn run_distance(d0: u8, steps: u8, k: u32) -> u8 {
    let up = (steps as u32 & ((1 << k) - 1)).count_ones();
    (d0 as u32 + 2 * up - k) as u8
}

fn decode_all(conn: &Connection, puzzle: &str) -> Decoded {
    let (l, n) = layout(conn, puzzle, "distance");
    assert_eq!(l["encoding"], "run-steps");
    let block = l["block"].as_u64().unwrap();
    let blocks = l["blocks"].as_u64().unwrap();
    let per = l["blocks_per_chunk"].as_u64().unwrap();
    let runs: Vec<(u64, u64)> = l["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r[0].as_u64().unwrap(), r[1].as_u64().unwrap()))
        .collect();
    let data = chunks(conn, puzzle, "distance");
    assert_eq!(data.len() as u64, n);
    let mut dist = vec![0u8; (block * blocks) as usize];
    for (rank, d) in dist.iter_mut().enumerate() {
        let (b, p) = (rank as u64 / block, rank as u64 % block);
        let (i, &(first, _)) = (runs.iter().enumerate())
            .find(|(_, (f, len))| (*f..f + len).contains(&p))
            .unwrap();
        let off = 2 * ((b % per) as usize * runs.len() + i);
        let chunk = &data[(b / per) as usize];
        *d = if chunk[off] == UNREACHED {
            UNREACHED
        } else {
            run_distance(chunk[off], chunk[off + 1], (p - first) as u32)
        };
    }
    Decoded { dist }
}

/// `eight-packed` and `nine-packed` are stored packed with solution counts: both tables, decoded with
/// the README's rules alone, equal a fresh solve and keep the invariants.
#[test]
fn eight_and_nine_from_the_file_equal_a_fresh_solve_and_keep_the_invariants() {
    let conn = Connection::open(shared_db()).unwrap();
    for name in ["eight-packed", "nine-packed"] {
        packed_with_counts_keeps_the_invariants(&conn, name);
    }
}

/// The seeds' own `eight` and `nine` (up to a few million positions) are rows: the
/// first query a new user writes, a plain `SELECT ... WHERE state = '...'`, answers, and
/// every row holds the distance and count of its packed twin at the same rank.
#[test]
fn eight_and_nine_are_rows_a_plain_select_reads() {
    let conn = Connection::open(shared_db()).unwrap();
    // Seed 001: 867254301 is one of the two positions farthest from the goal, 31 moves.
    let d: i64 = conn
        .query_row(
            "SELECT distance FROM positions WHERE puzzle = 'eight' AND state = '867254301'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(d, 31);
    for (name, size) in [("eight", 181_440usize), ("nine", 1_814_400)] {
        let storage: String = conn
            .query_row("SELECT storage FROM puzzles WHERE name = ?1", [name], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(storage, "positions", "{name}");
        let twin = format!("{name}-packed");
        let packed = decode_all(&conn, &twin);
        let g = graph(name);
        let mut stmt = conn
            .prepare(
                "SELECT rank, state, distance, solutions FROM positions WHERE puzzle = ?1
                 ORDER BY rank",
            )
            .unwrap();
        let rows: Vec<(i64, String, u8, i64)> = stmt
            .query_map([name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows.len(), size, "{name}: a row per position");
        for (i, (rank, state, distance, _)) in rows.iter().enumerate() {
            assert_eq!(*rank, i as i64, "{name}: dense ranks");
            assert_eq!(g.parse(state).unwrap(), i as u64, "{name} {state}");
            assert_eq!(
                *distance, packed.dist[i],
                "{name} {state}: row and {twin} agree"
            );
        }
        // Counts too, through query on the twin (a sample: one process each).
        for (_, state, distance, solutions) in rows.iter().step_by(size / 7) {
            let a = query_json(&["--puzzle", &twin, "--state", state]);
            assert_eq!(
                (a["distance"].as_u64(), a["solutions"].as_u64()),
                (Some(*distance as u64), Some(*solutions as u64)),
                "{twin} {state}"
            );
        }
    }
}

fn packed_with_counts_keeps_the_invariants(conn: &Connection, name: &str) {
    let (storage, counts): (String, bool) = conn
        .query_row(
            "SELECT storage, counts FROM puzzles WHERE name = ?1",
            [name],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((storage.as_str(), counts), ("packed", true), "{name}");
    let stored_rows: i64 = conn
        .query_row(
            "SELECT count(*) FROM positions WHERE puzzle = ?1",
            [name],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        stored_rows, 0,
        "{name}: a packed puzzle has no rows per position"
    );

    let g = graph(name);
    let file = decode_all(conn, name);
    let fresh = solve_apart(g.as_ref());
    assert_eq!(file.dist, fresh.dist, "{name}");

    // Solution counts, `entry_bytes` little-endian bytes per rank, the narrowest of 1, 2,
    // 4 and 8 whose all-ones value is above every count.
    let (l, _) = layout(conn, name, "solutions");
    let width = l["entry_bytes"].as_u64().unwrap() as usize;
    let names = [(1, "u8"), (2, "u16le"), (4, "u32le"), (8, "u64le")];
    assert!(
        names.contains(&(width, l["encoding"].as_str().unwrap())),
        "{l}"
    );
    let per = l["ranks_per_chunk"].as_u64().unwrap() as usize;
    assert_eq!(per * width, 4000);
    let data = chunks(conn, name, "solutions");
    let count: Vec<u64> = (0..file.dist.len())
        .map(|r| {
            let off = width * (r % per);
            let mut le = [0u8; 8];
            le[..width].copy_from_slice(&data[r / per][off..off + width]);
            u64::from_le_bytes(le)
        })
        .collect();
    assert_eq!(count, fresh.count, "{name}");
    let most = *count.iter().max().unwrap();
    let narrowest = (names.iter())
        .map(|&(w, _)| w)
        .find(|&w| w == 8 || most < u64::MAX >> (64 - 8 * w))
        .unwrap();
    assert_eq!(width, narrowest, "{name}: counts up to {most}");
    assert!(
        count.iter().all(|&c| c != COUNT_OVERFLOW && c > 0),
        "{name}"
    );

    // Every distance is 1 + the minimum over the neighbours (0 at the goal only), and
    // every count the sum of the counts of the neighbours one move closer.
    let goal = g.goals()[0];
    let mut nbs = Vec::new();
    for (r, &d) in file.dist.iter().enumerate() {
        nbs.clear();
        g.neighbors(r as u64, &mut nbs);
        if r as u64 == goal {
            assert_eq!((d, count[r]), (0, 1), "{name}");
            continue;
        }
        let best = nbs.iter().map(|&n| file.dist[n as usize]).min().unwrap();
        assert_eq!(d, best + 1, "{name} rank {r}");
        let closer: u64 = (nbs.iter())
            .filter(|&&n| file.dist[n as usize] == best)
            .map(|&n| count[n as usize])
            .sum();
        assert_eq!(count[r], closer, "{name} rank {r}");
    }
}

#[test]
fn one_entry_is_one_sql_read_at_an_offset() {
    let conn = Connection::open(shared_db()).unwrap();
    let g = graph("nine-packed");
    let (l, _) = layout(&conn, "nine-packed", "distance");
    let per = l["blocks_per_chunk"].as_u64().unwrap();
    for state in ["0532194876", "1234567890", "1234506789", "5432109876"] {
        let rank = g.parse(state).unwrap();
        let (b, p) = (rank / 10, rank % 10);
        // Rows of five: run p / 5, position p % 5 within it.
        let (run, k) = (p / 5, p % 5);
        let off = 2 * ((b % per) * 2 + run);
        let entry: Vec<u8> = conn
            .query_row(
                "SELECT substr(data, ?1, 2) FROM packed_chunks
                 WHERE puzzle = 'nine-packed' AND kind = 'distance' AND chunk = ?2",
                [off as i64 + 1, (b / per) as i64],
                |r| r.get(0),
            )
            .unwrap();
        let d = run_distance(entry[0], entry[1], k as u32);
        let a = query_json(&["--puzzle", "nine-packed", "--state", state]);
        assert_eq!(a["distance"], d, "{state}");
    }
}

#[test]
fn nine_packed_answers_from_the_packed_table() {
    let l = query_json(&["--puzzle", "nine-packed", "--longest"]);
    assert_eq!(
        l,
        serde_json::json!({"puzzle": "nine-packed", "distance": 55, "count": 2,
                           "states": ["0532194876", "0937154826"]})
    );
    for s in ["0532194876", "0937154826"] {
        let a = query_json(&["--puzzle", "nine-packed", "--state", s]);
        assert_eq!(a["distance"], 55);
        assert_eq!(a["solutions_stored"], true);
        assert!(a["solutions"].as_u64().unwrap() >= 1);
        let path = a["path"].as_array().unwrap();
        assert_eq!(path.len(), 56);
        assert_legal_path("nine-packed", path);
    }
    // Comma-separated input is accepted too; the answer uses the digits.
    let a = query_json(&["--puzzle", "nine-packed", "--state", "1,2,3,4,5,6,7,8,0,9"]);
    assert_eq!(
        (a["state"].as_str(), a["distance"].as_u64()),
        (Some("1234567809"), Some(1))
    );
    assert_eq!(a["path"], serde_json::json!(["1234567809", "1234567890"]));
    assert_eq!(histogram_total("nine-packed"), 1_814_400);
}

#[test]
fn bad_input_for_the_large_grids() {
    let db = shared_db().to_str().unwrap();
    let q = |puzzle: &str, state: &str| {
        run(&["query", "--db", db, "--puzzle", puzzle, "--state", state])
    };
    let err = assert_clean_failure(&q("nine", "12345"), 2);
    assert!(err.contains("expected 10 cells"), "{err}");
    let err = assert_clean_failure(&q("nine", "2134567890"), 1);
    assert!(err.contains("cannot be solved"), "{err}");
    // Twelve cells need separators: 10 and 11 are not digits.
    let err = assert_clean_failure(&q("eleven", "123456789ab0"), 2);
    assert!(err.contains("unexpected character"), "{err}");
    let err = assert_clean_failure(&q("eleven", "1,2,3,4,5,6,7,8,9,10,11,11"), 2);
    assert!(err.contains("appears twice"), "{err}");
    let err = assert_clean_failure(&q("eleven", "1,2,3,4,5,6,7,8,9,10,11,12"), 2);
    assert!(err.contains("out of range"), "{err}");
    // Well formed, but not generated in this file.
    let err = assert_clean_failure(&q("eleven", "1,2,3,4,5,6,7,8,9,10,0,11"), 1);
    assert!(err.contains("generate --puzzle eleven"), "{err}");
}

#[test]
fn a_damaged_chunk_is_reported_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("damaged.sqlite");
    std::fs::copy(shared_db(), &db).unwrap();
    let damage = |sql: &str, params: &[i64]| {
        let conn = Connection::open(&db).unwrap();
        conn.execute(sql, rusqlite::params_from_iter(params))
            .unwrap();
    };
    let inconsistent = |state: &str| {
        let o = run(&[
            "query",
            "--db",
            db.to_str().unwrap(),
            "--puzzle",
            "nine-packed",
            "--state",
            state,
        ]);
        let err = assert_clean_failure(&o, 1);
        assert!(err.contains("inconsistent"), "{state}: {err}");
    };

    let rank = graph("nine-packed").parse("0532194876").unwrap();
    let (l, _) = layout(&Connection::open(&db).unwrap(), "nine-packed", "distance");
    let per = l["blocks_per_chunk"].as_u64().unwrap();
    damage(
        "UPDATE packed_chunks SET data = zeroblob(length(data))
         WHERE puzzle = 'nine-packed' AND kind = 'distance' AND chunk = ?1",
        &[((rank / 10) / per) as i64],
    );
    inconsistent("0532194876");
    // Another position far from the damage still answers.
    let a = query_json_in(&db, &["--puzzle", "nine-packed", "--state", "1234567809"]);
    assert_eq!(a["distance"], 1);

    // A layout that is well formed but not the puzzle's rows is refused outright.
    damage(
        "UPDATE packed_tables SET layout = json_set(layout, '$.runs', json('[[0,2],[2,3],[5,5]]'))
         WHERE puzzle = 'nine-packed' AND kind = 'distance'",
        &[],
    );
    inconsistent("1234567809");
}

/// The full 3x4 space: about 25 s and half a gigabyte in a release build. Run with
/// `cargo test --release -- --ignored eleven`.
#[test]
#[ignore]
fn eleven_generated_in_full() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("eleven.sqlite");
    crate::util::generate_into(&db, &["eleven"], false);
    let l = query_json_in(&db, &["--puzzle", "eleven", "--longest"]);
    assert_eq!(
        (l["distance"].as_u64(), l["count"].as_u64()),
        (Some(53), Some(18))
    );
    let h = query_json_in(&db, &["--puzzle", "eleven", "--histogram"]);
    let h: Vec<u64> = serde_json::from_value(h["histogram"].clone()).unwrap();
    assert_eq!(h.iter().sum::<u64>(), 239_500_800);
    assert_eq!(h.len(), 54);
    for s in l["states"].as_array().unwrap() {
        let a = query_json_in(&db, &["--puzzle", "eleven", "--state", s.as_str().unwrap()]);
        assert_eq!(a["distance"], 53);
        assert_eq!(a["solutions_stored"], false);
        assert_legal_path("eleven", a["path"].as_array().unwrap());
    }
    sampled_ranks_keep_the_invariant_and_the_file_share(&db, "eleven", 4, 12345);
}

/// For a full 12-cell grid stored packed in runs of `run` cells (its rows): 20,000
/// sampled ranks, each read with one SQL read, keep the invariant (1 + the minimum over
/// the neighbours), and the puzzle's packed chunks take at most 150 MB of the file.
fn sampled_ranks_keep_the_invariant_and_the_file_share(
    db: &std::path::Path,
    name: &str,
    run: u64,
    seed: u64,
) {
    let conn = Connection::open(db).unwrap();
    let g = graph(name);
    let (lay, _) = layout(&conn, name, "distance");
    let per = lay["blocks_per_chunk"].as_u64().unwrap();
    let runs = 12 / run;
    let dist = |rank: u64| -> u8 {
        let (b, p) = (rank / 12, rank % 12);
        let (i, k) = (p / run, p % run);
        let e: Vec<u8> = conn
            .query_row(
                "SELECT substr(data, ?1, 2) FROM packed_chunks
                 WHERE puzzle = ?3 AND kind = 'distance' AND chunk = ?2",
                rusqlite::params![
                    (2 * ((b % per) * runs + i)) as i64 + 1,
                    (b / per) as i64,
                    name
                ],
                |r| r.get(0),
            )
            .unwrap();
        run_distance(e[0], e[1], k as u32)
    };
    let mut nbs = Vec::new();
    let mut x = seed;
    for _ in 0..20_000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = (x >> 11) % g.size();
        nbs.clear();
        g.neighbors(r, &mut nbs);
        let best = nbs.iter().map(|&n| dist(n)).min().unwrap();
        if r != g.goals()[0] {
            assert_eq!(dist(r), best + 1, "{name}: rank {r}");
        }
    }
    // Its share of the file: the packed chunks' pages and their index.
    let pages: i64 = conn
        .query_row(
            "SELECT count(*) FROM packed_chunks WHERE puzzle = ?1",
            [name],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        pages * 4096 <= 150_000_000,
        "{name}: {pages} chunks of one page each"
    );
}

/// The 2x6 puzzle's positions per distance, 0..=80. Terms 0-38 are the data section of
/// OEIS A090167. Its complete table (Jamke's b090167.txt) was not at hand, so the whole
/// sequence is the one published by an independent breadth-first search on a GPU
/// (github.com/lightln2/SlidingTilesSolver, `results/normal_frontier/12-6x2.log`), which
/// agrees with every term OEIS shows, with the total 12!/2, with the widest depth 49 at
/// 13,002,649 and with the radius 80 reached by 2 positions (A151943).
const TWELVE_HISTOGRAM: [u64; 81] = [
    1, 2, 3, 6, 11, 20, 36, 60, 95, 155, 258, 426, 688, 1106, 1723, 2615, 3901, 5885, 8851, 13205,
    19508, 28593, 41179, 58899, 83582, 118109, 165136, 228596, 312542, 423797, 568233, 755727,
    994641, 1296097, 1667002, 2119476, 2660415, 3300586, 4038877, 4877286, 5804505, 6810858,
    7864146, 8929585, 9958080, 10902749, 11716813, 12356080, 12791679, 13002649, 12981651,
    12723430, 12245198, 11572814, 10738102, 9772472, 8720063, 7623133, 6526376, 5459196, 4457799,
    3546306, 2749552, 2068975, 1510134, 1064591, 720002, 464913, 284204, 165094, 89649, 45758,
    21471, 9583, 3829, 1427, 430, 129, 33, 12, 2,
];

/// The OEIS data section of A090167 (distances 0..=38), as printed on the sequence's page.
const A090167_DATA: [u64; 39] = [
    1, 2, 3, 6, 11, 20, 36, 60, 95, 155, 258, 426, 688, 1106, 1723, 2615, 3901, 5885, 8851, 13205,
    19508, 28593, 41179, 58899, 83582, 118109, 165136, 228596, 312542, 423797, 568233, 755727,
    994641, 1296097, 1667002, 2119476, 2660415, 3300586, 4038877,
];

/// The reference histogram is itself checked against what OEIS publishes, so a slip in
/// copying it cannot pass unnoticed.
#[test]
fn the_twelve_reference_histogram_agrees_with_oeis() {
    assert_eq!(TWELVE_HISTOGRAM[..A090167_DATA.len()], A090167_DATA);
    assert_eq!(TWELVE_HISTOGRAM.iter().sum::<u64>(), 239_500_800);
    let widest = (0..81).max_by_key(|&d| TWELVE_HISTOGRAM[d]).unwrap();
    assert_eq!((widest, TWELVE_HISTOGRAM[49]), (49, 13_002_649));
    assert_eq!(TWELVE_HISTOGRAM[80], 2);
}

/// The full 2x6 space, packed like eleven but with distances up to 80. About as long as
/// eleven in a release build: `cargo test --release -- --ignored twelve`.
#[test]
#[ignore]
fn twelve_generated_in_full() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("twelve.sqlite");
    crate::util::generate_into(&db, &["twelve"], false);
    let l = query_json_in(&db, &["--puzzle", "twelve", "--longest"]);
    assert_eq!(
        (l["distance"].as_u64(), l["count"].as_u64()),
        (Some(80), Some(2))
    );
    let h = query_json_in(&db, &["--puzzle", "twelve", "--histogram"]);
    let h: Vec<u64> = serde_json::from_value(h["histogram"].clone()).unwrap();
    assert_eq!(h, TWELVE_HISTOGRAM);
    for s in l["states"].as_array().unwrap() {
        let a = query_json_in(&db, &["--puzzle", "twelve", "--state", s.as_str().unwrap()]);
        assert_eq!(a["distance"], 80);
        assert_legal_path("twelve", a["path"].as_array().unwrap());
    }
    let conn = Connection::open(&db).unwrap();
    let (lay, _) = layout(&conn, "twelve", "distance");
    assert_eq!(lay["runs"], serde_json::json!([[0, 6], [6, 6]]));
    sampled_ranks_keep_the_invariant_and_the_file_share(&db, "twelve", 6, 54321);
}
