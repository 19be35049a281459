//! Exact search for sliding puzzles too large to tabulate (`fifteen`): IDA* (Korf 1985)
//! guided by additive pattern databases ([`crate::pattern`]).
//!
//! The bound is the sum, over the disjoint patterns of a partition, of each pattern's
//! table entry for the placement of its tiles: every move moves one tile and so counts in
//! one table at most, which keeps the sum admissible. A second sum reads the same tables
//! for the board reflected about its main diagonal, with each tile relabelled by its
//! reflected home cell (the goal, blank in the last cell, is its own reflection, so the
//! reflected board is exactly as far from the goal); the bound is the larger of the two
//! (Felner, Korf & Hanan 2004). Both are admissible, so the first path IDA* finds is
//! optimal.
//!
//! A move changes one tile's cell, so only the table of that tile's pattern (and, for the
//! reflection, of its reflected tile's pattern) is read again, at a placement rank updated
//! from the one before rather than recomputed; the entries a node's children need are
//! requested from memory together. The search never undoes the move it has just made.
//! It counts nodes as Korf 1985 does (calibrated with [`Options::PLAIN`], his child order).
//! What `query` runs ([`Options::QUERY`]) tries children in increasing order of their
//! bound and searches each iteration on every thread, handing out the nodes a few moves
//! deep in depth-first order so that the solution is the one-thread search's.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

mod heuristic;

pub use heuristic::{Heuristic, HeuristicError};

use crate::pattern::MAX_CELLS;
use heuristic::prefetch;

/// An optimal solution found by [`solve`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// Number of moves.
    pub length: u32,
    /// The cell of the blank after each move.
    pub blanks: Vec<u8>,
    /// Nodes expanded (their successors generated), over every iteration.
    pub expanded: u64,
    /// Nodes generated, over every iteration.
    pub generated: u64,
    /// The bound of each iteration, the last being the optimal length.
    pub iterations: Vec<u32>,
}

impl Heuristic {
    /// The bound for a whole arrangement (`cells[c]` = tile in cell `c`).
    pub fn estimate(&self, cells: &[u8]) -> u32 {
        Search::new(self, cells, Options::PLAIN).h()
    }
}

/// How [`solve_with`] searches. Every setting finds an optimal solution (the bound stays
/// admissible and the search exact); they differ in how many nodes it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Evaluate every child before descending and try them in increasing order of their
    /// bound, so that the last iteration meets a solution early.
    pub ordered: bool,
    /// Pathmax both ways (Felner et al. 2005, "bidirectional pathmax"): a child's bound
    /// is at least its parent's minus one, and a parent whose child's bound exceeds the
    /// iteration's by more than one move is cut at once, without trying its other children.
    /// The tables are not consistent (an entry is a minimum over the blank's regions, so
    /// neighbouring placements can differ by more than one), which is what this uses.
    pub pathmax: bool,
    /// Search each iteration on every thread of the rayon pool: the nodes a few moves
    /// deep are listed in depth-first order and handed out in that order, so the
    /// solution returned is the one the one-thread search finds; the nodes counted are
    /// every thread's, a few more than one thread's (work on subtrees after the
    /// solution's, done while it was being found).
    pub parallel: bool,
    /// Also read the tables at the dual placements ([`Heuristic`]'s dual lookups: the
    /// inverse permutation, tiles and cells exchanged), on the board and its reflection,
    /// for every child the ordinary lookups do not already cut. The bound is not
    /// consistent, which pathmax turns into cuts.
    pub dual: bool,
}

