//! The shared solver for move-graph puzzles: a level-synchronous, direction-optimising
//! breadth-first search backwards from the goals over tables indexed by rank, followed by
//! a pass that counts shortest paths and picks an optimal next position.
//!
//! Memory is one byte of distance, four bytes of next rank and eight bytes of count per
//! rank, plus the ranks of the current frontier: no hash maps and no allocation per state.
//! A caller that needs only distances ([`Outputs::DISTANCES`], the packed tables of the
//! largest puzzles) pays for the byte alone.
//! Counts are accumulated in the same pass as distances: count(s) = sum of count(n) over
//! neighbours n one move closer. Every result is a function of the graph alone (the distance is unique, the
//! next position is the smallest-ranked optimal neighbour, the count is a sum), so the
//! tables are identical whatever the number of threads.

use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use thiserror::Error;

use crate::progress::Progress;
use crate::space::StateSpace;

/// Distance of a rank the search never reached (an unsolvable arrangement).
pub const UNREACHED: u8 = u8::MAX;
/// Next rank of a goal, or of an unreached rank.
pub const NO_NEXT: u32 = u32::MAX;
/// Count stored when the number of shortest paths exceeds [`COUNT_LIMIT`].
pub const COUNT_OVERFLOW: u64 = u64::MAX;
/// Largest count kept exactly: SQLite integers are signed 64-bit.
pub const COUNT_LIMIT: u64 = i64::MAX as u64;

/// Ranks handled per parallel work item: large enough to amortise scheduling and to
/// report progress once per chunk rather than once per state.
const CHUNK: usize = 1 << 14;

#[derive(Debug, Error)]
pub enum SolveError {
    #[error("state space of {0} ranks is too large for 32-bit rank tables")]
    TooLarge(u64),
    #[error("distance exceeds {max} moves; the one-byte distance table cannot hold it")]
    TooDeep { max: u8 },
    #[error("goal rank {0} is outside the state space")]
    BadGoal(u64),
}

/// Which tables besides the distances a solve computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outputs {
    /// The smallest-ranked optimal next position of every rank (four bytes per rank).
    pub next: bool,
    /// The number of shortest solutions of every rank (eight bytes per rank).
    pub counts: bool,
}

impl Outputs {
    pub const ALL: Outputs = Outputs {
        next: true,
        counts: true,
    };
    pub const DISTANCES: Outputs = Outputs {
        next: false,
        counts: false,
    };
}

/// Distances, optimal next positions and shortest-path counts for every rank.
pub struct Table {
    /// Moves to the nearest goal, [`UNREACHED`] where the goal cannot be reached.
    pub dist: Vec<u8>,
    /// Smallest rank of a neighbour one move closer, [`NO_NEXT`] for goals and unreached.
    /// Empty unless [`Outputs::next`] was asked for.
    pub next: Vec<u32>,
    /// Number of distinct shortest move sequences to a goal (0 where unreached,
    /// [`COUNT_OVERFLOW`] where it exceeds [`COUNT_LIMIT`]). Empty unless
    /// [`Outputs::counts`] was asked for.
    pub count: Vec<u64>,
    /// `levels[d]` = number of ranks at distance `d`.
    pub levels: Vec<u64>,
    /// Number of ranks whose count overflowed.
    pub overflowed: u64,
}

impl Table {
    pub fn reached(&self) -> u64 {
        self.levels.iter().sum()
    }
    pub fn max_distance(&self) -> u8 {
        (self.levels.len() - 1) as u8
    }
}

/// Solves `space` backwards from its goals: distances, next positions and counts.
pub fn solve<S: StateSpace + ?Sized>(
    space: &S,
    progress: &dyn Progress,
) -> Result<Table, SolveError> {
    solve_with(space, Outputs::ALL, progress)
}

