//! Breadth-first search across processes: the rank space is cut into one contiguous
//! share per process ([`Partition`]), each process keeps only its share's tables, and
//! the levels run in lockstep. A process expands the ranks of its share at the current
//! level, a slice of its share at a time; the neighbours it reaches in its own share are
//! applied at once, and those that belong to another process are sorted, merged and
//! varint-coded per slice (see [`wire`]) and travel in one all-to-all per level,
//! and the level's size and the end of the search are agreed by a reduction. Each
//! finished level is checkpointed (see [`checkpoint`]), so that a killed run resumes.
//!
//! The tables are those of [`crate::solvers::bfs`], rank for rank: the distance is the
//! level, the next position the smallest-ranked neighbour one level closer, the count
//! the sum over those neighbours. Each is a minimum or a sum over the same set whatever
//! the order of arrival, so the result does not depend on the number of processes.
//!
//! [`twobit`] runs the two-bit search (distance mod 4) the same way, for tables too large
//! for a byte per rank.
//!
//! The search reaches other processes only through [`Comm`]: MPI in the `mpi` build
//! (`generate::mpi`), [`Solo`] for one process, [`Threads`] in the tests.

pub mod checkpoint;
pub mod comm;
pub mod twobit;
pub mod wire;

#[cfg(test)]
mod tests;

use std::ops::Range;
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use thiserror::Error;

pub use comm::{Comm, Reduce, Solo, Threads};

use crate::core::format::{UNREACHED, add_counts};
use crate::core::progress::Progress;
use crate::core::space::StateSpace;
use crate::solvers::bfs::{NO_NEXT, Outputs};
use checkpoint::{Found, Store};
use wire::{Fields, Reach};

/// Ranks of one share expanded at a time: bounds the neighbours held before they are
/// applied or encoded (about three per rank at the level, 24 bytes each) whatever the
/// size of the share; encoded, a neighbour for another process takes one to three bytes.
const SLICE: u64 = 1 << 20;
/// Ranks per flag telling whether a piece of the share holds a rank at a level.
const CHUNK: usize = 1 << 14;

#[derive(Debug, Error)]
pub enum DistError {
    #[error("state space of {0} ranks is too large for 32-bit next ranks")]
    TooLarge(u64),
    /// The search across processes keeps a byte per rank (its shares and checkpoints
    /// are bytes); one process's search widens its table instead.
    #[error(
        "distance exceeds {0} moves, more than the distributed search's one-byte table \
         holds; build this puzzle in one process (without mpirun), whose table widens"
    )]
    TooDeep(u8),
    #[error("goal rank {0} is outside the state space")]
    BadGoal(u64),
    #[error("checkpoint {path}: {source}")]
    Checkpoint {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Resume(String),
    #[error("another process failed ({0}); see its message")]
    Elsewhere(&'static str),
    #[error("a message between processes is damaged")]
    Damaged,
}

/// The cut of `0..ranks` into one contiguous share per process, each share a multiple
/// of a granule (so that a chunk of a packed table never straddles two shares).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    pub ranks: u64,
    pub processes: usize,
    /// Ranks per share (the last may be shorter, some may be empty).
    pub block: u64,
}

impl Partition {
    pub fn new(ranks: u64, processes: usize, granule: u64) -> Partition {
        let granule = granule.max(1);
        let block = ranks.div_ceil(processes as u64).div_ceil(granule).max(1) * granule;
        Partition {
            ranks,
            processes,
            block,
        }
    }

    pub fn owner(&self, rank: u64) -> usize {
        (rank / self.block) as usize
    }

    pub fn share(&self, p: usize) -> Range<u64> {
        let lo = (p as u64 * self.block).min(self.ranks);
        lo..(lo + self.block).min(self.ranks)
    }

    /// The chunks of `per` ranks that process `p`'s share covers (none for an empty
    /// share at the end of the ranks).
    pub fn chunks(&self, p: usize, per: u64) -> Range<u64> {
        let share = self.share(p);
        if share.is_empty() {
            return 0..0;
        }
        share.start / per..share.end.div_ceil(per)
    }
}

