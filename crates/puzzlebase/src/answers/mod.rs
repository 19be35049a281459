//! Answers from a generated file: parse the user's position, turn it into a rank, and
//! read stored rows. Every lookup is an indexed read; the one exception is `fifteen`,
//! whose positions are solved by search over its stored pattern databases (module `fifteen`).
//! An answer checks what it reads against the puzzle's rules and the file's other
//! tables as far as that reading allows (each file says what it checks), and a
//! contradiction is refused as [`QueryError::Inconsistent`] rather than served.
//!
//! This file holds what every answer shares: the errors, the answer types, and
//! [`Database`] (opening a file, and a puzzle's definition and stored metadata, checked
//! to belong together). The answers are in `walk` (a position's distance and path),
//! `tables` (whole-puzzle tables and lists), `moves` (legal moves and arrangements),
//! `random` (positions drawn at random, `--random` and `--scramble`) and
//! `export` (every stored position, for CSV, JSON Lines and Parquet); `packed` reads packed tables, `resident` keeps tables in memory for the server, and
//! `fifteen` searches. Which of them a puzzle's question reaches is decided in one place,
//! `kind`: each kind of puzzle implements every question there, answered or refused.
//! All SQL is in [`crate::store`].

mod digested;
pub mod export;
mod fifteen;
pub mod json;
mod kind;
mod layers;
mod moves;
mod packed;
mod question;
mod random;
mod reading;
mod resident;
mod tables;
mod trust;
mod walk;
pub use crate::solvers::search::{Stop, Stopped};
pub use export::RowWriter;
pub use export::formats::Format as ExportFormat;
pub use export::{ExportKind, ExportPlan, ExportRow};
pub use fifteen::{LoadedTables, SearchAnswer, solvable_within, solve_loaded, solve_loaded_until};
pub use moves::{cell_tokens, cells_move};
pub use question::Question;
pub use random::fresh_seed;
pub use reading::{SEARCH_SECONDS, default_stop, one_line};
pub use resident::Resident;
pub use trust::Trust;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use thiserror::Error;

use crate::catalog::{self, LookupError, UnknownPuzzle, identity};
use crate::core::packed::{ChunkLayout, CountLayout, DistanceLayout};
use crate::core::space::{GraphPuzzle, StateError};
use crate::families::Puzzle;
use crate::store::{
    self, ChunkReader, HistogramRow, PositionRow, PuzzleInfo, Reader, SqlError, StoreError,
};

