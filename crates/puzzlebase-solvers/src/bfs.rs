//! The shared solver for move-graph puzzles: a level-synchronous, direction-optimising
//! breadth-first search backwards from the goals over tables indexed by rank, followed by
//! a pass that counts shortest paths and picks an optimal next position.
//!
//! Memory is one byte of distance, four bytes of next rank and eight bytes of count per
//! rank, plus a flag per chunk of ranks: no frontier lists, no hash maps and no allocation per state.
//! A caller that needs only distances ([`Outputs::DISTANCES`], the packed tables of the
//! largest puzzles) pays for the byte alone. A search that reaches distance 254 (the
//! byte's last value below [`UNREACHED`]) either fails ([`solve_with`]) or, for a caller
//! that can take wider distances ([`solve_any`]), goes on over a table of four bytes per
//! rank made from the byte table in place of it: puzzles within a byte keep the byte
//! table, and with it every figure and checksum they had.
//! Counts are accumulated in the same pass as distances: count(s) = sum of count(n) over
//! neighbours n one move closer. Every result is a function of the graph alone (the distance is unique, the
//! next position is the smallest-ranked optimal neighbour, the count is a sum), so the
//! tables are identical whatever the number of threads.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;
use thiserror::Error;

use puzzlebase_core::format::add_counts;
use puzzlebase_core::memory::prefetch;
use puzzlebase_core::progress::Progress;
use puzzlebase_core::space::StateSpace;

pub use puzzlebase_core::format::{COUNT_LIMIT, COUNT_OVERFLOW, UNREACHED};
/// Next rank of a goal, or of an unreached rank.
pub const NO_NEXT: u32 = u32::MAX;

/// A level is found by pulling once the ranks not yet reached, beyond the current level,
/// are at most this many times the current level (see [`solve_with`]).
const PULL_RATIO: u64 = 3;

/// Ranks handled per parallel work item: large enough to amortise scheduling and to
/// report progress once per chunk rather than once per state.
const CHUNK: usize = 1 << 14;

#[derive(Debug, Error)]
pub enum SolveError {
    #[error("state space of {0} ranks is too large for 32-bit rank tables")]
    TooLarge(u64),
    /// A distance past `max`, from a search whose caller takes bytes only
    /// ([`solve_with`]: pattern databases and the tests).
    #[error("distance exceeds {max} moves; this one-byte distance table cannot hold it")]
    TooDeep { max: u32 },
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

/// Distances, optimal next positions and shortest-path counts for every rank, with
/// distances of one byte (`D = u8`, [`UNREACHED`] where the goal cannot be reached) or,
/// from [`solve_any`], of four (`D = u32`, [`WIDE_UNREACHED`]).
pub struct DistanceTable<D = u8> {
    /// Moves to the nearest goal, the unreached value where the goal cannot be reached.
    pub dist: Vec<D>,
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
    /// How each level `d + 1` was found from level `d`, and the wall time it took (for
    /// the benches' breakdown of where the time goes).
    pub expansions: Vec<Expansion>,
}

/// One step of the search: level `d + 1` found from level `d`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expansion {
    /// Found by scanning the unreached ranks (pull) rather than expanding the frontier.
    pub pulled: bool,
    pub seconds: f64,
}

impl<D> DistanceTable<D> {
    pub fn reached(&self) -> u64 {
        self.levels.iter().sum()
    }
}

impl DistanceTable {
    pub fn max_distance(&self) -> u8 {
        (self.levels.len() - 1) as u8
    }
}

/// Solves `space` backwards from its goals: distances, next positions and counts.
pub fn solve<S: StateSpace + ?Sized>(
    space: &S,
    progress: &dyn Progress,
) -> Result<DistanceTable, SolveError> {
    solve_with(space, Outputs::ALL, progress)
}

/// Solves `space` backwards from its goals, computing only the tables in `outputs`
/// besides the distances (which are the same either way).
pub fn solve_with<S: StateSpace + ?Sized>(
    space: &S,
    outputs: Outputs,
    progress: &dyn Progress,
) -> Result<DistanceTable, SolveError> {
    match search(space, outputs, false, progress)? {
        Solved::Narrow(t) => Ok(t),
        Solved::Wide(_) => Err(SolveError::TooDeep {
            max: UNREACHED as u32 - 1,
        }),
    }
}

