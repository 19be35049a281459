//! `export`: every stored position of a puzzle with its distance, its number of shortest
//! solutions where the file keeps them and the next position on an optimal path,
//! streamed in rank order, whatever the storage: rows, packed distance tables (run-steps
//! or two-bit codes), peg rows and peg layers. Enumeration puzzles export their
//! solutions. The whole puzzle is checked first ([`Database::export_plan`]: its rows
//! against its checksum, which reads every page of it through the page checksums), so a
//! damaged puzzle is refused before a row is written; the rows then come through the
//! same readers as `query`'s, each value checked as it is decoded.
//!
//! The rows are handed to a caller's function one at a time; `formats` (CSV, JSON
//! Lines) and `columnar` (Parquet and Arrow IPC, feature `columnar`) write them.

#[cfg(feature = "columnar")]
pub mod columnar;
pub mod formats;
mod packed;

use super::Question;
use super::kind::{self, Asked};
use super::layers::LayerReader;
use super::{Database, QueryError, Result};
use crate::core::records::PositionRow;
use crate::core::space::GraphPuzzle;
use crate::solvers::peg::Board;
use crate::solvers::peg::layers::{self, Layout, table};
use crate::store::{self, PuzzleInfo};
use packed::PackedRows;

/// Writes exported rows in one format; `finish` writes what comes after the last row
/// and flushes. An error keeps its `io::ErrorKind` (a closed pipe is
/// [`std::io::ErrorKind::BrokenPipe`], which the command line ends quietly on). Here,
/// beside the rows, so that each format's writer (`formats`, `columnar`) implements it
/// without importing another's file.
pub trait RowWriter {
    /// Writes one row.
    fn write(&mut self, row: &ExportRow) -> std::io::Result<()>;
    /// Ends the output and flushes it.
    fn finish(self: Box<Self>) -> std::io::Result<()>;
}

/// One exported row.
#[derive(Debug, Clone, PartialEq, Eq)]
#[warn(missing_docs)]
pub enum ExportRow {
    /// A position of a move or peg puzzle: its rank (a peg board's canonical bitboard,
    /// or its rank within its peg count for boards stored as layers), its text, its
    /// distance (`None`: it cannot reach the goal), its number of shortest solutions
    /// where stored, and the position one move closer on an optimal path (the one
    /// `query --state` shows second; `None` at the goal and where there is no distance).
    Position {
        /// The rank.
        rank: u64,
        /// The position in the puzzle's notation.
        state: String,
        /// Its distance to the goal.
        distance: Option<u32>,
        /// Its number of shortest solutions, where stored.
        solutions: Option<u64>,
        /// The next position on an optimal path, in the puzzle's notation.
        next: Option<String>,
    },
    /// A solution of an enumeration puzzle.
    Solution {
        /// Its rank among the arrangements.
        rank: u64,
        /// The arrangement in the puzzle's notation.
        state: String,
        /// Its value (the magic triangle's side sum).
        value: Option<i64>,
        /// Whether it is its symmetry class's representative.
        canonical: bool,
    },
}

/// Which rows a puzzle exports, and so which columns: positions or solutions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[warn(missing_docs)]
pub enum ExportKind {
    /// [`ExportRow::Position`]: `rank, state, distance, solutions, next`.
    Positions,
    /// [`ExportRow::Solution`]: `rank, state, value, canonical`.
    Solutions,
}

impl ExportKind {
    /// The column names, in order, the same in every format.
    pub fn columns(self) -> &'static [&'static str] {
        match self {
            ExportKind::Positions => &["rank", "state", "distance", "solutions", "next"],
            ExportKind::Solutions => &["rank", "state", "value", "canonical"],
        }
    }
}

/// A puzzle checked for export: what its rows are, how many, and its stored metadata
/// (written into the Parquet file's key-value metadata).
#[derive(Debug, Clone)]
#[warn(missing_docs)]
pub struct ExportPlan {
    /// The puzzle's `puzzles` row, checked to come from its definition.
    pub info: PuzzleInfo,
    /// Positions or solutions.
    pub kind: ExportKind,
    /// How many rows the export writes.
    pub rows: u64,
}

