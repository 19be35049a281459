//! What each kind of puzzle answers: the one place where a built puzzle's kind is
//! matched ([`of`]), and one implementation of [`Kind`] per kind, each stating every
//! question it answers and, explicitly, every one it does not.
//!
//! [`Kind`] has no provided methods. A new kind of [`Puzzle`] therefore fails to compile
//! here, in `of`'s match, until it has an implementation, and that implementation fails
//! to compile until it says, for every question, how it answers or that it does not
//! apply: nothing falls through to "does not apply" by an arm forgotten elsewhere. The
//! public [`Database`] methods look the puzzle up and hand the question to its kind.

mod arrangements;
mod clusters;
mod graph;
mod peg;
mod search;

use serde_json::Value;

use super::Question;
use super::resident::Tables;
use super::{
    ArrangementAnswer, Database, ExportKind, ExportRow, Histogram, ListAnswer, LongestAnswer,
    MoveOption, QueryError, Result, SearchAnswer, StateAnswer, Stop,
};
use crate::families::Puzzle;
use crate::store::{PegLayerRow, PositionRow, PuzzleInfo};
use crate::verify::consistency::RowError;

/// A question put to one puzzle of a file: the reader and the puzzle, built from its
/// stored definition.
pub(super) struct Asked<'a> {
    pub db: &'a Database,
    pub p: &'a Puzzle,
}

impl Asked<'_> {
    pub fn name(&self) -> &str {
        self.p.name()
    }

    /// The puzzle's stored metadata, checked to come from its definition.
    pub fn info(&self) -> Result<PuzzleInfo> {
        self.db.info(self.p)
    }

    /// The refusal of `option` for this puzzle, naming what does apply to it.
    pub fn not_applicable(&self, question: Question) -> QueryError {
        self.db.not_applicable(question, self.p)
    }

    /// [`Asked::not_applicable`] once the puzzle is known to be in the file: a puzzle the
    /// file does not hold is refused as such first.
    pub fn not_applicable_stored(&self, question: Question) -> QueryError {
        match self.info() {
            Err(e) => e,
            Ok(_) => self.not_applicable(question),
        }
    }

    /// The refusal of a question that needs a table of every position, for a puzzle
    /// answered `by` a search (in words: "search over pattern databases").
    pub fn no_full_table(&self, question: Question, by: &'static str) -> QueryError {
        QueryError::NoFullTable {
            question,
            puzzle: self.name().into(),
            by,
        }
    }
}

/// How a puzzle answered by search over pattern tables answers its positions, for the
/// refusals of what needs a table of every position ([`Asked::no_full_table`]).
pub(super) const BY_PATTERNS: &str = "search over pattern databases";
/// [`BY_PATTERNS`] of a puzzle whose boards are answered by searching their clusters.
pub(super) const BY_CLUSTER: &str = "searching each board's cluster";

