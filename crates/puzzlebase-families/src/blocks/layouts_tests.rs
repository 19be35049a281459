//! Tests of the Rush Hour layouts: the 6x6 count, rank and unrank against each other and
//! against a plain enumeration on small boards, validity, the notation, and the moves.

use super::layouts::*;
use super::rush::{self, Board, Move, Solved};
use std::collections::HashSet;

/// Every layout of a small board by plain recursion over the cells (no transfer
/// matrix), as digit strings, in the order found.
fn brute(rows: usize, cols: usize, red_row: usize) -> Vec<Vec<u8>> {
    fn go(
        i: usize,
        grid: &mut Vec<u8>,
        red: bool,
        shape: (usize, usize, usize),
        out: &mut Vec<Vec<u8>>,
    ) {
        let (rows, cols, red_row) = shape;
        if i == rows * cols {
            if red {
                out.push(grid.clone());
            }
            return;
        }
        if grid[i] == 1 {
            return go(i + 1, grid, red, shape, out);
        }
        let (r, c) = (i / cols, i % cols);
        go(i + 1, grid, red, shape, out);
        let mut place = |grid: &mut Vec<u8>, digit: u8, cells: Vec<usize>, red: bool| {
            if cells.iter().all(|&x| grid[x] == 0) {
                grid[i] = digit;
                for &x in &cells[1..] {
                    grid[x] = 1;
                }
                go(i + 1, grid, red, shape, out);
                for &x in &cells {
                    grid[x] = 0;
                }
            }
        };
        for len in [2, 3] {
            if c + len <= cols {
                place(grid, len as u8, (0..len).map(|k| i + k).collect(), red);
            }
        }
        for len in [2, 3] {
            if r + len <= rows {
                place(
                    grid,
                    len as u8 + 2,
                    (0..len).map(|k| i + k * cols).collect(),
                    red,
                );
            }
        }
        if r == red_row && !red && c + 2 <= cols {
            place(grid, 6, vec![i, i + 1], true);
        }
    }
    let mut out = Vec::new();
    go(
        0,
        &mut vec![0; rows * cols],
        false,
        (rows, cols, red_row),
        &mut out,
    );
    out
}

fn digits(l: &Layout) -> Vec<u8> {
    l.cells.iter().map(|&c| c as u8).collect()
}

/// A seeded generator (splitmix64).
fn randoms(seed: u64, n: usize, below: u64) -> Vec<u64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % below
        })
        .collect()
}

#[test]
fn rush_hour_has_49_425_302_142_layouts() {
    assert_eq!(Layouts::rush_hour().count(), 49_425_302_142);
}

#[test]
fn small_boards_match_a_plain_enumeration_in_rank_order() {
    for (rows, cols, red_row) in [
        (4, 4, 1),
        (3, 5, 2),
        (3, 4, 0),
        (5, 3, 2),
        (2, 2, 1),
        (4, 5, 2),
    ] {
        let layouts = Layouts::new(rows, cols, red_row).unwrap();
        let mut all = brute(rows, cols, red_row);
        all.sort();
        assert_eq!(
            layouts.count(),
            all.len() as u64,
            "{rows}x{cols} red row {red_row}"
        );
        for (i, want) in all.iter().enumerate() {
            let l = layouts.unrank(i as u64).unwrap();
            assert_eq!(&digits(&l), want);
            assert_eq!(layouts.rank(&l).unwrap(), i as u64);
        }
        assert!(layouts.unrank(layouts.count()).is_err());
    }
}

#[test]
fn rank_inverts_unrank_on_random_ranks() {
    let layouts = Layouts::rush_hour();
    let n = layouts.count();
    let mut ranks = randoms(74, 3000, n);
    ranks.extend([0, 1, n / 2, n - 2, n - 1]);
    for r in ranks {
        let l = layouts.unrank(r).unwrap();
        assert_eq!(layouts.rank(&l).unwrap(), r);
        // A valid layout: its pieces rebuild it, one red car on the third row.
        let pieces = l.pieces();
        assert_eq!(Layout::from_pieces(6, 6, &pieces).unwrap(), l);
        let reds: Vec<_> = pieces.iter().filter(|p| p.red).collect();
        assert_eq!(reds.len(), 1);
        assert!(reds[0].horizontal && reds[0].row == 2 && reds[0].len == 2);
        // Through Fogleman's notation and back.
        let text = l.to_board().unwrap().notation();
        let board = Board::parse(&text).unwrap();
        assert_eq!(Layout::from_board(&board).unwrap(), l, "{text}");
    }
    assert_eq!(
        layouts.unrank(n),
        Err(LayoutError::RankOutside {
            rank: n,
            last: n - 1
        })
    );
}