/// Solves `space` backwards from its goals, computing only the tables in `outputs`
/// besides the distances (which are the same either way).
pub fn solve_with<S: StateSpace + ?Sized>(
    space: &S,
    outputs: Outputs,
    progress: &dyn Progress,
) -> Result<Table, SolveError> {
    let n = space.size();
    if n >= NO_NEXT as u64 {
        return Err(SolveError::TooLarge(n));
    }
    let len = n as usize;
    let t = Tables {
        dist: (0..len)
            .into_par_iter()
            .map(|_| AtomicU8::new(UNREACHED))
            .collect(),
        next: (0..if outputs.next { len } else { 0 })
            .into_par_iter()
            .map(|_| AtomicU32::new(NO_NEXT))
            .collect(),
        count: (0..if outputs.counts { len } else { 0 })
            .into_par_iter()
            .map(|_| AtomicU64::new(0))
            .collect(),
    };

    let mut frontier: Vec<u32> = Vec::new();
    for g in space.goals() {
        if g >= n {
            return Err(SolveError::BadGoal(g));
        }
        if t.dist[g as usize].swap(0, Relaxed) == UNREACHED {
            if let Some(c) = t.count.get(g as usize) {
                c.store(1, Relaxed);
            }
            frontier.push(g as u32);
        }
    }
    frontier.sort_unstable();

    progress.phase(
        if outputs.counts {
            "distances and counts"
        } else {
            "distances"
        },
        n,
    );
    let mut levels: Vec<u64> = Vec::new();
    let mut unvisited = n;
    let mut d: u8 = 0;
    while !frontier.is_empty() {
        unvisited -= frontier.len() as u64;
        progress.advance(frontier.len() as u64);
        levels.push(frontier.len() as u64);
        if d == UNREACHED - 1 {
            return Err(SolveError::TooDeep { max: UNREACHED - 1 });
        }
        // Pull once the unexplored part is no larger than a couple of frontiers: scanning
        // it then costs less than expanding the frontier, and needs no atomic updates.
        frontier = if unvisited <= 2 * frontier.len() as u64 {
            t.pull_level(space, d)
        } else {
            t.push_level(space, &frontier, d)
        };
        d += 1;
    }

    let overflowed = t
        .count
        .par_iter()
        .filter(|c| c.load(Relaxed) == COUNT_OVERFLOW)
        .count() as u64;
    Ok(Table {
        dist: into_plain_u8(t.dist),
        next: into_plain_u32(t.next),
        count: into_plain_u64(t.count),
        levels,
        overflowed,
    })
}

/// The three tables under construction (`next` and `count` empty when not wanted). Every
/// state's neighbours are generated once per role: as a parent when its level is pushed,
/// or as a child when its level is pulled.
struct Tables {
    dist: Vec<AtomicU8>,
    next: Vec<AtomicU32>,
    count: Vec<AtomicU64>,
}

/// `a + b`, or [`COUNT_OVERFLOW`] past [`COUNT_LIMIT`] (overflow is sticky).
fn add_counts(a: u64, b: u64) -> u64 {
    match a.checked_add(b) {
        Some(s) if s <= COUNT_LIMIT => s,
        _ => COUNT_OVERFLOW,
    }
}

impl Tables {
    /// Expands every rank at distance `d`: claims unreached neighbours for `d + 1` and adds
    /// this rank's count to every neighbour at `d + 1`. Sums and minima do not depend on
    /// the order in which threads apply them.
    fn push_level<S: StateSpace + ?Sized>(&self, space: &S, frontier: &[u32], d: u8) -> Vec<u32> {
        let parts: Vec<Vec<u32>> = frontier
            .par_chunks(CHUNK / 4)
            .map(|chunk| {
                let mut out = Vec::new();
                let mut buf = Vec::with_capacity(16);
                let (want_next, want_count) = (!self.next.is_empty(), !self.count.is_empty());
                for &r in chunk {
                    let c = self.count.get(r as usize).map_or(0, |c| c.load(Relaxed));
                    buf.clear();
                    space.neighbors(r as u64, &mut buf);
                    for &nb in &buf {
                        let i = nb as usize;
                        let cell = &self.dist[i];
                        let mut nd = cell.load(Relaxed);
                        if nd == UNREACHED {
                            // The exchange makes exactly one thread list each new rank.
                            match cell.compare_exchange(UNREACHED, d + 1, Relaxed, Relaxed) {
                                Ok(_) => {
                                    out.push(nb as u32);
                                    nd = d + 1;
                                }
                                Err(now) => nd = now,
                            }
                        }
                        if nd == d + 1 {
                            if want_next {
                                self.next[i].fetch_min(r, Relaxed);
                            }
                            if want_count {
                                let _ = self.count[i]
                                    .fetch_update(Relaxed, Relaxed, |old| Some(add_counts(old, c)));
                            }
                        }
                    }
                }
                out
            })
            .collect();
        let mut next = parts.concat();
        // Frontiers are kept in rank order so the next expansion reads memory in order.
        next.par_sort_unstable();
        next
    }

