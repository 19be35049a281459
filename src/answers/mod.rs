//! Answers from a generated file: parse the user's position, turn it into a rank, and
//! read stored rows. Every lookup is an indexed read; the one exception is `fifteen`,
//! whose positions are solved by search over its stored pattern databases ([`fifteen`]).

mod fifteen;
pub mod json;
mod moves;
mod packed;
mod resident;
mod tables;
pub use fifteen::{LoadedTables, SearchAnswer, answers_by_search, solve_loaded};
pub use moves::cells_move;
pub use resident::Resident;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::Connection;
use thiserror::Error;

use crate::catalog::{self, LookupError, identity};
use crate::core::format;
use crate::core::packed::{CountLayout, RunLayout};
use crate::core::space::{GraphPuzzle, StateError};
use crate::families::Puzzle;
use crate::solvers::peg::Board;
use crate::store::{self, HistogramRow, PositionRow, PuzzleInfo, Storage, StoreError};
use packed::PackedReader;

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
    /// What the file says contradicts the puzzle's rules or the file itself.
    #[error("inconsistent file {path}: {what}: run `puzzlebase verify`")]
    Inconsistent { path: String, what: String },
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

/// The puzzle `name` as this file holds it: built in, or a user's puzzle rebuilt from
/// the definition stored with it (the one rule: [`catalog::lookup`]).
pub fn known(conn: &Connection, name: &str) -> Result<Puzzle> {
    let stored = if catalog::definitions_builtin(name) {
        None
    } else {
        store::puzzle(conn, name).ok().flatten()
    };
    catalog::lookup(name, stored.as_ref().map(|i| i.definition.as_str())).map_err(|e| match e {
        LookupError::Unknown => QueryError::UnknownPuzzle {
            name: name.to_string(),
            known: catalog::names().join(", "),
        },
        LookupError::BadDefinition(e) => QueryError::NotStored(format!(
            "the stored definition of {name} cannot be used: {e}"
        )),
    })
}

/// An open database.
pub struct Database {
    conn: Connection,
    path: PathBuf,
    /// Metadata already checked against this build's definitions, by puzzle. The
    /// connection is read-only and `generate` replaces files rather than rewriting them,
    /// so a check holds for the connection's life; a server answering many lookups on
    /// one connection then hashes each definition once.
    checked: RefCell<HashMap<String, PuzzleInfo>>,
    /// Puzzles already built, by name (see [`Database::known`]).
    puzzles: RefCell<HashMap<String, Arc<Puzzle>>>,
    /// Tables kept in memory for this reader and others over the same file (the
    /// server's), read instead of the file where present ([`resident`]).
    resident: Option<Arc<Resident>>,
}

impl Database {
    pub fn open(path: &Path) -> Result<Database> {
        Ok(Database {
            conn: store::open_read(path)?,
            path: path.to_path_buf(),
            checked: RefCell::new(HashMap::new()),
            puzzles: RefCell::new(HashMap::new()),
            resident: None,
        })
    }

