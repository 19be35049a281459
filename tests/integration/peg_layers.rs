//! Peg boards stored as layers, the French boards' storage: a small board asked to be
//! stored so (`storage = "layers"`) answers every query exactly as its twin stored a
//! row per position, and passes `verify`. The French boards themselves are built by the
//! ignored test here (most of an hour each), named in the README.

use std::path::Path;

use rusqlite::Connection;

use puzzlebase::PegBoard as Board;

use crate::util::{assert_clean_failure, assert_replays, peg_board, query_json_in, run};

/// A copy of the built-in board `name` as a user's definition `<name>-layers` stored as
/// layers.
fn layers_twin(dir: &Path, name: &str) {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("data/puzzles/{name}.toml")),
    )
    .unwrap();
    let text = text.replace(
        &format!("name = \"{name}\""),
        &format!("name = \"{name}-layers\"\nstorage = \"layers\""),
    );
    std::fs::write(dir.join(format!("{name}-layers.toml")), text).unwrap();
}

/// A query's JSON answer without the puzzle's name; a path (with its moves) is checked
/// to replay on `board` as an optimal solution and left out, since either storage may
/// pick another of the optimal moves.
fn answer(db: &Path, board: &Board, puzzle: &str, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--puzzle", puzzle];
    all.extend_from_slice(args);
    let mut a = query_json_in(db, &all);
    if a.get("path").is_some() {
        assert_replays(board, &a);
        assert_eq!(
            a["path"].as_array().unwrap().len() as u64,
            a["distance"].as_u64().unwrap() + 1
        );
    }
    let o = a.as_object_mut().unwrap();
    for key in ["puzzle", "path", "moves"] {
        o.remove(key);
    }
    a
}

#[test]
fn boards_stored_as_layers_answer_as_their_row_twins() {
    let dir = tempfile::tempdir().unwrap();
    let defs = dir.path().join("defs");
    std::fs::create_dir(&defs).unwrap();
    let boards = ["hoppers", "triangle21", "chinese-checkers"];
    let mut args = vec!["generate", "-q", "--db", "", "--definitions", ""];
    let db = dir.path().join("layers.sqlite");
    let db_text = db.to_str().unwrap().to_string();
    let defs_text = defs.to_str().unwrap().to_string();
    args[3] = &db_text;
    args[5] = &defs_text;
    let names: Vec<String> = boards.iter().map(|b| format!("{b}-layers")).collect();
    for (b, n) in boards.iter().zip(&names) {
        layers_twin(&defs, b);
        args.extend(["--puzzle", b, "--puzzle", n.as_str()]);
    }
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let conn = Connection::open(&db).unwrap();
    for (b, n) in boards.iter().zip(&names) {
        let board = peg_board(b);
        let storage: String = conn
            .query_row("SELECT storage FROM puzzles WHERE name = ?1", [n], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(storage, "peg-layers");
        for q in [
            &["--start"][..],
            &["--longest"],
            &["--layers"],
            &["--histogram"],
        ] {
            assert_eq!(
                answer(&db, &board, b, q),
                answer(&db, &board, n, q),
                "{b}: {q:?}"
            );
        }
        // Positions the rows twin stores with a distance, and one it does not store.
        let mut st = conn
            .prepare(
                "SELECT state FROM positions WHERE puzzle = ?1 AND distance IS NOT NULL \
                 ORDER BY rank",
            )
            .unwrap();
        let states: Vec<String> = st
            .query_map([b], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let step = (states.len() / 40).max(1);
        let reader = puzzlebase::Database::open(&db).unwrap();
        for s in states.iter().step_by(step) {
            let rows = answer(&db, &board, b, &["--state", s]);
            assert_eq!(rows, answer(&db, &board, n, &["--state", s]), "{b}: {s}");
            // The server's (and the readers') legal moves, with the distances they lead
            // to, read from the layers as from the rows.
            let moves = reader.moves(b, s).unwrap();
            assert!(moves.is_empty() || moves[0].distance.is_some(), "{b}: {s}");
            assert_eq!(moves, reader.moves(n, s).unwrap(), "{b}: {s}");
        }
        let nowhere = "0".repeat(states[0].len() - 1) + "1";
        for p in [b, &n.as_str()] {
            let o = run(&[
                "query", "--db", &db_text, "--puzzle", p, "--state", &nowhere,
            ]);
            let err = assert_clean_failure(&o, 1);
            assert!(
                err.contains("cannot finish") || err.contains("not reachable"),
                "{err}"
            );
        }
    }
    let o = run(&["verify", "--db", &db_text]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// J.-C. Meyrignac's enumeration of the French board from c1 (hole 0 empty), level by
/// level: the (board, hole of the peg that moved last) pairs after n jumps, n = 0 ..
/// 35, the start counted once. Published at euler.free.fr/PegInfos.htm ("Level Number
/// of positions", 2002-2003); their sum is 22,920,760,254, the widest 3,489,271,180.
const MEYRIGNAC_C1: [u64; 36] = [
    1,
    2,
    6,
    38,
    247,
    1_567,
    9_447,
    52_619,
    266_503,
    1_222_832,
    5_045_205,
    18_529_153,
    60_017_521,
    169_761_224,
    415_258_622,
    871_660_237,
    1_562_039_335,
    2_386_129_986,
    3_114_294_699,
    3_489_271_180,
    3_373_298_887,
    2_826_004_451,
    2_057_204_360,
    1_302_499_674,
    716_618_159,
    341_762_350,
    140_698_472,
    49_626_092,
    14_851_056,
    3_725_988,
    767_077,
    125_736,
    16_010,
    1_444,
    70,
    4,
];

#[test]
#[ignore]
fn french37_c1_reaches_meyrignacs_figures() {
    let dir = tempfile::tempdir().unwrap();
    let db = match std::env::var_os("PUZZLEBASE_FRENCH_DB") {
        Some(p) => std::path::PathBuf::from(p),
        None => {
            let db = dir.path().join("french.sqlite");
            let o = run(&[
                "generate",
                "-q",
                "--db",
                db.to_str().unwrap(),
                "--puzzle",
                "french37-c1",
            ]);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            db
        }
    };
    let a = query_json_in(&db, &["--puzzle", "french37-c1", "--layers"]);
    let layers = a["layers"].as_array().unwrap();
    assert_eq!(
        layers.len(),
        36,
        "one layer per peg count from 36 down to 1"
    );
    // Layers come fewest pegs first; level n has 36 - n pegs.
    let pairs: Vec<u64> = (layers.iter().rev())
        .map(|l| l["reachable_pairs"].as_u64().unwrap())
        .collect();
    assert_eq!(pairs, MEYRIGNAC_C1);
    assert_eq!(pairs.iter().sum::<u64>(), 22_920_760_254);
    assert_eq!(pairs.iter().max(), Some(&3_489_271_180));
    // The plain boards stay as they were counted (and as the hash-set solver checks).
    let reachable: u64 = layers
        .iter()
        .map(|l| l["reachable"].as_u64().unwrap())
        .sum();
    assert_eq!(reachable, 3_049_878_082);
    let start = query_json_in(&db, &["--puzzle", "french37-c1", "--start"]);
    assert!(start["distance"].as_u64().unwrap() > 0);
}
