//! The layer solver against the small boards' solver: the same layers, the same
//! distance for every position, the same counts and first optimal moves.

use std::collections::HashMap;

use super::*;
use crate::peg::{self, PegTable};
use puzzlebase_core::progress::Silent;

/// Both solvers agree on `board`: layer figures, every stored position's distance (and
/// "cannot finish" for the stored rest), solution counts, first optimal moves, the
/// histogram, the start's distance and the farthest positions.
pub fn assert_same_answers(board: &Board) {
    assert_same_answers_sampled(board, 1);
}

/// [`assert_same_answers`], comparing counts and first moves on every `step`-th
/// position only (distances on all).
fn assert_same_answers_sampled(board: &Board, step: usize) -> LayerTable {
    let old: PegTable = peg::solve(board, &Silent).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let new = solve(board, dir.path(), &Silent).unwrap();
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "{}: scratch files are unnamed",
        board.name
    );
    assert_eq!(new.layers, old.layers, "{}: layers", board.name);
    assert_eq!(new.start_distance, old.max_distance, "{}", board.name);
    let layout = Layout::new(board);
    let tables = &new.tables[..];
    let mut memo = HashMap::new();
    let mut histogram = vec![(0u64, 0u64); new.histogram.len()];
    let mut stored = 0u64;
    for (i, row) in old.rows.iter().enumerate() {
        let at = || format!("{}: {}", board.name, board.format(row.bits));
        let d = distance_of(&layout, tables, row.bits).unwrap();
        assert_eq!(d, row.distance, "{}", at());
        if let Some(d) = d {
            stored += 1;
            histogram[d as usize].0 += row.class_size as u64;
            histogram[d as usize].1 += 1;
        }
        if i % step != 0 {
            continue;
        }
        let n = count_solutions(&layout, tables, row.bits, &mut memo).unwrap();
        assert_eq!(n, row.solutions, "{}", at());
        if d.is_some() {
            let (_, moves) = optimal_moves(&layout, tables, row.bits).unwrap().unwrap();
            assert_eq!(
                moves.first().map(|m| m.0.clone()),
                row.next_move,
                "{}",
                at()
            );
        }
    }
    assert_eq!(histogram, new.histogram, "{}: histogram", board.name);
    let entries: u64 = new.layers.iter().map(|l| l.can_finish_classes).sum();
    assert_eq!(
        stored, entries,
        "{}: no other position is stored",
        board.name
    );
    let max = new.max_distance();
    let mut farthest: Vec<u64> = (old.rows.iter())
        .filter(|r| r.distance == Some(max))
        .map(|r| r.bits)
        .collect();
    farthest.sort_unstable();
    assert_eq!(new.farthest, farthest, "{}: farthest", board.name);
    new
}

#[test]
fn the_seed_boards_match_the_small_solver() {
    for name in ["chinese-checkers", "hoppers", "triangle21"] {
        assert_same_answers(&crate::peg::tests::builtin_board(name).unwrap());
    }
}

/// The largest board both solvers take: 187,636,299 reachable positions, 1,679,072
/// classes stored (about half a minute each). Ignored by `cargo test` (2.5 minutes in
/// the test profile, most of the suite's time); `.ci/run` runs it.
#[test]
#[ignore = "heavy: about 2.5 minutes; cargo test -p puzzlebase-solvers --lib english33_matches -- --ignored"]
fn english33_matches_the_small_solver() {
    let board = crate::peg::tests::builtin_board("english33").unwrap();
    let new = assert_same_answers_sampled(&board, 50);
    // Both solvers count the (position, last peg) pairs with canonical positions; a set
    // of pairs of whole positions, built forward, counts them again.
    crate::peg::tests::assert_pairs_built_forward(&board, &new.layers);
}

#[test]
fn a_board_without_symmetry_and_with_long_chains_matches_the_small_solver() {
    // A 5x5 square missing one corner, diagonal jumps too: no symmetry fixes the start
    // (hole 0) and the finish, and a peg can chain far.
    let mut holes = Vec::new();
    for r in 0..5u8 {
        for c in 0..5u8 {
            if (r, c) != (4, 4) {
                holes.push((r, c));
            }
        }
    }
    let dirs = [(-1, 0), (1, 0), (0, -1), (0, 1), (1, 1), (-1, -1)];
    let mut tried = 0;
    for f in 0..holes.len() {
        if tried == 3 {
            break;
        }
        let b = Board::from_grid("test24", holes.clone(), &dirs, 1, f, true);
        assert_eq!(b.symmetries().len(), 1);
        if peg::solve(&b, &Silent).is_ok() {
            assert_same_answers(&b);
            tried += 1;
        }
    }
    assert_eq!(tried, 3);
}

#[test]
fn a_start_that_cannot_finish_is_an_error() {
    // A 4x4 square: by the position-class argument some finishes are out of reach.
    let holes: Vec<(u8, u8)> = (0..16u8).map(|i| (i / 4, i % 4)).collect();
    let dirs = [(-1, 0), (1, 0), (0, -1), (0, 1)];
    let mut refused = 0;
    for f in 0..16 {
        let b = Board::from_grid("square16", holes.clone(), &dirs, 1, f, true);
        let dir = tempfile::tempdir().unwrap();
        match solve(&b, dir.path(), &Silent) {
            Err(PegError::StartCannotFinish(_)) => refused += 1,
            Ok(_) => assert_same_answers(&b),
            Err(e) => panic!("{e}"),
        }
    }
    assert!(refused > 0 && refused < 16, "{refused}");
}
