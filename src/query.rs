//! Answers from a generated file: parse the user's position, turn it into a rank, and
//! read stored rows. Nothing here searches or solves; every lookup is an indexed read.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use thiserror::Error;

use crate::generate::definition_hash;
use crate::peg::Board;
use crate::puzzles::{self, Puzzle};
use crate::space::StateError;
use crate::store::{self, HistogramRow, PositionRow, PuzzleInfo, StoreError};

#[derive(Debug, Error)]
pub enum QueryError {
    #[error("unknown puzzle {name:?}; known puzzles: {known}")]
    UnknownPuzzle { name: String, known: String },
    #[error("puzzle {0} is not in the database: run `puzzlebase generate --puzzle {0}`")]
    NotGenerated(String),
    #[error(
        "the stored table of {0} was built from a different definition: run `puzzlebase generate`"
    )]
    Stale(String),
    #[error(transparent)]
    State(#[from] StateError),
    #[error("{0}")]
    NotStored(String),
    #[error("{option} does not apply to {puzzle} ({family} puzzle)")]
    NotApplicable {
        option: String,
        puzzle: String,
        family: String,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl QueryError {
    /// Whether the user asked for something malformed (exit code 2) rather than something
    /// the data could not answer.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            QueryError::UnknownPuzzle { .. }
                | QueryError::NotApplicable { .. }
                | QueryError::State(StateError::Malformed { .. })
        )
    }
}

pub type Result<T, E = QueryError> = std::result::Result<T, E>;

/// A distance lookup with one optimal path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateAnswer {
    pub puzzle: String,
    pub state: String,
    pub distance: u8,
    pub solutions: Option<u64>,
    /// Every position from `state` to the goal, both included.
    pub path: Vec<String>,
    /// Peg puzzles: the move leading to each next position, `[from, to1, to2, ...]`.
    pub moves: Option<Vec<Vec<u8>>>,
}

/// The positions at the maximum distance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongestAnswer {
    pub puzzle: String,
    pub distance: u8,
    pub states: Vec<String>,
}

/// A list of positions or solutions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListAnswer {
    pub puzzle: String,
    pub states: Vec<String>,
}

/// Counts per distance (move puzzles) or per value (the magic triangle's side sums).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Histogram {
    ByDistance(Vec<HistogramRow>),
    ByValue(Vec<(i64, u64)>),
}

fn inconsistent(puzzle: &str, at: &str) -> QueryError {
    QueryError::NotStored(format!(
        "the database is inconsistent: {puzzle} at {at}; run `puzzlebase generate --force`"
    ))
}

/// Parses a stored move, `[3,10,12,3]`, on a board of `holes` holes.
fn parse_move(text: &str, holes: usize) -> Option<Vec<u8>> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    inner
        .split(',')
        .map(|h| h.trim().parse().ok().filter(|&h: &u8| (h as usize) < holes))
        .collect()
}

/// An open database.
pub struct Database {
    conn: Connection,
    path: PathBuf,
}

impl Database {
    pub fn open(path: &Path) -> Result<Database> {
        Ok(Database {
            conn: store::open_read(path)?,
            path: path.to_path_buf(),
        })
    }

