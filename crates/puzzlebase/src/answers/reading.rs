//! One question, one value: what the readers for other tools ask (the SQLite extension's
//! `pb_*` functions, the Python package). Each answer is the one `query` gives, checked
//! the same way; a legal position with no distance is `None`, never an error, and every
//! refusal is the error `query` prints. A puzzle answered by search is searched here too,
//! within the `stop` the caller gives (`query`'s default: [`SEARCH_SECONDS`]).

use std::time::{Duration, Instant};

use serde_json::Value;

use super::Question;
use super::kind::{self, Asked};
use super::packed::PackedReader;
use super::{Database, QueryError, Result, SearchAnswer, Solutions, StateAnswer, Stop, known};
use crate::core::space::GraphPuzzle;
use crate::store::Storage;

/// The longest message a refusal is shown with, in characters.
pub const MESSAGE_MAX: usize = 800;

/// A refusal as `query` prints it and the readers raise it: one line (control
/// characters as spaces), at most 800 characters, the middle of a longer
/// message (where a long argument sits, between the error's start and its reason) left
/// out, so that a position of 100 KB is not echoed whole.
pub fn one_line(message: &str) -> String {
    let flat: String = message
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let n = flat.chars().count();
    if n <= MESSAGE_MAX {
        return flat;
    }
    let keep = MESSAGE_MAX / 2;
    let head: String = flat.chars().take(keep).collect();
    let tail: String = flat.chars().skip(n - keep).collect();
    format!(
        "{head} ... ({} characters left out) ... {tail}",
        n - 2 * keep
    )
}

/// How long a search runs, by default, before it gives up: `query --timeout`'s default.
pub const SEARCH_SECONDS: f64 = 10.0;

/// A [`Stop`] at [`SEARCH_SECONDS`] from now.
pub fn default_stop() -> Stop {
    Stop::new(Some(
        Instant::now() + Duration::from_secs_f64(SEARCH_SECONDS),
    ))
}

#[warn(missing_docs)]
impl Database {
    /// Whether `name` (built in, or a user's puzzle rebuilt from its stored definition)
    /// is answered by search over pattern databases rather than read.
    pub fn answers_by_search(&self, name: &str) -> bool {
        self.known(name)
            .is_ok_and(|p| kind::of(&p).answered_by_search())
    }

    /// An optimal solution of the position written `text`, by IDA* over the strongest
    /// stored partition with the reflected lookup. The text is checked before the file.
    pub fn search(&self, name: &str, text: &str) -> Result<SearchAnswer> {
        self.search_until(name, text, &Stop::default())
    }

    /// [`Database::search`] that gives up when `stop` says so (a deadline, a client gone).
    pub fn search_until(&self, name: &str, text: &str, stop: &Stop) -> Result<SearchAnswer> {
        let p = known(&self.conn, name)?;
        kind::of(&p).search(&Asked { db: self, p: &p }, text, stop)
    }

