//! Answers about a whole puzzle rather than one position: the farthest positions
//! (`--longest`), positions per distance (`--histogram`), a peg board's layers and
//! start x finish matrix, and an enumeration puzzle's solutions (`--all`, `--sum`).
//! Each is checked before it is served against the puzzle's stored totals or its rules:
//! counts add up to the totals, served states parse back to their ranks and lie at the
//! maximum distance, the matrix fits the board, and every canonical solution obeys the
//! puzzle's rule.

use super::packed::PackedReader;
use super::{Database, Histogram, ListAnswer, LongestAnswer, QueryError, Result};
use crate::core::progress::Silent;
use crate::solvers::peg;
use crate::store::{self, PositionRow, PuzzleInfo, Storage};
use crate::verify::consistency::{self, RowError};

#[warn(missing_docs)]
impl Database {
    /// Positions reachable from the start and able to finish, and (position, last-moved
    /// peg) pairs reachable, per number of pegs. The layers must add up to the puzzle's
    /// totals, and each must be possible: no more positions able to finish than
    /// reachable, no more classes than positions, no more positions than classes times
    /// symmetries, at least one last peg and at most one per peg for each position.
    pub fn layers(&self, name: &str) -> Result<Vec<store::PegLayerRow>> {
        self.checked_layers(name, true)
    }

    /// [`Database::layers`]; with `classes` false, without comparing each layer's
    /// classes with the positions stored (a read of every stored position of a board
    /// stored as rows): the figures alone, as [`Database::listing`] needs them.
    pub(super) fn checked_layers(
        &self,
        name: &str,
        classes: bool,
    ) -> Result<Vec<store::PegLayerRow>> {
        let (p, info) = self.puzzle(name)?;
        let p = &*p;
        let rows = self.conn.peg_layers(name).map_err(self.sql())?;
        if rows.is_empty() {
            return Err(self.not_applicable("--layers", p));
        }
        let Some(board) = p.as_peg() else {
            return Err(self.inconsistent(format!("{name} has peg layers")));
        };
        let syms = board.symmetries().len() as u128;
        let mut totals = (0u128, 0u128);
        for l in &rows {
            let possible = l.pegs as usize <= board.holes
                && l.can_finish <= l.reachable
                && l.can_finish_classes <= l.reachable_classes
                && l.reachable_classes <= l.reachable
                && l.can_finish_classes <= l.can_finish
                && l.reachable as u128 <= l.reachable_classes as u128 * syms
                && l.can_finish as u128 <= l.can_finish_classes as u128 * syms
                && l.reachable_pairs >= l.reachable
                && l.reachable_pairs as u128 <= l.reachable as u128 * l.pegs.max(1) as u128;
            if !possible {
                return Err(self.inconsistent(format!(
                    "{name}: the layer of {} pegs is impossible",
                    l.pegs
                )));
            }
            totals.0 += l.reachable as u128;
            totals.1 += l.can_finish as u128;
        }
        if totals != (info.states as u128, info.solvable as u128) {
            return Err(self.inconsistent(format!(
                "{name}: the layers add up to {} reachable and {} able to finish, the puzzle \
                 to {} and {}",
                totals.0, totals.1, info.states, info.solvable
            )));
        }
        // Each layer's classes are the stored rows of that many pegs: those able to
        // finish always, every reachable one where the board stores them all. A layer
        // whose figures were swapped with another's, totals intact, fails here.
        if !classes || self.layers_checked.borrow().contains(name) {
            return Ok(rows);
        }
        let stored = if info.storage == Storage::PegLayers {
            // Only positions that can finish are stored, counted by the layout.
            (self.stored_layer_classes(board)?.into_iter())
                .map(|(pegs, n)| (pegs, n, n))
                .collect()
        } else {
            self.conn.peg_rows_by_pegs(name).map_err(self.sql())?
        };
        let all = stored.iter().any(|&(_, n, d)| n != d);
        for l in &rows {
            let (n, d) = (stored.iter())
                .find(|s| s.0 == l.pegs)
                .map_or((0, 0), |&(_, n, d)| (n, d));
            if d != l.can_finish_classes || (all && n != l.reachable_classes) {
                return Err(self.inconsistent(format!(
                    "{name}: the layer of {} pegs does not match the positions stored with \
                     {} pegs",
                    l.pegs, l.pegs
                )));
            }
        }
        if let Some(&(pegs, ..)) = stored.iter().find(|s| !rows.iter().any(|l| l.pegs == s.0)) {
            return Err(self.inconsistent(format!(
                "{name}: positions of {pegs} pegs are stored but no layer of {pegs} pegs"
            )));
        }
        self.layers_checked.borrow_mut().insert(name.to_string());
        Ok(rows)
    }

