//! Closed knight's tours: every way for a knight to visit each square of a board once
//! and return to its starting square.
//!
//! Boards are data ([`TourBoard`]): a rectangle with some cells missing. The present
//! cells are the squares, numbered row-major from 0. A tour is written as the sequence
//! of all squares starting at square 0; both directions of travel are listed, as two
//! distinct sequences. The rows of the database ([`closed_tours`]) are
//!
//! * `rank`: the index of the sequence in lexicographic order of the sequences (compared
//!   as numbers, square by square);
//! * `state`: the squares separated by single spaces, e.g. `0 6 12 11 4 9 2 1 7 13 8 3 10 5`;
//! * `value`: none;
//! * `canonical`: true for exactly one direction of each tour, the one whose second
//!   square is greater than its last (the direction seed 000 prints first).
//!
//! The search is a depth-first search from square 0 with pruning that never discards a
//! tour (the rules are documented on the private `Search::viable_moves`), split on its first moves into independent
//! subtrees that rayon searches in parallel.

pub mod spec;

use rayon::prelude::*;
use serde_json::json;

use crate::spec::{MoveRule, Spec, empty};
use puzzlebase_core::progress::Progress;
use puzzlebase_core::space::StateError;
use puzzlebase_solvers::enumerate::Solution;
use serde_json::Value;

use crate::tokens::KNIGHT_MOVES as KNIGHT;

/// A board for knight's tours: `rows` x `cols` cells minus the `missing` ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TourBoard {
    /// Puzzle identifier.
    pub name: &'static str,
    pub rows: usize,
    pub cols: usize,
    /// Cells (row, column) that are not part of the board.
    pub missing: Vec<(usize, usize)>,
}

impl TourBoard {
    /// The present cells in square order (row-major).
    pub fn cells(&self) -> Vec<(usize, usize)> {
        (0..self.rows)
            .flat_map(|r| (0..self.cols).map(move |c| (r, c)))
            .filter(|cell| !self.missing.contains(cell))
            .collect()
    }

    /// Number of squares.
    pub fn squares(&self) -> usize {
        self.cells().len()
    }

    /// For each square, the squares a knight reaches from it, ascending.
    pub fn adjacency(&self) -> Vec<Vec<u8>> {
        let cells = self.cells();
        // Squares are stored as u8 and searched as u64 bit sets.
        assert!(
            cells.len() <= 64,
            "board {} has more than 64 squares",
            self.name
        );
        let square_of = |r: isize, c: isize| {
            let (r, c) = (usize::try_from(r).ok()?, usize::try_from(c).ok()?);
            cells.iter().position(|&cell| cell == (r, c))
        };
        cells
            .iter()
            .map(|&(r, c)| {
                let mut next: Vec<u8> = KNIGHT
                    .iter()
                    .filter_map(|&(dr, dc)| square_of(r as isize + dr, c as isize + dc))
                    .map(|s| s as u8)
                    .collect();
                next.sort_unstable();
                next
            })
            .collect()
    }

    /// The board drawn with square numbers (`x` for missing cells), one string per row.
    pub fn layout(&self) -> Vec<String> {
        let cells = self.cells();
        let width = cells.len().saturating_sub(1).to_string().len();
        (0..self.rows)
            .map(|r| {
                let row: Vec<String> = (0..self.cols)
                    .map(|c| match cells.iter().position(|&cell| cell == (r, c)) {
                        Some(s) => format!("{s:>width$}"),
                        None => format!("{:>width$}", "x"),
                    })
                    .collect();
                row.join(" ")
            })
            .collect()
    }

