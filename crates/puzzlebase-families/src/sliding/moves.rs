//! A sliding puzzle's moves: the neighbours of a rank, computed from the arrangement of
//! its block of ranks (unranked once per block) rather than by unranking each rank.

use super::*;

/// The lexicographic rank of the tiles after the blank moves from cell `blank` to cell
/// `c` across a row boundary: the tile from `c` jumps over the tiles in between, which
/// rotates that stretch of the tile sequence by one. Only the Lehmer digits inside the
/// stretch change (the tiles before and after it see the same set to their right).
fn shifted_rank(a: &Arrangement, m: usize, blank: usize, c: usize) -> u64 {
    let f = |i: usize| FACT[m - 1 - i] as i64;
    let (s, l) = (&a.tiles, &a.digits);
    let mut delta = 0i64;
    let mut smaller = 0i64;
    if c > blank {
        // The tile at sequence index q = c - 1 moves to index `blank`; the tiles at
        // blank..q move one place right, and each loses it from its right if larger.
        let (lo, q) = (blank, c - 1);
        let x = s[q];
        for k in lo..q {
            let above = (x < s[k]) as i64;
            smaller += 1 - above;
            delta += (l[k] as i64 - above) * f(k + 1) - l[k] as i64 * f(k);
        }
        delta += (l[q] as i64 + smaller) * f(lo) - l[q] as i64 * f(q);
    } else {
        // The tile at index `c` moves to index q = blank - 1; the tiles at c+1..=q move
        // one place left, and each gains it on its right if larger.
        let (lo, q) = (c, blank - 1);
        let x = s[lo];
        for k in lo + 1..=q {
            let above = (x < s[k]) as i64;
            smaller += 1 - above;
            delta += (l[k] as i64 + above) * f(k - 1) - l[k] as i64 * f(k);
        }
        delta += (l[lo] as i64 - smaller) * f(q) - l[lo] as i64 * f(lo);
    }
    (a.lehmer as i64 + delta) as u64
}

impl Sliding {
    /// Appends the neighbours of `rank` to `out`. `here` keeps the arrangement of the
    /// last block unranked, by block and by what decides the swap of the last two tiles
    /// in [`Sliding::block_tiles`] (the blank's colour and the parity of its cell), so
    /// that the ranks of one block share one unrank. With `far`, leaves out the moves
    /// to the rank before or after ([`StateSpace::run_links`]).
    // Inlined into the batched loop: called out of line there (since `8e99c5a`, which
    // made it the one routine), `here` went through memory, and the one-byte search of
    // the 3x4 took 8% longer.
    #[inline(always)]
    pub(super) fn push_neighbors(
        &self,
        rank: u64,
        here: &mut Option<(u64, u8, Arrangement)>,
        far: bool,
        out: &mut Vec<u64>,
    ) {
        let n = self.cells();
        let (t, blank) = StrengthReducedU64::div_rem(rank, self.fast.cells);
        let blank = blank as usize;
        for &c in &self.adjacency[blank] {
            let c = c as usize;
            if c.abs_diff(blank) == 1 {
                // The tiles in cell order are unchanged (see the module docs).
                if !far {
                    out.push(rank - blank as u64 + c as u64);
                }
                continue;
            }
            let swap = (self.colour.as_ref()).map_or(0, |k| k[blank] ^ (blank & 1) as u8);
            let a = match *here {
                Some((ht, hs, a)) if ht == t && hs == swap => a,
                _ => {
                    let a = self.block_tiles(t, blank);
                    *here = Some((t, swap, a));
                    a
                }
            };
            let lehmer = shifted_rank(&a, n - 1, blank, c);
            let t = if self.colour.is_some() {
                lehmer / 2
            } else {
                lehmer
            };
            out.push(t * n as u64 + c as u64);
        }
    }

    /// The tiles in cell order (blank skipped) of the ranks of block `t` with the blank
    /// in cell `blank`, as [`Sliding::unrank_into`] gives them, with their Lehmer digits
    /// and rank; unranked once per block and thread.
    pub(super) fn block_tiles(&self, t: u64, blank: usize) -> Arrangement {
        let n = self.cells();
        let m = n - 1;
        LAST_BLOCK.with(|cache| {
            let mut cache = cache.borrow_mut();
            let lehmer = if self.colour.is_some() { 2 * t } else { t };
            if cache.puzzle != self.id || cache.t != t {
                let low = m.min(LOW_DIGITS);
                let (prefix, rest) = if m >= LOW_DIGITS {
                    (lehmer / FACT[LOW_DIGITS], lehmer % FACT[LOW_DIGITS])
                } else {
                    (0, lehmer)
                };
                let same_prefix = cache.puzzle == self.id && cache.prefix == prefix;
                let BlockCache {
                    tiles,
                    digits,
                    parity,
                    pool,
                    prefix_parity,
                    ..
                } = &mut *cache;
                if !same_prefix {
                    lehmer_digits(lehmer, &mut digits[..m]);
                    (*prefix_parity, *pool) =
                        perm_from_digits_in(&digits[..m - low], ALL_VALUES, &mut tiles[..m - low]);
                }
                let p = if low == LOW_DIGITS {
                    let e = &LOW_TILES[rest as usize];
                    for i in 0..LOW_DIGITS {
                        digits[m - low + i] = (e.digits >> (8 * i)) as u8;
                        tiles[m - low + i] =
                            (*pool >> (4 * (e.order >> (8 * i) & 0xF)) & 0xF) as u8;
                    }
                    e.parity
                } else {
                    lehmer_digits(rest, &mut digits[m - low..m]);
                    perm_from_digits_in(&digits[m - low..m], *pool, &mut tiles[m - low..m]).0
                };
                *parity = *prefix_parity ^ p;
                cache.puzzle = self.id;
                cache.t = t;
                cache.prefix = prefix;
            }
            let mut a = Arrangement {
                tiles: cache.tiles,
                digits: cache.digits,
                lehmer,
            };
            if self.colour.is_some() && cache.parity ^ self.fast.swap_at[blank] != 0 {
                // Swapping the last two tiles flips the second-to-last digit: rank 2t + 1.
                a.tiles.swap(m - 2, m - 1);
                a.digits[m - 2] ^= 1;
                a.lehmer += 1;
            }
            a
        })
    }
}
