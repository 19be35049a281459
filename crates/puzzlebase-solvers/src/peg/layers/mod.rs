//! The peg solver for boards whose reachable sets run into billions (`french37`): every
//! peg count is a bitmap of one bit per position (colex rank, [`colex`]), so memory is
//! bounded by the two widest layers instead of by the positions found.
//!
//! 1. Forward: from the start, one peg count at a time, every jump of every reachable
//!    position sets its (canonical) image in the next layer's bitmap. Finished layers go
//!    to unnamed scratch files, which the system removes however the process ends.
//! 2. Backward: `can-finish(k) = forward(k) ∩ { positions with a jump into
//!    can-finish(k-1) }`, pushed by un-jumps from the smaller can-finish set.
//! 3. Distances, fewest pegs first: `d(p) = 1 + min d(end)` over p's moves (chains of
//!    jumps), read from the layers already done in their stored form ([`table`]), so the
//!    table the file keeps is also the one the build reads.
//!
//! Counts of shortest solutions and optimal moves are not stored (they would cost more
//! than the 2 bytes a position takes): [`optimal_moves`] and [`count_solutions`] derive
//! them from the distances, exactly as the small boards' solver does.

pub mod bits;
pub mod colex;
pub mod table;

#[cfg(test)]
pub mod tests;

use std::collections::HashMap;
use std::io;
use std::path::Path;

use rayon::prelude::*;

use self::bits::{Bitmap, SPAN, Spilled};
use self::colex::Colex;
use self::table::{DIST_RANGE, DistanceError, Layer};
use super::board::Board;
use super::pairs::PairShares;
use super::solve::{LayerStats, PegError};
use puzzlebase_core::format::add_known_counts;
use puzzlebase_core::progress::Progress;

/// Boards of up to this many holes fit the method on this machine: 2^37 bits of layers
/// on scratch disk (17.2 GB), the widest two in memory.
pub const MAX_HOLES: usize = 37;

/// Jumps that share their offsets, enumerated for all their starting holes at once:
/// `from & p & p >> over & !p >> to` (shifts left for negative offsets).
struct Group {
    from: u64,
    over: i32,
    to: i32,
}

#[inline]
fn shr(x: u64, d: i32) -> u64 {
    if d >= 0 { x >> d } else { x << -d }
}

fn groups(board: &Board) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for j in &board.jumps {
        let (over, to) = (j.over as i32 - j.from as i32, j.to as i32 - j.from as i32);
        match out.iter_mut().find(|g| g.over == over && g.to == to) {
            Some(g) => g.from |= 1u64 << j.from,
            None => out.push(Group {
                from: 1u64 << j.from,
                over,
                to,
            }),
        }
    }
    out
}

/// The solver's view of a board: ranks, jump groups, symmetries.
pub struct Layout<'a> {
    pub board: &'a Board,
    pub colex: Colex,
    groups: Vec<Group>,
    full: u64,
}