/// Why a question about a file got no answer. Each is one line for a user; none is a
/// wrong answer withheld silently.
#[derive(Debug, Error)]
#[warn(missing_docs)]
#[non_exhaustive]
pub enum QueryError {
    /// No puzzle of that name, built in or stored in the file.
    #[error(transparent)]
    UnknownPuzzle(#[from] UnknownPuzzle),
    /// The puzzle is known but the file holds no tables of it.
    #[error("puzzle {0} is not in the database")]
    NotGenerated(String),
    /// The stored tables were built from another definition than this build's.
    #[error("the stored table of {0} was built from a different definition")]
    Stale(String),
    /// The position's text is not a position of the puzzle (length, pieces, parity).
    #[error(transparent)]
    State(#[from] StateError),
    /// A legal position with no distance: it cannot reach the goal (or, on a peg
    /// board, the finish). The readers for other tools answer it as SQL `NULL` / `None`.
    #[error("{0}")]
    Unreachable(String),
    /// An answer the file cannot give: a search's tables that changed while read, a
    /// stored definition this build cannot use, an export that could not be written.
    #[error("{0}")]
    NotStored(String),
    /// The tables of the partition asked for are not in the file.
    #[error("the tables of partition {partition} of {puzzle} are not in the file (built: {})", built.join(", "))]
    NoPartition {
        /// The puzzle.
        puzzle: String,
        /// The partition asked for.
        partition: String,
        /// The partitions whose tables the file holds.
        built: Vec<String>,
    },
    /// A search's tables contradict the search: the file is not what `generate` wrote.
    #[error("the database is inconsistent: {puzzle} at {at}")]
    Contradicted {
        /// The puzzle.
        puzzle: String,
        /// The position or table where the contradiction showed.
        at: String,
    },
    /// The question does not apply to this kind of puzzle.
    #[error(
        "{puzzle} ({family} puzzle) does not answer {question}; it answers {}",
        Question::one_of(applies)
    )]
    NotApplicable {
        /// The question asked.
        question: Question,
        /// The puzzle.
        puzzle: String,
        /// Its family.
        family: String,
        /// The questions that do apply to it.
        applies: Vec<Question>,
    },
    /// The question needs a table of every position, and the puzzle is answered by search.
    #[error(
        "{puzzle} has no table of every position to give {question} from: its positions are answered by {by}"
    )]
    NoFullTable {
        /// The question asked.
        question: Question,
        /// The puzzle.
        puzzle: String,
        /// How its positions are answered instead, in words.
        by: &'static str,
    },
    /// The file could not be opened or read, or its pages fail their checksums.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The file is not the one its signature signed with the key the reader trusts (or
    /// the key or the signature cannot be read).
    #[error(transparent)]
    Signature(#[from] crate::store::signature::SignatureError),
    /// What the file says contradicts the puzzle's rules or the file itself.
    #[error("inconsistent file {path}: {what}")]
    Inconsistent {
        /// The file.
        path: String,
        /// What contradicts what.
        what: String,
    },
    /// A search gave up (its deadline passed, or its client went away). `after` counts
    /// from the start of the answer, loading the tables included.
    #[error(
        "the search for a position of {puzzle} gave up after {after:.1} s (loading its tables included): {why}"
    )]
    Stopped {
        /// The puzzle.
        puzzle: String,
        /// Why it stopped.
        why: Stopped,
        /// Seconds since the answer began.
        after: f64,
    },
}

impl QueryError {
    /// Whether the user asked for something malformed (exit code 2) rather than something
    /// the data could not answer.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            QueryError::UnknownPuzzle(_)
                | QueryError::NotApplicable { .. }
                | QueryError::NoFullTable { .. }
                | QueryError::State(StateError::Malformed { .. } | StateError::RankOutside { .. })
        )
    }
}

pub type Result<T, E = QueryError> = std::result::Result<T, E>;

/// How many distinct shortest solutions a position has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[warn(missing_docs)]
#[non_exhaustive]
pub enum Solutions {
    /// Exactly this many.
    Exactly(u64),
    /// More than 2^63 - 1.
    Overflow,
    /// The file keeps no counts for this puzzle: its storage keeps none
    /// (the message says which storage and why).
    NotStored,
}

/// The questions `p` answers, as its kind lists them.
pub(crate) fn kind_questions(p: &Puzzle) -> Vec<Question> {
    kind::of(p).questions()
}

/// Why the file keeps no solution counts for `p`, in words, naming its storage: a
/// two-bit table keeps distances alone, a packed table keeps counts only up to
/// [`COUNTS_MAX_STATES`](crate::core::format::COUNTS_MAX_STATES) ranks, a search counts
/// nothing. (The rule itself is [`crate::core::space::graph_tables`].)
pub fn counts_absent(p: &Puzzle) -> String {
    kind::of(p).counts_absent(p.name())
}

impl Solutions {
    fn from_stored(count: Option<u64>) -> Solutions {
        count.map_or(Solutions::Overflow, Solutions::Exactly)
    }
}

/// A distance lookup with one optimal path.
#[derive(Debug, Clone, PartialEq, Eq)]
#[warn(missing_docs)]
#[non_exhaustive]
pub struct StateAnswer {
    /// The puzzle.
    pub puzzle: String,
    /// The position, in the puzzle's own notation.
    pub state: String,
    /// Its distance to the goal (moves, or jumps for peg boards).
    pub distance: u32,
    /// How many distinct shortest solutions it has.
    pub solutions: Solutions,
    /// Every position from `state` to the goal, both included.
    pub path: Vec<String>,
    /// Peg puzzles: the move leading to each next position, `[from, to1, to2, ...]`.
    pub moves: Option<Vec<Vec<u8>>>,
    /// Puzzles whose moves have names ([`GraphPuzzle::names_moves`]): the name of the
    /// move leading to each next position (`R`, `U2`, `press 1,2`, `1: A→C`), one fewer
    /// than the positions of `path`.
    pub move_names: Option<Vec<String>>,
    /// Puzzles answered by searching the position's cluster (Rush Hour): how many
    /// positions the cluster has, the position itself included.
    pub cluster: Option<u64>,
}

