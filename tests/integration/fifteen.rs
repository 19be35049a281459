//! `fifteen` end to end: the 6-6-3 pattern databases built by `generate`, read back and
//! checked, optimal solutions of Korf's easier instances and of positions near the goal
//! (against a plain breadth-first search), and the refusals.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use puzzlebase::{Database, LoadedTables, solve_loaded};

use crate::korf::korf100;
use crate::util::{assert_clean_failure, damaged_copy, generate_into, query_json_in, run};

const NAME: &str = "fifteen";

/// The goal: tiles 1 to 15 in cell order, the blank last.
fn goal() -> Vec<u8> {
    (1..=16).map(|t| (t % 16) as u8).collect()
}

/// The cells of a position in fifteen's notation (tiles in cell order, 0 the blank,
/// commas or spaces between), checked to be an arrangement of the 16 pieces.
fn cells_of(text: &str) -> Vec<u8> {
    let cells: Vec<u8> = (text.split([',', ' ']))
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().unwrap())
        .collect();
    let mut sorted = cells.clone();
    sorted.sort();
    assert_eq!(sorted, (0..16).collect::<Vec<u8>>(), "{text}");
    cells
}

/// Whether the goal can be reached from `cells`: a move keeps the parity of the
/// tiles' inversions plus the blank's row (a row move changes neither, a column move
/// both by an odd number), which is odd at the goal.
fn solvable(cells: &[u8]) -> bool {
    let tiles: Vec<u8> = cells.iter().copied().filter(|&t| t != 0).collect();
    let inversions = (0..tiles.len())
        .flat_map(|i| (i + 1..tiles.len()).map(move |j| (i, j)))
        .filter(|&(i, j)| tiles[i] > tiles[j])
        .count();
    let blank_row = cells.iter().position(|&t| t == 0).unwrap() / 4;
    (inversions + blank_row) % 2 == 1
}

/// A file holding `fifteen` with its default (6-6-3) tables, built once per test run.
pub fn db() -> &'static Path {
    static DB: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fifteen.sqlite");
        generate_into(&path, &[NAME], false);
        (dir, path)
    });
    path
}

fn tables() -> &'static LoadedTables {
    static T: OnceLock<LoadedTables> = OnceLock::new();
    T.get_or_init(|| {
        Database::open(db())
            .unwrap()
            .pattern_tables(NAME, None, true)
            .unwrap()
    })
}

/// Korf's instances, turned to this goal, with their published optimal lengths.
fn korf() -> Vec<(u32, u32, Vec<u8>)> {
    (korf100().into_iter())
        .map(|k| (k.number, k.length, k.cells))
        .collect()
}