impl Options {
    /// Korf's 1985 IDA*: children in a fixed order (the blank moves up, left, right, down
    /// in Korf's orientation, so down, right, left, up on this goal's board), each
    /// generated only when the loop reaches it. With Manhattan distance as the bound it
    /// generates exactly the nodes of Korf's published table (plus one for the start).
    pub const PLAIN: Options = Options {
        ordered: false,
        pathmax: false,
        parallel: false,
        dual: false,
    };
    /// Ordered children and pathmax, on one thread. Pathmax saves almost nothing over
    /// [`Options::ORDERED`] (measured), so [`solve`] does without it.
    pub const FEWER_NODES: Options = Options {
        ordered: true,
        pathmax: true,
        parallel: false,
        dual: false,
    };
    /// Children in increasing order of their bound, on one thread.
    pub const ORDERED: Options = Options {
        ordered: true,
        pathmax: false,
        parallel: false,
        dual: false,
    };
    /// Ordered children, the dual lookups and pathmax both ways (BPMX), on one thread:
    /// Zahavi et al. 2007's combination of regular, reflected, dual and dual-reflected
    /// lookups.
    pub const DUAL: Options = Options {
        ordered: true,
        pathmax: true,
        parallel: false,
        dual: true,
    };
    /// What [`solve`] runs: [`Options::ORDERED`] on every thread.
    pub const QUERY: Options = Options {
        parallel: true,
        ..Options::ORDERED
    };
}

/// A child of the node being expanded: the tile in `cell` slides into the blank.
#[derive(Clone, Copy, Default)]
struct Child {
    cell: u8,
    tile: u8,
    /// Placement ranks of the moved tile's pattern on the board and of its reflected
    /// tile's pattern on the reflected board, after the move.
    rank: u64,
    mirrored: u64,
    /// The cells of those patterns' tiles after the move.
    occupied: u16,
    mirrored_occupied: u16,
    h: u32,
}

/// What undoing a move restores.
#[derive(Clone, Copy)]
struct Saved {
    rank: u64,
    mirrored: u64,
    occupied: u16,
    mirrored_occupied: u16,
    entry: u32,
    mirrored_entry: u32,
    sum: u32,
    mirrored_sum: u32,
}

/// `h`, or one more when its parity is not `like`'s. Every move changes the parity of
/// the tiles' Manhattan distance, which the pattern sums keep, so the moves left have
/// that parity: a lower bound of the other parity can be raised by one.
#[inline(always)]
fn same_parity(h: u32, like: u32) -> u32 {
    h + ((h ^ like) & 1)
}

/// Result of one depth-first iteration below a bound.
enum Probe {
    Found,
    /// The smallest f-value above the bound met (`u32::MAX`: none).
    Exceeded(u32),
}

/// How deep the parallel search lists the nodes it hands out: about a hundred nodes.
const SPLIT_DEPTH: u32 = 6;

/// A node the parallel search hands out: the blank's cells from the start, and its bound.
#[derive(Clone)]
struct Task {
    path: Vec<u8>,
    h: u32,
}

/// The search's position: the board both ways (tile per cell, cell per tile), every
/// pattern's placement rank on the board and on its reflection, and the two sums.
#[derive(Clone)]
struct Search<'h> {
    h: &'h Heuristic,
    opts: Options,
    cells: [u8; MAX_CELLS],
    /// `pos[t]` = cell of tile `t` (`pos[0]`: the blank).
    pos: [u8; MAX_CELLS],
    ranks: [u64; MAX_CELLS],
    mirrored: [u64; MAX_CELLS],
    /// The cells of every pattern's tiles, on the board and on its reflection.
    occupied: [u16; MAX_CELLS],
    mirrored_occupied: [u16; MAX_CELLS],
    /// The bounds of those ranks, kept to save reading them again.
    entries: [u32; MAX_CELLS],
    mirrored_entries: [u32; MAX_CELLS],
    sum: u32,
    mirrored_sum: u32,
    path: Vec<u8>,
    expanded: u64,
    generated: u64,
    /// While listing the parallel search's tasks: the nodes at [`SPLIT_DEPTH`], which are
    /// listed instead of searched.
    tasks: Option<Vec<Task>>,
    /// In a parallel search: the index of the first task a solution was found below, and
    /// this task's; a task listed after the first solution stops at once.
    abandon: Option<(&'h AtomicUsize, usize)>,
    /// When to give up, and whether this search (or a sibling thread's) has.
    stop: &'h Stop,
    stopped: bool,
}

