//! What the server offers beside `--state`: every legal move from a position, with the
//! position it leads to and that position's distance, and an enumeration puzzle's view
//! of one arrangement. Moves come from the puzzle's rules; only the distances are read
//! (one lookup per move), and they are served as stored, without a walk's checks.

use super::kind::{self, Asked};
use super::layers::LayerReader;
use super::packed::PackedReader;
use super::{ArrangementAnswer, Database, Move, MoveOption, Result};
use crate::core::space::GraphPuzzle;
use crate::families::magic::Magic;
use crate::families::tour::TourBoard;
use crate::solvers::peg::Board;
use crate::solvers::peg::layers::{self, Layout};
use crate::store::Storage;

/// The cells of a position in its notation, in cell order: comma- or space-separated
/// lists (above ten cells; tours), else one character each, the '/' that joins sliding
/// blocks' rows being no cell. The one reading of cells that moves and drawn boards
/// share.
pub fn cell_tokens(state: &str) -> Vec<&str> {
    if state.contains(',') {
        state.split(',').map(str::trim).collect()
    } else if state.contains(' ') {
        state.split_whitespace().collect()
    } else {
        (0..state.len())
            .filter(|&i| state.is_char_boundary(i))
            .map(|i| {
                let end = (i + 1..=state.len())
                    .find(|&e| state.is_char_boundary(e))
                    .unwrap_or(state.len());
                &state[i..end]
            })
            .filter(|&t| t != "/")
            .collect()
    }
}

/// An empty cell: a sliding tile's blank `0`, a token board's `-`, a block board's `.`.
fn is_empty_cell(t: &str) -> bool {
    t == "0" || t == "-" || t == "."
}

/// The names of the moves along a path of ranks (each next to the one before), for a
/// puzzle whose moves have names ([`GraphPuzzle::names_moves`]); `None` for one whose
/// moves are told by their cells. The one rule by which every answer (`query`, the
/// server, the readers) names a path's moves.
pub fn move_names(g: &dyn GraphPuzzle, ranks: &[u64]) -> Option<Vec<String>> {
    if !g.names_moves() {
        return None;
    }
    ranks.windows(2).map(|w| g.move_name(w[0], w[1])).collect()
}

/// The move between two positions of a move puzzle, from which cells changed.
pub fn cells_move(before: &str, after: &str) -> Move {
    let (a, b) = (cell_tokens(before), cell_tokens(after));
    let mut from = Vec::new();
    let mut to = Vec::new();
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        if !is_empty_cell(x) && is_empty_cell(y) {
            from.push(i);
        } else if is_empty_cell(x) && !is_empty_cell(y) {
            to.push(i);
        }
    }
    Move::Cells { from, to }
}

#[warn(missing_docs)]
impl Database {
    /// Every legal move from the position written `text`, with the position it leads to
    /// and that position's distance, best first (then by resulting position). The
    /// position itself need not be able to reach the goal.
    pub fn moves(&self, name: &str, text: &str) -> Result<Vec<MoveOption>> {
        let p = self.known(name)?;
        let mut out = kind::of(&p).moves(&Asked { db: self, p: &p }, text)?;
        out.sort_by(|a, b| {
            (a.distance.is_none(), a.distance, &a.state).cmp(&(
                b.distance.is_none(),
                b.distance,
                &b.state,
            ))
        });
        Ok(out)
    }

    /// An enumeration puzzle's view of one arrangement (the magic triangle, tours).
    pub fn arrangement(&self, name: &str, text: &str) -> Result<ArrangementAnswer> {
        let p = self.known(name)?;
        kind::of(&p).arrangement(&Asked { db: self, p: &p }, text)
    }

    /// [`Database::arrangement`] of a magic figure.
    pub(super) fn magic_arrangement(
        &self,
        q: &Asked,
        m: &Magic,
        text: &str,
    ) -> Result<ArrangementAnswer> {
        let name = q.name();
        let digits = m.parse(text)?;
        q.info()?;
        use crate::families::magic;
        let sums = m
            .lines()
            .iter()
            .map(|line| line.iter().map(|&i| digits[i] as i64).sum())
            .collect();
        let state = magic::format_magic(&digits);
        let value = m.side_sum(&digits);
        let canonical = match value {
            None => None,
            Some(v) => {
                self.digested(name, "solutions", "", 0)?;
                let class: Vec<String> = m
                    .symmetries()
                    .iter()
                    .map(|s| magic::format_magic(&magic::apply(s, &digits)))
                    .collect();
                self.conn
                    .solutions(name, true, Some(v))
                    .map_err(self.sql())?
                    .into_iter()
                    .map(|r| r.state)
                    .find(|s| class.contains(s))
            }
        };
        Ok(ArrangementAnswer::Magic {
            state,
            sums,
            solution: value.is_some() && canonical.is_some(),
            canonical,
        })
    }

    /// [`Database::arrangement`] of a tour board.
    pub(super) fn tour_arrangement(
        &self,
        q: &Asked,
        board: &TourBoard,
        text: &str,
    ) -> Result<ArrangementAnswer> {
        let name = q.name();
        use crate::families::tour;
        let seq = board.parse_tour(text)?;
        q.info()?;
        let state = tour::format_tour(&seq);
        let stored = self
            .conn
            .solution_stored(name, &state)
            .map_err(self.sql())?;
        Ok(ArrangementAnswer::Tour {
            canonical: tour::is_canonical_direction(&seq),
            state,
            stored,
        })
    }

    /// [`Database::moves`] of a move puzzle, unsorted.
    pub(super) fn graph_moves(
        &self,
        q: &Asked,
        g: &dyn GraphPuzzle,
        text: &str,
    ) -> Result<Vec<MoveOption>> {
        let rank = g.parse(text)?;
        let info = q.info()?;
        let before = g.format(rank);
        let mut nbs = Vec::new();
        g.neighbors(rank, &mut nbs);
        let packed = match info.storage {
            Storage::Packed => Some(PackedReader::open(self, g)?),
            _ => None,
        };
        let rows = self.rows(g.name());
        let mut out = Vec::with_capacity(nbs.len());
        for nb in nbs {
            let distance = match &packed {
                Some(t) => t.distance(nb)?,
                None => rows.facts(nb)?.and_then(|r| r.distance),
            };
            let state = g.format(nb);
            out.push(MoveOption {
                mv: match g.move_name(rank, nb) {
                    Some(name) => Move::Named(name),
                    None => cells_move(&before, &state),
                },
                state,
                distance,
            });
        }
        Ok(out)
    }

    /// [`Database::moves`] of a peg board, unsorted.
    pub(super) fn peg_moves(
        &self,
        q: &Asked,
        board: &Board,
        text: &str,
    ) -> Result<Vec<MoveOption>> {
        let bits = board.parse(text)?;
        let info = q.info()?;
        // A board stored as layers has no rows: its distances are in the layers.
        let layers = match info.storage {
            Storage::PegLayers => Some((LayerReader::open(self, board)?, Layout::new(board))),
            _ => None,
        };
        let mut out = Vec::new();
        for (mv, after) in board.moves(bits) {
            let distance = match &layers {
                Some((reader, layout)) => {
                    layers::distance_of(layout, reader, after)?.map(u32::from)
                }
                None => (self.row(board.name, board.canonical(after).0)?).and_then(|r| r.distance),
            };
            out.push(MoveOption {
                mv: Move::Jumps(mv),
                state: board.format(after),
                distance,
            });
        }
        Ok(out)
    }
}
