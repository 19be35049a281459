//! The questions of a move puzzle ([`GraphPuzzle`]): every position ranked, its distance
//! and count stored as rows or in a packed table.

use serde_json::Value;

use super::{Asked, Kind, no_layers, no_solutions, rank_outside};
use crate::answers::resident::Tables;
use crate::answers::{
    ArrangementAnswer, ExportKind, ExportRow, Histogram, ListAnswer, LongestAnswer, MoveOption,
    Question, Result, SearchAnswer, StateAnswer, Stop, json, random,
};
use crate::core::space::GraphPuzzle;
use crate::store::{PegLayerRow, PuzzleInfo, SolutionRow, Storage};
use crate::verify::consistency::RowError;

impl Kind for Box<dyn GraphPuzzle> {
    fn questions(&self) -> Vec<Question> {
        let mut v = vec![Question::State];
        if GraphPuzzle::start(self.as_ref()).is_some() {
            v.push(Question::Start);
        }
        v.extend([
            Question::Longest,
            Question::Histogram,
            Question::Random,
            Question::Scramble,
        ]);
        v
    }

    fn state(&self, q: &Asked, text: &str) -> Result<StateAnswer> {
        let g = self.as_ref();
        let rank = g.parse(text)?;
        q.db.walk_graph(g, &q.info()?, rank, text)
    }

    fn start(&self, q: &Asked) -> Result<StateAnswer> {
        let g = self.as_ref();
        let info = q.info()?;
        let rank = g.start().ok_or_else(|| q.not_applicable(Question::Start))?;
        q.db.walk_graph(g, &info, rank, "start")
    }

    fn answered_by_search(&self) -> bool {
        false
    }

    fn search(&self, q: &Asked, _: &str, _: &Stop) -> Result<SearchAnswer> {
        Err(super::not_searched(q))
    }

    fn answer(&self, q: &Asked, text: &str, _: &Stop) -> Result<StateAnswer> {
        self.state(q, text)
    }

    fn distance(&self, q: &Asked, text: &str, _: &Stop) -> Result<Option<u32>> {
        q.db.graph_distance(q, self.as_ref(), text)
    }

    fn moves(&self, q: &Asked, text: &str) -> Result<Vec<MoveOption>> {
        q.db.graph_moves(q, self.as_ref(), text)
    }

    fn arrangement(&self, q: &Asked, _: &str) -> Result<ArrangementAnswer> {
        Err(q.not_applicable_stored(Question::Arrangement))
    }

    fn names_moves(&self) -> bool {
        GraphPuzzle::names_moves(self.as_ref())
    }

    fn unrank(&self, q: &Asked, rank: u64) -> Result<String> {
        let g = self.as_ref();
        (rank < g.size())
            .then(|| g.format(rank))
            .ok_or_else(|| rank_outside(q, rank, g.size().saturating_sub(1)))
    }

    fn layers(&self, q: &Asked, _: bool) -> Result<Vec<PegLayerRow>> {
        no_layers(q)
    }

    fn matrix(&self, q: &Asked) -> Result<Vec<Vec<Option<u8>>>> {
        Err(q.not_applicable_stored(Question::Matrix))
    }

    fn longest(&self, q: &Asked) -> Result<LongestAnswer> {
        let info = q.info()?;
        match info.storage {
            Storage::Packed => q.db.longest_packed(self.as_ref(), &info),
            Storage::PegLayers => Err(q
                .db
                .inconsistent(format!("{} is stored as peg layers", q.name()))),
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
        let g = self.as_ref();
        if crate::core::format::two_bit_search(g.size(), g.storage_asked()) {
            format!("{name} is stored as a two-bit table, which keeps distances only")
        } else {
            format!(
                "{name} is stored as a packed table of {} ranks, and packed tables keep counts \
                 only up to {} ranks",
                g.size(),
                crate::core::format::COUNTS_MAX_STATES
            )
        }
    }

    fn check_listed(&self, q: &Asked, _: &PuzzleInfo) -> Result<()> {
        q.db.histogram(q.name()).map(drop)
    }

    fn export_size(
        &self,
        _: &Asked,
        info: &PuzzleInfo,
        table_rows: &dyn Fn(&str) -> u64,
    ) -> Result<(ExportKind, u64)> {
        let rows = match info.storage {
            Storage::Packed => self.size(),
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
        let g = self.as_ref();
        match info.storage {
            Storage::Packed => q.db.export_packed(g, each),
            _ => q.db.export_rows(q.name(), Some(g), None, each),
        }
    }

    fn position_json(&self, q: &Asked, text: &str, _: &Stop) -> Result<Value> {
        json::stored_position(q.db, q.p, text)
    }

    fn page_json(&self, q: &Asked, page: &mut Value) -> Result<()> {
        json::page_tables(q.db, q.name(), page)
    }

    fn random_position(&self, q: &Asked, info: &PuzzleInfo, seed: u64) -> Result<String> {
        q.db.random_in(self.as_ref(), info, false, seed)
    }

    fn scrambled(&self, _: &Asked, moves: u32, seed: u64) -> Result<String> {
        Ok(random::scramble(self.as_ref(), moves, seed))
    }

    fn resident_tables(&self, q: &Asked) -> Option<Tables> {
        q.db.resident_graph(q.p, self.as_ref())
    }
}
