//! Tokens on a graph: black (`B`) and white (`W`) pieces, interchangeable within a
//! colour, on the cells of a graph; a move takes one piece along one edge to an empty
//! cell. `knight-swap` (seed 003) is the instance on a 3x4 board whose edges are knight's
//! moves; Guarini's 3x3 swap (`data/puzzles/examples/guarini.toml`) is another. The
//! graphs are data (`data/puzzles/*.toml`, read by the catalog); the
//! knight-move adjacency of a grid comes from [`knight_adjacency`].
//!
//! # Notation
//!
//! One character per cell, cell 0 first: `B` black piece, `W` white piece, `-` empty.
//! [`GraphPuzzle::format`] writes upper case; [`GraphPuzzle::parse`] also accepts lower
//! case and ignores surrounding whitespace. Exactly the start's numbers of `B` and `W`
//! are required.
//!
//! # Ranking scheme (`occupied-colex-xC+black-colex`)
//!
//! With `n` cells, `b` black and `w` white pieces (`k = b + w`), every arrangement gets
//! a rank in `0..C(n,k)*C(k,b)`, whether or not it can reach the goal:
//!
//! 1. `occupied` = the set of the `k` occupied cells, as a bit mask (bit `s` = cell `s`).
//!    `o = comb_rank(occupied)`, its colexicographic rank: with the occupied cells sorted
//!    `s_1 < s_2 < .. < s_k`, `o = sum over i of C(s_i, i)`.
//! 2. Index the occupied cells `0..k` in increasing cell order (`s_1` is index 0).
//!    `black` = the set of indices whose cell holds `B`, as a bit mask over `0..k`;
//!    `c = comb_rank(black)`, in `0..C(k,b)`.
//! 3. `rank = o * C(k,b) + c`.
//!
//! For `knight-swap` (12 cells, 3 + 3 knights, `C(6,3) = 20`): the start `BBB------WWW`
//! has `o = C(9,4)+C(10,5)+C(11,6) = 840`, `c = 0`, rank 16 800; the goal
//! `WWW------BBB` has the same `o` and `c = C(3,1)+C(4,2)+C(5,3) = 19`, rank 16 819. See
//! [`puzzlebase_core::rank::comb_rank`].

pub mod spec;

use serde_json::json;

use puzzlebase_core::definition::Source;
use puzzlebase_core::rank::{BINOM, comb_rank, comb_unrank};
use puzzlebase_core::space::{GraphPuzzle, StateError, StateSpace};

use super::stones::{self, EMPTY};

/// The eight knight moves as (row, column) offsets.
pub const KNIGHT_MOVES: [(isize, isize); 8] = [
    (-2, -1),
    (-2, 1),
    (-1, -2),
    (-1, 2),
    (1, -2),
    (1, 2),
    (2, -1),
    (2, 1),
];

/// Knight-move adjacency of a `rows` x `cols` board numbered row-major: entry `s` lists,
/// in increasing order, the squares one knight's move from square `s`.
pub fn knight_adjacency(rows: usize, cols: usize) -> Vec<Vec<usize>> {
    (0..rows * cols)
        .map(|s| {
            let (r, c) = ((s / cols) as isize, (s % cols) as isize);
            let mut to: Vec<usize> = KNIGHT_MOVES
                .iter()
                .map(|&(dr, dc)| (r + dr, c + dc))
                .filter(|&(r2, c2)| {
                    (0..rows as isize).contains(&r2) && (0..cols as isize).contains(&c2)
                })
                .map(|(r2, c2)| r2 as usize * cols + c2 as usize)
                .collect();
            to.sort_unstable();
            to
        })
        .collect()
}

/// Number of ranks of `cells` cells holding `black` + `white` pieces, `None` when it does
/// not fit in a `u64`.
pub fn rank_space(cells: usize, black: usize, white: usize) -> Option<u64> {
    let k = black + white;
    if cells > 64 || k > cells {
        return None;
    }
    BINOM[cells][k].checked_mul(BINOM[k][black])
}

/// Tokens on a graph. See the module documentation.
pub struct KnightSwap {
    name: String,
    adj: Vec<Vec<usize>>,
    black: usize,
    white: usize,
    colourings: u64,
    size: u64,
    start: u64,
    goal: u64,
    /// How the move is described in the definition (`knight's move`, `along an edge`).
    rule: String,
    source: Source,
}

