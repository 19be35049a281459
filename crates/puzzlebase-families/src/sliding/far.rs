//! The far moves of a sliding puzzle: the blank between two cells that are not next to
//! each other in cell order (a rectangle's vertical moves). The tile from the other cell
//! jumps over the `len - 1` tiles in between, which rotates the stretch `lo..lo + len`
//! of the tile sequence by one place; only the Lehmer digits of the stretch change.
//!
//! The two-bit search generates one such neighbour for nearly every rank it expands
//! (`fourteen`: 43.6 billion), so the change of rank is split into parts that are
//! looked up rather than computed digit by digit. With `d` the stretch's digits and
//! `a_k` whether the stretch's other tile `k` is above the moving one:
//!
//! `new rank - rank = sum(d_i * W_i) + C + sum(a_k * V_k)`
//!
//! where `W`, `C` and `V` depend on the move alone (see [`FarMove::new`]). The digits'
//! part is split again: those of the prefix (every tile but the last [`LOW_DIGITS`],
//! shared by thousands of consecutive ranks) are summed once per prefix, those of the
//! last [`LOW_DIGITS`] looked up by the rank's remainder modulo `7!`; the `a_k` are
//! found all at once (a byte each in a word, as [`super::Sliding`]'s tiles are compared
//! elsewhere) and their part looked up by the bits they make.

use std::cell::RefCell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use strength_reduce::StrengthReducedU64;

use super::low::{LOW_DIGITS, LOW_TILES};
use puzzlebase_core::rank::{ALL_VALUES, FACT, lehmer_digits, perm_from_digits_in};

/// Bytes of a `u64`, each `0x01`, and each `0x80`.
const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;
/// The remainders modulo `LOW_DIGITS!`.
const LOW_RANKS: usize = 5040;
/// Bytes 0/1 of a word times this have those bits in the top byte (bit `i` from byte
/// `i`): the products land on distinct bits, so nothing carries.
const GATHER: u64 = 0x0102_0408_1020_4080;

/// Distinguishes each [`Far`] in the per-thread [`PREFIX`].
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// Bit `r` set when the last [`LOW_DIGITS`] digits of remainder `r` have an odd sum:
/// as `LOW_TILES[r].parity`, but a few hundred bytes, which keeps it off the way from a
/// rank to its neighbour's (which waits on it to know its tiles).
static LOW_ODD: [u64; LOW_RANKS.div_ceil(64)] = {
    let mut t = [0u64; LOW_RANKS.div_ceil(64)];
    let mut r = 0;
    while r < LOW_RANKS {
        t[r / 64] |= (LOW_TILES[r].parity as u64) << (r % 64);
        r += 1;
    }
    t
};

/// The prefix a thread last found far neighbours in, with its parts: the search asks
/// for the neighbours of 64 ranks at a time, and thousands of consecutive ranks share a
/// prefix.
struct LastPrefix {
    far: u64,
    prefix: u64,
    parity: u8,
    parts: Vec<PrefixPart>,
}

thread_local! {
    static PREFIX: RefCell<LastPrefix> = const {
        RefCell::new(LastPrefix { far: u64::MAX, prefix: u64::MAX, parity: 0, parts: Vec::new() })
    };
}

/// One far move of a blank in a given cell.
#[derive(Clone, Copy)]
struct FarMove {
    /// Its place among all the far moves (the index of its tables).
    id: usize,
    /// The blank's new cell.
    to: u64,
    /// The stretch's first tile index, length, and the moving tile's index.
    lo: usize,
    len: usize,
    x: usize,
    /// All ones when the moving tile is one of the last [`LOW_DIGITS`] (the pool's).
    x_in_pool: u64,
    /// The high bit of each byte of the stretch but the moving tile's (stretch byte `j`
    /// is tile `lo + j`).
    others: u64,
    /// The pool's tiles as the stretch's bytes: the pool's orders (plus one when the
    /// moving tile is the prefix's) shifted left by `pool_shl` bits, then right by
    /// `pool_shr`, masked by `pool_bytes`.
    pool_shl: u32,
    pool_shr: u32,
    pool_bytes: u64,
    pool_add: u64,
    /// `8 (x - h)`: the moving tile's byte among the pool's orders (when it is one).
    x_order: u32,
    /// The weight of each digit of the stretch in the change of rank, `W` above (stretch
    /// byte `j` is tile `lo + j`).
    weights: [i64; 8],
}