impl Search<'_> {
    fn new<'h>(h: &'h Heuristic, cells: &[u8], opts: Options) -> Search<'h> {
        let mut s = Search {
            h,
            opts,
            cells: [0; MAX_CELLS],
            pos: [0; MAX_CELLS],
            ranks: [0; MAX_CELLS],
            mirrored: [0; MAX_CELLS],
            occupied: [0; MAX_CELLS],
            mirrored_occupied: [0; MAX_CELLS],
            entries: [0; MAX_CELLS],
            mirrored_entries: [0; MAX_CELLS],
            sum: 0,
            mirrored_sum: 0,
            path: Vec::new(),
            expanded: 0,
            generated: 0,
            tasks: None,
            abandon: None,
            stop: &NEVER,
            stopped: false,
        };
        s.cells[..cells.len()].copy_from_slice(cells);
        for (c, &t) in cells.iter().enumerate() {
            s.pos[t as usize] = c as u8;
        }
        for (j, p) in h.patterns.iter().enumerate() {
            let mut at = [0u8; MAX_CELLS];
            let mut mat = [0u8; MAX_CELLS];
            for (i, &t) in p.tiles().iter().enumerate() {
                at[i] = s.pos[t as usize];
                // Pattern tile t stands, on the reflected board, where the reflection
                // puts tile relabel[t] (the relabelling is its own inverse).
                mat[i] = h.mirror[s.pos[h.relabel[t as usize] as usize] as usize];
            }
            let k = p.tiles().len();
            s.ranks[j] = p.rank(&at[..k]);
            s.mirrored[j] = p.rank(&mat[..k]);
            s.occupied[j] = at[..k].iter().fold(0, |m, &c| m | 1 << c);
            s.mirrored_occupied[j] = mat[..k].iter().fold(0, |m, &c| m | 1 << c);
            let (blank, mirrored_blank) = (s.pos[0], h.mirror[s.pos[0] as usize]);
            s.entries[j] = h.bound(j as u8, s.ranks[j], s.occupied[j], blank);
            s.mirrored_entries[j] = h.bound(
                j as u8,
                s.mirrored[j],
                s.mirrored_occupied[j],
                mirrored_blank,
            );
            s.sum += s.entries[j];
            s.mirrored_sum += s.mirrored_entries[j];
        }
        s
    }

    fn h(&self) -> u32 {
        if self.h.reflect {
            self.sum.max(self.mirrored_sum)
        } else {
            self.sum
        }
    }

    /// [`Search::h`], with the dual lookups when the options ask for them.
    fn start_h(&self) -> u32 {
        let h = self.h();
        if !self.opts.dual {
            return h;
        }
        let n = self.h.cells();
        h.max(same_parity(self.h.dual(&self.cells[..n], self.pos[0]), h))
    }

    /// The dual lookups of the position after move `k`, at least `k.h` (whose parity,
    /// that of every bound here, is the number of moves left's).
    #[inline(always)]
    fn child_dual(&self, k: &Child) -> u32 {
        let n = self.h.cells();
        let mut cells = self.cells;
        cells[self.pos[0] as usize] = k.tile;
        cells[k.cell as usize] = 0;
        k.h.max(same_parity(self.h.dual(&cells[..n], k.cell), k.h))
    }

    /// The move of the tile in `cell` into the blank, its ranks computed and its table
    /// entries requested.
    #[inline(always)]
    fn child(&self, cell: u8) -> Child {
        let h = self.h;
        let blank = self.pos[0];
        let t = self.cells[cell as usize];
        let j = h.owner[t as usize];
        let rank = h.moved_rank(self.ranks[j as usize], t, cell, blank, |x| self.cells[x]);
        prefetch(&h.tables[j as usize].bytes, rank);
        let occupied = self.occupied[j as usize] ^ (1 << cell | 1 << blank);
        let (mut mirrored, mut mirrored_occupied) = (0, 0);
        if h.reflect {
            let mt = h.relabel[t as usize];
            let jm = h.owner[mt as usize];
            let (ma, mb) = (h.mirror[cell as usize], h.mirror[blank as usize]);
            mirrored = h.moved_rank(self.mirrored[jm as usize], mt, ma, mb, |x| {
                h.relabel[self.cells[h.mirror[x] as usize] as usize]
            });
            prefetch(&h.tables[jm as usize].bytes, mirrored);
            mirrored_occupied = self.mirrored_occupied[jm as usize] ^ (1 << ma | 1 << mb);
        }
        Child {
            cell,
            tile: t,
            rank,
            mirrored,
            occupied,
            mirrored_occupied,
            h: 0,
        }
    }

    /// The bound of a child: the board's sum with the moved tile's pattern read again,
    /// and, unless that alone already exceeds `cutoff`, the same for the reflection (a
    /// read saved, and the child is cut either way).
    #[inline(always)]
    fn evaluate(&self, k: &Child, cutoff: u32) -> u32 {
        let h = self.h;
        let j = h.owner[k.tile as usize] as usize;
        let sum = self.sum + h.bound(j as u8, k.rank, k.occupied, k.cell) - self.entries[j];
        if !h.reflect || sum > cutoff {
            return sum;
        }
        let jm = h.owner[h.relabel[k.tile as usize] as usize];
        let mirrored_blank = h.mirror[k.cell as usize];
        let msum = self.mirrored_sum + h.bound(jm, k.mirrored, k.mirrored_occupied, mirrored_blank)
            - self.mirrored_entries[jm as usize];
        sum.max(msum)
    }

    /// Makes move `k`; returns what [`Search::undo`] restores.
    #[inline(always)]
    fn apply(&mut self, k: &Child) -> Saved {
        let h = self.h;
        let t = k.tile as usize;
        let (j, jm) = (h.owner[t] as usize, h.owner[h.relabel[t] as usize] as usize);
        let saved = Saved {
            rank: self.ranks[j],
            mirrored: self.mirrored[jm],
            occupied: self.occupied[j],
            mirrored_occupied: self.mirrored_occupied[jm],
            entry: self.entries[j],
            mirrored_entry: self.mirrored_entries[jm],
            sum: self.sum,
            mirrored_sum: self.mirrored_sum,
        };
        let e = h.bound(j as u8, k.rank, k.occupied, k.cell);
        self.sum = self.sum + e - self.entries[j];
        self.entries[j] = e;
        self.ranks[j] = k.rank;
        self.occupied[j] = k.occupied;
        if h.reflect {
            let mirrored_blank = h.mirror[k.cell as usize];
            let e = h.bound(jm as u8, k.mirrored, k.mirrored_occupied, mirrored_blank);
            self.mirrored_sum = self.mirrored_sum + e - self.mirrored_entries[jm];
            self.mirrored_entries[jm] = e;
            self.mirrored[jm] = k.mirrored;
            self.mirrored_occupied[jm] = k.mirrored_occupied;
        }
        let blank = self.pos[0];
        self.cells[blank as usize] = k.tile;
        self.cells[k.cell as usize] = 0;
        self.pos[t] = blank;
        self.pos[0] = k.cell;
        saved
    }

    #[inline(always)]
    fn undo(&mut self, k: &Child, saved: Saved) {
        let h = self.h;
        let t = k.tile as usize;
        let (j, jm) = (h.owner[t] as usize, h.owner[h.relabel[t] as usize] as usize);
        let blank = self.pos[t];
        self.cells[blank as usize] = 0;
        self.cells[k.cell as usize] = k.tile;
        self.pos[t] = k.cell;
        self.pos[0] = blank;
        self.ranks[j] = saved.rank;
        self.mirrored[jm] = saved.mirrored;
        self.occupied[j] = saved.occupied;
        self.mirrored_occupied[jm] = saved.mirrored_occupied;
        self.entries[j] = saved.entry;
        self.mirrored_entries[jm] = saved.mirrored_entry;
        self.sum = saved.sum;
        self.mirrored_sum = saved.mirrored_sum;
    }

    /// Searches below the current position, reached in `g` moves with bound `hp`.
    fn dfs(&mut self, g: u32, hp: u32, bound: u32, previous: u8) -> Probe {
        if self.sum == 0 {
            // Every pattern is home, so every tile is: the goal.
            return Probe::Found;
        }
        if g == SPLIT_DEPTH
            && let Some(tasks) = &mut self.tasks
        {
            tasks.push(Task {
                path: self.path.clone(),
                h: hp,
            });
            return Probe::Exceeded(u32::MAX);
        }
        if let Some((first, me)) = self.abandon
            && first.load(Ordering::Relaxed) < me
        {
            return Probe::Exceeded(u32::MAX);
        }
        // Every few thousand nodes, a look at the clock and the caller: a stopped search
        // unwinds at once (every frame above returns on `stopped`).
        if self.stopped || (self.expanded & 4095 == 0 && self.stop.reached()) {
            self.stopped = true;
            return Probe::Exceeded(u32::MAX);
        }
        self.expanded += 1;
        let h = self.h;
        let blank = self.pos[0];
        let mut kids = [Child::default(); 4];
        let mut n = 0;
        for &c in &h.adjacent[blank as usize] {
            if c != previous {
                kids[n] = self.child(c);
                n += 1;
            }
        }
        let eager = self.opts.ordered || self.opts.pathmax || self.opts.dual;
        if eager {
            self.generated += n as u64;
            let mut most = 0;
            for k in &mut kids[..n] {
                k.h = self.evaluate(k, bound.saturating_sub(g + 1));
                if self.opts.pathmax {
                    k.h = k.h.max(hp.saturating_sub(1));
                }
                if self.opts.dual && g + 1 + k.h <= bound {
                    k.h = self.child_dual(k);
                }
                most = most.max(k.h);
            }
            // This node is at least `most - 1` from the goal.
            if self.opts.pathmax && g + most > bound + 1 {
                return Probe::Exceeded(g + most - 1);
            }
            if self.opts.ordered {
                for i in 1..n {
                    let mut m = i;
                    while m > 0 && kids[m - 1].h > kids[m].h {
                        kids.swap(m - 1, m);
                        m -= 1;
                    }
                }
            }
        }
        let mut next = u32::MAX;
        for k in &mut kids[..n] {
            if !eager {
                self.generated += 1;
                k.h = self.evaluate(k, bound.saturating_sub(g + 1));
            }
            let f = g + 1 + k.h;
            if f > bound {
                next = next.min(f);
                if self.opts.ordered {
                    // The rest are no better.
                    break;
                }
                continue;
            }
            let k = *k;
            let saved = self.apply(&k);
            self.path.push(k.cell);
            match self.dfs(g + 1, k.h, bound, blank) {
                Probe::Found => return Probe::Found,
                Probe::Exceeded(x) => next = next.min(x),
            }
            self.path.pop();
            self.undo(&k, saved);
        }
        Probe::Exceeded(next)
    }
}