    /// The answer about the position written `text`: stored, or found by search for a
    /// puzzle answered by search. `None` when the position is legal but cannot reach the
    /// goal.
    pub fn answer(&self, name: &str, text: &str, stop: &Stop) -> Result<Option<StateAnswer>> {
        let p = self.known(name)?;
        let answer = kind::of(&p).answer(&Asked { db: self, p: &p }, text, stop);
        match answer {
            Ok(a) => Ok(Some(a)),
            Err(QueryError::Unreachable(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The position's distance to the goal; `None` when it cannot reach it. A move
    /// puzzle's distance is its stored entry, read with one lookup (a row, checked to be
    /// the position's, or an entry of a packed chunk, checked to decode) rather than
    /// walked to the goal as [`Database::path`] is; a puzzle answered by search is
    /// searched, a peg board's position walked.
    pub fn distance(&self, name: &str, text: &str, stop: &Stop) -> Result<Option<u32>> {
        let p = self.known(name)?;
        kind::of(&p).distance(&Asked { db: self, p: &p }, text, stop)
    }

    /// [`Database::distance`] of a move puzzle: one lookup.
    pub(super) fn graph_distance(
        &self,
        q: &Asked,
        g: &dyn GraphPuzzle,
        text: &str,
    ) -> Result<Option<u32>> {
        let name = q.name();
        let rank = g.parse(text)?;
        let info = q.info()?;
        let distance = if info.storage == Storage::Packed {
            PackedReader::open(self, g)?.distance(rank)?
        } else {
            // A missing row is an unsolvable position, or damage: as the walk reads it.
            let Some(row) = self.row(name, rank)? else {
                return match self.no_row(g, &info, rank, text) {
                    QueryError::Unreachable(_) => Ok(None),
                    e => Err(e),
                };
            };
            self.check_state_text(name, &row, g.parse(&row.state).ok())?;
            row.distance
        };
        Ok(distance)
    }

    /// How many distinct shortest solutions the position has; `None` when it cannot
    /// reach the goal, when the file keeps no counts for the puzzle, or when there are
    /// more than 2^63 − 1.
    pub fn solution_count(&self, name: &str, text: &str, stop: &Stop) -> Result<Option<u64>> {
        Ok(self
            .answer(name, text, stop)?
            .and_then(|a| match a.solutions {
                Solutions::Exactly(n) => Some(n),
                Solutions::Overflow | Solutions::NotStored => None,
            }))
    }

    /// An optimal path: every position from `text` to the goal, both included; `None`
    /// when the position cannot reach the goal.
    pub fn path(&self, name: &str, text: &str, stop: &Stop) -> Result<Option<Vec<String>>> {
        Ok(self.answer(name, text, stop)?.map(|a| a.path))
    }

    /// The names of the moves along the optimal path [`Database::path`] gives, one
    /// fewer than its positions (`["R", "U2", "F'"]`; empty at the goal); `None` when
    /// the position cannot reach the goal. Refused, naming the puzzle, for a puzzle
    /// whose moves have no names (a sliding tile, a peg's jumps): its moves are told
    /// by the positions of the path.
    pub fn path_moves(&self, name: &str, text: &str, stop: &Stop) -> Result<Option<Vec<String>>> {
        let p = self.known(name)?;
        if !kind::of(&p).names_moves() {
            self.info(&p)?;
            return Err(self.not_applicable(Question::MoveNames, &p));
        }
        Ok(self
            .answer(name, text, stop)?
            .map(|a| a.move_names.unwrap_or_default()))
    }

    /// Every legal move from the position, best first, each with the position it leads
    /// to and that position's distance, as JSON objects exactly as the server's position
    /// page lists them (`{"move": …, "state": …, "distance": …}`).
    pub fn legal_moves(&self, name: &str, text: &str, stop: &Stop) -> Result<Vec<Value>> {
        // The text is checked before the file, as `query` and the answers above check it:
        // a position of the wrong parity is refused as such even for a puzzle the file
        // does not hold.
        if let Err(e @ QueryError::State(_)) = self.rank(name, text) {
            return Err(e);
        }
        let mut page = super::json::position_until(self, name, text, stop)?;
        match page["legal_moves"].take() {
            Value::Array(moves) => Ok(moves),
            _ => Ok(Vec::new()),
        }
    }

    /// The key of the position's stored row: a move puzzle's rank (`positions.rank`,
    /// and the rank a packed table is indexed by), a peg board's canonical bitboard
    /// (the row of its symmetry class). Refused for puzzles stored otherwise.
    pub fn rank(&self, name: &str, text: &str) -> Result<u64> {
        let p = self.known(name)?;
        match p.stored_key(text) {
            Some(key) => Ok(key?),
            None => Err(self.not_applicable(Question::Rank, &p)),
        }
    }

    /// The position whose stored key is `rank` ([`Database::rank`]), in the puzzle's own
    /// notation. Refused for a rank outside the puzzle's space.
    pub fn unrank(&self, name: &str, rank: u64) -> Result<String> {
        let p = self.known(name)?;
        kind::of(&p).unrank(&Asked { db: self, p: &p }, rank)
    }
}