/// Where a search keeps its checkpoint and whether it continues one.
pub struct Checkpoint<'a> {
    /// The unit's directory (each process writes under its own subdirectory).
    pub dir: &'a Path,
    /// Continue from the last level every process finished; otherwise start afresh.
    pub resume: bool,
}

/// One level's exchange, summed over the processes.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Exchange {
    /// Bytes sent to other processes.
    pub bytes: u64,
    /// Neighbours sent to other processes (after merging).
    pub entries: u64,
    /// Wall seconds of the level, and the part spent in the exchanges (the slowest
    /// process's).
    pub seconds: f64,
    pub exchange_seconds: f64,
}

/// One process's part of the result.
pub struct Share {
    pub partition: Partition,
    /// Ranks of this share.
    pub range: Range<u64>,
    /// Its distances ([`UNREACHED`] where the goal cannot be reached).
    pub dist: Vec<u8>,
    /// Its next ranks, when asked for.
    pub next: Vec<u32>,
    /// Its counts, when asked for.
    pub count: Vec<u64>,
    /// Ranks per level, over all processes.
    pub levels: Vec<u64>,
    /// Levels that came from the checkpoint rather than from this run.
    pub resumed: u32,
    /// Each level's exchange (`exchanges[d]`: finding level `d + 1`), run here.
    pub exchanges: Vec<Exchange>,
}

impl Share {
    pub fn max_distance(&self) -> u8 {
        (self.levels.len() - 1) as u8
    }
}

