//! Answers from a generated file: parse the user's position, turn it into a rank, and
//! read stored rows. Every lookup is an indexed read; the one exception is `fifteen`,
//! whose positions are solved by search over its stored pattern databases ([`fifteen`]).

mod fifteen;
pub use fifteen::{LoadedTables, SearchAnswer, answers_by_search, solve_loaded};

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use thiserror::Error;

use crate::generate::definition_hash;
use crate::packed::{CountLayout, RunLayout};
use crate::peg::Board;
use crate::puzzles::{self, Puzzle};
use crate::space::{GraphPuzzle, StateError};
use crate::store::{self, HistogramRow, PositionRow, PuzzleInfo, Storage, StoreError};

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
    #[error(
        "{option} needs a table of every position, and {puzzle} has none: its positions are answered by search over pattern databases (use --state)"
    )]
    NoFullTable { option: String, puzzle: String },
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
                | QueryError::NoFullTable { .. }
                | QueryError::State(StateError::Malformed { .. })
        )
    }
}

pub type Result<T, E = QueryError> = std::result::Result<T, E>;

/// How many distinct shortest solutions a position has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Solutions {
    Exactly(u64),
    /// More than 2^63 - 1.
    Overflow,
    /// The file keeps no counts for this puzzle (packed spaces above 10^8 states).
    NotStored,
}

impl Solutions {
    fn from_stored(count: Option<u64>) -> Solutions {
        count.map_or(Solutions::Overflow, Solutions::Exactly)
    }
}

/// A distance lookup with one optimal path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateAnswer {
    pub puzzle: String,
    pub state: String,
    pub distance: u8,
    pub solutions: Solutions,
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