    /// The start x finish matrix of a peg board.
    pub fn matrix(&self, name: &str) -> Result<Vec<Vec<Option<u8>>>> {
        let (p, _) = self.puzzle(name)?;
        let p = &*p;
        if !p.as_peg().is_some_and(|b| b.matrix) {
            return Err(self.not_applicable("--matrix", p));
        }
        if let Some(m) = self.matrices.borrow().get(name) {
            return Ok(m.clone());
        }
        let m = self.conn.peg_matrix(name).map_err(self.sql())?;
        if m.is_empty() {
            return Err(self.inconsistent(format!("{name}: the matrix is missing")));
        }
        if let Some(board) = p.as_peg()
            && (m.len() != board.holes
                || m.iter()
                    .flatten()
                    .flatten()
                    .any(|&d| d as usize > board.holes))
        {
            return Err(self.inconsistent(format!("{name}: the matrix does not fit the board")));
        }
        // No entry depends on another, so nothing short of solving checks one: the
        // boards with a matrix have at most 21 holes, and re-deriving it costs what
        // building it did (0.5 s on triangle21), once per connection.
        if let Some(board) = p.as_peg()
            && peg::matrix(board, &Silent) != m
        {
            return Err(
                self.inconsistent(format!("{name}: the matrix is not the one its board gives"))
            );
        }
        self.matrices
            .borrow_mut()
            .insert(name.to_string(), m.clone());
        Ok(m)
    }

    /// Refuses options that need a full table for a puzzle answered by search.
    fn full_table(&self, option: &str, name: &str) -> Result<()> {
        if self.known(name)?.as_patterns().is_some() {
            return Err(QueryError::NoFullTable {
                option: option.into(),
                puzzle: name.into(),
            });
        }
        Ok(())
    }

    /// The positions at the maximum distance. Each served state must parse back to its
    /// rank and lie at the puzzle's maximum distance (for packed puzzles, by its own
    /// lookup in the distance table), and there must be as many as the histogram says.
    pub fn longest(&self, name: &str) -> Result<LongestAnswer> {
        self.full_table("--longest", name)?;
        let (p, info) = self.puzzle(name)?;
        let p = &*p;
        let max = info.max_distance;
        let at_max = self
            .conn
            .histogram(name)
            .map_err(self.sql())?
            .into_iter()
            .find(|h| Some(h.distance) == max);
        if info.storage == Storage::PegLayers {
            let Some(board) = p.as_peg() else {
                return Err(self.inconsistent(format!("{name} is stored as peg layers")));
            };
            return self.longest_layers(board, max);
        }
        if info.storage == Storage::Packed {
            let Some(g) = p.as_graph() else {
                return Err(self.inconsistent(format!("{name} is stored packed")));
            };
            let tables = PackedReader::open(self, g)?;
            self.digested(name, "farthest", "", 0)?;
            let rows = self.conn.farthest(name).map_err(self.sql())?;
            for r in &rows {
                let row = PositionRow {
                    rank: r.rank,
                    state: r.state.clone(),
                    distance: Some(r.distance),
                    next_rank: None,
                    solutions: None,
                    mv: None,
                };
                self.check_state_text(name, &row, g.parse(&r.state).ok())?;
                if r.rank >= g.size() || Some(r.distance) != max || tables.distance(r.rank)? != max
                {
                    return Err(self.inconsistent(format!(
                        "{name}: the farthest position {} is not at the maximum distance",
                        r.state
                    )));
                }
            }
            // A two-bit search keeps the ranks of its last level only up to
            // FARTHEST_KEPT; above, the file holds none and the histogram says how many.
            let count = at_max.map_or(0, |h| h.positions);
            let all_or_too_many = count == rows.len() as u64
                || (rows.is_empty() && count > crate::solvers::twobit::FARTHEST_KEPT);
            let distance = max.filter(|_| all_or_too_many).ok_or_else(|| {
                self.inconsistent(format!(
                    "{name}: the farthest positions do not match the histogram"
                ))
            })?;
            return Ok(LongestAnswer {
                puzzle: name.to_string(),
                distance,
                count,
                states: rows.into_iter().map(|r| r.state).collect(),
            });
        }
        let (found, rows) = self.conn.longest(name).map_err(self.sql())?;
        let distance = found.ok_or_else(|| self.not_applicable("--longest", p))?;
        for r in &rows {
            let key = p.stored_key(&r.state).and_then(|k| k.ok());
            self.check_state_text(name, r, key)?;
        }
        if Some(distance) != max || at_max.is_none_or(|h| h.classes != rows.len() as u64) {
            return Err(self.inconsistent(format!(
                "{name}: the positions at the largest stored distance do not match the puzzle's \
                 maximum distance and histogram"
            )));
        }
        Ok(LongestAnswer {
            puzzle: name.to_string(),
            distance,
            count: rows.len() as u64,
            states: rows.into_iter().map(|r| r.state).collect(),
        })
    }