/// Finds an optimal solution of `cells` (tile in each cell, 0 the blank), which must be
/// solvable (the caller checks the parity); `None` only if the tables say the goal is out
/// of reach, which cannot happen for a solvable arrangement and complete tables.
/// This is what `query` runs: [`Options::QUERY`], measured the fewest nodes and the least
/// time of the options over Korf's 100.
pub fn solve(h: &Heuristic, cells: &[u8]) -> Option<Solution> {
    solve_with(h, cells, Options::QUERY)
}

/// [`solve`], searching as `opts` says.
pub fn solve_with(h: &Heuristic, cells: &[u8], opts: Options) -> Option<Solution> {
    solve_until(h, cells, opts, &NEVER).unwrap_or(None)
}

/// Why a search gave up before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[warn(missing_docs)]
pub enum Stopped {
    /// Its deadline passed.
    #[error("the search ran out of time")]
    Deadline,
    /// Its flag was raised (the client went away).
    #[error("the search was cancelled")]
    Cancelled,
}

/// When a search gives up: a deadline, and a flag another thread may raise (a client
/// that went away). Checked every few thousand nodes, so a search stops within a
/// millisecond or so of either.
#[derive(Debug, Default)]
#[warn(missing_docs)]
pub struct Stop {
    deadline: Option<Instant>,
    cancelled: AtomicBool,
    /// When the request that set the deadline began, so that a refusal can say how long
    /// the whole answer took (loading tables included), not only the search.
    started: Option<Instant>,
}