/// The definition of a puzzle this build knows.
fn known(name: &str) -> Result<Puzzle> {
    puzzles::find(name).ok_or_else(|| QueryError::UnknownPuzzle {
        name: name.to_string(),
        known: puzzles::names().join(", "),
    })
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
        let p = known(name)?;
        let info = self.info(&p)?;
        Ok((p, info))
    }

    /// The stored metadata of a known puzzle, checked to come from its definition.
    fn info(&self, p: &Puzzle) -> Result<PuzzleInfo> {
        let name = p.name();
        let info = store::puzzle(&self.conn, name)
            .map_err(self.sql())?
            .ok_or_else(|| QueryError::NotGenerated(name.into()))?;
        let current = match p {
            // Which partitions were built is part of fifteen's definition: any that this
            // build knows is current.
            Puzzle::Patterns(_) => puzzles::fifteen::Fifteen::from_definition(&info.definition)
                .is_some_and(|f| definition_hash(&Puzzle::Patterns(f)) == info.definition_hash),
            _ => info.definition_hash == definition_hash(p),
        };
        if !current {
            return Err(QueryError::Stale(name.to_string()));
        }
        Ok(info)
    }

    fn row(&self, puzzle: &str, rank: u64) -> Result<Option<PositionRow>> {
        store::position(&self.conn, puzzle, rank).map_err(self.sql())
    }

    /// Distance, solution count and an optimal path for the position written `text`.
    /// The text is checked before the file, so a malformed position is reported as such
    /// even for a puzzle that has not been generated.
    pub fn state(&self, name: &str, text: &str) -> Result<StateAnswer> {
        let p = known(name)?;
        match &p {
            Puzzle::Graph(g) => {
                let rank = g.parse(text)?;
                self.walk_graph(g.as_ref(), &self.info(&p)?, rank, text)
            }
            Puzzle::Peg(board) => {
                let bits = board.parse(text)?;
                self.info(&p)?;
                self.walk_peg(board, bits)
            }
            Puzzle::Patterns(_) => {
                let a = self.search(name, text)?;
                Ok(StateAnswer {
                    puzzle: a.puzzle,
                    state: a.state,
                    distance: a.distance as u8,
                    solutions: Solutions::NotStored,
                    path: a.path,
                    moves: None,
                })
            }
            _ => {
                self.info(&p)?;
                Err(self.not_applicable("--state", &p))
            }
        }
    }

    /// Like [`Database::state`] for the puzzle's own starting position.
    pub fn start(&self, name: &str) -> Result<StateAnswer> {
        let (p, info) = self.puzzle(name)?;
        match &p {
            Puzzle::Graph(g) => {
                let rank = g
                    .start()
                    .ok_or_else(|| self.not_applicable("--start", &p))?;
                self.walk_graph(g.as_ref(), &info, rank, "start")
            }
            Puzzle::Peg(board) => self.walk_peg(board, board.start),
            _ => Err(self.not_applicable("--start", &p)),
        }
    }

    /// An optimal path from `rank` of a move puzzle, from wherever it is stored.
    fn walk_graph(
        &self,
        g: &dyn GraphPuzzle,
        info: &PuzzleInfo,
        rank: u64,
        text: &str,
    ) -> Result<StateAnswer> {
        match info.storage {
            Storage::Packed => self.walk_packed(g, rank, text),
            _ => self.walk(g.name(), rank, text),
        }
    }

    /// Reads distances from the packed table and steps, from `rank`, to the
    /// smallest-ranked neighbour one move closer until the goal: the same path the
    /// positions table's `next_rank` gives for the smaller puzzles.
    fn walk_packed(&self, g: &dyn GraphPuzzle, rank: u64, text: &str) -> Result<StateAnswer> {
        let name = g.name();
        let tables = PackedReader::open(self, g)?;
        let state = g.format(rank);
        let Some(distance) = tables.distance(rank)? else {
            return Err(QueryError::NotStored(format!(
                "{} in {name} cannot be solved: the goal is not reachable from it",
                text.trim()
            )));
        };
        let mut path = vec![state.clone()];
        let (mut cur, mut d) = (rank, distance);
        let mut nbs = Vec::new();
        while d > 0 {
            nbs.clear();
            g.neighbors(cur, &mut nbs);
            let mut next = None;
            for &nb in &nbs {
                if tables.distance(nb)? == Some(d - 1) && next.is_none_or(|n| nb < n) {
                    next = Some(nb);
                }
            }
            cur = next.ok_or_else(|| inconsistent(name, &g.format(cur)))?;
            d -= 1;
            path.push(g.format(cur));
        }
        if !g.goals().contains(&cur) {
            return Err(inconsistent(name, &g.format(cur)));
        }
        Ok(StateAnswer {
            puzzle: name.to_string(),
            state,
            distance,
            solutions: tables.solutions(rank)?,
            path,
            moves: None,
        })
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
            solutions: Solutions::from_stored(first.solutions),
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
            solutions: Solutions::from_stored(first.solutions),
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

    /// Refuses options that need a full table for a puzzle answered by search.
    fn full_table(&self, option: &str, name: &str) -> Result<()> {
        match known(name)? {
            Puzzle::Patterns(_) => Err(QueryError::NoFullTable {
                option: option.into(),
                puzzle: name.into(),
            }),
            _ => Ok(()),
        }
    }

    pub fn longest(&self, name: &str) -> Result<LongestAnswer> {
        self.full_table("--longest", name)?;
        let (p, info) = self.puzzle(name)?;
        if info.storage == Storage::Packed {
            let rows = store::farthest(&self.conn, name).map_err(self.sql())?;
            let distance = (rows.first().map(|r| r.distance))
                .filter(|&d| Some(d) == info.max_distance)
                .ok_or_else(|| inconsistent(name, "its farthest positions"))?;
            return Ok(LongestAnswer {
                puzzle: name.to_string(),
                distance,
                states: rows.into_iter().map(|r| r.state).collect(),
            });
        }
        let (max, rows) = store::longest(&self.conn, name).map_err(self.sql())?;
        let distance = max.ok_or_else(|| self.not_applicable("--longest", &p))?;
        Ok(LongestAnswer {
            puzzle: name.to_string(),
            distance,
            states: rows.into_iter().map(|r| r.state).collect(),
        })
    }

    pub fn histogram(&self, name: &str) -> Result<Histogram> {
        self.full_table("--histogram", name)?;
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

/// The packed tables of one puzzle, read chunk by chunk as lookups need them. A path
/// visits a few dozen chunks, so each is read once and kept for the rest of the query.
struct PackedReader<'a> {
    db: &'a Database,
    name: &'a str,
    distance: RunLayout,
    counts: Option<CountLayout>,
    chunks: RefCell<HashMap<(&'static str, u64), Vec<u8>>>,
}

impl<'a> PackedReader<'a> {
    fn open(db: &'a Database, g: &'a dyn GraphPuzzle) -> Result<PackedReader<'a>> {
        let name = g.name();
        let bad = |what: &str| inconsistent(name, what);
        let layout = |kind: &str| -> Result<Option<serde_json::Value>> {
            let Some((text, _)) = store::packed_table(&db.conn, name, kind).map_err(db.sql())?
            else {
                return Ok(None);
            };
            serde_json::from_str(&text)
                .map(Some)
                .map_err(|_| bad("its packed layout"))
        };
        let distance = layout("distance")?
            .and_then(|v| RunLayout::from_description(&v).ok())
            .filter(|l| g.packing().is_some_and(|want| want.same_shape(l)))
            .ok_or_else(|| bad("its packed distance table"))?;
        let counts = match layout("solutions")? {
            None => None,
            Some(v) => Some(
                CountLayout::from_description(&v).map_err(|_| bad("its packed solution counts"))?,
            ),
        };
        Ok(PackedReader {
            db,
            name,
            distance,
            counts,
            chunks: RefCell::new(HashMap::new()),
        })
    }

    /// Runs `read` on the blob of chunk `chunk` of table `kind`, reading it if needed.
    fn with_chunk<T>(
        &self,
        kind: &'static str,
        chunk: u64,
        read: impl FnOnce(&[u8]) -> Option<T>,
    ) -> Result<T> {
        let mut chunks = self.chunks.borrow_mut();
        let blob = match chunks.entry((kind, chunk)) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(
                store::packed_chunk(&self.db.conn, self.name, kind, chunk)
                    .map_err(self.db.sql())?
                    .ok_or_else(|| inconsistent(self.name, &format!("{kind} chunk {chunk}")))?,
            ),
        };
        read(blob).ok_or_else(|| inconsistent(self.name, &format!("{kind} chunk {chunk}")))
    }

    fn distance(&self, rank: u64) -> Result<Option<u8>> {
        let chunk = self.distance.locate(rank).chunk;
        self.with_chunk("distance", chunk, |b| self.distance.distance(b, rank).ok())
    }

    fn solutions(&self, rank: u64) -> Result<Solutions> {
        let Some(l) = &self.counts else {
            return Ok(Solutions::NotStored);
        };
        let count =
            self.with_chunk("solutions", l.locate(rank).chunk, |b| l.count(b, rank).ok())?;
        Ok(Solutions::from_stored(count))
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