/// [`solve_with`] for a caller that can take distances of any length: the byte table
/// while every distance fits it, a four-byte table (made from it when the search reaches
/// distance 254, not searched again) otherwise.
pub fn solve_any<S: StateSpace + ?Sized>(
    space: &S,
    outputs: Outputs,
    progress: &dyn Progress,
) -> Result<Solved, SolveError> {
    search(space, outputs, true, progress)
}

fn search<S: StateSpace + ?Sized>(
    space: &S,
    outputs: Outputs,
    widen: bool,
    progress: &dyn Progress,
) -> Result<Solved, SolveError> {
    let n = space.size();
    if n >= NO_NEXT as u64 {
        return Err(SolveError::TooLarge(n));
    }
    let total = space.reachable().unwrap_or(n);
    let len = n as usize;
    let chunks = len.div_ceil(CHUNK);
    let t = Tables::<AtomicU8> {
        marks: [0, 1].map(|_| (0..chunks).map(|_| AtomicBool::new(false)).collect()),
        dist: table(len, AtomicU8::unreached),
        next: table(if outputs.next { len } else { 0 }, || {
            AtomicU32::new(NO_NEXT)
        }),
        count: table(if outputs.counts { len } else { 0 }, || AtomicU64::new(0)),
    };

    let mut goals = 0u64;
    for g in space.goals() {
        if g >= n {
            return Err(SolveError::BadGoal(g));
        }
        if t.dist[g as usize].swap(0, Relaxed) == UNREACHED {
            if let Some(c) = t.count.get(g as usize) {
                c.store(1, Relaxed);
            }
            t.mark(0, g as usize);
            goals += 1;
        }
    }

    progress.phase(
        if outputs.counts {
            "distances and counts"
        } else {
            "distances"
        },
        total,
    );
    // Progress counts ranks settled: the goals, each rank as a chunk's expansion finds
    // it, and at the end the ranks left unreached (settled as unsolvable), so that the
    // phase ends at its total. Where the space counts the ranks it will reach, that count
    // is the total: the bar then measures the search, not ranks that are never states.
    progress.advance(goals);
    let mut s = Levels {
        levels: Vec::new(),
        expansions: Vec::new(),
        unvisited: n,
        d: 0,
        approx: goals,
        exact: true,
        reported: goals,
    };
    if t.run(space, &mut s, progress).is_continue() {
        progress.advance(total.saturating_sub(s.reported));
        return Ok(Solved::Narrow(t.finish(s)));
    }
    if !widen {
        return Err(SolveError::TooDeep {
            max: UNREACHED as u32 - 1,
        });
    }
    let t = t.widen();
    match t.run(space, &mut s, progress) {
        ControlFlow::Continue(()) => {
            progress.advance(total.saturating_sub(s.reported));
            Ok(Solved::Wide(t.finish(s)))
        }
        ControlFlow::Break(()) => Err(SolveError::TooDeep {
            max: WIDE_UNREACHED - 1,
        }),
    }
}

/// Where a search stands between levels.
struct Levels {
    levels: Vec<u64>,
    expansions: Vec<Expansion>,
    /// Ranks not yet reached.
    unvisited: u64,
    /// The level to expand next.
    d: u32,
    /// The size of level `d` as its discovery counted it: exact for the goals and after a
    /// pull (`exact`), an overcount by the rare ranks two threads claimed at once after a
    /// push, in which case the scan that expands the level counts it exactly.
    approx: u64,
    exact: bool,
    /// Ranks reported to the progress so far (those found, counted as found: after a
    /// push, with the rare double claims).
    reported: u64,
}

