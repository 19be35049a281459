//! The last [`LOW_DIGITS`] tiles of a rank, looked up by the rank's remainder modulo
//! `7!` instead of computed: what the unranking of a block and the far moves share.

/// Lehmer digits recomputed when a thread moves to a block whose other digits it has
/// (see `BlockCache::prefix` in the parent module): 7! = 5040 ranks of the tiles share
/// a prefix, more than the blocks of one chunk of the solver's scan.
pub(super) const LOW_DIGITS: usize = 7;

/// The last [`LOW_DIGITS`] tiles of a rank, by the rank's remainder modulo `7!`: their
/// Lehmer digits, which of the 7 values left by the prefix each one is (0 = the
/// smallest), and the digits' sum modulo 2. A table of 5040 entries instead of 7
/// divisions and 7 selections per block: the two-bit search visits a new block for
/// nearly every rank it expands.
#[derive(Clone, Copy)]
pub(super) struct LowTiles {
    /// The Lehmer digits, a byte each, the first lowest.
    pub(super) digits: u64,
    /// Which of the 7 values left by the prefix each tile is (0 = the smallest), a byte
    /// each, the first lowest.
    pub(super) order: u64,
    pub(super) parity: u8,
}

pub(super) static LOW_TILES: [LowTiles; 5040] = {
    let mut t = [LowTiles {
        digits: 0,
        order: 0,
        parity: 0,
    }; 5040];
    let mut r = 0;
    while r < 5040 {
        // The digits as `lehmer_digits` gives them, then the picks as
        // `perm_from_digits_in` makes them from the pool 0..7.
        let mut digits = [0u8; LOW_DIGITS];
        let mut rest = r;
        let mut i = LOW_DIGITS;
        while i > 0 {
            i -= 1;
            let radix = LOW_DIGITS - i;
            digits[i] = (rest % radix) as u8;
            rest /= radix;
        }
        let mut pool: u64 = 0x0654_3210;
        let mut sum = 0;
        while i < LOW_DIGITS {
            let at = 4 * digits[i] as u32;
            let order = (pool >> at) & 0xF;
            pool = (pool & ((1u64 << at) - 1)) | ((pool >> at >> 4) << at);
            sum += digits[i];
            t[r].digits |= (digits[i] as u64) << (8 * i);
            t[r].order |= order << (8 * i);
            i += 1;
        }
        t[r].parity = sum & 1;
        r += 1;
    }
    t
};
