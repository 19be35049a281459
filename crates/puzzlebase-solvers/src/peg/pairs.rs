//! The (position, last-moved peg) pairs reachable from the start, J.-C. Meyrignac's
//! "positions", counted from the jumps that make them as the forward search finds
//! them: one rule ([`PairShares::share`]) for both solvers, so that no pass of lookups
//! over the finished layers is needed.
//!
//! A pair `(q, to)` is made by every reachable parent with a jump landing in `to` that
//! gives `q`. Of those parents, the ones whose canonical form is smallest share the
//! pair equally and the others count nothing. The rule reads the same from every image
//! of a parent under the board's symmetries, so a class counts its size times its
//! canonical member's shares, and every pair of every position is counted exactly once.

use super::board::Board;

/// The rule's tables for one board.
pub struct PairShares {
    /// The board's jumps by landing hole, each as (mask of its three holes, index in
    /// [`Board::jumps`]).
    into: Vec<Vec<(u64, usize)>>,
    /// A pair counts this many units: divisible by every number of tied parents.
    whole: u64,
}

impl PairShares {
    pub fn new(board: &Board) -> PairShares {
        let mut into = vec![Vec::new(); board.holes];
        for (k, j) in board.jumps.iter().enumerate() {
            into[j.to as usize].push((j.holes(), k));
        }
        let most = into.iter().map(Vec::len).max().unwrap_or(1).max(1) as u64;
        let whole = (1..=most).fold(1, |l, n| l / gcd(l, n) * n);
        PairShares { into, whole }
    }

    /// The share, in units ([`PairShares::pairs`]), of the pair (`q`, landing hole `to`)
    /// that the jump `moved` (its three holes) from the canonical, reachable `p` counts.
    /// `canonical(k, other)` is the canonical form of `q ^ other`, the parent by jump
    /// `k` (holes `other`) into `to`; `reached` says whether a canonical position one
    /// peg up from `q` is reachable. Only parents smaller than `p` are looked up.
    #[inline]
    pub fn share(
        &self,
        p: u64,
        q: u64,
        moved: u64,
        to: usize,
        canonical: impl Fn(usize, u64) -> u64,
        reached: impl Fn(u64) -> bool,
    ) -> u64 {
        let mut tied = 1u64;
        for &(other, k) in &self.into[to] {
            // Another jump into `to`: its `from` and `over` must be empty in `q`.
            if other == moved || q & (other & !(1u64 << to)) != 0 {
                continue;
            }
            let c = canonical(k, other);
            if c == p {
                tied += 1;
            } else if c < p && reached(c) {
                return 0;
            }
        }
        self.whole / tied
    }

    /// The pairs in `units` summed shares (each share times its class's size).
    pub fn pairs(&self, units: u64) -> u64 {
        debug_assert_eq!(units % self.whole, 0, "every pair is counted whole");
        units / self.whole
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}