/// Solves `space` backwards from its goals on every process of `comm` at once, each
/// keeping the share [`Partition::new`]`(space.size(), comm.size(), granule)` gives it.
/// Collective: every process calls it with the same space and arguments. An error is
/// returned by every process alike.
pub fn solve<S: StateSpace + ?Sized>(
    space: &S,
    outputs: Outputs,
    granule: u64,
    comm: &dyn Comm,
    checkpoint: Option<Checkpoint>,
    progress: &dyn Progress,
) -> Result<Share, DistError> {
    let n = space.size();
    if outputs.next && n >= NO_NEXT as u64 {
        return Err(DistError::TooLarge(n));
    }
    let partition = Partition::new(n, comm.size(), granule);
    let range = partition.share(comm.rank());
    let len = (range.end - range.start) as usize;
    let fields = Fields {
        parent: outputs.next,
        count: outputs.counts,
    };
    let mut s = State {
        first: range.start,
        dist: vec![UNREACHED; len],
        next: if outputs.next {
            vec![NO_NEXT; len]
        } else {
            Vec::new()
        },
        count: if outputs.counts {
            vec![0; len]
        } else {
            Vec::new()
        },
        marks: [
            vec![false; len.div_ceil(CHUNK)],
            vec![false; len.div_ceil(CHUNK)],
        ],
    };

    let mut goals = 0u64;
    for g in space.goals() {
        if g >= n {
            return Err(DistError::BadGoal(g));
        }
        if range.contains(&g)
            && s.claim(
                0,
                Reach {
                    rank: g,
                    parent: NO_NEXT,
                    count: 1,
                },
            )
        {
            goals += 1;
        }
    }
    let mut levels = vec![comm.reduce(Reduce::Sum, &[goals])[0]];

    // The checkpoint: open (every process), agree on the levels to keep, load them.
    let store = match &checkpoint {
        None => None,
        Some(c) => {
            let meta = format!(
                "ranks {n} processes {} granule {granule} next {} counts {}",
                comm.size(),
                outputs.next,
                outputs.counts
            );
            let (store, found) = open_checkpoint(c, comm, &meta)?;
            let keep = comm.reduce(Reduce::Min, &[found as u64])[0] as u32;
            let kept = store.keep_levels(keep);
            let failed = comm.any(kept.is_err());
            match kept {
                Err(e) => return Err(checkpoint_error(c.dir, e)),
                Ok(()) if failed => return Err(DistError::Elsewhere("reading its checkpoint")),
                Ok(()) => {}
            }
            for d in 1..=keep {
                let read = store.read(d);
                let here = match &read {
                    Ok(Some((entries, batch))) => s.load(d as u8, *entries, batch, fields),
                    _ => None,
                };
                let failed = comm.any(here.is_none());
                match (here, read) {
                    (Some(k), _) if !failed => levels.push(comm.reduce(Reduce::Sum, &[k])[0]),
                    (_, Err(e)) => return Err(checkpoint_error(c.dir, e)),
                    (Some(_), _) => return Err(DistError::Elsewhere("reading its checkpoint")),
                    (None, _) => {
                        return Err(DistError::Resume(format!(
                            "level {d} of the checkpoint in {} does not agree with its share",
                            c.dir.display()
                        )));
                    }
                }
            }
            Some(store)
        }
    };
    let resumed = levels.len() as u32 - 1;

    progress.phase("distances", n);
    progress.advance(levels.iter().sum());
    let slices = len.div_ceil(SLICE as usize) as u64;
    let mut exchanges = Vec::new();
    let mut d = (levels.len() - 1) as u8;
    while *levels.last().unwrap() > 0 {
        if d == UNREACHED - 1 {
            return Err(DistError::TooDeep(UNREACHED - 1));
        }
        let started = Instant::now();
        let mut ex = Exchange::default();
        let mut found = 0u64;
        s.marks[(d as usize + 1) % 2]
            .iter_mut()
            .for_each(|m| *m = false);
        // Neighbours in this share are applied slice by slice; the others are kept
        // encoded (a sorted segment per slice and process) for the level's exchange.
        let mut outgoing = vec![Vec::new(); comm.size()];
        for slice in 0..slices {
            let lo = (slice * SLICE).min(len as u64) as usize;
            let hi = ((slice + 1) * SLICE).min(len as u64) as usize;
            let (out, local) = s.expand(space, &partition, comm.rank(), d, lo..hi);
            found += s.apply(d + 1, local, &[]);
            for (p, batch) in out.iter().enumerate().filter(|(_, b)| !b.is_empty()) {
                let before = outgoing[p].len();
                wire::encode_segment(batch, partition.share(p).start, fields, &mut outgoing[p]);
                ex.entries += batch.len() as u64;
                ex.bytes += (outgoing[p].len() - before) as u64;
            }
        }
        let (size, ex) = finish_level(
            comm,
            &range,
            fields,
            outgoing,
            started,
            (found, ex),
            |seg| s.apply(d + 1, vec![Vec::new(); s.pieces()], &[seg]),
        )?;
        exchanges.push(ex);
        if let (Some(store), Some(c)) = (&store, &checkpoint) {
            let (entries, batch) = s.level_batch(d + 1, fields);
            let written = store.write(d as u32 + 1, entries, &batch);
            let failed = comm.any(written.is_err());
            match written {
                Err(e) => return Err(checkpoint_error(c.dir, e)),
                Ok(()) if failed => return Err(DistError::Elsewhere("writing its checkpoint")),
                Ok(()) => {}
            }
        }
        levels.push(size);
        progress.advance(size);
        d += 1;
    }
    levels.pop();
    Ok(Share {
        partition,
        range,
        dist: s.dist,
        next: s.next,
        count: s.count,
        levels,
        resumed,
        exchanges,
    })
}