#[test]
fn rank_refuses_what_is_no_layout() {
    let layouts = Layouts::new(4, 4, 1).unwrap();
    let red = Placed {
        red: true,
        horizontal: true,
        row: 1,
        col: 0,
        len: 2,
    };
    let off_row = Placed { row: 2, ..red };
    assert!(
        layouts
            .rank(&Layout::from_pieces(4, 4, &[red]).unwrap())
            .is_ok()
    );
    assert!(
        layouts
            .rank(&Layout::from_pieces(4, 4, &[off_row]).unwrap())
            .is_err()
    );
    assert!(
        layouts
            .rank(
                &Layout::from_pieces(
                    4,
                    4,
                    &[
                        red,
                        Placed {
                            row: 1,
                            col: 2,
                            ..red
                        }
                    ]
                )
                .unwrap()
            )
            .is_err()
    );
    assert!(
        layouts
            .rank(&Layout::from_pieces(4, 4, &[]).unwrap())
            .is_err()
    );
    let mut cells = Layout::from_pieces(4, 4, &[red]).unwrap();
    cells.cells[15] = Cell::VCar;
    assert!(layouts.rank(&cells).is_err());
    assert!(Layout::from_pieces(4, 4, &[red, Placed { col: 1, ..red }]).is_err());
    assert!(Layouts::new(6, 9, 2).is_err());
    assert!(Layouts::new(6, 6, 6).is_err());
}

#[test]
fn fogleman_hardest_board_ranks_and_comes_back() {
    let layouts = Layouts::rush_hour();
    let board = Board::parse("BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM.").unwrap();
    let l = Layout::from_board(&board).unwrap();
    let back = layouts
        .unrank(layouts.rank(&l).unwrap())
        .unwrap()
        .to_board()
        .unwrap();
    // The letters are reassigned in reading order, the board is the same.
    assert_eq!(back.notation(), "BCDDEoBCFoEGBoFAAGHHHIoGooJIKKLLJMMo");
    match rush::solve(&back).unwrap() {
        Solved::Solution {
            distance, cluster, ..
        } => assert_eq!((distance, cluster), (51, 4780)),
        s => panic!("{s:?}"),
    }
    let walls = Board::parse("IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM").unwrap();
    assert_eq!(Layout::from_board(&walls), Err(LayoutError::Walls));
}

#[test]
fn unblocked_count_matches_a_plain_enumeration() {
    for (rows, cols, red_row) in [(4, 4, 1), (3, 5, 2), (4, 5, 0)] {
        let want = brute(rows, cols, red_row)
            .iter()
            .filter(|g| {
                let row = &g[red_row * cols..(red_row + 1) * cols];
                let red = row.iter().position(|&d| d == 6).unwrap();
                !row[red..].iter().any(|&d| d == 2 || d == 3)
            })
            .count();
        assert_eq!(
            Layouts::new(rows, cols, red_row).unwrap().count_unblocked(),
            want as u64
        );
    }
}

#[test]
fn rush_hour_unblocked_layouts() {
    let layouts = Layouts::rush_hour();
    let unblocked = layouts.count_unblocked();
    assert!(unblocked < layouts.count());
    assert_eq!(unblocked, UNBLOCKED_6X6);
}

/// Computed by [`Layouts::count_unblocked`]; checked on small boards against a plain
/// enumeration ([`unblocked_count_matches_a_plain_enumeration`]).
const UNBLOCKED_6X6: u64 = 40_148_868_698;

#[test]
fn neighbors_are_the_boards_moves() {
    let layouts = Layouts::rush_hour();
    for r in randoms(7, 300, layouts.count()) {
        let board = layouts.unrank(r).unwrap().to_board().unwrap();
        let mut want = HashSet::new();
        for p in &board.pieces {
            for by in -5..=5i8 {
                if let Ok(b) = board.apply(Move {
                    piece: p.letter,
                    by,
                }) {
                    want.insert(layouts.rank(&Layout::from_board(&b).unwrap()).unwrap());
                }
            }
        }
        let got = layouts.neighbors(r).unwrap();
        assert_eq!(got.len(), want.len());
        assert_eq!(got.iter().copied().collect::<HashSet<_>>(), want);
        for n in got {
            assert!(layouts.neighbors(n).unwrap().contains(&r));
        }
    }
}

#[test]
fn small_board_neighbors_are_symmetric_and_stay_in_range() {
    let layouts = Layouts::new(4, 4, 1).unwrap();
    for r in 0..layouts.count() {
        for n in layouts.neighbors(r).unwrap() {
            assert!(n < layouts.count() && n != r);
            assert!(layouts.neighbors(n).unwrap().contains(&r));
        }
    }
}

/// 2,000 random layouts of the complete table each search their cluster to the end
/// (none above the search's bound), and the slowest is printed (`cargo test -p
/// puzzlebase-families --lib slowest_cluster -- --nocapture`; 5 s in all on Xeon
/// 6/207, the slowest 95 ms for a cluster of 286,412).
#[test]
fn slowest_cluster_search_of_random_layouts() {
    let layouts = Layouts::rush_hour();
    let mut worst = (std::time::Duration::ZERO, 0, String::new());
    for r in randoms(2026, 2000, layouts.count()) {
        let board = layouts.unrank(r).unwrap().to_board().unwrap();
        let t = std::time::Instant::now();
        let cluster = rush::solve(&board).unwrap().cluster();
        let took = t.elapsed();
        if took > worst.0 {
            worst = (took, cluster, board.notation());
        }
    }
    println!(
        "slowest: {:?} for a cluster of {} ({})",
        worst.0, worst.1, worst.2
    );
}
