//! The Tower of Hanoi with `k` pegs (3 is Lucas's puzzle, 4 the Reve's puzzle) and `n`
//! discs of distinct sizes: a move takes the top disc of a peg onto an empty peg or onto
//! a larger disc. Every move can be undone, so the shared breadth-first search applies.
//! The goal is every disc on the **last** peg; the start, unless the definition gives
//! another, the standard tower on the first.
//!
//! # Notation and ranks (`pegs-base-k`)
//!
//! A position is each disc's peg, as `n` letters (`A` the first peg), the **largest disc
//! first**: `AAB` has the two large discs on peg A and the smallest on B. Any such string
//! is a position (the discs on a peg are always stacked by size). Read as a number in
//! base `k` with `A` = 0 it is the position's rank, `0..k^n`: disc `d` (1 the smallest)
//! is digit `d - 1`, worth `k^(d-1)`. With 4 pegs every disc is two bits.
//!
//! # Distances
//!
//! The standard tower is 2^n - 1 moves from the goal, and no position farther: past 7
//! discs on 3 pegs that is more than a byte, and the search widens its table (the
//! solver's `solve_any`); two-bit tables need no width at all. The move graph is never bipartite (the smallest disc alone goes round a triangle of pegs),
//! so large tables keep distances modulo 3.

pub mod spec;

use serde_json::json;

use puzzlebase_core::definition::Source;
use puzzlebase_core::format::GraphAsk;
use puzzlebase_core::space::{GraphPuzzle, StateError, StateSpace};

/// The most pegs: one letter each.
pub const MAX_PEGS: usize = 26;
/// The most discs: a position's digits fit a `u64` for every rank space that can be
/// stored, and a position is read into a fixed buffer.
pub const MAX_DISCS: usize = 64;

/// The Tower of Hanoi. See the module documentation.
pub struct Hanoi {
    name: String,
    pegs: usize,
    discs: usize,
    /// `k^d` for `d` in `0..=n`.
    weight: Vec<u64>,
    /// Bits per digit when `k` is a power of two (digits are then shifts, not divisions).
    shift: Option<u32>,
    start: u64,
    goal: u64,
    storage: GraphAsk,
    source: Source,
}

/// The number of ranks, `pegs^discs`, when it fits a `u64`.
pub fn rank_space(pegs: usize, discs: usize) -> Option<u64> {
    (pegs as u64).checked_pow(u32::try_from(discs).ok()?)
}

impl Hanoi {
    /// `discs` discs on `pegs` pegs (the caller has checked that `pegs^discs` fits its
    /// storage), from the tower on the first peg to the tower on the last.
    pub fn new(name: &str, pegs: usize, discs: usize, storage: GraphAsk, source: Source) -> Hanoi {
        let mut weight = vec![1u64];
        for _ in 0..discs {
            weight.push(weight.last().unwrap().saturating_mul(pegs as u64));
        }
        let mut h = Hanoi {
            name: name.to_string(),
            pegs,
            discs,
            weight,
            shift: pegs.is_power_of_two().then(|| pegs.trailing_zeros()),
            start: 0,
            goal: 0,
            storage,
            source,
        };
        h.goal = h.tower(pegs - 1);
        h
    }

    /// The same puzzle from the position `start` (in the notation).
    pub fn with_start(mut self, start: &str) -> Result<Hanoi, StateError> {
        self.start = self.parse(start)?;
        Ok(self)
    }

    /// The same puzzle with the position `goal` (in the notation) to reach.
    pub fn with_goal(mut self, goal: &str) -> Result<Hanoi, StateError> {
        self.goal = self.parse(goal)?;
        Ok(self)
    }

    /// Every disc on peg `p`.
    pub fn tower(&self, p: usize) -> u64 {
        self.weight[..self.discs].iter().map(|w| w * p as u64).sum()
    }

    /// The number of pegs.
    pub fn pegs(&self) -> usize {
        self.pegs
    }

    /// The number of discs.
    pub fn discs(&self) -> usize {
        self.discs
    }

