//! Breadth-first search with two bits per rank: each rank keeps its distance modulo 3,
//! and the fourth value means "not reached yet" (Korf's two-bit breadth-first search).
//! A table of 43.6 billion ranks (the 2x7 puzzle) then takes 10.9 GB instead of 43.6.
//!
//! Three residues are enough because neighbours' distances differ by at most one: from
//! a rank at distance `d`, a neighbour whose residue is `(d - 1) mod 3` is exactly one
//! closer, and walking such neighbours finds the distance and an optimal path.
//!
//! The search goes level by level like [`crate::solvers::bfs`]:
//! * **push** while the frontier is small: every rank whose residue is `d mod 3`, in the
//!   chunks flagged as holding level `d`, claims its unreached neighbours for `d + 1`.
//!   Ranks of levels `d - 3`, `d - 6`, ... in those chunks share the residue and are
//!   expanded again; their neighbours are all reached already, so this costs time, not
//!   correctness.
//! * **pull** once the unreached ranks are few: an unreached rank with a neighbour of
//!   residue `d mod 3` is at `d + 1`. That neighbour cannot be at `d - 3` or less (the
//!   rank would then have been reached by `d - 2`), so the test is exact.
//!
//! Claims are atomic (`fetch_and` on the word of 32 ranks), so every level's size is
//! exact and the table is the same whatever the number of threads.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::core::progress::Progress;
use crate::core::space::StateSpace;

/// The value of a rank not reached (yet).
pub const UNREACHED: u8 = 3;
/// Ranks per word.
const PER_WORD: u64 = 32;
/// Ranks per chunk: the unit of work and of the level flags (a multiple of [`PER_WORD`]).
const CHUNK: u64 = 1 << 14;
/// Pull once the ranks not reached, beyond the frontier, are at most this many times it.
const PULL_RATIO: u64 = 3;

/// Every rank's distance modulo 3 ([`UNREACHED`] where the goal cannot be reached), 32
/// ranks per little-endian `u64`, rank `r` in bits `2 (r mod 32)` and up of word
/// `r / 32`; and the number of ranks at each distance.
pub struct Table {
    pub ranks: u64,
    pub words: Vec<u64>,
    pub levels: Vec<u64>,
}

impl Table {
    /// The residue of `rank`'s distance, or [`UNREACHED`].
    pub fn get(&self, rank: u64) -> u8 {
        cell(self.words[(rank / PER_WORD) as usize], rank)
    }

    pub fn max_distance(&self) -> usize {
        self.levels.len() - 1
    }
}

#[inline]
fn cell(word: u64, rank: u64) -> u8 {
    (word >> (2 * (rank % PER_WORD)) & 3) as u8
}

/// Solves `space` backwards from its goals, two bits per rank. Fails only when a goal
/// is outside the space.
pub fn solve<S: StateSpace + ?Sized>(space: &S, progress: &dyn Progress) -> Result<Table, u64> {
    let n = space.size();
    let words: Vec<AtomicU64> = (0..n.div_ceil(PER_WORD))
        .into_par_iter()
        .map(|_| AtomicU64::new(u64::MAX))
        .collect();
    let chunks = n.div_ceil(CHUNK) as usize;
    let marks: [Vec<AtomicBool>; 2] =
        [0, 1].map(|_| (0..chunks).map(|_| AtomicBool::new(false)).collect());
    let t = Search { n, words, marks };
    let mut goals = 0;
    for g in space.goals() {
        if g >= n {
            return Err(g);
        }
        goals += t.claim(g, 0) as u64;
    }
    progress.phase("distances (two bits)", n);
    progress.advance(goals);
    let mut levels = vec![goals];
    let mut unreached = n - goals;
    let mut d = 0usize;
    while levels[d] > 0 {
        let frontier = levels[d];
        t.marks[(d + 1) % 2]
            .par_iter()
            .for_each(|m| m.store(false, Relaxed));
        let found = if unreached.saturating_sub(frontier) <= PULL_RATIO * frontier {
            t.pull(space, d)
        } else {
            t.push(space, d)
        };
        unreached -= found;
        progress.advance(found);
        levels.push(found);
        d += 1;
    }
    levels.pop();
    Ok(Table {
        ranks: n,
        words: t.words.into_iter().map(AtomicU64::into_inner).collect(),
        levels,
    })
}

struct Search {
    n: u64,
    words: Vec<AtomicU64>,
    marks: [Vec<AtomicBool>; 2],
}

impl Search {
    fn get(&self, rank: u64) -> u8 {
        cell(self.words[(rank / PER_WORD) as usize].load(Relaxed), rank)
    }

