//! The shapes of what the file holds: one type per table row, and everything one puzzle
//! contributes ([`PuzzleRecord`]). Engines and the build produce them; the store
//! alone turns them into SQL (the schema is in `docs/file-format.md`).

use crate::packed::ChunkLayout;

/// A row of `positions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionRow {
    pub rank: u64,
    pub state: String,
    pub distance: Option<u32>,
    pub next_rank: Option<u64>,
    pub solutions: Option<u64>,
    pub mv: Option<String>,
}

/// A row of `histogram`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[warn(missing_docs)]
pub struct HistogramRow {
    /// The distance.
    pub distance: u32,
    /// Positions at that distance.
    pub positions: u64,
    /// Of those, symmetry classes (equal to `positions` where no symmetry is used).
    pub classes: u64,
}

/// A row of `peg_layers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[warn(missing_docs)]
pub struct PegLayerRow {
    /// Pegs on the board.
    pub pegs: u8,
    /// Positions with that many pegs reachable from the start.
    pub reachable: u64,
    /// Of those, positions from which the finish can still be reached.
    pub can_finish: u64,
    /// `reachable`, counted by symmetry class.
    pub reachable_classes: u64,
    /// `can_finish`, counted by symmetry class.
    pub can_finish_classes: u64,
    /// (position, last-moved peg) pairs reachable from the start (Meyrignac's count).
    pub reachable_pairs: u64,
}

/// A row of `solutions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolutionRow {
    pub rank: u64,
    pub state: String,
    pub value: Option<i64>,
    pub canonical: bool,
}

/// Where a puzzle's answers are stored (`puzzles.storage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// One row per position in `positions`.
    Positions,
    /// Packed tables (`packed_tables`, `packed_chunks`) and the `farthest` rows.
    Packed,
    /// Enumerated solutions in `solutions`.
    Solutions,
    /// Pattern databases in `packed_tables`/`packed_chunks` (encoding `u8`); positions
    /// are answered by search (`fifteen`).
    Patterns,
    /// Large peg boards: per peg count, the positions that can finish with their
    /// distances in `packed_tables`/`packed_chunks` (encoding `peg-layers`), the
    /// farthest in `farthest`; counts and moves are derived from the distances.
    PegLayers,
    /// Nothing but the definition: every position is answered by searching it (Rush
    /// Hour, by the board's cluster).
    Search,
}

impl Storage {
    pub fn as_str(self) -> &'static str {
        match self {
            Storage::Positions => "positions",
            Storage::Packed => "packed",
            Storage::Solutions => "solutions",
            Storage::Patterns => "patterns",
            Storage::PegLayers => "peg-layers",
            Storage::Search => "search",
        }
    }

    pub fn parse(s: &str) -> Option<Storage> {
        [
            Storage::Positions,
            Storage::Packed,
            Storage::Solutions,
            Storage::Patterns,
            Storage::PegLayers,
            Storage::Search,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// One packed table: its layout (see [`crate::packed`]) and its chunks in order.
pub struct PackedTable<'a> {
    /// `distance` or `solutions`.
    pub kind: &'static str,
    pub encoding: &'static str,
    pub ranks_per_chunk: u64,
    /// The layout as JSON (`packed_tables.layout`).
    pub layout: String,
    pub chunks: Chunks<'a>,
}

/// Why a streamed chunk could not be made, as its maker says (another process's share
/// that arrived damaged, say): boxed, since the makers' error types live in layers
/// above this one.
pub type ChunkError = Box<dyn std::error::Error + Send + Sync>;

impl<'a> PackedTable<'a> {
    /// The table of `kind` laid out as `layout`, whose row of `packed_tables` then
    /// says what the layout says of itself.
    pub fn of(kind: &'static str, layout: &dyn ChunkLayout, chunks: Chunks<'a>) -> Self {
        PackedTable {
            kind,
            encoding: layout.encoding(),
            ranks_per_chunk: layout.ranks_per_chunk(),
            layout: layout.describe().to_string(),
            chunks,
        }
    }
}

/// The chunks of a packed table, in order: held, or made while they are written (a
/// table too large to hold twice, or one arriving from other processes a piece at a
/// time).
pub enum Chunks<'a> {
    Held(Vec<Vec<u8>>),
    Streamed {
        /// How many chunks the stream yields; a stream that ends early or runs on is an
        /// error of the writer.
        count: u64,
        /// Each chunk, or why it could not be made.
        chunks: Box<dyn Iterator<Item = Result<Vec<u8>, ChunkError>> + 'a>,
    },
}

impl Chunks<'_> {
    pub fn len(&self) -> u64 {
        match self {
            Chunks::Held(c) => c.len() as u64,
            Chunks::Streamed { count, .. } => *count,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl From<Vec<Vec<u8>>> for Chunks<'_> {
    fn from(chunks: Vec<Vec<u8>>) -> Self {
        Chunks::Held(chunks)
    }
}

/// A row of `farthest`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FarthestRow {
    pub rank: u64,
    pub state: String,
    pub distance: u32,
}

/// Everything one puzzle contributes to the file.
pub struct PuzzleRecord<'a> {
    pub name: String,
    pub family: String,
    pub definition: String,
    pub definition_hash: String,
    pub storage: Storage,
    /// Whether shortest-solution counts are stored for every position.
    pub counts: bool,
    pub states: u64,
    pub solvable: u64,
    pub max_distance: Option<u32>,
    pub seconds: f64,
    pub positions: Box<dyn Iterator<Item = PositionRow> + 'a>,
    /// How many rows `positions` yields (for progress reports).
    pub position_rows: u64,
    pub histogram: Vec<HistogramRow>,
    pub peg_layers: Vec<PegLayerRow>,
    /// (start hole, finish hole, minimum moves)
    pub peg_matrix: Vec<(u8, u8, Option<u8>)>,
    pub solutions: Vec<SolutionRow>,
    pub packed: Vec<PackedTable<'a>>,
    pub farthest: Vec<FarthestRow>,
}

impl PuzzleRecord<'_> {
    /// Rows and chunks still to write (for progress reports).
    pub fn write_units(&self) -> u64 {
        self.position_rows + self.packed.iter().map(|t| t.chunks.len()).sum::<u64>()
    }
}

/// Metadata of a stored puzzle (a row of `puzzles`).
#[derive(Debug, Clone, PartialEq)]
#[warn(missing_docs)]
pub struct PuzzleInfo {
    /// The puzzle's name.
    pub name: String,
    /// Its family (`sliding`, `peg`, …).
    pub family: String,
    /// Its definition as JSON text, as built.
    pub definition: String,
    /// How its answers are stored.
    pub storage: Storage,
    /// Whether shortest-solution counts are stored.
    pub counts: bool,
    /// Positions (or arrangements) examined.
    pub states: u64,
    /// Of those, the ones that reach the goal (or the solutions found).
    pub solvable: u64,
    /// The largest distance to the goal.
    pub max_distance: Option<u32>,
    /// When it was built (UTC, ISO 8601).
    pub generated_at: String,
    /// SHA-256 of the generator version and the definition.
    pub definition_hash: String,
    /// SHA-256 of its rows.
    pub checksum: String,
    /// Seconds its build took.
    pub seconds: f64,
}
