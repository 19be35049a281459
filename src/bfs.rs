//! The shared solver for move-graph puzzles: a level-synchronous, direction-optimising
//! breadth-first search backwards from the goals over tables indexed by rank, followed by
//! a pass that counts shortest paths and picks an optimal next position.
//!
//! Memory is one byte of distance, four bytes of next rank and eight bytes of count per
//! rank, plus the ranks of each level (four bytes each): no hash maps and no allocation
//! per state. Every result is a function of the graph alone (the distance is unique, the
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

/// Distances, optimal next positions and shortest-path counts for every rank.
pub struct Table {
    /// Moves to the nearest goal, [`UNREACHED`] where the goal cannot be reached.
    pub dist: Vec<u8>,
    /// Smallest rank of a neighbour one move closer, [`NO_NEXT`] for goals and unreached.
    pub next: Vec<u32>,
    /// Number of distinct shortest move sequences to a goal (0 where unreached,
    /// [`COUNT_OVERFLOW`] where it exceeds [`COUNT_LIMIT`]).
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

/// Solves `space` backwards from its goals.
pub fn solve<S: StateSpace + ?Sized>(
    space: &S,
    progress: &dyn Progress,
) -> Result<Table, SolveError> {
    let n = space.size();
    if n >= NO_NEXT as u64 {
        return Err(SolveError::TooLarge(n));
    }
    let len = n as usize;
    let dist: Vec<AtomicU8> = (0..len)
        .into_par_iter()
        .map(|_| AtomicU8::new(UNREACHED))
        .collect();

    let mut frontier: Vec<u32> = Vec::new();
    for g in space.goals() {
        if g >= n {
            return Err(SolveError::BadGoal(g));
        }
        if dist[g as usize].swap(0, Relaxed) == UNREACHED {
            frontier.push(g as u32);
        }
    }
    frontier.sort_unstable();

    progress.phase("distances", n);
    let mut levels: Vec<Vec<u32>> = Vec::new();
    let mut unvisited = n;
    let mut d: u8 = 0;
    while !frontier.is_empty() {
        unvisited -= frontier.len() as u64;
        progress.advance(frontier.len() as u64);
        if d == UNREACHED - 1 {
            return Err(SolveError::TooDeep { max: UNREACHED - 1 });
        }
        // Pull once the unexplored part is no larger than a couple of frontiers: scanning
        // it then costs less than expanding the frontier, and needs no compare-and-swap.
        let next = if unvisited <= 2 * frontier.len() as u64 {
            pull_level(space, &dist, d)
        } else {
            push_level(space, &dist, &frontier, d)
        };
        levels.push(std::mem::replace(&mut frontier, next));
        d += 1;
    }

    let counts = count_paths(space, &dist, &levels, progress);
    let hist = levels.iter().map(|l| l.len() as u64).collect();
    let overflowed = counts.1;
    let (next, count) = counts.0;
    Ok(Table {
        dist: into_plain_u8(dist),
        next,
        count,
        levels: hist,
        overflowed,
    })
}

/// Expands every rank at distance `d` and claims unreached neighbours for `d + 1`.
fn push_level<S: StateSpace + ?Sized>(
    space: &S,
    dist: &[AtomicU8],
    frontier: &[u32],
    d: u8,
) -> Vec<u32> {
    let parts: Vec<Vec<u32>> = frontier
        .par_chunks(CHUNK / 4)
        .map(|chunk| {
            let mut out = Vec::new();
            let mut buf = Vec::with_capacity(16);
            for &r in chunk {
                buf.clear();
                space.neighbors(r as u64, &mut buf);
                for &nb in &buf {
                    let cell = &dist[nb as usize];
                    // The exchange makes exactly one thread own each newly reached rank.
                    if cell.load(Relaxed) == UNREACHED
                        && cell
                            .compare_exchange(UNREACHED, d + 1, Relaxed, Relaxed)
                            .is_ok()
                    {
                        out.push(nb as u32);
                    }
                }
            }
            out
        })
        .collect();
    let mut next = parts.concat();
    // Levels are kept in rank order so later passes read memory in order.
    next.par_sort_unstable();
    next
}

/// Scans every unreached rank for a neighbour at distance `d`; writes only its own entry.
fn pull_level<S: StateSpace + ?Sized>(space: &S, dist: &[AtomicU8], d: u8) -> Vec<u32> {
    let parts: Vec<Vec<u32>> = dist
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
                if buf.iter().any(|&nb| dist[nb as usize].load(Relaxed) == d) {
                    cell.store(d + 1, Relaxed);
                    out.push(r as u32);
                }
            }
            out
        })
        .collect();
    parts.concat()
}

/// Level by level, count(s) = sum of count(n) over neighbours n one move closer; the
/// next position is the smallest such n. Returns (next, count) and the overflow tally.
fn count_paths<S: StateSpace + ?Sized>(
    space: &S,
    dist: &[AtomicU8],
    levels: &[Vec<u32>],
    progress: &dyn Progress,
) -> ((Vec<u32>, Vec<u64>), u64) {
    let len = dist.len();
    progress.phase("solution counts", len as u64);
    let next: Vec<AtomicU32> = (0..len)
        .into_par_iter()
        .map(|_| AtomicU32::new(NO_NEXT))
        .collect();
    let count: Vec<AtomicU64> = (0..len)
        .into_par_iter()
        .map(|_| AtomicU64::new(0))
        .collect();
    for &g in levels.first().into_iter().flatten() {
        count[g as usize].store(1, Relaxed);
    }
    progress.advance(levels.first().map_or(0, |l| l.len() as u64));
    let mut overflowed = 0u64;
    for (d, level) in levels.iter().enumerate().skip(1) {
        let closer = (d - 1) as u8;
        overflowed += level
            .par_chunks(CHUNK / 4)
            .map(|chunk| {
                let mut buf = Vec::with_capacity(16);
                let mut over = 0u64;
                for &r in chunk {
                    buf.clear();
                    space.neighbors(r as u64, &mut buf);
                    let mut sum = 0u64;
                    let mut best = NO_NEXT;
                    for &nb in &buf {
                        if dist[nb as usize].load(Relaxed) != closer {
                            continue;
                        }
                        best = best.min(nb as u32);
                        let c = count[nb as usize].load(Relaxed);
                        sum = match sum.checked_add(c) {
                            Some(s) if s <= COUNT_LIMIT => s,
                            _ => COUNT_OVERFLOW,
                        };
                    }
                    over += (sum == COUNT_OVERFLOW) as u64;
                    count[r as usize].store(sum, Relaxed);
                    next[r as usize].store(best, Relaxed);
                }
                progress.advance(chunk.len() as u64);
                over
            })
            .sum::<u64>();
    }
    ((into_plain_u32(next), into_plain_u64(count)), overflowed)
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
}
