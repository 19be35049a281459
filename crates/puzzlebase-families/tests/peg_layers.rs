//! The French board's layers counted by the small boards' solver (the families' peg
//! boards with `puzzlebase_solvers::peg`): the first of Meyrignac's published levels, in
//! every test run. A generated file's layers are held to the same solver by
//! `puzzlebase`'s `verify::peg::tests::french37_layers_agree_with_the_hash_set_solver`.

use puzzlebase_core::progress::Silent;
use puzzlebase_families::catalog;
use puzzlebase_solvers::peg::{self, Board};

fn board(name: &str) -> Board {
    catalog::find(name)
        .and_then(|p| p.as_peg().cloned())
        .unwrap_or_else(|| panic!("{name} is a peg board"))
}

/// J.-C. Meyrignac's enumeration of the French board from c1 (hole 0 empty), levels 0
/// to 10: the (board, hole of the peg that moved last) pairs after n jumps, the start
/// counted once. Published at euler.free.fr/PegInfos.htm ("Level Number of positions",
/// 2002-2003); all 36 levels are held by the root package's
/// `peg_layers::french37_c1_reaches_meyrignacs_figures`.
const MEYRIGNAC_C1_FIRST: [u64; 11] = [
    1, 2, 6, 38, 247, 1_567, 9_447, 52_619, 266_503, 1_222_832, 5_045_205,
];

/// The first eleven of Meyrignac's levels, counted by the small boards' forward search
/// (each jump's share of the pair it makes, [`peg::reachable_layers`]) on the reachable
/// layers of `french37-c1` cut after twelve layers: a second or two.
#[test]
fn french37_c1_first_levels_are_meyrignacs() {
    let board = board("french37-c1");
    let pairs = peg::reachable_layers(&board, 12, &Silent).counts;
    let top = board.start.count_ones() as usize;
    let by_level: Vec<u64> = (0..11).map(|n| pairs[top - n].pairs).collect();
    assert_eq!(by_level, MEYRIGNAC_C1_FIRST);
}