impl KnightSwap {
    /// Tokens on the graph `adj` (symmetric, `adj.len() <= 64` cells), with the start and
    /// goal in the notation; the numbers of pieces are the start's. The caller
    /// (the definition, spec.rs) has checked the graph and the size of the rank space.
    pub fn from_parts(
        name: &str,
        adj: Vec<Vec<usize>>,
        start: &str,
        goal: &str,
        rule: &str,
        source: Source,
    ) -> Result<Self, StateError> {
        let count = |c: char| {
            start
                .trim()
                .chars()
                .filter(|x| x.eq_ignore_ascii_case(&c))
                .count()
        };
        let (black, white) = (count('B'), count('W'));
        let size = rank_space(adj.len(), black, white).unwrap_or(u64::MAX);
        let mut p = KnightSwap {
            name: name.to_string(),
            adj,
            black,
            white,
            colourings: BINOM[black + white][black],
            size,
            start: 0,
            goal: 0,
            rule: rule.to_string(),
            source,
        };
        p.start = p.parse(start)?;
        p.goal = p.parse(goal)?;
        Ok(p)
    }

    /// The adjacency in use (cell -> cells one move away).
    pub fn adjacency(&self) -> &[Vec<usize>] {
        &self.adj
    }

    fn cells(&self) -> usize {
        self.adj.len()
    }

    fn rank_cells(&self, cells: &[u8]) -> u64 {
        let occupied = (0..cells.len())
            .filter(|&s| cells[s] != EMPTY)
            .fold(0u64, |m, s| m | 1 << s);
        comb_rank(occupied) * self.colourings + stones::colouring_rank(cells)
    }

    fn unrank_cells(&self, rank: u64, cells: &mut [u8]) {
        debug_assert!(rank < self.size);
        let occupied = comb_unrank(rank / self.colourings, self.black + self.white);
        stones::colour(
            cells,
            |s| occupied >> s & 1 == 1,
            rank % self.colourings,
            self.black,
        );
    }
}

impl StateSpace for KnightSwap {
    fn size(&self) -> u64 {
        self.size
    }
    fn goals(&self) -> Vec<u64> {
        vec![self.goal]
    }
    fn neighbors(&self, rank: u64, out: &mut Vec<u64>) {
        let mut buf = [EMPTY; 64];
        let cells = &mut buf[..self.cells()];
        self.unrank_cells(rank, cells);
        for from in 0..cells.len() {
            if cells[from] == EMPTY {
                continue;
            }
            for &to in &self.adj[from] {
                if cells[to] == EMPTY {
                    cells.swap(from, to);
                    out.push(self.rank_cells(cells));
                    cells.swap(from, to);
                }
            }
        }
    }
}