/// What a far move needs of the prefix of the rank at hand.
#[derive(Clone, Copy, Default)]
struct PrefixPart {
    /// The prefix digits' part of the change.
    digits: i64,
    /// The keys of the stretch's prefix tiles (their values when the moving tile is the
    /// prefix's, the pool values below them otherwise), a byte each.
    keys: u64,
    /// The moving tile's limits when it is the prefix's (0 otherwise): at or past them,
    /// a key is a tile above it.
    limits: u64,
}

/// The far moves of a puzzle, with what makes their neighbours quick to find.
pub(super) struct Far {
    id: u64,
    /// `moves[c]`: the far moves of a blank in cell `c`.
    moves: Vec<Vec<FarMove>>,
    count: usize,
    /// Tiles, and the prefix's length `m - LOW_DIGITS`.
    m: usize,
    h: usize,
    /// For move `id`, its `C` and `V_k` (see [`FarMove::new`]).
    terms: Vec<AboveTerms>,
    /// Made the first time they are needed: a puzzle is built for many a query that
    /// never needs them.
    tables: OnceLock<Tables>,
}

/// A move's `C` and `V_k` (see [`FarMove::new`]; `V_k` by stretch byte `k - lo`).
struct AboveTerms {
    c: i64,
    v: [i64; 8],
}

/// What [`Far::neighbors_of`] looks up.
struct Tables {
    /// For move `id`, the part `C + sum(a_k V_k)` of its change by the bits of the
    /// `a_k` gathered (256 entries per move).
    above: Vec<i64>,
    /// For move `id`, the part of its change from the last [`LOW_DIGITS`] digits, by the
    /// rank's remainder modulo `7!` ([`LOW_RANKS`] entries per move).
    low: Vec<i64>,
}

impl FarMove {
    /// The move of a blank in cell `blank` to cell `to` (not next to it in cell order),
    /// in a puzzle of `m` tiles whose prefix is `h` of them; `None` when it crosses more
    /// than 8 tiles.
    ///
    /// To the stretch's start (the moving tile at `q = lo + len - 1`, which passes the
    /// others, each now one place further): its digit gains the others below it, and
    /// each other loses it when above it. With `f(i) = (m - 1 - i)!`:
    /// `W_q = f(lo) - f(q)`, `W_k = f(k + 1) - f(k)`, `C = (len - 1) f(lo)`,
    /// `V_k = -(f(lo) + f(k + 1))`. To the end (the moving tile at `lo`), the mirror:
    /// `W_lo = f(q) - f(lo)`, `W_k = f(k - 1) - f(k)`, `C = -(len - 1) f(q)`,
    /// `V_k = f(q) + f(k - 1)`.
    fn new(
        id: usize,
        blank: usize,
        to: usize,
        m: usize,
        h: usize,
    ) -> Option<(FarMove, AboveTerms)> {
        let (lo, len) = (blank.min(to), blank.abs_diff(to));
        if len > 8 {
            return None;
        }
        let q = lo + len - 1;
        let to_start = to > blank;
        let x = if to_start { q } else { lo };
        let f = |i: usize| FACT[m - 1 - i] as i64;
        let mut weights = [0i64; 8];
        let mut v = [0i64; 8];
        let c;
        if to_start {
            for k in lo..q {
                weights[k - lo] = f(k + 1) - f(k);
                v[k - lo] = -(f(lo) + f(k + 1));
            }
            weights[q - lo] = f(lo) - f(q);
            c = (len as i64 - 1) * f(lo);
        } else {
            for k in lo + 1..=q {
                weights[k - lo] = f(k - 1) - f(k);
                v[k - lo] = f(q) + f(k - 1);
            }
            weights[0] = f(q) - f(lo);
            c = -(len as i64 - 1) * f(q);
        }
        let window = u64::MAX >> (64 - 8 * len);
        let x_in_pool = x >= h;
        // Pool tile `h + i` is stretch byte `h + i - lo`.
        let (pool_shl, pool_shr) = if lo <= h {
            ((8 * (h - lo)).min(56) as u32, 0)
        } else {
            (0, 8 * (lo - h) as u32)
        };
        let pool_bytes = if h >= lo + 8 {
            0
        } else {
            window & !((1u64 << (8 * h.saturating_sub(lo))) - 1)
        };
        Some((
            FarMove {
                id,
                to: to as u64,
                lo,
                len,
                x,
                x_in_pool: 0u64.wrapping_sub(x_in_pool as u64),
                others: HIGHS & window & !(0x80 << (8 * (x - lo))),
                pool_shl,
                pool_shr,
                pool_bytes,
                pool_add: if x_in_pool { 0 } else { ONES },
                x_order: if x_in_pool { 8 * (x - h) as u32 } else { 0 },
                weights,
            },
            AboveTerms { c, v },
        ))
    }
}

