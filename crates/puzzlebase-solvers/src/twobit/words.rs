//! What the two-bit searches know of one word of 32 ranks: the masks of its cells and
//! their periodic lookup, and the bit tricks that read and spread a word's cells.

use puzzlebase_core::space::StateSpace;

use super::{LOW, PER_WORD};

/// What [`Search::push_front`](super::Search::push_front) needs to know of a word's 32 ranks besides their cells.
#[derive(Clone, Copy, Default)]
pub struct WordMasks {
    /// Whether the space knows the ranks' parities ([`StateSpace::odd_ranks`]).
    pub known: bool,
    /// The low bits of the cells of the ranks of parity 1.
    pub odd_cells: u64,
    /// Whether the word's last rank links to the next word's first.
    pub linked_after: bool,
    /// The low bits of the cells of the ranks linked to the next one in the word.
    pub inside: u64,
    /// Whether the last rank of the word before links to this word's first.
    pub linked_before: bool,
}

impl WordMasks {
    fn of<S: StateSpace + ?Sized>(space: &S, base: u64, before: u64) -> WordMasks {
        let odd = space.odd_ranks(base);
        let links = space.run_links(base);
        WordMasks {
            known: odd.is_some(),
            odd_cells: spread(odd.unwrap_or(0)),
            linked_after: links >> 31 != 0,
            inside: spread(links & 0x7FFF_FFFF),
            linked_before: space.run_links(before) >> 31 != 0,
        }
    }
}

/// The [`WordMasks`] of one period of words ([`StateSpace::word_period`]), looked up
/// by a word's place in it instead of asked of the space for every word (two divisions
/// and two spreads of 32 bits for each word with a frontier rank); empty when the space
/// has no period (or a long one), and then asked after all.
pub struct Periodic {
    table: Vec<WordMasks>,
}

/// The space's period of words ([`StateSpace::word_period`]) where it is short enough
/// for what depends on it to be looked up in a table of one period (at most 1,024
/// words): [`Periodic`] here, and the parities of the check led by a table.
pub fn short_period<S: StateSpace + ?Sized>(space: &S) -> Option<u64> {
    space.word_period().filter(|p| (1..=1024).contains(p))
}

impl Periodic {
    pub fn new<S: StateSpace + ?Sized>(space: &S) -> Periodic {
        let table = match short_period(space) {
            Some(p) => (0..p)
                .map(|k| {
                    let before = (k + p - 1) % p;
                    WordMasks::of(space, k * PER_WORD, before * PER_WORD)
                })
                .collect(),
            None => Vec::new(),
        };
        Periodic { table }
    }

    /// Whether the space has a period short enough to be looked up.
    pub fn periodic(&self) -> bool {
        !self.table.is_empty()
    }

    /// The place in the period of the word from `base`.
    pub fn place(&self, base: u64) -> usize {
        if self.table.is_empty() {
            0
        } else {
            (base / PER_WORD % self.table.len() as u64) as usize
        }
    }

    /// The place of the word after the one at `k`.
    pub fn next(&self, k: usize) -> usize {
        if k + 1 >= self.table.len() { 0 } else { k + 1 }
    }

    /// The low bits of the cells of parity `parity` in the word at place `k`, or of
    /// every cell when the space has no short period.
    #[inline]
    pub fn cells(&self, k: usize, parity: u8) -> u64 {
        match self.table.get(k) {
            Some(m) if parity == 1 => m.odd_cells,
            Some(m) => !m.odd_cells & LOW,
            None => LOW,
        }
    }

    /// The masks of the word from `base`, at place `k`.
    pub fn at<S: StateSpace + ?Sized>(&self, space: &S, base: u64, k: usize) -> WordMasks {
        match self.table.get(k) {
            Some(m) => *m,
            None => WordMasks::of(space, base, base.saturating_sub(PER_WORD)),
        }
    }
}

/// The positions of the set bits of `mask`, lowest first.
pub fn set_bits(mut mask: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let bit = mask.trailing_zeros();
            mask &= mask - 1;
            bit
        })
    })
}

/// Writes the rank of each cell of `mask` (a mask of cells' low bits, of the word from
/// rank `base`) to `out` from `len` on, lowest first; returns `len` plus their number.
/// `out` must have room for four past them: four are written whatever `mask` has. At
/// the wide levels a word has one or two such ranks, and a loop by its bits was
/// mispredicted where it ended; written this way there is no branch until the fifth.
#[inline]
pub fn put_cells(out: &mut [u64], len: usize, base: u64, mask: u64) -> usize {
    let mut rest = mask;
    for slot in &mut out[len..len + 4] {
        *slot = base + (rest.trailing_zeros() / 2) as u64;
        rest &= rest.wrapping_sub(1);
    }
    for (slot, bit) in out[len + 4..].iter_mut().zip(set_bits(rest)) {
        *slot = base + (bit / 2) as u64;
    }
    len + cells_in(mask) as usize
}

/// The low bits of the cells of a word's first `ranks` ranks (all 32 from 32 on): a
/// last word may be partly past the last rank.
pub fn low_cells(ranks: u64) -> u64 {
    if ranks >= PER_WORD {
        LOW
    } else {
        LOW & ((1 << (2 * ranks)) - 1)
    }
}

/// Bit `i` of `x` moved to bit `2 i`: a mask of ranks as the low bits of their cells.
pub fn spread(x: u32) -> u64 {
    let mut x = x as u64;
    x = (x | x << 16) & 0x0000_FFFF_0000_FFFF;
    x = (x | x << 8) & 0x00FF_00FF_00FF_00FF;
    x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & LOW
}

/// The number of cells in `mask`, a mask of cells' low bits (without POPCNT, which the
/// baseline x86-64 target lacks, `count_ones` takes twice the operations).
pub fn cells_in(mask: u64) -> u64 {
    let pairs = (mask + (mask >> 2)) & 0x3333_3333_3333_3333;
    let bytes = (pairs + (pairs >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    bytes.wrapping_mul(0x0101_0101_0101_0101) >> 56
}

/// The low bits of the cells of `w` that hold [`FRONT`] (0b10).
pub(super) fn front_cells(w: u64) -> u64 {
    w >> 1 & !w & LOW
}

/// The low bits of the cells of `w` that hold [`UNREACHED`] (0b11).
pub(super) fn unreached_cells(w: u64) -> u64 {
    w & w >> 1 & LOW
}

/// Whether some two-bit cell of `w` is 0b11.
pub(super) fn has_unreached(w: u64) -> bool {
    unreached_cells(w) != 0
}
