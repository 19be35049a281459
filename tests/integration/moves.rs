//! Answers people can use (issue 76): the names of the moves along every path of a
//! puzzle whose moves have names, in `query` (text and JSON), the server and the
//! readers' library calls; fifteen's path drawn as grids; random and scrambled
//! positions, reproducible by seed and uniform over the solvable positions; every
//! puzzle's notation in `query --help`; puzzle names in the shell completions; and the
//! words of the refusals and the figures (counts absent by storage, one `stored`).

use std::path::Path;

use puzzlebase::{Database, Move, QueryError, Stop};
use serde_json::Value;

use crate::permutation::permutation_db;
use crate::util::{assert_clean_failure, assert_legal_path, query_json_in, run, shared_db};

fn text_in(db: &Path, args: &[&str]) -> String {
    let mut all = vec!["query", "--db", db.to_str().unwrap()];
    all.extend_from_slice(args);
    let o = run(&all);
    assert!(
        o.status.success(),
        "query {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

fn names(a: &Value) -> Vec<String> {
    (a["moves"]
        .as_array()
        .unwrap_or_else(|| panic!("no moves: {a}"))
        .iter())
    .map(|m| m.as_str().unwrap().to_string())
    .collect()
}

/// Each named move of an answer is the move the puzzle's own legal moves (what the
/// server's `legal_moves` and Python's `db.moves()` list) name for that step.
fn assert_moves_are_the_steps(db: &Path, name: &str, a: &Value) {
    let path: Vec<&str> = (a["path"].as_array().unwrap().iter())
        .map(|s| s.as_str().unwrap())
        .collect();
    let moves = names(a);
    assert_eq!(moves.len() + 1, path.len(), "{name}: {a}");
    let reader = Database::open(db).unwrap();
    for (i, mv) in moves.iter().enumerate() {
        let legal = reader.moves(name, path[i]).unwrap();
        let step = legal.iter().find(|m| m.state == path[i + 1]).unwrap();
        assert_eq!(step.mv, Move::Named(mv.clone()), "{name} step {i}");
    }
}

#[test]
fn cube_paths_come_with_their_moves_in_json_and_text() {
    let db = permutation_db();
    // R then U from solved: undone by exactly one shortest solution, U' then R'.
    let state = "UUFFUBRRRRFDDBDBFDLLLLUB";
    let a = query_json_in(db, &["--puzzle", "cube2", "--state", state]);
    assert_eq!(names(&a), ["U'", "R'"], "{a}");
    let text = text_in(db, &["--puzzle", "cube2", "--state", state]);
    assert!(text.contains("\nmoves:     U' R'\n"), "{text}");
    assert!(text.contains("   1  "), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("   1  ") && l.ends_with("  U'")),
        "{text}"
    );
    // --plain keeps the path's lines to the positions alone.
    let plain = text_in(db, &["--puzzle", "cube2", "--state", state, "--plain"]);
    assert!(plain.contains("\nmoves:     U' R'\n"), "{plain}");
    assert!(!plain.lines().any(|l| l.ends_with("  U'")), "{plain}");
    // The goal: no moves, an empty list.
    let goal = query_json_in(
        db,
        &["--puzzle", "cube2", "--state", "UUUURRRRFFFFDDDDLLLLBBBB"],
    );
    assert_eq!(goal["moves"], serde_json::json!([]));
    // The antipode of --start: eleven named moves, each the step the path takes.
    let s = query_json_in(db, &["--puzzle", "cube2", "--start"]);
    assert_eq!(names(&s).len(), 11);
    assert_moves_are_the_steps(db, "cube2", &s);
}

#[test]
fn pancakes_topspin_lights_and_hanoi_name_their_moves() {
    let db = permutation_db();
    for name in ["pancake-6", "pancake-10", "topspin"] {
        let a = query_json_in(db, &["--puzzle", name, "--start"]);
        assert_legal_path(name, a["path"].as_array().unwrap());
        assert_moves_are_the_steps(db, name, &a);
        let prefix = if name == "topspin" { "turn " } else { "flip " };
        assert!(names(&a).iter().all(|m| m.starts_with(prefix)), "{a}");
    }
    let db = crate::lights_hanoi::db();
    let a = query_json_in(db, &["--puzzle", "lights-out-3", "--start"]);
    // Every light on: 5 presses (OEIS A075464), each a press of one light.
    assert_eq!(names(&a).len(), 5);
    assert!(names(&a).iter().all(|m| m.starts_with("press ")), "{a}");
    assert_moves_are_the_steps(db, "lights-out-3", &a);
    let text = text_in(db, &["--puzzle", "lights-out-3", "--start"]);
    assert!(text.contains("moves:     press "), "{text}");
    assert!(text.contains("; press "), "{text}");
    let a = query_json_in(db, &["--puzzle", "hanoi-3", "--start"]);
    let moves = names(&a);
    // 2^7 - 1 moves; with an odd number of discs the smallest goes first to the target
    // peg, and it moves every other turn.
    assert_eq!(moves.len(), 127);
    assert_eq!(moves[0], "1: A\u{2192}C");
    assert!(moves.iter().step_by(2).all(|m| m.starts_with("1: ")));
    assert_moves_are_the_steps(db, "hanoi-3", &a);
}

#[test]
fn the_server_and_the_library_readers_give_the_same_moves() {
    let db = permutation_db();
    let state = "UUFFUBRRRRFDDBDBFDLLLLUB";
    let addr = crate::serve::start_server(db);
    let target = format!("/api/puzzles/cube2/positions/{state}");
    let (status, _, body) = crate::serve::raw_at(addr, target.as_bytes(), "GET");
    assert_eq!(status, 200);
    let page: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(names(&page), ["U'", "R'"], "{page}");

    let reader = Database::open(db).unwrap();
    let stop = Stop::default();
    let got = reader.path_moves("cube2", state, &stop).unwrap();
    assert_eq!(got, Some(vec!["U'".to_string(), "R'".to_string()]));
    // Sliding tiles have no names: their path tells the moves.
    let e = Database::open(shared_db())
        .unwrap()
        .path_moves("eight", "867254301", &stop)
        .unwrap_err();
    assert!(matches!(e, QueryError::NotApplicable { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("does not answer move names; it answers a position's distance and path"),
        "{e}"
    );
}

#[test]
fn seeded_draws_are_reproducible_and_solvable() {
    let db = permutation_db();
    for (name, how) in [
        ("cube2", "--random"),
        ("topspin", "--random"),
        ("pancake-10", "--random"),
    ] {
        let a = query_json_in(db, &["--puzzle", name, how, "--seed", "7"]);
        let b = query_json_in(db, &["--puzzle", name, how, "--seed", "7"]);
        assert_eq!(a, b, "{name}: the same seed, the same answer");
        assert_eq!(a["seed"], 7);
        assert!(a["distance"].is_u64(), "{a}");
        assert_legal_path(name, a["path"].as_array().unwrap());
        let c = query_json_in(db, &["--puzzle", name, how, "--seed", "8"]);
        assert_ne!(
            a["state"], c["state"],
            "{name}: another seed, another position"
        );
    }
    // Every draw is a position with a distance.
    for seed in 0..20 {
        let seed = seed.to_string();
        let a = query_json_in(db, &["--puzzle", "topspin", "--random", "--seed", &seed]);
        assert!(a["distance"].is_u64(), "{a}");
    }
    // A scramble of N moves is at most N from the goal, and as reproducible.
    let a = query_json_in(db, &["--puzzle", "cube2", "--scramble", "5", "--seed", "1"]);
    let b = query_json_in(db, &["--puzzle", "cube2", "--scramble", "5", "--seed", "1"]);
    assert_eq!(a, b);
    assert!(a["distance"].as_u64().unwrap() <= 5, "{a}");
    let zero = query_json_in(db, &["--puzzle", "cube2", "--scramble", "0"]);
    assert_eq!(zero["distance"], 0);
    // An unseeded draw says its seed, which draws it again.
    let text = text_in(db, &["--puzzle", "cube2", "--random"]);
    let seed = (text.lines().next().unwrap().split("--seed ").nth(1))
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{text}"))
        .to_string();
    let again = text_in(db, &["--puzzle", "cube2", "--random", "--seed", &seed]);
    assert_eq!(text, again);
    // --seed alone, a draw beside another question, or a draw of a puzzle without
    // positions to draw is a usage error.
    let d = db.to_str().unwrap();
    for args in [
        &["--puzzle", "cube2", "--state", "x", "--seed", "1"][..],
        &["--puzzle", "cube2", "--random", "--start"],
    ] {
        let o = run(&[&["query", "--db", d][..], args].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("puzzlebase: ") && !err.contains("panicked"),
            "{err}"
        );
    }
    let shared = shared_db().to_str().unwrap();
    let o = run(&[
        "query",
        "--db",
        shared,
        "--puzzle",
        "magic-triangle",
        "--random",
    ]);
    let err = assert_clean_failure(&o, 2);
    // In the library's words, then the command's options for what does apply.
    assert!(
        err.contains(
            "magic-triangle (magic puzzle) does not answer a random position; it answers \
             every solution, the solutions of one side sum or the histogram (query --all, \
             --sum N or --histogram)"
        ),
        "{err}"
    );
}

/// Guarini's problem (`data/puzzles/examples/guarini.toml`): 756 ranks, of which 280
/// positions reach the goal (a knight never enters the centre square). Drawn uniformly
/// from those 280, 28,000 draws land about 100 times on each: every one is solvable,
/// every solvable position comes up, and Pearson's chi-square over the 280 counts is
/// below its 0.1 % critical value (279 degrees of freedom: about 352). Fixed seeds: the
/// same draws every run.
#[test]
fn random_positions_are_uniform_over_the_solvable_ones() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("guarini.sqlite");
    crate::util::generate_example(&db, "guarini");
    let reader = Database::open(&db).unwrap();
    let stop = Stop::default();
    let draws = 28_000u64;
    let mut seen = std::collections::HashMap::<String, u64>::new();
    for seed in 0..draws {
        let s = reader.random_position("guarini", seed).unwrap();
        *seen.entry(s).or_default() += 1;
    }
    for s in seen.keys() {
        assert!(
            reader.distance("guarini", s, &stop).unwrap().is_some(),
            "{s}"
        );
    }
    assert_eq!(seen.len(), 280);
    let e = draws as f64 / 280.0;
    let chi: f64 = seen.values().map(|&o| (o as f64 - e).powi(2) / e).sum();
    assert!(
        chi < 352.0,
        "chi-square {chi:.1} over 280 positions: not uniform"
    );
}

#[test]
fn fifteen_paths_are_drawn_as_grids_and_scrambles_answered_by_search() {
    let db = crate::fifteen::db();
    let text = text_in(
        db,
        &["--puzzle", "fifteen", "--scramble", "12", "--seed", "4"],
    );
    assert!(
        text.starts_with("drawn:     the goal after 12 random moves, seed 4"),
        "{text}"
    );
    // The goal's grid: four rows of four cells, the blank last.
    assert!(
        text.contains(" 1   2   3   4") || text.contains("1  2  3  4"),
        "{text}"
    );
    let steps = text
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && l.contains(','))
        .count();
    let a = query_json_in(
        db,
        &["--puzzle", "fifteen", "--scramble", "12", "--seed", "4"],
    );
    assert!(a["distance"].as_u64().unwrap() <= 12, "{a}");
    assert_eq!(steps, a["path"].as_array().unwrap().len(), "{text}");
    // Plain keeps one line per position.
    let plain = text_in(
        db,
        &[
            "--puzzle",
            "fifteen",
            "--scramble",
            "12",
            "--seed",
            "4",
            "--plain",
        ],
    );
    assert!(plain.lines().count() < text.lines().count(), "{plain}");
}

#[test]
fn query_help_lists_every_built_in_puzzle_with_its_notation() {
    let o = run(&["query", "--help"]);
    assert!(o.status.success());
    let help = String::from_utf8(o.stdout).unwrap();
    for name in puzzlebase::puzzle_names() {
        assert!(
            help.contains(&format!("\n  {name} ")),
            "{name} missing:\n{help}"
        );
    }
    assert!(help.contains("moves: U U2 U' R R2 R' F F2 F'"), "{help}");
    assert!(help.contains("UUUURRRLFFBFDDDDLLLRBBFB"), "{help}");
    // The short help points at the long one.
    let o = run(&["query", "-h"]);
    let short = String::from_utf8(o.stdout).unwrap();
    assert!(short.contains("puzzlebase query --help"), "{short}");
}

#[test]
fn shell_completions_offer_the_puzzle_names() {
    for shell in ["bash", "zsh", "fish"] {
        let o = run(&["completions", shell]);
        assert!(o.status.success(), "{shell}");
        let script = String::from_utf8(o.stdout).unwrap();
        for name in puzzlebase::puzzle_names() {
            assert!(script.contains(&name), "{shell}: {name} is not completed");
        }
    }
    // Any name is still taken: a user's puzzle is found in the file.
    let o = run(&[
        "query",
        "--db",
        "/nonexistent/x.sqlite",
        "--puzzle",
        "mine",
        "--start",
    ]);
    let err = assert_clean_failure(&o, 1);
    assert!(!err.contains("invalid value"), "{err}");
}

#[test]
fn refusals_and_figures_in_the_puzzles_terms() {
    let db = permutation_db();
    let text = text_in(db, &["--puzzle", "pancake-10", "--start"]);
    assert!(
        text.contains(
            "solutions: not stored: pancake-10 is stored as a two-bit table, which keeps distances only"
        ),
        "{text}"
    );
    // One corner turned in place: named, in the cube's terms.
    let d = db.to_str().unwrap();
    let o = run(&[
        "query",
        "--db",
        d,
        "--puzzle",
        "cube2",
        "--state",
        "UUUFURRRFRFFDDDDLLLLBBBB",
    ]);
    let err = assert_clean_failure(&o, 1);
    assert!(
        err.contains("is twisted") && err.contains("corner"),
        "{err}"
    );
    assert!(!err.contains("point"), "{err}");
    // `list` and `verify` give the same number under the same word.
    let o = run(&["list", "--db", d]);
    let list = String::from_utf8(o.stdout).unwrap();
    let o = run(&["verify", "--db", d, "--puzzle", "topspin"]);
    assert!(o.status.success());
    let verify = String::from_utf8(o.stdout).unwrap();
    let listed = (list.lines().find(|l| l.starts_with("topspin ")))
        .and_then(|l| l.split_whitespace().nth(3))
        .unwrap()
        .to_string();
    assert!(list.lines().next().unwrap().contains("stored"), "{list}");
    assert!(
        verify.contains(&format!("stored {listed:>13}")),
        "{verify}\n{list}"
    );
}