impl Far {
    /// The far moves of a puzzle on `adjacency` (the moves to `c - 1` and `c + 1` are
    /// left out: they keep the tiles in order); `None` when it has too few tiles for a
    /// prefix (at most [`LOW_DIGITS`]) or a move crosses more than 8 tiles.
    pub(super) fn new(adjacency: &[Vec<u8>]) -> Option<Far> {
        let m = adjacency.len() - 1;
        if m <= LOW_DIGITS {
            return None;
        }
        let h = m - LOW_DIGITS;
        let mut terms = Vec::new();
        let mut count = 0;
        let mut moves = Vec::with_capacity(adjacency.len());
        for (blank, cells) in adjacency.iter().enumerate() {
            let mut here = Vec::new();
            for &to in cells {
                let to = to as usize;
                if to.abs_diff(blank) == 1 {
                    continue;
                }
                let (mv, t) = FarMove::new(count, blank, to, m, h)?;
                terms.push(t);
                here.push(mv);
                count += 1;
            }
            moves.push(here);
        }
        Some(Far {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            moves,
            count,
            m,
            h,
            terms,
            tables: OnceLock::new(),
        })
    }

    fn tables(&self) -> &Tables {
        self.tables.get_or_init(|| {
            let mut above = Vec::with_capacity(256 * self.count);
            for AboveTerms { c, v } in &self.terms {
                above.extend((0..256).map(|bits| {
                    c + (0..8)
                        .filter(|j| bits >> j & 1 == 1)
                        .map(|j| v[j])
                        .sum::<i64>()
                }));
            }
            let mut low = vec![0i64; self.count * LOW_RANKS];
            for mv in self.moves.iter().flatten() {
                for (r, e) in LOW_TILES.iter().enumerate() {
                    let mut part = 0;
                    for i in self.h.max(mv.lo)..mv.lo + mv.len {
                        let digit = (e.digits >> (8 * (i - self.h)) & 0xFF) as i64;
                        part += digit * mv.weights[i - mv.lo];
                    }
                    low[mv.id * LOW_RANKS + r] = part;
                }
            }
            Tables { above, low }
        })
    }

