//! The two-bit search of [`crate::twobit`] (distance mod 4, with the parity
//! frontier) across processes: each process keeps two bits per rank of its share only,
//! so a table too large for one machine's memory is split as well as its work.
//!
//! Levels run in lockstep as in [`super::solve`]. A process expands its share's frontier
//! a slice at a time: neighbours in its share are claimed at once, the others are sorted,
//! made distinct and coded as bare varint gaps ([`wire::encode_rank_segment`]) for their
//! owners, and the level's one all-to-all delivers them; each process then claims what it
//! received as frontier of the next level. A rank claimed twice (from two processes, or
//! here and from elsewhere) is counted once, so the level sizes, and with them every
//! code, do not depend on the number of processes.
//!
//! The mod-4 code needs a bipartite graph with every rank reached; where that does not
//! hold the search says so and the caller solves the space on one process (mod 3).
//!
//! Checkpoints are snapshots of each share's cells ([`super::checkpoint`]), at most every
//! [`SNAPSHOT_SECONDS`] (every level for small shares): a level's ranks cannot be told
//! apart from the earlier ones in two bits, and a share of gigabytes written every level
//! would cost more than the level. A killed run resumes from the last snapshot every
//! process finished.

use std::io::{self, Read, Write};
use std::ops::Range;
use std::time::{Duration, Instant};

use super::checkpoint::Store;
use super::{
    Checkpoint, Comm, DistError, Exchange, Partition, Reduce, checkpoint_error, finish_level, wire,
};
use crate::twobit::{CHUNK, FARTHEST_KEPT, Search};
use puzzlebase_core::progress::{Progress, Silent, Steps};
use puzzlebase_core::space::StateSpace;

/// Chunks of the share expanded at a time (2^24 ranks): bounds the neighbours for
/// other processes held before they are coded.
const SLICE_CHUNKS: usize = (1 << 24) / CHUNK as usize;

/// The least time between two snapshots of a share.
pub const SNAPSHOT_SECONDS: u64 = 600;
/// Shares of at most this many ranks (4 MB of cells) are snapshot after every level.
const SNAPSHOT_ALWAYS: u64 = 1 << 24;

/// One process's part of a two-bit search.
pub struct TwoBitShare {
    pub partition: Partition,
    /// Ranks of this share.
    pub range: Range<u64>,
    /// Every rank's distance mod 4, as [`crate::twobit::TwoBitTable`] keeps them:
    /// words of 32 ranks from the share's first, in blocks.
    pub blocks: Vec<Vec<u64>>,
    /// Ranks per level, over all processes.
    pub levels: Vec<u64>,
    /// Levels that came from a snapshot rather than from this run.
    pub resumed: u32,
    /// On process 0, the ranks at the largest distance over all processes, sorted (empty
    /// when that level has more than [`FARTHEST_KEPT`]); empty elsewhere.
    pub farthest: Vec<u64>,
    /// Each level's exchange (`exchanges[d]`: finding level `d + 1`).
    pub exchanges: Vec<Exchange>,
}

