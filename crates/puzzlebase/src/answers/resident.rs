//! In-memory copies of move puzzles' position tables, for a reader that answers many
//! lookups over one file (the server). An answer walks dozens of positions; read from
//! SQLite that is dozens of indexed reads (and, for the packed puzzles, a layout to parse
//! and chunks to copy), most of a lookup's time. Read from memory, the same walk is
//! array indexing.
//!
//! Only where the rows and chunks come from changes: the answers are computed by the
//! same code as from the file ([`Database::state`], [`Database::moves`]), with every
//! consistency check still run on each answer, on exactly the bytes the file holds.
//! Loading verifies what it copies: a table is kept in memory only when every row
//! converts as a single-row read would and has a rank of the puzzle's space (at most
//! one row per rank), and every chunk of a packed table is present, in order and of the
//! size its layout gives. Anything else (a damaged file, a table too large to copy) is
//! left where it is, and that puzzle's answers keep reading the file, so they fail or
//! succeed exactly as they would without the copy.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use super::{Database, Result, known};
use crate::core::packed::{ChunkLayout, ChunkRun, CountLayout, DistanceLayout};
use crate::core::space::GraphPuzzle;
use crate::families::Puzzle;
use crate::store::{PositionRow, PuzzleInfo, Storage};

/// Largest rank space whose rows are copied (24 bytes a rank plus the state texts:
/// about 130 MB at most; the 181,440 rows of a 3x3 grid took 6 MB). Larger row tables
/// stay in the file.
const MAX_ROWS: u64 = 1 << 22;

/// Largest packed table copied (`eleven`'s distances take 120 MB).
const MAX_PACKED_BYTES: u64 = 1 << 29;

/// The tables a server keeps in memory, by puzzle, shared by all its connections.
#[derive(Default)]
pub struct Resident {
    /// `None`: the puzzle was looked at and is answered from the file.
    tables: RwLock<HashMap<String, Option<Tables>>>,
    /// Held while a puzzle is being loaded, so that one copy is made, not one per
    /// connection that asks at the same time.
    loading: Mutex<()>,
}

/// One puzzle's tables in memory.
#[derive(Clone)]
pub(super) enum Tables {
    Rows(Arc<RowTable>),
    Packed(Arc<PackedTables>),
    /// A puzzle answered by search: the pattern tables its searches read.
    Patterns(Arc<super::fifteen::LoadedTables>),
}

impl Resident {
    /// An empty cache, shared by every reader that a server's pool hands out.
    pub fn new() -> Arc<Resident> {
        Arc::new(Resident::default())
    }

    /// Whether `name` was already looked at: its tables are in memory, or it is
    /// answered from the file. Until then a lookup should go through
    /// [`Database::load_resident`] first.
    pub fn settled(&self, name: &str) -> bool {
        self.tables.read().is_ok_and(|t| t.contains_key(name))
    }

