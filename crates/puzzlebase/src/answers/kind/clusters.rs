//! The questions of a puzzle whose boards are answered by searching each one's cluster
//! ([`RushHour`]): nothing is stored but the definition, so a board's distance, optimal
//! path and cluster size come from the search, and nothing that needs a table of every
//! position applies.

use std::time::Instant;

use serde_json::{Value, json};

use super::{Asked, BY_CLUSTER, Kind, no_layers, no_solutions};
use crate::answers::resident::Tables;
use crate::answers::{
    ArrangementAnswer, ExportKind, ExportRow, Histogram, ListAnswer, LongestAnswer, Move,
    MoveOption, QueryError, Question, Result, SearchAnswer, Solutions, StateAnswer, Stop, json,
};
use crate::core::space::StateError;
use crate::families::blocks::clusters::{ClusterError, RushHour};
use crate::families::blocks::rush::MAX_CLUSTER;
use crate::store::{PegLayerRow, PuzzleInfo, SolutionRow};
use crate::verify::consistency::RowError;

/// The search's failure in the answers' terms: a board that cannot reach the goal is
/// [`QueryError::Unreachable`] (`NULL` to the readers), a malformed one a
/// [`StateError`], a search past its deadline [`QueryError::Stopped`].
fn refusal(q: &Asked, e: ClusterError, stop: &Stop, started: Instant) -> QueryError {
    match e {
        ClusterError::State(StateError::Unsolvable { text, reason }) => {
            QueryError::Unreachable(format!("{text} in {} cannot be solved: {reason}", q.name()))
        }
        ClusterError::State(e) => e.into(),
        ClusterError::Stopped(why) => QueryError::Stopped {
            puzzle: q.name().to_string(),
            why,
            after: stop.seconds_since_start(started),
        },
    }
}

/// The search's answer, in the answers' terms ([`refusal`]).
fn searched(r: &RushHour, q: &Asked, text: &str, stop: &Stop) -> Result<StateAnswer> {
    q.info()?;
    let started = Instant::now();
    match r.solve(text, MAX_CLUSTER, stop) {
        Ok(a) => Ok(StateAnswer {
            puzzle: q.name().to_string(),
            state: a.state,
            distance: a.distance,
            solutions: Solutions::NotStored,
            path: a.path,
            moves: None,
            move_names: Some(a.moves),
            cluster: Some(a.cluster),
        }),
        Err(e) => Err(refusal(q, e, stop, started)),
    }
}

impl Kind for RushHour {
    fn questions(&self) -> Vec<Question> {
        vec![Question::State, Question::Start]
    }

    fn state(&self, q: &Asked, text: &str) -> Result<StateAnswer> {
        searched(self, q, text, &Stop::default())
    }

    fn start(&self, q: &Asked) -> Result<StateAnswer> {
        searched(self, q, self.start(), &Stop::default())
    }

    fn answered_by_search(&self) -> bool {
        // Not over pattern tables: a cluster's search is answered like a lookup.
        false
    }

    fn search(&self, q: &Asked, _: &str, _: &Stop) -> Result<SearchAnswer> {
        Err(QueryError::NotStored(format!(
            "{} is answered by searching the board's cluster (query --state), not by IDA* over pattern tables",
            q.name()
        )))
    }

    fn answer(&self, q: &Asked, text: &str, stop: &Stop) -> Result<StateAnswer> {
        searched(self, q, text, stop)
    }

    fn distance(&self, q: &Asked, text: &str, stop: &Stop) -> Result<Option<u32>> {
        match searched(self, q, text, stop) {
            Ok(a) => Ok(Some(a.distance)),
            Err(QueryError::Unreachable(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn moves(&self, q: &Asked, text: &str) -> Result<Vec<MoveOption>> {
        q.info()?;
        // One search of the cluster gives every next board's distance.
        let (stop, started) = (Stop::default(), Instant::now());
        let next = (self.next_with_distances(text, MAX_CLUSTER, &stop))
            .map_err(|e| refusal(q, e, &stop, started))?;
        Ok((next.into_iter())
            .map(|(name, state, distance)| MoveOption {
                mv: Move::Named(name),
                state,
                distance,
            })
            .collect())
    }

    fn arrangement(&self, q: &Asked, _: &str) -> Result<ArrangementAnswer> {
        Err(q.not_applicable_stored(Question::Arrangement))
    }

    fn names_moves(&self) -> bool {
        true
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
        Err(q.no_full_table(Question::Longest, BY_CLUSTER))
    }

    fn histogram(&self, q: &Asked) -> Result<Histogram> {
        Err(q.no_full_table(Question::Histogram, BY_CLUSTER))
    }

    fn solutions(&self, q: &Asked, sum: Option<i64>) -> Result<ListAnswer> {
        Err(no_solutions(q, sum))
    }

    fn solution_rule(&self, _: &SolutionRow) -> std::result::Result<(), RowError> {
        Err(RowError::NotEnumeration)
    }

    fn counts_absent(&self, name: &str) -> String {
        format!(
            "{name} is answered by searching the board's cluster, which finds one optimal path and counts none"
        )
    }

    fn check_listed(&self, q: &Asked, info: &PuzzleInfo) -> Result<()> {
        // Nothing is stored: a row that claims positions was not written by `generate`.
        if info.states != 0 || info.solvable != 0 || info.max_distance.is_some() {
            return Err(q.db.inconsistent(format!(
                "{} stores nothing, yet its row counts {} states, {} solvable",
                q.name(),
                info.states,
                info.solvable
            )));
        }
        Ok(())
    }

    fn export_size(
        &self,
        q: &Asked,
        _: &PuzzleInfo,
        _: &dyn Fn(&str) -> u64,
    ) -> Result<(ExportKind, u64)> {
        Err(q.no_full_table(Question::Export, BY_CLUSTER))
    }

    fn export(
        &self,
        q: &Asked,
        _: &PuzzleInfo,
        _: &mut dyn FnMut(ExportRow) -> std::io::Result<()>,
    ) -> Result<()> {
        Err(q.no_full_table(Question::Export, BY_CLUSTER))
    }

    fn position_json(&self, q: &Asked, text: &str, _: &Stop) -> Result<Value> {
        // Its `--state` answer and every legal move, as a tabulated puzzle's page has
        // them: the answers come from the search, through this kind.
        json::stored_position(q.db, q.p, text)
    }

    fn page_json(&self, _: &Asked, page: &mut Value) -> Result<()> {
        page["answered_by"] = json!("cluster search");
        page["examples"] = json!([
            {"name": "Fogleman's hardest without walls", "state": self.start()},
            {"name": "Fogleman's hardest with one wall",
             "state": "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM"},
        ]);
        Ok(())
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
