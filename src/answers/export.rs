//! `export`: every stored position of a puzzle with its distance (and its number of
//! shortest solutions where the file keeps them), streamed in rank order, whatever the
//! storage: rows, packed distance tables, peg layers. Enumeration puzzles export their
//! solutions. Each value comes through the same readers and checks as `query`, so a
//! damaged chunk stops the export rather than being written out.

use super::layers::LayerReader;
use super::packed::PackedReader;
use super::{Database, QueryError, Result, Solutions};
use crate::solvers::peg::layers::Layout;
use crate::solvers::peg::layers::table;
use crate::store::{self, Storage};

/// One exported line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[warn(missing_docs)]
pub enum ExportRow {
    /// A position of a move or peg puzzle: its rank (a peg board's canonical bitboard,
    /// or its rank within its peg count for boards stored as layers), its text, its
    /// distance (`None`: it cannot reach the goal), and its number of shortest solutions
    /// where stored.
    Position {
        /// The rank.
        rank: u64,
        /// The position in the puzzle's notation.
        state: String,
        /// Its distance to the goal.
        distance: Option<u32>,
        /// Its number of shortest solutions, where stored.
        solutions: Option<u64>,
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

impl ExportRow {
    /// The CSV header of rows of this kind.
    pub fn header(&self) -> [&'static str; 4] {
        match self {
            ExportRow::Position { .. } => ["rank", "state", "distance", "solutions"],
            ExportRow::Solution { .. } => ["rank", "state", "value", "canonical"],
        }
    }

    /// The row's four fields as text (empty for none).
    pub fn fields(&self) -> [String; 4] {
        let opt = |v: Option<String>| v.unwrap_or_default();
        match self {
            ExportRow::Position {
                rank,
                state,
                distance,
                solutions,
            } => [
                rank.to_string(),
                state.clone(),
                opt(distance.map(|d| d.to_string())),
                opt(solutions.map(|s| s.to_string())),
            ],
            ExportRow::Solution {
                rank,
                state,
                value,
                canonical,
            } => [
                rank.to_string(),
                state.clone(),
                opt(value.map(|v| v.to_string())),
                (*canonical as u8).to_string(),
            ],
        }
    }
}

#[warn(missing_docs)]
impl Database {
    /// Calls `each` with every stored position (or solution) of `name`, in rank order;
    /// stops at the first error `each` returns. A packed table gives every rank of its
    /// space, those that cannot reach the goal with no distance.
    pub fn export(
        &self,
        name: &str,
        each: &mut dyn FnMut(ExportRow) -> std::io::Result<()>,
    ) -> Result<()> {
        let (p, info) = self.puzzle(name)?;
        let write = |e: std::io::Error| QueryError::NotStored(format!("writing the export: {e}"));
        if p.as_patterns().is_some() {
            return Err(QueryError::NoFullTable {
                option: "export".into(),
                puzzle: name.into(),
            });
        }
        if p.is_enumeration() {
            for s in store::solutions(&self.conn, name, false, None).map_err(self.sql())? {
                each(ExportRow::Solution {
                    rank: s.rank,
                    state: s.state,
                    value: s.value,
                    canonical: s.canonical,
                })
                .map_err(write)?;
            }
            return Ok(());
        }
        match (p.as_graph(), p.as_peg(), info.storage) {
            (Some(g), _, Storage::Packed) => {
                let reader = PackedReader::open(self, g)?;
                for rank in 0..g.size() {
                    let distance = reader.distance(rank)?;
                    let solutions = match reader.solutions(rank)? {
                        Solutions::Exactly(n) if distance.is_some() => Some(n),
                        _ => None,
                    };
                    each(ExportRow::Position {
                        rank,
                        state: g.format(rank),
                        distance,
                        solutions,
                    })
                    .map_err(write)?;
                }
                Ok(())
            }
            (_, Some(board), Storage::PegLayers) => {
                let reader = LayerReader::open(self, board)?;
                let layout = Layout::new(board);
                for l in &reader.layout().layers {
                    for c in 0..l.chunks {
                        let blob = reader.read_chunk(l.first_chunk + c)?;
                        if blob.is_empty() {
                            continue;
                        }
                        let mut out = Vec::new();
                        table::entries(&blob, l.base, |r, d| {
                            out.push((c * reader.layout().ranks_per_chunk + r as u64, d))
                        });
                        for (rank, d) in out {
                            let bits = layout.colex.unrank(l.pegs as usize, rank);
                            each(ExportRow::Position {
                                rank,
                                state: board.format(bits),
                                distance: Some(d.into()),
                                solutions: None,
                            })
                            .map_err(write)?;
                        }
                    }
                }
                Ok(())
            }
            _ => {
                let mut failed = None;
                store::for_each_position(&self.conn, name, |r| {
                    if failed.is_none() {
                        let row = ExportRow::Position {
                            rank: r.rank,
                            state: r.state,
                            distance: r.distance,
                            solutions: r.distance.and(r.solutions),
                        };
                        if let Err(e) = each(row) {
                            failed = Some(e);
                        }
                    }
                })
                .map_err(self.sql())?;
                failed.map_or(Ok(()), |e| Err(write(e)))
            }
        }
    }
}
