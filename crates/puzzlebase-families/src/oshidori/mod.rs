//! `oshidori`: the stone-pair puzzle ("おしどりの遊び", seed 004).
//!
//! Eight cells in a row, numbered 0 to 7 from the left, hold three black (`B`) and three
//! white (`W`) stones and two empty cells, which are always adjacent. A move takes two
//! stones on adjacent cells `i, i+1` and moves them, order kept, into the empty pair
//! `j, j+1` (any such pair of stones may move, as in the seed's C program); cells `i, i+1`
//! become the new empty pair. Every move is undone by moving the pair back.
//!
//! Start `BWBWBW--`, goal `BBBWWW--` (the seed also solves `WWWBBB--`). The row's length,
//! start and goal are data (`data/puzzles/oshidori.toml`, read by
//! the catalog); any length with two empty cells works the same way.
//!
//! # Notation
//!
//! Eight characters, cell 0 first: `B` black, `W` white, `-` empty. [`GraphPuzzle::format`]
//! writes upper case; [`GraphPuzzle::parse`] also accepts lower case and ignores
//! surrounding whitespace. Exactly three `B`, three `W` and two adjacent `-` are required.
//!
//! # Ranking scheme (`gap-x20+black-colex` for the seed's row)
//!
//! With `n` cells, `b` black stones and `n - 2 - b` white ones, every arrangement with
//! adjacent empties gets a rank in `0..(n-1)*C(n-2,b)`; for the seed's row
//! `0..7*C(6,3) = 0..140`:
//!
//! 1. `g` = the first empty cell (the empty pair is `g, g+1`), in `0..n-1`.
//! 2. Index the stone cells `0..n-2` from left to right (skipping the empty pair).
//!    `black` = the set of indices whose cell holds `B`, as a bit mask;
//!    `c = comb_rank(black)`, its colexicographic rank: with the indices sorted
//!    `k_1 < k_2 < k_3`, `c = C(k_1,1) + C(k_2,2) + C(k_3,3)`, in `0..20`.
//! 3. `rank = g * C(n-2,b) + c`.
//!
//! Examples: `BWBWBW--` (g = 6, black indices 0, 2, 4, b = 0 + 1 + 4 = 5) has rank 125;
//! `BBBWWW--` has rank 120; `WWWBBB--` (b = 3 + 6 + 10 = 19) has rank 139. See
//! [`puzzlebase_core::rank::comb_rank`].

pub mod spec;

use serde_json::json;

use puzzlebase_core::definition::Source;
use puzzlebase_core::rank::BINOM;
use puzzlebase_core::space::{GraphPuzzle, StateError, StateSpace};

use super::stones::{self, EMPTY};

/// Most cells a row may have (positions are read into a fixed buffer).
pub const MAX_CELLS: usize = 64;

/// The stone-pair puzzle. See the module documentation.
pub struct Oshidori {
    name: String,
    cells: usize,
    black: usize,
    colourings: u64,
    start: u64,
    goal: u64,
    source: Source,
}

/// Number of ranks of a row of `cells` cells with `black` black stones (`None` when it
/// does not fit in a `u64`).
pub fn rank_space(cells: usize, black: usize) -> Option<u64> {
    if !(3..=MAX_CELLS).contains(&cells) || black > cells - 2 {
        return None;
    }
    (cells as u64 - 1).checked_mul(BINOM[cells - 2][black])
}

impl Oshidori {
    /// A row of `start.len()` cells; the numbers of stones are the start's. The caller
    /// (the definition, spec.rs) has checked the length.
    pub fn from_parts(
        name: &str,
        start: &str,
        goal: &str,
        source: Source,
    ) -> Result<Self, StateError> {
        let cells = start.trim().chars().count();
        let black = start
            .trim()
            .chars()
            .filter(|c| c.eq_ignore_ascii_case(&'B'))
            .count();
        let mut p = Oshidori {
            name: name.to_string(),
            cells,
            black,
            colourings: BINOM[cells.saturating_sub(2)][black],
            start: 0,
            goal: 0,
            source,
        };
        p.start = p.parse(start)?;
        p.goal = p.parse(goal)?;
        Ok(p)
    }

    fn rank_cells(&self, cells: &[u8]) -> u64 {
        let gap = cells.iter().position(|&c| c == EMPTY).expect("two empties") as u64;
        gap * self.colourings + stones::colouring_rank(cells)
    }

    fn unrank_cells(&self, rank: u64, cells: &mut [u8]) {
        debug_assert!(rank < self.size());
        let gap = (rank / self.colourings) as usize;
        stones::colour(
            cells,
            |i| i != gap && i != gap + 1,
            rank % self.colourings,
            self.black,
        );
    }

    fn parse_cells(&self, text: &str) -> Result<Vec<u8>, StateError> {
        let white = self.cells - 2 - self.black;
        let cells = stones::parse(text, self.cells, self.black, white, "stones")?;
        // The stones leave exactly two empties; they must be neighbours.
        let gap = cells.iter().position(|&c| c == EMPTY).expect("two empties");
        if cells[gap + 1] != EMPTY {
            return Err(StateError::malformed(
                text,
                "the two empty cells must be adjacent",
            ));
        }
        Ok(cells)
    }
}