/// Solves `space` backwards from its goals, two bits per rank, on every process of
/// `comm` at once, each keeping the share [`Partition::new`]`(space.size(), comm.size(),
/// granule)` gives it (`granule` a multiple of 32, so that shares hold whole words).
/// Collective: every process calls it with the same arguments and gets the same answer.
/// With `checkpoint`, snapshots are written as it goes, and a resume starts from the last
/// one every process has. `Ok(None)` when the mod-4 code does not apply (the graph is not
/// bipartite with the goals on one side, or some rank is never reached).
pub fn solve_share<S: StateSpace + ?Sized>(
    space: &S,
    granule: u64,
    comm: &dyn Comm,
    checkpoint: Option<Checkpoint>,
    progress: &dyn Progress,
) -> Result<Option<TwoBitShare>, DistError> {
    assert!(granule.is_multiple_of(32), "shares hold whole words");
    let n = space.size();
    let goals = space.goals();
    if let Some(&g) = goals.iter().find(|&&g| g >= n) {
        return Err(DistError::BadGoal(g));
    }
    if goals.is_empty() || !goals.iter().all(|&g| space.parity(g) == Some(0)) {
        return Ok(None);
    }
    let partition = Partition::new(n, comm.size(), granule);
    let range = partition.share(comm.rank());
    let search = Search::new(range.clone());
    let mut last: Vec<u64> = Vec::new();
    for &g in goals.iter().filter(|g| range.contains(g)) {
        if search.claim_goal(g) {
            last.push(g);
        }
    }
    let mut levels = vec![comm.reduce(Reduce::Sum, &[last.len() as u64])[0]];

    let mut store = None;
    let mut resumed = 0u32;
    if let Some(c) = &checkpoint {
        let meta = format!(
            "two-bit ranks {n} processes {} granule {granule} cells 2 bits",
            comm.size()
        );
        let (s, _) = super::open_checkpoint(c, comm, &meta)?;
        if c.resume {
            let mine = s.snapshots().map(|l| l.last().copied().unwrap_or(0));
            let failed = comm.any(mine.is_err());
            let mine = match mine {
                Err(e) => return Err(checkpoint_error(c.dir, e)),
                Ok(_) if failed => return Err(DistError::Elsewhere("reading its checkpoint")),
                Ok(m) => m,
            };
            let at = comm.reduce(Reduce::Min, &[mine as u64])[0] as u32;
            if at > 0 {
                let read = read_snapshot(&s, at, &search);
                let failed = comm.any(!matches!(read, Ok(Some(_))));
                match read {
                    Ok(Some((l, la))) if !failed => {
                        (levels, last, resumed) = (l, la, at);
                        search.mark_front(at as usize);
                    }
                    Err(e) => return Err(checkpoint_error(c.dir, e)),
                    Ok(None) => {
                        return Err(DistError::Resume(format!(
                            "the snapshot of level {at} in {} is damaged or cut short: start afresh without resuming to start afresh",
                            c.dir.display()
                        )));
                    }
                    Ok(Some(_)) => {
                        return Err(DistError::Elsewhere("reading its checkpoint"));
                    }
                }
            }
        }
        store = Some(s);
    }
    progress.phase("distances (two bits, mod 4)", n);
    progress.advance(levels.iter().sum());

    let chunks = search.chunks();
    let mut exchanges = Vec::new();
    let mut d = resumed as usize;
    let mut since = Instant::now();
    while levels[d] > 0 {
        let started = Instant::now();
        let mut ex = Exchange::default();
        let mut found = 0u64;
        search.clear_marks(d + 1);
        let mut outgoing = vec![Vec::new(); comm.size()];
        for lo in (0..chunks).step_by(SLICE_CHUNKS) {
            // (This process's progress is the whole level's, shown once it is known.)
            let silent = Steps::new(&Silent);
            let slice = lo..(lo + SLICE_CHUNKS).min(chunks);
            let (here, outside) = search.push_front(space, d, slice, &silent);
            found += here;
            // Sorted, so each owner's ranks are one run.
            let mut rest = &outside[..];
            while let Some(&first) = rest.first() {
                let p = partition.owner(first);
                let end = rest.partition_point(|&r| partition.owner(r) == p);
                let before = outgoing[p].len();
                let base = partition.share(p).start;
                wire::encode_rank_segment(&rest[..end], base, &mut outgoing[p]);
                ex.entries += end as u64;
                ex.bytes += (outgoing[p].len() - before) as u64;
                rest = &rest[end..];
            }
        }
        let (size, ex) = finish_level(
            comm,
            &range,
            wire::BARE,
            outgoing,
            started,
            (found, ex),
            |seg| {
                let ranks: Vec<u64> = seg.iter().map(|r| r.rank).collect();
                search.arrive(&ranks, d + 1)
            },
        )?;
        exchanges.push(ex);
        // Every process's claims of a level of at most FARTHEST_KEPT ranks are whole.
        let claimed = search.take_last();
        if size > 0 {
            last = if size <= FARTHEST_KEPT {
                claimed
            } else {
                Vec::new()
            };
        }
        levels.push(size);
        progress.advance(size);
        d += 1;
        if let (Some(s), Some(c)) = (&store, &checkpoint)
            && size > 0
            && comm.any(
                since.elapsed() >= Duration::from_secs(SNAPSHOT_SECONDS)
                    || range.end - range.start <= SNAPSHOT_ALWAYS,
            )
        {
            let written = write_snapshot(s, d as u32, &levels, &last, &search);
            let failed = comm.any(written.is_err());
            match written {
                Err(e) => return Err(checkpoint_error(c.dir, e)),
                Ok(()) if failed => return Err(DistError::Elsewhere("writing its checkpoint")),
                // Every process has level d now: the older snapshots go.
                Ok(()) => s
                    .drop_snapshots_before(d as u32)
                    .map_err(|e| checkpoint_error(c.dir, e))?,
            }
            since = Instant::now();
        }
    }
    levels.pop();
    let unreached = search.complete_mod4(space);
    if comm.reduce(Reduce::Sum, &[unreached])[0] > 0 {
        return Ok(None);
    }
    let bytes: Vec<u8> = last.iter().flat_map(|r| r.to_le_bytes()).collect();
    let farthest = match comm.gather(&bytes) {
        None => Vec::new(),
        Some(parts) => {
            let mut all: Vec<u64> = (parts.iter().flat_map(|p| p.chunks_exact(8)))
                .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                .collect();
            all.sort_unstable();
            all.dedup();
            all
        }
    };
    Ok(Some(TwoBitShare {
        partition,
        range,
        blocks: search.into_blocks(),
        levels,
        resumed,
        farthest,
        exchanges,
    }))
}