    /// Appends the far neighbours of each of `ranks` to `out`, and after each rank's the
    /// length of `out` to `ends`. `cells` is the number of cells; with `swap_at` (a
    /// bipartite puzzle, see [`super::Sliding`]'s ranking) a rank's tiles are those of
    /// permutation rank `2t` or `2t + 1`.
    pub(super) fn neighbors_of(
        &self,
        cells: &StrengthReducedU64,
        swap_at: Option<&[u8]>,
        ranks: &[u64],
        out: &mut Vec<u64>,
        ends: &mut Vec<usize>,
    ) {
        let n = self.m as u64 + 1;
        let Tables { above: parts, low } = self.tables();
        PREFIX.with_borrow_mut(|last| {
            if last.far != self.id {
                *last = LastPrefix {
                    far: self.id,
                    prefix: u64::MAX,
                    parity: 0,
                    parts: vec![PrefixPart::default(); self.count],
                };
            }
            for &rank in ranks {
                let (t, blank) = StrengthReducedU64::div_rem(rank, *cells);
                let blank = blank as usize;
                let mut lehmer = if swap_at.is_some() { 2 * t } else { t };
                let p = lehmer / FACT[LOW_DIGITS];
                let mut rest = (lehmer % FACT[LOW_DIGITS]) as usize;
                if p != last.prefix {
                    last.prefix = p;
                    last.parity = self.prefix_parts(lehmer, &mut last.parts);
                }
                let mut order = LOW_TILES[rest].order;
                if let Some(swap_at) = swap_at {
                    // The last two tiles swap, rank 2t + 1 (their orders swap as they
                    // would in the next entry). Without a branch: which way it goes is a
                    // coin toss from rank to rank.
                    let odd = (LOW_ODD[rest / 64] >> (rest % 64)) as u8;
                    let swap = (last.parity ^ odd ^ swap_at[blank]) & 1;
                    let mask = 0u64.wrapping_sub(swap as u64);
                    let x = (order >> 40 ^ order >> 48) & 0xFF;
                    order ^= (x << 40 | x << 48) & mask;
                    rest += swap as usize;
                    lehmer += swap as u64;
                }
                for mv in &self.moves[blank] {
                    let part = &last.parts[mv.id];
                    let pool =
                        ((order + mv.pool_add) << mv.pool_shl >> mv.pool_shr) & mv.pool_bytes;
                    let keys = part.keys | pool;
                    let o = order >> mv.x_order & 0xFF;
                    let limits = part.limits | (((o + 1) * ONES) & mv.x_in_pool);
                    // Bytes 0 or 1: whether each other tile of the stretch is above the
                    // moving one (keys below 0x80, limits at most 17: no borrow between
                    // bytes).
                    let above = (((keys | HIGHS) - limits) & mv.others) >> 7;
                    let bits = (above.wrapping_mul(GATHER) >> 56) as usize;
                    let change =
                        part.digits + low[mv.id * LOW_RANKS + rest] + parts[mv.id * 256 + bits];
                    let l = lehmer.wrapping_add(change as u64);
                    let t = if swap_at.is_some() { l / 2 } else { l };
                    out.push(t * n + mv.to);
                }
                ends.push(out.len());
            }
        });
    }

    /// Fills `parts` for the prefix of `lehmer` (every digit but the last
    /// [`LOW_DIGITS`]); returns the prefix's digit sum modulo 2.
    fn prefix_parts(&self, lehmer: u64, parts: &mut [PrefixPart]) -> u8 {
        let (m, h) = (self.m, self.h);
        let mut digits = [0u8; 16];
        let mut tiles = [0u8; 16];
        lehmer_digits(lehmer, &mut digits[..m]);
        let (parity, pool) = perm_from_digits_in(&digits[..h], ALL_VALUES, &mut tiles[..h]);
        // Each prefix tile's value, and how many of the pool's values are below it.
        let mut below = [0u8; 16];
        for i in 0..h {
            below[i] = (0..LOW_DIGITS)
                .filter(|&k| (pool >> (4 * k) & 0xF) < tiles[i] as u64)
                .count() as u8;
        }
        for mv in self.moves.iter().flatten() {
            let mut part = PrefixPart::default();
            for i in mv.lo..(mv.lo + mv.len).min(h) {
                let j = i - mv.lo;
                part.digits += digits[i] as i64 * mv.weights[j];
                let key = if mv.x >= h { below[i] } else { tiles[i] };
                part.keys |= (key as u64) << (8 * j);
            }
            if mv.x < h {
                // A prefix tile `v` with `b` pool values below it: the prefix tiles above
                // it have values past `v`, the pool's have orders + 1 past `b`.
                let (v, b) = (tiles[mv.x] as u64, below[mv.x] as u64);
                for j in 0..mv.len {
                    let limit = if mv.lo + j < h { v + 1 } else { b + 1 };
                    part.limits |= limit << (8 * j);
                }
            }
            parts[mv.id] = part;
        }
        parity
    }
}