    /// A self-contained description of the board and of the database's conventions.
    pub fn definition(&self) -> serde_json::Value {
        json!({
            "name": self.name,
            "rows": self.rows,
            "cols": self.cols,
            "missing": self.missing,
            "squares": self.squares(),
            "numbering": "present cells numbered row-major from 0",
            "cells": self.cells(),
            "diagram": self.layout(),
            "adjacency": self.adjacency(),
            "rule": "visit every square exactly once by knight moves and return to the start",
            "state": "all squares of a closed tour starting at square 0, separated by single spaces; both directions are listed",
            "rank": "index of the sequence in lexicographic order of the sequences (squares compared as numbers)",
            "canonical": "the direction whose second square is greater than its last square",
            "layout": puzzlebase_core::definition::layout(
                self.cells().iter().map(|&(r, c)| [c as f64, r as f64]),
                &self.adjacency(),
            ),
            "spec": tour_spec(self),
        })
    }

    /// Reads a closed tour: every square once, separated by spaces or commas, each step
    /// (and the step from the last square back to the first) a knight move. The start
    /// may be repeated at the end, as seed 000 prints it. The tour may start anywhere;
    /// it is returned rotated to start at square 0, direction kept, as stored.
    pub fn parse_tour(&self, text: &str) -> Result<Vec<u8>, StateError> {
        let bad = |reason: String| StateError::malformed(text, reason);
        let n = self.squares();
        let mut seq = Vec::with_capacity(n + 1);
        for token in text.split(|c: char| c.is_whitespace() || c == ',') {
            if token.is_empty() {
                continue;
            }
            let s: usize = token
                .parse()
                .map_err(|_| bad(format!("{token:?} is not a square number")))?;
            if s >= n {
                return Err(bad(format!("square {s} is not on the board (0..{n})")));
            }
            seq.push(s as u8);
        }
        if seq.len() == n + 1 && seq.first() == seq.last() {
            seq.pop();
        }
        if seq.len() != n {
            return Err(bad(format!("expected {n} squares, found {}", seq.len())));
        }
        let mut seen = 0u64;
        for &s in &seq {
            if seen & (1 << s) != 0 {
                return Err(bad(format!("square {s} is visited twice")));
            }
            seen |= 1 << s;
        }
        let adj = self.adjacency();
        for i in 0..n {
            let (a, b) = (seq[i], seq[(i + 1) % n]);
            if !adj[a as usize].contains(&b) {
                return Err(bad(format!("{a} -> {b} is not a knight move")));
            }
        }
        let zero = seq.iter().position(|&s| s == 0).unwrap();
        seq.rotate_left(zero);
        Ok(seq)
    }
}

/// The canonical direction of a tour starting at square 0: second square > last.
pub fn is_canonical_direction(tour: &[u8]) -> bool {
    tour.len() > 1 && tour[1] > tour[tour.len() - 1]
}