#[warn(missing_docs)]
impl StateAnswer {
    /// The answer as `query --state --json` prints it: `puzzle`, `state`, `distance`,
    /// `solutions`, `solutions_stored`, `path`, and on a peg board `moves`.
    pub fn json(&self) -> serde_json::Value {
        json::state(self)
    }
}

/// A search's answer as a lookup's: its distance and path, no solution count.
impl From<SearchAnswer> for StateAnswer {
    fn from(a: SearchAnswer) -> StateAnswer {
        StateAnswer {
            puzzle: a.puzzle,
            state: a.state,
            distance: a.distance,
            solutions: Solutions::NotStored,
            path: a.path,
            moves: None,
            move_names: None,
            cluster: None,
        }
    }
}

/// The positions at the maximum distance.
#[derive(Debug, Clone, PartialEq, Eq)]
#[warn(missing_docs)]
#[non_exhaustive]
pub struct LongestAnswer {
    /// The puzzle.
    pub puzzle: String,
    /// The maximum distance.
    pub distance: u32,
    /// How many positions (symmetry classes for peg boards) lie at that distance.
    pub count: u64,
    /// Every position at that distance (one per symmetry class for peg boards); none
    /// when there are more than a two-bit table keeps (65,536: the file then holds the
    /// distance and `count` alone).
    pub states: Vec<String>,
}

/// A list of positions or solutions.
#[derive(Debug, Clone, PartialEq, Eq)]
#[warn(missing_docs)]
#[non_exhaustive]
pub struct ListAnswer {
    /// The puzzle.
    pub puzzle: String,
    /// The positions or solutions, in the puzzle's own notation.
    pub states: Vec<String>,
}

/// Counts per distance (move puzzles) or per value (the magic triangle's side sums).
#[derive(Debug, Clone, PartialEq, Eq)]
#[warn(missing_docs)]
#[non_exhaustive]
pub enum Histogram {
    /// One row per distance from 0 to the maximum.
    ByDistance(Vec<HistogramRow>),
    /// `(value, solutions)` pairs, by value.
    ByValue(Vec<(i64, u64)>),
}

/// One legal move from a position: the move in the puzzle's own terms, where it leads,
/// and that position's distance (`None`: the goal cannot be reached from it).
#[derive(Debug, Clone, PartialEq, Eq)]
#[warn(missing_docs)]
#[non_exhaustive]
pub struct MoveOption {
    /// The move.
    pub mv: Move,
    /// The position it leads to.
    pub state: String,
    /// That position's distance; `None` when the goal cannot be reached from it.
    pub distance: Option<u32>,
}

/// A move as its family writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[warn(missing_docs)]
#[non_exhaustive]
pub enum Move {
    /// Move puzzles: the cells the moving pieces leave and the cells they land on, in
    /// cell order (a sliding tile: one each; an oshidori pair: two each).
    Cells {
        /// Cells left.
        from: Vec<usize>,
        /// Cells landed on.
        to: Vec<usize>,
    },
    /// Peg boards: a chain of jumps by one peg, `[from, to1, to2, ...]`.
    Jumps(Vec<u8>),
    /// Puzzles whose moves have names of their own (`R2`, a press, a disc's hop):
    /// [`GraphPuzzle::move_name`](crate::core::space::GraphPuzzle::move_name).
    Named(String),
}

