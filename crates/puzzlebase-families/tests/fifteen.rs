//! The 15-puzzle's ranks and notation (`fifteen`'s 4x4 grid): rank and unrank are
//! inverse, and the notation reads back what it writes, over ranks drawn across the
//! whole space.

use puzzlebase_core::space::{GraphPuzzle, StateSpace};
use puzzlebase_families::catalog;

#[test]
fn four_by_four_ranks_and_notation_round_trip() {
    let f = catalog::find("fifteen")
        .and_then(|p| p.into_patterns())
        .expect("fifteen is a built-in pattern-database puzzle");
    let g = f.grid();
    assert_eq!(g.size(), 16 * 653_837_184_000);
    let mut x = 12345u64;
    for _ in 0..5000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = (x >> 11) % g.size();
        let cells = g.unrank(r);
        assert_eq!(g.rank_of(&cells), r);
        let text = f.format(&cells);
        assert_eq!(f.parse(&text).unwrap(), cells);
        assert_eq!(g.parse(&text), Ok(r));
    }
}
