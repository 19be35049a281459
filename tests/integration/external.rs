//! A family defined outside the crate (`examples/pancake/`), through the public API
//! alone: registered at run time, generated, answered, verified and served by this
//! process; refused with one line by the `puzzlebase` command, which does not know it,
//! while plain SQL still reads its rows.

#[path = "../../examples/pancake/pancake.rs"]
mod pancake;
#[path = "../../examples/pancake/run.rs"]
mod run;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use puzzlebase::{Database, Definition, GraphFamily, Histogram, Move, RegisterError, Solutions};

use crate::util::{assert_clean_failure, run as cli};

/// The pancake family, registered once for the whole test process (registration lasts
/// as long as the process; a second one of the same name is refused).
fn registered() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| puzzlebase::register_family(pancake::FAMILY).expect("registers"));
}

/// A file holding `pancakes-6` and `pancakes-7`, generated once by the example's own
/// program code (`run.rs`): the second run carries the first stack over, rebuilt from its
/// stored definition through the registered family. Returns the file and what the
/// program printed.
fn shared() -> &'static (PathBuf, String) {
    static FILE: OnceLock<(tempfile::TempDir, (PathBuf, String))> = OnceLock::new();
    &FILE
        .get_or_init(|| {
            registered();
            let dir = tempfile::tempdir().unwrap();
            let db = dir.path().join("pancakes.sqlite");
            let mut out = Vec::new();
            run::run(&db, 6, &mut out).unwrap_or_else(|e| panic!("pancakes-6: {e}"));
            run::run(&db, 7, &mut out).unwrap_or_else(|e| panic!("pancakes-7: {e}"));
            (dir, (db, String::from_utf8(out).unwrap()))
        })
        .1
}

/// Positions per number of flips from sorted, by a breadth-first search of its own over
/// stacks as vectors (no ranks, no puzzlebase): the figures the file must hold.
fn flips_by_bfs(n: u8) -> (Vec<u64>, Vec<String>) {
    let sorted: Vec<u8> = (1..=n).collect();
    let mut dist: HashMap<Vec<u8>, usize> = HashMap::from([(sorted.clone(), 0)]);
    let mut level = vec![sorted];
    let mut counts = vec![1u64];
    loop {
        let mut next = Vec::new();
        for s in &level {
            for k in 2..=n as usize {
                let mut t = s.clone();
                t[..k].reverse();
                if !dist.contains_key(&t) {
                    dist.insert(t.clone(), counts.len());
                    next.push(t);
                }
            }
        }
        if next.is_empty() {
            let mut longest: Vec<String> = (level.iter())
                .map(|s| s.iter().map(|d| char::from(b'0' + d)).collect())
                .collect();
            longest.sort();
            return (counts, longest);
        }
        counts.push(next.len() as u64);
        level = next;
    }
}

