//! Packed tables for state spaces too large for one row per position (`eight` and up):
//! fixed-layout little-endian blobs, one per range of ranks, so that any one entry is a
//! single read at a computed offset. The layouts are documented here and in the README
//! for tools that read the file with plain SQL.
//!
//! # Distances: `run-steps`, `run-steps-16`, `run-steps-32`
//! The rank space is split into blocks of `block` consecutive ranks (a sliding puzzle's
//! `rank = t * block + blank_cell`). Within a block, the ranks `first..first + len` of
//! each *run* are a path in the move graph, and on a bipartite graph neighbours' distances
//! differ by exactly one. So a run of up to nine positions is stored in one entry of
//! `w + 1` bytes:
//!
//! * bytes `0..w`: the distance `d0` of the run's first position, little-endian, all ones
//!   (255, 65,535 or 2^32 - 1) where the run is unreachable;
//! * byte `w`: bit `j` is 1 when position `j + 1` of the run is one move *farther* than
//!   position `j`, 0 when it is one move closer.
//!
//! `w` is 1 (`run-steps`) where every distance of the table is at most 254, 2
//! (`run-steps-16`) up to 65,534, 4 (`run-steps-32`) beyond: the narrowest that holds the
//! table's largest distance, so a table within a byte is written as it always was. The
//! distance of position `k` of the run is `d0 + 2 * popcount(steps & ((1 << k) - 1)) - k`.
//! Entry `(block b, run i)` is at byte offset `(w + 1) * ((b % blocks_per_chunk) * runs + i)`
//! of chunk `b / blocks_per_chunk`, with `blocks_per_chunk = 4000 / ((w + 1) * runs)`.
//! On `eleven` (3x4, rows of four) `run-steps` is four bits per solvable rank.
//!
//! # Distances: `mod4` or `mod3` (two bits per rank)
//! For spaces too large for a byte per rank while solving (`fourteen`, the 2x7, has 43.6
//! billion ranks). Rank `r`'s code is bits `2 (r mod 4)` and `2 (r mod 4) + 1` of byte
//! `(r % ranks_per_chunk) / 4` of chunk `r / ranks_per_chunk` (16,000 ranks, 4,000 bytes
//! per chunk; the last chunk is `ceil(ranks left / 4)` bytes, its unused high bits 0).
//! * `mod4`: the code is the distance modulo 4 (every rank reaches the goal);
//! * `mod3`: the distance modulo 3, or `3` where the goal is out of reach.
//!
//! Neighbours' distances differ by at most one, so the neighbour whose code is one less
//! (modulo 4 or 3) is one move closer: the distance is the number of such steps to the
//! goal, and they are an optimal path.
//!
//! # Solution counts: `u8`, `u16le`, `u32le` or `u64le`
//! `w` = 1, 2, 4 or 8 bytes per rank (`entry_bytes`), little-endian: the number of
//! distinct shortest solutions, 0 for an unreachable rank. `w` is the narrowest whose
//! all-ones value is above every count of the table; all ones (only ever written with
//! `w` = 8) means the count exceeds `2^63 - 1`. Rank `r` is at byte offset
//! `w * (r % ranks_per_chunk)` of chunk `r / ranks_per_chunk` (`4000 / w` ranks per chunk).
//!
//! # Pattern databases: `u8`
//! One byte per rank (a placement of a pattern's tiles, ranked as the pattern solver ranks them
//! documents): rank `r` is byte `r % ranks_per_chunk` of chunk `r / ranks_per_chunk`
//! (4000 ranks per chunk).
//!
//! Chunks are sized to fit one SQLite page each (about 4 KB), so a lookup touches a
//! single page after the index descent, and the table adds about 2% to the raw bytes.
//!
//! Every layout is a [`ChunkLayout`]: where a rank's entry lies, how long each chunk's
//! blob is and how the layout is described in `packed_tables.layout` are the same
//! questions for all of them, so the build, `verify` and the readers ask them of any
//! layout alike. What an entry means is each layout's own: [`RunLayout::distance`],
//! [`CodeLayout::code`], [`CountLayout::count`], [`ByteLayout::decode`].