    fn sql(&self) -> impl Fn(rusqlite::Error) -> QueryError + '_ {
        |source| match source {
            // A stored value of the wrong type or out of its column's range is damage,
            // not a failure to read.
            rusqlite::Error::FromSqlConversionFailure(..)
            | rusqlite::Error::IntegralValueOutOfRange(..)
            | rusqlite::Error::InvalidColumnType(..) => {
                self.inconsistent(format!("a stored value is out of range ({source})"))
            }
            source => QueryError::Store(StoreError::Sqlite {
                path: self.path.display().to_string(),
                source,
            }),
        }
    }

    /// The answer about to be served contradicts the rules or the file: refuse it.
    /// The answer for a position the file does not hold: it cannot be solved, unless a
    /// neighbour is stored as solvable (`solvable`), which the file cannot both say, and
    /// which is reported as inconsistent (`contradiction` names the neighbour's case).
    fn unsolvable(
        &self,
        g: &dyn GraphPuzzle,
        rank: u64,
        text: &str,
        mut solvable: impl FnMut(u64) -> Result<bool>,
        contradiction: impl Fn(u64) -> String,
    ) -> QueryError {
        // An unsolvable position has only unsolvable neighbours.
        let mut nbs = Vec::new();
        g.neighbors(rank, &mut nbs);
        for nb in nbs {
            match solvable(nb) {
                Ok(false) => {}
                Ok(true) => return self.inconsistent(contradiction(nb)),
                Err(e) => return e,
            }
        }
        QueryError::NotStored(format!(
            "{} in {} cannot be solved: the goal is not reachable from it",
            text.trim(),
            g.name()
        ))
    }

    fn inconsistent(&self, what: impl Into<String>) -> QueryError {
        QueryError::Inconsistent {
            path: self.path.display().to_string(),
            what: what.into(),
        }
    }

    pub fn puzzles(&self) -> Result<Vec<PuzzleInfo>> {
        store::puzzles(&self.conn).map_err(self.sql())
    }

    /// The puzzle's definition and its stored metadata, checked to belong together.
    pub fn puzzle(&self, name: &str) -> Result<(Arc<Puzzle>, PuzzleInfo)> {
        let p = self.known(name)?;
        let info = self.info(&p)?;
        Ok((p, info))
    }

    /// [`known`], built once per connection: building a puzzle parses its definition
    /// (some 10 µs), which an answer would otherwise do several times. The connection
    /// is read-only and files are replaced rather than rewritten, so what the file says
    /// of a puzzle holds for the connection's life, as for `checked`.
    fn known(&self, name: &str) -> Result<Arc<Puzzle>> {
        if let Some(p) = self.puzzles.borrow().get(name) {
            return Ok(p.clone());
        }
        let p = Arc::new(known(&self.conn, name)?);
        (self.puzzles.borrow_mut()).insert(name.to_string(), p.clone());
        Ok(p)
    }

    /// The stored metadata of a known puzzle, checked to come from its definition.
    fn info(&self, p: &Puzzle) -> Result<PuzzleInfo> {
        let name = p.name();
        if let Some(info) = self.checked.borrow().get(name) {
            return Ok(info.clone());
        }
        let info = store::puzzle(&self.conn, name)
            .map_err(self.sql())?
            .ok_or_else(|| QueryError::NotGenerated(name.into()))?;
        if !identity::is_current(p, &info) {
            return Err(QueryError::Stale(name.to_string()));
        }
        (self.checked.borrow_mut()).insert(name.to_string(), info.clone());
        Ok(info)
    }

    fn row(&self, puzzle: &str, rank: u64) -> Result<Option<PositionRow>> {
        store::position(&self.conn, puzzle, rank).map_err(self.sql())
    }

    /// Distance, solution count and an optimal path for the position written `text`.
    /// The text is checked before the file, so a malformed position is reported as such
    /// even for a puzzle that has not been generated.
    pub fn state(&self, name: &str, text: &str) -> Result<StateAnswer> {
        let p = self.known(name)?;
        let p = &*p;
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
        let p = &*p;
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
            _ => self.walk(g, info, rank, text),
        }
    }

    /// Reads distances from the packed table and steps, from `rank`, to the
    /// smallest-ranked neighbour one move closer until the goal: the same path the
    /// positions table's `next_rank` gives for the smaller puzzles. Every neighbour on
    /// the way is read anyway, so each step also checks that none is more than one move
    /// closer or farther, and the count against the sum of the closer neighbours' counts.
    fn walk_packed(&self, g: &dyn GraphPuzzle, rank: u64, text: &str) -> Result<StateAnswer> {
        let name = g.name();
        let tables = PackedReader::open(self, g)?;
        let state = g.format(rank);
        let mut nbs = Vec::new();
        let Some(distance) = tables.distance(rank)? else {
            return Err(self.unsolvable(
                g,
                rank,
                text,
                |nb| Ok(tables.distance(nb)?.is_some()),
                |nb| {
                    format!(
                        "{name}: {state} is stored as unsolvable but its neighbour {} is solvable",
                        g.format(nb)
                    )
                },
            ));
        };
        let solutions = tables.solutions(rank)?;
        let mut path = vec![state.clone()];
        let (mut cur, mut d) = (rank, distance);
        while d > 0 {
            nbs.clear();
            g.neighbors(cur, &mut nbs);
            let mut next = None;
            let mut sum = Some(0u64);
            for &nb in &nbs {
                let nd = tables.distance(nb)?;
                if nd.is_none_or(|nd| nd + 1 < d || nd > d + 1) {
                    return Err(self.inconsistent(format!(
                        "{name}: {} at distance {d} has a neighbour {} at distance {}",
                        g.format(cur),
                        g.format(nb),
                        nd.map_or("none".to_string(), |n| n.to_string())
                    )));
                }
                if nd == Some(d - 1) {
                    next = Some(next.map_or(nb, |n: u64| n.min(nb)));
                    if cur == rank && solutions != Solutions::NotStored {
                        sum = add_counts(sum, tables.solutions(nb)?);
                    }
                }
            }
            if cur == rank {
                self.check_count(name, &state, solutions, sum)?;
            }
            cur = next.ok_or_else(|| {
                self.inconsistent(format!(
                    "{name}: {} at distance {d} has no neighbour one move closer",
                    g.format(cur)
                ))
            })?;
            d -= 1;
            path.push(g.format(cur));
        }
        if !g.goals().contains(&cur) {
            return Err(self.inconsistent(format!(
                "{name}: {} is stored at distance 0 but is not the goal",
                g.format(cur)
            )));
        }
        Ok(StateAnswer {
            puzzle: name.to_string(),
            state,
            distance,
            solutions,
            path,
            moves: None,
        })
    }

    /// A stored solution count must be the sum over the optimal successors' counts
    /// (`None` in `sum`: the sum overflows, which only the overflow marker may say).
    fn check_count(
        &self,
        name: &str,
        state: &str,
        stored: Solutions,
        sum: Option<u64>,
    ) -> Result<()> {
        let expected = match sum {
            _ if stored == Solutions::NotStored => return Ok(()),
            Some(n) if n <= i64::MAX as u64 => Solutions::Exactly(n),
            _ => Solutions::Overflow,
        };
        if stored != expected {
            return Err(self.inconsistent(format!(
                "{name}: the solution count of {state} is {stored:?} but its optimal moves \
                 lead to {expected:?}"
            )));
        }
        Ok(())
    }

    fn not_applicable(&self, option: &str, p: &Puzzle) -> QueryError {
        QueryError::NotApplicable {
            option: option.into(),
            puzzle: p.name().into(),
            family: p.family().into(),
        }
    }

    /// A stored row whose `state` text is not the position of its rank.
    fn check_state_text(&self, name: &str, row: &PositionRow, parsed: Option<u64>) -> Result<()> {
        if parsed != Some(row.rank) {
            return Err(self.inconsistent(format!(
                "{name}: the state text {:?} of rank {} is not that position",
                row.state, row.rank
            )));
        }
        Ok(())
    }

    /// Follows `next_rank` from `rank` to the goal. Each step reads every neighbour's
    /// row: `next_rank` must be the smallest-ranked neighbour one move closer, no
    /// neighbour may be more than one move closer or farther, every served state text
    /// must parse back to its rank, and the first count must be the sum of the counts of
    /// the neighbours one move closer.
    fn walk(
        &self,
        g: &dyn GraphPuzzle,
        info: &PuzzleInfo,
        rank: u64,
        text: &str,
    ) -> Result<StateAnswer> {
        let name = g.name();
        let rows = self.rows(name);
        let mut nbs = Vec::new();
        let Some(first) = rows.get(rank)? else {
            // Only solvable positions are rows.
            return Err(self.unsolvable(
                g,
                rank,
                text,
                |nb| Ok(rows.facts(nb)?.is_some()),
                |nb| {
                    format!(
                        "{name}: {} has no row but its neighbour of rank {nb} has one",
                        g.format(rank)
                    )
                },
            ));
        };
        self.check_state_text(name, &first, g.parse(&first.state).ok())?;
        let Some(distance) = first.distance else {
            return Err(QueryError::NotStored(format!(
                "{} in {name} cannot reach the goal",
                first.state
            )));
        };
        let solutions = if info.counts {
            Solutions::from_stored(first.solutions)
        } else {
            Solutions::NotStored
        };
        let mut path = vec![first.state.clone()];
        let mut row = first.clone();
        let mut d = distance;
        while d > 0 {
            nbs.clear();
            g.neighbors(row.rank, &mut nbs);
            let mut closer: Option<u64> = None;
            let mut sum = Some(0u64);
            for &nb in &nbs {
                let n = rows.facts(nb)?;
                let nd = n.and_then(|n| n.distance);
                if nd.is_none_or(|nd| nd + 1 < d || nd > d + 1) {
                    return Err(self.inconsistent(format!(
                        "{name}: {} at distance {d} has a neighbour of rank {nb} at distance {}",
                        row.state,
                        nd.map_or("none".to_string(), |n| n.to_string())
                    )));
                }
                let n = n.expect("checked above");
                if nd == Some(d - 1) {
                    if row.rank == rank {
                        sum = add_counts(sum, Solutions::from_stored(n.solutions));
                    }
                    if closer.is_none_or(|c| nb < c) {
                        closer = Some(nb);
                    }
                }
            }
            if row.rank == rank {
                self.check_count(name, &first.state, solutions, sum)?;
            }
            let next = closer
                .filter(|&c| Some(c) == row.next_rank)
                .map(|c| rows.get(c))
                .transpose()?
                .flatten()
                .ok_or_else(|| {
                    self.inconsistent(format!(
                        "{name}: the next position stored for {} (rank {:?}) is not its \
                         smallest-ranked neighbour one move closer",
                        row.state, row.next_rank
                    ))
                })?;
            self.check_state_text(name, &next, g.parse(&next.state).ok())?;
            path.push(next.state.clone());
            row = next;
            d -= 1;
        }
        if !g.goals().contains(&row.rank) || row.next_rank.is_some() {
            return Err(self.inconsistent(format!(
                "{name}: {} is stored at distance 0 but is not the goal",
                row.state
            )));
        }
        Ok(StateAnswer {
            puzzle: name.to_string(),
            state: first.state,
            distance,
            solutions,
            path,
            moves: None,
        })
    }

    /// Follows the stored optimal moves from `bits` to the finish. Rows are stored in
    /// canonical form, so each step canonicalises the position, reads its row, and maps
    /// the stored move back through the inverse symmetry into the user's orientation.
    /// Every stored move must be legal and lead to the stored next position one move
    /// closer; the first position's moves are all read, so that none leads more than one
    /// move closer and the count is the sum over the optimal ones.
    fn walk_peg(&self, board: &Board, bits: u64) -> Result<StateAnswer> {
        let name = board.name;
        let text = board.format(bits);
        let finish = board.finish.trailing_zeros();
        let lookup = |bits: u64| -> Result<Option<PositionRow>> {
            let rank = board.canonical(bits).0;
            let row = self.row(name, rank)?;
            if let Some(r) = &row {
                let parsed = board.parse(&r.state).ok().map(|b| board.canonical(b).0);
                self.check_state_text(name, r, parsed)?;
            }
            Ok(row)
        };
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
        let bad = |what: String| self.inconsistent(format!("{name}: {what}"));
        if distance > 0 {
            let mut sum = Some(0u64);
            let mut moves = Vec::new();
            board.for_each_move(bits, |_, after| moves.push(after));
            for after in moves {
                let Some(d) = lookup(after)?.map(|r| (r.distance, r.solutions)) else {
                    continue;
                };
                match d.0 {
                    Some(nd) if nd + 1 < distance => {
                        return Err(bad(format!(
                            "{text} at distance {distance} has a move to {} at distance {nd}",
                            board.format(after)
                        )));
                    }
                    Some(nd) if nd + 1 == distance => {
                        sum = add_counts(sum, Solutions::from_stored(d.1));
                    }
                    _ => {}
                }
            }
            self.check_count(name, &text, Solutions::from_stored(first.solutions), sum)?;
        }
        let mut path = vec![text.clone()];
        let mut moves = Vec::new();
        let mut cur = bits;
        let mut row = first.clone();
        while row.distance != Some(0) {
            let (Some(mv_text), Some(next_rank)) = (&row.mv, row.next_rank) else {
                return Err(bad(format!("{} has no stored move", row.state)));
            };
            let (_, sym) = board.canonical(cur);
            let illegal = || {
                bad(format!(
                    "the move {mv_text} stored for {} is illegal",
                    row.state
                ))
            };
            let stored = board.parse_move(mv_text).ok_or_else(illegal)?;
            let mv = board.map_move(&stored, sym, true);
            cur = board.apply_move(cur, &mv).ok_or_else(illegal)?;
            if board.canonical(cur).0 != next_rank {
                return Err(bad(format!(
                    "the move {mv_text} stored for {} does not lead to its stored next position",
                    row.state
                )));
            }
            path.push(board.format(cur));
            moves.push(mv);
            let closer = row.distance.map(|d| d - 1);
            row = (lookup(cur)?)
                .filter(|r| r.distance == closer)
                .ok_or_else(|| {
                    bad(format!(
                        "{} is not one move closer than the position before it",
                        board.format(cur)
                    ))
                })?;
        }
        if cur != board.finish {
            return Err(bad(format!(
                "{} is stored at distance 0 but is not the finish",
                board.format(cur)
            )));
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
    /// only those that can still finish: only then are there rows without a distance.
    fn peg_stores_all(&self, name: &str) -> Result<bool> {
        store::connection::has_positions_without_distance(&self.conn, name).map_err(self.sql())
    }
}

/// One legal move from a position: the move in the puzzle's own terms, where it leads,
/// and that position's distance (`None`: the goal cannot be reached from it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveOption {
    pub mv: Move,
    pub state: String,
    pub distance: Option<u8>,
}