static NEVER: Stop = Stop {
    deadline: None,
    cancelled: AtomicBool::new(false),
    started: None,
};

#[warn(missing_docs)]
impl Stop {
    /// Gives up at `deadline` (never when `None`) or when cancelled.
    pub fn new(deadline: Option<Instant>) -> Stop {
        Stop {
            deadline,
            cancelled: AtomicBool::new(false),
            started: Some(Instant::now()),
        }
    }

    /// Seconds since [`Stop::new`], or since `fallback` for a stop made otherwise.
    pub fn seconds_since_start(&self, fallback: Instant) -> f64 {
        self.started.unwrap_or(fallback).elapsed().as_secs_f64()
    }

    /// Makes the search give up at its next look.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    fn reached(&self) -> bool {
        self.why().is_some()
    }

    /// Why the search should stop now, if it should.
    pub fn why(&self) -> Option<Stopped> {
        if self.cancelled.load(Ordering::Relaxed) {
            Some(Stopped::Cancelled)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(Stopped::Deadline)
        } else {
            None
        }
    }
}

/// [`solve_with`] that gives up when `stop` says so: `Err` then, and the work done so far
/// is lost.
pub fn solve_until(
    h: &Heuristic,
    cells: &[u8],
    opts: Options,
    stop: &Stop,
) -> Result<Option<Solution>, Stopped> {
    solve_within(h, cells, opts, u32::MAX, stop)
}

