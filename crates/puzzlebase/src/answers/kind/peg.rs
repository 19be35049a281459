//! The questions of a peg board ([`Board`]): positions by their canonical bitboard,
//! stored as rows or as layers, with its layers and start x finish matrix.

use serde_json::Value;

use super::{Asked, Kind, no_solutions, not_searched, rank_outside};
use crate::answers::resident::Tables;
use crate::answers::{
    ArrangementAnswer, ExportKind, ExportRow, Histogram, ListAnswer, LongestAnswer, MoveOption,
    Question, Result, SearchAnswer, StateAnswer, Stop, json,
};
use crate::solvers::peg::Board;
use crate::store::{PegLayerRow, PuzzleInfo, SolutionRow, Storage};
use crate::verify::consistency::RowError;

impl Kind for Board {
    fn questions(&self) -> Vec<Question> {
        let mut v = vec![
            Question::State,
            Question::Start,
            Question::Longest,
            Question::Histogram,
        ];
        if self.matrix {
            v.push(Question::Matrix);
        }
        v.push(Question::Layers);
        v
    }

    fn state(&self, q: &Asked, text: &str) -> Result<StateAnswer> {
        let bits = self.parse(text)?;
        q.db.walk_peg_in(self, &q.info()?, bits)
    }

    fn start(&self, q: &Asked) -> Result<StateAnswer> {
        q.db.walk_peg_in(self, &q.info()?, self.start)
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

    fn distance(&self, q: &Asked, text: &str, stop: &Stop) -> Result<Option<u32>> {
        // A board's rows are canonical classes: the distance comes with the walk.
        Ok(q.db.answer(q.name(), text, stop)?.map(|a| a.distance))
    }

    fn moves(&self, q: &Asked, text: &str) -> Result<Vec<MoveOption>> {
        q.db.peg_moves(q, self, text)
    }

    fn arrangement(&self, q: &Asked, _: &str) -> Result<ArrangementAnswer> {
        Err(q.not_applicable_stored(Question::Arrangement))
    }

    fn names_moves(&self) -> bool {
        false
    }

    fn unrank(&self, q: &Asked, rank: u64) -> Result<String> {
        (self.holes >= 64 || rank >> self.holes == 0)
            .then(|| self.format(rank))
            .ok_or_else(|| rank_outside(q, rank, (1u64 << self.holes.min(63)) - 1))
    }

    fn layers(&self, q: &Asked, classes: bool) -> Result<Vec<PegLayerRow>> {
        q.db.peg_layers(q, self, classes)
    }

    fn matrix(&self, q: &Asked) -> Result<Vec<Vec<Option<u8>>>> {
        q.db.peg_matrix(q, self)
    }

    fn longest(&self, q: &Asked) -> Result<LongestAnswer> {
        let info = q.info()?;
        match info.storage {
            Storage::PegLayers => q.db.longest_layers(self, info.max_distance),
            Storage::Packed => Err(q.db.inconsistent(format!("{} is stored packed", q.name()))),
            _ => q.db.longest_rows(q, &info),
        }
    }

    fn histogram(&self, q: &Asked) -> Result<Histogram> {
        q.db.histogram_rows(q)
    }

    fn solutions(&self, q: &Asked, sum: Option<i64>) -> Result<ListAnswer> {
        Err(no_solutions(q, sum))
    }

    fn solution_rule(&self, _: &SolutionRow) -> std::result::Result<(), RowError> {
        Err(RowError::NotEnumeration)
    }

    fn counts_absent(&self, name: &str) -> String {
        format!("{name}'s storage keeps no counts")
    }

    fn check_listed(&self, q: &Asked, _: &PuzzleInfo) -> Result<()> {
        q.db.checked_layers(q.name(), false).map(drop)
    }

    fn export_size(
        &self,
        q: &Asked,
        info: &PuzzleInfo,
        table_rows: &dyn Fn(&str) -> u64,
    ) -> Result<(ExportKind, u64)> {
        let rows = match info.storage {
            Storage::PegLayers => (q.db.checked_layers(q.name(), false)?.iter())
                .map(|l| l.can_finish_classes)
                .sum(),
            _ => table_rows("positions"),
        };
        Ok((ExportKind::Positions, rows))
    }

    fn export(
        &self,
        q: &Asked,
        info: &PuzzleInfo,
        each: &mut dyn FnMut(ExportRow) -> std::io::Result<()>,
    ) -> Result<()> {
        match info.storage {
            Storage::PegLayers => q.db.export_layers(self, each),
            _ => q.db.export_rows(q.name(), None, Some(self), each),
        }
    }

    fn position_json(&self, q: &Asked, text: &str, _: &Stop) -> Result<Value> {
        json::stored_position(q.db, q.p, text)
    }

    fn page_json(&self, q: &Asked, page: &mut Value) -> Result<()> {
        json::page_tables(q.db, q.name(), page)?;
        json::page_peg(q.db, self, q.name(), page)
    }

    fn random_position(&self, q: &Asked, _: &PuzzleInfo, _: u64) -> Result<String> {
        Err(q.not_applicable(Question::Random))
    }

    fn scrambled(&self, q: &Asked, _: u32, _: u64) -> Result<String> {
        Err(q.not_applicable(Question::Scramble))
    }

    fn resident_tables(&self, _: &Asked) -> Option<Tables> {
        // A board's answers walk canonical classes through its rows or layers, which a
        // server reads from the file.
        None
    }
}
