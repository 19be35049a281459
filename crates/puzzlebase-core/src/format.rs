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

/// Move graphs of more ranks than this are stored packed; up to it, a row per position,
/// which any SQLite client reads with a plain `SELECT`. Rows cost about 1.3 µs each to
/// write, against 0.2 µs to compute, and some 50 bytes each on disk, against a few bits
/// packed. A definition may ask for rows above it (`storage = "rows"`: the seeds' `eight`
/// and `nine`, read by plain SQL) or for packed tables below it.
pub const PACK_ABOVE: u64 = 1 << 17;
/// Move graphs with at most this many ranks may be stored a row per position (the solver
/// holds 13 bytes per rank; the rows take some 50 bytes each on disk).
pub const MAX_POSITION_RANKS: u64 = 1 << 26;
/// Move graphs stored packed keep a byte per rank while solving up to this many ranks
/// (`twelve` has 239,500,800) and their distances as `run-steps` (or, without runs,
/// two-bit codes beside the counts); above it, the two-bit search.
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
    /// `storage = "packed"`: packed chunks at any size.
    Packed,
    /// `storage = "two-bit"`: two-bit distance codes from the two-bit search at any size,
    /// and no counts.
    TwoBit,
    /// `storage = "rows"`: a row per position at any size up to [`MAX_POSITION_RANKS`],
    /// for readers with plain SQL.
    Rows,
}

impl GraphAsk {
    /// The ask a definition's `storage` value names; `None` for a value that names no
    /// move-graph storage. Every family without a storage of its own reads it here.
    pub fn parse(value: Option<&str>) -> Option<GraphAsk> {
        match value {
            None => Some(GraphAsk::BySize),
            Some("packed") => Some(GraphAsk::Packed),
            Some("two-bit") => Some(GraphAsk::TwoBit),
            Some("rows") => Some(GraphAsk::Rows),
            Some(_) => None,
        }
    }
}

/// The one-line help on the values of a move graph's `storage` key, for refusals.
pub const GRAPH_STORAGE_VALUES: &str = "\"rows\" (a row per position, the default up to 131,072 positions), \"packed\" (distances and counts in chunks, the default above), \"two-bit\" (two bits per position, no counts)";

/// Which storage a move graph of `size` ranks gets: rows when its definition asks; packed
/// when it is larger than [`PACK_ABOVE`], when its definition asks, or when the two-bit
/// search solves it ([`two_bit_search`]); rows otherwise. How a packed graph keeps its
/// distances is [`two_bit_distances`]'s to say.
pub fn graph_storage(size: u64, asked: GraphAsk) -> Storage {
    let packed = match asked {
        GraphAsk::Rows => false,
        GraphAsk::Packed | GraphAsk::TwoBit => true,
        GraphAsk::BySize => size > PACK_ABOVE || two_bit_search(size, asked),
    };
    if packed {
        Storage::Packed
    } else {
        Storage::Positions
    }
}

/// Whether a move graph is solved by the two-bit search (two bits per rank while solving,
/// no counts): above [`MAX_PACKED_RANKS`], or when its definition asks
/// (`storage = "two-bit"`). The others are solved a byte per rank, with their counts.
pub fn two_bit_search(size: u64, asked: GraphAsk) -> bool {
    asked == GraphAsk::TwoBit || (size > MAX_PACKED_RANKS && asked != GraphAsk::Rows)
}

/// Whether a packed move graph keeps its distances as two-bit codes (`mod4`/`mod3`, see
/// [`crate::packed`]) rather than `run-steps`: when the two-bit search solves it, or when
/// it is packed without a run layout (a permutation puzzle, Klotski: the codes then sit
/// beside the counts the byte-per-rank search found).
pub fn two_bit_distances(size: u64, has_packing: bool, asked: GraphAsk) -> bool {
    two_bit_search(size, asked) || (!has_packing && graph_storage(size, asked) == Storage::Packed)
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
/// [`COUNTS_MAX_STATES`], and never when the two-bit search solves it (that search counts
/// nothing).
pub fn packed_counts(size: u64, asked: GraphAsk) -> bool {
    size <= COUNTS_MAX_STATES && !two_bit_search(size, asked)
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
    fn storage_is_rows_only_below_the_line_or_when_asked() {
        use GraphAsk::*;
        assert_eq!(graph_storage(PACK_ABOVE, BySize), Storage::Positions);
        // Without runs, packed too: two-bit codes beside the counts.
        assert_eq!(graph_storage(PACK_ABOVE + 1, BySize), Storage::Packed);
        assert!(two_bit_distances(PACK_ABOVE + 1, false, BySize));
        assert!(!two_bit_distances(PACK_ABOVE + 1, true, BySize));
        assert!(!two_bit_search(PACK_ABOVE + 1, BySize));
        assert!(packed_counts(PACK_ABOVE + 1, BySize));
        assert!(!two_bit_distances(PACK_ABOVE, false, BySize));
        // The seeds' 3x3 and 2x5 ask for rows, which a plain SELECT reads.
        assert_eq!(graph_storage(1_814_400, Rows), Storage::Positions);
        assert!(!two_bit_distances(1_814_400, true, Rows));
        // Asked for, packed at any size: runs where there are runs, codes otherwise.
        assert_eq!(graph_storage(10, Packed), Storage::Packed);
        assert!(!two_bit_distances(10, true, Packed));
        assert!(two_bit_distances(10, false, Packed));
        assert!(packed_counts(10, Packed));
        assert_eq!(storage_limit(Storage::Packed), MAX_TWO_BIT_RANKS);
        assert_eq!(storage_limit(Storage::Positions), MAX_POSITION_RANKS);
        // The two-bit search above a byte per rank, or when asked, with or without a
        // layout, and never with counts.
        assert!(!two_bit_search(MAX_PACKED_RANKS, BySize));
        assert!(two_bit_search(MAX_PACKED_RANKS + 1, BySize));
        assert!(two_bit_distances(MAX_PACKED_RANKS + 1, true, BySize));
        assert!(two_bit_search(10, TwoBit));
        assert!(two_bit_distances(10, true, TwoBit));
        assert_eq!(graph_storage(10, TwoBit), Storage::Packed);
        assert!(packed_counts(COUNTS_MAX_STATES, BySize));
        assert!(!packed_counts(COUNTS_MAX_STATES + 1, BySize));
        assert!(!packed_counts(1000, TwoBit));
        for (value, ask) in [
            (None, BySize),
            (Some("rows"), Rows),
            (Some("packed"), Packed),
        ] {
            assert_eq!(GraphAsk::parse(value), Some(ask));
        }
        assert_eq!(GraphAsk::parse(Some("two-bit")), Some(TwoBit));
        assert_eq!(GraphAsk::parse(Some("row")), None);
    }
}