    /// Positions per distance: one row for each distance `0..=max_distance`, none empty,
    /// adding up to the puzzle's solvable positions. Magic triangle: canonical solutions
    /// per side sum, each checked against the rules.
    pub fn histogram(&self, name: &str) -> Result<Histogram> {
        self.full_table("--histogram", name)?;
        let (p, info) = self.puzzle(name)?;
        let p = &*p;
        if p.as_magic().is_some() {
            let mut by_value = std::collections::BTreeMap::new();
            for v in self.solutions(name, None)?.values {
                *by_value.entry(v).or_insert(0u64) += 1;
            }
            return Ok(Histogram::ByValue(by_value.into_iter().collect()));
        }
        let rows = self.conn.histogram(name).map_err(self.sql())?;
        if rows.is_empty() {
            return Err(self.not_applicable("--histogram", p));
        }
        let max = info.max_distance.map_or(-1, i64::from);
        let shaped = rows.len() as i64 == max + 1
            && rows.iter().enumerate().all(|(i, r)| {
                r.distance as usize == i && r.positions > 0 && r.classes <= r.positions
            });
        let total = rows.iter().map(|r| r.positions as u128).sum::<u128>();
        if !shaped || total != info.solvable as u128 {
            return Err(self.inconsistent(format!(
                "{name}: the histogram does not cover distances 0 to {max} once each with \
                 {} positions in all",
                info.solvable
            )));
        }
        Ok(Histogram::ByDistance(rows))
    }

    /// Every solution of an enumeration puzzle, one per equivalence class.
    pub fn all(&self, name: &str) -> Result<ListAnswer> {
        let (p, _) = self.puzzle(name)?;
        let p = &*p;
        if !p.is_enumeration() {
            return Err(self.not_applicable("--all", p));
        }
        Ok(self.solutions(name, None)?.answer)
    }

    /// The canonical magic triangles with side sum `sum`.
    pub fn sum(&self, name: &str, sum: i64) -> Result<ListAnswer> {
        let (p, _) = self.puzzle(name)?;
        let p = &*p;
        if p.as_magic().is_none() {
            return Err(self.not_applicable("--sum", p));
        }
        Ok(self.solutions(name, Some(sum))?.answer)
    }

    /// Every solution found is stored: rows gone (or moved to another puzzle) would
    /// shorten the list without breaking any row's own rule.
    pub(super) fn solutions_all_stored(&self, name: &str, info: &PuzzleInfo) -> Result<()> {
        self.digested(name, "solutions", "", 0)?;
        let stored = self.conn.solution_count(name).map_err(self.sql())?;
        if stored != info.solvable {
            return Err(self.inconsistent(format!(
                "{name}: {stored} solutions are stored but {} were found",
                info.solvable
            )));
        }
        Ok(())
    }

    /// The canonical solutions (with `value` only those of that value). Every canonical
    /// row is checked against the puzzle's rule before any is served, so that a row
    /// whose stored value is wrong cannot silently drop out of a `--sum` answer.
    fn solutions(&self, name: &str, value: Option<i64>) -> Result<CheckedSolutions> {
        let (p, info) = self.puzzle(name)?;
        let p = &*p;
        self.solutions_all_stored(name, &info)?;
        self.digested(name, "solutions", "", 0)?;
        let mut rows = self.conn.solutions(name, true, None).map_err(self.sql())?;
        for r in &rows {
            let ok = if let Some(m) = p.as_magic() {
                consistency::magic_row(m, r)
            } else if let Some(board) = p.as_tour() {
                consistency::tour_row(board, r)
            } else {
                Err(RowError::NotEnumeration)
            };
            ok.map_err(|why| self.inconsistent(format!("{name}: {why}")))?;
        }
        if value.is_some() {
            rows.retain(|r| r.value == value);
        }
        let values = rows.iter().map(|r| r.value.unwrap_or_default()).collect();
        Ok(CheckedSolutions {
            answer: ListAnswer {
                puzzle: name.to_string(),
                states: rows.into_iter().map(|r| r.state).collect(),
            },
            values,
        })
    }
}

/// Canonical solutions that passed their rule, with their values.
struct CheckedSolutions {
    answer: ListAnswer,
    values: Vec<i64>,
}
