//! The share's tables under construction: distance cells of one byte while every
//! distance fits ([`UNREACHED`] = 255 marks a rank not reached), widened to four bytes
//! ([`WIDE_UNREACHED`]) when the search reaches distance 254, as one process's search
//! does; the next ranks, the counts and the flags per chunk that say where a level's
//! ranks are.

use std::ops::Range;

use rayon::prelude::*;

use super::wire::{self, Fields, Reach};
use super::{CHUNK, Partition};
use crate::bfs::WIDE_UNREACHED;
use puzzlebase_core::format::{UNREACHED, add_counts};
use puzzlebase_core::space::StateSpace;

/// A distance cell of a share: `u8` or `u32`.
pub(super) trait Cell: Copy + Eq + Send + Sync + 'static {
    /// A rank not reached (the type's largest value).
    const UNREACHED: Self;
    /// The largest distance the cell holds.
    const LAST: u32;
    /// Bytes per cell, as a checkpoint's level files record it.
    const WIDTH: u8;
    /// `d`, which the caller has checked is at most [`Cell::LAST`].
    fn of(d: u32) -> Self;
    fn get(self) -> u32;
    /// Calls `f` on each index of `range` whose cell is `d`, in order.
    fn each_at(cells: &[Self], range: Range<usize>, d: Self, f: impl FnMut(usize));
}

impl Cell for u8 {
    const UNREACHED: u8 = UNREACHED;
    const LAST: u32 = UNREACHED as u32 - 1;
    const WIDTH: u8 = 1;
    fn of(d: u32) -> u8 {
        d as u8
    }
    fn get(self) -> u32 {
        self as u32
    }
    fn each_at(cells: &[u8], range: Range<usize>, d: u8, f: impl FnMut(usize)) {
        each_byte_at(cells, range, d, f)
    }
}

impl Cell for u32 {
    const UNREACHED: u32 = WIDE_UNREACHED;
    const LAST: u32 = WIDE_UNREACHED - 1;
    const WIDTH: u8 = 4;
    fn of(d: u32) -> u32 {
        d
    }
    fn get(self) -> u32 {
        self
    }
    fn each_at(cells: &[u32], range: Range<usize>, d: u32, mut f: impl FnMut(usize)) {
        for i in range {
            if cells[i] == d {
                f(i);
            }
        }
    }
}

/// The bytes per cell of a search's share at level `d`: one up to 254, four beyond.
pub(super) fn width_at(d: u32) -> u8 {
    if d <= <u8 as Cell>::LAST {
        <u8 as Cell>::WIDTH
    } else {
        <u32 as Cell>::WIDTH
    }
}

/// This process's tables under construction.
pub(super) struct State<C: Cell> {
    pub(super) first: u64,
    pub(super) dist: Vec<C>,
    pub(super) next: Vec<u32>,
    pub(super) count: Vec<u64>,
    /// `marks[d % 2][c]`: chunk `c` of the share holds a rank at distance `d`.
    pub(super) marks: [Vec<bool>; 2],
}

/// Calls `f` on each index of `range` whose distance is `d`, in order. Eight distances
/// are tested at once: late levels are spread over every chunk of the share, and most
/// of what a scan reads is other levels.
fn each_byte_at(dist: &[u8], range: Range<usize>, d: u8, mut f: impl FnMut(usize)) {
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
struct View<'a, C: Cell> {
    first: u64,
    dist: &'a mut [C],
    next: &'a mut [u32],
    count: &'a mut [u64],
    marks: &'a mut [bool],
}

impl<C: Cell> View<'_, C> {
    /// Applies one arrival at level `d`; true if it is new to the level.
    fn claim(&mut self, d: C, r: Reach) -> bool {
        let i = (r.rank - self.first) as usize;
        let now = self.dist[i];
        if now == C::UNREACHED {
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

impl<C: Cell> State<C> {
    /// Applies one arrival at level `d`; true if it is new to the level.
    pub(super) fn claim(&mut self, d: C, r: Reach) -> bool {
        View {
            first: self.first,
            dist: &mut self.dist,
            next: &mut self.next,
            count: &mut self.count,
            marks: &mut self.marks[d.get() as usize % 2],
        }
        .claim(d, r)
    }

    /// Applies arrivals at level `d` in parallel: each thread takes a piece of the share,
    /// with this share's arrivals in that piece (`local[k]`, in any order) and the part
    /// of every other process's batch (sorted by rank) that falls in it, so no two
    /// threads write one entry. Returns the ranks new to the level.
    pub(super) fn apply(&mut self, d: C, local: Vec<Vec<Reach>>, batches: &[Vec<Reach>]) -> u64 {
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
        let marks = split(&mut self.marks[d.get() as usize % 2], piece / CHUNK, pieces);
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
    pub(super) fn expand<S: StateSpace + ?Sized>(
        &self,
        space: &S,
        partition: &Partition,
        me: usize,
        d: C,
        span: Range<usize>,
    ) -> (Vec<Vec<Reach>>, Vec<Vec<Reach>>) {
        let marks = &self.marks[d.get() as usize % 2];
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
                    C::each_at(&self.dist, chunk, d, |i| {
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
    pub(super) fn pieces(&self) -> usize {
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
    pub(super) fn level_batch(&self, d: C, fields: Fields) -> (u64, Vec<u8>) {
        let marks = &self.marks[d.get() as usize % 2];
        let parts: Vec<Vec<Reach>> = (0..marks.len())
            .into_par_iter()
            .filter(|&c| marks[c])
            .map(|c| {
                let mut part = Vec::new();
                let chunk = c * CHUNK..((c + 1) * CHUNK).min(self.dist.len());
                C::each_at(&self.dist, chunk, d, |i| {
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
    pub(super) fn load(&mut self, d: C, entries: u64, batch: &[u8], fields: Fields) -> Option<u64> {
        let end = self.first + self.dist.len() as u64;
        let mut loaded = 0u64;
        let mut fits = true;
        wire::decode(batch, self.first, fields, |r| {
            if r.rank >= end || self.dist[(r.rank - self.first) as usize] != C::UNREACHED {
                fits = false;
                return;
            }
            self.claim(d, r);
            loaded += 1;
        })?;
        (fits && loaded == entries).then_some(loaded)
    }
}

impl State<u8> {
    /// The same tables with four-byte distances (the byte cells freed once copied), for
    /// a search that has reached distance 254.
    pub(super) fn widen(self) -> State<u32> {
        let dist = (self.dist.par_iter())
            .map(|&d| {
                if d == UNREACHED {
                    WIDE_UNREACHED
                } else {
                    d as u32
                }
            })
            .collect();
        State {
            first: self.first,
            dist,
            next: self.next,
            count: self.count,
            marks: self.marks,
        }
    }
}
