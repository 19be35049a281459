//! Membership in a sorted layer of canonical positions in about one cache miss.
//!
//! The peg solver and its check ask, for every un-jump or move of millions of positions,
//! whether a canonical position is in a layer that holds millions more. A binary search
//! over such a layer costs a cache miss at nearly every one of its twenty-odd steps; this
//! index splits the layer's range of values into about one bucket per few positions, so
//! that a question costs a look at the bucket table and a search of a bucket that usually
//! fits in a cache line or two.

/// A sorted, duplicate-free slice of positions with an index of value buckets over it.
pub struct Lookup<'a> {
    keys: &'a [u64],
    /// The least key: bucket `b` holds keys `v` with `(v - base) >> shift == b`.
    base: u64,
    shift: u32,
    /// `starts[b]..starts[b + 1]` is bucket `b`'s range of `keys`.
    starts: Vec<usize>,
}

/// About this many keys per bucket on average (a power of two).
const KEYS_PER_BUCKET: usize = 4;

impl<'a> Lookup<'a> {
    /// Indexes `keys`, which must be sorted ascending without duplicates (the layers of
    /// [`reachable_layers`](super::reachable_layers) are). Memory: about two bytes a key.
    pub fn new(keys: &'a [u64]) -> Lookup<'a> {
        debug_assert!(
            keys.windows(2).all(|w| w[0] < w[1]),
            "sorted, distinct keys"
        );
        let (Some(&base), Some(&last)) = (keys.first(), keys.last()) else {
            return Lookup {
                keys,
                base: 0,
                shift: 0,
                starts: vec![0, 0],
            };
        };
        let buckets = (keys.len() / KEYS_PER_BUCKET).max(1).next_power_of_two();
        let span_bits = u64::BITS - (last - base).leading_zeros();
        // (At most 63: a shift by 64 would overflow; two buckets are then enough.)
        let shift = span_bits.saturating_sub(buckets.trailing_zeros()).min(63);
        let count = ((last - base) >> shift) as usize + 1;
        let mut starts = Vec::with_capacity(count + 1);
        for (i, &k) in keys.iter().enumerate() {
            let b = ((k - base) >> shift) as usize;
            while starts.len() <= b {
                starts.push(i);
            }
        }
        starts.push(keys.len());
        Lookup {
            keys,
            base,
            shift,
            starts,
        }
    }

    /// The index of `key` in the slice, if it is there.
    #[inline]
    pub fn position(&self, key: u64) -> Option<usize> {
        let b = (key.checked_sub(self.base)? >> self.shift) as usize;
        let (&lo, &hi) = (self.starts.get(b)?, self.starts.get(b + 1)?);
        self.keys[lo..hi].binary_search(&key).ok().map(|i| lo + i)
    }

    /// Whether the slice is empty.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether `key` is in the slice.
    #[inline]
    pub fn contains(&self, key: u64) -> bool {
        self.position(key).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::Lookup;
    use proptest::prelude::*;

    fn agrees_with_binary_search(keys: &[u64], probes: &[u64]) {
        let l = Lookup::new(keys);
        for &p in probes.iter().chain(keys) {
            assert_eq!(l.position(p), keys.binary_search(&p).ok(), "key {p}");
        }
    }

    #[test]
    fn empty_single_and_extreme_layers() {
        agrees_with_binary_search(&[], &[0, 1, u64::MAX]);
        agrees_with_binary_search(&[7], &[0, 6, 7, 8, u64::MAX]);
        agrees_with_binary_search(&[0, u64::MAX], &[1, u64::MAX - 1]);
        agrees_with_binary_search(&[u64::MAX - 2, u64::MAX], &[0, u64::MAX - 1]);
    }

    proptest! {
        #[test]
        fn finds_exactly_the_keys_a_binary_search_finds(
            mut keys in prop::collection::vec(any::<u64>().prop_map(|k| k >> 20), 0..3000),
            probes in prop::collection::vec(any::<u64>().prop_map(|k| k >> 20), 0..300),
        ) {
            keys.sort_unstable();
            keys.dedup();
            agrees_with_binary_search(&keys, &probes);
        }

        #[test]
        fn clustered_keys(
            mut keys in prop::collection::vec(0u64..5000, 0..2000),
            probes in prop::collection::vec(0u64..6000, 0..300),
        ) {
            keys.sort_unstable();
            keys.dedup();
            agrees_with_binary_search(&keys, &probes);
        }
    }
}
