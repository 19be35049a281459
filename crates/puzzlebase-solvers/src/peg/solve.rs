//! The peg-solitaire solver: reachable positions layered by peg count, the positions
//! that can still finish, minimum numbers of moves (chains of jumps) to the finish,
//! counts of optimal jump sequences, and the start-by-finish matrix of small boards.
//!
//! Every jump removes one peg, so the move graph is layered and acyclic: the forward
//! pass builds one layer (peg count) at a time, and everything backwards is computed
//! from fewer pegs to more, each position depending only on smaller layers. Positions
//! are stored only in canonical form (minimum image over the board's symmetries).

use super::board::{Board, MATRIX_MAX_HOLES};
use super::lookup::Lookup;
use super::pairs::PairShares;
use puzzlebase_core::format::add_known_counts;
use puzzlebase_core::progress::Progress;
use puzzlebase_core::records::Storage;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use thiserror::Error;

/// Up to this many canonical reachable positions, the table keeps every one of them
/// (including those that cannot finish); above it, only those that can finish.
pub const STORE_ALL_LIMIT: u64 = 5_000_000;

/// Why a board cannot be tabulated.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PegError {
    #[error("board {0} is a definition only: its tables are too large to compute")]
    NotTabulated(String),
    #[error("the start position of board {0} cannot reach its finish")]
    StartCannotFinish(String),
    #[error("scratch files: {0}")]
    Scratch(String),
    #[error("board {0}: {1}")]
    Layers(String, String),
    /// The layer solver's distances of a board do not fit its stored layers.
    #[error("board {0}: {1}")]
    Distances(String, #[source] super::layers::table::DistanceError),
}

/// The complete table of a board.
#[derive(Debug, Clone)]
pub struct PegTable {
    /// Sorted by `bits` (canonical positions).
    pub rows: Vec<PegRow>,
    /// True when `rows` holds every reachable position; false when only those that can
    /// still finish (see [`STORE_ALL_LIMIT`]).
    pub all_reachable_stored: bool,
    /// One per peg count present, from fewest pegs to most.
    pub layers: Vec<LayerStats>,
    /// Distance of the start position.
    pub max_distance: u8,
}

/// One canonical position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PegRow {
    pub bits: u64,
    pub pegs: u8,
    /// Minimum number of moves to the finish; `None` if it cannot finish.
    pub distance: Option<u8>,
    /// An optimal next move in this position's own frame, `[from, to1, ...]`: the first
    /// optimal one in [`Board::moves`] order.
    pub next_move: Option<Vec<u8>>,
    /// Canonical form of the position after `next_move`.
    pub next_bits: Option<u64>,
    /// Number of distinct sequences of single jumps reaching the finish in `distance`
    /// moves (0 for positions that cannot finish); `None` only if it exceeds `i64::MAX`.
    pub solutions: Option<u64>,
    /// Number of positions in its symmetry class.
    pub class_size: u32,
}

/// Counts per peg count: `reachable`/`can_finish` count all positions (class sizes
/// added up), the `_classes` fields count canonical positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerStats {
    pub pegs: u8,
    pub reachable: u64,
    pub can_finish: u64,
    pub reachable_classes: u64,
    pub can_finish_classes: u64,
    /// (position, hole of the peg that moved last) pairs reachable from the start, the
    /// start counted once with no last peg (counted by the forward search,
    /// [`for_each_reachable_layer`]).
    pub reachable_pairs: u64,
}

impl PegTable {
    /// The row of a canonical position, if stored.
    pub fn row(&self, canonical_bits: u64) -> Option<&PegRow> {
        self.rows
            .binary_search_by_key(&canonical_bits, |r| r.bits)
            .ok()
            .map(|i| &self.rows[i])
    }
}

/// Jump as masks: legal forward when `bits & need == need && bits & land == 0`; the
/// position after it is `bits ^ all`.
struct JumpMask {
    need: u64,
    land: u64,
    all: u64,
}