    /// Whether `name`'s tables are in memory.
    pub fn holds(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Bytes held in memory over all puzzles.
    pub fn bytes(&self) -> u64 {
        let Ok(t) = self.tables.read() else { return 0 };
        t.values()
            .flatten()
            .map(|t| match t {
                Tables::Rows(r) => r.bytes(),
                Tables::Packed(p) => p.bytes(),
                Tables::Patterns(l) => l
                    .heuristic
                    .tables()
                    .map(|(_, t)| t.bytes.len() as u64)
                    .sum(),
            })
            .sum()
    }

    pub(super) fn get(&self, name: &str) -> Option<Tables> {
        self.tables.read().ok()?.get(name).cloned().flatten()
    }
}

/// Flags of a [`Slot`].
const HAS_ROW: u8 = 1;
const HAS_DISTANCE: u8 = 2;
const HAS_NEXT: u8 = 4;
const HAS_SOLUTIONS: u8 = 8;

/// One rank's row: the columns a move puzzle's answer reads (`move` is only stored for
/// peg boards, whose rows are not copied). 24 bytes: row storage has at most
/// [`crate::core::format::MAX_POSITION_RANKS`] ranks, so a next rank fits 32 bits, and a
/// distance of any length does.
#[derive(Clone, Copy)]
struct Slot {
    solutions: u64,
    next_rank: u32,
    text_at: u32,
    distance: u32,
    text_len: u16,
    flags: u8,
}

const EMPTY: Slot = Slot {
    next_rank: 0,
    solutions: 0,
    text_at: 0,
    text_len: 0,
    distance: 0,
    flags: 0,
};

/// A move puzzle's `positions` rows, indexed by rank, with their state texts in one
/// buffer.
pub(super) struct RowTable {
    slots: Vec<Slot>,
    text: String,
}

impl RowTable {
    /// The row of `rank` as the file stores it, if there is one.
    pub(super) fn get(&self, rank: u64) -> Option<PositionRow> {
        let s = self.slots.get(usize::try_from(rank).ok()?)?;
        if s.flags & HAS_ROW == 0 {
            return None;
        }
        let at = s.text_at as usize;
        let flag = |f: u8| s.flags & f != 0;
        Some(PositionRow {
            rank,
            state: self.text[at..at + s.text_len as usize].to_string(),
            distance: flag(HAS_DISTANCE).then_some(s.distance),
            next_rank: flag(HAS_NEXT).then_some(s.next_rank as u64),
            solutions: flag(HAS_SOLUTIONS).then_some(s.solutions),
            mv: None,
        })
    }

    fn facts(&self, rank: u64) -> Option<RowFacts> {
        let s = self.slots.get(usize::try_from(rank).ok()?)?;
        let flag = |f: u8| s.flags & f != 0;
        flag(HAS_ROW).then_some(RowFacts {
            distance: flag(HAS_DISTANCE).then_some(s.distance),
            solutions: flag(HAS_SOLUTIONS).then_some(s.solutions),
        })
    }

    fn bytes(&self) -> u64 {
        (self.slots.capacity() * size_of::<Slot>() + self.text.capacity()) as u64
    }
}

/// A packed puzzle's layouts and every chunk of its tables, each table in one buffer.
pub(super) struct PackedTables {
    pub(super) distance: DistanceLayout,
    pub(super) counts: Option<CountLayout>,
    distance_bytes: Vec<u8>,
    count_bytes: Vec<u8>,
}

impl PackedTables {
    /// The blob of chunk `chunk` of table `kind`, as the file stores it.
    pub(super) fn chunk(&self, kind: &str, chunk: u64) -> Option<&[u8]> {
        let (bytes, l): (_, &dyn ChunkLayout) = match kind {
            "distance" => (&self.distance_bytes, &self.distance),
            "solutions" => (&self.count_bytes, self.counts.as_ref()?),
            _ => return None,
        };
        // Every chunk but the last is full, so chunk `c` starts at `c` full chunks.
        let at = usize::try_from(chunk.checked_mul(l.chunk_bytes(0))?).ok()?;
        bytes.get(at..at.checked_add(usize::try_from(l.chunk_bytes(chunk)).ok()?)?)
    }

    fn bytes(&self) -> u64 {
        (self.distance_bytes.capacity() + self.count_bytes.capacity()) as u64
    }
}

#[warn(missing_docs)]
impl Database {
    /// Makes this connection read the tables that `shared` holds in memory (the server
    /// gives every pooled connection the same set).
    pub fn share_resident(&mut self, shared: Arc<Resident>) {
        self.resident = Some(shared);
    }

    /// Copies `name`'s position tables into the shared memory set, once per puzzle,
    /// if it is a move puzzle whose tables load cleanly (see the module docs). Returns
    /// whether they are in memory. Reads in its own read transaction, so it must not be
    /// called inside [`Database::snapshot`]. An unknown puzzle is an error and is not
    /// remembered.
    pub fn load_resident(&self, name: &str) -> Result<bool> {
        let Some(shared) = &self.resident else {
            return Ok(false);
        };
        let p = known(&self.conn, name)?;
        let _one_at_a_time = shared.loading.lock();
        if shared.settled(name) {
            return Ok(shared.holds(name));
        }
        let tables = self.resident_tables_of(&p);
        let held = tables.is_some();
        if let Ok(mut t) = shared.tables.write() {
            t.insert(name.to_string(), tables);
        }
        Ok(held)
    }