    /// Scans every unreached rank for neighbours at distance `d`; such a rank joins level
    /// `d + 1` with the sum of their counts. Writes only its own entries.
    fn pull_level<S: StateSpace + ?Sized>(&self, space: &S, d: u8) -> Vec<u32> {
        let parts: Vec<Vec<u32>> = self
            .dist
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(ci, chunk)| {
                let base = ci * CHUNK;
                let mut out = Vec::new();
                let mut buf = Vec::with_capacity(16);
                for (i, cell) in chunk.iter().enumerate() {
                    if cell.load(Relaxed) != UNREACHED {
                        continue;
                    }
                    let r = base + i;
                    buf.clear();
                    space.neighbors(r as u64, &mut buf);
                    let mut sum = 0u64;
                    let mut best = NO_NEXT;
                    for &nb in &buf {
                        if self.dist[nb as usize].load(Relaxed) == d {
                            best = best.min(nb as u32);
                            if let Some(c) = self.count.get(nb as usize) {
                                sum = add_counts(sum, c.load(Relaxed));
                            }
                        }
                    }
                    if best != NO_NEXT {
                        cell.store(d + 1, Relaxed);
                        if let Some(n) = self.next.get(r) {
                            n.store(best, Relaxed);
                        }
                        if let Some(c) = self.count.get(r) {
                            c.store(sum, Relaxed);
                        }
                        out.push(r as u32);
                    }
                }
                out
            })
            .collect();
        parts.concat()
    }
}

// The atomic integer types have the same size, alignment and bit validity as the plain
// ones (documented guarantee), so a finished table can be handed out without a copy.
fn into_plain_u8(v: Vec<AtomicU8>) -> Vec<u8> {
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: identical layout; ownership of the allocation moves to the new Vec.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr() as *mut u8, v.len(), v.capacity()) }
}
fn into_plain_u32(v: Vec<AtomicU32>) -> Vec<u32> {
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: identical layout; ownership of the allocation moves to the new Vec.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr() as *mut u32, v.len(), v.capacity()) }
}
fn into_plain_u64(v: Vec<AtomicU64>) -> Vec<u64> {
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: identical layout; ownership of the allocation moves to the new Vec.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr() as *mut u64, v.len(), v.capacity()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;

    /// A chain of `k` diamonds: 2^k shortest paths from one end to the other.
    struct Diamonds(u64);
    impl StateSpace for Diamonds {
        fn size(&self) -> u64 {
            3 * self.0 + 1
        }
        fn goals(&self) -> Vec<u64> {
            vec![0]
        }
        // Node 3i is a junction; 3i+1 and 3i+2 both join it to junction 3i+3.
        fn neighbors(&self, r: u64, out: &mut Vec<u64>) {
            match r % 3 {
                0 => {
                    if r > 0 {
                        out.extend([r - 2, r - 1]);
                    }
                    if r + 3 <= 3 * self.0 {
                        out.extend([r + 1, r + 2]);
                    }
                }
                1 => out.extend([r - 1, r + 2]),
                _ => out.extend([r - 2, r + 1]),
            }
        }
    }

    #[test]
    fn counts_paths_and_detects_overflow() {
        let t = solve(&Diamonds(10), &Silent).unwrap();
        assert_eq!(t.dist[30], 20);
        assert_eq!(t.count[30], 1 << 10);
        assert_eq!(t.next[30], 28);
        assert_eq!(t.overflowed, 0);

        let t = solve(&Diamonds(70), &Silent).unwrap();
        assert_eq!(t.count[3 * 62], 1 << 62);
        assert_eq!(t.count[3 * 63], COUNT_OVERFLOW, "2^63 exceeds i64::MAX");
        assert_eq!(t.count[3 * 70], COUNT_OVERFLOW);
        assert!(t.overflowed > 0);
    }

    #[test]
    fn unreachable_ranks_stay_unreached() {
        struct TwoIslands;
        impl StateSpace for TwoIslands {
            fn size(&self) -> u64 {
                4
            }
            fn goals(&self) -> Vec<u64> {
                vec![0]
            }
            fn neighbors(&self, r: u64, out: &mut Vec<u64>) {
                out.push(r ^ 1);
            }
        }
        let t = solve(&TwoIslands, &Silent).unwrap();
        assert_eq!(t.dist, vec![0, 1, UNREACHED, UNREACHED]);
        assert_eq!(t.count, vec![1, 1, 0, 0]);
        assert_eq!(t.levels, vec![1, 1]);
    }

    #[test]
    fn distances_alone_are_the_same_distances() {
        let full = solve(&Diamonds(12), &Silent).unwrap();
        let bare = solve_with(&Diamonds(12), Outputs::DISTANCES, &Silent).unwrap();
        assert_eq!(bare.dist, full.dist);
        assert_eq!(bare.levels, full.levels);
        assert!(bare.next.is_empty() && bare.count.is_empty());
        assert_eq!(bare.overflowed, 0);
    }
}
