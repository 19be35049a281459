//! The 2x7 sliding puzzle (`fourteen`, 43,589,145,600 states) by the two-bit search
//! alone: its levels are OEIS A346736 term by term, and a walk through the table's
//! codes finds the distance of the farthest position. About half an hour and 11 GiB:
//! ignored by default, run with `cargo test --release -p puzzlebase-families --test
//! fourteen -- --ignored --nocapture`. The stored file is held to the same list by the
//! root package's `fourteen::fourteen_file_answers_from_its_codes`.

use puzzlebase_core::progress::Silent;
use puzzlebase_core::space::{GraphPuzzle, StateSpace};
use puzzlebase_families::catalog::builtin_spec;
use puzzlebase_families::sliding::spec::sliding;
use puzzlebase_solvers::twobit;

/// OEIS A346736 (`data/oeis/A346736.txt`): positions of the 2x7 puzzle at each
/// distance from the goal, 0 to 108.
fn a346736() -> Vec<u64> {
    include_str!("../../../data/oeis/A346736.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.parse().unwrap())
        .collect()
}

#[test]
#[ignore = "the whole 2x7 space: about half an hour and 11 GiB; .ci/run runs it with PUZZLEBASE_CI_HEAVY=1"]
fn fourteen_levels_are_a346736() {
    let a346736 = a346736();
    // The built-in definition, in its rank order (what `generate` builds).
    let g = sliding(&builtin_spec("fourteen").unwrap()).unwrap();
    assert_eq!(g.size(), 43_589_145_600);
    let t = twobit::solve(&g, &Silent).unwrap();
    assert_eq!(t.levels.len(), a346736.len(), "radius");
    for (d, (&ours, &published)) in t.levels.iter().zip(&a346736).enumerate() {
        assert_eq!(ours, published, "level {d}");
    }
    // The one position at 108 moves: the OEIS gives its tiles in cell order.
    assert_eq!(t.farthest.len(), 1);
    let far = g.format(t.farthest[0]);
    let tiles: Vec<&str> = far.split(',').filter(|&c| c != "0").collect();
    assert_eq!(tiles.join(","), "7,6,12,4,3,9,1,13,5,11,10,2,8", "{far}");
    // Every rank is reached, so the table holds distances mod 4 (the 2x7 is bipartite).
    assert_eq!(t.modulus, 4);
    // Walking to a neighbour one level closer (code minus one) reaches the goal in
    // exactly 108 steps, and every step has such a neighbour.
    let (mut r, mut steps, mut nbs) = (t.farthest[0], 0, Vec::new());
    while !g.goals().contains(&r) {
        let want = (t.get(r) + t.modulus - 1) % t.modulus;
        nbs.clear();
        g.neighbors(r, &mut nbs);
        r = *nbs
            .iter()
            .find(|&&nb| t.get(nb) == want)
            .expect("a neighbour one closer");
        steps += 1;
    }
    assert_eq!(steps, 108);
}
