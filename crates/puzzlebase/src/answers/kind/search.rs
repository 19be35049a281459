//! The questions of a sliding puzzle too large to tabulate ([`Fifteen`]): each position
//! solved by search over stored pattern tables, so nothing that needs a table of every
//! position applies.

use serde_json::Value;

use super::{Asked, BY_PATTERNS, Kind, no_layers, no_solutions};
use crate::answers::resident::Tables;
use crate::answers::{
    ArrangementAnswer, ExportKind, ExportRow, Histogram, ListAnswer, LongestAnswer, MoveOption,
    Question, Result, SearchAnswer, StateAnswer, Stop, json, random,
};
use crate::core::space::GraphPuzzle;
use crate::families::fifteen::Fifteen;
use crate::store::{PegLayerRow, PuzzleInfo, SolutionRow};
use crate::verify::consistency::RowError;

impl Kind for Fifteen {
    fn questions(&self) -> Vec<Question> {
        vec![Question::State, Question::Random, Question::Scramble]
    }

    fn state(&self, q: &Asked, text: &str) -> Result<StateAnswer> {
        self.search(q, text, &Stop::default())
            .map(StateAnswer::from)
    }

    fn start(&self, q: &Asked) -> Result<StateAnswer> {
        Err(q.not_applicable_stored(Question::Start))
    }

    fn answered_by_search(&self) -> bool {
        true
    }

    fn search(&self, q: &Asked, text: &str, stop: &Stop) -> Result<SearchAnswer> {
        q.db.search_in(self, q.name(), text, stop)
    }

    fn answer(&self, q: &Asked, text: &str, stop: &Stop) -> Result<StateAnswer> {
        self.search(q, text, stop).map(StateAnswer::from)
    }

    fn distance(&self, q: &Asked, text: &str, stop: &Stop) -> Result<Option<u32>> {
        Ok(q.db.answer(q.name(), text, stop)?.map(|a| a.distance))
    }

    fn moves(&self, q: &Asked, _: &str) -> Result<Vec<MoveOption>> {
        Err(q.not_applicable_stored(Question::State))
    }

    fn arrangement(&self, q: &Asked, _: &str) -> Result<ArrangementAnswer> {
        Err(q.not_applicable_stored(Question::Arrangement))
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
        Err(q.no_full_table(Question::Longest, BY_PATTERNS))
    }

    fn histogram(&self, q: &Asked) -> Result<Histogram> {
        Err(q.no_full_table(Question::Histogram, BY_PATTERNS))
    }

    fn solutions(&self, q: &Asked, sum: Option<i64>) -> Result<ListAnswer> {
        Err(no_solutions(q, sum))
    }

    fn solution_rule(&self, _: &SolutionRow) -> std::result::Result<(), RowError> {
        Err(RowError::NotEnumeration)
    }

    fn counts_absent(&self, name: &str) -> String {
        format!("{name} is answered by search, which finds one optimal path and counts none")
    }

    fn check_listed(&self, _: &Asked, _: &PuzzleInfo) -> Result<()> {
        // Tables only: a search checks them as it reads them.
        Ok(())
    }

    fn export_size(
        &self,
        q: &Asked,
        _: &PuzzleInfo,
        _: &dyn Fn(&str) -> u64,
    ) -> Result<(ExportKind, u64)> {
        Err(q.no_full_table(Question::Export, BY_PATTERNS))
    }

    fn export(
        &self,
        q: &Asked,
        _: &PuzzleInfo,
        _: &mut dyn FnMut(ExportRow) -> std::io::Result<()>,
    ) -> Result<()> {
        Err(q.no_full_table(Question::Export, BY_PATTERNS))
    }

    fn position_json(&self, q: &Asked, text: &str, stop: &Stop) -> Result<Value> {
        json::searched_position(q.db, self, q.name(), text, stop)
    }

    fn page_json(&self, _: &Asked, page: &mut Value) -> Result<()> {
        json::page_search(self, page);
        Ok(())
    }

    fn random_position(&self, q: &Asked, info: &PuzzleInfo, seed: u64) -> Result<String> {
        // The grid's positions of the right parity are the solvable ones.
        q.db.random_in(self.grid() as &dyn GraphPuzzle, info, true, seed)
    }

    fn scrambled(&self, _: &Asked, moves: u32, seed: u64) -> Result<String> {
        Ok(random::scramble(self.grid(), moves, seed))
    }

    fn resident_tables(&self, q: &Asked) -> Option<Tables> {
        q.db.resident_search(q.name())
    }
}