/// Writes the snapshot of level `d`: the level sizes, the ranks kept of the last level,
/// the cells.
fn write_snapshot(
    store: &Store,
    d: u32,
    levels: &[u64],
    last: &[u64],
    search: &Search,
) -> io::Result<()> {
    let mut w = store.snapshot_writer(d)?;
    w.write_all(&(levels.len() as u64).to_le_bytes())?;
    for x in levels.iter().chain([&(last.len() as u64)]).chain(last) {
        w.write_all(&x.to_le_bytes())?;
    }
    search.save(&mut w)?;
    w.finish()
}

/// Reads the snapshot of level `d` into the cells: the level sizes and the ranks kept
/// of the last level, or `None` if it is missing, damaged or cut short.
fn read_snapshot(
    store: &Store,
    d: u32,
    search: &Search,
) -> io::Result<Option<(Vec<u64>, Vec<u64>)>> {
    let Some(mut r) = store.snapshot_reader(d)? else {
        return Ok(None);
    };
    let cut = |e: io::Error| match e.kind() {
        io::ErrorKind::UnexpectedEof => Ok(None),
        _ => Err(e),
    };
    let mut word = || -> io::Result<u64> {
        let mut b = [0u8; 8];
        r.read_exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    };
    let header = (|| -> io::Result<Option<(Vec<u64>, Vec<u64>)>> {
        if word()? != d as u64 + 1 {
            return Ok(None);
        }
        let levels = (0..=d).map(|_| word()).collect::<io::Result<Vec<u64>>>()?;
        let kept = word()?;
        if kept > 2 * FARTHEST_KEPT || levels[d as usize] == 0 {
            return Ok(None);
        }
        let last = (0..kept)
            .map(|_| word())
            .collect::<io::Result<Vec<u64>>>()?;
        Ok(Some((levels, last)))
    })();
    let found = match header {
        Ok(Some(found)) => found,
        Ok(None) => return Ok(None),
        Err(e) => return cut(e),
    };
    if let Err(e) = search.load(&mut r) {
        return cut(e);
    }
    Ok(r.finish()?.then_some(found))
}