/// What an enumeration puzzle says about one arrangement.
#[derive(Debug, Clone, PartialEq, Eq)]
#[warn(missing_docs)]
#[non_exhaustive]
pub enum ArrangementAnswer {
    /// The magic triangle: the three side sums and, when they agree, whether the file
    /// holds the arrangement and its class representative.
    Magic {
        /// The arrangement, in the puzzle's notation.
        state: String,
        /// The three side sums.
        sums: Vec<i64>,
        /// Whether it is a solution the file holds.
        solution: bool,
        /// The stored representative of its symmetry class, when it is a solution.
        canonical: Option<String>,
    },
    /// A closed knight's tour (parsing checks it), rotated to start at square 0, and
    /// whether the file holds it.
    Tour {
        /// The tour, rotated to start at square 0.
        state: String,
        /// Whether it runs in the stored (canonical) direction.
        canonical: bool,
        /// Whether the file holds it.
        stored: bool,
    },
}

/// The puzzle `name` as this file holds it: built in, or a user's puzzle rebuilt from
/// the definition stored with it (the one rule: [`catalog::lookup`]).
pub fn known(conn: &Reader, name: &str) -> Result<Puzzle> {
    let stored = if catalog::definitions_builtin(name) {
        None
    } else {
        // A row that cannot be read is damage, never an unknown (usage) name.
        conn.puzzle(name)
            .map_err(|e| QueryError::Store(StoreError::from_sqlite(conn.path(), e)))?
    };
    catalog::lookup(name, stored.as_ref().map(|i| i.definition.as_str())).map_err(|e| match e {
        // A file too damaged to list its puzzles still gets the built-in names.
        LookupError::Unknown => {
            UnknownPuzzle::new(name, conn.puzzle_names().ok().as_deref(), &catalog::names()).into()
        }
        LookupError::BadDefinition(e) => QueryError::NotStored(format!(
            "the stored definition of {name} cannot be used: {e}"
        )),
    })
}

/// An open database.
#[warn(missing_docs)]
pub struct Database {
    conn: Reader,
    path: PathBuf,
    /// The file and its journals as they were when the connection was opened.
    opened_as: store::FileState,
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
    /// Peg matrices already re-derived and found equal to the stored ones, by puzzle
    /// (for a server, once per connection).
    matrices: RefCell<HashMap<String, Vec<Vec<Option<u8>>>>>,
    /// Peg puzzles whose layers were already held to their stored rows.
    layers_checked: RefCell<std::collections::HashSet<String>>,
    /// Packed puzzles' layouts, read and checked once per connection.
    layouts: RefCell<HashMap<String, (DistanceLayout, Option<CountLayout>)>>,
    /// Groups of stored rows found to match their digests ([`digested`]).
    digested: RefCell<digested::Digested>,
}

#[warn(missing_docs)]
impl Database {
    /// Opens the file at `path` for reading: it must be a puzzlebase file of this
    /// build's schema with page checksums; every page read from it is checked.
    pub fn open(path: &Path) -> Result<Database> {
        let opened_as = store::FileState::of(path);
        let mut db = Database::over(store::open_checked(path)?);
        db.opened_as = opened_as;
        Ok(db)
    }

    /// Whether the file (or a journal beside it) changed on disk since this reader
    /// opened it: its inode, size or times ([`store::FileState`]). The connection reads
    /// the file as an immutable one and does not notice a change itself, so a reader
    /// kept open for long (the Python package's) asks this before answering and opens
    /// the file again when it did.
    pub fn changed(&self) -> bool {
        store::FileState::of(&self.path) != self.opened_as
    }

    /// Opens the file at `path` like [`Database::open`], once the file's minisign
    /// signature (`signature`, or `<path>.minisig` beside it) is found to be one of
    /// the file's bytes made with the secret half of `public_key` (a minisign public
    /// key file). The connection reads exactly the bytes checked: the file is the same
    /// (inode, size, times: [`crate::store::FileState`]) before the check and after the
    /// connection is open, or the open is refused. The check reads the whole file once.
    pub fn open_signed(
        path: &Path,
        public_key: &Path,
        signature: Option<&Path>,
    ) -> Result<Database> {
        let trust = Trust::from_file(public_key, signature)?;
        let db = Database::open(path)?;
        trust.check(path)?;
        // Opened before the check, so a file replaced since is a changed state.
        if db.changed() {
            return Err(QueryError::NotStored(format!(
                "{} changed while its signature was checked; ask again",
                path.display()
            )));
        }
        Ok(db)
    }