/// A move as its family writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Move {
    /// Move puzzles: the cells the moving pieces leave and the cells they land on, in
    /// cell order (a sliding tile: one each; an oshidori pair: two each).
    Cells { from: Vec<usize>, to: Vec<usize> },
    /// Peg boards: a chain of jumps by one peg, `[from, to1, to2, ...]`.
    Jumps(Vec<u8>),
}

/// What an enumeration puzzle says about one arrangement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArrangementAnswer {
    /// The magic triangle: the three side sums and, when they agree, whether the file
    /// holds the arrangement and its class representative.
    Magic {
        state: String,
        sums: Vec<i64>,
        solution: bool,
        canonical: Option<String>,
    },
    /// A closed knight's tour (parsing checks it), rotated to start at square 0, and
    /// whether the file holds it.
    Tour {
        state: String,
        canonical: bool,
        stored: bool,
    },
}

impl Database {
    /// Opens `path` like [`Database::open`] for a long-lived reader answering many
    /// lookups (the server): the file is memory-mapped, so page reads are memory reads
    /// rather than a system call each.
    pub fn open_for_serving(path: &Path) -> Result<Database> {
        let db = Database::open(path)?;
        // 1 GiB of address space is enough for every table but eleven's 124 MB share and
        // more; SQLite maps no more than the file's size.
        store::connection::memory_map(&db.conn, 1 << 30).map_err(db.sql())?;
        store::connection::page_cache(&db.conn, 16384).map_err(db.sql())?;
        Ok(db)
    }