fn jump_masks(board: &Board) -> Vec<JumpMask> {
    board
        .jumps
        .iter()
        .map(|j| {
            let land = 1u64 << j.to;
            JumpMask {
                need: j.holes() ^ land,
                land,
                all: j.holes(),
            }
        })
        .collect()
}

/// Sorted, deduplicated canonical images of `f` applied to every position of `layer`,
/// and the sums of the two figures `f` returns for each position.
fn expand_layer(
    layer: &[u64],
    f: impl Fn(u64, &mut Vec<u64>) -> [u64; 2] + Sync,
) -> (Vec<u64>, [u64; 2]) {
    let sums = [AtomicU64::new(0), AtomicU64::new(0)];
    let mut next: Vec<u64> = layer
        .par_chunks(1 << 14)
        .flat_map_iter(|chunk| {
            let mut out = Vec::with_capacity(chunk.len() * 8);
            let mut chunk_sums = [0; 2];
            for &b in chunk {
                let [x, y] = f(b, &mut out);
                chunk_sums = [chunk_sums[0] + x, chunk_sums[1] + y];
            }
            for (sum, x) in sums.iter().zip(chunk_sums) {
                sum.fetch_add(x, Ordering::Relaxed);
            }
            // Deduplicating per chunk first keeps the merged buffer small.
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect();
    let sums = sums.map(AtomicU64::into_inner);
    next.par_sort_unstable();
    next.dedup();
    (next, sums)
}

/// The canonical positions reachable from the start by peg count (`layers[k]`: sorted,
/// `k` pegs), with each peg count's [`LayerCounts`].
#[derive(Debug, Clone, Default)]
pub struct Reachable {
    pub layers: Vec<Vec<u64>>,
    pub counts: Vec<LayerCounts>,
}

/// The positions reachable from the start, layered by peg count ([`Reachable`]).
/// Stops after `max_layers` layers (counting the start's), so that huge boards can be
/// measured partially.
pub fn reachable_layers(board: &Board, max_layers: usize, progress: &dyn Progress) -> Reachable {
    let n = board.start.count_ones() as usize + 1;
    let mut out = Reachable {
        layers: vec![Vec::new(); n],
        counts: vec![LayerCounts::default(); n],
    };
    for_each_reachable_layer(board, max_layers, progress, |pegs, layer, counts| {
        out.layers[pegs] = layer.to_vec();
        out.counts[pegs] = counts;
    });
    out
}

/// Like [`reachable_layers`], but hands each layer (peg count, sorted canonical
/// positions, counts) to `f` and keeps only the layers being expanded: for measuring
/// boards whose reachable sets do not fit in memory all at once.
///
/// A layer's pairs are counted as the layer above is expanded, each jump adding its
/// share of the pair it makes (`PairShares`, in `super::pairs`): a lookup in the layer
/// being expanded only where another parent of the pair ranks before the jump's own.
pub fn for_each_reachable_layer(
    board: &Board,
    max_layers: usize,
    progress: &dyn Progress,
    mut f: impl FnMut(usize, &[u64], LayerCounts),
) {
    let top = board.start.count_ones() as usize;
    let masks = jump_masks(board);
    let flips = board.flips(masks.iter().map(|m| m.all));
    let shares = PairShares::new(board);
    let mut layer = vec![board.canonical(board.start).0];
    // The start counts once, with no last peg.
    let mut pairs = 1;
    progress.phase("reachable positions", top as u64);
    let mut k = top;
    let mut done = 1;
    loop {
        if k <= 1 || done >= max_layers || layer.is_empty() {
            let positions = (layer.par_iter())
                .map(|&b| board.class_size(b) as u64)
                .sum();
            f(k, &layer, LayerCounts { positions, pairs });
            progress.advance(1);
            break;
        }
        let reached = Lookup::new(&layer);
        let (next, [positions, units]) = expand_layer(&layer, |p, out| {
            let images = flips.of(p);
            let size = flips.class_size(&images) as u64;
            let mut share = 0;
            for (j, m) in masks.iter().enumerate() {
                if p & m.need == m.need && p & m.land == 0 {
                    out.push(flips.canonical(&images, j));
                    let q = p ^ m.all;
                    let to = m.land.trailing_zeros() as usize;
                    let canonical = |other, _| flips.canonical2(&images, j, other);
                    share += shares.share(p, q, m.all, to, canonical, |c| reached.contains(c));
                }
            }
            [size, size * share]
        });
        f(k, &layer, LayerCounts { positions, pairs });
        progress.advance(1);
        pairs = shares.pairs(units);
        layer = next;
        k -= 1;
        done += 1;
    }
}

/// A layer's reachable positions and (position, last-moved peg) pairs, each class
/// counted with its size (`PairShares`, `super::pairs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayerCounts {
    pub positions: u64,
    pub pairs: u64,
}

/// For each layer, the sorted positions of the forward set that can still reach the
/// finish: pulled backwards from the finish by un-jumps, each layer intersected with
/// the forward layer (the can-finish sets are small, so pushing from them is cheap).
fn can_finish_layers(
    board: &Board,
    forward: &[Vec<u64>],
    progress: &dyn Progress,
) -> Vec<Vec<u64>> {
    let masks = jump_masks(board);
    let mut cf = vec![Vec::new(); forward.len()];
    let finish = board.canonical(board.finish).0;
    let fpegs = finish.count_ones() as usize;
    // A step per layer above the finish's: the finish's own is set, not searched.
    let steps = forward.len().saturating_sub(fpegs + 1);
    progress.phase("positions that can finish", steps as u64);
    if fpegs < forward.len() && forward[fpegs].binary_search(&finish).is_ok() {
        cf[fpegs] = vec![finish];
    }
    for k in fpegs + 1..forward.len() {
        cf[k] = intersect(&predecessors(board, &masks, &cf[k - 1]), &forward[k]);
        progress.advance(1);
    }
    cf
}

/// The sorted canonical positions with a single jump into some position of `layer`
/// (whatever their reachability).
pub fn single_jump_predecessors(board: &Board, layer: &[u64]) -> Vec<u64> {
    predecessors(board, &jump_masks(board), layer)
}

fn predecessors(board: &Board, masks: &[JumpMask], layer: &[u64]) -> Vec<u64> {
    let flips = board.flips(masks.iter().map(|m| m.all));
    expand_layer(layer, |b, out| {
        let images = flips.of(b);
        for (j, m) in masks.iter().enumerate() {
            // Un-jump: the landing hole holds the peg, `from` and `over` are empty.
            if b & m.land != 0 && b & m.need == 0 {
                out.push(flips.canonical(&images, j));
            }
        }
        [0, 0]
    })
    .0
}

fn intersect(a: &[u64], b: &[u64]) -> Vec<u64> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// What the backward pass knows about one can-finish position.
#[derive(Clone)]
struct Solved {
    distance: u8,
    solutions: Option<u64>,
    next: Option<(Vec<u8>, u64)>,
}

/// Distances and counts for every can-finish position, layer by layer upwards.
fn distances(board: &Board, cf: &[Vec<u64>], progress: &dyn Progress) -> Vec<Vec<Solved>> {
    let mut solved: Vec<Vec<Solved>> = vec![Vec::new(); cf.len()];
    let total: u64 = cf.iter().map(|l| l.len() as u64).sum();
    let lookups: Vec<Lookup> = cf.iter().map(|l| Lookup::new(l)).collect();
    progress.phase("distances", total);
    for k in 0..cf.len() {
        if cf[k].is_empty() {
            continue;
        }
        if k as u32 == board.finish.count_ones() {
            // The only can-finish position with as few pegs as the finish is the finish.
            solved[k] = vec![Solved {
                distance: 0,
                solutions: Some(1),
                next: None,
            }];
            progress.advance(1);
            continue;
        }
        let (lower, _) = solved.split_at(k);
        let layer: Vec<Solved> = cf[k]
            .par_chunks(1 << 12)
            .flat_map_iter(|chunk| {
                let out: Vec<Solved> = chunk
                    .iter()
                    .map(|&p| solve_one(board, &lookups, lower, p))
                    .collect();
                progress.advance(chunk.len() as u64);
                out
            })
            .collect();
        solved[k] = layer;
    }
    solved
}

/// d(p) = 1 + min over moves of d(result); the count sums the counts of the results of
/// all optimal moves (in an optimal sequence consecutive moves are by different pegs,
/// or they would merge into one, so every optimal jump sequence splits uniquely into
/// optimal moves); the chosen move is the first optimal one in enumeration order.
fn solve_one(board: &Board, cf: &[Lookup], lower: &[Vec<Solved>], p: u64) -> Solved {
    let mut best: Option<Solved> = None;
    board.for_each_move(p, |mv, after| {
        let k = after.count_ones() as usize;
        if cf[k].is_empty() {
            return;
        }
        let c = board.canonical(after).0;
        let Some(i) = cf[k].position(c) else {
            return;
        };
        let r = &lower[k][i];
        let d = r.distance + 1;
        match &mut best {
            Some(b) if d > b.distance => {}
            Some(b) if d == b.distance => b.solutions = add_known_counts(b.solutions, r.solutions),
            _ => {
                best = Some(Solved {
                    distance: d,
                    solutions: r.solutions,
                    next: Some((mv.to_vec(), c)),
                })
            }
        }
    });
    best.expect("a can-finish position has a jump to a can-finish position")
}

/// Builds the complete table of a board (see [`PegTable`]).
pub fn solve(board: &Board, progress: &dyn Progress) -> Result<PegTable, PegError> {
    if !board.tabulate {
        return Err(PegError::NotTabulated(board.name.to_string()));
    }
    if board.storage() == Storage::PegLayers {
        return Err(PegError::Layers(
            board.name.to_string(),
            "stored as layers: the layer solver builds it".into(),
        ));
    }
    let Reachable {
        layers: forward,
        counts: pairs,
    } = reachable_layers(board, usize::MAX, progress);
    let cf = can_finish_layers(board, &forward, progress);
    let solved = distances(board, &cf, progress);

    let start = board.canonical(board.start).0;
    let top = start.count_ones() as usize;
    let max_distance = cf[top]
        .binary_search(&start)
        .map(|i| solved[top][i].distance)
        .map_err(|_| PegError::StartCannotFinish(board.name.to_string()))?;

    let classes: u64 = forward.iter().map(|l| l.len() as u64).sum();
    let all_reachable_stored = classes <= STORE_ALL_LIMIT;
    progress.phase("rows", forward.len() as u64);
    let mut layers = Vec::new();
    let mut rows = Vec::new();
    for k in 0..forward.len() {
        if forward[k].is_empty() {
            progress.advance(1);
            continue;
        }
        let sizes = |l: &[u64]| -> u64 { l.par_iter().map(|&b| board.class_size(b) as u64).sum() };
        layers.push(LayerStats {
            pegs: k as u8,
            reachable: pairs[k].positions,
            can_finish: sizes(&cf[k]),
            reachable_classes: forward[k].len() as u64,
            can_finish_classes: cf[k].len() as u64,
            reachable_pairs: pairs[k].pairs,
        });
        let row = |bits: u64, s: Option<&Solved>| PegRow {
            bits,
            pegs: k as u8,
            distance: s.map(|s| s.distance),
            next_move: s.and_then(|s| s.next.as_ref().map(|n| n.0.clone())),
            next_bits: s.and_then(|s| s.next.as_ref().map(|n| n.1)),
            solutions: s.map_or(Some(0), |s| s.solutions),
            class_size: board.class_size(bits),
        };
        if all_reachable_stored {
            rows.par_extend(forward[k].par_iter().map(|&b| {
                let s = cf[k].binary_search(&b).ok().map(|i| &solved[k][i]);
                row(b, s)
            }));
        } else {
            rows.par_extend(
                cf[k]
                    .par_iter()
                    .zip(&solved[k])
                    .map(|(&b, s)| row(b, Some(s))),
            );
        }
        progress.advance(1);
    }
    // Canonical positions of different layers are distinct, so the order is total.
    rows.par_sort_unstable_by_key(|r| r.bits);
    Ok(PegTable {
        rows,
        all_reachable_stored,
        layers,
        max_distance,
    })
}

/// Minimum numbers of moves between single-vacancy starts and single-peg finishes:
/// `m[s][f]` for the start with only hole `s` empty and the finish with one peg in
/// hole `f`, or `None` if unreachable. Only for boards of at most 21 holes (one visited
/// bitmap of 2^holes bits per search).
///
/// A symmetry of the jump lines maps the games from start `s` onto those from its image,
/// so one search per class of holes under [`Board::automorphisms`] gives every row:
/// `m[σ(s)][σ(f)] = m[s][f]`.
pub fn matrix(board: &Board, progress: &dyn Progress) -> Vec<Vec<Option<u8>>> {
    assert!(
        board.holes <= MATRIX_MAX_HOLES,
        "matrix() is for boards of at most {MATRIX_MAX_HOLES} holes"
    );
    let n = board.holes;
    let full = (1u64 << n) - 1;
    let autos = board.automorphisms();
    // For each hole, the least hole of its class and a symmetry taking that one to it
    // (the identity, first, for the least hole itself).
    let mut from: Vec<Option<(usize, &[u8])>> = vec![None; n];
    for s in 0..n {
        if from[s].is_none() {
            for p in &autos {
                from[p[s] as usize].get_or_insert((s, p));
            }
        }
    }
    let searched: Vec<usize> = (0..n)
        .filter(|&s| from[s].is_some_and(|f| f.0 == s))
        .collect();
    progress.phase("start/finish matrix", searched.len() as u64);
    let rows: Vec<Vec<Option<u8>>> = searched
        .par_iter()
        .map(|&s| {
            let row = matrix_row(board, full & !(1u64 << s));
            progress.advance(1);
            row
        })
        .collect();
    (0..n)
        .map(|s| {
            let (r, p) = from[s].expect("every hole has a class");
            let row = &rows[searched.binary_search(&r).expect("searched")];
            let mut out = vec![None; n];
            for (f, &d) in row.iter().enumerate() {
                out[p[f] as usize] = d;
            }
            out
        })
        .collect()
}

/// Breadth-first search in moves from `start`, recording the first level at which each
/// single-peg position appears.
pub fn matrix_row(board: &Board, start: u64) -> Vec<Option<u8>> {
    let mut seen = vec![0u64; (1usize << board.holes).div_ceil(64)];
    let mut row = vec![None; board.holes];
    let mut mark = |p: u64| {
        let (w, bit) = ((p >> 6) as usize, 1u64 << (p & 63));
        let new = seen[w] & bit == 0;
        seen[w] |= bit;
        new
    };
    mark(start);
    if start.count_ones() == 1 {
        row[start.trailing_zeros() as usize] = Some(0);
    }
    let mut frontier = vec![start];
    let mut next = Vec::new();
    let mut level = 0u8;
    while !frontier.is_empty() {
        level += 1;
        for &p in &frontier {
            board.for_each_move(p, |_, after| {
                if mark(after) {
                    next.push(after);
                    if after.count_ones() == 1 {
                        row[after.trailing_zeros() as usize] = Some(level);
                    }
                }
            });
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peg_counts_never_wrap() {
        let max = i64::MAX as u64;
        assert_eq!(add_known_counts(Some(2), Some(3)), Some(5));
        assert_eq!(add_known_counts(Some(max), Some(0)), Some(max));
        assert_eq!(add_known_counts(Some(max), Some(1)), None);
        assert_eq!(add_known_counts(Some(u64::MAX), Some(1)), None);
        assert_eq!(add_known_counts(None, Some(1)), None);
        assert_eq!(add_known_counts(Some(1), None), None);
    }
}
