//! Unit tests of the permutation family: published distributions (pocket cube, pancakes, TopSpin), constraints found from the moves, ranking, refusals.

use super::*;
use puzzlebase_core::progress::Silent;
use puzzlebase_solvers::bfs::{self, Outputs};
use std::collections::{HashMap, VecDeque};

fn built(name: &str) -> Permutation {
    let spec = crate::catalog::builtin_spec(name)
        .or_else(|| {
            let path = format!(
                "{}/../../data/puzzles/examples/{name}.toml",
                env!("CARGO_MANIFEST_DIR")
            );
            crate::catalog::parse(&path, &std::fs::read_to_string(&path).ok()?).ok()
        })
        .unwrap();
    spec::permutation(&spec).unwrap()
}

fn from_text(text: &str) -> Result<Permutation, crate::spec::Problem> {
    let spec = crate::catalog::parse("t.toml", text).unwrap();
    spec::permutation(&spec)
}

fn levels(p: &Permutation) -> Vec<u64> {
    bfs::solve_with(p, Outputs::DISTANCES, &Silent)
        .unwrap()
        .levels
}

/// The number of positions at each distance, from Wikipedia's "Pocket Cube"
/// (en.wikipedia.org/wiki/Pocket_Cube, section "Permutations", the table of
/// positions that require n any (half or quarter) turns and n quarter turns only;
/// the same table in its 2007 revision), with 3,674,160 positions in all.
const POCKET_HTM: [u64; 12] = [
    1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644,
];
const POCKET_QTM: [u64; 15] = [
    1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852, 782536, 90280, 276,
];

#[test]
fn pocket_cube_distributions_are_the_published_ones() {
    let htm = built("cube2");
    assert_eq!(htm.size(), 3_674_160);
    assert_eq!(htm.group_order(), Some(3_674_160));
    assert_eq!(levels(&htm), POCKET_HTM);
    let qtm = built("cube2-qtm");
    assert_eq!(qtm.moves().len(), 6);
    assert_eq!(levels(&qtm), POCKET_QTM);
}

#[test]
fn the_cube_constraints_are_found_from_the_moves() {
    let p = built("cube2");
    let a = p.analysis();
    // The seven corners the moves carry, then DBL (point 6), which no move moves.
    assert_eq!(a.orbits.len(), 2);
    assert_eq!(a.orbits[0].points, [0, 1, 2, 3, 4, 5, 7]);
    assert!(
        !a.orbits[0].parity_fixed,
        "a quarter turn is a 4-cycle: odd"
    );
    assert_eq!(
        a.orbits[0].sum_step, 3,
        "face turns keep the twist sum mod 3"
    );
    assert_eq!(a.orbits[0].arrangements, 5040);
    assert_eq!(a.orbits[0].orientations, 729);
    assert_eq!(a.orbits[1].points, [6]);
    assert_eq!(a.orbits[1].arrangements * a.orbits[1].orientations, 1);
    // A corner twisted in place breaks the sum; two corners swapped in place are
    // reachable (the moves' parity is free).
    let solved = "UUUURRRRFFFFDDDDLLLLBBBB";
    assert_eq!(p.parse(solved), Ok(p.goals()[0]));
    let twisted = "UUUFURRRFRFFDDDDLLLLBBBB";
    assert!(
        matches!(p.parse(twisted), Err(StateError::Unsolvable { .. })),
        "{:?}",
        p.parse(twisted)
    );
}

/// The stickers after each move, from the cube's geometry alone (a quarter turn of
/// the 24 sticker positions, computed apart from the corner model): sticker `i`
/// goes to `STICKER_MOVES[m][i]`.
const STICKER_MOVES: [(&str, [usize; 24]); 3] = [
    (
        "U",
        [
            1, 3, 0, 2, 8, 9, 6, 7, 16, 17, 10, 11, 12, 13, 14, 15, 20, 21, 18, 19, 4, 5, 22, 23,
        ],
    ),
    (
        "R",
        [
            0, 22, 2, 20, 5, 7, 4, 6, 8, 1, 10, 3, 12, 9, 14, 11, 16, 17, 18, 19, 15, 21, 13, 23,
        ],
    ),
    (
        "F",
        [
            0, 1, 4, 6, 13, 5, 12, 7, 9, 11, 8, 10, 17, 19, 14, 15, 16, 3, 18, 2, 20, 21, 22, 23,
        ],
    ),
];

#[test]
fn corner_moves_agree_with_the_stickers_geometry() {
    let p = built("cube2");
    let mut seed = 12345u64;
    for _ in 0..200 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = (seed >> 20) % p.size();
        let before: Vec<char> = p.format(r).chars().collect();
        let mut from = Permutation::empty();
        p.unrank(r, &mut from);
        for (name, sperm) in STICKER_MOVES {
            let mv = p.moves().iter().find(|m| m.name == name).unwrap();
            let mut to = from;
            p.apply(mv, &from, &mut to);
            let mut expected = [' '; 24];
            for (i, &j) in sperm.iter().enumerate() {
                expected[j] = before[i];
            }
            let after = p.write(&to);
            assert_eq!(
                after,
                expected.iter().collect::<String>(),
                "{name} from {r}"
            );
            assert_eq!(p.move_name(r, p.rank(&to)).as_deref(), Some(name));
        }
    }
}