fn histogram(db: &Database, name: &str) -> Vec<u64> {
    match db.histogram(name).unwrap() {
        Histogram::ByDistance(rows) => rows.iter().map(|r| r.positions).collect(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_family_outside_the_crate_is_generated_answered_and_verified() {
    let (db_path, printed) = shared();
    let db = Database::open(db_path).unwrap();

    // OEIS A092113, "Triangle read by rows: T(n,k) is the number of stacks of n pancakes
    // requiring k flips to sort": rows n = 6 and 7.
    let (bfs6, longest6) = flips_by_bfs(6);
    assert_eq!(
        histogram(&db, "pancakes-6"),
        [1, 5, 20, 79, 199, 281, 133, 2]
    );
    assert_eq!(histogram(&db, "pancakes-6"), bfs6);
    let (bfs7, longest7) = flips_by_bfs(7);
    assert_eq!(
        histogram(&db, "pancakes-7"),
        [1, 6, 30, 149, 543, 1357, 1903, 1016, 35]
    );
    assert_eq!(histogram(&db, "pancakes-7"), bfs7);

    // MathWorld, "Pancake Sorting": the two stacks of six pancakes that need the maximum
    // of seven flips are (4,6,2,5,1,3) and (5,3,6,1,4,2) (OEIS A058986: 7 for n = 6, 8
    // for n = 7; A067607: 2 and 35 stacks at the maximum).
    let longest = db.longest("pancakes-6").unwrap();
    assert_eq!(longest.distance, 7);
    assert_eq!(longest.states, ["462513", "536142"]);
    assert_eq!(longest.states, longest6);
    let longest = db.longest("pancakes-7").unwrap();
    assert_eq!((longest.distance, longest.states.len()), (8, 35));
    let mut states = longest.states.clone();
    states.sort();
    assert_eq!(states, longest7);

    // The built-in permutation family's `pancake-7` (data/puzzles/pancake-7.toml, sizes
    // from 0) is the same puzzle by another code path: the same histogram, and the same
    // hardest stacks.
    let dir = tempfile::tempdir().unwrap();
    let builtin = dir.path().join("builtin.sqlite");
    crate::util::generate_into(&builtin, &["pancake-7"], false);
    let other = Database::open(&builtin).unwrap();
    assert_eq!(histogram(&other, "pancake-7"), bfs7);
    for s in &longest.states {
        let from_zero: Vec<String> = s.bytes().map(|b| (b - b'1').to_string()).collect();
        let from_zero = from_zero.join(" ");
        assert_eq!(
            other.state("pancake-7", &from_zero).unwrap().distance,
            8,
            "{s}"
        );
    }

    // A position's answer: its path is one flip a step, to the sorted stack.
    let a = db.state("pancakes-6", "4 6 2 5 1 3").unwrap();
    assert_eq!((a.state.as_str(), a.distance), ("462513", 7));
    assert!(matches!(a.solutions, Solutions::Exactly(n) if n >= 1));
    assert_eq!(a.path.len(), 8);
    assert_eq!(a.path.last().unwrap(), "123456");
    for step in a.path.windows(2) {
        let k = (0..6)
            .rev()
            .find(|&i| step[0].as_bytes()[i] != step[1].as_bytes()[i])
            .unwrap()
            + 1;
        let mut flipped = step[0].clone().into_bytes();
        flipped[..k].reverse();
        assert_eq!(flipped, step[1].as_bytes(), "{} -> {}", step[0], step[1]);
    }
    // The legal moves carry the family's own names.
    let moves = db.moves("pancakes-6", "462513").unwrap();
    let mut names: Vec<String> = (moves.iter())
        .map(|m| match &m.mv {
            Move::Named(n) => n.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    names.sort();
    assert_eq!(names, ["flip 2", "flip 3", "flip 4", "flip 5", "flip 6"]);
    let next = moves.iter().find(|m| m.state == a.path[1]).unwrap();
    assert_eq!(next.distance, Some(6));
    let bad = db.state("pancakes-6", "462511").unwrap_err().to_string();
    assert!(bad.contains("each size from 1 to 6 once"), "{bad}");

    // verify re-derives both stacks from the registered rules.
    let reports = puzzlebase::verify_file(db_path, &[], &mut |_| {}).unwrap();
    let verified: Vec<(&str, u64, Option<u32>)> = (reports.iter())
        .map(|r| (r.puzzle.as_str(), r.solvable, r.max_distance))
        .collect();
    assert_eq!(
        verified,
        [("pancakes-6", 720, Some(7)), ("pancakes-7", 5040, Some(8))]
    );

    // What the example program printed.
    assert!(
        printed.contains("pancakes-7: 35 stacks 8 flips from sorted"),
        "{printed}"
    );
    assert!(
        printed.contains("verified pancakes-7: 5040 positions"),
        "{printed}"
    );
}

/// The `puzzlebase` command has not registered the family: each question about its
/// puzzles is one line naming the family, exit 1; plain SQL still reads the rows.
#[test]
fn a_program_without_the_family_refuses_with_one_line() {
    let (db_path, _) = shared();
    let db = db_path.to_str().unwrap();
    for args in [
        vec![
            "query",
            "--db",
            db,
            "--puzzle",
            "pancakes-6",
            "--state",
            "462513",
        ],
        vec![
            "query",
            "--db",
            db,
            "--puzzle",
            "pancakes-6",
            "--histogram",
            "--json",
        ],
        vec!["verify", "--db", db, "--puzzle", "pancakes-7"],
    ] {
        let line = assert_clean_failure(&cli(&args), 1);
        assert!(line.contains("\"pancake\""), "{args:?}: {line}");
        assert!(line.contains("registers it"), "{args:?}: {line}");
    }
    // generate would drop the stacks it cannot rebuild: it refuses and leaves the file.
    let before = std::fs::read(db_path).unwrap();
    let o = cli(&["generate", "--db", db, "--puzzle", "pancakes-6", "--quiet"]);
    let line = assert_clean_failure(&o, 1);
    assert!(line.contains("\"pancake\""), "{line}");
    assert_eq!(std::fs::read(db_path).unwrap(), before);

    let conn = rusqlite::Connection::open(db_path).unwrap();
    let d: i64 = conn
        .query_row(
            "SELECT distance FROM positions WHERE puzzle = 'pancakes-6' AND state = '462513'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(d, 7);
}

/// The registry's rules: a family's name is its own, a definition is held to the keys
/// the family lists, and a puzzle that misnames itself or drops its spec is refused.
#[test]
fn registration_and_definitions_are_checked() {
    registered();
    let family = |name: &'static str| GraphFamily {
        name,
        ..pancake::FAMILY
    };
    assert_eq!(
        puzzlebase::register_family(family("sliding")),
        Err(RegisterError::BuiltIn("sliding".into()))
    );
    assert_eq!(
        puzzlebase::register_family(pancake::FAMILY),
        Err(RegisterError::Registered("pancake".into()))
    );
    assert_eq!(
        puzzlebase::register_family(family("Pancake")),
        Err(RegisterError::Name("Pancake".into()))
    );

    let refusal = |text: &str| {
        Definition::from_toml("p.toml", text)
            .err()
            .expect("refused")
            .to_string()
    };
    let head = "name = \"p\"\nfamily = \"pancake\"\n";
    assert_eq!(
        refusal(&format!("{head}pancakes = 12\n")),
        "p.toml:3: 12 pancakes: a stack has 2 to 9 (a digit each)"
    );
    assert_eq!(
        refusal(&format!("{head}pancakes = 4\nsyrup = true\n")),
        "p.toml:4: unknown key `syrup`: the pancake family reads: pancakes, start"
    );
    assert_eq!(
        refusal(&format!("{head}pancakes = 4\nrows = 2\n")),
        "p.toml:4: key `rows` does not apply to the pancake family (it reads: pancakes, start)"
    );
    let e = refusal(&format!("{head}pancakes = 4\nstart = \"1224\"\n"));
    assert!(e.starts_with("p.toml:4: malformed state \"1224\""), "{e}");
    let e = refusal(&format!("{head}pancakes = \"four\"\n"));
    assert!(e.starts_with("p.toml:3: "), "{e}");
    let e = refusal("name = \"eight\"\nfamily = \"pancake\"\npancakes = 4\n");
    assert!(e.contains("is a built-in puzzle"), "{e}");
    let ok = Definition::from_toml("p.toml", &format!("{head}pancakes = 4\nstart = \"2413\"\n"));
    assert_eq!(ok.unwrap().name(), "p");

    // A family whose puzzle breaks the registry's promises is refused with a problem.
    puzzlebase::register_family(GraphFamily {
        name: "pancake-misnamed",
        keys: &["pancakes"],
        build: |spec| {
            let mut other = spec.clone();
            other.name = "someone-else".into();
            other.family = "pancake".into();
            (pancake::FAMILY.build)(&other)
        },
    })
    .unwrap();
    let e = refusal("name = \"p\"\nfamily = \"pancake-misnamed\"\npancakes = 4\n");
    assert!(e.contains("names itself \"someone-else\""), "{e}");
}

/// The server of a program that registered the family serves its puzzles: the puzzle's
/// page data (its layout) and a position with its named moves.
#[test]
fn the_server_serves_the_family() {
    let (db_path, _) = shared();
    let addr = crate::serve::start_server(Path::new(db_path));
    let get = |path: &str| {
        let r = crate::http::request(addr, "GET", path, &[]);
        assert_eq!(
            r.status,
            200,
            "{path}: {}",
            String::from_utf8_lossy(&r.body)
        );
        r.json()
    };
    let puzzle = get("/api/puzzles/pancakes-6");
    assert_eq!(puzzle["family"], "pancake", "{puzzle}");
    let position = get("/api/puzzles/pancakes-6/positions/462513");
    assert_eq!(position["distance"], 7, "{position}");
    let moves = position["legal_moves"].to_string();
    assert!(moves.contains("flip 6"), "{moves}");
}