    /// Answers from a connection the store opened some other way: another program's
    /// connection to a puzzlebase file (`store::borrowing`, what the SQLite
    /// extension reads through). Its pages are checked only if that program checks them.
    pub fn over(conn: Reader) -> Database {
        Database {
            path: conn.path().to_path_buf(),
            opened_as: store::FileState::of(conn.path()),
            conn,
            checked: RefCell::new(HashMap::new()),
            puzzles: RefCell::new(HashMap::new()),
            resident: None,
            matrices: RefCell::new(HashMap::new()),
            layers_checked: RefCell::new(Default::default()),
            layouts: RefCell::new(HashMap::new()),
            digested: RefCell::default(),
        }
    }

    /// Opens `path` like [`Database::open`] for a long-lived reader answering many
    /// lookups (the server): the file is memory-mapped, so page reads are memory reads
    /// rather than a system call each.
    pub fn open_for_serving(path: &Path) -> Result<Database> {
        let db = Database::open(path)?;
        // 1 GiB of address space is enough for every table but eleven's 124 MB share and
        // more; SQLite maps no more than the file's size.
        db.conn.memory_map(1 << 30).map_err(db.sql())?;
        db.conn.page_cache(16384).map_err(db.sql())?;
        Ok(db)
    }

    /// Runs `f` inside one read transaction: every lookup of an answer sees the same
    /// snapshot, and SQLite takes its file lock once instead of once per statement
    /// (most of the cost of a lookup made of dozens of indexed reads).
    pub fn snapshot<T>(&self, f: impl FnOnce(&Database) -> Result<T>) -> Result<T> {
        let read = self.conn.begin_read().map_err(self.sql())?;
        let out = f(self);
        drop(read);
        out
    }

    /// The `puzzles` rows as stored, each held only to its digest (what an answer about
    /// one puzzle then checks for itself); [`Database::listing`] is the list a user is
    /// shown.
    pub fn puzzles(&self) -> Result<Vec<PuzzleInfo>> {
        let infos = self.conn.puzzles().map_err(self.sql())?;
        // Each row against its digest: a host without page checksums reads them as
        // they are.
        for info in &infos {
            self.digested(&info.name, "puzzles", "", 0)?;
        }
        Ok(infos)
    }

    /// Every puzzle of the file, each through the checks an answer about it makes: a
    /// puzzle built from its current definition, whose checksum is the one the file
    /// records for it, and whose figures agree with its histogram, its layers or the
    /// number of its stored solutions. A row edited on its own is refused, not listed.
    pub fn listing(&self) -> Result<Vec<PuzzleInfo>> {
        let infos = self.puzzles()?;
        let meta = self.conn.meta().map_err(self.sql())?;
        let recorded = store::integrity::contents(&meta)
            .ok_or_else(|| self.inconsistent("the file has no record of its puzzles"))?;
        for stored in &infos {
            let name = stored.name.as_str();
            let (p, info) = self.puzzle(name)?;
            if !recorded
                .iter()
                .any(|(n, c)| n == name && *c == info.checksum)
            {
                return Err(self.inconsistent(format!(
                    "{name}: its checksum is not the one the file records for it"
                )));
            }
            // The figures a list shows, each against what it adds up from (cheap reads;
            // the rows themselves are checked when they are asked for).
            kind::of(&p).check_listed(&kind::Asked { db: self, p: &p }, &info)?;
        }
        Ok(infos)
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
        let info = self
            .conn
            .puzzle(name)
            .map_err(self.sql())?
            .ok_or_else(|| QueryError::NotGenerated(name.into()))?;
        if !identity::is_current(p, &info) {
            return Err(QueryError::Stale(name.to_string()));
        }
        self.digested_small(name)?;
        (self.checked.borrow_mut()).insert(name.to_string(), info.clone());
        Ok(info)
    }

