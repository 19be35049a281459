//! Dense ranks of the positions with `k` pegs on `n` holes: the combinatorial number
//! system (colex order). The pegs `c_0 < c_1 < … < c_{k-1}` rank as
//! `Σ C(c_i, i + 1)`, a bijection onto `0 .. C(n, k)`, and colex order is the numeric
//! order of the bitboards, so the next position of a layer is one step of Gosper's hack.

/// Ranking tables for boards of `n ≤ 64` holes.
pub struct Colex {
    n: usize,
    /// `binom[a][b]` = C(a, b) for `a ≤ n`, `b ≤ n` (0 when `b > a`).
    binom: Vec<Vec<u64>>,
    /// `table[(c * 256 + v) * (n + 1) + m]`: what byte `c` of value `v` adds to the rank
    /// when `m` pegs lie below it.
    table: Vec<u64>,
    bytes: usize,
}

impl Colex {
    pub fn new(n: usize) -> Colex {
        assert!(n <= 64, "bitboards hold at most 64 holes");
        let mut binom = vec![vec![0u64; n + 2]; n + 1];
        for a in 0..=n {
            binom[a][0] = 1;
            for b in 1..=a {
                binom[a][b] =
                    binom[a - 1][b - 1].saturating_add(if b < a { binom[a - 1][b] } else { 0 });
            }
        }
        let bytes = n.div_ceil(8).max(1);
        let mut table = vec![0u64; bytes * 256 * (n + 1)];
        for c in 0..bytes {
            for v in 0..256usize {
                for m in 0..=n {
                    let mut sum = 0u64;
                    let mut j = 0;
                    for i in 0..8 {
                        let hole = 8 * c + i;
                        if v >> i & 1 == 1 && hole < n {
                            let below = m + j + 1;
                            if below <= n {
                                sum = sum.saturating_add(binom[hole][below]);
                            }
                            j += 1;
                        }
                    }
                    table[(c * 256 + v) * (n + 1) + m] = sum;
                }
            }
        }
        Colex {
            n,
            binom,
            table,
            bytes,
        }
    }

    /// C(n, k): the number of positions with `k` pegs.
    pub fn layer_size(&self, k: usize) -> u64 {
        self.binom[self.n][k]
    }

    /// The rank of `bits` among the positions with as many pegs.
    #[inline]
    pub fn rank(&self, bits: u64) -> u64 {
        let stride = self.n + 1;
        let mut r = 0u64;
        let mut m = 0usize;
        for c in 0..self.bytes {
            let v = (bits >> (8 * c)) as usize & 0xff;
            r += self.table[(c * 256 + v) * stride + m];
            m += v.count_ones() as usize;
        }
        r
    }

    /// The position of rank `r` among those with `k` pegs.
    pub fn unrank(&self, k: usize, mut r: u64) -> u64 {
        debug_assert!(r < self.layer_size(k));
        let mut bits = 0u64;
        let mut k = k;
        for hole in (0..self.n).rev() {
            if k == 0 {
                break;
            }
            let c = self.binom[hole][k];
            if c <= r {
                r -= c;
                bits |= 1u64 << hole;
                k -= 1;
            }
        }
        bits
    }
}

/// The next bitboard with as many bits set (Gosper's hack): the next position in colex
/// order. Undefined past the last one.
#[inline]
pub fn next(x: u64) -> u64 {
    let c = x & x.wrapping_neg();
    let r = x.wrapping_add(c);
    (((r ^ x) >> 2) >> c.trailing_zeros()) | r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_a_bijection_in_numeric_order() {
        for n in [1usize, 5, 9, 12] {
            let colex = Colex::new(n);
            for k in 0..=n {
                let mut all: Vec<u64> = (0..1u64 << n)
                    .filter(|b| b.count_ones() as usize == k)
                    .collect();
                all.sort_unstable();
                assert_eq!(all.len() as u64, colex.layer_size(k));
                for (r, &b) in all.iter().enumerate() {
                    assert_eq!(colex.rank(b), r as u64, "n {n} k {k} bits {b:b}");
                    assert_eq!(colex.unrank(k, r as u64), b);
                    if k > 0 && r + 1 < all.len() {
                        assert_eq!(next(b), all[r + 1]);
                    }
                }
            }
        }
    }

    #[test]
    fn ranks_of_wide_boards_round_trip() {
        let colex = Colex::new(37);
        assert_eq!(colex.layer_size(18), 17_672_631_900);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bits = x & ((1u64 << 37) - 1);
            let k = bits.count_ones() as usize;
            let r = colex.rank(bits);
            assert!(r < colex.layer_size(k));
            assert_eq!(colex.unrank(k, r), bits);
        }
    }
}