/// [`solve_until`] that looks for solutions of at most `limit` moves only: `Ok(None)`
/// once every shorter one is ruled out. On a sliding puzzle a move changes the distance
/// by exactly one, so a limit of `d - 1` tells a neighbour one move closer from one
/// move farther.
pub fn solve_within(
    h: &Heuristic,
    cells: &[u8],
    opts: Options,
    limit: u32,
    stop: &Stop,
) -> Result<Option<Solution>, Stopped> {
    assert_eq!(cells.len(), h.cells());
    let mut search = Search::new(h, cells, opts);
    search.stop = stop;
    // Every iteration starts from the same position, with the same bound.
    let hp = search.start_h();
    let mut bound = hp;
    let mut iterations = Vec::new();
    loop {
        // Entries of 255 mark placements that cannot reach home.
        if bound >= 255 * h.patterns.len() as u32 || bound > limit {
            return Ok(None);
        }
        iterations.push(bound);
        let workers = if opts.parallel {
            rayon::current_num_threads()
        } else {
            1
        };
        let probe = if workers > 1 {
            search.iterate_in_parallel(hp, bound, workers)
        } else {
            search.dfs(0, hp, bound, u8::MAX)
        };
        // A solution found is optimal whatever was cut short beside it (its length is
        // the bound, which earlier iterations showed to be the least); anything else
        // from a stopped search proves nothing.
        if !matches!(probe, Probe::Found)
            && let Some(why) = stop.why().filter(|_| search.stopped || workers > 1)
        {
            return Err(why);
        }
        match probe {
            Probe::Found => {
                return Ok(Some(Solution {
                    length: search.path.len() as u32,
                    blanks: search.path,
                    expanded: search.expanded,
                    generated: search.generated,
                    iterations,
                }));
            }
            Probe::Exceeded(u32::MAX) => return Ok(None),
            Probe::Exceeded(next) => bound = next,
        }
    }
}