    /// Runs `f` inside one read transaction: every lookup of an answer sees the same
    /// snapshot, and SQLite takes its file lock once instead of once per statement
    /// (most of the cost of a lookup made of dozens of indexed reads).
    pub fn snapshot<T>(&self, f: impl FnOnce(&Database) -> Result<T>) -> Result<T> {
        store::connection::begin_read(&self.conn).map_err(self.sql())?;
        let out = f(self);
        store::connection::end_read(&self.conn);
        out
    }
}

/// Adds a successor's count to a running sum; `None` once the sum can no longer be
/// represented (it will then only match the overflow marker).
fn add_counts(sum: Option<u64>, count: Solutions) -> Option<u64> {
    match count {
        Solutions::Exactly(n) => format::add_known_counts(sum, Some(n)),
        Solutions::Overflow => None,
        Solutions::NotStored => sum,
    }
}

/// A packed puzzle's distance layout (checked to be the shape its definition gives) and
/// solution count layout, as stored in `packed_tables`.
fn packed_layouts(db: &Database, g: &dyn GraphPuzzle) -> Result<(RunLayout, Option<CountLayout>)> {
    let name = g.name();
    let bad = |what: &str| db.inconsistent(format!("{name}: {what}"));
    let layout = |kind: &str| -> Result<Option<serde_json::Value>> {
        let Some((text, _)) = store::packed_table(&db.conn, name, kind).map_err(db.sql())? else {
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
        Some(v) => {
            Some(CountLayout::from_description(&v).map_err(|_| bad("its packed solution counts"))?)
        }
    };
    Ok((distance, counts))
}
