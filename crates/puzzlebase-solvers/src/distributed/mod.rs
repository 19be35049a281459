//! Breadth-first search across processes: the rank space is cut into one contiguous
//! share per process ([`Partition`]), each process keeps only its share's tables, and
//! the levels run in lockstep. A process expands the ranks of its share at the current
//! level, a slice of its share at a time; the neighbours it reaches in its own share are
//! applied at once, and those that belong to another process are sorted, merged and
//! varint-coded per slice (see [`wire`]) and travel in one all-to-all per level,
//! and the level's size and the end of the search are agreed by a reduction. Each
//! finished level is checkpointed (see [`checkpoint`]), so that a killed run resumes.
//!
//! The tables are those of [`crate::bfs`], rank for rank: the distance is the
//! level, the next position the smallest-ranked neighbour one level closer, the count
//! the sum over those neighbours. Each is a minimum or a sum over the same set whatever
//! the order of arrival, so the result does not depend on the number of processes.
//!
//! [`twobit`] runs the two-bit search (distance mod 4) the same way, for tables too large
//! for a byte per rank.
//!
//! The search reaches other processes only through [`Comm`]: MPI in the `mpi` build
//! (`generate::mpi`), [`Solo`] for one process, [`Threads`] in the tests.

mod cells;
pub mod checkpoint;
pub mod comm;
pub mod twobit;
pub mod wire;

#[cfg(test)]
mod tests;

use std::ops::Range;
use std::path::Path;
use std::time::Instant;

use thiserror::Error;

pub use comm::{Comm, Reduce, Solo, Threads};

use crate::bfs::{NO_NEXT, Outputs, WIDE_UNREACHED};
use cells::{Cell, State, width_at};
use checkpoint::{Found, Store};
use puzzlebase_core::format::UNREACHED;
use puzzlebase_core::progress::Progress;
use puzzlebase_core::space::StateSpace;
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
    /// A distance past what four bytes a rank hold (the shares widen from one byte to
    /// four at distance 254, as one process's search does).
    #[error("distance exceeds {0} moves, more than a table of four bytes a rank holds")]
    TooDeep(u32),
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

/// A share's distances: a byte per rank while every distance fits one ([`UNREACHED`]
/// where the goal cannot be reached), four once the search has gone past distance 254
/// ([`WIDE_UNREACHED`]), as one process's search ([`crate::bfs::Solved`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Distances {
    Narrow(Vec<u8>),
    Wide(Vec<u32>),
}