impl Search<'_> {
    /// One iteration below `bound` from the start, on `workers` threads: the nodes
    /// [`SPLIT_DEPTH`] moves deep are listed in depth-first order, then taken in that
    /// order by the threads, none starting one listed after a node below which a solution
    /// was found. The solution kept is that of the first such node, so it is the one the
    /// one-thread search finds.
    fn iterate_in_parallel(&mut self, hp: u32, bound: u32, workers: usize) -> Probe {
        self.tasks = Some(Vec::new());
        let prefix = self.dfs(0, hp, bound, u8::MAX);
        let tasks = self.tasks.take().unwrap_or_default();
        let Probe::Exceeded(prefix_next) = prefix else {
            return Probe::Found;
        };
        let start_blank = self.pos[0];
        let taken = AtomicUsize::new(0);
        let first_found = AtomicUsize::new(usize::MAX);
        let done = Mutex::new(Vec::new());
        let root = &*self;
        rayon::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|_| {
                    let (mut expanded, mut generated, mut next) = (0, 0, u32::MAX);
                    let mut found: Option<(usize, Vec<u8>)> = None;
                    loop {
                        let i = taken.fetch_add(1, Ordering::Relaxed);
                        if i >= tasks.len() || i > first_found.load(Ordering::Relaxed) {
                            break;
                        }
                        let mut s = root.clone();
                        for &c in &tasks[i].path {
                            let k = s.child(c);
                            s.apply(&k);
                        }
                        s.path = tasks[i].path.clone();
                        s.abandon = Some((&first_found, i));
                        let n = s.path.len();
                        let previous = if n >= 2 { s.path[n - 2] } else { start_blank };
                        let probe = s.dfs(n as u32, tasks[i].h, bound, previous);
                        expanded += s.expanded - root.expanded;
                        generated += s.generated - root.generated;
                        match probe {
                            Probe::Found => {
                                first_found.fetch_min(i, Ordering::Relaxed);
                                if found.as_ref().is_none_or(|(j, _)| i < *j) {
                                    found = Some((i, s.path));
                                }
                            }
                            Probe::Exceeded(x) => next = next.min(x),
                        }
                    }
                    done.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((expanded, generated, next, found));
                });
            }
        });
        let mut next = prefix_next;
        let mut best: Option<(usize, Vec<u8>)> = None;
        for (expanded, generated, n, found) in done.into_inner().unwrap_or_else(|e| e.into_inner())
        {
            self.expanded += expanded;
            self.generated += generated;
            next = next.min(n);
            if let Some((i, path)) = found
                && best.as_ref().is_none_or(|(j, _)| i < *j)
            {
                best = Some((i, path));
            }
        }
        match best {
            Some((_, path)) => {
                self.path = path;
                Probe::Found
            }
            None => Probe::Exceeded(next),
        }
    }
}

/// The arrangements along a solution, from `cells` (included) to the goal: the blank
/// moves into each cell of `blanks` in turn. `None` if a step is not a move.
pub fn replay(h: &Heuristic, cells: &[u8], blanks: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut cur = cells.to_vec();
    let mut out = vec![cur.clone()];
    for &c in blanks {
        let b = cur.iter().position(|&v| v == 0)?;
        if !h.adjacent.get(b)?.contains(&c) {
            return None;
        }
        cur.swap(b, c as usize);
        out.push(cur.clone());
    }
    Some(out)
}

#[cfg(test)]
mod tests;