    /// The pattern tables of `name` held in the server's memory, if they are.
    pub(super) fn resident_patterns(
        &self,
        name: &str,
    ) -> Option<Arc<super::fifteen::LoadedTables>> {
        match self.resident.as_ref()?.get(name)? {
            Tables::Patterns(t) => Some(t),
            _ => None,
        }
    }

    /// [`Kind::resident_tables`](super::kind::Kind::resident_tables) of a move puzzle:
    /// its rows or packed table, when every digest group holds.
    pub(super) fn resident_graph(&self, p: &Puzzle, g: &dyn GraphPuzzle) -> Option<Tables> {
        let name = p.name();
        // Whatever fails here fails the same way when the file is read per lookup,
        // which is where those answers then come from: a group whose digest does not
        // hold is refused there, group by group, as every reader refuses it. The
        // rows are read first: reading them keeps their digest groups, which the
        // check then takes rather than reading every row again.
        let tables = self
            .snapshot(|db| {
                let info = db.info(p)?;
                db.read_tables(g, &info)
            })
            .ok()
            .flatten();
        tables.filter(|_| matches!(self.conn.digest_difference(name), Ok(None)))
    }

    /// The pattern tables every search of `name` reads, checked as a search checks them.
    pub(super) fn resident_search(&self, name: &str) -> Option<Tables> {
        (self.pattern_tables(name, None, true).ok()).map(|t| Tables::Patterns(Arc::new(t)))
    }

    fn read_tables(&self, g: &dyn GraphPuzzle, info: &PuzzleInfo) -> Result<Option<Tables>> {
        Ok(match info.storage {
            Storage::Packed => self.read_packed(g)?.map(|t| Tables::Packed(Arc::new(t))),
            _ => self.read_rows(g)?.map(|t| Tables::Rows(Arc::new(t))),
        })
    }

    fn read_rows(&self, g: &dyn GraphPuzzle) -> Result<Option<RowTable>> {
        let size = g.size();
        if size > MAX_ROWS {
            return Ok(None);
        }
        let mut table = RowTable {
            slots: vec![EMPTY; size as usize],
            text: String::new(),
        };
        let mut clean = true;
        self.conn
            .for_each_position(g.name(), |row| {
                // Rows outside the rank space are never asked for; a second row for a rank
                // (which the schema forbids) would make "the" row ambiguous.
                let Some(slot) = table.slots.get_mut(row.rank as usize) else {
                    return;
                };
                let (Ok(text_at), Ok(text_len), Ok(next_rank)) = (
                    u32::try_from(table.text.len()),
                    u16::try_from(row.state.len()),
                    u32::try_from(row.next_rank.unwrap_or(0)),
                ) else {
                    clean = false;
                    return;
                };
                if slot.flags & HAS_ROW != 0 || row.mv.is_some() {
                    clean = false;
                    return;
                }
                table.text.push_str(&row.state);
                let mut flags = HAS_ROW;
                for (f, has) in [
                    (HAS_DISTANCE, row.distance.is_some()),
                    (HAS_NEXT, row.next_rank.is_some()),
                    (HAS_SOLUTIONS, row.solutions.is_some()),
                ] {
                    if has {
                        flags |= f;
                    }
                }
                *slot = Slot {
                    next_rank,
                    solutions: row.solutions.unwrap_or(0),
                    text_at,
                    text_len,
                    distance: row.distance.unwrap_or(0),
                    flags,
                };
            })
            .map_err(self.sql())?;
        table.text.shrink_to_fit();
        Ok(clean.then_some(table))
    }