mod codes;
mod fixed;
mod runs;

pub use codes::{CODE_RANKS_PER_CHUNK, CodeLayout};
pub use fixed::{ByteLayout, CountLayout};
pub use runs::{MAX_RUN, RunLayout, UNREACHABLE_RUN};

use thiserror::Error;

/// Target size of one chunk's blob: a little under a 4096-byte SQLite page, leaving room
/// for the row's other columns so that the row never spills onto overflow pages.
pub const CHUNK_BYTES: usize = 4000;

/// Why a table cannot be packed in a layout, or a layout or an entry read back is not
/// one the encoders write.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PackError {
    #[error(
        "ranks {0} and {1} are neighbours whose distances do not differ by one: the run-steps encoding needs a bipartite move graph"
    )]
    NotBipartite(u64, u64),
    #[error("packed layout {0}")]
    BadLayout(String),
    #[error(
        "rank {rank} is at distance {distance}, past {max}, the most a `{encoding}` entry holds"
    )]
    TooDeep {
        rank: u64,
        distance: u32,
        encoding: &'static str,
        max: u32,
    },
}

/// A description that does not read back as a layout.
fn malformed(v: &serde_json::Value) -> PackError {
    PackError::BadLayout(format!("description {v} is malformed"))
}

/// A blob that ends before the entry asked for.
fn too_short(chunk: u64) -> PackError {
    PackError::BadLayout(format!("chunk {chunk} is too short"))
}

/// Where a rank's entry lies: `chunk`, the byte `offset` of its entry in that chunk's
/// blob, and `step`: the position `k` of the rank within its run (run-steps), the shift
/// of its two bits within the byte (two-bit codes), 0 where an entry is whole bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub chunk: u64,
    pub offset: usize,
    pub step: u8,
}

/// How a packed table over `ranks()` ranks is cut into chunks, the contract every layout
/// keeps (the module docs give each one's numbers):
///
/// * chunk `c` holds the [`ChunkLayout::ranks_per_chunk`] ranks from
///   `c * ranks_per_chunk()` on (fewer in the last): rank `r` is in chunk
///   `r / ranks_per_chunk()`, and [`ChunkLayout::locate`] gives that chunk and where in
///   its blob the entry lies;
/// * there are [`ChunkLayout::chunks`] chunks; [`ChunkLayout::chunk_bytes`] gives each
///   one's blob size, the same for every chunk but the last (which may be shorter), and 0
///   past the last, so that a blob of another size is damage and chunk `c` of the
///   table's blobs laid end to end starts at `c * chunk_bytes(0)`;
/// * [`ChunkLayout::describe`] is the JSON stored in `packed_tables.layout` (its
///   `encoding` is [`ChunkLayout::encoding`], its `ranks_per_chunk`
///   [`ChunkLayout::ranks_per_chunk`]), and [`ChunkLayout::from_description`] reads it
///   back to the same layout, refusing a description no layout gives.
pub trait ChunkLayout {
    /// The name stored in `packed_tables.encoding`: `run-steps` (`-16`, `-32`), `mod4`, `mod3`, `u8`,
    /// `u16le`, `u32le` or `u64le`.
    fn encoding(&self) -> &'static str;

    /// How many ranks the table covers.
    fn ranks(&self) -> u64;

    /// Ranks per chunk (every chunk but the last holds this many).
    fn ranks_per_chunk(&self) -> u64;

    /// Where `rank`'s entry is. `rank` must be below [`ChunkLayout::ranks`].
    fn locate(&self, rank: u64) -> Slot;

    /// The length of chunk `c`'s blob as the layout's encoder writes it (0 past the last
    /// chunk).
    fn chunk_bytes(&self, c: u64) -> u64;

    /// The layout as stored in `packed_tables.layout`: everything a reader needs.
    fn describe(&self) -> serde_json::Value;

