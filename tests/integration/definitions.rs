//! Puzzles as data: the example definitions built with `--definitions`, queried from the
//! file alone, and malformed definitions refused with one line and the file untouched.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

fn manifest(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Runs the binary with neither database nor definitions from the environment.
fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
        .args(args)
        .env_remove("PUZZLEBASE_DB")
        .env_remove("PUZZLEBASE_DEFINITIONS")
        .output()
        .unwrap()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(ok(run(args)).trim()).unwrap()
}

const EXAMPLES: [&str; 6] = [
    "guarini",
    "eight-snail",
    "cross13",
    "square16",
    "knight-tour-5x6",
    "hoppers",
];

/// The examples (and, for comparison, the built-in hoppers) generated once through the
/// command line, with the definitions given by the environment variable.
fn examples_db() -> &'static Path {
    static DB: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("examples.sqlite");
        let mut args = vec!["generate", "--quiet", "--db", path.to_str().unwrap()];
        for name in EXAMPLES {
            args.extend(["--puzzle", name]);
        }
        let out = Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
            .args(&args)
            .env("PUZZLEBASE_DEFINITIONS", manifest("data/puzzles/examples"))
            .output()
            .unwrap();
        ok(out);
        (dir, path)
    });
    path
}

fn db() -> &'static str {
    examples_db().to_str().unwrap()
}