    fn read_packed(&self, g: &dyn GraphPuzzle) -> Result<Option<PackedTables>> {
        let (distance, counts) = super::packed_layouts(self, g)?;
        let Some(distance_bytes) = self.read_chunks(g.name(), "distance", &distance)? else {
            return Ok(None);
        };
        let count_bytes = match &counts {
            None => Vec::new(),
            Some(l) => match self.read_chunks(g.name(), "solutions", l)? {
                Some(b) => b,
                None => return Ok(None),
            },
        };
        Ok(Some(PackedTables {
            distance,
            counts,
            distance_bytes,
            count_bytes,
        }))
    }

    /// Every chunk of one packed table, concatenated; `None` unless the chunks `layout`
    /// gives are all there, in order, each of the size it gives, and nothing else is.
    fn read_chunks(
        &self,
        name: &str,
        kind: &str,
        layout: &dyn ChunkLayout,
    ) -> Result<Option<Vec<u8>>> {
        let chunks = layout.chunks();
        let total = layout.chunk_bytes(0).saturating_mul(chunks);
        if total > MAX_PACKED_BYTES {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(total as usize);
        let mut run = ChunkRun::new(0..chunks);
        self.conn
            .for_each_packed_chunk(name, kind, |c, blob| {
                if run.accept(c, blob, layout.chunk_bytes(c)) {
                    out.extend_from_slice(blob);
                }
            })
            .map_err(self.sql())?;
        Ok(run.complete().then_some(out))
    }
}

/// The row source `query` walks: the file, or the server's copy of it.
pub(super) enum Rows<'a> {
    File {
        db: &'a Database,
        name: &'a str,
        /// Rows read by [`Rows::facts`] since the last [`Rows::get`], which takes its
        /// row from here rather than reading it again.
        seen: RefCell<Vec<PositionRow>>,
    },
    Memory(Arc<RowTable>),
}

/// What a walk needs of a neighbour's row.
#[derive(Clone, Copy)]
pub(super) struct RowFacts {
    pub(super) distance: Option<u32>,
    pub(super) solutions: Option<u64>,
}

impl Rows<'_> {
    /// The row of `rank`, if stored.
    pub(super) fn get(&self, rank: u64) -> Result<Option<PositionRow>> {
        match self {
            Rows::File { db, name, seen } => {
                let mut seen = seen.borrow_mut();
                let row = match seen.iter().position(|r| r.rank == rank) {
                    Some(i) => Some(seen.swap_remove(i)),
                    None => db.row(name, rank)?,
                };
                seen.clear();
                Ok(row)
            }
            Rows::Memory(t) => Ok(t.get(rank)),
        }
    }

    /// The distance and count of `rank`'s row, if stored (from memory without copying
    /// its state text).
    pub(super) fn facts(&self, rank: u64) -> Result<Option<RowFacts>> {
        match self {
            Rows::File { db, name, seen } => {
                let Some(row) = db.row(name, rank)? else {
                    return Ok(None);
                };
                let facts = RowFacts {
                    distance: row.distance,
                    solutions: row.solutions,
                };
                seen.borrow_mut().push(row);
                Ok(Some(facts))
            }
            Rows::Memory(t) => Ok(t.facts(rank)),
        }
    }
}

#[warn(missing_docs)]
impl Database {
    /// Where `name`'s rows are read from.
    pub(super) fn rows<'a>(&'a self, name: &'a str) -> Rows<'a> {
        match self.resident.as_ref().and_then(|r| r.get(name)) {
            Some(Tables::Rows(t)) => Rows::Memory(t),
            _ => Rows::File {
                db: self,
                name,
                seen: RefCell::new(Vec::new()),
            },
        }
    }

    /// `name`'s packed tables, if they are in memory.
    pub(super) fn resident_packed(&self, name: &str) -> Option<Arc<PackedTables>> {
        match self.resident.as_ref()?.get(name)? {
            Tables::Packed(t) => Some(t),
            _ => None,
        }
    }
}
