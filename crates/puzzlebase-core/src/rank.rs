//! Dense ranking schemes: bijections between arrangements and integers `0..count`.
//!
//! Every function here is documented by what it guarantees, so that another tool can
//! compute the same ranks:
//!
//! * [`perm_rank`] / [`perm_unrank`]: lexicographic rank of a permutation of `0..n`
//!   (Lehmer code read in the factorial number system). `[0,1,..,n-1]` has rank 0 and
//!   `[n-1,..,1,0]` has rank `n! - 1`. Swapping the last two elements changes the rank
//!   by exactly one between `2k` and `2k + 1`, which is what lets a puzzle rank only the
//!   solvable half of a parity-split space.
//! * [`comb_rank`] / [`comb_unrank`]: colexicographic rank of a `k`-subset of `0..n`
//!   given as a bit mask: `rank = sum over the i-th smallest element c_i (i from 1) of
//!   C(c_i, i)`. The subsets of size `k` of `0..n` get ranks `0..C(n, k)`.

/// `FACT[n] = n!` for `n <= 20` (the largest factorial that fits in a `u64`).
pub const FACT: [u64; 21] = {
    let mut t = [1u64; 21];
    let mut i = 1;
    while i < 21 {
        t[i] = t[i - 1] * i as u64;
        i += 1;
    }
    t
};

/// `BINOM[n][k] = C(n, k)` for `n, k <= 64` (0 where `k > n`), saturating at `u64::MAX`.
pub static BINOM: [[u64; 65]; 65] = {
    let mut t = [[0u64; 65]; 65];
    let mut n = 0;
    while n < 65 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1].saturating_add(t[n - 1][k]);
            k += 1;
        }
        n += 1;
    }
    t
};

/// Lexicographic rank of `perm`, a permutation of `0..perm.len()` (at most 20 elements).
///
/// Guarantee: ranks run over `0..perm.len()!` in lexicographic order of the sequences.
#[inline]
pub fn perm_rank(perm: &[u8]) -> u64 {
    let n = perm.len();
    debug_assert!(n <= 20);
    let mut seen: u32 = 0;
    let mut rank = 0u64;
    for (i, &v) in perm.iter().enumerate() {
        // Lehmer digit: how many smaller values are still unused.
        let smaller_used = (seen & ((1u32 << v) - 1)).count_ones();
        let digit = v as u64 - smaller_used as u64;
        rank += digit * FACT[n - 1 - i];
        seen |= 1 << v;
    }
    rank
}

/// Inverse of [`perm_rank`]: writes into `out` the permutation of `0..out.len()` whose
/// lexicographic rank is `rank` (`rank < out.len()!`). Returns its parity (the number of
/// inversions modulo 2), which is free here: it is the sum of the Lehmer digits.
#[inline]
pub fn perm_unrank(mut rank: u64, out: &mut [u8]) -> u8 {
    let n = out.len();
    debug_assert!(n <= 20 && rank < FACT[n]);
    let mut unused: u32 = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
    let mut digit_sum = 0u32;
    for (i, slot) in out.iter_mut().enumerate() {
        let f = FACT[n - 1 - i];
        let digit = (rank / f) as u32;
        digit_sum += digit;
        rank %= f;
        // Select the digit-th lowest set bit of `unused`.
        let mut m = unused;
        for _ in 0..digit {
            m &= m - 1;
        }
        let v = m.trailing_zeros();
        *slot = v as u8;
        unused &= !(1 << v);
    }
    (digit_sum & 1) as u8
}

/// The Lehmer digits of the permutation of `0..digits.len()` whose lexicographic rank is
/// `rank` (`digits[i]` = how many later elements are smaller than element `i`, so that
/// `rank = sum digits[i] * (len - 1 - i)!`), for lengths up to 16.
///
/// Same digits as [`perm_unrank`] reads, but one division per digit, each by a constant:
/// the length is dispatched to a copy of the loop with a fixed radix sequence, which the
/// compiler turns into multiplications (a division by a variable is the most expensive
/// instruction of an unrank, and the solver unranks once per visited block).
#[inline]
pub fn lehmer_digits(rank: u64, digits: &mut [u8]) {
    fn fixed<const N: usize>(mut rank: u64, digits: &mut [u8]) {
        let digits: &mut [u8; N] = digits.try_into().unwrap();
        for i in (0..N).rev() {
            let radix = (N - i) as u64;
            digits[i] = (rank % radix) as u8;
            rank /= radix;
        }
    }
    debug_assert!(digits.len() <= 16 && rank < FACT[digits.len()]);
    match digits.len() {
        0 => {}
        1 => fixed::<1>(rank, digits),
        2 => fixed::<2>(rank, digits),
        3 => fixed::<3>(rank, digits),
        4 => fixed::<4>(rank, digits),
        5 => fixed::<5>(rank, digits),
        6 => fixed::<6>(rank, digits),
        7 => fixed::<7>(rank, digits),
        8 => fixed::<8>(rank, digits),
        9 => fixed::<9>(rank, digits),
        10 => fixed::<10>(rank, digits),
        11 => fixed::<11>(rank, digits),
        12 => fixed::<12>(rank, digits),
        13 => fixed::<13>(rank, digits),
        14 => fixed::<14>(rank, digits),
        15 => fixed::<15>(rank, digits),
        16 => fixed::<16>(rank, digits),
        n => panic!("lehmer_digits supports at most 16 elements, not {n}"),
    }
}