#[test]
fn guarini_takes_the_published_16_moves() {
    let a = json(&[
        "query",
        "--db",
        db(),
        "--puzzle",
        "guarini",
        "--start",
        "--json",
    ]);
    assert_eq!(a["distance"], 16, "Guarini's problem: 16 moves");
    let path: Vec<&str> = a["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(path.first(), Some(&"W-W---B-B"));
    assert_eq!(path.last(), Some(&"B-B---W-W"));
    // Every step moves one knight one knight's move on the 3x3 board.
    for w in path.windows(2) {
        let (a, b) = (w[0].as_bytes(), w[1].as_bytes());
        let diff: Vec<usize> = (0..9).filter(|&i| a[i] != b[i]).collect();
        assert_eq!(diff.len(), 2, "{w:?}");
        let (p, q) = (diff[0], diff[1]);
        let (dr, dc) = ((p / 3).abs_diff(q / 3), (p % 3).abs_diff(q % 3));
        assert!(matches!((dr, dc), (1, 2) | (2, 1)), "{w:?}");
        assert_eq!(a[p], b[q]);
    }
}

/// Distances to `goal` over every arrangement of the 3x3 sliding puzzle, by a plain
/// breadth-first search over strings: an independent check of the stored table.
fn snail_by_strings(goal: &str) -> std::collections::HashMap<String, u32> {
    let mut dist = std::collections::HashMap::new();
    dist.insert(goal.to_string(), 0);
    let mut queue = VecDeque::from([goal.to_string()]);
    while let Some(s) = queue.pop_front() {
        let d = dist[&s];
        let b = s.find('0').unwrap();
        let (r, c) = (b / 3, b % 3);
        let mut next = Vec::new();
        if r > 0 {
            next.push(b - 3);
        }
        if r < 2 {
            next.push(b + 3);
        }
        if c > 0 {
            next.push(b - 1);
        }
        if c < 2 {
            next.push(b + 1);
        }
        for t in next {
            let mut v = s.clone().into_bytes();
            v.swap(b, t);
            let v = String::from_utf8(v).unwrap();
            if !dist.contains_key(&v) {
                dist.insert(v.clone(), d + 1);
                queue.push_back(v);
            }
        }
    }
    dist
}

#[test]
fn sliding_puzzle_with_another_goal_agrees_with_a_string_search() {
    let dist = snail_by_strings("123804765");
    assert_eq!(dist.len(), 181_440, "half of 9! reach any goal");
    let max = *dist.values().max().unwrap();
    let mut farthest: Vec<&str> = dist
        .iter()
        .filter(|&(_, &d)| d == max)
        .map(|(s, _)| s.as_str())
        .collect();
    farthest.sort();
    let l = json(&[
        "query",
        "--db",
        db(),
        "--puzzle",
        "eight-snail",
        "--longest",
        "--json",
    ]);
    assert_eq!(l["distance"], max);
    let mut stored: Vec<&str> = l["states"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    stored.sort();
    assert_eq!(stored, farthest);
    // The usual goal lies in the other parity class: no path to the snail.
    let out = run(&[
        "query",
        "--db",
        db(),
        "--puzzle",
        "eight-snail",
        "--state",
        "123456780",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let h = json(&[
        "query",
        "--db",
        db(),
        "--puzzle",
        "eight-snail",
        "--histogram",
        "--json",
    ]);
    let total: u64 = h["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total, 181_440);
    let mut keys: Vec<&str> = dist.keys().map(String::as_str).collect();
    keys.sort();
    for s in [farthest[0], keys[0], keys[100_000], "123804765"] {
        let a = json(&[
            "query",
            "--db",
            db(),
            "--puzzle",
            "eight-snail",
            "--state",
            s,
            "--json",
        ]);
        assert_eq!(a["distance"], dist[s], "{s}");
        assert_eq!(a["path"].as_array().unwrap().last().unwrap(), "123804765");
    }
}

/// Plays the moves of a peg answer on a board given by its stored layout-free rules:
/// checks each position of the path follows from the previous by the stated move.
fn check_peg_answer(a: &Value, holes: usize, finish: usize) {
    let path: Vec<&str> = a["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(path.len(), moves.len() + 1);
    assert_eq!(a["distance"].as_u64().unwrap() as usize, moves.len());
    for (i, mv) in moves.iter().enumerate() {
        let mv: Vec<usize> = mv
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_u64().unwrap() as usize)
            .collect();
        let before = path[i].as_bytes();
        let after = path[i + 1].as_bytes();
        // A chain of k jumps by one peg removes k pegs and moves the jumper.
        let pegs = |s: &[u8]| s.iter().filter(|&&c| c == b'1').count();
        assert_eq!(pegs(before) - pegs(after), mv.len() - 1, "move {mv:?}");
        assert_eq!(before[mv[0]], b'1');
        assert_eq!(after[*mv.last().unwrap()], b'1');
    }
    let last = path.last().unwrap().as_bytes();
    assert_eq!(last.len(), holes);
    let pegs: Vec<usize> = (0..holes).filter(|&i| last[i] == b'1').collect();
    assert_eq!(pegs, [finish]);
}

#[test]
fn own_peg_boards_solve_and_the_cross_matches_hoppers() {
    let sq = json(&[
        "query",
        "--db",
        db(),
        "--puzzle",
        "square16",
        "--start",
        "--json",
    ]);
    check_peg_answer(&sq, 16, 5);
    assert_eq!(sq["state"], "1111101111111111");
    // Hoppers turned by 45 degrees: seed 001's figures, 7 moves and 72 solutions.
    let cross = json(&[
        "query",
        "--db",
        db(),
        "--puzzle",
        "cross13",
        "--start",
        "--json",
    ]);
    check_peg_answer(&cross, 13, 6);
    assert_eq!(cross["distance"], 7);
    assert_eq!(cross["solutions"], 72);
    let hop = json(&[
        "query",
        "--db",
        db(),
        "--puzzle",
        "hoppers",
        "--layers",
        "--json",
    ]);
    let cl = json(&[
        "query",
        "--db",
        db(),
        "--puzzle",
        "cross13",
        "--layers",
        "--json",
    ]);
    assert_eq!(
        hop["layers"], cl["layers"],
        "isomorphic boards have equal layers"
    );
}

#[test]
fn knight_tours_of_5x6_match_the_published_count() {
    let a = json(&[
        "query",
        "--db",
        db(),
        "--puzzle",
        "knight-tour-5x6",
        "--all",
        "--json",
    ]);
    // OEIS A175881 (closed knight's tours on a 6 x n board), n = 5: 8.
    assert_eq!(a["count"], 8);
    let mut seen = HashSet::new();
    for t in a["states"].as_array().unwrap() {
        let sq: Vec<usize> = t
            .as_str()
            .unwrap()
            .split(' ')
            .map(|s| s.parse().unwrap())
            .collect();
        assert_eq!(sq.len(), 30);
        assert_eq!(sq.iter().collect::<HashSet<_>>().len(), 30);
        for i in 0..30 {
            let (a, b) = (sq[i], sq[(i + 1) % 30]);
            let (dr, dc) = ((a / 6).abs_diff(b / 6), (a % 6).abs_diff(b % 6));
            assert!(matches!((dr, dc), (1, 2) | (2, 1)), "{a}->{b}");
        }
        assert!(seen.insert(sq));
    }
}

#[test]
fn users_puzzles_need_no_file_after_generate_and_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keep.sqlite");
    let p = path.to_str().unwrap();
    let defs = manifest("data/puzzles/examples");
    ok(run(&[
        "generate",
        "-q",
        "--db",
        p,
        "--definitions",
        defs.to_str().unwrap(),
        "--puzzle",
        "guarini",
    ]));
    // Without the definitions, generate keeps guarini (rebuilt from the stored
    // definition, unchanged so copied) and adds the built-in six.
    ok(run(&["generate", "-q", "--db", p, "--puzzle", "six"]));
    let list = ok(run(&["list", "--db", p]));
    assert!(list.contains("guarini"), "{list}");
    assert!(list.contains("six"), "{list}");
    let a = json(&[
        "query", "--db", p, "--puzzle", "guarini", "--start", "--json",
    ]);
    assert_eq!(a["distance"], 16);
    // The stored definition carries the drawing layout in the puzzle's cell order.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let d: String = conn
        .query_row(
            "SELECT definition FROM puzzles WHERE name = 'guarini'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let d: Value = serde_json::from_str(&d).unwrap();
    assert_eq!(d["layout"]["cells"].as_array().unwrap().len(), 9);
    assert_eq!(d["layout"]["cells"][4], serde_json::json!([1.0, 1.0]));
    // Knight's moves on 3x3: 8 edges around the ring, none to the centre.
    assert_eq!(d["layout"]["edges"].as_array().unwrap().len(), 8);
    // Unknown names still fail as usage errors.
    let out = run(&["query", "--db", p, "--puzzle", "nosuch", "--start"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_definition_reports_the_plan() {
    let f = manifest("data/puzzles/examples/guarini.toml");
    let a = json(&["check-definition", f.to_str().unwrap(), "--json"]);
    assert_eq!(a["puzzle"], "guarini");
    assert_eq!(a["family"], "tokens");
    // C(9,4) occupied sets x C(4,2) colourings.
    assert_eq!(a["states"], 756);
    assert_eq!(a["storage"], "positions");
    let text = ok(run(&["check-definition", f.to_str().unwrap()]));
    assert!(text.contains("estimate:"), "{text}");
    let f = manifest("data/puzzles/eleven.toml");
    let a = json(&["check-definition", f.to_str().unwrap(), "--json"]);
    assert_eq!(a["states"], 239_500_800u64);
    assert_eq!(a["storage"], "packed");
    // Up to 2^22 ranks, rows that a plain SELECT reads; packed when the definition asks.
    for (file, storage) in [
        ("data/puzzles/nine.toml", "positions"),
        ("tests/fixtures/definitions/nine-packed.toml", "packed"),
    ] {
        let a = json(&[
            "check-definition",
            manifest(file).to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(
            (a["states"].as_u64(), a["storage"].as_str()),
            (Some(1_814_400), Some(storage)),
            "{file}"
        );
    }
}

/// Every malformed fixture: the line it names and words of the message.
const BAD: [(&str, usize, &str); 20] = [
    ("unknown-family", 3, "unknown family \"hexagon\""),
    (
        "unknown-key",
        4,
        "unknown key `row`: the sliding family reads: rows, cols",
    ),
    ("self-adjacent", 5, "cell 1 is adjacent to itself"),
    ("missing-cell", 5, "adjacent to 5, which is not a cell"),
    ("asymmetric-edge", 5, "edge 0-2 is not symmetric"),
    ("goal-not-permutation", 8, "not a permutation of the pieces"),
    ("too-many-holes", 4, "72 holes; a bitboard holds at most 64"),
    (
        "state-space-too-large",
        4,
        "10461394944000 ranks, too large for packed storage",
    ),
    ("jump-off-board", 5, "over 2 to 7 leaves the board"),
    ("not-toml", 5, "expected `,`"),
    (
        "storage-unknown",
        16,
        "storage \"compressed\": a sliding puzzle may ask for \"rows\"",
    ),
    ("hanoi-no-discs", 5, "0 discs; give 1 to 64"),
    ("hanoi-two-pegs", 4, "2 pegs; the puzzle needs 3 to 26"),
    (
        "hanoi-bad-start",
        6,
        "'E' is not a peg; the pegs are A to C",
    ),
    (
        "lights-grid-too-large",
        5,
        "562949953421312 ranks, too large for packed storage",
    ),
    (
        "lights-unsolvable-start",
        6,
        "cannot be solved: no presses turn it off",
    ),
    (
        "cycle-point-missing",
        5,
        "move \"b\" names point 4, which does not exist (points are 0 to 3)",
    ),
    ("cycle-point-twice", 5, "move \"a\" names point 1 twice"),
    (
        "rank-order-twice",
        6,
        "cell 3 is listed twice; `rank_order` lists every cell 0..=8 once",
    ),
    (
        "twist-wrong-length",
        6,
        "move \"a\": twist lists 3 values for 4 points",
    ),
];

fn one_line_error(out: &Output, file: &Path, line: usize, words: &str) {
    assert_eq!(out.status.code(), Some(1), "{file:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let prefix = format!("puzzlebase: {}:{line}: ", file.display());
    assert!(
        err.starts_with(&prefix),
        "{err} does not start with {prefix}"
    );
    assert!(err.contains(words), "{err} does not say {words}");
    assert!(out.stdout.is_empty());
}

#[test]
fn malformed_definitions_give_one_line_and_leave_the_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kept.sqlite");
    let p = path.to_str().unwrap();
    ok(run(&["generate", "-q", "--db", p, "--puzzle", "oshidori"]));
    let before = std::fs::read(&path).unwrap();
    for (name, line, words) in BAD {
        let file = manifest(&format!("tests/fixtures/definitions/bad/{name}.toml"));
        let out = run(&["check-definition", file.to_str().unwrap()]);
        one_line_error(&out, &file, line, words);
        // The same file among a user's definitions: generate refuses before writing.
        let defs = dir.path().join(format!("defs-{name}"));
        std::fs::create_dir(&defs).unwrap();
        let copy = defs.join(format!("{name}.toml"));
        std::fs::copy(&file, &copy).unwrap();
        let out = run(&[
            "generate",
            "-q",
            "--db",
            p,
            "--definitions",
            defs.to_str().unwrap(),
        ]);
        one_line_error(&out, &copy, line, words);
        assert_eq!(std::fs::read(&path).unwrap(), before, "{name}");
    }
}

#[test]
fn a_users_puzzle_may_not_take_a_built_in_name() {
    let dir = tempfile::tempdir().unwrap();
    let defs = dir.path().join("defs");
    std::fs::create_dir(&defs).unwrap();
    let text = std::fs::read_to_string(manifest("data/puzzles/examples/guarini.toml"))
        .unwrap()
        .replace("name = \"guarini\"", "name = \"eight\"");
    let file = defs.join("eight.toml");
    std::fs::write(&file, text).unwrap();
    let path = dir.path().join("db.sqlite");
    let out = run(&[
        "generate",
        "-q",
        "--db",
        path.to_str().unwrap(),
        "--definitions",
        defs.to_str().unwrap(),
    ]);
    let line = 4; // the `name` line of guarini.toml
    one_line_error(&out, &file, line, "built-in puzzle");
    assert!(!path.exists());
}