impl StateSpace for Oshidori {
    fn size(&self) -> u64 {
        (self.cells as u64 - 1) * self.colourings
    }
    fn goals(&self) -> Vec<u64> {
        vec![self.goal]
    }
    fn neighbors(&self, rank: u64, out: &mut Vec<u64>) {
        let mut buf = [EMPTY; MAX_CELLS];
        let cells = &mut buf[..self.cells];
        self.unrank_cells(rank, cells);
        let gap = (rank / self.colourings) as usize;
        let mut next = [EMPTY; MAX_CELLS];
        for i in 0..self.cells - 1 {
            if cells[i] != EMPTY && cells[i + 1] != EMPTY {
                let next = &mut next[..self.cells];
                next.copy_from_slice(cells);
                next[gap] = cells[i];
                next[gap + 1] = cells[i + 1];
                next[i] = EMPTY;
                next[i + 1] = EMPTY;
                out.push(self.rank_cells(next));
            }
        }
    }
}

impl GraphPuzzle for Oshidori {
    fn name(&self) -> &str {
        &self.name
    }
    fn family(&self) -> &str {
        "oshidori"
    }
    fn definition(&self) -> serde_json::Value {
        let white = self.cells - 2 - self.black;
        let mut d = json!({
            "name": self.name(),
            "cells": self.cells,
            "pieces": { "B": self.black, "W": white },
            "move": "two stones on adjacent cells move, order kept, into the adjacent empty pair",
            "start": self.format(self.start),
            "goal": self.format(self.goal),
            "notation": format!("{} characters, cell 0 first: B black, W white, - empty; the two empties adjacent", self.cells),
            "ranking": format!("gap-x{}+black-colex", self.colourings),
            "size": self.size(),
        });
        self.source.annotate(&mut d);
        d
    }
    fn notation(&self) -> String {
        format!(
            "one letter per cell ({} cells): B a black stone, W a white one, - empty; a move takes two neighbouring stones to the two empty cells",
            self.cells
        )
    }
    fn format(&self, rank: u64) -> String {
        let mut buf = [EMPTY; MAX_CELLS];
        let cells = &mut buf[..self.cells];
        self.unrank_cells(rank, cells);
        stones::format(cells)
    }
    fn parse(&self, text: &str) -> Result<u64, StateError> {
        self.parse_cells(text).map(|c| self.rank_cells(&c))
    }
    fn start(&self) -> Option<u64> {
        Some(self.start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use puzzlebase_core::progress::Silent;
    use puzzlebase_solvers::bfs::{self, DistanceTable, NO_NEXT, UNREACHED};
    use std::collections::HashSet;

    // The seed's puzzle, as its definition file states it.
    const CELLS: usize = 8;
    const SIZE: u64 = 140;
    const START: &str = "BWBWBW--";
    const GOAL: &str = "BBBWWW--";

    impl Oshidori {
        fn new() -> Oshidori {
            let spec = crate::catalog::builtin_spec("oshidori").unwrap();
            super::spec::oshidori(&spec).unwrap()
        }

        /// The same puzzle with another goal.
        fn with_goal(goal: &str) -> Result<Oshidori, StateError> {
            Oshidori::from_parts("oshidori", START, goal, Source::default())
        }
    }

    fn all_neighbors(p: &Oshidori) -> Vec<Vec<u64>> {
        (0..p.size())
            .map(|r| {
                let mut v = Vec::new();
                p.neighbors(r, &mut v);
                v
            })
            .collect()
    }

    /// Follows `next` from `from` to a goal, checking each step; returns the moves made.
    fn walk(p: &Oshidori, t: &DistanceTable, from: u64) -> Vec<String> {
        let mut r = from;
        let mut line = vec![p.format(r)];
        while t.next[r as usize] != NO_NEXT {
            let n = t.next[r as usize] as u64;
            let mut v = Vec::new();
            p.neighbors(r, &mut v);
            assert!(v.contains(&n));
            assert_eq!(t.dist[n as usize] + 1, t.dist[r as usize]);
            r = n;
            line.push(p.format(r));
        }
        assert_eq!(t.dist[r as usize], 0);
        line
    }

    fn check_distances(p: &Oshidori, t: &DistanceTable) {
        for (r, list) in all_neighbors(p).iter().enumerate() {
            let best = list.iter().map(|&n| t.dist[n as usize]).min();
            match t.dist[r] {
                0 => assert_eq!(r as u64, p.goals()[0]),
                UNREACHED => assert!(list.iter().all(|&n| t.dist[n as usize] == UNREACHED)),
                d => assert_eq!(best, Some(d - 1), "rank {r}"),
            }
        }
    }

    #[test]
    fn rank_round_trip_is_dense() {
        let p = Oshidori::new();
        assert_eq!(SIZE, 140);
        let mut seen = HashSet::new();
        for r in 0..p.size() {
            let s = p.format(r);
            assert!(s.contains("--"), "{s}");
            assert_eq!(s.matches('B').count(), 3);
            assert_eq!(s.matches('W').count(), 3);
            assert!(seen.insert(s.clone()), "{s} formatted twice");
            assert_eq!(p.parse(&s), Ok(r));
            assert_eq!(p.parse(&format!(" {} ", s.to_lowercase())), Ok(r));
        }
        assert_eq!(seen.len(), 140);
    }

    #[test]
    fn documented_example_ranks() {
        let p = Oshidori::new();
        assert_eq!(p.parse(START), Ok(125));
        assert_eq!(p.parse(GOAL), Ok(120));
        assert_eq!(p.parse("WWWBBB--"), Ok(139));
        assert_eq!(p.start(), Some(125));
        assert_eq!(p.goals(), vec![120]);
        assert_eq!(Oshidori::with_goal("WWWBBB--").unwrap().goals(), vec![139]);
    }

    #[test]
    fn parse_rejects_malformed_input() {
        let p = Oshidori::new();
        for bad in [
            "",
            "BWBWBW-",
            "BWBWBW---",
            "BWBWBWx-",
            "BBBBWW--",
            "BWBWBWW-",
        ] {
            assert!(
                matches!(p.parse(bad), Err(StateError::Malformed { .. })),
                "{bad:?}"
            );
        }
        match p.parse("BWB-WBW-") {
            Err(StateError::Malformed { reason, .. }) => {
                assert_eq!(reason, "the two empty cells must be adjacent")
            }
            other => panic!("{other:?}"),
        }
        assert!(Oshidori::with_goal("-BWBWBW-").is_err());
    }

    #[test]
    fn neighbors_are_symmetric_pair_moves() {
        let p = Oshidori::new();
        let nbs = all_neighbors(&p);
        let sets: Vec<HashSet<u64>> = nbs.iter().map(|v| v.iter().copied().collect()).collect();
        for (a, list) in nbs.iter().enumerate() {
            assert_eq!(sets[a].len(), list.len(), "duplicate neighbour of {a}");
            let sa = p.format(a as u64).into_bytes();
            let g = sa.iter().position(|&c| c == b'-').unwrap();
            // One move per pair of adjacent stones.
            let pairs = (0..CELLS - 1)
                .filter(|&i| sa[i] != b'-' && sa[i + 1] != b'-')
                .count();
            assert_eq!(list.len(), pairs);
            for &b in list {
                assert!(
                    sets[b as usize].contains(&(a as u64)),
                    "{a} -> {b} not undone"
                );
                let sb = p.format(b).into_bytes();
                let i = sb.iter().position(|&c| c == b'-').unwrap();
                // The pair that was on i, i+1 is now on g, g+1, in order; nothing else moved.
                assert_eq!(&sb[g..g + 2], &sa[i..i + 2]);
                assert_eq!(&sb[i..i + 2], b"--");
                for c in 0..CELLS {
                    if ![g, g + 1, i, i + 1].contains(&c) {
                        assert_eq!(sa[c], sb[c]);
                    }
                }
            }
        }
    }

    #[test]
    fn start_solves_in_4_moves() {
        let p = Oshidori::new();
        let t = bfs::solve(&p, &Silent).unwrap();
        let start = p.start().unwrap();
        assert_eq!(t.dist[start as usize], 4, "seed 004 reports 4 moves");
        let line = walk(&p, &t, start);
        assert_eq!(line.len(), 5);
        assert_eq!(line.last().unwrap(), GOAL);
        check_distances(&p, &t);
        let farthest: Vec<String> = (0..p.size())
            .filter(|&r| t.dist[r as usize] == t.max_distance())
            .map(|r| p.format(r))
            .collect();
        eprintln!("oshidori {GOAL} farthest: {farthest:?}");
        eprintln!(
            "oshidori {GOAL}: {} of {} arrangements reach the goal; max distance {} ({} \
             positions); start: {} solutions; line {line:?}",
            t.reached(),
            p.size(),
            t.max_distance(),
            t.levels[t.max_distance() as usize],
            t.count[start as usize],
        );
    }

    #[test]
    fn reversed_goal_also_solves_in_4_moves() {
        let p = Oshidori::with_goal("WWWBBB--").unwrap();
        assert_eq!(p.definition()["goal"], "WWWBBB--");
        let t = bfs::solve(&p, &Silent).unwrap();
        let start = p.start().unwrap();
        assert_eq!(
            t.dist[start as usize], 4,
            "seed 004: the reversed split takes 4 too"
        );
        let line = walk(&p, &t, start);
        assert_eq!(line.last().unwrap(), "WWWBBB--");
        check_distances(&p, &t);
        eprintln!(
            "oshidori WWWBBB--: {} of {} reach it; start: {} solutions; line {line:?}",
            t.reached(),
            p.size(),
            t.count[start as usize],
        );
    }
}