/// The notation: squares separated by single spaces.
pub fn format_tour(tour: &[u8]) -> String {
    tour.iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every closed tour of `board` as a sequence from square 0, both directions, sorted
/// lexicographically; `rank` is the index in that order.
pub fn closed_tours(board: &TourBoard, progress: &dyn Progress) -> Vec<Solution> {
    let search = Search::new(board);
    if search.n == 0 {
        return Vec::new();
    }
    // Split on the first moves until there are enough independent subtrees to keep
    // every core busy despite their very uneven sizes.
    const WANTED_SUBTREES: usize = 1024;
    let mut prefixes = vec![vec![0u8]];
    let mut depth = 1;
    while prefixes.len() < WANTED_SUBTREES && depth < search.n {
        depth += 1;
        let mut next = Vec::new();
        for p in &prefixes {
            let mut path = p.clone();
            search.dfs(&mut path, search.free_after(p), depth, &mut |q| {
                next.push(q.to_vec())
            });
        }
        if next.is_empty() {
            return Vec::new();
        }
        prefixes = next;
    }
    progress.phase(board.name, prefixes.len() as u64);
    let found: Vec<Vec<Vec<u8>>> = prefixes
        .par_iter()
        .map(|p| {
            let mut path = p.clone();
            let mut tours = Vec::new();
            search.dfs(&mut path, search.free_after(p), usize::MAX, &mut |t| {
                tours.push(t.to_vec())
            });
            progress.advance(1);
            tours
        })
        .collect();
    let mut tours: Vec<Vec<u8>> = found.into_iter().flatten().collect();
    // The DFS already yields lexicographic order; sorting makes that a guarantee.
    tours.sort_unstable();
    tours
        .iter()
        .enumerate()
        .map(|(rank, t)| Solution {
            rank: rank as u64,
            state: format_tour(t),
            value: None,
            canonical: is_canonical_direction(t),
        })
        .collect()
}

/// The search state shared by all subtrees: the board as bit sets.
struct Search {
    n: usize,
    /// `adj[s]`: bit set of the squares a knight reaches from `s`.
    adj: Vec<u64>,
    all: u64,
}

impl Search {
    fn new(board: &TourBoard) -> Self {
        let adj: Vec<u64> = board
            .adjacency()
            .iter()
            .map(|next| next.iter().fold(0, |m, &s| m | 1 << s))
            .collect();
        let n = adj.len();
        let all = if n == 64 { u64::MAX } else { (1 << n) - 1 };
        Search { n, adj, all }
    }

    fn free_after(&self, path: &[u8]) -> u64 {
        path.iter().fold(self.all, |m, &s| m & !(1 << s))
    }

    /// Extends `path` (from square 0; `free` = squares not on it) depth first, calling
    /// `emit` with every completed closed tour, in lexicographic order, and with every
    /// viable path of length `stop_at` instead of searching below it.
    fn dfs(&self, path: &mut Vec<u8>, free: u64, stop_at: usize, emit: &mut dyn FnMut(&[u8])) {
        let end = *path.last().unwrap() as usize;
        if free == 0 {
            if self.n == 1 || self.adj[end] & 1 != 0 {
                emit(path);
            }
            return;
        }
        if path.len() >= stop_at {
            emit(path);
            return;
        }
        let mut moves = self.viable_moves(end, free);
        while moves != 0 {
            let next = moves.trailing_zeros() as u8;
            moves &= moves - 1;
            path.push(next);
            self.dfs(path, free & !(1 << next), stop_at, emit);
            path.pop();
        }
    }

    /// The moves from `end` that can still lead to a closed tour, given the unvisited
    /// squares `free` (non-empty); empty when the path is a dead end.
    ///
    /// What remains to find is a path from `end` through every free square to some free
    /// square next to square 0. Give each free square its "exits": its free neighbours,
    /// plus `end` if adjacent (it may be entered from there) plus square 0 if adjacent
    /// (it may be the last square). A free square is entered once and left once, so:
    ///
    /// * fewer than two exits: no tour (dead end);
    /// * exactly two exits, one of them `end`: it must be entered from `end` now, so it
    ///   is the only move; two such squares cannot both be next, so no tour;
    /// * exactly two exits, one of them square 0: it must be the last square; two such
    ///   squares cannot both be last;
    /// * exactly two exits, `end` and square 0, while other squares are free: it would be
    ///   both next and last;
    /// * `end` with no free neighbour, or square 0 with none left to return from: no
    ///   tour.
    ///
    /// Each rule only removes paths that cannot be completed, so no tour is lost.
    fn viable_moves(&self, end: usize, free: u64) -> u64 {
        let from_end = self.adj[end] & free;
        let to_start = self.adj[0] & free;
        if from_end == 0 || to_start == 0 {
            return 0;
        }
        let single = free & (free - 1) == 0;
        let mut forced = 0u64;
        let mut last_forced = false;
        let mut rest = free;
        while rest != 0 {
            let s = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let bit = 1u64 << s;
            let near_end = from_end & bit != 0;
            let near_start = to_start & bit != 0;
            let exits = (self.adj[s] & free).count_ones() + near_end as u32 + near_start as u32;
            if exits < 2 {
                return 0;
            }
            if exits == 2 {
                if near_end && near_start && !single {
                    return 0;
                }
                if near_end {
                    if forced != 0 {
                        return 0;
                    }
                    forced = bit;
                }
                if near_start && !single {
                    if last_forced {
                        return 0;
                    }
                    last_forced = true;
                }
            }
        }
        if forced != 0 { forced } else { from_end }
    }
}

/// The spec of a tour board (its definition holds nothing else).
pub fn tour_spec(b: &TourBoard) -> Value {
    let spec = Spec {
        rows: Some(b.rows),
        cols: Some(b.cols),
        missing: (!b.missing.is_empty()).then(|| b.missing.iter().map(|&(r, c)| [r, c]).collect()),
        rule: Some(MoveRule::Knight),
        ..empty(b.name, "tour")
    };
    serde_json::to_value(spec).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use puzzlebase_core::progress::Silent;

    fn seed_board() -> TourBoard {
        crate::catalog::builtin_tours()
            .into_iter()
            .find(|b| b.name == "knight-tour")
            .unwrap()
    }

    fn board(name: &str) -> TourBoard {
        crate::catalog::builtin_tours()
            .into_iter()
            .find(|b| b.name == name)
            .unwrap()
    }

    /// Every structural property a list of tours must have.
    fn check_tours(board: &TourBoard, tours: &[Solution]) {
        let n = board.squares();
        let adj = board.adjacency();
        let seqs: Vec<Vec<u8>> = tours
            .iter()
            .map(|t| t.state.split(' ').map(|s| s.parse().unwrap()).collect())
            .collect();
        for (i, (t, seq)) in tours.iter().zip(&seqs).enumerate() {
            assert_eq!(t.rank, i as u64);
            assert_eq!(t.value, None);
            assert_eq!(seq.len(), n);
            assert_eq!(seq[0], 0);
            let mut sorted = seq.clone();
            sorted.sort_unstable();
            assert!(sorted.iter().enumerate().all(|(i, &s)| s as usize == i));
            for k in 0..n {
                assert!(adj[seq[k] as usize].contains(&seq[(k + 1) % n]));
            }
            assert_eq!(board.parse_tour(&t.state).as_ref(), Ok(seq));
        }
        assert!(seqs.windows(2).all(|w| w[0] < w[1]));
        // Directions pair up: each sequence's reverse (from 0) is present, and exactly
        // one of the pair is canonical.
        for (t, seq) in tours.iter().zip(&seqs) {
            let mut rev = seq.clone();
            rev[1..].reverse();
            assert_ne!(&rev, seq);
            let j = seqs.binary_search(&rev).expect("reverse direction missing");
            assert_ne!(t.canonical, tours[j].canonical);
        }
        assert_eq!(
            tours.iter().filter(|t| t.canonical).count() * 2,
            tours.len()
        );
    }

    #[test]
    fn seed_board_adjacency_matches_seed() {
        let seed: [&[u8]; 14] = [
            &[5, 6],
            &[2, 7],
            &[1, 9],
            &[7, 8, 10],
            &[6, 9, 11],
            &[0, 10],
            &[0, 4, 10, 12],
            &[1, 3, 9, 13],
            &[3, 13],
            &[2, 4, 7],
            &[3, 5, 6],
            &[4, 12],
            &[6, 11],
            &[7, 8],
        ];
        let b = seed_board();
        assert_eq!(b.squares(), 14);
        assert_eq!(b.adjacency(), seed.map(|s| s.to_vec()).to_vec());
        assert_eq!(b.layout()[2], " 6  x  x  7");
        assert_eq!(b.definition()["squares"], 14);
    }

    #[test]
    fn seed_board_has_one_tour() {
        let b = seed_board();
        let tours = closed_tours(&b, &Silent);
        let states: Vec<(&str, bool)> = tours
            .iter()
            .map(|t| (t.state.as_str(), t.canonical))
            .collect();
        assert_eq!(
            states,
            [
                ("0 5 10 3 8 13 7 1 2 9 4 11 12 6", false),
                ("0 6 12 11 4 9 2 1 7 13 8 3 10 5", true),
            ]
        );
        check_tours(&b, &tours);
    }

    #[test]
    fn parse_tour_validates() {
        let b = seed_board();
        let want: Vec<u8> = vec![0, 6, 12, 11, 4, 9, 2, 1, 7, 13, 8, 3, 10, 5];
        assert_eq!(
            b.parse_tour("0 6 12 11 4 9 2 1 7 13 8 3 10 5"),
            Ok(want.clone())
        );
        // As the seed prints it, with the start repeated.
        assert_eq!(
            b.parse_tour("0 6 12 11 4 9 2 1 7 13 8 3 10 5 0"),
            Ok(want.clone())
        );
        // Started elsewhere, commas.
        assert_eq!(b.parse_tour("4,9,2,1,7,13,8,3,10,5,0,6,12,11"), Ok(want));
        for bad in [
            "",
            "0 6 12 11 4 9 2 1 7 13 8 3 10",     // too short
            "0 6 12 11 4 9 2 1 7 13 8 3 10 14",  // off the board
            "0 6 12 11 4 9 2 1 7 13 8 3 10 10",  // repeated
            "0 6 12 11 4 9 2 1 7 13 8 3 5 10",   // 3 -> 5 not a knight move
            "0 6 12 11 4 9 2 1 7 13 8 3 10 5 6", // wrong repeat
            "0 6 12 11 4 9 2 1 7 13 8 3 10 five",
        ] {
            assert!(b.parse_tour(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn boards_without_tours_give_none() {
        // 4x4: no closed tour (seed 000); 5x5: odd squares, none either.
        for (rows, cols) in [(4, 4), (5, 5), (3, 4)] {
            let b = TourBoard {
                name: "test",
                rows,
                cols,
                missing: vec![],
            };
            assert!(closed_tours(&b, &Silent).is_empty());
        }
    }

    #[test]
    fn pruned_search_agrees_with_brute_force() {
        // 3x10 has closed tours, few enough for an unpruned search to list them all.
        let b = TourBoard {
            name: "test",
            rows: 3,
            cols: 10,
            missing: vec![],
        };
        let adj = b.adjacency();
        let n = adj.len();
        fn brute(adj: &[Vec<u8>], path: &mut Vec<u8>, used: u64, out: &mut Vec<Vec<u8>>) {
            let end = *path.last().unwrap() as usize;
            if path.len() == adj.len() {
                if adj[end].contains(&0) {
                    out.push(path.clone());
                }
                return;
            }
            for &s in &adj[end] {
                if used & 1 << s == 0 {
                    path.push(s);
                    brute(adj, path, used | 1 << s, out);
                    path.pop();
                }
            }
        }
        let mut expected = Vec::new();
        brute(&adj, &mut vec![0], 1, &mut expected);
        expected.sort();
        let tours = closed_tours(&b, &Silent);
        let got: Vec<Vec<u8>> = tours
            .iter()
            .map(|t| b.parse_tour(&t.state).unwrap())
            .collect();
        // 16 closed tours up to direction on 3x10 (OEIS A070030).
        assert_eq!(expected.len(), 2 * 16);
        assert_eq!(got, expected);
        assert_eq!(n, 30);
        check_tours(&b, &tours);
    }

    /// The published count: 9862 closed tours on 6x6, up to direction. Well under a
    /// second with the pruning, so it runs with the ordinary tests.
    #[test]
    fn six_by_six_has_9862_tours() {
        let b = board("knight-tour-6x6");
        let tours = closed_tours(&b, &Silent);
        assert_eq!(tours.len(), 2 * 9862);
        assert_eq!(tours.iter().filter(|t| t.canonical).count(), 9862);
        check_tours(&b, &tours);
    }
}
