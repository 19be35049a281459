//! Sliding blocks end to end: Klotski (`klotski`, `klotski-step`) generated into a file
//! and asked like any tabulated puzzle, against the published figures, and Rush Hour
//! (`rush-hour`), whose boards are answered by searching their clusters, against
//! Michael Fogleman's hardest boards; both served and verified.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::serve::{ok_at, start_server};
use crate::util::{assert_clean_failure, assert_legal_path, assert_verifies, generate_into, run};

const BUILT: &[&str] = &["klotski", "klotski-step", "rush-hour"];

/// Klotski's standard start ("heng dao li ma").
const START: &str = "BAAB/BAAB/BCCB/BDDB/D..D";
/// Fogleman's hardest boards: without walls, and with one.
const HARDEST: &str = "BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM.";
const HARDEST_WALL: &str = "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM";

/// The file of [`BUILT`], generated once per run (the browser tests serve it too).
pub fn db() -> &'static Path {
    static DB: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blocks.sqlite");
        generate_into(&path, BUILT, false);
        (dir, path)
    });
    path
}

fn query(args: &[&str]) -> Value {
    crate::util::query_json_in(db(), args)
}

fn query_fails(args: &[&str], code: i32) -> String {
    let mut all = vec!["query", "--db", db().to_str().unwrap()];
    all.extend_from_slice(args);
    assert_clean_failure(&run(&all), code)
}