#[warn(missing_docs)]
impl Database {
    /// Checks `name` whole before anything is exported: its definition is this build's,
    /// its checksum is the one the file records for it, and its rows, read in full
    /// (every page through the page checksums), hash to that checksum. Also refuses a
    /// puzzle with no table of positions (`fifteen`). A damaged puzzle is an error
    /// here, before the first row.
    pub fn export_plan(&self, name: &str) -> Result<ExportPlan> {
        let (p, info) = self.puzzle(name)?;
        let kind = kind::of(&p);
        let q = Asked { db: self, p: &p };
        if kind.answered_by_search() {
            return Err(q.no_full_table(Question::Export, kind::BY_PATTERNS));
        }
        let meta = self.conn.meta().map_err(self.sql())?;
        let recorded = store::integrity::contents(&meta)
            .ok_or_else(|| self.inconsistent("the file has no record of its puzzles"))?;
        if !recorded
            .iter()
            .any(|(n, c)| n == name && *c == info.checksum)
        {
            return Err(self.inconsistent(format!(
                "{name}: its checksum is not the one the file records for it"
            )));
        }
        let (sum, counts) = self
            .conn
            .checksum_with_rows(name, None, [], |[]| Ok::<_, QueryError>(()))?;
        if sum != info.checksum {
            return Err(self.inconsistent(format!("{name}: its rows do not match its checksum")));
        }
        let table_rows = |table: &str| {
            let i = store::DATA_TABLES.iter().position(|(t, _)| *t == table);
            i.map_or(0, |i| counts[i])
        };
        let (kind, rows) = kind.export_size(&q, &info, &table_rows)?;
        Ok(ExportPlan { info, kind, rows })
    }

    /// Calls `each` with every stored position (or solution) of `name`, in rank order;
    /// stops at the first error `each` returns. A packed table gives every rank of its
    /// space, those that cannot reach the goal with no distance. Memory stays bounded
    /// whatever the table's size (packed chunks are kept up to a budget, then dropped).
    /// [`Database::export_plan`] is the check to make first.
    pub fn export(
        &self,
        name: &str,
        each: &mut dyn FnMut(ExportRow) -> std::io::Result<()>,
    ) -> Result<()> {
        let (p, info) = self.puzzle(name)?;
        kind::of(&p).export(&Asked { db: self, p: &p }, &info, each)
    }

    /// [`Database::export`] of an enumeration: every stored solution.
    pub(super) fn export_solutions(
        &self,
        name: &str,
        each: &mut dyn FnMut(ExportRow) -> std::io::Result<()>,
    ) -> Result<()> {
        self.digested(name, "solutions", "", 0)?;
        for s in self.conn.solutions(name, false, None).map_err(self.sql())? {
            each(ExportRow::Solution {
                rank: s.rank,
                state: s.state,
                value: s.value,
                canonical: s.canonical,
            })
            .map_err(write_error)?;
        }
        Ok(())
    }

    /// [`Database::export`] of a move puzzle stored as a packed table: every rank.
    pub(super) fn export_packed(
        &self,
        g: &dyn GraphPuzzle,
        each: &mut dyn FnMut(ExportRow) -> std::io::Result<()>,
    ) -> Result<()> {
        let mut rows = PackedRows::open(self, g)?;
        for rank in 0..g.size() {
            let row = rows.row(rank)?;
            each(row).map_err(write_error)?;
        }
        Ok(())
    }

    /// [`Database::export`] of a puzzle stored as rows (a move puzzle's `g`, or a peg
    /// board's `board`).
    pub(super) fn export_rows(
        &self,
        name: &str,
        g: Option<&dyn GraphPuzzle>,
        board: Option<&Board>,
        each: &mut dyn FnMut(ExportRow) -> std::io::Result<()>,
    ) -> Result<()> {
        let mut failed = None;
        self.conn
            .for_each_position(name, |r| {
                if failed.is_some() {
                    return;
                }
                let row = match self.position_row(g, board, r) {
                    Ok(row) => row,
                    Err(e) => return failed = Some(e),
                };
                if let Err(e) = each(row) {
                    failed = Some(write_error(e));
                }
            })
            .map_err(self.sql())?;
        failed.map_or(Ok(()), Err)
    }