    /// Sets `rank` (unreached) to distance `d`; true if this call reached it.
    fn claim(&self, rank: u64, d: usize) -> bool {
        let shift = 2 * (rank % PER_WORD);
        // Unreached is 0b11: clearing the bits that `d mod 3` lacks sets it, and leaves
        // a rank already reached (by another thread in this level, same value) as it is.
        let clear = (3 ^ (d % 3) as u64) << shift;
        let old = self.words[(rank / PER_WORD) as usize].fetch_and(!clear, Relaxed);
        let was = (old >> shift & 3) as u8;
        if was == UNREACHED {
            let flag = &self.marks[d % 2][(rank / CHUNK) as usize];
            if !flag.load(Relaxed) {
                flag.store(true, Relaxed);
            }
        }
        was == UNREACHED
    }

    fn chunk(&self, c: usize) -> std::ops::Range<u64> {
        c as u64 * CHUNK..((c as u64 + 1) * CHUNK).min(self.n)
    }

    /// Level `d + 1` from the ranks of residue `d mod 3` in the chunks flagged for `d`.
    fn push<S: StateSpace + ?Sized>(&self, space: &S, d: usize) -> u64 {
        let want = (d % 3) as u8;
        (0..self.marks[d % 2].len())
            .into_par_iter()
            .filter(|&c| self.marks[d % 2][c].load(Relaxed))
            .map_init(Vec::new, |nbs, c| {
                let mut found = 0;
                for r in self.chunk(c) {
                    if self.get(r) != want {
                        continue;
                    }
                    nbs.clear();
                    space.neighbors(r, nbs);
                    for &nb in nbs.iter() {
                        if self.get(nb) == UNREACHED {
                            found += self.claim(nb, d + 1) as u64;
                        }
                    }
                }
                found
            })
            .sum()
    }

    /// Level `d + 1` as the unreached ranks with a neighbour of residue `d mod 3`.
    fn pull<S: StateSpace + ?Sized>(&self, space: &S, d: usize) -> u64 {
        let want = (d % 3) as u8;
        (0..self.marks[0].len())
            .into_par_iter()
            .map_init(Vec::new, |nbs, c| {
                let mut found = 0;
                let ranks = self.chunk(c);
                let mut r = ranks.start;
                while r < ranks.end {
                    // A word with no unreached rank is skipped whole (chunks start on
                    // word boundaries).
                    let word = self.words[(r / PER_WORD) as usize].load(Relaxed);
                    if r.is_multiple_of(PER_WORD) && !has_unreached(word) {
                        r += PER_WORD;
                        continue;
                    }
                    if cell(word, r) == UNREACHED {
                        nbs.clear();
                        space.neighbors(r, nbs);
                        if nbs.iter().any(|&nb| self.get(nb) == want) {
                            found += self.claim(r, d + 1) as u64;
                        }
                    }
                    r += 1;
                }
                found
            })
            .sum()
    }
}

/// Whether some two-bit cell of `w` is 0b11.
fn has_unreached(w: u64) -> bool {
    const LOW: u64 = 0x5555_5555_5555_5555;
    w & (w >> 1) & LOW != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::progress::Silent;
    use crate::families::sliding::Sliding;
    use crate::solvers::bfs::{self, Outputs};

    /// Every rank holds its distance modulo 3 (unreached where the plain solver has no
    /// distance) and the levels are the plain solver's: on bipartite grids (half the
    /// ranks unreached never happens there; the hexagonal `six` has unreached ranks).
    #[test]
    fn residues_and_levels_are_the_plain_solvers() {
        for g in [Sliding::grid("eight", 3, 3), Sliding::grid("nine", 2, 5)] {
            let plain = bfs::solve_with(&g, Outputs::DISTANCES, &Silent).unwrap();
            let two = solve(&g, &Silent).unwrap();
            assert_eq!(two.levels, plain.levels);
            for r in 0..g.size() {
                let d = plain.dist[r as usize];
                let want = if d == bfs::UNREACHED {
                    UNREACHED
                } else {
                    d % 3
                };
                assert_eq!(two.get(r), want, "rank {r}");
            }
            assert!(two.words.len() as u64 * 32 >= g.size());
        }
    }

    /// A graph with ranks that never reach the goal keeps them unreached.
    #[test]
    fn unreachable_ranks_stay_unreached() {
        struct Islands;
        impl StateSpace for Islands {
            fn size(&self) -> u64 {
                70
            }
            fn goals(&self) -> Vec<u64> {
                vec![0]
            }
            // Ranks below 40 form a path; the rest pair up among themselves.
            fn neighbors(&self, r: u64, out: &mut Vec<u64>) {
                if r < 40 {
                    out.extend((r > 0).then(|| r - 1));
                    out.extend((r + 1 < 40).then_some(r + 1));
                } else {
                    out.push(40 + ((r - 40) ^ 1));
                }
            }
        }
        let t = solve(&Islands, &Silent).unwrap();
        assert_eq!(t.levels, vec![1; 40]);
        for r in 0..70 {
            assert_eq!(t.get(r), if r < 40 { (r % 3) as u8 } else { UNREACHED });
        }
        assert!(solve(&Islands, &Silent).is_ok());
    }
}