/// The `list --json` line of `name` (one JSON object a line).
fn listed(name: &str) -> Value {
    let o = run(&["list", "--db", db().to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (String::from_utf8_lossy(&o.stdout).lines())
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["puzzle"] == name)
        .unwrap_or_else(|| panic!("{name} is listed"))
}

/// A 6x6 board of empty cells with `pieces` (cell, letter) on it.
fn board(pieces: &[(usize, char)]) -> String {
    let mut cells = ['.'; 36];
    for &(at, ch) in pieces {
        cells[at] = ch;
    }
    cells.iter().collect()
}

// Klotski's published figures: 65,880 placements of the ten pieces (pieces of one
// shape interchangeable), the standard start 81 moves from the goal when a piece moves
// along any route (`path`), 116 when it moves one cell (`step`).
#[test]
fn klotski_from_the_file_is_81_moves_in_path_and_116_in_step() {
    for (name, moves) in [("klotski", 81), ("klotski-step", 116)] {
        let a = query(&["--puzzle", name, "--state", START]);
        assert_eq!(a["distance"], moves, "{name}");
        let path = a["path"].as_array().unwrap();
        assert_eq!(path.len(), moves + 1, "{name}");
        assert_eq!(path[0], START);
        assert_legal_path(name, path);
        // The goal: the 2x2 at the bottom centre.
        let rows: Vec<&str> = path.last().unwrap().as_str().unwrap().split('/').collect();
        assert_eq!(
            (&rows[3][1..3], &rows[4][1..3]),
            ("AA", "AA"),
            "{name}: {rows:?}"
        );
        assert_eq!(query(&["--puzzle", name, "--start"])["distance"], moves);
        assert_eq!(listed(name)["states"], 65_880, "{name}");
    }
}

#[test]
fn klotski_longest_and_histogram_agree() {
    for name in ["klotski", "klotski-step"] {
        let h = query(&["--puzzle", name, "--histogram"]);
        let h: Vec<u64> = (h["histogram"].as_array().unwrap().iter())
            .map(|v| v.as_u64().unwrap())
            .collect();
        let longest = query(&["--puzzle", name, "--longest"]);
        assert_eq!(longest["distance"], h.len() as u64 - 1, "{name}");
        assert_eq!(longest["count"], *h.last().unwrap(), "{name}");
        let solvable: u64 = h.iter().sum();
        assert_eq!(listed(name)["solvable"], solvable, "{name}");
        // The start's component (25,955 placements) is among the solvable ones.
        assert!((25_955..=65_880).contains(&solvable), "{name}: {solvable}");
        for s in longest["states"].as_array().unwrap().iter().take(3) {
            let a = query(&["--puzzle", name, "--state", s.as_str().unwrap()]);
            assert_eq!(a["distance"], longest["distance"]);
        }
    }
}

#[test]
fn klotski_refuses_a_malformed_position_in_one_line() {
    let err = query_fails(
        &["--puzzle", "klotski", "--state", "BAAB/BAAB/BCCB/BDDB"],
        2,
    );
    assert!(err.contains("4 rows; the board has 5"), "{err}");
    let err = query_fails(
        &["--puzzle", "klotski", "--state", "BAAB/BAAB/BCCB/BDDB/DDDD"],
        2,
    );
    assert!(err.contains("6 pieces 'D'; the puzzle has 4"), "{err}");
}

// Fogleman's hardest boards, searched: 51 moves in a cluster of 4,780 positions (no
// walls) and 60 in one of 2,332 (one wall).
#[test]
fn rush_hour_answers_foglemans_hardest_boards() {
    for (board, moves, cluster) in [(HARDEST, 51, 4_780), (HARDEST_WALL, 60, 2_332)] {
        let a = query(&["--puzzle", "rush-hour", "--state", board]);
        assert_eq!(a["distance"], moves, "{board}");
        assert_eq!(a["cluster"], cluster, "{board}");
        let path = a["path"].as_array().unwrap();
        assert_eq!(path.len(), moves + 1);
        assert_eq!(a["moves"].as_array().unwrap().len(), moves);
        // The red car ends at the exit: the last two cells of the third row.
        let last = path.last().unwrap().as_str().unwrap();
        assert_eq!(&last[16..18], "AA", "{last}");
        assert_eq!(a["solutions_stored"], false);
    }
    // `.` and `o` are both empty; the answer writes `o`.
    let a = query(&["--puzzle", "rush-hour", "--start"]);
    assert_eq!(a["state"], HARDEST.replace('.', "o"));
    assert_eq!(a["distance"], 51);
    // The text answer names the cluster and the moves.
    let o = run(&[
        "query",
        "--db",
        db().to_str().unwrap(),
        "--puzzle",
        "rush-hour",
        "--state",
        HARDEST,
        "--plain",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(text.contains("cluster:   4780 positions"), "{text}");
    assert!(text.contains("distance:  51"), "{text}");
}

#[test]
fn rush_hour_refuses_bad_boards_in_one_line() {
    let long = format!("{HARDEST}.");
    let bad = [
        ("AA".to_string(), "36 characters"),
        (long, "this one has 37"),
        (board(&[(0, 'B')]), "piece B has 1 cell"),
        (
            board(&[(0, 'B'), (1, 'B'), (2, 'B'), (3, 'B'), (12, 'A'), (13, 'A')]),
            "piece B has 4 cell",
        ),
        (board(&[]), "no red car"),
        (board(&[(0, 'A'), (1, 'A')]), "third row"),
        (
            board(&[(0, 'B'), (1, 'B'), (6, 'B'), (12, 'A'), (13, 'A')]),
            "bent or split",
        ),
    ];
    for (text, says) in &bad {
        let err = query_fails(&["--puzzle", "rush-hour", "--state", text], 2);
        assert!(err.contains(says), "{text}: {err}");
    }
    // A truck right of the red car on its row: no position of its cluster is solved.
    let stuck = board(&[(12, 'A'), (13, 'A'), (15, 'B'), (16, 'B'), (17, 'B')]);
    let err = query_fails(&["--puzzle", "rush-hour", "--state", &stuck], 1);
    assert!(err.contains("cannot be solved"), "{err}");
    assert!(err.contains("cluster"), "{err}");
    // Nothing is tabulated: what needs a table is refused, saying how boards are answered.
    let err = query_fails(&["--puzzle", "rush-hour", "--longest"], 2);
    assert!(err.contains("no table of every position"), "{err}");
    assert!(err.contains("cluster"), "{err}");
}

/// The cluster's search is bounded as `fifteen`'s is: `--timeout` stops it, in one line
/// (exit 1) that says how to allow more time.
#[test]
fn rush_hour_search_stops_at_its_timeout() {
    // 117,090 positions: tens of milliseconds in a release build.
    let large = "HHoooooooEEoAAoooBGGGooBIDDoooICCoFF";
    let err = query_fails(
        &[
            "--puzzle",
            "rush-hour",
            "--state",
            large,
            "--timeout",
            "0.001",
        ],
        1,
    );
    assert!(
        err.contains("ran out of time") && err.contains("--timeout"),
        "{err}"
    );
}

#[test]
fn verify_passes_on_klotski_and_rush_hour() {
    assert_verifies(db(), BUILT);
}

fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| start_server(db()))
}

fn get(path: &str) -> Value {
    ok_at(server(), path)
}

#[test]
fn the_page_draws_both_boards_and_offers_their_moves() {
    let page = get("/api/puzzles/klotski");
    assert_eq!(page["family"], "blocks");
    assert_eq!(page["layout"]["cells"].as_array().unwrap().len(), 20);
    assert_eq!(page["definition"]["groups"].as_array().unwrap().len(), 4);
    let a = get(&format!(
        "/api/puzzles/klotski/positions/{}",
        START.replace('/', "%2F")
    ));
    assert_eq!(a["distance"], 81);
    // From the start only the singles at the bottom move: each to either empty cell
    // below the horizontal (path metric), and the best is one move closer.
    let moves = a["legal_moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    assert_eq!(moves[0]["distance"], 80);
    for m in moves {
        assert_eq!(m["move"]["from"].as_array().unwrap().len(), 1, "{m}");
    }
    let page = get("/api/puzzles/rush-hour");
    assert_eq!(page["family"], "rush-hour");
    assert_eq!(page["layout"]["cells"].as_array().unwrap().len(), 36);
    let a = get(&format!("/api/puzzles/rush-hour/positions/{HARDEST}"));
    assert_eq!(a["distance"], 51);
    assert_eq!(a["cluster"], 4_780);
    // Every move changes the distance by at most one, and the path's first move is
    // among the best.
    let moves = a["legal_moves"].as_array().unwrap();
    assert_eq!(moves[0]["distance"], 50);
    assert!(
        (moves.iter()).any(|m| m["distance"] == 50 && m["move"]["name"] == a["moves"][0]),
        "{a}"
    );
    assert!((moves.iter()).all(|m| [50, 51, 52].contains(&m["distance"].as_u64().unwrap())));
}

/// A distance alone (what the SQLite extension's `pb_distance` and Python's
/// `db.distance` ask) of a position with no row: Klotski's rank space holds placements
/// that never reach the goal, which have no row and are answered "no distance", as
/// `query --state` answers them, not as damage. Every rank is asked both ways.
#[test]
fn a_distance_alone_agrees_with_the_walk_on_every_klotski_placement() {
    use puzzlebase::{Database, Stop};
    let db = Database::open(db()).unwrap();
    let stop = Stop::default();
    let (mut with, mut without) = (0, 0);
    for rank in 0..65_880 {
        let text = db.unrank("klotski", rank).unwrap();
        let alone = db.distance("klotski", &text, &stop).unwrap();
        let walked = db
            .answer("klotski", &text, &stop)
            .unwrap()
            .map(|a| a.distance);
        assert_eq!(alone, walked, "{text}");
        if alone.is_some() {
            with += 1
        } else {
            without += 1
        }
    }
    // The histogram's total reach the goal; the other placements do not.
    let listed = listed("klotski");
    assert_eq!(with, listed["solvable"].as_u64().unwrap());
    assert_eq!(listed["states"], 65_880);
    assert!(without > 0);
    // The ranks asked are every placement: the next is none.
    assert!(db.unrank("klotski", 65_880).is_err());
}