    /// A stored row as exported: its next position is the one its `next_rank` names
    /// (a move puzzle), or the one its stored move leads to (a peg board, whose rows are
    /// canonical: the move is played from the stored state, as `query` plays it).
    fn position_row(
        &self,
        g: Option<&dyn GraphPuzzle>,
        board: Option<&Board>,
        r: PositionRow,
    ) -> Result<ExportRow> {
        let name = g.map(|g| g.name()).or(board.map(|b| b.name)).unwrap_or("");
        let next = match (r.distance, r.next_rank, g, board) {
            (Some(d), Some(next), Some(g), _) if d > 0 => Some(g.format(next)),
            (Some(d), Some(next), None, Some(board)) if d > 0 => {
                let illegal = || {
                    self.inconsistent(format!(
                        "{name}: the move stored for {} is illegal",
                        r.state
                    ))
                };
                let (canonical, sym) = board.canonical(r.rank);
                let mv = (r.mv.as_deref())
                    .and_then(|m| board.parse_move(m))
                    .ok_or_else(illegal)?;
                let mv = board.map_move(&mv, sym, true);
                let after = (board.apply_move(canonical, &mv)).ok_or_else(illegal)?;
                if board.canonical(after).0 != next {
                    return Err(self.inconsistent(format!(
                        "{name}: the move stored for {} does not lead to its stored next position",
                        r.state
                    )));
                }
                Some(board.format(after))
            }
            _ => None,
        };
        Ok(ExportRow::Position {
            rank: r.rank,
            state: r.state,
            distance: r.distance,
            solutions: r.distance.and(r.solutions),
            next,
        })
    }

    /// A board stored as layers: per peg count, chunk by chunk, the positions that can
    /// finish, each with the position after its first optimal move (as `query` walks).
    pub(super) fn export_layers(
        &self,
        board: &Board,
        each: &mut dyn FnMut(ExportRow) -> std::io::Result<()>,
    ) -> Result<()> {
        let reader = LayerReader::open(self, board)?;
        let layout = Layout::new(board);
        let per = reader.layout().ranks_per_chunk;
        let mut out = Vec::new();
        for l in &reader.layout().layers {
            for c in 0..l.chunks {
                let blob = reader.read_chunk(l.first_chunk + c)?;
                if blob.is_empty() {
                    continue;
                }
                out.clear();
                table::entries(&blob, l.base, |r, d| out.push((c * per + r as u64, d)));
                for &(rank, d) in &out {
                    let bits = layout.colex.unrank(l.pegs as usize, rank);
                    let next = if d > 0 {
                        let mut first = None;
                        let mut err = None;
                        board.for_each_move(bits, |_, after| {
                            if first.is_some() || err.is_some() {
                                return;
                            }
                            match layers::distance_of(&layout, &reader, after) {
                                Ok(Some(e)) if e + 1 == d => first = Some(after),
                                Ok(_) => {}
                                Err(e) => err = Some(e),
                            }
                        });
                        if let Some(e) = err {
                            return Err(e);
                        }
                        Some(board.format(first.ok_or_else(|| {
                            self.inconsistent(format!(
                                "{}: {} at distance {d} has no move one closer",
                                board.name,
                                board.format(bits)
                            ))
                        })?))
                    } else {
                        None
                    };
                    each(ExportRow::Position {
                        rank,
                        state: board.format(bits),
                        distance: Some(d.into()),
                        solutions: None,
                        next,
                    })
                    .map_err(write_error)?;
                }
                reader.keep_at_most(LAYER_CHUNKS_KEPT);
            }
        }
        Ok(())
    }
}

/// A failure of the caller's writer, as the export's error.
fn write_error(e: std::io::Error) -> QueryError {
    QueryError::NotStored(format!("writing the export: {e}"))
}

/// Layer chunks an export keeps for the next positions' lookups before it drops them
/// (about 4 KB each: some 256 MiB), so that memory stays bounded on any board.
const LAYER_CHUNKS_KEPT: usize = 1 << 16;