impl GraphPuzzle for KnightSwap {
    fn name(&self) -> &str {
        &self.name
    }
    fn family(&self) -> &str {
        "tokens"
    }
    fn definition(&self) -> serde_json::Value {
        let n = self.cells();
        let mut d = json!({
            "name": self.name(),
            "cells": n,
            "adjacency": self.adj,
            "pieces": { "B": self.black, "W": self.white },
            "move": format!("one piece moves to an empty cell along an edge ({})", self.rule),
            "start": self.format(self.start),
            "goal": self.format(self.goal),
            "notation": format!("{n} characters, cell 0 first: B black piece, W white piece, - empty"),
            "ranking": format!("occupied-colex-x{}+black-colex", self.colourings),
            "size": self.size,
        });
        self.source.annotate(&mut d);
        d
    }
    fn notation(&self) -> String {
        format!(
            "one letter per square ({} squares): B a black piece, W a white one, - empty; pieces move by {}",
            self.cells(),
            self.rule
        )
    }
    fn format(&self, rank: u64) -> String {
        let mut buf = [EMPTY; 64];
        let cells = &mut buf[..self.cells()];
        self.unrank_cells(rank, cells);
        stones::format(cells)
    }
    fn parse(&self, text: &str) -> Result<u64, StateError> {
        let cells = stones::parse(text, self.cells(), self.black, self.white, "pieces")?;
        Ok(self.rank_cells(&cells))
    }
    fn start(&self) -> Option<u64> {
        Some(self.start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use puzzlebase_core::progress::Silent;
    use puzzlebase_solvers::bfs::{self, NO_NEXT, UNREACHED};
    use std::collections::{HashMap, HashSet, VecDeque};

    // The seed's puzzle, as its definition file states it.
    const ROWS: usize = 4;
    const COLS: usize = 3;
    const CELLS: usize = ROWS * COLS;
    const SIZE: u64 = 18_480;
    const START: &str = "BBB------WWW";
    const GOAL: &str = "WWW------BBB";

    impl KnightSwap {
        fn new() -> KnightSwap {
            let spec = crate::catalog::builtin_spec("knight-swap").unwrap();
            super::spec::tokens(&spec).unwrap()
        }
    }

    /// The adjacency printed in seed 003.
    const SEED_ADJ: [&[usize]; 12] = [
        &[5, 7],
        &[6, 8],
        &[3, 7],
        &[2, 8, 10],
        &[9, 11],
        &[0, 6, 10],
        &[1, 5, 11],
        &[0, 2],
        &[1, 3, 9],
        &[4, 8],
        &[3, 5],
        &[4, 6],
    ];

    fn all_neighbors(p: &KnightSwap) -> Vec<Vec<u64>> {
        (0..p.size())
            .map(|r| {
                let mut v = Vec::new();
                p.neighbors(r, &mut v);
                v
            })
            .collect()
    }

    #[test]
    fn derived_adjacency_matches_seed() {
        let adj = knight_adjacency(ROWS, COLS);
        let seed: Vec<Vec<usize>> = SEED_ADJ.iter().map(|a| a.to_vec()).collect();
        assert_eq!(adj, seed);
    }

    #[test]
    fn rank_round_trip_is_dense() {
        let p = KnightSwap::new();
        assert_eq!(SIZE, 18_480);
        let mut seen = HashSet::new();
        for r in 0..p.size() {
            let s = p.format(r);
            assert_eq!(s.len(), CELLS);
            assert_eq!(s.matches('B').count(), 3);
            assert_eq!(s.matches('W').count(), 3);
            assert!(seen.insert(s.clone()), "{s} formatted twice");
            assert_eq!(p.parse(&s), Ok(r));
            assert_eq!(p.parse(&format!("  {}\n", s.to_lowercase())), Ok(r));
        }
        // C(12,6) * C(6,3) distinct arrangements: every one has exactly one rank.
        assert_eq!(seen.len() as u64, BINOM[12][6] * BINOM[6][3]);
    }

    #[test]
    fn documented_example_ranks() {
        let p = KnightSwap::new();
        assert_eq!(p.parse(START), Ok(16_800));
        assert_eq!(p.parse(GOAL), Ok(16_819));
        assert_eq!(p.start(), Some(16_800));
        assert_eq!(p.goals(), vec![16_819]);
    }

    #[test]
    fn parse_rejects_malformed_input() {
        let p = KnightSwap::new();
        for bad in [
            "",
            "BBB------WW",
            "BBB------WWWW",
            "BBB---.--WWW",
            "BBBB-----WWW",
            "BB-------WWW",
            "BBB-----WWWW",
            "BBB - -- WWW",
        ] {
            match p.parse(bad) {
                Err(StateError::Malformed { reason, .. }) => assert!(!reason.is_empty()),
                other => panic!("{bad:?} parsed as {other:?}"),
            }
        }
    }

    #[test]
    fn neighbors_are_symmetric_single_knight_moves() {
        let p = KnightSwap::new();
        let nbs = all_neighbors(&p);
        let sets: Vec<HashSet<u64>> = nbs.iter().map(|v| v.iter().copied().collect()).collect();
        for (a, list) in nbs.iter().enumerate() {
            assert_eq!(sets[a].len(), list.len(), "duplicate neighbour of {a}");
            let sa: Vec<char> = p.format(a as u64).chars().collect();
            for &b in list {
                assert!(
                    sets[b as usize].contains(&(a as u64)),
                    "{a} -> {b} not undone"
                );
                let sb: Vec<char> = p.format(b).chars().collect();
                let diff: Vec<usize> = (0..CELLS).filter(|&i| sa[i] != sb[i]).collect();
                assert_eq!(diff.len(), 2, "{sa:?} -> {sb:?}");
                let (from, to) = if sb[diff[0]] == '-' {
                    (diff[0], diff[1])
                } else {
                    (diff[1], diff[0])
                };
                assert_eq!(sb[from], '-');
                assert_eq!(sa[to], '-');
                assert_eq!(sa[from], sb[to]);
                assert!(
                    SEED_ADJ[from].contains(&to),
                    "{from}->{to} is no knight move"
                );
            }
            // Every legal move is offered.
            let legal: usize = (0..CELLS)
                .filter(|&s| sa[s] != '-')
                .map(|s| SEED_ADJ[s].iter().filter(|&&t| sa[t] == '-').count())
                .sum();
            assert_eq!(list.len(), legal);
        }
    }

    #[test]
    fn solves_start_in_16_moves_and_distances_are_consistent() {
        let p = KnightSwap::new();
        let t = bfs::solve(&p, &Silent).unwrap();
        let start = p.start().unwrap() as usize;
        assert_eq!(t.dist[start], 16, "seed 003 reports 16 moves");

        // Following `next` from the start reaches the goal in 16 legal moves.
        let mut r = start as u64;
        let mut steps = 0;
        while t.next[r as usize] != NO_NEXT {
            let n = t.next[r as usize] as u64;
            let mut v = Vec::new();
            p.neighbors(r, &mut v);
            assert!(v.contains(&n));
            assert_eq!(t.dist[n as usize] + 1, t.dist[r as usize]);
            r = n;
            steps += 1;
        }
        assert_eq!(steps, 16);
        assert_eq!(p.format(r), GOAL);

        // Distance invariant over the whole space.
        let nbs = all_neighbors(&p);
        for (r, list) in nbs.iter().enumerate() {
            let best = list.iter().map(|&n| t.dist[n as usize]).min();
            match t.dist[r] {
                0 => assert_eq!(r as u64, p.goals()[0]),
                UNREACHED => assert!(list.iter().all(|&n| t.dist[n as usize] == UNREACHED)),
                d => assert_eq!(best, Some(d - 1), "rank {r}"),
            }
        }
        let max = t.max_distance();
        let farthest: Vec<String> = (0..p.size())
            .filter(|&r| t.dist[r as usize] == max)
            .map(|r| p.format(r))
            .collect();
        eprintln!("knight-swap farthest: {farthest:?}");
        eprintln!(
            "knight-swap: {} of {} arrangements reach the goal; max distance {} ({} positions); \
             start: {} moves, {} shortest solutions, {} overflowed",
            t.reached(),
            p.size(),
            max,
            t.levels[max as usize],
            t.dist[start],
            t.count[start],
            t.overflowed,
        );
    }

    /// An independent forward search from the start over strings, with the seed's
    /// adjacency, confirms the distance and the number of shortest solutions.
    #[test]
    fn independent_string_search_agrees() {
        let p = KnightSwap::new();
        let t = bfs::solve(&p, &Silent).unwrap();
        let mut dist: HashMap<String, u32> = HashMap::new();
        let mut count: HashMap<String, u64> = HashMap::new();
        let mut queue = VecDeque::new();
        dist.insert(START.to_string(), 0);
        count.insert(START.to_string(), 1);
        queue.push_back(START.to_string());
        while let Some(s) = queue.pop_front() {
            let d = dist[&s];
            let c = count[&s];
            let b = s.as_bytes();
            for from in 0..CELLS {
                if b[from] == b'-' {
                    continue;
                }
                for &to in SEED_ADJ[from] {
                    if b[to] != b'-' {
                        continue;
                    }
                    let mut nb = b.to_vec();
                    nb.swap(from, to);
                    let nb = String::from_utf8(nb).unwrap();
                    match dist.get(&nb) {
                        None => {
                            dist.insert(nb.clone(), d + 1);
                            count.insert(nb.clone(), c);
                            queue.push_back(nb);
                        }
                        Some(&dn) if dn == d + 1 => *count.get_mut(&nb).unwrap() += c,
                        Some(_) => {}
                    }
                }
            }
        }
        let start = p.start().unwrap() as usize;
        assert_eq!(dist[GOAL], t.dist[start] as u32);
        // Paths from start to goal counted forwards equal those counted backwards.
        assert_eq!(count[GOAL], t.count[start]);
        // The start's component is exactly the set of ranks that reach the goal.
        assert_eq!(dist.len() as u64, t.reached());
        for s in dist.keys() {
            assert_ne!(t.dist[p.parse(s).unwrap() as usize], UNREACHED);
        }
    }
}