/// The end of a level on every process: sends `outgoing` in the level's one exchange,
/// hands each received segment (checked to fall in this share, `range`) to `apply`,
/// which returns how many of its ranks are new to the level, agrees on damage, and sums
/// the level's size and figures over the processes. `found` and `ex` are this process's
/// own so far; `started` is when the level began.
pub(super) fn finish_level(
    comm: &dyn Comm,
    range: &Range<u64>,
    fields: Fields,
    outgoing: Vec<Vec<u8>>,
    started: Instant,
    (mut found, mut ex): (u64, Exchange),
    mut apply: impl FnMut(Vec<Reach>) -> u64,
) -> Result<(u64, Exchange), DistError> {
    let t = Instant::now();
    let got = comm.exchange(outgoing);
    let waited = t.elapsed().as_secs_f64();
    let mut damaged = false;
    for message in &got {
        let whole = wire::decode_segments(message, range.start, fields, |seg| {
            if seg.last().is_some_and(|r| r.rank >= range.end) {
                damaged = true;
            } else {
                found += apply(seg);
            }
        });
        damaged |= whole.is_none();
    }
    drop(got);
    if comm.any(damaged) {
        return Err(DistError::Damaged);
    }
    let sums = comm.reduce(Reduce::Sum, &[found, ex.bytes, ex.entries]);
    let secs = comm.reduce(
        Reduce::Max,
        &[
            (started.elapsed().as_secs_f64() * 1e6) as u64,
            (waited * 1e6) as u64,
        ],
    );
    (ex.bytes, ex.entries) = (sums[1], sums[2]);
    (ex.seconds, ex.exchange_seconds) = (secs[0] as f64 / 1e6, secs[1] as f64 / 1e6);
    Ok((sums[0], ex))
}

/// Removes this process's checkpoint of a unit that is finished and stored.
pub fn remove_checkpoint(dir: &Path, comm: &dyn Comm) -> std::io::Result<()> {
    let (store, _) = Store::open(dir, comm.rank(), comm.size(), "", false)?;
    store.remove()
}

/// Opens this process's checkpoint of a unit (every process at once): its store and the
/// number of whole levels it holds, or the same failure on every process.
pub(super) fn open_checkpoint(
    c: &Checkpoint,
    comm: &dyn Comm,
    meta: &str,
) -> Result<(Store, u32), DistError> {
    let opened = Store::open(c.dir, comm.rank(), comm.size(), meta, c.resume);
    let failed = comm.any(!matches!(opened, Ok((_, Found::Levels(_)))));
    match opened {
        Ok((store, Found::Levels(k))) if !failed => Ok((store, k)),
        Ok((_, Found::Mismatch(why))) => Err(DistError::Resume(why)),
        Err(e) => Err(checkpoint_error(c.dir, e)),
        Ok(_) => Err(DistError::Elsewhere("opening its checkpoint")),
    }
}

pub(super) fn checkpoint_error(dir: &Path, source: std::io::Error) -> DistError {
    DistError::Checkpoint {
        path: dir.display().to_string(),
        source,
    }
}

/// This process's tables under construction.
struct State {
    first: u64,
    dist: Vec<u8>,
    next: Vec<u32>,
    count: Vec<u64>,
    /// `marks[d % 2][c]`: chunk `c` of the share holds a rank at distance `d`.
    marks: [Vec<bool>; 2],
}

/// Calls `f` on each index of `range` whose distance is `d`, in order. Eight distances
/// are tested at once: late levels are spread over every chunk of the share, and most
/// of what a scan reads is other levels.
fn each_at(dist: &[u8], range: Range<usize>, d: u8, mut f: impl FnMut(usize)) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let (mut i, end) = (range.start, range.end);
    while i < end {
        if i.is_multiple_of(8) && i + 8 <= end {
            let w = u64::from_le_bytes(dist[i..i + 8].try_into().unwrap()) ^ (ONES * d as u64);
            // Nonzero exactly when some byte of `w` is zero, i.e. some distance is `d`.
            if w.wrapping_sub(ONES) & !w & (ONES << 7) == 0 {
                i += 8;
                continue;
            }
            for (j, &x) in dist[i..i + 8].iter().enumerate() {
                if x == d {
                    f(i + j);
                }
            }
            i += 8;
            continue;
        }
        if dist[i] == d {
            f(i);
        }
        i += 1;
    }
}