fn cells_text(cells: &[u8]) -> String {
    cells
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Asserts that `path` is a chain of single moves on the 4x4 ending at the goal.
fn assert_moves(path: &[Vec<u8>]) {
    for w in path.windows(2) {
        let a = w[0].iter().position(|&v| v == 0).unwrap();
        let b = w[1].iter().position(|&v| v == 0).unwrap();
        let adjacent = (a / 4 == b / 4 && a.abs_diff(b) == 1) || a.abs_diff(b) == 4;
        let mut undone = w[1].clone();
        undone.swap(a, b);
        assert!(adjacent && undone == w[0], "{:?} -> {:?}", w[0], w[1]);
    }
    assert_eq!(path.last().unwrap(), &goal());
}

#[test]
fn korf_data_is_the_published_list() {
    let all = korf();
    assert_eq!(all.len(), 100);
    assert_eq!(all.iter().map(|k| k.1).sum::<u32>(), 5305);
    for (id, _, cells) in &all {
        // A permutation of 0..15 in the solvable class, once turned to this goal.
        assert_eq!(&cells_of(&cells_text(cells)), cells, "instance {id}");
        assert!(solvable(cells), "instance {id}");
    }
    assert_eq!((all[0].0, all[0].1), (1, 57));
}

#[test]
fn easier_korf_instances_have_their_published_lengths() {
    // The ten instances with the fewest nodes in Korf's own run.
    for id in [12, 16, 42, 55, 79, 9, 19, 47, 48, 93] {
        let (_, published, cells) = &korf()[id - 1];
        let a = solve_loaded(tables(), NAME, cells).unwrap();
        assert_eq!(a.distance, *published, "instance {id}");
        let path: Vec<Vec<u8>> = a.path.iter().map(|s| cells_of(s)).collect();
        assert_eq!(path.len(), *published as usize + 1);
        assert_eq!(&path[0], cells);
        assert_moves(&path);
    }
}

/// Breadth-first search from the goal over whole 4x4 positions, to `depth` moves: each
/// position with its distance, in the order reached.
fn near_goal(depth: u8) -> Vec<(Vec<u8>, u8)> {
    let mut seen = HashSet::from([goal()]);
    let mut order = vec![(goal(), 0u8)];
    let mut frontier = vec![goal()];
    for d in 1..=depth {
        let mut next = Vec::new();
        for cells in &frontier {
            let blank = cells.iter().position(|&t| t == 0).unwrap();
            let (row, col) = (blank / 4, blank % 4);
            let beside = [
                (row > 0).then(|| blank - 4),
                (row < 3).then(|| blank + 4),
                (col > 0).then(|| blank - 1),
                (col < 3).then(|| blank + 1),
            ];
            for to in beside.into_iter().flatten() {
                let mut moved = cells.clone();
                moved.swap(blank, to);
                if seen.insert(moved.clone()) {
                    order.push((moved.clone(), d));
                    next.push(moved);
                }
            }
        }
        frontier = next;
    }
    order
}

#[test]
fn positions_near_the_goal_match_breadth_first_search() {
    let near = near_goal(14);
    let mut by_depth = vec![0; 15];
    for (cells, d) in near.iter().step_by(97) {
        let a = solve_loaded(tables(), NAME, cells).unwrap();
        assert_eq!(a.distance, *d as u32, "{}", cells_text(cells));
        by_depth[*d as usize] += 1;
    }
    assert!(by_depth[10..].iter().all(|&n| n > 0), "{by_depth:?}");
}

#[test]
fn query_answers_with_an_optimal_path_nodes_and_seconds() {
    let (_, published, cells) = &korf()[78]; // instance 79, 42 moves
    let a = query_json_in(
        db(),
        &["--puzzle", "fifteen", "--state", &cells_text(cells)],
    );
    assert_eq!(a["distance"], *published);
    assert_eq!(a["partition"], "6-6-3");
    assert!(a["nodes"].as_u64().unwrap() > 0 && a["seconds"].as_f64().is_some());
    let path: Vec<Vec<u8>> = (a["path"].as_array().unwrap().iter())
        .map(|s| cells_of(s.as_str().unwrap()))
        .collect();
    assert_moves(&path);
    // Spaces as separators, and text output.
    let spaced = cells
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let db = db().to_str().unwrap();
    let o = run(&[
        "query", "--db", db, "--puzzle", "fifteen", "--state", &spaced,
    ]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("distance:  42") && text.contains("nodes expanded"),
        "{text}"
    );
}

#[test]
fn bad_fifteen_queries_are_refused_cleanly() {
    let db = db().to_str().unwrap();
    let q = |args: &[&str]| {
        let mut all = vec!["query", "--db", db, "--puzzle", "fifteen"];
        all.extend_from_slice(args);
        run(&all)
    };
    // Two tiles swapped: the wrong parity.
    let err = assert_clean_failure(&q(&["--state", "2,1,3,4,5,6,7,8,9,10,11,12,13,14,15,0"]), 1);
    assert!(
        err.contains("cannot be solved") && err.contains("parity"),
        "{err}"
    );
    for (state, why) in [
        ("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", "expected 16 cells"),
        ("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,15", "appears twice"),
        ("1,2,3,4,5,6,7,8,9,10,11,12,13,14,16,0", "out of range"),
        ("1,2,3,4,5,6,7,8,9,10,11,12,13,14,x,0", "not a number"),
    ] {
        let err = assert_clean_failure(&q(&["--state", state]), 2);
        assert!(err.contains(why), "{state}: {err}");
    }
    for option in ["--longest", "--histogram"] {
        let err = assert_clean_failure(&q(&[option]), 2);
        assert!(
            err.contains("no") && err.contains("pattern databases"),
            "{err}"
        );
    }
    assert_clean_failure(&q(&["--start"]), 2);
    let list = String::from_utf8(run(&["list", "--db", db]).stdout).unwrap();
    assert!(
        list.lines()
            .any(|l| l.starts_with("fifteen") && l.contains("patterns")),
        "{list}"
    );
    let err = assert_clean_failure(
        &run(&[
            "generate",
            "--db",
            db,
            "--puzzle",
            "fifteen",
            "--partition",
            "5-5-5",
        ]),
        2,
    );
    assert!(err.contains("unknown partition"), "{err}");
}

/// All of Korf's 100 instances with the 6-6-3 tables (a few seconds in release; the
/// bench prints the same with timings): `cargo test --release -- --ignored korf_100`.
#[test]
#[ignore]
fn korf_100_with_the_default_tables() {
    let mut total = 0;
    for (id, published, cells) in korf() {
        let a = solve_loaded(tables(), NAME, &cells).unwrap();
        assert_eq!(a.distance, published, "instance {id}");
        total += a.distance;
    }
    assert_eq!(total, 5305);
}

/// `verify` on a copy of the file with one byte of a pattern table changed: the table,
/// the placement and the rule it breaks are named, exit 1 (the damage tests' style).
#[test]
fn verify_names_a_changed_pattern_table_byte() {
    let (_dir, damaged) = damaged_copy(db(), |conn| {
        let select = "SELECT data FROM packed_chunks WHERE puzzle = 'fifteen' AND kind = 'pattern-0' AND chunk = 1";
        let mut data: Vec<u8> = conn.query_row(select, [], |r| r.get(0)).unwrap();
        // Placement rank 4007 (byte 7 of chunk 1) is not home, so it may not hold 0.
        assert_ne!(data[7], 0);
        data[7] = 0;
        conn.execute(
            "UPDATE packed_chunks SET data = ?1 WHERE puzzle = 'fifteen' AND kind = 'pattern-0' AND chunk = 1",
            [data],
        )
        .unwrap();
    });
    let o = run(&[
        "verify",
        "--db",
        damaged.to_str().unwrap(),
        "--puzzle",
        NAME,
    ]);
    let err = assert_clean_failure(&o, 1);
    assert!(
        err.contains("verify: fifteen: pattern-0 (partition 6-6-3 pattern 0)"),
        "{err}"
    );
    assert!(err.contains("placement 4007 holds 0"), "{err}");
}

/// `verify` reads the tables once and checks each while the next is read: a chunk
/// missing from a later table is named, and where an earlier table is also wrong, the
/// earlier one is the failure reported, as when they were checked one after another.
/// A table with no chunks at all is named by its first chunk.
#[test]
fn verify_reports_the_first_table_found_wrong() {
    let missing =
        "DELETE FROM packed_chunks WHERE puzzle = 'fifteen' AND kind = 'pattern-1' AND chunk = 5";
    let verify = |damaged: &std::path::Path| {
        run(&[
            "verify",
            "--db",
            damaged.to_str().unwrap(),
            "--puzzle",
            NAME,
        ])
    };
    let (_dir, damaged) = damaged_copy(db(), |conn| {
        assert_eq!(conn.execute(missing, []).unwrap(), 1);
    });
    let err = assert_clean_failure(&verify(&damaged), 1);
    assert!(err.contains("pattern-1 chunk 5: missing"), "{err}");

    let (_dir, damaged) = damaged_copy(db(), |conn| {
        assert_eq!(conn.execute(missing, []).unwrap(), 1);
        let select = "SELECT data FROM packed_chunks WHERE puzzle = 'fifteen' AND kind = 'pattern-0' AND chunk = 1";
        let mut data: Vec<u8> = conn.query_row(select, [], |r| r.get(0)).unwrap();
        data[7] = 0;
        conn.execute(
            "UPDATE packed_chunks SET data = ?1 WHERE puzzle = 'fifteen' AND kind = 'pattern-0' AND chunk = 1",
            [data],
        )
        .unwrap();
    });
    let err = assert_clean_failure(&verify(&damaged), 1);
    assert!(
        err.contains("pattern-0 (partition 6-6-3 pattern 0)"),
        "{err}"
    );
    assert!(err.contains("placement 4007 holds 0"), "{err}");

    // A table in the middle and the last one, each with no chunks.
    for kind in ["pattern-1", "pattern-2"] {
        let (_dir, damaged) = damaged_copy(db(), |conn| {
            let gone =
                format!("DELETE FROM packed_chunks WHERE puzzle = 'fifteen' AND kind = '{kind}'");
            assert!(conn.execute(&gone, []).unwrap() >= 1);
        });
        let err = assert_clean_failure(&verify(&damaged), 1);
        assert!(err.contains(&format!("{kind} chunk 0: missing")), "{err}");
    }
}

/// The tables are read in parts by several threads: a chunk missing or cut short in
/// any part (the first, read over the query's own connection, or the last, over
/// another) makes `query` refuse the file, exit 1, rather than search with a hole.
#[test]
fn query_refuses_tables_with_a_chunk_missing_or_short_in_any_part() {
    let chunks: i64 = {
        let conn = rusqlite::Connection::open(db()).unwrap();
        conn.query_row(
            "SELECT chunks FROM packed_tables WHERE puzzle = 'fifteen' AND kind = 'pattern-0'",
            [],
            |r| r.get(0),
        )
        .unwrap()
    };
    let state = cells_text(&korf()[11].2);
    let damages = [
        "DELETE FROM packed_chunks WHERE puzzle = 'fifteen' AND kind = 'pattern-0' AND chunk = 3"
            .to_string(),
        format!(
            "DELETE FROM packed_chunks WHERE puzzle = 'fifteen' AND kind = 'pattern-0' AND chunk = {}",
            chunks - 2
        ),
        format!(
            "UPDATE packed_chunks SET data = substr(data, 1, 100) WHERE puzzle = 'fifteen' AND kind = 'pattern-0' AND chunk = {}",
            chunks / 2 + 1
        ),
    ];
    for damage in damages {
        let (_dir, damaged) = damaged_copy(db(), |conn| {
            assert_eq!(conn.execute(&damage, []).unwrap(), 1, "{damage}");
        });
        let o = run(&[
            "query",
            "--db",
            damaged.to_str().unwrap(),
            "--puzzle",
            NAME,
            "--state",
            &state,
        ]);
        let err = assert_clean_failure(&o, 1);
        assert!(err.contains("inconsistent"), "{damage}: {err}");
    }
}

/// `check-definition` on the built-in file names its pattern tables and their sizes.
#[test]
fn check_definition_lists_the_pattern_tables() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/data/puzzles/fifteen.toml");
    let o = run(&["check-definition", file]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("storage:   patterns"), "{text}");
    // P(16, 6) = 5,765,760 placements of six tiles; P(16, 8) = 518,918,400 of eight.
    assert!(
        text.contains("table:     partition 6-6-3 pattern 0 (tiles 1,2,5,6,9,10): 5765760 entries, a byte each (built with --partition)"),
        "{text}"
    );
    assert!(
        text.contains("table:     partition 7-8 pattern 0 (tiles 1,2,3,4,5,6,7,8): 518918400 entries, a byte each\n"),
        "{text}"
    );
}