    /// Reads a layout back from its [`ChunkLayout::describe`] JSON.
    fn from_description(v: &serde_json::Value) -> Result<Self, PackError>
    where
        Self: Sized;

    /// How many chunks the table has.
    fn chunks(&self) -> u64 {
        self.ranks().div_ceil(self.ranks_per_chunk())
    }

    /// How many ranks chunk `c` holds: [`ChunkLayout::ranks_per_chunk`], fewer in the
    /// last chunk, 0 past it.
    fn ranks_in(&self, c: u64) -> u64 {
        let per = self.ranks_per_chunk();
        let first = c.saturating_mul(per);
        self.ranks().saturating_sub(first).min(per)
    }
}

/// How a packed move graph's distances are stored: `run-steps` (a byte per rank while
/// solving, four past distance 254) or two-bit codes (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DistanceLayout {
    Runs(RunLayout),
    Codes(CodeLayout),
}

impl DistanceLayout {
    /// The layout inside, for what every layout answers alike.
    fn inner(&self) -> &dyn ChunkLayout {
        match self {
            DistanceLayout::Runs(l) => l,
            DistanceLayout::Codes(l) => l,
        }
    }
}

impl ChunkLayout for DistanceLayout {
    fn encoding(&self) -> &'static str {
        self.inner().encoding()
    }

    fn ranks(&self) -> u64 {
        self.inner().ranks()
    }

    fn ranks_per_chunk(&self) -> u64 {
        self.inner().ranks_per_chunk()
    }

    fn locate(&self, rank: u64) -> Slot {
        self.inner().locate(rank)
    }

    fn chunk_bytes(&self, c: u64) -> u64 {
        self.inner().chunk_bytes(c)
    }

    fn describe(&self) -> serde_json::Value {
        self.inner().describe()
    }

    /// Reads either layout back from its description (the `encoding` says which).
    fn from_description(v: &serde_json::Value) -> Result<DistanceLayout, PackError> {
        match v["encoding"].as_str() {
            Some(e) if e.starts_with("run-steps") => {
                RunLayout::from_description(v).map(DistanceLayout::Runs)
            }
            _ => CodeLayout::from_description(v).map(DistanceLayout::Codes),
        }
    }

    fn chunks(&self) -> u64 {
        self.inner().chunks()
    }
}

/// A run of a packed table's chunks read in chunk order, checked as it comes: the chunks
/// must be numbered `chunks.start`, the one after, and so on to `chunks.end` (excluded),
/// each of the size its layout gives and none empty. After the first that is not, none
/// is accepted.
pub struct ChunkRun {
    next: u64,
    end: u64,
    clean: bool,
}

impl ChunkRun {
    pub fn new(chunks: std::ops::Range<u64>) -> ChunkRun {
        ChunkRun {
            next: chunks.start,
            end: chunks.end,
            clean: true,
        }
    }

    /// Whether chunk `c`, whose layout gives it `size` bytes, is the next one and of that
    /// size (so its bytes are to be kept).
    pub fn accept(&mut self, c: u64, blob: &[u8], size: u64) -> bool {
        self.clean &= c == self.next && c < self.end && size != 0 && blob.len() as u64 == size;
        if self.clean {
            self.next += 1;
        }
        self.clean
    }

    /// Whether every chunk of the run came, and nothing else.
    pub fn complete(&self) -> bool {
        self.clean && self.next == self.end
    }
}

/// `ranks` and `ranks_per_chunk` of the description, in this `encoding`, of a table
/// with an entry per rank (every layout but the `run-steps` ones).
fn per_rank_description(v: &serde_json::Value, encoding: &str) -> Result<(u64, u64), PackError> {
    match (
        v["encoding"].as_str(),
        v["ranks"].as_u64(),
        v["ranks_per_chunk"].as_u64(),
    ) {
        (Some(e), Some(ranks), Some(per)) if e == encoding && per > 0 => Ok((ranks, per)),
        _ => Err(malformed(v)),
    }
}

#[cfg(test)]
mod tests;