/// Every question a kind of puzzle is asked, answered or refused by the kind itself.
pub(crate) trait Kind {
    /// The questions `query` can put to this puzzle, for a refusal that says what to
    /// ask instead and for the help that lists them: those the methods below answer.
    fn questions(&self) -> Vec<Question>;
    /// `--state`: distance, solution count and an optimal path of the position `text`.
    fn state(&self, q: &Asked, text: &str) -> Result<StateAnswer>;
    /// `--start`: [`Kind::state`] of the puzzle's own starting position.
    fn start(&self, q: &Asked) -> Result<StateAnswer>;
    /// Whether the puzzle is answered by search over pattern tables, with no table of
    /// every position (what needs one is refused as [`QueryError::NoFullTable`]).
    fn answered_by_search(&self) -> bool;
    /// An optimal solution of `text` found by search.
    fn search(&self, q: &Asked, text: &str, stop: &Stop) -> Result<SearchAnswer>;
    /// The stored or searched answer of `text` (a search gives up when `stop` says so).
    fn answer(&self, q: &Asked, text: &str, stop: &Stop) -> Result<StateAnswer>;
    /// The distance of `text` alone, by the cheapest read that gives it.
    fn distance(&self, q: &Asked, text: &str, stop: &Stop) -> Result<Option<u32>>;
    /// Every legal move from `text`, with where it leads and that position's distance
    /// (unsorted: [`Database::moves`] orders them).
    fn moves(&self, q: &Asked, text: &str) -> Result<Vec<MoveOption>>;
    /// An enumeration's view of one arrangement.
    fn arrangement(&self, q: &Asked, text: &str) -> Result<ArrangementAnswer>;
    /// Whether the puzzle's moves have names (`R`, `U2`), told along a path.
    fn names_moves(&self) -> bool;
    /// The position whose stored key is `rank`.
    fn unrank(&self, q: &Asked, rank: u64) -> Result<String>;
    /// A peg board's layers, checked (`classes`: against the positions stored too).
    fn layers(&self, q: &Asked, classes: bool) -> Result<Vec<PegLayerRow>>;
    /// A peg board's start x finish matrix.
    fn matrix(&self, q: &Asked) -> Result<Vec<Vec<Option<u8>>>>;
    /// The positions at the maximum distance.
    fn longest(&self, q: &Asked) -> Result<LongestAnswer>;
    /// Positions per distance, or solutions per value.
    fn histogram(&self, q: &Asked) -> Result<Histogram>;
    /// Every canonical solution (`sum`: those of that side sum; refused where the
    /// puzzle has no sums).
    fn solutions(&self, q: &Asked, sum: Option<i64>) -> Result<ListAnswer>;
    /// Whether a stored solution row obeys the puzzle's rule.
    fn solution_rule(&self, row: &crate::store::SolutionRow) -> std::result::Result<(), RowError>;
    /// Why the file keeps no solution counts for the puzzle, in words.
    fn counts_absent(&self, name: &str) -> String;
    /// The figures a listing shows, each checked against what it adds up from.
    fn check_listed(&self, q: &Asked, info: &PuzzleInfo) -> Result<()>;
    /// What an export writes and how many rows (`table_rows`: rows stored per table);
    /// the puzzle's checksum is checked before.
    fn export_size(
        &self,
        q: &Asked,
        info: &PuzzleInfo,
        table_rows: &dyn Fn(&str) -> u64,
    ) -> Result<(ExportKind, u64)>;
    /// Every stored position or solution, in rank order.
    fn export(
        &self,
        q: &Asked,
        info: &PuzzleInfo,
        each: &mut dyn FnMut(ExportRow) -> std::io::Result<()>,
    ) -> Result<()>;
    /// Everything about one position as JSON (the server's position page).
    fn position_json(&self, q: &Asked, text: &str, stop: &Stop) -> Result<Value>;
    /// What the puzzle's page shows beyond its definition and figures.
    fn page_json(&self, q: &Asked, page: &mut Value) -> Result<()>;
    /// A position drawn uniformly among those that reach the goal.
    fn random_position(&self, q: &Asked, info: &PuzzleInfo, seed: u64) -> Result<String>;
    /// A goal after `moves` random moves.
    fn scrambled(&self, q: &Asked, moves: u32, seed: u64) -> Result<String>;
    /// The tables a server keeps in memory for the puzzle, if any (`None`: none, or
    /// they failed their checks and are read from the file per lookup).
    fn resident_tables(&self, q: &Asked) -> Option<Tables>;
}

/// The kind of `p`: the one match over the kinds of [`Puzzle`] that answers go through.
pub(crate) fn of(p: &Puzzle) -> &dyn Kind {
    match p {
        Puzzle::Graph(g) => g,
        Puzzle::Peg(board) => board,
        Puzzle::Magic(m) => m,
        Puzzle::Tour(board) => board,
        Puzzle::Patterns(f) => f,
        Puzzle::Clusters(r) => r,
    }
}

impl Database {
    /// [`Kind::resident_tables`] of `p`, for the server's loader (which the kinds' own
    /// loaders sit under).
    pub(super) fn resident_tables_of(&self, p: &Puzzle) -> Option<Tables> {
        of(p).resident_tables(&Asked { db: self, p })
    }
}

/// Positions as a stored row reads them back, for the kinds answered by position.
pub(super) fn stored_key_matches(q: &Asked, row: &PositionRow) -> Result<()> {
    let key = q.p.stored_key(&row.state).and_then(|k| k.ok());
    q.db.check_state_text(q.name(), row, key)
}

/// The refusal of `rank` outside a space whose last key is `last`.
pub(super) fn rank_outside(q: &Asked, rank: u64, last: u64) -> QueryError {
    QueryError::State(crate::core::space::StateError::RankOutside {
        rank,
        puzzle: q.name().to_string(),
        last,
    })
}

/// [`Kind::layers`] of a puzzle that is no peg board: refused, or, where the file holds
/// layers for it anyway, damage.
pub(super) fn no_layers(q: &Asked) -> Result<Vec<PegLayerRow>> {
    q.info()?;
    let rows = q.db.conn.peg_layers(q.name()).map_err(q.db.sql())?;
    if rows.is_empty() {
        return Err(q.not_applicable(Question::Layers));
    }
    Err(q.db.inconsistent(format!("{} has peg layers", q.name())))
}

/// [`Kind::solutions`] of a puzzle that stores no enumeration.
pub(super) fn no_solutions(q: &Asked, sum: Option<i64>) -> QueryError {
    q.not_applicable_stored(if sum.is_some() {
        Question::Sum
    } else {
        Question::All
    })
}

/// [`Kind::search`] of a puzzle answered from its tables.
pub(super) fn not_searched(q: &Asked) -> QueryError {
    QueryError::NotStored(format!(
        "{} is answered from its tables, not by search",
        q.name()
    ))
}