    fn sql(&self) -> impl Fn(rusqlite::Error) -> QueryError + '_ {
        |source| {
            QueryError::Store(StoreError::Sqlite {
                path: self.path.display().to_string(),
                source,
            })
        }
    }

    pub fn puzzles(&self) -> Result<Vec<PuzzleInfo>> {
        store::puzzles(&self.conn).map_err(self.sql())
    }

    /// The puzzle's definition and its stored metadata, checked to belong together.
    pub fn puzzle(&self, name: &str) -> Result<(Puzzle, PuzzleInfo)> {
        let p = puzzles::find(name).ok_or_else(|| QueryError::UnknownPuzzle {
            name: name.to_string(),
            known: puzzles::names().join(", "),
        })?;
        let info = store::puzzle(&self.conn, name)
            .map_err(self.sql())?
            .ok_or_else(|| QueryError::NotGenerated(name.into()))?;
        if info.definition_hash != definition_hash(&p) {
            return Err(QueryError::Stale(name.to_string()));
        }
        Ok((p, info))
    }

    fn row(&self, puzzle: &str, rank: u64) -> Result<Option<PositionRow>> {
        store::position(&self.conn, puzzle, rank).map_err(self.sql())
    }

    /// Distance, solution count and an optimal path for the position written `text`.
    pub fn state(&self, name: &str, text: &str) -> Result<StateAnswer> {
        let (p, _) = self.puzzle(name)?;
        match &p {
            Puzzle::Graph(g) => {
                let rank = g.parse(text)?;
                self.walk(name, rank, text)
            }
            Puzzle::Peg(board) => {
                let bits = board.parse(text)?;
                self.walk_peg(board, bits)
            }
            _ => Err(self.not_applicable("--state", &p)),
        }
    }

    /// Like [`Database::state`] for the puzzle's own starting position.
    pub fn start(&self, name: &str) -> Result<StateAnswer> {
        let (p, _) = self.puzzle(name)?;
        let rank = match &p {
            Puzzle::Graph(g) => g.start(),
            Puzzle::Peg(board) => return self.walk_peg(board, board.start),
            _ => None,
        };
        let rank = rank.ok_or_else(|| self.not_applicable("--start", &p))?;
        self.walk(name, rank, "start")
    }

    fn not_applicable(&self, option: &str, p: &Puzzle) -> QueryError {
        QueryError::NotApplicable {
            option: option.into(),
            puzzle: p.name().into(),
            family: p.family().into(),
        }
    }

    /// Follows `next_rank` from `rank` to the goal.
    fn walk(&self, name: &str, rank: u64, text: &str) -> Result<StateAnswer> {
        let first = self.row(name, rank)?.ok_or_else(|| {
            QueryError::NotStored(format!(
                "{} in {name} cannot be solved: the goal is not reachable from it",
                text.trim()
            ))
        })?;
        let Some(distance) = first.distance else {
            return Err(QueryError::NotStored(format!(
                "{} in {name} cannot reach the goal",
                first.state
            )));
        };
        // Each step must be exactly one move closer, so a damaged file cannot loop.
        let mut path = vec![first.state.clone()];
        let mut row = first.clone();
        while let Some(r) = row.next_rank {
            let next = (self.row(name, r)?)
                .filter(|n| n.distance.map(|d| d + 1) == row.distance)
                .ok_or_else(|| inconsistent(name, &row.state))?;
            path.push(next.state.clone());
            row = next;
        }
        if row.distance != Some(0) {
            return Err(inconsistent(name, &row.state));
        }
        Ok(StateAnswer {
            puzzle: name.to_string(),
            state: first.state,
            distance,
            solutions: first.solutions,
            path,
            moves: None,
        })
    }

    /// Follows the stored optimal moves from `bits` to the finish. Rows are stored in
    /// canonical form, so each step canonicalises the position, reads its row, and maps
    /// the stored move back through the inverse symmetry into the user's orientation.
    fn walk_peg(&self, board: &Board, bits: u64) -> Result<StateAnswer> {
        let name = board.name;
        let text = board.format(bits);
        let finish = board.finish.trailing_zeros();
        let lookup =
            |bits: u64| -> Result<Option<PositionRow>> { self.row(name, board.canonical(bits).0) };
        let Some(first) = lookup(bits)? else {
            let why = if self.peg_stores_all(name)? {
                "it is not reachable from the start position".to_string()
            } else {
                format!(
                    "only positions that can still finish are stored for {name}, so it is either \
                     not reachable from the start or cannot finish with one peg in hole {finish}"
                )
            };
            return Err(QueryError::NotStored(format!(
                "{text} has no entry in {name}: {why}"
            )));
        };
        let Some(distance) = first.distance else {
            return Err(QueryError::NotStored(format!(
                "{text} is reachable in {name} but cannot finish with one peg in hole {finish}"
            )));
        };
        let inconsistent = |what: &str| inconsistent(name, what);
        let mut path = vec![text.clone()];
        let mut moves = Vec::new();
        let mut cur = bits;
        let mut row = first.clone();
        while row.distance != Some(0) {
            let (Some(mv_text), Some(next_rank)) = (&row.mv, row.next_rank) else {
                return Err(inconsistent(&row.state));
            };
            let (_, sym) = board.canonical(cur);
            let stored = parse_move(mv_text, board.holes).ok_or_else(|| inconsistent(mv_text))?;
            let mv = board.map_move(&stored, sym, true);
            cur = board
                .apply_move(cur, &mv)
                .ok_or_else(|| inconsistent(mv_text))?;
            if board.canonical(cur).0 != next_rank {
                return Err(inconsistent(&row.state));
            }
            path.push(board.format(cur));
            moves.push(mv);
            let closer = row.distance.map(|d| d - 1);
            row = (lookup(cur)?)
                .filter(|r| r.distance == closer)
                .ok_or_else(|| inconsistent(&board.format(cur)))?;
        }
        Ok(StateAnswer {
            puzzle: name.to_string(),
            state: text,
            distance,
            solutions: first.solutions,
            path,
            moves: Some(moves),
        })
    }

    /// Whether the file keeps every reachable position of this peg puzzle, rather than
    /// only those that can still finish: only then are there rows without a distance
    /// (one probe of the `(puzzle, distance)` index).
    fn peg_stores_all(&self, name: &str) -> Result<bool> {
        (self.conn)
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM positions WHERE puzzle = ?1 AND distance IS NULL)",
                [name],
                |r| r.get(0),
            )
            .map_err(self.sql())
    }

    /// Positions reachable from the start and able to finish, per number of pegs.
    pub fn layers(&self, name: &str) -> Result<Vec<store::PegLayerRow>> {
        let (p, _) = self.puzzle(name)?;
        let rows = store::peg_layers(&self.conn, name).map_err(self.sql())?;
        if rows.is_empty() {
            return Err(self.not_applicable("--layers", &p));
        }
        Ok(rows)
    }

    /// The start x finish matrix of a peg board.
    pub fn matrix(&self, name: &str) -> Result<Vec<Vec<Option<u8>>>> {
        let (p, _) = self.puzzle(name)?;
        let m = store::peg_matrix(&self.conn, name).map_err(self.sql())?;
        if m.is_empty() {
            return Err(self.not_applicable("--matrix", &p));
        }
        Ok(m)
    }

    pub fn longest(&self, name: &str) -> Result<LongestAnswer> {
        let (p, _) = self.puzzle(name)?;
        let (max, rows) = store::longest(&self.conn, name).map_err(self.sql())?;
        let distance = max.ok_or_else(|| self.not_applicable("--longest", &p))?;
        Ok(LongestAnswer {
            puzzle: name.to_string(),
            distance,
            states: rows.into_iter().map(|r| r.state).collect(),
        })
    }

    pub fn histogram(&self, name: &str) -> Result<Histogram> {
        let (p, _) = self.puzzle(name)?;
        if let Puzzle::Magic = p {
            return Ok(Histogram::ByValue(
                store::solutions_by_value(&self.conn, name).map_err(self.sql())?,
            ));
        }
        let rows = store::histogram(&self.conn, name).map_err(self.sql())?;
        if rows.is_empty() {
            return Err(self.not_applicable("--histogram", &p));
        }
        Ok(Histogram::ByDistance(rows))
    }

    /// Every solution of an enumeration puzzle, one per equivalence class.
    pub fn all(&self, name: &str) -> Result<ListAnswer> {
        let (p, _) = self.puzzle(name)?;
        if !matches!(p, Puzzle::Magic | Puzzle::Tour(_)) {
            return Err(self.not_applicable("--all", &p));
        }
        self.solutions(name, None)
    }

    /// The canonical magic triangles with side sum `sum`.
    pub fn sum(&self, name: &str, sum: i64) -> Result<ListAnswer> {
        let (p, _) = self.puzzle(name)?;
        if !matches!(p, Puzzle::Magic) {
            return Err(self.not_applicable("--sum", &p));
        }
        self.solutions(name, Some(sum))
    }

    fn solutions(&self, name: &str, value: Option<i64>) -> Result<ListAnswer> {
        let rows = store::solutions(&self.conn, name, true, value).map_err(self.sql())?;
        Ok(ListAnswer {
            puzzle: name.to_string(),
            states: rows.into_iter().map(|r| r.state).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::parse_move;

    #[test]
    fn stored_moves_must_name_holes_of_the_board() {
        assert_eq!(parse_move("[3,10,12,3]", 15), Some(vec![3, 10, 12, 3]));
        assert_eq!(parse_move("[3,10,15]", 15), None);
        assert_eq!(parse_move("[3,x]", 15), None);
        assert_eq!(parse_move("3,10", 15), None);
    }
}
