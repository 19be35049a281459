//! Tests of the census: every small board's histogram, split by pieces, against a plain
//! breadth-first search over the transfer matrix's ranks and their moves
//! ([`Layouts::neighbors`]), which shares nothing with the census's groups.

use super::*;
use crate::blocks::layouts::{Layout, Layouts};
use crate::blocks::rush::Board;
use puzzlebase_core::progress::Silent;

/// The census's figures found the plain way: every rank, its moves, a search from every
/// layout whose red car touches the right edge.
fn plain(rows: usize, cols: usize, red_row: usize) -> (u64, Vec<Vec<u64>>, Vec<u8>) {
    let l = Layouts::new(rows, cols, red_row).unwrap();
    let n = l.count() as usize;
    let mut dist = vec![u8::MAX; n];
    let mut front = Vec::new();
    let mut pieces = vec![0usize; n];
    for r in 0..n {
        let layout = l.unrank(r as u64).unwrap();
        let ps = layout.pieces();
        pieces[r] = ps.len();
        if ps.iter().any(|p| p.red && p.col == cols - 2) {
            dist[r] = 0;
            front.push(r);
        }
    }
    let mut by = Vec::new();
    let mut d = 0;
    while !front.is_empty() {
        let mut row = vec![0u64; rows * cols];
        let mut next = Vec::new();
        for &r in &front {
            row[pieces[r]] += 1;
            for m in l.neighbors(r as u64).unwrap() {
                if dist[m as usize] == u8::MAX {
                    dist[m as usize] = d + 1;
                    next.push(m as usize);
                }
            }
        }
        while row.last() == Some(&0) {
            row.pop();
        }
        by.push(row);
        front = next;
        d += 1;
    }
    (l.count(), by, dist)
}

/// The solvable clusters by their deepest layout's distance, found the plain way: the
/// components of the moves between ranks (union-find), given every rank's distance.
fn plain_clusters(rows: usize, cols: usize, red_row: usize, dist: &[u8]) -> Vec<u64> {
    let l = Layouts::new(rows, cols, red_row).unwrap();
    let mut parent: Vec<usize> = (0..dist.len()).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for r in 0..dist.len() {
        for m in l.neighbors(r as u64).unwrap() {
            let (a, b) = (root(&mut parent, r), root(&mut parent, m as usize));
            parent[a] = b;
        }
    }
    let mut deepest = std::collections::HashMap::new();
    for (r, &d) in dist.iter().enumerate().filter(|(_, d)| **d != u8::MAX) {
        let e = deepest.entry(root(&mut parent, r)).or_insert(0u8);
        *e = (*e).max(d);
    }
    let mut by = Vec::new();
    for &d in deepest.values() {
        if by.len() <= d as usize {
            by.resize(d as usize + 1, 0);
        }
        by[d as usize] += 1;
    }
    by
}

fn agrees(rows: usize, cols: usize, red_row: usize) {
    let census = Census::new(rows, cols, red_row).unwrap().with_clusters();
    let found = census.run(&Silent).unwrap();
    let (count, by, dist) = plain(rows, cols, red_row);
    assert_eq!(
        found.layouts, count,
        "{rows}x{cols}: every layout in one group"
    );
    assert_eq!(census.count(), Ok(count));
    assert_eq!(found.by_distance, by, "{rows}x{cols}");
    let l = Layouts::new(rows, cols, red_row).unwrap();
    let deepest = by.len() - 1;
    assert_eq!(found.deepest_distance, deepest);
    assert_eq!(
        found.deepest_count,
        by[deepest].iter().sum::<u64>(),
        "every deepest layout counted"
    );
    assert!(!found.deepest.is_empty());
    assert_eq!(
        found.clusters,
        plain_clusters(rows, cols, red_row, &dist),
        "{rows}x{cols}: clusters by their deepest layout"
    );
    for layout in &found.deepest {
        let r = l.rank(layout).unwrap();
        assert_eq!(dist[r as usize] as usize, deepest, "{layout:?}");
    }
}