impl<C: Cell> Tables<C> {
    /// Finds level after level until none is left (`Continue`) or the next would not
    /// fit the cells (`Break`, with `s` where the search stands).
    fn run<S: StateSpace + ?Sized>(
        &self,
        space: &S,
        s: &mut Levels,
        progress: &dyn Progress,
    ) -> ControlFlow<()> {
        while s.approx > 0 {
            let d = s.d;
            if d == C::UNREACHED - 1 {
                return ControlFlow::Break(());
            }
            self.clear_marks(d + 1);
            // Pull once the unexplored part is no larger than a few frontiers: scanning
            // it then costs less than expanding the frontier, since a pushed rank writes
            // at random where a pulled one writes in order. On `eleven`, ratios 1 and 2
            // spent more CPU than 3 (the `generate` bench's breakdown); it is not tuned
            // finer.
            let started = Instant::now();
            let pulled = s.unvisited.saturating_sub(s.approx) <= PULL_RATIO * s.approx;
            let (here, found) = if pulled {
                self.pull_level(space, d, !s.exact, progress)
            } else {
                self.push_level(space, d, progress)
            };
            s.reported += found;
            let size = if pulled && s.exact { s.approx } else { here };
            s.expansions.push(Expansion {
                pulled,
                seconds: started.elapsed().as_secs_f64(),
            });
            s.unvisited -= size;
            s.levels.push(size);
            s.approx = found;
            s.exact = pulled;
            s.d += 1;
        }
        ControlFlow::Continue(())
    }

    fn finish(self, s: Levels) -> DistanceTable<C::Plain> {
        let overflowed = self
            .count
            .par_iter()
            .filter(|c| c.load(Relaxed) == COUNT_OVERFLOW)
            .count() as u64;
        DistanceTable {
            dist: C::into_plain(self.dist),
            next: into_plain_u32(self.next),
            count: into_plain_u64(self.count),
            levels: s.levels,
            overflowed,
            expansions: s.expansions,
        }
    }
}

/// The three tables under construction (`next` and `count` empty when not wanted). Every
/// state's neighbours are generated once per role: as a parent when its level is pushed,
/// or as a child when its level is pulled.
///
/// There is no frontier list: a level is the ranks whose distance byte holds it, found by
/// scanning the table in rank order (which also keeps the ranks of one block of a sliding
/// puzzle together). `marks[d % 2]` flags the chunks of [`CHUNK`] ranks that hold a rank
/// at distance `d`, so the scan of a small level skips nearly all of the table.
struct Tables<C> {
    dist: Vec<C>,
    next: Vec<AtomicU32>,
    count: Vec<AtomicU64>,
    marks: [Vec<AtomicBool>; 2],
}

impl<C: Cell> Tables<C> {
    /// Flags the chunk of `rank` as holding a rank at distance `d`. The load first keeps
    /// the flag's cache line shared while it is already set.
    fn mark(&self, d: u32, rank: usize) {
        let flag = &self.marks[d as usize % 2][rank / CHUNK];
        if !flag.load(Relaxed) {
            flag.store(true, Relaxed);
        }
    }

    fn clear_marks(&self, d: u32) {
        self.marks[d as usize % 2]
            .par_iter()
            .for_each(|f| f.store(false, Relaxed));
    }

    /// The ranks `lo..hi` of chunk `ci`.
    fn chunk_range(&self, ci: usize) -> std::ops::Range<usize> {
        ci * CHUNK..((ci + 1) * CHUNK).min(self.dist.len())
    }