#[test]
fn ranks_round_trip() {
    for name in ["cube2", "pancake-6", "topspin-9"] {
        let p = built(name);
        let step = (p.size() / 20_000).max(1);
        for r in (0..p.size()).step_by(step as usize) {
            let s = p.format(r);
            assert_eq!(p.parse(&s), Ok(r), "{name}: {s}");
        }
    }
}

/// OEIS A092113 (T(n,k): stacks of n pancakes needing k flips), rows 3 to 9; its
/// row lengths are the pancake numbers, OEIS A058986 (3, 4, 5, 7, 8, 9, 10).
const A092113: [&[u64]; 7] = [
    &[1, 2, 2, 1],
    &[1, 3, 6, 11, 3],
    &[1, 4, 12, 35, 48, 20],
    &[1, 5, 20, 79, 199, 281, 133, 2],
    &[1, 6, 30, 149, 543, 1357, 1903, 1016, 35],
    &[1, 7, 42, 251, 1191, 4281, 10561, 15011, 8520, 455],
    &[
        1, 8, 56, 391, 2278, 10666, 38015, 93585, 132697, 79379, 5804,
    ],
];

#[test]
fn pancake_stacks_match_oeis_a092113() {
    for (i, row) in A092113.iter().enumerate() {
        let n = i + 3;
        let p = built(&format!("pancake-{n}"));
        assert_eq!(levels(&p), *row, "{n} pancakes");
    }
}

/// Ten pancakes: Don Woods's breadth-first counts (the rec.puzzles "pancake"
/// thread, quoted with A058986's terms up to 12 pancakes), summing to 10!; the
/// pancake number 11 is OEIS A058986(10).
#[test]
fn ten_pancakes_match_the_published_counts() {
    let p = built("pancake-10");
    assert_eq!(
        levels(&p),
        [
            1, 9, 72, 575, 3963, 22825, 106461, 377863, 919365, 1309756, 814678, 73232
        ]
    );
}

/// TopSpin: no published distribution was found, so the table is compared with a
/// breadth-first search written here over plain permutations (a hash map), which
/// shares no code with the engine.
fn topspin_by_hand(n: usize) -> Vec<u64> {
    let start: Vec<u8> = (0..n as u8).collect();
    let mut dist: HashMap<Vec<u8>, u32> = HashMap::from([(start.clone(), 0)]);
    let mut queue = VecDeque::from([start]);
    let mut levels = vec![0u64];
    while let Some(s) = queue.pop_front() {
        let d = dist[&s];
        levels[d as usize] += 1;
        for i in 0..n {
            let mut t = s.clone();
            for j in 0..2 {
                t.swap((i + j) % n, (i + 3 - j) % n);
            }
            if !dist.contains_key(&t) {
                dist.insert(t.clone(), d + 1);
                if levels.len() <= d as usize + 1 {
                    levels.push(0);
                }
                queue.push_back(t);
            }
        }
    }
    levels
}

#[test]
fn topspin_matches_an_independent_search() {
    let p = built("topspin-9");
    // Turns of four are even permutations: only the even half is ranked.
    assert!(p.analysis().orbits[0].parity_fixed);
    assert_eq!(p.size(), 181_440);
    assert_eq!(p.group_order(), Some(181_440));
    assert_eq!(levels(&p), topspin_by_hand(9));
    let odd = "1,0,2,3,4,5,6,7,8";
    assert!(matches!(p.parse(odd), Err(StateError::Unsolvable { .. })));
}

#[test]
fn a_group_smaller_than_its_ranks_is_counted_honestly() {
    // A quarter turn and a reflection of a square's corners: one orbit, odd moves,
    // so all 4! arrangements are ranked, but the group is the square's 8 symmetries.
    let p = from_text(
        "name = \"t\"\nfamily = \"permutation\"\npoints = 4\nmoves = [{ name = \"r\", cycles = \"(0,1,2,3)\" }, { name = \"s\", cycles = \"(1,3)\" }]\n",
    )
    .unwrap();
    assert_eq!(p.size(), 24);
    assert_eq!(p.group_order(), Some(8));
    assert_eq!(levels(&p).iter().sum::<u64>(), 8);
    // Two orbits whose parities are tied: every move is odd on both or even on both.
    let tied = from_text(
        "name = \"t\"\nfamily = \"permutation\"\npoints = 6\nmoves = [{ name = \"a\", cycles = \"(0,1)(3,4)\" }, { name = \"b\", cycles = \"(0,1,2)(3,4,5)\" }, { name = \"c\", cycles = \"(0,1,2)\" }]\n",
    )
    .unwrap();
    let a = tied.analysis();
    assert_eq!(a.orbits.len(), 2);
    assert!(!a.orbits[0].parity_fixed && a.orbits[1].parity_fixed);
    assert_eq!(tied.size(), 6 * 3);
    assert_eq!(tied.group_order(), Some(18));
    assert_eq!(levels(&tied).iter().sum::<u64>(), 18);
    assert!(matches!(
        tied.parse("1,0,2,3,4,5"),
        Err(StateError::Unsolvable { .. })
    ));
    assert!(tied.parse("1,0,2,4,3,5").is_ok());
}

