//! Answers about a whole puzzle rather than one position: the farthest positions
//! (`--longest`), positions per distance (`--histogram`), a peg board's layers and
//! start x finish matrix, and an enumeration puzzle's solutions (`--all`, `--sum`).
//! Each is checked before it is served against the puzzle's stored totals or its rules:
//! counts add up to the totals, served states parse back to their ranks and lie at the
//! maximum distance, the matrix fits the board, and every canonical solution obeys the
//! puzzle's rule.

use super::Question;
use super::kind::{self, Asked};
use super::packed::PackedReader;
use super::{Database, Histogram, ListAnswer, LongestAnswer, Result};
use crate::core::progress::Silent;
use crate::core::space::GraphPuzzle;
use crate::solvers::peg;
use crate::store::{self, PositionRow, PuzzleInfo, Storage};

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
        let p = self.known(name)?;
        kind::of(&p).layers(&Asked { db: self, p: &p }, classes)
    }

    /// [`Database::checked_layers`] of a peg board.
    pub(super) fn peg_layers(
        &self,
        q: &Asked,
        board: &peg::Board,
        classes: bool,
    ) -> Result<Vec<store::PegLayerRow>> {
        let name = q.name();
        let info = q.info()?;
        let rows = self.conn.peg_layers(name).map_err(self.sql())?;
        if rows.is_empty() {
            return Err(q.not_applicable(Question::Layers));
        }
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
        let p = self.known(name)?;
        kind::of(&p).matrix(&Asked { db: self, p: &p })
    }

    /// [`Database::matrix`] of a peg board.
    pub(super) fn peg_matrix(&self, q: &Asked, board: &peg::Board) -> Result<Vec<Vec<Option<u8>>>> {
        let name = q.name();
        q.info()?;
        if !board.matrix {
            return Err(q.not_applicable(Question::Matrix));
        }
        if let Some(m) = self.matrices.borrow().get(name) {
            return Ok(m.clone());
        }
        let m = self.conn.peg_matrix(name).map_err(self.sql())?;
        if m.is_empty() {
            return Err(self.inconsistent(format!("{name}: the matrix is missing")));
        }
        if m.len() != board.holes
            || m.iter()
                .flatten()
                .flatten()
                .any(|&d| d as usize > board.holes)
        {
            return Err(self.inconsistent(format!("{name}: the matrix does not fit the board")));
        }
        // No entry depends on another, so nothing short of solving checks one: the
        // boards with a matrix have at most 21 holes, and re-deriving it costs what
        // building it did (0.5 s on triangle21), once per connection.
        if peg::matrix(board, &Silent) != m {
            return Err(
                self.inconsistent(format!("{name}: the matrix is not the one its board gives"))
            );
        }
        self.matrices
            .borrow_mut()
            .insert(name.to_string(), m.clone());
        Ok(m)
    }

    /// The positions at the maximum distance. Each served state must parse back to its
    /// rank and lie at the puzzle's maximum distance (for packed puzzles, by its own
    /// lookup in the distance table), and there must be as many as the histogram says.
    pub fn longest(&self, name: &str) -> Result<LongestAnswer> {
        let p = self.known(name)?;
        kind::of(&p).longest(&Asked { db: self, p: &p })
    }

    /// The histogram's row at the maximum distance.
    fn at_max(&self, name: &str, info: &PuzzleInfo) -> Result<Option<store::HistogramRow>> {
        Ok((self.conn.histogram(name).map_err(self.sql())?.into_iter())
            .find(|h| Some(h.distance) == info.max_distance))
    }

    /// [`Database::longest`] of a move puzzle stored as a packed table.
    pub(super) fn longest_packed(
        &self,
        g: &dyn GraphPuzzle,
        info: &PuzzleInfo,
    ) -> Result<LongestAnswer> {
        let name = g.name();
        let max = info.max_distance;
        let at_max = self.at_max(name, info)?;
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
            if r.rank >= g.size() || Some(r.distance) != max || tables.distance(r.rank)? != max {
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
        Ok(LongestAnswer {
            puzzle: name.to_string(),
            distance,
            count,
            states: rows.into_iter().map(|r| r.state).collect(),
        })
    }

    /// [`Database::longest`] of a puzzle stored as rows.
    pub(super) fn longest_rows(&self, q: &Asked, info: &PuzzleInfo) -> Result<LongestAnswer> {
        let name = q.name();
        let max = info.max_distance;
        let at_max = self.at_max(name, info)?;
        let distance = max.ok_or_else(|| q.not_applicable(Question::Longest))?;
        let rows = (self.conn.at_or_beyond(name, distance)).map_err(self.sql())?;
        for r in &rows {
            kind::stored_key_matches(q, r)?;
        }
        if rows.iter().any(|r| r.distance != max)
            || at_max.is_none_or(|h| h.classes != rows.len() as u64)
        {
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
        let p = self.known(name)?;
        kind::of(&p).histogram(&Asked { db: self, p: &p })
    }

    /// [`Database::histogram`] of an enumeration with values: solutions per value.
    pub(super) fn histogram_by_value(&self, q: &Asked) -> Result<Histogram> {
        let mut by_value = std::collections::BTreeMap::new();
        for v in self.solutions(q, None)?.values {
            *by_value.entry(v).or_insert(0u64) += 1;
        }
        Ok(Histogram::ByValue(by_value.into_iter().collect()))
    }

    /// [`Database::histogram`] from the stored rows of positions per distance.
    pub(super) fn histogram_rows(&self, q: &Asked) -> Result<Histogram> {
        let name = q.name();
        let info = q.info()?;
        let rows = self.conn.histogram(name).map_err(self.sql())?;
        if rows.is_empty() {
            return Err(q.not_applicable(Question::Histogram));
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
        let p = self.known(name)?;
        kind::of(&p).solutions(&Asked { db: self, p: &p }, None)
    }

    /// The canonical magic triangles with side sum `sum`.
    pub fn sum(&self, name: &str, sum: i64) -> Result<ListAnswer> {
        let p = self.known(name)?;
        kind::of(&p).solutions(&Asked { db: self, p: &p }, Some(sum))
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
    pub(super) fn solutions(&self, q: &Asked, value: Option<i64>) -> Result<CheckedSolutions> {
        let name = q.name();
        let info = q.info()?;
        self.solutions_all_stored(name, &info)?;
        self.digested(name, "solutions", "", 0)?;
        let mut rows = self.conn.solutions(name, true, None).map_err(self.sql())?;
        for r in &rows {
            (kind::of(q.p).solution_rule(r))
                .map_err(|why| self.inconsistent(format!("{name}: {why}")))?;
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
pub(super) struct CheckedSolutions {
    pub answer: ListAnswer,
    pub values: Vec<i64>,
}
