//! The file format's rules that more than one layer applies: the sentinel values of the
//! tables, how shortest-solution counts add up and overflow, and which storage a move
//! graph gets. Each rule lives here once; the solvers, the build, `verify` and the
//! answers call it. The layouts themselves are documented in `docs/file-format.md`.

use crate::records::Storage;

/// Distance of a rank the search never reached (an unsolvable arrangement).
pub const UNREACHED: u8 = u8::MAX;
/// Count stored when the number of shortest paths exceeds [`COUNT_LIMIT`].
pub const COUNT_OVERFLOW: u64 = u64::MAX;
/// Largest count kept exactly: SQLite integers are signed 64-bit.
pub const COUNT_LIMIT: u64 = i64::MAX as u64;

/// `a + b`, or [`COUNT_OVERFLOW`] past [`COUNT_LIMIT`] (overflow is sticky).
pub fn add_counts(a: u64, b: u64) -> u64 {
    match a.checked_add(b) {
        Some(s) if s <= COUNT_LIMIT => s,
        _ => COUNT_OVERFLOW,
    }
}

/// The same rule on counts where `None` means "overflowed": the sum, or `None` past
/// [`COUNT_LIMIT`].
pub fn add_known_counts(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match add_counts(a?, b?) {
        COUNT_OVERFLOW => None,
        s => Some(s),
    }
}

/// Move graphs of more ranks than this are stored packed when they have a packing
/// layout; up to it, a row per position, which any SQLite client reads with a plain
/// `SELECT` (`nine`, the 2x5, has 1,814,400). Rows cost about 1.3 µs each to write,
/// against 0.2 µs to compute, and some 50 bytes each on disk.
pub const PACK_ABOVE: u64 = 1 << 22;
/// Move graphs with at most this many ranks may be stored a row per position (the solver
/// holds 13 bytes per rank; the rows take some 50 bytes each on disk).
pub const MAX_POSITION_RANKS: u64 = 1 << 26;
/// Move graphs stored packed keep a byte per rank while solving up to this many ranks
/// (`twelve` has 239,500,800) and their distances as `run-steps`; above it, two bits.
pub const MAX_PACKED_RANKS: u64 = 1 << 31;
/// Move graphs may have at most this many ranks: two bits each while solving, 17.2 GB
/// (`fourteen`, the 2x7, has 43,589,145,600).
pub const MAX_TWO_BIT_RANKS: u64 = 1 << 36;
/// Packed move graphs with more ranks than this store no solution counts.
pub const COUNTS_MAX_STATES: u64 = 100_000_000;

/// What a move graph's definition asks of its storage (its `storage` key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GraphAsk {
    /// Nothing: the storage follows from the size.
    #[default]
    BySize,
    /// `storage = "packed"`: packed chunks at any size (the graph needs a packing layout).
    Packed,
    /// `storage = "two-bit"`: packed two-bit distance codes at any size.
    TwoBit,
}

/// Which storage a move graph of `size` ranks gets: packed when it is larger than
/// [`PACK_ABOVE`] (or its definition asks) and has a packing layout, or when its
/// distances are two-bit codes ([`two_bit_distances`]); rows otherwise.
pub fn graph_storage(size: u64, has_packing: bool, asked: GraphAsk) -> Storage {
    let packed_asked = asked == GraphAsk::Packed || size > PACK_ABOVE;
    if two_bit_distances(size, asked) || (packed_asked && has_packing) {
        Storage::Packed
    } else {
        Storage::Positions
    }
}

/// Whether a packed move graph keeps its distances as two-bit codes (`mod4`/`mod3`, see
/// [`crate::packed`]) rather than `run-steps`: above [`MAX_PACKED_RANKS`], or when
/// its definition asks (`storage = "two-bit"`).
pub fn two_bit_distances(size: u64, asked: GraphAsk) -> bool {
    asked == GraphAsk::TwoBit || size > MAX_PACKED_RANKS
}

/// Peg boards with more holes than this are tabulated by the layer solver and stored
/// as layers ([`Storage::PegLayers`]); `english33`, the largest below, keeps a row per
/// position.
pub const PEG_ROWS_MAX_HOLES: usize = 33;

/// Which storage a peg board of `holes` holes gets: a row per canonical position up to
/// [`PEG_ROWS_MAX_HOLES`], layers above or when its definition asks for them.
pub fn peg_storage(holes: usize, layers_asked: bool) -> Storage {
    if holes > PEG_ROWS_MAX_HOLES || layers_asked {
        Storage::PegLayers
    } else {
        Storage::Positions
    }
}

/// The most ranks a storage can hold (only the two move-graph storages have a limit).
pub fn storage_limit(storage: Storage) -> u64 {
    match storage {
        Storage::Packed => MAX_TWO_BIT_RANKS,
        _ => MAX_POSITION_RANKS,
    }
}

/// Whether a packed move graph of `size` ranks stores solution counts: not above
/// [`COUNTS_MAX_STATES`], and never beside two-bit distances (that search counts
/// nothing).
pub fn packed_counts(size: u64, asked: GraphAsk) -> bool {
    size <= COUNTS_MAX_STATES && !two_bit_distances(size, asked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_overflow_past_the_signed_limit_and_stay_overflowed() {
        assert_eq!(add_counts(2, 3), 5);
        assert_eq!(add_counts(COUNT_LIMIT, 0), COUNT_LIMIT);
        assert_eq!(add_counts(COUNT_LIMIT, 1), COUNT_OVERFLOW);
        assert_eq!(add_counts(COUNT_OVERFLOW, 0), COUNT_OVERFLOW);
        assert_eq!(add_known_counts(Some(1), Some(2)), Some(3));
        assert_eq!(add_known_counts(Some(COUNT_LIMIT), Some(1)), None);
        assert_eq!(add_known_counts(None, Some(1)), None);
    }

    #[test]
    fn storage_is_packed_only_above_the_line_and_with_a_layout() {
        use GraphAsk::*;
        // The seeds' 3x3 and 2x5 stay rows that a plain SELECT reads.
        const { assert!(PACK_ABOVE >= 1_814_400) };
        assert_eq!(graph_storage(PACK_ABOVE, true, BySize), Storage::Positions);
        assert_eq!(graph_storage(PACK_ABOVE + 1, true, BySize), Storage::Packed);
        assert_eq!(
            graph_storage(PACK_ABOVE + 1, false, BySize),
            Storage::Positions
        );
        // Asked for, packed at any size, but only with a layout.
        assert_eq!(graph_storage(10, true, Packed), Storage::Packed);
        assert_eq!(graph_storage(10, false, Packed), Storage::Positions);
        assert!(!two_bit_distances(10, Packed));
        assert!(packed_counts(10, Packed));
        assert_eq!(storage_limit(Storage::Packed), MAX_TWO_BIT_RANKS);
        assert_eq!(storage_limit(Storage::Positions), MAX_POSITION_RANKS);
        // Two-bit codes above a byte per rank, or when asked, with or without a layout,
        // and never with counts.
        assert!(!two_bit_distances(MAX_PACKED_RANKS, BySize));
        assert!(two_bit_distances(MAX_PACKED_RANKS + 1, BySize));
        assert!(two_bit_distances(10, TwoBit));
        assert_eq!(graph_storage(10, false, TwoBit), Storage::Packed);
        assert_eq!(
            graph_storage(MAX_PACKED_RANKS + 1, false, BySize),
            Storage::Packed
        );
        assert!(packed_counts(COUNTS_MAX_STATES, BySize));
        assert!(!packed_counts(COUNTS_MAX_STATES + 1, BySize));
        assert!(!packed_counts(1000, TwoBit));
    }
}