/// A piece of the share's tables, from rank `first` (its marks cover its own chunks).
struct View<'a> {
    first: u64,
    dist: &'a mut [u8],
    next: &'a mut [u32],
    count: &'a mut [u64],
    marks: &'a mut [bool],
}

impl View<'_> {
    /// Applies one arrival at level `d`; true if it is new to the level.
    fn claim(&mut self, d: u8, r: Reach) -> bool {
        let i = (r.rank - self.first) as usize;
        let now = self.dist[i];
        if now == UNREACHED {
            self.dist[i] = d;
            self.marks[i / CHUNK] = true;
            if let Some(n) = self.next.get_mut(i) {
                *n = r.parent;
            }
            if let Some(c) = self.count.get_mut(i) {
                *c = r.count;
            }
            return true;
        }
        if now == d {
            if let Some(n) = self.next.get_mut(i) {
                *n = (*n).min(r.parent);
            }
            if let Some(c) = self.count.get_mut(i) {
                *c = add_counts(*c, r.count);
            }
        }
        false
    }
}

impl State {
    /// Applies one arrival at level `d`; true if it is new to the level.
    fn claim(&mut self, d: u8, r: Reach) -> bool {
        View {
            first: self.first,
            dist: &mut self.dist,
            next: &mut self.next,
            count: &mut self.count,
            marks: &mut self.marks[d as usize % 2],
        }
        .claim(d, r)
    }