    /// The peg of each disc, smallest first.
    fn digits(&self, rank: u64, out: &mut [u8]) {
        match self.shift {
            Some(s) => {
                let mask = (1u64 << s) - 1;
                for (d, o) in out.iter_mut().enumerate() {
                    *o = (rank >> (s as usize * d) & mask) as u8;
                }
            }
            None => {
                let mut r = rank;
                for o in out.iter_mut() {
                    *o = (r % self.pegs as u64) as u8;
                    r /= self.pegs as u64;
                }
            }
        }
    }

    /// The smallest disc (numbered from 0) on each peg, `u8::MAX` on an empty peg.
    fn tops(&self, digits: &[u8], tops: &mut [u8]) {
        tops.fill(u8::MAX);
        for (d, &p) in digits.iter().enumerate().rev() {
            tops[p as usize] = d as u8;
        }
    }
}

impl StateSpace for Hanoi {
    fn size(&self) -> u64 {
        self.weight[self.discs]
    }
    fn goals(&self) -> Vec<u64> {
        vec![self.goal]
    }
    fn neighbors(&self, rank: u64, out: &mut Vec<u64>) {
        let mut dbuf = [0u8; MAX_DISCS];
        let mut tbuf = [0u8; MAX_PEGS];
        let (digits, tops) = (&mut dbuf[..self.discs], &mut tbuf[..self.pegs]);
        self.digits(rank, digits);
        self.tops(digits, tops);
        for a in 0..self.pegs {
            let d = tops[a];
            if d == u8::MAX {
                continue;
            }
            let w = self.weight[d as usize];
            for (b, &top) in tops.iter().enumerate() {
                // Onto an empty peg (u8::MAX) or a larger disc.
                if top > d {
                    out.push(rank - a as u64 * w + b as u64 * w);
                }
            }
        }
    }
}