    fn row(&self, puzzle: &str, rank: u64) -> Result<Option<PositionRow>> {
        // A rank past SQL's integers has no row; nor any group.
        if let Ok(key) = i64::try_from(rank) {
            self.digested(puzzle, "positions", "", key)?;
        }
        self.conn.position(puzzle, rank).map_err(self.sql())
    }

    /// Where the packed tables' chunks are read from.
    fn chunks(&self) -> &dyn ChunkReader {
        &self.conn
    }

    /// The error of a failed read of this file.
    pub(super) fn sql(&self) -> impl Fn(SqlError) -> QueryError + '_ {
        |source| {
            // A stored value of the wrong type or out of its column's range is damage,
            // not a failure to read.
            if source.is_bad_value() {
                self.inconsistent(format!("a stored value is out of range ({source})"))
            } else {
                QueryError::Store(StoreError::from_sqlite(&self.path, source))
            }
        }
    }

    /// The answer about to be served contradicts the rules or the file: refuse it.
    pub(super) fn inconsistent(&self, what: impl Into<String>) -> QueryError {
        QueryError::Inconsistent {
            path: self.path.display().to_string(),
            what: what.into(),
        }
    }

    pub(super) fn not_applicable(&self, question: Question, p: &Puzzle) -> QueryError {
        QueryError::NotApplicable {
            question,
            puzzle: p.name().into(),
            family: p.family().into(),
            applies: kind::of(p).questions(),
        }
    }

    /// A stored row whose `state` text is not the position of its rank.
    pub(super) fn check_state_text(
        &self,
        name: &str,
        row: &PositionRow,
        parsed: Option<u64>,
    ) -> Result<()> {
        if parsed != Some(row.rank) {
            return Err(self.inconsistent(format!(
                "{name}: the state text {:?} of rank {} is not that position",
                row.state, row.rank
            )));
        }
        Ok(())
    }
}

/// A packed puzzle's distance layout (checked to be the shape its definition gives) and
/// solution count layout, as stored in `packed_tables`. Shared by the reader (`packed`)
/// and the loader of in-memory copies (`resident`); kept here because the reader also
/// reads those copies, and the two files would otherwise need each other.
fn packed_layouts(
    db: &Database,
    g: &dyn GraphPuzzle,
) -> Result<(DistanceLayout, Option<CountLayout>)> {
    if let Some(l) = db.layouts.borrow().get(g.name()) {
        return Ok(l.clone());
    }
    let l = read_packed_layouts(db, g)?;
    (db.layouts.borrow_mut()).insert(g.name().to_string(), l.clone());
    Ok(l)
}

/// [`packed_layouts`], read from the file.
fn read_packed_layouts(
    db: &Database,
    g: &dyn GraphPuzzle,
) -> Result<(DistanceLayout, Option<CountLayout>)> {
    let name = g.name();
    let bad = |what: &str| db.inconsistent(format!("{name}: {what}"));
    let layout = |kind: &str| -> Result<Option<serde_json::Value>> {
        let Some((text, _)) = db.chunks().table(name, kind).map_err(db.sql())? else {
            return Ok(None);
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|_| bad("its packed layout"))
    };
    // Which distance encoding, and whether counts are stored, are the storage rule's to
    // say, not the file's: a table in another encoding, or a count table gone missing,
    // is damage.
    let (_, two_bit, counts) = crate::core::space::graph_tables(g);
    let distance = layout("distance")?
        .and_then(|v| DistanceLayout::from_description(&v).ok())
        .filter(|l| match l {
            DistanceLayout::Runs(l) => {
                !two_bit && g.packing().is_some_and(|want| want.same_shape(l))
            }
            DistanceLayout::Codes(l) => two_bit && l.ranks() == g.size(),
        })
        .ok_or_else(|| bad("its packed distance table"))?;
    let counts = match (layout("solutions")?, counts) {
        (None, false) => None,
        (Some(v), true) => {
            Some(CountLayout::from_description(&v).map_err(|_| bad("its packed solution counts"))?)
        }
        (None, true) => return Err(bad("its packed solution counts are missing")),
        (Some(_), false) => return Err(bad("it has packed solution counts it should not have")),
    };
    Ok((distance, counts))
}