/// `verify` on a fresh file re-derives every entry of the 6-6-3 tables with
/// `pattern::check` and passes (about 40 s of CPU, so not in the default run):
/// `cargo test -- --ignored verify_passes`.
#[test]
#[ignore]
fn verify_passes_on_fresh_fifteen_tables() {
    let o = run(&["verify", "--db", db().to_str().unwrap(), "--puzzle", NAME]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        text.starts_with("fifteen ") && text.contains(" ok "),
        "{text}"
    );
    // `stored` is the figure `list` prints: the tables' entries, each pattern's tiles
    // and the blank placed, 2 x 16!/9! + 16!/12! = 115,358,880.
    assert!(text.contains("stored   115,358,880"), "{text}");
}

/// A user's puzzle with `partitions` (the 3x3 split 4-4) is generated from its file and
/// then answered by search from its stored definition alone: `867254301` is 31 moves
/// from the goal, as the full table of `eight` says.
#[test]
fn a_users_pattern_puzzle_is_answered_by_search() {
    let dir = tempfile::tempdir().unwrap();
    let defs = dir.path().join("defs");
    std::fs::create_dir(&defs).unwrap();
    std::fs::write(
        defs.join("eight-patterns.toml"),
        "name = \"eight-patterns\"\nfamily = \"sliding\"\nrows = 3\ncols = 3\ndefault_partition = \"4-4\"\n\n[partitions]\n\"4-4\" = [[1, 2, 4, 5], [3, 6, 7, 8]]\n",
    )
    .unwrap();
    let db = dir.path().join("p.sqlite");
    let db = db.to_str().unwrap();
    let o = run(&[
        "generate",
        "--db",
        db,
        "--quiet",
        "--puzzle",
        "eight-patterns",
        "--definitions",
        defs.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_dir_all(&defs).unwrap();
    let o = run(&[
        "query",
        "--db",
        db,
        "--puzzle",
        "eight-patterns",
        "--state",
        "8,6,7,2,5,4,3,0,1",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["distance"], 31);
    assert_eq!(v["partition"], "4-4");
    assert_eq!(v["path"].as_array().unwrap().len(), 32);
}

/// The server answers `fifteen` by the same search as `query`: the puzzle's page says
/// so and has a 4x4 board to draw, a position's answer is `query --json`'s with every
/// legal move (the path's next one at one move less), and the wrong parity is a 422.
#[test]
fn the_server_answers_by_search() {
    let addr = crate::serve::start_server(db());
    let get = |path: &str| {
        let (status, _, body) = crate::serve::raw_at(addr, path.as_bytes(), "GET");
        (
            status,
            serde_json::from_slice::<serde_json::Value>(&body).unwrap(),
        )
    };
    let (status, page) = get("/api/puzzles/fifteen");
    assert_eq!(status, 200);
    assert_eq!(page["answered_by"], "search");
    assert_eq!(page["layout"]["cells"].as_array().unwrap().len(), 16);
    let state = "1,2,3,4,5,6,7,8,9,10,0,11,13,14,15,12";
    let (status, a) = get(&format!("/api/puzzles/fifteen/positions/{state}"));
    assert_eq!(status, 200);
    let q = query_json_in(db(), &["--puzzle", NAME, "--state", state]);
    assert_eq!(a["distance"], q["distance"]);
    assert_eq!(a["distance"], 2);
    assert_eq!(a["path"], q["path"]);
    let moves = a["legal_moves"].as_array().unwrap();
    assert_eq!(moves.len(), 4);
    assert_eq!(moves[0]["state"], a["path"][1]);
    assert_eq!(moves[0]["distance"], 1);
    let (status, e) = get("/api/puzzles/fifteen/positions/2,1,3,4,5,6,7,8,9,10,11,12,13,14,15,0");
    assert_eq!(status, 422, "{e}");
}

/// Every legal move of a position answered by search carries its distance: one less or
/// one more (a move changes a sliding puzzle's distance by exactly one), each the
/// distance a search of that position finds, and at least one is one less.
#[test]
fn every_legal_move_carries_its_distance() {
    let database = Database::open(db()).unwrap();
    let easy: Vec<_> = korf().into_iter().filter(|k| k.1 <= 45).take(2).collect();
    let goal = goal();
    for (id, published, cells) in easy
        .iter()
        .map(|(i, p, c)| (*i, *p as u64, c.clone()))
        .chain([(0, 0, goal)])
    {
        let v = puzzlebase::json::position_until(
            &database,
            NAME,
            &cells_text(&cells),
            &puzzlebase::Stop::default(),
        )
        .unwrap();
        assert_eq!(v["distance"], published, "instance {id}");
        let moves = v["legal_moves"].as_array().unwrap();
        assert!(moves.len() >= 2);
        for m in moves {
            let d = m["distance"].as_u64().unwrap();
            let next = cells_of(m["state"].as_str().unwrap());
            assert_eq!(
                d,
                solve_loaded(tables(), NAME, &next).unwrap().distance as u64
            );
            assert!(d + 1 == published || d == published + 1, "instance {id}");
        }
        assert_eq!(
            moves
                .iter()
                .any(|m| m["distance"].as_u64().unwrap() + 1 == published),
            published > 0
        );
    }
}

/// The 17 positions that need 80 moves (`data/fifteen/hardest80.txt`), each solved
/// optimally in 80 moves from the default file's 7-8 tables, with the time each took.
#[test]
#[ignore = "builds the default 7-8 tables (about 4 minutes, 4.4 GiB) and then searches the 17 hardest positions (about a minute): cargo test --release --test integration hardest -- --ignored"]
fn hardest_positions_need_80_moves() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fifteen.sqlite");
    let out = run(&[
        "generate",
        "-q",
        "--db",
        path.to_str().unwrap(),
        "--puzzle",
        NAME,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let loaded = Database::open(&path)
        .unwrap()
        .pattern_tables(NAME, None, true)
        .unwrap();
    assert_eq!(loaded.partition.name, "7-8", "the default file's partition");
    let all: Vec<Vec<u8>> = include_str!("../../data/fifteen/hardest80.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(cells_of)
        .collect();
    assert_eq!(all.len(), 17);
    for cells in &all {
        let a = solve_loaded(&loaded, NAME, cells).unwrap();
        assert_eq!(a.distance, 80, "{}", cells_text(cells));
        let path: Vec<Vec<u8>> = a.path.iter().map(|s| cells_of(s)).collect();
        assert_moves(&path);
        eprintln!(
            "{}: 80 moves, {:.3} s, {} nodes",
            cells_text(cells),
            a.seconds,
            a.expanded
        );
    }
}