impl GraphPuzzle for Hanoi {
    fn name(&self) -> &str {
        &self.name
    }
    fn family(&self) -> &str {
        "hanoi"
    }
    fn definition(&self) -> serde_json::Value {
        let mut d = json!({
            "name": self.name(),
            "pegs": self.pegs,
            "discs": self.discs,
            "move": "the top disc of a peg onto an empty peg or a larger disc",
            "start": self.format(self.start),
            "goal": self.format(self.goal),
            "notation": format!(
                "{} letters, each disc's peg (A the first), the largest disc first",
                self.discs
            ),
            "ranking": format!("pegs-base-{}", self.pegs),
            "size": self.size(),
        });
        self.source.annotate(&mut d);
        d
    }
    fn notation(&self) -> String {
        format!(
            "one letter per disc, the largest first: the peg (A to {}) it is on; moves: DISC: FROM\u{2192}TO (disc 1 the smallest)",
            (b'A' + self.pegs as u8 - 1) as char
        )
    }
    fn format(&self, rank: u64) -> String {
        let mut dbuf = [0u8; MAX_DISCS];
        let digits = &mut dbuf[..self.discs];
        self.digits(rank, digits);
        digits.iter().rev().map(|&p| (b'A' + p) as char).collect()
    }
    fn parse(&self, text: &str) -> Result<u64, StateError> {
        let t: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        if t.len() != self.discs {
            return Err(StateError::malformed(
                text,
                format!(
                    "{} letters for {} discs; give each disc's peg, the largest first",
                    t.len(),
                    self.discs
                ),
            ));
        }
        let last = (b'A' + self.pegs as u8 - 1) as char;
        let mut rank = 0u64;
        for c in t {
            let p = c.to_ascii_uppercase();
            if !('A'..=last).contains(&p) {
                return Err(StateError::malformed(
                    text,
                    format!("{c:?} is not a peg; the pegs are A to {last}"),
                ));
            }
            rank = rank * self.pegs as u64 + (p as u8 - b'A') as u64;
        }
        Ok(rank)
    }
    fn start(&self) -> Option<u64> {
        Some(self.start)
    }
    fn names_moves(&self) -> bool {
        true
    }
    fn move_name(&self, from: u64, to: u64) -> Option<String> {
        let mut a = [0u8; MAX_DISCS];
        let mut b = [0u8; MAX_DISCS];
        self.digits(from, &mut a[..self.discs]);
        self.digits(to, &mut b[..self.discs]);
        let d = (0..self.discs).find(|&d| a[d] != b[d])?;
        Some(format!(
            "{}: {}\u{2192}{}",
            d + 1,
            (b'A' + a[d]) as char,
            (b'A' + b[d]) as char
        ))
    }
    fn storage_asked(&self) -> GraphAsk {
        self.storage
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use puzzlebase_core::progress::Silent;
    use puzzlebase_solvers::bfs;
    use std::collections::HashSet;

    fn hanoi(pegs: usize, discs: usize) -> Hanoi {
        Hanoi::new("t", pegs, discs, GraphAsk::BySize, Source::default())
    }

    #[test]
    fn ranks_are_base_k_numbers_largest_disc_first() {
        let h = hanoi(3, 3);
        assert_eq!(h.size(), 27);
        assert_eq!(h.parse("AAA"), Ok(0));
        assert_eq!(h.parse("aab"), Ok(1));
        assert_eq!(h.parse("CCC"), Ok(26));
        assert_eq!(h.goals(), vec![26]);
        for r in 0..h.size() {
            assert_eq!(h.parse(&h.format(r)), Ok(r));
        }
        let h4 = hanoi(4, 5);
        for r in (0..h4.size()).step_by(7) {
            assert_eq!(h4.parse(&h4.format(r)), Ok(r));
        }
        for bad in ["", "AA", "AAAA", "AAD", "A1A"] {
            assert!(
                matches!(h.parse(bad), Err(StateError::Malformed { .. })),
                "{bad}"
            );
        }
    }

    /// The legal moves of a position, found from the stacks themselves.
    fn moves_by_stacks(h: &Hanoi, s: &str) -> HashSet<String> {
        let discs: Vec<usize> = s.bytes().rev().map(|c| (c - b'A') as usize).collect();
        let mut stacks = vec![Vec::new(); h.pegs];
        for (d, &p) in discs.iter().enumerate().rev() {
            stacks[p].push(d); // largest first, so the top is last
        }
        let mut out = HashSet::new();
        for (a, from) in stacks.iter().enumerate() {
            let Some(&d) = from.last() else { continue };
            for (b, onto) in stacks.iter().enumerate() {
                if b != a && onto.last().is_none_or(|&t| t > d) {
                    let mut nd = discs.clone();
                    nd[d] = b;
                    out.insert(nd.iter().rev().map(|&p| (b'A' + p as u8) as char).collect());
                }
            }
        }
        out
    }

    #[test]
    fn neighbours_are_the_legal_moves_and_are_named() {
        for (k, n) in [(3, 4), (4, 4), (5, 3)] {
            let h = hanoi(k, n);
            let mut v = Vec::new();
            for r in 0..h.size() {
                v.clear();
                h.neighbors(r, &mut v);
                let got: HashSet<String> = v.iter().map(|&x| h.format(x)).collect();
                assert_eq!(got.len(), v.len());
                assert_eq!(got, moves_by_stacks(&h, &h.format(r)), "{}", h.format(r));
            }
        }
        let h = hanoi(3, 3);
        let (a, b) = (h.parse("AAA").unwrap(), h.parse("AAC").unwrap());
        assert_eq!(h.move_name(a, b).as_deref(), Some("1: A\u{2192}C"));
    }

    #[test]
    fn three_pegs_take_two_to_the_n_minus_one() {
        // Lucas (1883): the tower of n discs moves in 2^n - 1 moves, and no fewer; and
        // from any position the tower on a given peg is at most 2^n - 1 moves away
        // (Hinz et al., "The Tower of Hanoi - Myths and Maths", 2013, the diameter of
        // the Hanoi graph to a perfect state).
        for n in 1..=7 {
            let h = hanoi(3, n);
            let t = bfs::solve(&h, &Silent).unwrap();
            assert_eq!(t.dist[0] as u32, (1 << n) - 1, "{n} discs");
            assert_eq!(t.max_distance() as u32, (1 << n) - 1);
            assert_eq!(t.reached(), h.size());
            // The tower's solution is unique.
            assert_eq!(t.count[0], 1);
        }
    }
}