#[test]
fn small_boards_agree_with_a_plain_search() {
    agrees(2, 2, 0);
    agrees(3, 3, 1);
    agrees(4, 4, 1);
    agrees(3, 5, 1);
    agrees(5, 3, 2);
    agrees(4, 5, 1);
    agrees(5, 4, 2);
}

#[test]
fn a_blocked_red_car_is_never_solved_and_every_group_is_counted() {
    let census = Census::new(3, 4, 0).unwrap();
    let found = census.run(&Silent).unwrap();
    let l = Layouts::new(3, 4, 0).unwrap();
    assert_eq!(found.layouts, l.count());
    assert!(found.solvable() <= l.count_unblocked());
    assert!(found.solvable() < found.layouts);
}

#[test]
fn the_6x6_groups_add_up_to_the_transfer_matrix_count() {
    // Only counted (no search): the groups' sizes over every choice of rows, against
    // the transfer matrix's count and the figure.
    let census = Census::rush_hour();
    assert_eq!(census.groups(), 8u64.pow(6));
    assert_eq!(layouts_of(&census), Some(49_425_302_142));
    assert_eq!(census.count(), Ok(49_425_302_142));
}

#[test]
fn foglemans_hardest_board_without_walls_is_deepest_in_its_group() {
    // One group of the 6x6 census (his board's rows): its deepest layouts are 51 moves
    // from the exit, his board among them, as the whole census finds (docs/rush-hour.md).
    let census = Census::rush_hour();
    let board = Board::parse("BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM.").unwrap();
    let layout = Layout::from_board(&board).unwrap();
    let g = census.group_of(&layout).unwrap();
    let found = census.group(g).unwrap();
    assert_eq!(found.deepest_distance, 51);
    assert!(found.deepest.contains(&layout), "{:?}", found.deepest);
}

#[test]
fn the_census_order_ranks_every_layout_once() {
    // Small boards: every census rank unranks to a layout the transfer matrix ranks, each
    // once, and ranks back to itself.
    for (rows, cols, red_row) in [(3, 3, 1), (4, 4, 1), (3, 5, 1), (4, 5, 2)] {
        let census = Census::new(rows, cols, red_row).unwrap();
        let offsets = census.offsets().unwrap();
        let l = Layouts::new(rows, cols, red_row).unwrap();
        assert_eq!(*offsets.last().unwrap(), l.count());
        let mut seen = vec![false; l.count() as usize];
        for r in 0..l.count() {
            let layout = census.unrank(&offsets, r).unwrap();
            assert_eq!(census.rank(&offsets, &layout), Ok(r));
            let t = l.rank(&layout).unwrap() as usize;
            assert!(
                !seen[t],
                "{rows}x{cols}: rank {r} unranks to a layout twice"
            );
            seen[t] = true;
        }
        assert!(matches!(
            census.unrank(&offsets, l.count()),
            Err(CensusError::RankOutside { .. })
        ));
    }
    // The 6x6: Fogleman's board and back.
    let census = Census::rush_hour();
    let offsets = census.offsets().unwrap();
    let board = Board::parse("BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM.").unwrap();
    let layout = Layout::from_board(&board).unwrap();
    let r = census.rank(&offsets, &layout).unwrap();
    assert_eq!(census.unrank(&offsets, r).unwrap(), layout);
    // A layout of another board is refused.
    let small = Census::new(4, 4, 1).unwrap();
    let layout = small.unrank(&small.offsets().unwrap(), 0).unwrap();
    assert_eq!(census.rank(&offsets, &layout), Err(CensusError::NotALayout));
}

#[test]
fn shapes_outside_the_census_are_refused() {
    assert!(matches!(
        Census::new(9, 6, 2),
        Err(CensusError::Shape { .. })
    ));
    assert!(matches!(
        Census::new(6, 6, 6),
        Err(CensusError::Shape { .. })
    ));
    assert!(matches!(
        Census::new(1, 6, 0),
        Err(CensusError::Shape { .. })
    ));
}