#[test]
fn malformed_positions_are_one_line_errors() {
    let p = built("pancake-4");
    for bad in ["", "0,1,2", "0,1,2,2", "0,1,2,x", "0,1,2,4", "0,1,2,3,0"] {
        match p.parse(bad) {
            Err(StateError::Malformed { reason, .. }) => assert!(!reason.contains('\n')),
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    let c = built("cube2");
    for bad in [
        "UUUU",
        "UUUURRRRFFFFDDDDLLLLBBBX",
        "UUUURRRRFFFFDDDDLLLLBBBBU",
        "RUUURRRRFFFFDDDDLLLLBBBB",
    ] {
        assert!(
            matches!(c.parse(bad), Err(StateError::Malformed { .. })),
            "{bad}"
        );
    }
}

/// Definitions of 64 points that cannot be ranked (an orbit of 64) or stored (four
/// orbits of 16 with twelve orientations) are refused from their orbits and their
/// count of positions, before the group's order is computed (that took 8.6 s and
/// over a minute on them; check-definition's bound, docs/definitions.md).
#[test]
fn definitions_too_large_are_refused_before_the_group_is_computed() {
    let all: Vec<String> = (0..64).map(|i| i.to_string()).collect();
    let one = format!(
        "name = \"big\"\nfamily = \"permutation\"\npoints = 64\nmoves = [ {{ name = \"r\", cycles = \"({})\" }}, {{ name = \"s\", cycles = \"(0,1)\" }} ]\n",
        all.join(",")
    );
    let err = from_text(&one).err().expect("refused").to_string();
    assert!(err.contains("orbit of 64 points"), "{err}");
    let mut moves = Vec::new();
    for o in 0..4 {
        let a = o * 16;
        let cycle: Vec<String> = (a..a + 16).map(|i| i.to_string()).collect();
        let twist: Vec<&str> = (0..64).map(|i| if i == a { "1" } else { "0" }).collect();
        moves.push(format!(
            "{{ name = \"r{o}\", cycles = \"({})\" }}",
            cycle.join(",")
        ));
        moves.push(format!(
            "{{ name = \"s{o}\", cycles = \"({a},{})\", twist = [{}] }}",
            a + 1,
            twist.join(",")
        ));
    }
    let four = format!(
        "name = \"big\"\nfamily = \"permutation\"\npoints = 64\norientation = 12\nstorage = \"two-bit\"\nmoves = [ {} ]\n",
        moves.join(", ")
    );
    let err = from_text(&four).err().expect("refused").to_string();
    assert!(err.contains("too large") || err.contains("2^64"), "{err}");
}

/// The move tables give exactly the neighbours the direct way gives (unrank, move,
/// rank), in the same order, at ranks spread over the whole space: the built-in cubes
/// and the twsearch samples kept in `tests/data/` (orientations, alike pieces, orbits
/// whose parity follows from the others').
#[test]
fn move_tables_give_the_direct_neighbours() {
    let mut puzzles: Vec<(String, Permutation)> = ["cube2", "cube2-qtm"]
        .iter()
        .map(|n| (n.to_string(), built(n)))
        .collect();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for sample in [
        "2x2x2",
        "skewb",
        "master_pyramorphix",
        "lo33",
        "puzzlernovice",
        "pyramorphix",
    ] {
        let text = std::fs::read_to_string(dir.join(format!("{sample}.tws"))).unwrap();
        let def = import::tws::read(&text).unwrap();
        let spec = def.to_spec(&import::name_from_stem(sample), &[]).unwrap();
        puzzles.push((sample.to_string(), spec::permutation(&spec).unwrap()));
    }
    let mut tabled = 0;
    for (name, p) in &puzzles {
        let Some(t) = tables::MoveTables::of(p) else {
            continue;
        };
        tabled += 1;
        let (mut fast, mut direct) = (Vec::new(), Vec::new());
        let step = (p.size() / 20_011).max(1);
        for rank in (0..p.size())
            .step_by(step as usize)
            .chain([p.goal, p.size() - 1])
        {
            fast.clear();
            direct.clear();
            t.neighbors(p, rank, &mut fast);
            p.neighbors_direct(rank, &mut direct);
            assert_eq!(fast, direct, "{name} rank {rank}");
        }
    }
    assert!(
        tabled >= 6,
        "the tables are built for most of them: {tabled}"
    );
}