    /// Applies arrivals at level `d` in parallel: each thread takes a piece of the share,
    /// with this share's arrivals in that piece (`local[k]`, in any order) and the part
    /// of every other process's batch (sorted by rank) that falls in it, so no two
    /// threads write one entry. Returns the ranks new to the level.
    fn apply(&mut self, d: u8, local: Vec<Vec<Reach>>, batches: &[Vec<Reach>]) -> u64 {
        let len = self.dist.len();
        if len == 0 {
            return 0;
        }
        let piece = self.piece();
        let pieces = len.div_ceil(piece);
        fn split<T>(v: &mut [T], size: usize, n: usize) -> Vec<&mut [T]> {
            if v.is_empty() {
                return (0..n).map(|_| <&mut [T]>::default()).collect();
            }
            v.chunks_mut(size).collect()
        }
        let first = self.first;
        let dist = split(&mut self.dist, piece, pieces);
        let next = split(&mut self.next, piece, pieces);
        let count = split(&mut self.count, piece, pieces);
        let marks = split(&mut self.marks[d as usize % 2], piece / CHUNK, pieces);
        (dist
            .into_iter()
            .zip(next)
            .zip(count)
            .zip(marks)
            .zip(local)
            .enumerate())
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|(k, ((((dist, next), count), marks), local))| {
            let lo = first + (k * piece) as u64;
            let hi = lo + dist.len() as u64;
            let mut view = View {
                first: lo,
                dist,
                next,
                count,
                marks,
            };
            let mut found = 0;
            for r in local {
                found += view.claim(d, r) as u64;
            }
            for b in batches {
                let from = b.partition_point(|r| r.rank < lo);
                let to = b.partition_point(|r| r.rank < hi);
                for r in &b[from..to] {
                    found += view.claim(d, *r) as u64;
                }
            }
            found
        })
        .sum()
    }

    /// The neighbours of the ranks at level `d` among local indices `span`: those of
    /// other processes by owner, each batch sorted and merged for the wire, and those of
    /// this share by piece (see [`State::piece`]), as they come.
    fn expand<S: StateSpace + ?Sized>(
        &self,
        space: &S,
        partition: &Partition,
        me: usize,
        d: u8,
        span: Range<usize>,
    ) -> (Vec<Vec<Reach>>, Vec<Vec<Reach>>) {
        let marks = &self.marks[d as usize % 2];
        let chunks = span.start / CHUNK..span.end.div_ceil(CHUNK);
        let piece = self.piece();
        let pieces = self.pieces();
        let end = self.first + self.dist.len() as u64;
        let empty = || {
            (
                vec![Vec::new(); partition.processes],
                vec![Vec::new(); pieces],
            )
        };
        let (mut out, local) = chunks
            .into_par_iter()
            .filter(|&c| marks[c])
            .fold(
                || (empty(), Vec::new()),
                |((mut out, mut local), mut nbs), c| {
                    let chunk = c * CHUNK..((c + 1) * CHUNK).min(span.end);
                    each_at(&self.dist, chunk, d, |i| {
                        let rank = self.first + i as u64;
                        let count = self.count.get(i).copied().unwrap_or(0);
                        nbs.clear();
                        space.neighbors(rank, &mut nbs);
                        for &nb in &nbs {
                            let r = Reach {
                                rank: nb,
                                parent: rank as u32,
                                count,
                            };
                            if nb >= self.first && nb < end {
                                local[(nb - self.first) as usize / piece].push(r);
                            } else {
                                out[partition.owner(nb)].push(r);
                            }
                        }
                    });
                    ((out, local), nbs)
                },
            )
            .map(|(both, _)| both)
            .reduce(empty, |(mut a, mut la), (b, lb)| {
                for (x, y) in a.iter_mut().zip(b) {
                    x.extend(y);
                }
                for (x, y) in la.iter_mut().zip(lb) {
                    x.extend(y);
                }
                (a, la)
            });
        debug_assert!(out[me].is_empty());
        out.par_iter_mut().for_each(wire::merge);
        (out, local)
    }

    /// Number of pieces of the share (see [`State::piece`]).
    fn pieces(&self) -> usize {
        self.dist.len().div_ceil(self.piece())
    }

    /// Ranks per piece of the share that one thread applies arrivals to: a whole number
    /// of mark chunks, a few pieces per thread.
    fn piece(&self) -> usize {
        (self.dist.len().max(1))
            .div_ceil(rayon::current_num_threads() * 8)
            .div_ceil(CHUNK)
            * CHUNK
    }

    /// The ranks of this share at level `d`, encoded for a checkpoint.
    fn level_batch(&self, d: u8, fields: Fields) -> (u64, Vec<u8>) {
        let marks = &self.marks[d as usize % 2];
        let parts: Vec<Vec<Reach>> = (0..marks.len())
            .into_par_iter()
            .filter(|&c| marks[c])
            .map(|c| {
                let mut part = Vec::new();
                let chunk = c * CHUNK..((c + 1) * CHUNK).min(self.dist.len());
                each_at(&self.dist, chunk, d, |i| {
                    part.push(Reach {
                        rank: self.first + i as u64,
                        parent: self.next.get(i).copied().unwrap_or(0),
                        count: self.count.get(i).copied().unwrap_or(0),
                    })
                });
                part
            })
            .collect();
        let mut bytes = Vec::new();
        let mut prev = self.first;
        let mut entries = 0;
        for part in &parts {
            // Each part continues the gaps from the last rank of the one before.
            wire::encode(part, prev, fields, &mut bytes);
            if let Some(last) = part.last() {
                prev = last.rank;
            }
            entries += part.len() as u64;
        }
        (entries, bytes)
    }

    /// Loads level `d` from a checkpoint batch of `entries` ranks: the number loaded,
    /// or `None` if the batch does not fit this share.
    fn load(&mut self, d: u8, entries: u64, batch: &[u8], fields: Fields) -> Option<u64> {
        let end = self.first + self.dist.len() as u64;
        let mut loaded = 0u64;
        let mut fits = true;
        wire::decode(batch, self.first, fields, |r| {
            if r.rank >= end || self.dist[(r.rank - self.first) as usize] != UNREACHED {
                fits = false;
                return;
            }
            self.claim(d, r);
            loaded += 1;
        })?;
        (fits && loaded == entries).then_some(loaded)
    }
}
