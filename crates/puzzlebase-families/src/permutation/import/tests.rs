//! Unit tests of the `.tws` and KPuzzle readers: the pocket cube's published histogram
//! from twsearch's own sample and from cubing.js's own moves (which proves each
//! format's orientation convention), small samples against a breadth-first search
//! over the raw states written here, alike pieces ranked densely, and refusals.

use std::collections::{HashMap, VecDeque};

use super::{Imported, kpuzzle, name_from_stem, tws};
use crate::permutation::{Permutation, spec};
use puzzlebase_core::progress::Silent;
use puzzlebase_core::space::{GraphPuzzle, StateSpace};
use puzzlebase_solvers::bfs::{self, Outputs};

/// The text of a sample kept in `tests/data/` (copies of rokicki/twsearch's
/// `samples/main/*.tws` at commit 268d1a3; each file says so in its first line).
fn sample(name: &str) -> String {
    let path = format!("{}/tests/data/{name}.tws", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

fn engine(def: &Imported, name: &str) -> Permutation {
    let spec = def.to_spec(name, &[]).unwrap();
    spec::permutation(&spec).unwrap_or_else(|e| panic!("{e}"))
}

fn levels(p: &Permutation) -> Vec<u64> {
    bfs::solve_with(p, Outputs::DISTANCES, &Silent)
        .unwrap()
        .levels
}

/// Keeps only the named moves (twips's `--generator-moves`).
fn only(mut def: Imported, names: &[&str]) -> Imported {
    def.moves.retain(|m| names.contains(&m.name.as_str()));
    def
}

/// Wikipedia, "Pocket Cube" (the table of positions by face turns from a fixed
/// corner), 3,674,160 positions; the same figures the `cube2` tests hold.
const POCKET_HTM: [u64; 12] = [
    1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644,
];

#[test]
fn tws_pocket_cube_has_the_published_histogram() {
    let def = only(tws::read(&sample("2x2x2")).unwrap(), &["U", "R", "F"]);
    let p = engine(&def, "2x2x2");
    assert_eq!(
        p.moves().len(),
        9,
        "U, U2, U' and so on: each power one move"
    );
    assert_eq!(p.size(), 3_674_160);
    assert_eq!(p.group_order(), Some(3_674_160));
    assert_eq!(levels(&p), POCKET_HTM);
}

/// The pocket cube's histogram does not tell the two readings of an orientation line
/// apart (read the other way, its moves generate an isomorphic puzzle: same
/// histogram, same orders of every product tried). This four-piece puzzle does: as
/// twsearch reads ksolve's `Move` (readksolve.cpp re-indexes the line by the position
/// a piece reaches, `o'[j] = o[src[j]]`) it has 36 positions, read the other way 972
/// (both counted by `by_hand` below too). cubing.js's `orientationDelta` is listed by
/// the position reached (`applyTransformationDataToKPatternData`), so the same
/// puzzle in KPuzzle JSON gives its deltas re-indexed: 36 again.
const TWISTED: &str = "Set A 4 3\nMove X\nA\n4 2 1 3\n2 1 0 1\nEnd\nMove Y\nA\n2 4 3 1\nEnd\n";

#[test]
fn orientation_lines_are_read_as_twsearch_and_cubing_js_read_them() {
    let def = tws::read(TWISTED).unwrap();
    let count = |d: &Imported| levels(&engine(d, "t")).iter().sum::<u64>();
    assert_eq!(count(&def), 36);
    assert_eq!(by_hand(&def).iter().sum::<u64>(), 36);
    let mut other = def.clone();
    for mv in &mut other.moves {
        for (src, delta) in mv.sets.iter_mut().flatten() {
            // The line as written (by the position left), taken as by the one reached.
            let mut line = vec![0; delta.len()];
            for (j, &s) in src.iter().enumerate() {
                line[s] = delta[j];
            }
            *delta = line;
        }
    }
    assert_eq!(count(&other), 972);
    assert_eq!(by_hand(&other).iter().sum::<u64>(), 972);
    let json = serde_json::json!({
        "orbits": {"A": {"numPieces": 4, "numOrientations": 3}},
        "defaultPattern": {"A": {"pieces": [0, 1, 2, 3], "orientation": [0, 0, 0, 0]}},
        "moves": {
            "X": {"A": {"permutation": [3, 1, 0, 2], "orientation": [1, 1, 2, 0]}},
            "Y": {"A": {"permutation": [1, 3, 2, 0], "orientation": [0, 0, 0, 0]}},
        },
    });
    let k = kpuzzle::read(&json.to_string(), None).unwrap();
    assert_eq!(count(&k), 36);
    // twsearch's `MoveTransformation`: 0-based, listed by the position reached.
    let t = "Set A 4 3\nMoveTransformation X\nA\n3 1 0 2\n1 1 2 0\nEnd\nMoveTransformation Y\nA\n1 3 2 0\nEnd\n";
    assert_eq!(count(&tws::read(t).unwrap()), 36);
}

/// A breadth-first search over the raw states, applying the moves as twsearch and
/// cubing.js do (position `j` takes the piece at `src[j]` and adds `delta[j]`), every
/// power of a move one step; a hash map of states, sharing nothing with the engine.
fn by_hand(def: &Imported) -> Vec<u64> {
    type State = Vec<(usize, usize)>;
    let start: State = (def.sets.iter().zip(&def.solved))
        .flat_map(|(set, solved)| {
            (0..set.size).map(move |j| match solved {
                Some((pieces, ori)) => (pieces[j], ori[j]),
                None => (j, 0),
            })
        })
        .collect();
    let apply = |s: &State, mv: &super::ImportedMove| -> State {
        let mut out = s.clone();
        let mut at = 0;
        for (set, m) in def.sets.iter().zip(&mv.sets) {
            if let Some((src, delta)) = m {
                for j in 0..set.size {
                    let (piece, ori) = s[at + src[j]];
                    out[at + j] = (piece, (ori + delta[j]) % set.modulus);
                }
            }
            at += set.size;
        }
        out
    };
    let mut dist: HashMap<State, usize> = HashMap::from([(start.clone(), 0)]);
    let mut queue = VecDeque::from([start]);
    let mut levels = vec![0u64];
    while let Some(s) = queue.pop_front() {
        let d = dist[&s];
        levels[d] += 1;
        for mv in &def.moves {
            let mut t = apply(&s, mv);
            while t != s {
                if !dist.contains_key(&t) {
                    dist.insert(t.clone(), d + 1);
                    if levels.len() == d + 1 {
                        levels.push(0);
                    }
                    queue.push_back(t.clone());
                }
                t = apply(&t, mv);
            }
        }
    }
    levels
}

#[test]
fn small_tws_samples_match_an_independent_search() {
    for name in ["pyramorphix", "master_pyramorphix", "puzzlernovice"] {
        let def = tws::read(&sample(name)).unwrap();
        let p = engine(&def, &name_from_stem(name));
        let want = by_hand(&def);
        assert_eq!(levels(&p), want, "{name}");
        if let Some(g) = p.group_order() {
            assert_eq!(g, want.iter().sum::<u64>(), "{name}");
        }
    }
}

/// `twsearch -g FILE`'s counts per depth (rokicki/twsearch `268d1a3`, every power of a
/// move one move, as it counts without `-q`; its `Dist D cnt N` lines up to the last
/// depth with positions), for the samples small enough for a debug build. Each file is
/// the sample as twsearch reads it, all its moves: `benches/twsearch.sh` reruns the
/// comparison on every sample.
const TWSEARCH_G: [(&str, &[u64]); 4] = [
    ("pyramorphix", &[1, 6, 27, 42, 20]),
    ("lo33", &[1, 12, 96, 736, 5208, 28674, 89497, 54741, 2475]),
    (
        "puzzlernovice",
        &[
            1, 5, 25, 98, 409, 1555, 5391, 14419, 28341, 30236, 13760, 2546, 213, 21,
        ],
    ),
    (
        "master_pyramorphix",
        &[
            1, 6, 27, 120, 519, 2088, 8368, 30798, 102953, 270312, 448817, 354276, 102484, 5910,
            379, 42, 4,
        ],
    ),
];

#[test]
fn small_tws_samples_have_twsearchs_counts() {
    for (name, want) in TWSEARCH_G {
        let def = tws::read(&sample(name)).unwrap();
        let p = engine(&def, &name_from_stem(name));
        assert_eq!(levels(&p), want, "{name}");
    }
}

/// PuzzlerNovice: ten corners of two colours (six and four) and eleven edges (six and
/// five), each around a ring: alike pieces, ranked as multisets, every rank a
/// distinct position that parses back to it.
#[test]
fn alike_pieces_rank_densely_and_exactly() {
    let def = tws::read(&sample("puzzlernovice")).unwrap();
    let p = engine(&def, "puzzlernovice");
    let a = p.analysis();
    assert!(a.orbits.iter().all(|o| o.alike && !o.parity_fixed));
    assert_eq!(p.size(), 210 * 462, "C(10,4) x C(11,5)");
    assert_eq!(
        p.group_order(),
        None,
        "the group's order is not the positions"
    );
    let mut seen = std::collections::HashSet::new();
    for r in 0..p.size() {
        let s = p.format(r);
        assert_eq!(p.parse(&s), Ok(r), "{s}");
        assert!(seen.insert(s));
    }
    // One corner of each colour too many: not a position of the puzzle.
    let bad = "0,0,0,0,0,0,0,6,6,6,10,10,10,10,10,10,16,16,16,16,16";
    assert!(p.parse(bad).is_err());
}

#[test]
fn skewb_sample_reaches_its_known_count() {
    // The WCA's four turns (R, U, L, B: around DRB, ULB, DLF, DBL, no two opposite)
    // keep the UFR corner still: 3,149,280 positions (Jaap Scherphuis, "Skewb",
    // jaapsch.net), God's number 11. (Two opposite turns would add the cube's 12
    // rotations: 37,791,360.)
    let def = only(
        tws::read(&sample("skewb")).unwrap(),
        &["DRB", "ULB", "DLF", "DBL"],
    );
    let p = engine(&def, "skewb");
    let l = levels(&p);
    assert_eq!(l.iter().sum::<u64>(), 3_149_280);
    assert_eq!(l.len(), 12);
}

/// cubing.js's own 2x2x2 (src/cubing/puzzles/implementations/dynamic/side-events/
/// 2x2x2.kpuzzle.json.ts): its moves U, x and y as written there; F and R composed
/// here from its derived moves (`F: "[x: U]"`, `R: "[z': U]"`, `z: "[x: y]"`) as
/// cubing.js combines transformations (`combineTransformationData`).
fn cubing_2x2x2() -> String {
    type T = (Vec<usize>, Vec<usize>);
    let u: T = (vec![1, 2, 3, 0, 4, 5, 6, 7], vec![0; 8]);
    let x: T = (vec![4, 0, 3, 5, 7, 6, 2, 1], vec![2, 1, 2, 1, 1, 2, 1, 2]);
    let y: T = (vec![1, 2, 3, 0, 7, 4, 5, 6], vec![0; 8]);
    let then = |a: &T, b: &T| -> T {
        let perm = (0..8).map(|i| a.0[b.0[i]]).collect();
        let ori = (0..8).map(|i| (a.1[b.0[i]] + b.1[i]) % 3).collect();
        (perm, ori)
    };
    let inverse = |a: &T| -> T { then(&then(a, a), a) };
    let x_inv = inverse(&x);
    let z = then(&then(&x, &y), &x_inv);
    let f = then(&then(&x, &u), &x_inv);
    let r = then(&then(&inverse(&z), &u), &z);
    let mv = |t: &T| serde_json::json!({"CORNERS": {"permutation": t.0, "orientationDelta": t.1}});
    serde_json::json!({
        "name": "2x2x2",
        "orbits": [{"orbitName": "CORNERS", "numPieces": 8, "numOrientations": 3}],
        "defaultPattern": {"CORNERS": {"pieces": [0, 1, 2, 3, 4, 5, 6, 7], "orientation": [0, 0, 0, 0, 0, 0, 0, 0]}},
        "moves": {"U": mv(&u), "x": mv(&x), "y": mv(&y), "F": mv(&f), "R": mv(&r)},
        "derivedMoves": {"z": "[x: y]", "L": "[z: U]"},
    })
    .to_string()
}

#[test]
fn kpuzzle_pocket_cube_has_the_published_histogram() {
    let gens: Vec<String> = ["U", "F", "R"].map(String::from).to_vec();
    let def = kpuzzle::read(&cubing_2x2x2(), Some(&gens)).unwrap();
    let p = engine(&def, "kpuzzle-2x2x2");
    assert_eq!(levels(&p), POCKET_HTM);
    let derived = vec!["L".to_string()];
    let e = kpuzzle::read(&cubing_2x2x2(), Some(&derived)).unwrap_err();
    assert!(e.message.contains("derived move"), "{e}");
}

/// The catalog reads `NAME.tws` and the KPuzzle pair from a directory, named by the
/// file's stem, beside our TOML.
#[test]
fn the_catalog_reads_both_formats() {
    let dir = std::env::temp_dir().join(format!("pb-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Pyra_morphix.tws"), sample("pyramorphix")).unwrap();
    std::fs::write(dir.join("pocket.kpuzzle.json"), cubing_2x2x2()).unwrap();
    std::fs::write(
        dir.join("pocket.toml"),
        "family = \"permutation\"\nkpuzzle = \"pocket.kpuzzle.json\"\ngenerators = [\"U\", \"F\", \"R\"]\n",
    )
    .unwrap();
    let all = crate::catalog::load_dir(&dir).unwrap();
    let names: Vec<&str> = all.iter().map(|p| p.name()).collect();
    assert_eq!(names, ["pyra-morphix", "pocket"]);
    let (_, p) = crate::catalog::check_file(&dir.join("pocket.toml")).unwrap();
    let g = p.as_graph().unwrap();
    assert_eq!(g.size(), 3_674_160);
    // The stored definition rebuilds the same puzzle.
    let d = g.definition();
    let again = crate::registry::from_definition(&d).unwrap();
    assert_eq!(again.definition(), d);
    // Drawn as one row of pieces per set (the page and the terminal's boards): the
    // pocket cube's 8 corners on row 0.
    let l = crate::layout::layout(&p).unwrap();
    assert_eq!(l.cells.len(), 8);
    assert!(
        l.cells
            .iter()
            .enumerate()
            .all(|(i, c)| *c == [i as f64, 0.0])
    );
    // The pyramorphix's sets, each its own row, in the file's order.
    let pyra = all.iter().find(|p| p.name() == "pyra-morphix").unwrap();
    let def = tws::read(&sample("pyramorphix")).unwrap();
    let rows: Vec<f64> = (crate::layout::layout(pyra).unwrap().cells.iter())
        .map(|c| c[1])
        .collect();
    let want: Vec<f64> = (def.sets.iter().enumerate())
        .flat_map(|(r, s)| std::iter::repeat_n(r as f64, s.size))
        .collect();
    assert_eq!(rows, want);
    assert!(def.sets.len() > 1);
    std::fs::write(dir.join("bad.tws"), "Set A 2 1\nIllegal\nEnd\n").unwrap();
    let e = crate::catalog::check_file(&dir.join("bad.tws"))
        .err()
        .unwrap();
    assert_eq!(e.line, Some(2));
    assert!(e.to_string().ends_with("bad.tws:2: `Illegal` is not supported (this reader takes Name, Set, Solved, StartState, Move, MoveTransformation)"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn refusals_name_the_line() {
    let head = "Name t\n# a comment\nSet A 3 1\n";
    for (body, line, says) in [
        ("MoveSequence X A B\n", 4, "`MoveSequence` is not supported"),
        ("MoveAlias X Y\n", 4, "`MoveAlias` is not supported"),
        (
            "Move X\nA\n2 1\nEnd\n",
            6,
            "2 numbers for set \"A\" of 3 pieces",
        ),
        ("Move X\nA\n2 2 1\nEnd\n", 6, "not a permutation"),
        ("Move X\nA\n2 4 1\nEnd\n", 6, "numbers are 1 to 3"),
        ("Move X\nA\n2 3 1\n0 1 0\nEnd\n", 7, "turn mod 1"),
        ("Move X\nB\n2 3 1\nEnd\n", 5, "not a set name"),
        ("Solved\nA\n? 1 2\nEnd\n", 6, "wildcards"),
        ("Move X\nA\n2 3 1\n", 0, "no `End`"),
    ] {
        let e = tws::read(&format!("{head}{body}")).unwrap_err();
        assert!(e.message.contains(says), "{body:?}: {e}");
        assert_eq!(e.line, (line > 0).then_some(line), "{body:?}: {e}");
        assert_eq!(e.to_string().lines().count(), 1);
    }
}