impl Distances {
    /// The distance at index `i` of the share, `None` where the goal cannot be reached.
    pub fn get(&self, i: usize) -> Option<u32> {
        match self {
            Distances::Narrow(d) => Some(d[i]).filter(|&x| x != UNREACHED).map(u32::from),
            Distances::Wide(d) => Some(d[i]).filter(|&x| x != WIDE_UNREACHED),
        }
    }
    /// Ranks in the share.
    pub fn len(&self) -> usize {
        match self {
            Distances::Narrow(d) => d.len(),
            Distances::Wide(d) => d.len(),
        }
    }
    /// Whether the share has no ranks.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One process's part of the result.
pub struct Share {
    pub partition: Partition,
    /// Ranks of this share.
    pub range: Range<u64>,
    /// Its distances: bytes, or four bytes a rank when some distance exceeds 254 (on
    /// every process alike).
    pub dist: Distances,
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
    pub fn max_distance(&self) -> u32 {
        (self.levels.len() - 1) as u32
    }
}

/// The share's tables, with the cells they have reached.
enum Cells {
    Narrow(State<u8>),
    Wide(State<u32>),
}

/// Runs `$body` with `$s` bound to the share's tables at whichever width they are.
macro_rules! with_cells {
    ($cells:expr, $s:ident => $body:expr) => {
        match $cells {
            Cells::Narrow($s) => $body,
            Cells::Wide($s) => $body,
        }
    };
}

impl Cells {
    /// Makes room for distance `d`: byte cells widen to four bytes when `d` exceeds 254
    /// (every process at the same level, as the levels run in lockstep).
    fn fit(&mut self, d: u32) -> Result<(), DistError> {
        if d > <u32 as Cell>::LAST {
            return Err(DistError::TooDeep(<u32 as Cell>::LAST));
        }
        if d > <u8 as Cell>::LAST
            && let Cells::Narrow(s) = self
        {
            let s = std::mem::replace(
                s,
                State {
                    first: 0,
                    dist: Vec::new(),
                    next: Vec::new(),
                    count: Vec::new(),
                    marks: [Vec::new(), Vec::new()],
                },
            );
            *self = Cells::Wide(s.widen());
        }
        Ok(())
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
    let mut s = State::<u8> {
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
    let mut cells = Cells::Narrow(s);

    // The checkpoint: open (every process), agree on the levels to keep, load them.
    let store = match &checkpoint {
        None => None,
        Some(c) => {
            let meta = format!(
                "ranks {n} processes {} granule {granule} next {} counts {} \
                 cells 1 byte to level 254, 4 bytes beyond",
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
                cells.fit(d)?;
                let read = store.read(d);
                let here = match &read {
                    Ok(Some((width, entries, batch))) if *width == width_at(d) => {
                        with_cells!(&mut cells, s => s.load(Cell::of(d), *entries, batch, fields))
                    }
                    _ => None,
                };
                let failed = comm.any(here.is_none());
                match (here, read) {
                    (Some(k), _) if !failed => levels.push(comm.reduce(Reduce::Sum, &[k])[0]),
                    (_, Err(e)) => return Err(checkpoint_error(c.dir, e)),
                    (Some(_), _) => return Err(DistError::Elsewhere("reading its checkpoint")),
                    (None, Ok(Some((width, ..)))) if width != width_at(d) => {
                        return Err(DistError::Resume(format!(
                            "level {d} of the checkpoint in {} was written with {width}-byte \
                             distances where this search keeps {}-byte ones: remove it or \
                             start afresh without resuming",
                            c.dir.display(),
                            width_at(d)
                        )));
                    }
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
    let mut exchanges = Vec::new();
    let mut d = (levels.len() - 1) as u32;
    while *levels.last().unwrap() > 0 {
        cells.fit(d + 1)?;
        let (size, ex) = with_cells!(&mut cells, s => {
            level(s, space, &partition, comm, fields, d, store.as_ref().zip(checkpoint.as_ref()))
        })?;
        exchanges.push(ex);
        levels.push(size);
        progress.advance(size);
        d += 1;
    }
    levels.pop();
    let (dist, next, count) = match cells {
        Cells::Narrow(s) => (Distances::Narrow(s.dist), s.next, s.count),
        Cells::Wide(s) => (Distances::Wide(s.dist), s.next, s.count),
    };
    Ok(Share {
        partition,
        range,
        dist,
        next,
        count,
        levels,
        resumed,
        exchanges,
    })
}

/// Finds level `d + 1` from level `d` on every process (the share's cells hold
/// `d + 1`) and checkpoints it: its size over all processes and its exchange.
fn level<C: Cell, S: StateSpace + ?Sized>(
    s: &mut State<C>,
    space: &S,
    partition: &Partition,
    comm: &dyn Comm,
    fields: Fields,
    d: u32,
    checkpoint: Option<(&Store, &Checkpoint)>,
) -> Result<(u64, Exchange), DistError> {
    let range = partition.share(comm.rank());
    let len = s.dist.len();
    let slices = len.div_ceil(SLICE as usize) as u64;
    let (at, to) = (C::of(d), C::of(d + 1));
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
        let (out, local) = s.expand(space, partition, comm.rank(), at, lo..hi);
        found += s.apply(to, local, &[]);
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
        |seg| s.apply(to, vec![Vec::new(); s.pieces()], &[seg]),
    )?;
    if let Some((store, c)) = checkpoint {
        let (entries, batch) = s.level_batch(to, fields);
        let written = store.write(d + 1, C::WIDTH, entries, &batch);
        let failed = comm.any(written.is_err());
        match written {
            Err(e) => return Err(checkpoint_error(c.dir, e)),
            Ok(()) if failed => return Err(DistError::Elsewhere("writing its checkpoint")),
            Ok(()) => {}
        }
    }
    Ok((size, ex))
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