    /// Expands every rank at distance `d`: claims unreached neighbours for `d + 1` and adds
    /// this rank's count to every neighbour at `d + 1`. Sums and minima do not depend on
    /// the order in which threads apply them. Returns the exact size of level `d` and the
    /// number of ranks claimed for `d + 1` (see below).
    ///
    /// A claim is a plain load and store, not a compare-and-swap: two threads may both
    /// claim a rank, which only writes the same distance twice (and counts the rank twice
    /// in the second figure). A locked instruction per new rank would wait for its cache
    /// miss before the next could start; plain ones let those misses overlap.
    fn push_level<S: StateSpace + ?Sized>(
        &self,
        space: &S,
        d: u32,
        progress: &dyn Progress,
    ) -> (u64, u64) {
        let marks = &self.marks[d as usize % 2];
        (0..marks.len())
            .into_par_iter()
            .filter(|&ci| marks[ci].load(Relaxed))
            .map_init(Pipeline::default, |pipe, ci| {
                let (mut here, mut found) = (0u64, 0u64);
                for r in self.chunk_range(ci) {
                    if self.dist[r].get() != d {
                        continue;
                    }
                    here += 1;
                    if let Some(batch) = pipe.add(space, r, &self.dist) {
                        found += self.claim(batch, d);
                    }
                }
                for batch in pipe.rest() {
                    found += self.claim(batch, d);
                }
                if found > 0 {
                    progress.advance(found);
                }
                (here, found)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// The second half of [`Tables::push_level`] for a batch of ranks at distance `d`:
    /// their neighbours, generated and prefetched, are claimed. Empties the batch and
    /// returns the number of ranks claimed.
    fn claim(&self, batch: &mut Batch, d: u32) -> u64 {
        let (want_next, want_count) = (!self.next.is_empty(), !self.count.is_empty());
        let mut found = 0;
        for (r, nbs) in batch.drain() {
            let c = self.count.get(r).map_or(0, |c| c.load(Relaxed));
            for &nb in nbs {
                let i = nb as usize;
                let cell = &self.dist[i];
                let mut nd = cell.get();
                if nd == C::UNREACHED {
                    cell.set(d + 1);
                    self.mark(d + 1, i);
                    found += 1;
                    nd = d + 1;
                }
                if nd == d + 1 {
                    if want_next {
                        self.next[i].fetch_min(r as u32, Relaxed);
                    }
                    if want_count {
                        let _ = self.count[i]
                            .fetch_update(Relaxed, Relaxed, |old| Some(add_counts(old, c)));
                    }
                }
            }
        }
        batch.clear();
        found
    }

    /// Scans every unreached rank for neighbours at distance `d`; such a rank joins level
    /// `d + 1` with the sum of their counts. Writes only its own entries. Returns the size
    /// of level `d` (counted only when `count_here`, else 0) and the exact size of level
    /// `d + 1`.
    fn pull_level<S: StateSpace + ?Sized>(
        &self,
        space: &S,
        d: u32,
        count_here: bool,
        progress: &dyn Progress,
    ) -> (u64, u64) {
        // Reading eight distances at once is sound only while no other thread writes
        // them: during a pull each thread writes only the ranks of its own chunks.
        let by_words = C::BYTE && !count_here && (self.dist.as_ptr() as usize).is_multiple_of(8);
        (0..self.marks[0].len())
            .into_par_iter()
            .map_init(Pipeline::default, |pipe, ci| {
                let (mut here, mut found) = (0u64, 0u64);
                let range = self.chunk_range(ci);
                let mut r = range.start;
                while r < range.end {
                    if by_words
                        && r.is_multiple_of(8)
                        && r + 8 <= range.end
                        && !self.any_unreached8(r)
                    {
                        r += 8;
                        continue;
                    }
                    let now = self.dist[r].get();
                    if now != C::UNREACHED {
                        here += (now == d) as u64;
                    } else if let Some(batch) = pipe.add(space, r, &self.dist) {
                        found += self.settle(batch, d);
                    }
                    r += 1;
                }
                for batch in pipe.rest() {
                    found += self.settle(batch, d);
                }
                if found > 0 {
                    self.mark(d + 1, ci * CHUNK);
                }
                if found > 0 {
                    progress.advance(found);
                }
                (here, found)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// Whether any of the eight distances from `r` (a multiple of eight, in the calling
    /// thread's own chunk during a pull) is [`UNREACHED`]; only for byte cells.
    fn any_unreached8(&self, r: usize) -> bool {
        debug_assert!(C::BYTE);
        // SAFETY: `r..r + 8` is inside the table and 8-aligned (the table's start is
        // checked by the caller); cells are `AtomicU8` here (`C::BYTE`), with the layout of `u8`. Other threads only
        // read these bytes during a pull, and the calling thread is the only writer, so
        // the wider load races with no write.
        let w = unsafe { AtomicU64::from_ptr(self.dist.as_ptr().add(r) as *mut u64).load(Relaxed) };
        // A byte of `!w` is zero exactly where `w` holds 0xFF (the classic zero-byte test).
        let x = !w;
        (x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080) != 0
    }

    /// The second half of [`Tables::pull_level`] for a batch of unreached ranks: each
    /// with a neighbour at `d` joins level `d + 1`. Empties the batch and returns how
    /// many joined.
    fn settle(&self, batch: &mut Batch, d: u32) -> u64 {
        let distances_only = self.next.is_empty() && self.count.is_empty();
        let at_d = |nb: &u64| self.dist[*nb as usize].get() == d;
        let mut found = 0;
        for (r, nbs) in batch.drain() {
            let cell = &self.dist[r];
            if distances_only {
                // One neighbour at `d` settles it; no need to look at the rest.
                if nbs.iter().any(at_d) {
                    cell.set(d + 1);
                    found += 1;
                }
                continue;
            }
            let mut sum = 0u64;
            let mut best = NO_NEXT;
            for nb in nbs.iter().filter(|nb| at_d(nb)) {
                best = best.min(*nb as u32);
                if let Some(c) = self.count.get(*nb as usize) {
                    sum = add_counts(sum, c.load(Relaxed));
                }
            }
            if best != NO_NEXT {
                cell.set(d + 1);
                if let Some(n) = self.next.get(r) {
                    n.store(best, Relaxed);
                }
                if let Some(c) = self.count.get(r) {
                    c.store(sum, Relaxed);
                }
                found += 1;
            }
        }
        batch.clear();
        found
    }
}

/// Ranks whose neighbours are generated, and their distance entries prefetched, before
/// any of those entries is read: the table is hundreds of megabytes read at random, and
/// looking each neighbour up at once would stall the loop on one cache miss after
/// another, where a batch lets them overlap.
#[derive(Default)]
struct Batch {
    /// The ranks, each with the end of its neighbours in `nbs`.
    ranks: Vec<(usize, usize)>,
    nbs: Vec<u64>,
}

/// Two [`Batch`]es: one is read while the next is generated, so that its prefetched
/// entries have arrived by the time they are read.
#[derive(Default)]
struct Pipeline {
    batches: [Batch; 2],
    filling: usize,
}

impl Pipeline {
    /// Adds `r` to the batch being filled; once that is full, the other batch (full
    /// since the last switch) is returned to be read and emptied, and filled next.
    fn add<S: StateSpace + ?Sized, C>(
        &mut self,
        space: &S,
        r: usize,
        dist: &[C],
    ) -> Option<&mut Batch> {
        if !self.batches[self.filling].add(space, r, dist) {
            return None;
        }
        self.filling ^= 1;
        let older = &mut self.batches[self.filling];
        (!older.ranks.is_empty()).then_some(older)
    }

    /// The batches left, the older first.
    fn rest(&mut self) -> impl Iterator<Item = &mut Batch> {
        let [a, b] = &mut self.batches;
        let order = if self.filling == 0 { [b, a] } else { [a, b] };
        order.into_iter().filter(|b| !b.ranks.is_empty())
    }
}

/// Ranks per [`Batch`]: enough misses in flight to cover memory latency, few enough
/// that their lines are still in the cache when read.
const BATCH: usize = 32;

impl Batch {
    /// Adds `r` with its neighbours, prefetching their distances; true once full.
    fn add<S: StateSpace + ?Sized, C>(&mut self, space: &S, r: usize, dist: &[C]) -> bool {
        let start = self.nbs.len();
        space.neighbors(r as u64, &mut self.nbs);
        for &nb in &self.nbs[start..] {
            if let Some(cell) = dist.get(nb as usize) {
                prefetch(cell);
            }
        }
        self.ranks.push((r, self.nbs.len()));
        self.ranks.len() == BATCH
    }

    fn drain(&self) -> impl Iterator<Item = (usize, &[u64])> {
        let mut start = 0;
        self.ranks.iter().map(move |&(r, end)| {
            let nbs = &self.nbs[start..end];
            start = end;
            (r, nbs)
        })
    }

    fn clear(&mut self) {
        self.ranks.clear();
        self.nbs.clear();
    }
}

/// A table of `len` entries, each `init()`, in memory the kernel is asked to back with
/// huge pages before it is first touched: the solver reads and writes its tables at
/// random, and with 4 KiB pages nearly every such access to a table of hundreds of
/// megabytes also misses the TLB.
fn table<T: Send>(len: usize, init: impl Fn() -> T + Sync + Send) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    puzzlebase_core::memory::advise_huge_pages(
        v.as_mut_ptr() as *mut u8,
        len * std::mem::size_of::<T>(),
    );
    (0..len)
        .into_par_iter()
        .map(|_| init())
        .collect_into_vec(&mut v);
    v
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

mod wide;
use wide::Cell;
pub use wide::{Solved, WIDE_UNREACHED};

#[cfg(test)]
mod tests;
