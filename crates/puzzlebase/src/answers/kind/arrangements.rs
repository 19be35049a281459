//! The questions of an enumeration: every arrangement with a property (a magic figure's
//! equal sums, a closed knight's tour), stored as canonical solutions rather than
//! positions with distances. What differs between the two kinds is [`Enumeration`];
//! every other question has one answer for both.

use serde_json::Value;

use super::{Asked, Kind, no_layers, not_searched};
use crate::answers::resident::Tables;
use crate::answers::{
    ArrangementAnswer, ExportKind, ExportRow, Histogram, ListAnswer, LongestAnswer, MoveOption,
    Question, Result, SearchAnswer, StateAnswer, Stop, json,
};
use crate::families::magic::Magic;
use crate::families::tour::TourBoard;
use crate::store::{PegLayerRow, PuzzleInfo, SolutionRow};
use crate::verify::consistency::{self, RowError};

/// What each enumeration answers in its own way.
pub(super) trait Enumeration {
    /// The view of one arrangement.
    fn arrangement(&self, q: &Asked, text: &str) -> Result<ArrangementAnswer>;
    /// Its histogram: solutions per value, or its stored rows.
    fn histogram(&self, q: &Asked) -> Result<Histogram>;
    /// Whether its solutions have a value (`--sum`).
    fn has_values(&self) -> bool;
    /// Whether a stored solution obeys its rule.
    fn rule(&self, row: &SolutionRow) -> std::result::Result<(), RowError>;
    /// What its page shows.
    fn page(&self, q: &Asked, page: &mut Value) -> Result<()>;
}

impl Enumeration for Magic {
    fn arrangement(&self, q: &Asked, text: &str) -> Result<ArrangementAnswer> {
        q.db.magic_arrangement(q, self, text)
    }

    fn histogram(&self, q: &Asked) -> Result<Histogram> {
        q.db.histogram_by_value(q)
    }

    fn has_values(&self) -> bool {
        true
    }

    fn rule(&self, row: &SolutionRow) -> std::result::Result<(), RowError> {
        consistency::magic_row(self, row)
    }

    fn page(&self, q: &Asked, page: &mut Value) -> Result<()> {
        json::page_magic(q.db, self, q.name(), page)
    }
}

impl Enumeration for TourBoard {
    fn arrangement(&self, q: &Asked, text: &str) -> Result<ArrangementAnswer> {
        q.db.tour_arrangement(q, self, text)
    }

    fn histogram(&self, q: &Asked) -> Result<Histogram> {
        q.db.histogram_rows(q)
    }

    fn has_values(&self) -> bool {
        false
    }

    fn rule(&self, row: &SolutionRow) -> std::result::Result<(), RowError> {
        consistency::tour_row(self, row)
    }

    fn page(&self, q: &Asked, page: &mut Value) -> Result<()> {
        json::page_tours(q.db, q.name(), page)
    }
}

impl<E: Enumeration> Kind for E {
    fn questions(&self) -> Vec<Question> {
        let mut v = vec![Question::All];
        if self.has_values() {
            v.extend([Question::Sum, Question::Histogram]);
        }
        v
    }

    fn state(&self, q: &Asked, _: &str) -> Result<StateAnswer> {
        Err(q.not_applicable_stored(Question::State))
    }

    fn start(&self, q: &Asked) -> Result<StateAnswer> {
        Err(q.not_applicable_stored(Question::Start))
    }

    fn answered_by_search(&self) -> bool {
        false
    }

    fn search(&self, q: &Asked, _: &str, _: &Stop) -> Result<SearchAnswer> {
        Err(not_searched(q))
    }

    fn answer(&self, q: &Asked, text: &str, _: &Stop) -> Result<StateAnswer> {
        self.state(q, text)
    }

    fn distance(&self, q: &Asked, text: &str, _: &Stop) -> Result<Option<u32>> {
        self.state(q, text).map(|a| Some(a.distance))
    }

    fn moves(&self, q: &Asked, _: &str) -> Result<Vec<MoveOption>> {
        Err(q.not_applicable_stored(Question::State))
    }

    fn arrangement(&self, q: &Asked, text: &str) -> Result<ArrangementAnswer> {
        Enumeration::arrangement(self, q, text)
    }

    fn names_moves(&self) -> bool {
        false
    }

    fn unrank(&self, q: &Asked, _: u64) -> Result<String> {
        Err(q.not_applicable(Question::Rank))
    }

    fn layers(&self, q: &Asked, _: bool) -> Result<Vec<PegLayerRow>> {
        no_layers(q)
    }

    fn matrix(&self, q: &Asked) -> Result<Vec<Vec<Option<u8>>>> {
        Err(q.not_applicable_stored(Question::Matrix))
    }

    fn longest(&self, q: &Asked) -> Result<LongestAnswer> {
        // No positions are stored: the read finds none and refuses.
        q.db.longest_rows(q, &q.info()?)
    }

    fn histogram(&self, q: &Asked) -> Result<Histogram> {
        Enumeration::histogram(self, q)
    }

    fn solutions(&self, q: &Asked, sum: Option<i64>) -> Result<ListAnswer> {
        if sum.is_some() && !self.has_values() {
            return Err(q.not_applicable_stored(Question::Sum));
        }
        Ok(q.db.solutions(q, sum)?.answer)
    }

    fn solution_rule(&self, row: &SolutionRow) -> std::result::Result<(), RowError> {
        self.rule(row)
    }

    fn counts_absent(&self, name: &str) -> String {
        format!("{name}'s storage keeps no counts")
    }

    fn check_listed(&self, q: &Asked, info: &PuzzleInfo) -> Result<()> {
        q.db.solutions_all_stored(q.name(), info)
    }

    fn export_size(
        &self,
        q: &Asked,
        info: &PuzzleInfo,
        table_rows: &dyn Fn(&str) -> u64,
    ) -> Result<(ExportKind, u64)> {
        q.db.solutions_all_stored(q.name(), info)?;
        Ok((ExportKind::Solutions, table_rows("solutions")))
    }

    fn export(
        &self,
        q: &Asked,
        _: &PuzzleInfo,
        each: &mut dyn FnMut(ExportRow) -> std::io::Result<()>,
    ) -> Result<()> {
        q.db.export_solutions(q.name(), each)
    }

    fn position_json(&self, q: &Asked, text: &str, _: &Stop) -> Result<Value> {
        Ok(json::arrangement(
            q.name(),
            &Enumeration::arrangement(self, q, text)?,
        ))
    }

    fn page_json(&self, q: &Asked, page: &mut Value) -> Result<()> {
        self.page(q, page)
    }

    fn random_position(&self, q: &Asked, _: &PuzzleInfo, _: u64) -> Result<String> {
        Err(q.not_applicable(Question::Random))
    }

    fn scrambled(&self, q: &Asked, _: u32, _: u64) -> Result<String> {
        Err(q.not_applicable(Question::Scramble))
    }

    fn resident_tables(&self, _: &Asked) -> Option<Tables> {
        None
    }
}
