//! The French boards' layers counted by the small boards' solver (the families' peg
//! boards with `puzzlebase_solvers::peg`): the first of Meyrignac's published levels in
//! every test run, and, when a generated file is given, every stored reachable layer
//! from 36 pegs down to 22 against a count of the solver's own.

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

/// Both French boards' reachable layers from 36 pegs down to 22, counted again by the
/// small boards' solver (sorted vectors of canonical positions, a method of its own),
/// against the `peg_layers` rows of a file that holds both boards (read with plain SQL).
/// About a minute and 5 GiB per board: `PUZZLEBASE_FRENCH_DB=path cargo test --release
/// -p puzzlebase-families --test peg_layers -- --ignored`.
#[test]
#[ignore = "heavy: needs a file holding french37 and french37-c1 (PUZZLEBASE_FRENCH_DB); .ci/run runs it with PUZZLEBASE_CI_HEAVY=1"]
fn french37_layers_agree_with_the_hash_set_solver() {
    let Some(db) = std::env::var_os("PUZZLEBASE_FRENCH_DB") else {
        panic!("set PUZZLEBASE_FRENCH_DB to a file holding french37 and french37-c1");
    };
    let conn = rusqlite::Connection::open_with_flags(
        std::path::PathBuf::from(db),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    for name in ["french37", "french37-c1"] {
        let board = board(name);
        let mut st = conn
            .prepare("SELECT pegs, reachable, reachable_classes FROM peg_layers WHERE puzzle = ?1")
            .unwrap();
        let stored: Vec<(u64, u64, u64)> = st
            .query_map([name], |r| {
                let n = |i: usize| r.get::<_, i64>(i).map(|v| v as u64);
                Ok((n(0)?, n(1)?, n(2)?))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let mut seen = 0;
        peg::for_each_reachable_layer(&board, 15, &Silent, |pegs, layer, counts| {
            let positions: u64 = layer.iter().map(|&b| board.class_size(b) as u64).sum();
            assert_eq!(counts.positions, positions, "{name}: {pegs} pegs");
            let row = stored.iter().find(|l| l.0 == pegs as u64).unwrap();
            assert_eq!(
                (row.1, row.2),
                (positions, layer.len() as u64),
                "{name}: {pegs} pegs"
            );
            seen += 1;
        });
        assert_eq!(seen, 15);
    }
}