impl<'a> Layout<'a> {
    pub fn new(board: &'a Board) -> Layout<'a> {
        Layout {
            board,
            colex: Colex::new(board.holes),
            groups: groups(board),
            full: if board.holes == 64 {
                u64::MAX
            } else {
                (1u64 << board.holes) - 1
            },
        }
    }

    /// Calls `f(after, moved, to)` for every single jump from `p`, where `moved` is the
    /// jump's three holes (from, over and the landing hole) and `to` the landing hole.
    #[inline]
    fn jumps(&self, p: u64, mut f: impl FnMut(u64, u64, usize)) {
        let empty = !p & self.full;
        for g in &self.groups {
            let mut c = g.from & p & shr(p, g.over) & shr(empty, g.to);
            while c != 0 {
                let h = c.trailing_zeros() as i32;
                c &= c - 1;
                let moved = (1u64 << h) ^ (1u64 << (h + g.over)) ^ (1u64 << (h + g.to));
                f(p ^ moved, moved, (h + g.to) as usize);
            }
        }
    }

    /// Calls `f(before)` for every position with a single jump to `q`.
    #[inline]
    pub fn unjumps(&self, q: u64, mut f: impl FnMut(u64)) {
        let empty = !q & self.full;
        for g in &self.groups {
            let mut c = g.from & empty & shr(empty, g.over) & shr(q, g.to);
            while c != 0 {
                let h = c.trailing_zeros() as i32;
                c &= c - 1;
                f(q ^ (1u64 << h) ^ (1u64 << (h + g.over)) ^ (1u64 << (h + g.to)));
            }
        }
    }

    #[inline]
    pub fn canonical(&self, p: u64) -> u64 {
        if self.board.symmetries().len() == 1 {
            p
        } else {
            self.board.canonical(p).0
        }
    }

    /// Positions in the class of canonical `p`.
    #[inline]
    pub fn class_size(&self, p: u64) -> u64 {
        self.board.class_size(p) as u64
    }

    /// Rank of canonical `p` in its layer.
    #[inline]
    pub fn rank(&self, p: u64) -> u64 {
        self.colex.rank(p)
    }
}

/// A board's table: for each peg count, the canonical positions that are reachable and
/// can finish, with their distances in the stored form.
pub struct LayerTable {
    /// One per peg count with reachable positions, fewest pegs first.
    pub layers: Vec<LayerStats>,
    /// Indexed by peg count (0 ..= holes).
    pub tables: Vec<Layer>,
    /// Per distance from 0: (positions, classes).
    pub histogram: Vec<(u64, u64)>,
    pub start_distance: u8,
    /// Canonical positions at the largest distance, sorted.
    pub farthest: Vec<u64>,
    /// Scratch bytes written at most (all forward layers).
    pub scratch_bytes: u64,
}

impl LayerTable {
    pub fn max_distance(&self) -> u8 {
        (self.histogram.len() - 1) as u8
    }
}

/// Distances of canonical positions by (peg count, rank): the table being built, the
/// one loaded by `verify`, or the file's chunks read on demand by `query`.
pub trait Distances {
    type Error;
    fn distance(&self, pegs: usize, rank: u64) -> Result<Option<u8>, Self::Error>;
}

impl Distances for [Layer] {
    type Error = std::convert::Infallible;
    fn distance(&self, pegs: usize, rank: u64) -> Result<Option<u8>, Self::Error> {
        Ok(self.get(pegs).and_then(|l| l.get(rank)))
    }
}

/// The distance of any position (not necessarily canonical).
pub fn distance_of<D: Distances + ?Sized>(
    layout: &Layout,
    table: &D,
    p: u64,
) -> Result<Option<u8>, D::Error> {
    let c = layout.canonical(p);
    table.distance(c.count_ones() as usize, layout.rank(c))
}

/// The distance of `p` and its optimal moves (each with the position after it, in
/// `p`'s own frame) in [`Board::moves`] order; `None` when `p` cannot finish. The finish
/// has distance 0 and no moves.
#[allow(clippy::type_complexity)]
pub fn optimal_moves<D: Distances + ?Sized>(
    layout: &Layout,
    table: &D,
    p: u64,
) -> Result<Option<(u8, Vec<(Vec<u8>, u64)>)>, D::Error> {
    let Some(d) = distance_of(layout, table, p)? else {
        return Ok(None);
    };
    if d == 0 {
        return Ok(Some((0, Vec::new())));
    }
    let mut out = Vec::new();
    let mut err = None;
    layout.board.for_each_move(p, |mv, after| {
        if err.is_none() {
            match distance_of(layout, table, after) {
                Ok(Some(e)) if e + 1 == d => out.push((mv.to_vec(), after)),
                Ok(_) => {}
                Err(e) => err = Some(e),
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(Some((d, out))),
    }
}

/// The number of distinct sequences of single jumps that finish from `p` in its distance
/// of moves (the seeds' counting, as [`super::solve()`] stores it): the sum over optimal
/// moves of the counts after them. `memo` holds counts by canonical position and may be
/// shared between calls. `None` above `i64::MAX`; `Some(0)` when `p` cannot finish.
pub fn count_solutions<D: Distances + ?Sized>(
    layout: &Layout,
    table: &D,
    p: u64,
    memo: &mut HashMap<u64, Option<u64>>,
) -> Result<Option<u64>, D::Error> {
    Ok(count_solutions_within(layout, table, p, memo, usize::MAX)?.expect("no budget"))
}

/// [`count_solutions`], giving up (`Ok(None)`) once `memo` would hold more than `budget`
/// positions.
pub fn count_solutions_within<D: Distances + ?Sized>(
    layout: &Layout,
    table: &D,
    p: u64,
    memo: &mut HashMap<u64, Option<u64>>,
    budget: usize,
) -> Result<Option<Option<u64>>, D::Error> {
    let c = layout.canonical(p);
    if let Some(&n) = memo.get(&c) {
        return Ok(Some(n));
    }
    if memo.len() >= budget {
        return Ok(None);
    }
    let n = match optimal_moves(layout, table, c)? {
        None => Some(0),
        Some((0, _)) => Some(1),
        Some((_, moves)) => {
            let mut sum = Some(0);
            for (_, after) in moves {
                let Some(n) = count_solutions_within(layout, table, after, memo, budget)? else {
                    return Ok(None);
                };
                sum = add_known_counts(sum, n);
            }
            sum
        }
    };
    memo.insert(c, n);
    Ok(Some(n))
}

/// Builds the table of `board`, spilling forward layers to unnamed files in `scratch`.
pub fn solve(
    board: &Board,
    scratch: &Path,
    progress: &dyn Progress,
) -> Result<LayerTable, PegError> {
    if board.holes > MAX_HOLES || !board.tabulate {
        return Err(PegError::NotTabulated(board.name.to_string()));
    }
    let layout = Layout::new(board);
    let io = |e: io::Error| PegError::Scratch(format!("{}: {e}", scratch.display()));
    let (mut forward, reach, scratch_bytes) = forward(&layout, scratch, progress).map_err(io)?;
    let top = board.start.count_ones() as usize;
    let fpegs = board.finish.count_ones() as usize;
    let n = board.holes;
    let mut tables: Vec<Layer> = (0..=n).map(|_| Layer::default()).collect();
    let mut histogram: Vec<(u64, u64)> = Vec::new();
    let mut finishing = vec![(0u64, 0u64); n + 1];

    progress.phase(
        "positions that can finish, and distances",
        (top - fpegs + 1) as u64,
    );
    // The finish layer: only the finish, if it is reachable.
    let finish = layout.canonical(board.finish);
    let mut cf = Bitmap::new(layout.colex.layer_size(fpegs));
    if let Some(f) = forward[fpegs].as_mut() {
        let fwd = f.load().map_err(io)?;
        let r = layout.rank(finish);
        if fwd.get(r) {
            cf.set(r);
        }
    }
    tables[fpegs] = distances(
        &layout,
        &cf,
        fpegs,
        &tables,
        &mut histogram,
        &mut finishing[fpegs],
    )
    .map_err(|e| PegError::Distances(board.name.to_string(), e))?;
    progress.advance(1);
    for k in fpegs + 1..=top {
        let fwd = match forward[k].as_mut() {
            Some(f) => f.load().map_err(io)?,
            None => Bitmap::new(layout.colex.layer_size(k)),
        };
        forward[k] = None;
        let next = Bitmap::new(layout.colex.layer_size(k));
        (0..cf.spans()).into_par_iter().for_each(|s| {
            cf.scan_span(&layout.colex, k - 1, s, |_, q| {
                layout.unjumps(q, |p| {
                    let r = layout.rank(layout.canonical(p));
                    if fwd.get(r) {
                        next.set(r);
                    }
                })
            })
        });
        drop(fwd);
        cf = next;
        let layer = distances(&layout, &cf, k, &tables, &mut histogram, &mut finishing[k])
            .map_err(|e| PegError::Distances(board.name.to_string(), e))?;
        tables[k] = layer;
        progress.advance(1);
    }
    drop(cf);

    let start = layout.canonical(board.start);
    let start_distance = tables[top]
        .get(layout.rank(start))
        .ok_or_else(|| PegError::StartCannotFinish(board.name.to_string()))?;
    let max = (histogram.len() - 1) as u8;
    let mut farthest: Vec<u64> = (0..=n)
        .into_par_iter()
        .flat_map_iter(|k| {
            let t = &tables[k];
            let mut out = Vec::new();
            for (c, blob) in t.chunks.iter().enumerate() {
                if !blob.is_empty() {
                    table::entries(blob, t.base, |r, d| {
                        if d == max {
                            out.push(layout.colex.unrank(k, c as u64 * SPAN + r as u64));
                        }
                    });
                }
            }
            out
        })
        .collect();
    farthest.sort_unstable();
    let layers = (0..=n)
        .filter(|&k| reach[k].classes > 0)
        .map(|k| LayerStats {
            pegs: k as u8,
            reachable: reach[k].positions,
            can_finish: finishing[k].0,
            reachable_classes: reach[k].classes,
            can_finish_classes: finishing[k].1,
            reachable_pairs: reach[k].pairs,
        })
        .collect();
    Ok(LayerTable {
        layers,
        tables,
        histogram,
        start_distance,
        farthest,
        scratch_bytes,
    })
}

/// What the forward pass counts in one peg count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reach {
    /// Positions reachable from the start (class sizes added up).
    pub positions: u64,
    /// Canonical positions among them.
    pub classes: u64,
    /// (position, hole of the peg that moved last) pairs reachable from the start: the
    /// states of a search in moves, which J.-C. Meyrignac counts. The start counts once,
    /// with no last peg.
    pub pairs: u64,
}

/// The forward pass: every layer's bitmap spilled (indexed by peg count), what each
/// peg count reaches ([`Reach`]), and the scratch bytes written.
///
/// The pairs of the next layer are counted from the jumps that make it, each jump the
/// share of its pair given by `PairShares::share` (in `super::pairs`): a lookup in the
/// layer being expanded only for another parent of the pair that ranks before the
/// jump's own.
#[allow(clippy::type_complexity)]
pub fn forward(
    layout: &Layout,
    scratch: &Path,
    progress: &dyn Progress,
) -> io::Result<(Vec<Option<Spilled>>, Vec<Reach>, u64)> {
    let board = layout.board;
    let n = board.holes;
    let top = board.start.count_ones() as usize;
    let mut spilled: Vec<Option<Spilled>> = (0..=n).map(|_| None).collect();
    let mut reach = vec![Reach::default(); n + 1];
    let mut bytes = 0u64;
    progress.phase("reachable positions", top as u64);
    let mut cur = Bitmap::new(layout.colex.layer_size(top));
    cur.set(layout.rank(layout.canonical(board.start)));
    let shares = PairShares::new(board);
    let mut pairs = None;
    for k in (1..=top).rev() {
        let next = Bitmap::new(if k > 1 {
            layout.colex.layer_size(k - 1)
        } else {
            0
        });
        let reached = |c: u64| cur.get(layout.rank(c));
        let counts = (0..cur.spans())
            .into_par_iter()
            .map(|s| {
                let (mut positions, mut classes, mut units) = (0u64, 0u64, 0u64);
                cur.scan_span(&layout.colex, k, s, |_, p| {
                    let size = layout.class_size(p);
                    positions += size;
                    classes += 1;
                    if k > 1 {
                        let mut share = 0u64;
                        layout.jumps(p, |q, moved, to| {
                            next.set(layout.rank(layout.canonical(q)));
                            let canonical = |_, other| layout.canonical(q ^ other);
                            share += shares.share(p, q, moved, to, canonical, reached);
                        });
                        units += size * share;
                    }
                });
                (positions, classes, units)
            })
            .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
        reach[k] = Reach {
            positions: counts.0,
            classes: counts.1,
            // The start's layer holds the start alone.
            pairs: pairs.unwrap_or(counts.0),
        };
        pairs = Some(shares.pairs(counts.2));
        if counts.1 > 0 {
            spilled[k] = Some(cur.spill(scratch)?);
            bytes += cur.len().div_ceil(64) * 8;
        }
        progress.advance(1);
        cur = next;
    }
    Ok((spilled, reach, bytes))
}

/// The distances of the positions set in `cf` (peg count `k`), encoded; adds them to
/// the histogram and to `finishing` (positions, classes). Fails when a distance does
/// not fit the encoding beside the layer's smallest.
fn distances(
    layout: &Layout,
    cf: &Bitmap,
    k: usize,
    tables: &[Layer],
    histogram: &mut Vec<(u64, u64)>,
    finishing: &mut (u64, u64),
) -> Result<Layer, DistanceError> {
    let spans = cf.spans();
    let fpegs = layout.board.finish.count_ones() as usize;
    // Distances first, one byte per position in rank order per span; encoded once the
    // layer's smallest distance is known.
    // Per span: its distances, and its (positions, classes) per distance.
    type Span = (Vec<u8>, [(u64, u64); 64]);
    let found: Vec<Span> = (0..spans)
        .into_par_iter()
        .map(|s| {
            let mut ds = Vec::new();
            let mut hist = [(0u64, 0u64); 64];
            cf.scan_span(&layout.colex, k, s, |_, p| {
                let d = if k == fpegs {
                    0
                } else {
                    let mut best = u8::MAX;
                    layout.board.for_each_move(p, |_, after| {
                        if let Ok(Some(e)) = distance_of(layout, tables, after) {
                            best = best.min(e + 1);
                        }
                    });
                    best
                };
                let size = layout.class_size(p);
                let h = &mut hist[(d as usize).min(63)];
                h.0 += size;
                h.1 += 1;
                ds.push(d);
            });
            (ds, hist)
        })
        .collect();
    let mut base = u8::MAX;
    let mut top = 0u8;
    for (ds, hist) in &found {
        for &d in ds {
            base = base.min(d);
            top = top.max(d);
        }
        for (d, &(positions, classes)) in hist.iter().enumerate() {
            if classes > 0 {
                if histogram.len() <= d {
                    histogram.resize(d + 1, (0, 0));
                }
                histogram[d].0 += positions;
                histogram[d].1 += classes;
                finishing.0 += positions;
                finishing.1 += classes;
            }
        }
    }
    if base == u8::MAX {
        return Ok(Layer::default());
    }
    if top == u8::MAX {
        return Err(DistanceError::NoMove { pegs: k });
    }
    if top - base >= DIST_RANGE || top >= 63 {
        return Err(DistanceError::Range { pegs: k, base, top });
    }
    let chunks: Vec<Vec<u8>> = found
        .into_par_iter()
        .enumerate()
        .map(|(s, (ds, _))| {
            if ds.is_empty() {
                return Vec::new();
            }
            let mut entries = Vec::with_capacity(ds.len());
            let mut i = 0;
            cf.scan_span(&layout.colex, k, s as u64, |r, _| {
                entries.push(((r - s as u64 * SPAN) as u32, ds[i]));
                i += 1;
            });
            table::encode(&entries, base).expect("distances within the layer's range")
        })
        .collect();
    Ok(Layer { base, chunks })
}