/// The permutation whose Lehmer digits are `digits` (see [`lehmer_digits`]), written
/// into `out`; returns its parity (the digit sum modulo 2), as [`perm_unrank`] does.
#[inline]
pub fn perm_from_digits(digits: &[u8], out: &mut [u8]) -> u8 {
    debug_assert!(digits.len() == out.len() && out.len() <= 16);
    perm_from_digits_in(digits, ALL_VALUES, out).0
}

/// The values `0..16` in increasing order, four bits each: the pool of
/// [`perm_from_digits_in`] for a whole permutation.
pub const ALL_VALUES: u64 = 0xFEDC_BA98_7654_3210;

/// [`perm_from_digits`] for a stretch of a permutation: `digit[i]` picks the element
/// `out[i]` among the values still in `pool` (sorted, four bits each, lowest first), which
/// then leaves it. Returns the digit sum modulo 2 and the pool left over, from which the
/// rest of the permutation is picked.
#[inline]
pub fn perm_from_digits_in(digits: &[u8], mut pool: u64, out: &mut [u8]) -> (u8, u64) {
    // The digit-th value is picked and cut out by shifts alone, with no loop whose
    // length depends on the digit (a mispredicted branch per digit costs more than the
    // whole selection).
    let mut digit_sum = 0u32;
    for (slot, &digit) in out.iter_mut().zip(digits) {
        digit_sum += digit as u32;
        let at = 4 * digit as u32;
        *slot = ((pool >> at) & 0xF) as u8;
        let below = pool & ((1u64 << at) - 1);
        pool = below | ((pool >> at >> 4) << at);
    }
    ((digit_sum & 1) as u8, pool)
}

/// Number of inversions of `seq` modulo 2 (0 even, 1 odd). Works for any distinct values.
#[inline]
pub fn parity(seq: &[u8]) -> u8 {
    let mut inv = 0u32;
    for i in 0..seq.len() {
        for j in i + 1..seq.len() {
            inv += (seq[i] > seq[j]) as u32;
        }
    }
    (inv & 1) as u8
}

/// Colexicographic rank of the subset given as bit mask `set` (bit `i` = element `i`).
///
/// Guarantee: the `C(n, k)` subsets of size `k` of `0..n` get ranks `0..C(n, k)`,
/// independently of `n`, ordered by their largest element first.
#[inline]
pub fn comb_rank(mut set: u64) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while set != 0 {
        let c = set.trailing_zeros() as usize;
        rank += BINOM[c][i];
        set &= set - 1;
        i += 1;
    }
    rank
}

/// Inverse of [`comb_rank`]: the `k`-subset (as a bit mask) whose colex rank is `rank`.
#[inline]
pub fn comb_unrank(mut rank: u64, k: usize) -> u64 {
    let mut set = 0u64;
    for i in (1..=k).rev() {
        // Largest c with C(c, i) <= rank.
        let mut c = i - 1;
        while BINOM[c + 1][i] <= rank {
            c += 1;
        }
        rank -= BINOM[c][i];
        set |= 1 << c;
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perm_round_trip_is_lexicographic() {
        let mut prev: Option<Vec<u8>> = None;
        let mut p = [0u8; 6];
        for r in 0..FACT[6] {
            let par = perm_unrank(r, &mut p);
            assert_eq!(perm_rank(&p), r);
            assert_eq!(par, parity(&p));
            if let Some(q) = &prev {
                assert!(q.as_slice() < p.as_slice());
            }
            prev = Some(p.to_vec());
        }
    }

    #[test]
    fn digits_give_the_same_permutation_as_unrank() {
        for n in [1usize, 5, 8, 11, 12] {
            let mut p = vec![0u8; n];
            let mut q = vec![0u8; n];
            let mut digits = vec![0u8; n];
            let step = (FACT[n] / 5000).max(1);
            for r in (0..FACT[n]).step_by(step as usize).chain([FACT[n] - 1]) {
                let par = perm_unrank(r, &mut p);
                lehmer_digits(r, &mut digits);
                for (i, &d) in digits.iter().enumerate() {
                    assert_eq!(d as u64, r / FACT[n - 1 - i] % (n - i) as u64);
                }
                assert_eq!(perm_from_digits(&digits, &mut q), par);
                assert_eq!(p, q, "n {n} rank {r}");
            }
        }
    }

    #[test]
    fn swapping_last_two_pairs_ranks() {
        let mut p = [0u8; 7];
        for r in (0..FACT[7]).step_by(2) {
            perm_unrank(r, &mut p);
            p.swap(5, 6);
            assert_eq!(perm_rank(&p), r + 1);
            assert_ne!(parity(&p), {
                p.swap(5, 6);
                parity(&p)
            });
        }
    }

    #[test]
    #[allow(clippy::needless_range_loop)] // n and k are the subject, not just indices
    fn comb_round_trip_is_dense() {
        for n in 0..=12usize {
            for k in 0..=n {
                let mut seen = vec![false; BINOM[n][k] as usize];
                for set in 0u64..(1 << n) {
                    if set.count_ones() as usize == k {
                        let r = comb_rank(set) as usize;
                        assert!(!seen[r]);
                        seen[r] = true;
                        assert_eq!(comb_unrank(r as u64, k), set);
                    }
                }
                assert!(seen.iter().all(|&s| s));
            }
        }
    }
}
