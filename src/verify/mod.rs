//! `verify`: re-derives every fact stored in a generated file from the puzzle rules and
//! reports the first one that does not hold. Nothing in the file is trusted but the
//! puzzle names: each puzzle's rules come from this build's definition
//! ([`catalog::find`]), and every stored row, blob and summary figure is checked against
//! them.
//!
//! Move puzzles (row storage and packed tables alike) are checked by local conditions
//! over every rank, which together prove the table exact: goals are present at distance
//! 0 and no other position is at 0; a present position's distance is one more than the
//! minimum over its present neighbours; an absent position has no present neighbour (so
//! the present set is exactly the goals' components); the next rank is the smallest
//! neighbour one step closer; a count is the sum over the neighbours one step closer.
//! Peg boards are checked the same way over moves (chains of jumps) on canonical
//! positions, with the set of stored positions tied to the reachable set, which is
//! recomputed because `peg_layers` needs it anyway. Enumerations are re-enumerated (it is
//! cheap) and compared row by row after each row has been checked against the rule.
//!
//! The checks over ranks and rows run in parallel on tables read into memory once; the
//! first failure reported is the one at the smallest rank, whatever the thread count.

pub mod consistency;

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use rusqlite::Connection;
use rusqlite::types::ValueRef;
use thiserror::Error;

use crate::catalog;
use crate::catalog::identity::{self, definition_hash};
use crate::core::format::{COUNT_OVERFLOW, UNREACHED, add_counts};
use crate::core::packed::{ByteLayout, CountLayout, RunLayout};
use crate::core::progress::Silent;
use crate::core::rank::FACT;
use crate::core::space::{GraphPuzzle, StateSpace};
use crate::families::fifteen::Fifteen;
use crate::families::magic::Magic;
use crate::families::tour::TourBoard;
use crate::families::{self, Puzzle};
use crate::solvers::enumerate::Solution;
use crate::solvers::pattern;
use crate::solvers::peg::{self, Board};
use crate::store::{self, PuzzleInfo, Storage, StoreError};

#[derive(Debug, Error)]
pub enum VerifyError {
    #[error("unknown puzzle {name:?}; known puzzles: {known}")]
    UnknownPuzzle { name: String, known: String },
    #[error("puzzle {0} is not in the database: run `puzzlebase generate --puzzle {0}`")]
    NotGenerated(String),
    /// A stored fact that does not hold: the puzzle, and where and what.
    #[error("verify: {puzzle}: {fact}")]
    Bad { puzzle: String, fact: String },
    /// SQLite's own structure check failed.
    #[error("verify: the file fails SQLite's quick_check: {0}")]
    Structure(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl VerifyError {
    /// Whether the user asked for something malformed (exit code 2).
    pub fn is_usage(&self) -> bool {
        matches!(self, VerifyError::UnknownPuzzle { .. })
    }

    /// The puzzle a failed check is about, if the failure is about one puzzle.
    pub fn puzzle(&self) -> Option<&str> {
        match self {
            VerifyError::Bad { puzzle, .. } => Some(puzzle),
            VerifyError::NotGenerated(p) => Some(p),
            _ => None,
        }
    }
}

/// One verified puzzle.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub puzzle: String,
    pub storage: Storage,
    /// Entries checked: ranks of a move puzzle's space, rows of a peg board or an
    /// enumeration.
    pub entries: u64,
    pub solvable: u64,
    pub max_distance: Option<u8>,
    pub seconds: f64,
}

/// Why one puzzle's check stopped: a stored fact that does not hold, or a read failure.
enum Fail {
    Bad(String),
    Sql(rusqlite::Error),
}

impl From<rusqlite::Error> for Fail {
    fn from(e: rusqlite::Error) -> Self {
        Fail::Sql(e)
    }
}

impl From<String> for Fail {
    fn from(s: String) -> Self {
        Fail::Bad(s)
    }
}

type Check<T> = Result<T, Fail>;

fn bad<T>(fact: impl Into<String>) -> Check<T> {
    Err(Fail::Bad(fact.into()))
}

/// Opens `db` read-only and verifies it (see [`verify_conn`]).
pub fn verify_file(
    db: &Path,
    only: &[String],
    done: &mut dyn FnMut(&Report),
) -> Result<Vec<Report>, VerifyError> {
    let conn = store::open_read(db)?;
    verify_conn(&conn, db, only, done)
}

/// Verifies every puzzle in `conn` (or only those named), in registry order, calling
/// `done` after each. Stops at the first puzzle with a fact that does not hold.
pub fn verify_conn(
    conn: &Connection,
    path: &Path,
    only: &[String],
    done: &mut dyn FnMut(&Report),
) -> Result<Vec<Report>, VerifyError> {
    let sql = |source| {
        VerifyError::Store(StoreError::Sqlite {
            path: path.display().to_string(),
            source,
        })
    };
    let names = catalog::names();
    for name in only {
        if crate::answers::known(conn, name).is_err() {
            return Err(VerifyError::UnknownPuzzle {
                name: name.clone(),
                known: names.join(", "),
            });
        }
    }
    let check: String = conn
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(sql)?;
    if check != "ok" {
        return Err(VerifyError::Structure(check));
    }
    // Only the names are read from `puzzles` before each puzzle is checked, so that a
    // damaged column is reported as such rather than as a read error.
    let mut stored: Vec<String> = {
        let mut st = conn
            .prepare("SELECT name FROM puzzles ORDER BY name")
            .map_err(sql)?;
        st.query_map([], |r| r.get(0))
            .map_err(sql)?
            .collect::<rusqlite::Result<_>>()
            .map_err(sql)?
    };
    for name in only {
        if !stored.contains(name) {
            return Err(VerifyError::NotGenerated(name.clone()));
        }
    }
    if !only.is_empty() {
        stored.retain(|n| only.contains(n));
    }
    // Registry order, then any name this build does not know (reported as bad).
    let order = |n: &String| names.iter().position(|k| k == n).unwrap_or(usize::MAX);
    stored.sort_by_key(|n| (order(n), n.clone()));

    let mut reports = Vec::new();
    for name in stored {
        let started = Instant::now();
        let report = verify_puzzle(conn, path, &name).map_err(|f| match f {
            Fail::Bad(fact) => VerifyError::Bad {
                puzzle: name.clone(),
                fact,
            },
            Fail::Sql(e) => sql(e),
        })?;
        let report = Report {
            seconds: started.elapsed().as_secs_f64(),
            ..report
        };
        done(&report);
        reports.push(report);
    }
    Ok(reports)
}

/// What the rows of a puzzle give for its `puzzles` row.
struct Derived {
    entries: u64,
    states: u64,
    solvable: u64,
    max_distance: Option<u8>,
}

fn verify_puzzle(conn: &Connection, path: &Path, name: &str) -> Check<Report> {
    // A built-in puzzle's rules come from the binary; a user's from its stored definition.
    let Ok(p) = crate::answers::known(conn, name) else {
        return bad("not a puzzle this build knows or can rebuild from its stored definition");
    };
    let info = match store::puzzle(conn, name) {
        Ok(Some(info)) => info,
        Ok(None) => return bad("its puzzles row vanished while reading"),
        Err(e @ rusqlite::Error::FromSqlConversionFailure(..))
        | Err(e @ rusqlite::Error::InvalidColumnType(..))
        | Err(e @ rusqlite::Error::IntegralValueOutOfRange(..)) => {
            return bad(format!("its puzzles row is malformed: {e}"));
        }
        Err(e) => return Err(e.into()),
    };
    // Which partitions' tables fifteen stores is part of its definition: any this build
    // knows is checked against the tables it names.
    let p = identity::as_stored(p, &info);
    let (storage, counts) = expected_storage(&p);
    same("puzzles.family", info.family.as_str(), p.family())?;
    same(
        "puzzles.definition (the file was built from another definition: run `puzzlebase generate`)",
        info.definition.as_str(),
        p.definition().to_string().as_str(),
    )?;
    same(
        "puzzles.definition_hash",
        info.definition_hash.as_str(),
        definition_hash(&p).as_str(),
    )?;
    same("puzzles.storage", info.storage.as_str(), storage.as_str())?;
    same("puzzles.counts", &info.counts, &counts)?;

    let derived = match &p {
        Puzzle::Graph(g) => {
            let g = g.as_ref();
            match g.packing().filter(|_| storage == Storage::Packed) {
                Some(layout) => packed_graph(conn, name, g, layout, counts)?,
                None => row_graph(conn, name, g)?,
            }
        }
        Puzzle::Peg(board) => peg_board(conn, name, board)?,
        Puzzle::Magic(m) => enumeration(conn, name, Enumeration::Magic(m))?,
        Puzzle::Tour(board) => enumeration(conn, name, Enumeration::Tour(board))?,
        Puzzle::Patterns(f) => pattern_tables(conn, name, f)?,
    };
    same("puzzles.states", &info.states, &derived.states)?;
    same("puzzles.solvable", &info.solvable, &derived.solvable)?;
    same(
        "puzzles.max_distance",
        show_opt(info.max_distance).as_str(),
        show_opt(derived.max_distance).as_str(),
    )?;
    checksum(conn, path, &info)?;
    Ok(Report {
        puzzle: name.to_string(),
        storage,
        entries: derived.entries,
        solvable: derived.solvable,
        max_distance: derived.max_distance,
        seconds: 0.0,
    })
}

/// The stored `histogram` of a move puzzle is `levels` (positions per distance; its rows
/// are stored without symmetry, so classes equal positions).
fn histogram_is(conn: &Connection, name: &str, levels: &[u64]) -> Check<()> {
    let histogram: Vec<Vec<Option<i64>>> = (levels.iter().enumerate())
        .map(|(d, &c)| vec![Some(d as i64), Some(c as i64), Some(c as i64)])
        .collect();
    let stored = int_rows(
        conn,
        "SELECT distance, positions, classes FROM histogram WHERE puzzle = ?1 ORDER BY distance",
        name,
        "histogram",
    )?;
    let key = |r: &[Option<i64>]| format!("distance {}", show_opt(r[0]));
    same_rows("histogram", &key, &stored, &histogram)
}

/// A puzzle's `packed_tables` rows in kind order: kind, encoding, ranks per chunk,
/// chunks and the layout's JSON text.
fn packed_table_rows(
    conn: &Connection,
    name: &str,
) -> Check<Vec<(String, String, i64, i64, String)>> {
    let mut st = conn.prepare(
        "SELECT kind, encoding, ranks_per_chunk, chunks, layout FROM packed_tables
         WHERE puzzle = ?1 ORDER BY kind",
    )?;
    st.query_map([name], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })?
    .collect::<rusqlite::Result<_>>()
    .or_else(|e| bad(format!("packed_tables is malformed: {e}")))
}

/// Where `generate` puts a puzzle's answers, and whether it stores solution counts.
fn expected_storage(p: &Puzzle) -> (Storage, bool) {
    catalog::plan::storage(p)
}

fn show_opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("NULL".to_string(), |v| v.to_string())
}

fn same<T: PartialEq + std::fmt::Display + ?Sized>(what: &str, stored: &T, want: &T) -> Check<()> {
    if stored == want {
        return Ok(());
    }
    let (s, w) = (stored.to_string(), want.to_string());
    // Definitions are long JSON: name the fact, not the whole text.
    if s.len() + w.len() > 200 {
        return bad(format!("{what} differs from what the rules give"));
    }
    bad(format!("{what} is {s} but the rules give {w}"))
}

fn checksum(conn: &Connection, path: &Path, info: &PuzzleInfo) -> Check<()> {
    let sum = store::checksum(conn, path, &info.name).map_err(|e| match e {
        StoreError::Sqlite { source, .. } => Fail::Sql(source),
        other => Fail::Bad(other.to_string()),
    })?;
    if sum != info.checksum {
        return bad(format!(
            "puzzles.checksum is {} but the rows give {sum}",
            info.checksum
        ));
    }
    Ok(())
}

/// Tables a puzzle of this storage must have no rows in.
fn must_be_empty(conn: &Connection, name: &str, tables: &[&str]) -> Check<()> {
    for t in tables {
        let n: i64 = conn.query_row(
            &format!("SELECT count(*) FROM {t} WHERE puzzle = ?1"),
            [name],
            |r| r.get(0),
        )?;
        if n != 0 {
            return bad(format!("{n} rows in {t}, which this puzzle does not use"));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Reading stored values without trusting their types

/// An integer column: `None` for NULL; anything but an integer is a bad entry.
fn int(v: ValueRef<'_>, what: &dyn Fn() -> String) -> Check<Option<i64>> {
    match v {
        ValueRef::Null => Ok(None),
        ValueRef::Integer(i) => Ok(Some(i)),
        _ => bad(format!("{}: not an integer", what())),
    }
}

/// A NOT NULL integer in `lo..=hi`.
fn int_in(v: ValueRef<'_>, lo: i64, hi: i64, what: &dyn Fn() -> String) -> Check<i64> {
    match int(v, what)? {
        Some(i) if (lo..=hi).contains(&i) => Ok(i),
        Some(i) => bad(format!("{}: {i} is outside {lo}..={hi}", what())),
        None => bad(format!("{}: NULL", what())),
    }
}

fn text(v: ValueRef<'_>, what: &dyn Fn() -> String) -> Check<Option<String>> {
    match v {
        ValueRef::Null => Ok(None),
        ValueRef::Text(t) => match std::str::from_utf8(t) {
            Ok(s) => Ok(Some(s.to_string())),
            Err(_) => bad(format!("{}: not UTF-8 text", what())),
        },
        _ => bad(format!("{}: not text", what())),
    }
}

/// Every row of a small per-puzzle table as integers (NULL as `None`), in `order`.
fn int_rows(conn: &Connection, sql: &str, name: &str, table: &str) -> Check<Vec<Vec<Option<i64>>>> {
    let mut st = conn.prepare(sql)?;
    let cols = st.column_count();
    let mut rows = st.query([name])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let mut vals = Vec::with_capacity(cols);
        for i in 0..cols {
            let n = out.len();
            vals.push(int(row.get_ref(i)?, &|| format!("{table} row {n}"))?);
        }
        out.push(vals);
    }
    Ok(out)
}

/// Compares stored rows with the rows the rules give, naming the first difference.
fn same_rows(
    table: &str,
    key: &dyn Fn(&[Option<i64>]) -> String,
    stored: &[Vec<Option<i64>>],
    want: &[Vec<Option<i64>>],
) -> Check<()> {
    let fmt = |r: &[Option<i64>]| {
        r.iter()
            .map(|v| show_opt(*v))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (i, w) in want.iter().enumerate() {
        match stored.get(i) {
            Some(s) if s == w => {}
            Some(s) if key(s) == key(w) => {
                return bad(format!(
                    "{table} {}: stored ({}) but the rules give ({})",
                    key(w),
                    fmt(s),
                    fmt(w)
                ));
            }
            _ => return bad(format!("{table} {}: missing ({})", key(w), fmt(w))),
        }
    }
    if let Some(s) = stored.get(want.len()) {
        return bad(format!(
            "{table} {}: a row the rules do not give ({})",
            key(s),
            fmt(s)
        ));
    }
    Ok(())
}

/// The first failure over `0..n` checked by `f` in parallel, at the smallest index.
fn first_failure<F>(n: u64, f: F) -> Check<()>
where
    F: Fn(u64, &mut Vec<u64>) -> Result<(), String> + Sync,
{
    const CHUNK: u64 = 1 << 14;
    let found = (0..n.div_ceil(CHUNK)).into_par_iter().find_map_first(|c| {
        let mut buf = Vec::with_capacity(16);
        (c * CHUNK..((c + 1) * CHUNK).min(n)).find_map(|i| f(i, &mut buf).err())
    });
    match found {
        Some(fact) => bad(fact),
        None => Ok(()),
    }
}

fn show_count(c: u64) -> String {
    if c == COUNT_OVERFLOW {
        "more than 2^63-1 (the overflow marker)".to_string()
    } else {
        c.to_string()
    }
}

// ---------------------------------------------------------------------------------------
// Move puzzles

/// A move puzzle's tables as read from the file, indexed by rank.
struct GraphTables {
    /// [`UNREACHED`] where absent.
    dist: Vec<u8>,
    /// [`NO_NEXT`] where NULL; empty when the storage has no next ranks.
    next: Vec<u64>,
    /// [`COUNT_OVERFLOW`] where the overflow marker is stored; empty without counts.
    count: Vec<u64>,
}

const NO_NEXT: u64 = u64::MAX;

/// Row storage: one row of `positions` per position that can reach the goal.
fn row_graph(conn: &Connection, name: &str, g: &dyn GraphPuzzle) -> Check<Derived> {
    must_be_empty(
        conn,
        name,
        &[
            "peg_layers",
            "peg_matrix",
            "solutions",
            "packed_tables",
            "packed_chunks",
            "farthest",
        ],
    )?;
    let n = g.size();
    let mut t = GraphTables {
        dist: vec![UNREACHED; n as usize],
        next: vec![NO_NEXT; n as usize],
        count: vec![0; n as usize],
    };
    let mut st = conn.prepare(
        "SELECT rank, state, distance, next_rank, solutions, move FROM positions
         WHERE puzzle = ?1 ORDER BY rank",
    )?;
    let mut rows = st.query([name])?;
    while let Some(row) = rows.next()? {
        let rank = int_in(row.get_ref(0)?, 0, n as i64 - 1, &|| {
            "positions.rank".to_string()
        })? as u64;
        let at = || format!("rank {rank} (state {})", g.format(rank));
        let state = text(row.get_ref(1)?, &|| format!("{}: state", at()))?;
        if state.as_deref() != Some(g.format(rank).as_str()) {
            return bad(format!(
                "{}: state text {:?} is not the notation of the rank",
                at(),
                state.unwrap_or_default()
            ));
        }
        let d = int_in(row.get_ref(2)?, 0, UNREACHED as i64 - 1, &|| {
            format!("{}: distance", at())
        })?;
        t.dist[rank as usize] = d as u8;
        if let Some(next) = int(row.get_ref(3)?, &|| format!("{}: next_rank", at()))? {
            if !(0..n as i64).contains(&next) {
                return bad(format!(
                    "{}: next rank {next} is outside the rank space",
                    at()
                ));
            }
            t.next[rank as usize] = next as u64;
        }
        t.count[rank as usize] = match int(row.get_ref(4)?, &|| format!("{}: solutions", at()))? {
            None => COUNT_OVERFLOW,
            Some(c) if c >= 0 => c as u64,
            Some(c) => return bad(format!("{}: {c} shortest solutions", at())),
        };
        if !matches!(row.get_ref(5)?, ValueRef::Null) {
            return bad(format!(
                "{}: a move is stored, but moves are for peg boards",
                at()
            ));
        }
    }
    let (levels, max) = check_graph(g, &t, None)?;
    histogram_is(conn, name, &levels)?;
    Ok(Derived {
        entries: n,
        states: n,
        solvable: levels.iter().sum(),
        max_distance: max,
    })
}

/// The local conditions at every rank (see the module docs). Returns the number of
/// positions at each distance and the maximum distance.
/// `packed`: the layout the distances were decoded from, so that a failure also names
/// the chunk that holds the entry.
fn check_graph(
    g: &dyn GraphPuzzle,
    t: &GraphTables,
    packed: Option<&RunLayout>,
) -> Check<(Vec<u64>, Option<u8>)> {
    let mut goals = g.goals();
    goals.sort_unstable();
    let is_goal = |r: u64| goals.binary_search(&r).is_ok();
    let at = |r: u64| match packed {
        Some(l) => format!(
            "rank {r} (state {}, distance chunk {})",
            g.format(r),
            l.locate(r).chunk
        ),
        None => format!("rank {r} (state {})", g.format(r)),
    };
    let (next, count) = (!t.next.is_empty(), !t.count.is_empty());
    first_failure(g.size(), |r, nbs| {
        let d = t.dist[r as usize];
        nbs.clear();
        g.neighbors(r, nbs);
        if d == UNREACHED {
            if is_goal(r) {
                return Err(format!("{}: a goal, but it is missing", at(r)));
            }
            if let Some(&nb) = nbs.iter().find(|&&nb| t.dist[nb as usize] != UNREACHED) {
                return Err(format!(
                    "{} is missing, but its neighbour rank {nb} is stored at distance {}, so it can reach the goal",
                    at(r),
                    t.dist[nb as usize]
                ));
            }
            if count && t.count[r as usize] != 0 {
                return Err(format!(
                    "{}: cannot reach the goal, but {} shortest solutions are stored",
                    at(r),
                    show_count(t.count[r as usize])
                ));
            }
            return Ok(());
        }
        let stored_next = if next { t.next[r as usize] } else { NO_NEXT };
        let stored_count = if count { t.count[r as usize] } else { 1 };
        if is_goal(r) {
            if d != 0 {
                return Err(format!("{}: a goal, but its distance is {d}", at(r)));
            }
            if stored_next != NO_NEXT {
                return Err(format!(
                    "{}: a goal, but it has next rank {stored_next}",
                    at(r)
                ));
            }
            if stored_count != 1 {
                return Err(format!(
                    "{}: a goal, but {} shortest solutions are stored (1 expected)",
                    at(r),
                    show_count(stored_count)
                ));
            }
            return Ok(());
        }
        if d == 0 {
            return Err(format!("{}: distance 0 but it is not a goal", at(r)));
        }
        let Some(min) = nbs
            .iter()
            .map(|&nb| t.dist[nb as usize])
            .filter(|&x| x != UNREACHED)
            .min()
        else {
            return Err(format!(
                "{}: distance {d} but no neighbour is stored, so it cannot reach the goal",
                at(r)
            ));
        };
        if d != min + 1 {
            return Err(format!(
                "{}: distance {d} but its successors' minimum is {min}",
                at(r)
            ));
        }
        let closer = || nbs.iter().copied().filter(|&nb| t.dist[nb as usize] == min);
        if next {
            let smallest = closer().min().expect("the minimum is attained");
            if stored_next == NO_NEXT {
                return Err(format!("{}: no next rank stored", at(r)));
            }
            if !nbs.contains(&stored_next) {
                return Err(format!(
                    "{}: next rank {stored_next} is not one legal move away",
                    at(r)
                ));
            }
            if t.dist[stored_next as usize] != min {
                return Err(format!(
                    "{}: next rank {stored_next} is not one step closer (its distance is {})",
                    at(r),
                    show_dist(t.dist[stored_next as usize])
                ));
            }
            if stored_next != smallest {
                return Err(format!(
                    "{}: next rank {stored_next} is not the smallest rank one step closer ({smallest} is)",
                    at(r)
                ));
            }
        }
        if count {
            let sum = closer().fold(0, |s, nb| add_counts(s, t.count[nb as usize]));
            if stored_count != sum {
                return Err(format!(
                    "{}: {} shortest solutions stored but its closer successors' counts add up to {}",
                    at(r),
                    show_count(stored_count),
                    show_count(sum)
                ));
            }
        }
        Ok(())
    })?;
    let levels = t
        .dist
        .par_chunks(1 << 16)
        .fold(Vec::new, |mut acc: Vec<u64>, chunk| {
            for &d in chunk {
                if d != UNREACHED {
                    if acc.len() <= d as usize {
                        acc.resize(d as usize + 1, 0);
                    }
                    acc[d as usize] += 1;
                }
            }
            acc
        })
        .reduce(Vec::new, |mut a, b| {
            if a.len() < b.len() {
                a.resize(b.len(), 0);
            }
            a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
            a
        });
    let max = (!levels.is_empty()).then(|| (levels.len() - 1) as u8);
    Ok((levels, max))
}

fn show_dist(d: u8) -> String {
    if d == UNREACHED {
        "none: it is not stored".to_string()
    } else {
        d.to_string()
    }
}

/// Packed storage: the `run-steps` distance table, the counts when stored (in the
/// narrowest encoding that holds them), and the `farthest` rows.
fn packed_graph(
    conn: &Connection,
    name: &str,
    g: &dyn GraphPuzzle,
    layout: RunLayout,
    counts: bool,
) -> Check<Derived> {
    must_be_empty(
        conn,
        name,
        &["positions", "peg_layers", "peg_matrix", "solutions"],
    )?;
    let n = g.size();
    let stored = packed_table_rows(conn, name)?;
    // The counts' width depends on the counts: the stored encoding is taken here and
    // checked against the counts once they are known to be right.
    let count_layout = match stored.iter().find(|s| s.0 == "solutions") {
        Some(s) if counts => match CountLayout::with_encoding(n, &s.1) {
            Some(l) => l,
            None => {
                return bad(format!(
                    "packed_tables solutions encoding: {} is not a count encoding",
                    s.1
                ));
            }
        },
        _ => CountLayout::for_counts(n, 0),
    };
    let mut want_tables = vec![(
        "distance",
        "run-steps",
        layout.ranks_per_chunk(),
        layout.chunks(),
        layout.describe().to_string(),
    )];
    if counts {
        want_tables.push((
            "solutions",
            count_layout.encoding(),
            count_layout.ranks_per_chunk(),
            count_layout.chunks(),
            count_layout.describe().to_string(),
        ));
    }
    for (i, w) in want_tables.iter().enumerate() {
        let Some(s) = stored.get(i).filter(|s| s.0 == w.0) else {
            return bad(format!("packed_tables: the {} table is missing", w.0));
        };
        let what = |col: &str| format!("packed_tables {} {col}", w.0);
        same(&what("encoding"), s.1.as_str(), w.1)?;
        same(&what("ranks_per_chunk"), &s.2, &(w.2 as i64))?;
        same(&what("chunks"), &s.3, &(w.3 as i64))?;
        same(&what("layout"), s.4.as_str(), w.4.as_str())?;
    }
    if let Some(s) = stored.get(want_tables.len()) {
        return bad(format!(
            "packed_tables: a {} table the rules do not give",
            s.0
        ));
    }
    let extra: i64 = conn.query_row(
        "SELECT count(*) FROM packed_chunks WHERE puzzle = ?1 AND kind NOT IN ('distance', ?2)",
        [name, if counts { "solutions" } else { "distance" }],
        |r| r.get(0),
    )?;
    if extra != 0 {
        return bad(format!("packed_chunks: {extra} chunks of no table"));
    }

    let mut t = GraphTables {
        dist: vec![UNREACHED; n as usize],
        next: Vec::new(),
        count: Vec::new(),
    };
    let blobs = read_chunks(conn, name, "distance", layout.chunks())?;
    let per = layout.ranks_per_chunk() as usize;
    let failure = (t.dist.par_chunks_mut(per).zip(&blobs).enumerate())
        .find_map_first(|(c, (dist, blob))| {
            let lo = (c * per) as u64;
            for (i, slot) in dist.iter_mut().enumerate() {
                let r = lo + i as u64;
                *slot = match layout.distance(blob, r) {
                    Ok(d) => d.unwrap_or(UNREACHED),
                    Err(_) => {
                        return Some(format!(
                            "distance chunk {c}: the entry of rank {r} (state {}) is impossible or missing",
                            g.format(r)
                        ));
                    }
                };
            }
            // Bits no reader looks at (past a run's end, or in an unreachable run) must be
            // what the encoder writes, so the blob is exactly the encoding of its entries.
            match layout.encode_chunk_with(c as u64, |r| dist[(r - lo) as usize]) {
                Ok(canonical) if canonical == *blob => None,
                Ok(canonical) => {
                    let byte = (0..blob.len().max(canonical.len()))
                        .find(|&i| blob.get(i) != canonical.get(i))
                        .unwrap_or(0);
                    Some(format!(
                        "distance chunk {c} byte {byte}: not the encoding of the distances it decodes to"
                    ))
                }
                Err(e) => Some(format!("distance chunk {c}: {e}")),
            }
        });
    if let Some(fact) = failure {
        return bad(fact);
    }
    drop(blobs);
    if counts {
        t.count = vec![0; n as usize];
        let blobs = read_chunks(conn, name, "solutions", count_layout.chunks())?;
        let per = count_layout.ranks_per_chunk() as usize;
        let failure = (t.count.par_chunks_mut(per).zip(&blobs).enumerate()).find_map_first(
            |(c, (count, blob))| {
                let want = count_layout.chunk_bytes(c as u64);
                if blob.len() as u64 != want {
                    return Some(format!(
                        "solutions chunk {c}: {} bytes, {want} expected",
                        blob.len(),
                    ));
                }
                let lo = (c * per) as u64;
                for (i, slot) in count.iter_mut().enumerate() {
                    match count_layout.count(blob, lo + i as u64) {
                        Ok(v) => *slot = v.unwrap_or(COUNT_OVERFLOW),
                        Err(e) => return Some(format!("solutions chunk {c}: {e}")),
                    }
                }
                None
            },
        );
        if let Some(fact) = failure {
            return bad(fact);
        }
    }
    let (levels, max) = check_graph(g, &t, Some(&layout))?;
    if counts {
        let most = t.count.par_iter().copied().max().unwrap_or(0);
        let narrowest = CountLayout::for_counts(n, most);
        if narrowest != count_layout {
            let most = if most == COUNT_OVERFLOW {
                "above 2^63 - 1".to_string()
            } else {
                most.to_string()
            };
            return bad(format!(
                "packed_tables solutions encoding: {}, but counts up to {most} take {}",
                count_layout.encoding(),
                narrowest.encoding()
            ));
        }
    }

    histogram_is(conn, name, &levels)?;

    // The farthest positions: every rank at the maximum distance, with its notation.
    let far: Vec<u64> = match max {
        Some(m) => {
            let mut v: Vec<u64> = (t.dist.par_iter().enumerate())
                .filter(|&(_, &d)| d == m)
                .map(|(r, _)| r as u64)
                .collect();
            v.sort_unstable();
            v
        }
        None => Vec::new(),
    };
    let mut st =
        conn.prepare("SELECT rank, state, distance FROM farthest WHERE puzzle = ?1 ORDER BY rank")?;
    let mut rows = st.query([name])?;
    let mut i = 0;
    while let Some(row) = rows.next()? {
        let rank = int(row.get_ref(0)?, &|| "farthest.rank".to_string())?;
        let Some(&want) = far.get(i) else {
            return bad(format!(
                "farthest: rank {} is stored but is not at the maximum distance",
                show_opt(rank)
            ));
        };
        let at = || format!("farthest rank {want} (state {})", g.format(want));
        if rank != Some(want as i64) {
            return bad(format!(
                "{}: missing (rank {} stored in its place)",
                at(),
                show_opt(rank)
            ));
        }
        let state = text(row.get_ref(1)?, &|| format!("{}: state", at()))?;
        if state.as_deref() != Some(g.format(want).as_str()) {
            return bad(format!(
                "{}: state text {:?} is not the notation of the rank",
                at(),
                state.unwrap_or_default()
            ));
        }
        let d = int(row.get_ref(2)?, &|| format!("{}: distance", at()))?;
        if d != max.map(i64::from) {
            return bad(format!(
                "{}: distance {} but the table gives {}",
                at(),
                show_opt(d),
                show_opt(max)
            ));
        }
        i += 1;
    }
    if let Some(&want) = far.get(i) {
        return bad(format!(
            "farthest rank {want} (state {}): at the maximum distance but missing",
            g.format(want)
        ));
    }
    Ok(Derived {
        entries: n,
        states: n,
        solvable: levels.iter().sum(),
        max_distance: max,
    })
}

/// The blobs of chunks `0..chunks` of one packed table, each present exactly once.
/// fifteen's pattern tables: one per pattern of each built partition, in that order, each
/// laid out as `generate` lays it out, and every entry 1 + the minimum over the placements
/// one pattern-tile move away (free blank moves accounted for), as [`pattern::check`]
/// re-derives it.
fn pattern_tables(conn: &Connection, name: &str, f: &Fifteen) -> Check<Derived> {
    must_be_empty(
        conn,
        name,
        &["positions", "peg_layers", "peg_matrix", "solutions"],
    )?;
    let stored = packed_table_rows(conn, name)?;
    let mut derived = Derived {
        entries: 0,
        states: 0,
        solvable: FACT[16] / 2,
        max_distance: None,
    };
    let mut k = 0;
    let mut loaded = Vec::new();
    for part in f.built() {
        for (i, p) in f.patterns(part).iter().enumerate() {
            let kind = families::fifteen::TABLE_KINDS[k];
            k += 1;
            let Some(s) = stored.iter().find(|s| s.0 == kind) else {
                return bad(format!(
                    "packed_tables: the {kind} table (partition {} pattern {i}) is missing",
                    part.name
                ));
            };
            let l = ByteLayout::new(p.placements());
            let what = |col: &str| format!("packed_tables {kind} {col}");
            same(&what("encoding"), s.1.as_str(), "u8")?;
            same(
                &what("ranks_per_chunk"),
                &s.2,
                &(l.ranks_per_chunk() as i64),
            )?;
            same(&what("chunks"), &s.3, &(l.chunks() as i64))?;
            // The layout names the table; only its build time is not derived.
            let mut want = l.describe();
            want["partition"] = serde_json::json!(part.name);
            want["pattern"] = serde_json::json!(i);
            want["tiles"] = serde_json::json!(p.tiles());
            let got: serde_json::Value =
                serde_json::from_str(&s.4).or_else(|_| bad(what("layout") + " is not JSON"))?;
            let named = ["partition", "pattern", "tiles", "ranks", "ranks_per_chunk"];
            if named.iter().any(|key| got.get(*key) != want.get(*key)) {
                return bad(what("layout") + " does not name its table as the rules give");
            }
            let blobs = read_chunks(conn, name, kind, l.chunks())?;
            let Some(bytes) = l.decode(&blobs) else {
                return bad(format!("{kind}: its chunks are not {} bytes", l.ranks()));
            };
            // Which entry the rules give is checked with the table (`pattern::check`).
            let Some(entry) = got["entry"].as_str().and_then(pattern::Entry::from_name) else {
                return bad(what("layout") + " names no known `entry`");
            };
            let table = pattern::Table { entry, bytes };
            // What the table alone shows first, for every table: a damaged entry is
            // usually named before any breadth-first search is run.
            pattern::check_local(p, &table)
                .or_else(|e| bad(format!("{kind} (partition {} pattern {i}): {e}", part.name)))?;
            derived.entries += p.placements();
            derived.states += pattern::PatternSpace::new(p).size();
            loaded.push((kind, part.name.clone(), i, p.clone(), table));
        }
    }
    for (kind, partition, i, p, table) in &loaded {
        pattern::check(p, table)
            .or_else(|e| bad(format!("{kind} (partition {partition} pattern {i}): {e}")))?;
    }
    if let Some(s) = stored
        .iter()
        .find(|s| !families::fifteen::TABLE_KINDS[..k].contains(&s.0.as_str()))
    {
        return bad(format!(
            "packed_tables: a {} table the rules do not give",
            s.0
        ));
    }
    let extra: i64 = conn.query_row(
        "SELECT count(*) FROM packed_chunks WHERE puzzle = ?1 AND kind NOT IN
         (SELECT kind FROM packed_tables WHERE puzzle = ?1)",
        [name],
        |r| r.get(0),
    )?;
    if extra != 0 {
        return bad(format!("packed_chunks: {extra} chunks of no table"));
    }
    Ok(derived)
}

fn read_chunks(conn: &Connection, name: &str, kind: &str, chunks: u64) -> Check<Vec<Vec<u8>>> {
    let mut st = conn.prepare(
        "SELECT chunk, data FROM packed_chunks WHERE puzzle = ?1 AND kind = ?2 ORDER BY chunk",
    )?;
    let mut rows = st.query([name, kind])?;
    let mut out = Vec::with_capacity(chunks as usize);
    while let Some(row) = rows.next()? {
        let c = int(row.get_ref(0)?, &|| format!("{kind} chunk number"))?;
        if c != Some(out.len() as i64) {
            return bad(format!(
                "{kind} chunk {}: missing ({} stored in its place)",
                out.len(),
                show_opt(c)
            ));
        }
        match row.get_ref(1)? {
            ValueRef::Blob(b) => out.push(b.to_vec()),
            _ => return bad(format!("{kind} chunk {c:?}: its data is not a blob")),
        }
        if out.len() as u64 > chunks {
            return bad(format!(
                "{kind} chunk {}: beyond the table's {chunks} chunks",
                chunks
            ));
        }
    }
    if (out.len() as u64) < chunks {
        return bad(format!("{kind} chunk {}: missing", out.len()));
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// Peg boards

/// A peg board's `positions` rows, sorted by rank (the canonical bitboard).
struct PegRows {
    bits: Vec<u64>,
    /// [`UNREACHED`] where NULL (cannot finish).
    dist: Vec<u8>,
    next: Vec<Option<u64>>,
    /// [`COUNT_OVERFLOW`] where NULL.
    count: Vec<u64>,
    moves: Vec<Option<String>>,
}

impl PegRows {
    fn find(&self, bits: u64) -> Option<usize> {
        self.bits.binary_search(&bits).ok()
    }
}

fn peg_board(conn: &Connection, name: &str, board: &Board) -> Check<Derived> {
    must_be_empty(
        conn,
        name,
        &["solutions", "packed_tables", "packed_chunks", "farthest"],
    )?;
    let at = |b: u64| format!("rank {b} (state {})", board.format(b));
    let limit = if board.holes >= 63 {
        i64::MAX
    } else {
        (1i64 << board.holes) - 1
    };
    let mut rows = PegRows {
        bits: Vec::new(),
        dist: Vec::new(),
        next: Vec::new(),
        count: Vec::new(),
        moves: Vec::new(),
    };
    let mut st = conn.prepare(
        "SELECT rank, state, distance, next_rank, solutions, move FROM positions
         WHERE puzzle = ?1 ORDER BY rank",
    )?;
    let mut q = st.query([name])?;
    while let Some(row) = q.next()? {
        let b = int_in(row.get_ref(0)?, 0, limit, &|| "positions.rank".to_string())? as u64;
        let state = text(row.get_ref(1)?, &|| format!("{}: state", at(b)))?;
        if state.as_deref() != Some(board.format(b).as_str()) {
            return bad(format!(
                "{}: state text {:?} is not the notation of the rank",
                at(b),
                state.unwrap_or_default()
            ));
        }
        let d = int(row.get_ref(2)?, &|| format!("{}: distance", at(b)))?;
        rows.dist.push(match d {
            None => UNREACHED,
            Some(d) if (0..UNREACHED as i64).contains(&d) => d as u8,
            Some(d) => return bad(format!("{}: distance {d} is out of range", at(b))),
        });
        let next = int(row.get_ref(3)?, &|| format!("{}: next_rank", at(b)))?;
        if next.is_some_and(|x| !(0..=limit).contains(&x)) {
            return bad(format!(
                "{}: next rank {} is not a position",
                at(b),
                show_opt(next)
            ));
        }
        rows.next.push(next.map(|x| x as u64));
        rows.count.push(
            match int(row.get_ref(4)?, &|| format!("{}: solutions", at(b)))? {
                None => COUNT_OVERFLOW,
                Some(c) if c >= 0 => c as u64,
                Some(c) => return bad(format!("{}: {c} shortest solutions", at(b))),
            },
        );
        rows.moves
            .push(text(row.get_ref(5)?, &|| format!("{}: move", at(b)))?);
        rows.bits.push(b);
    }

    // Canonical form first: every later lookup relies on it.
    first_failure(rows.bits.len() as u64, |i, _| {
        let b = rows.bits[i as usize];
        let c = board.canonical(b).0;
        if c != b {
            return Err(format!(
                "{}: not in canonical form (rank {c} is its class's)",
                at(b)
            ));
        }
        Ok(())
    })?;

    let forward = peg::reachable_layers(board, usize::MAX, &Silent);
    let classes: u64 = forward.iter().map(|l| l.len() as u64).sum();
    let all_reachable = classes <= peg::STORE_ALL_LIMIT;
    let start = board.canonical(board.start).0;
    let finish = board.canonical(board.finish).0;
    for (what, b) in [("start", start), ("finish", finish)] {
        match rows.find(b) {
            Some(i) if rows.dist[i] != UNREACHED => {}
            Some(_) => return bad(format!("{}: the {what}, but no distance is stored", at(b))),
            None => return bad(format!("{}: the {what}, but it is missing", at(b))),
        }
    }
    let in_forward = |b: u64| {
        forward
            .get(b.count_ones() as usize)
            .is_some_and(|l| l.binary_search(&b).is_ok())
    };
    if all_reachable {
        // Every reachable position is a row, and nothing else is.
        let mut all: Vec<u64> = forward.concat();
        all.par_sort_unstable();
        if let Some(i) =
            (0..all.len().max(rows.bits.len())).find(|&i| all.get(i) != rows.bits.get(i))
        {
            return match (all.get(i), rows.bits.get(i)) {
                (Some(&w), Some(&s)) if s < w => bad(format!(
                    "{}: stored, but not reachable from the start",
                    at(s)
                )),
                (Some(&w), _) => bad(format!("{}: reachable from the start, but missing", at(w))),
                (None, Some(&s)) => bad(format!(
                    "{}: stored, but not reachable from the start",
                    at(s)
                )),
                (None, None) => unreachable!(),
            };
        }
    } else {
        // Only the positions that can finish are rows: each must be reachable and have a
        // distance, and every reachable single-jump predecessor of a row can finish
        // through it, so it must be a row too. Any reachable position that can finish
        // has a path from the start through such predecessors, so none is left out.
        let masks: Vec<(u64, u64, u64)> = (board.jumps.iter())
            .map(|j| {
                let (f, o, t) = (1u64 << j.from, 1u64 << j.over, 1u64 << j.to);
                (f | o, t, f | o | t)
            })
            .collect();
        first_failure(rows.bits.len() as u64, |i, _| {
            let b = rows.bits[i as usize];
            if !in_forward(b) {
                return Err(format!(
                    "{}: stored, but not reachable from the start",
                    at(b)
                ));
            }
            if rows.dist[i as usize] == UNREACHED {
                return Err(format!(
                    "{}: no distance stored, but only positions that can finish are kept for this board",
                    at(b)
                ));
            }
            for &(need, land, all) in &masks {
                if b & land != 0 && b & need == 0 {
                    let p = board.canonical(b ^ all).0;
                    if in_forward(p) && rows.find(p).is_none() {
                        return Err(format!(
                            "{}: reachable, and it can finish through rank {b}, but it is missing",
                            at(p)
                        ));
                    }
                }
            }
            Ok(())
        })?;
    }

    // Distances, next moves and counts over moves (chains of jumps).
    let dist_of = |b: u64| rows.find(b).map_or(UNREACHED, |i| rows.dist[i]);
    first_failure(rows.bits.len() as u64, |i, _| {
        let i = i as usize;
        let (b, d) = (rows.bits[i], rows.dist[i]);
        let (next, count, mv) = (rows.next[i], rows.count[i], rows.moves[i].as_deref());
        if b == finish {
            if d != 0 || count != 1 || next.is_some() || mv.is_some() {
                return Err(format!(
                    "{}: the finish, but distance {}, {} solutions, next rank {}, move {}",
                    at(b),
                    show_dist(d),
                    show_count(count),
                    show_opt(next),
                    mv.unwrap_or("NULL")
                ));
            }
            return Ok(());
        }
        let succ: Vec<(Vec<u8>, u64, u8)> = board
            .moves(b)
            .into_iter()
            .map(|(m, after)| {
                let c = board.canonical(after).0;
                (m, c, dist_of(c))
            })
            .collect();
        let min = succ.iter().map(|s| s.2).filter(|&x| x != UNREACHED).min();
        if d == UNREACHED {
            if let Some((m, c, dd)) = succ.iter().find(|s| s.2 != UNREACHED) {
                return Err(format!(
                    "{}: no distance stored, but move {} reaches rank {c} at distance {dd}",
                    at(b),
                    Board::format_moves(std::slice::from_ref(m))
                ));
            }
            if count != 0 || next.is_some() || mv.is_some() {
                return Err(format!(
                    "{}: cannot finish, but {} solutions, next rank {}, move {} are stored",
                    at(b),
                    show_count(count),
                    show_opt(next),
                    mv.unwrap_or("NULL")
                ));
            }
            return Ok(());
        }
        if d == 0 {
            return Err(format!("{}: distance 0 but it is not the finish", at(b)));
        }
        let Some(min) = min else {
            return Err(format!(
                "{}: distance {d} but no move leads to a position that can finish",
                at(b)
            ));
        };
        if d != min + 1 {
            return Err(format!(
                "{}: distance {d} but its successors' minimum is {min}",
                at(b)
            ));
        }
        let (first, first_next, _) = succ.iter().find(|s| s.2 == min).expect("attained");
        let Some(text) = mv else {
            return Err(format!("{}: no move stored", at(b)));
        };
        let Some(after) = board.parse_move(text).and_then(|m| board.apply_move(b, &m)) else {
            return Err(format!("{}: move {text} is not a legal move", at(b)));
        };
        let after = board.canonical(after).0;
        if next != Some(after) {
            return Err(format!(
                "{}: move {text} leads to rank {after}, but next rank {} is stored",
                at(b),
                show_opt(next)
            ));
        }
        if dist_of(after) != min {
            return Err(format!(
                "{}: move {text} is not one step closer (it leads to distance {})",
                at(b),
                show_dist(dist_of(after))
            ));
        }
        let want = Board::format_moves(std::slice::from_ref(first));
        if text != want || next != Some(*first_next) {
            return Err(format!(
                "{}: move {text} is not the first optimal move in enumeration order ({want} is)",
                at(b)
            ));
        }
        // The seeds' counting: every optimal move contributes its result's count.
        let sum = (succ.iter())
            .filter(|s| s.2 == min)
            .fold(0, |s, x| add_counts(s, rows.count[rows.find(x.1).unwrap()]));
        if count != sum {
            return Err(format!(
                "{}: {} shortest solutions stored but its optimal moves' counts add up to {}",
                at(b),
                show_count(count),
                show_count(sum)
            ));
        }
        Ok(())
    })?;

    // Histogram by distance and layers by peg count, recomputed.
    let sizes: Vec<u32> = rows.bits.par_iter().map(|&b| board.class_size(b)).collect();
    let max = rows.dist.iter().copied().filter(|&d| d != UNREACHED).max();
    let mut histogram = vec![[0u64; 2]; max.map_or(0, |m| m as usize + 1)];
    let mut can_finish = vec![[0u64; 2]; forward.len()];
    for (i, &b) in rows.bits.iter().enumerate() {
        let d = rows.dist[i];
        if d != UNREACHED {
            histogram[d as usize][0] += sizes[i] as u64;
            histogram[d as usize][1] += 1;
            let k = b.count_ones() as usize;
            if let Some(slot) = can_finish.get_mut(k) {
                slot[0] += sizes[i] as u64;
                slot[1] += 1;
            }
        }
    }
    let want: Vec<Vec<Option<i64>>> = (histogram.iter().enumerate())
        .map(|(d, h)| vec![Some(d as i64), Some(h[0] as i64), Some(h[1] as i64)])
        .collect();
    let stored = int_rows(
        conn,
        "SELECT distance, positions, classes FROM histogram WHERE puzzle = ?1 ORDER BY distance",
        name,
        "histogram",
    )?;
    let key = |r: &[Option<i64>]| format!("distance {}", show_opt(r[0]));
    same_rows("histogram", &key, &stored, &want)?;

    let layers: Vec<Vec<Option<i64>>> = (forward.iter().enumerate())
        .filter(|(_, l)| !l.is_empty())
        .map(|(k, l)| {
            let reachable: u64 = l.par_iter().map(|&b| board.class_size(b) as u64).sum();
            [
                k as u64,
                reachable,
                can_finish[k][0],
                l.len() as u64,
                can_finish[k][1],
            ]
            .map(|v| Some(v as i64))
            .to_vec()
        })
        .collect();
    let stored = int_rows(
        conn,
        "SELECT pegs, reachable, can_finish, reachable_classes, can_finish_classes FROM peg_layers
         WHERE puzzle = ?1 ORDER BY pegs",
        name,
        "peg_layers",
    )?;
    let key = |r: &[Option<i64>]| format!("pegs {}", show_opt(r[0]));
    same_rows("peg_layers", &key, &stored, &layers)?;

    let matrix: Vec<Vec<Option<i64>>> = if board.matrix {
        (peg::matrix(board, &Silent).iter().enumerate())
            .flat_map(|(s, row)| {
                row.iter()
                    .enumerate()
                    .map(move |(f, &d)| vec![Some(s as i64), Some(f as i64), d.map(i64::from)])
            })
            .collect()
    } else {
        Vec::new()
    };
    let stored = int_rows(
        conn,
        "SELECT start, finish, distance FROM peg_matrix WHERE puzzle = ?1 ORDER BY start, finish",
        name,
        "peg_matrix",
    )?;
    let key = |r: &[Option<i64>]| format!("start {} finish {}", show_opt(r[0]), show_opt(r[1]));
    same_rows("peg_matrix", &key, &stored, &matrix)?;

    let sum = |col: usize| layers.iter().map(|l| l[col].unwrap_or(0) as u64).sum();
    Ok(Derived {
        entries: rows.bits.len() as u64,
        states: sum(1),
        solvable: sum(2),
        max_distance: max,
    })
}

// ---------------------------------------------------------------------------------------
// Enumerations

enum Enumeration<'a> {
    Magic(&'a Magic),
    Tour(&'a TourBoard),
}

fn enumeration(conn: &Connection, name: &str, e: Enumeration<'_>) -> Check<Derived> {
    must_be_empty(
        conn,
        name,
        &[
            "positions",
            "histogram",
            "peg_layers",
            "peg_matrix",
            "packed_tables",
            "packed_chunks",
            "farthest",
        ],
    )?;
    let mut st = conn.prepare(
        "SELECT rank, state, value, canonical FROM solutions WHERE puzzle = ?1 ORDER BY rank",
    )?;
    let mut q = st.query([name])?;
    let mut stored: Vec<Solution> = Vec::new();
    while let Some(row) = q.next()? {
        let rank = int_in(row.get_ref(0)?, 0, i64::MAX, &|| {
            "solutions.rank".to_string()
        })?;
        let at = || format!("rank {rank}");
        let state = text(row.get_ref(1)?, &|| format!("{}: state", at()))?.unwrap_or_default();
        let at = || format!("rank {rank} (state {state})");
        let value = int(row.get_ref(2)?, &|| format!("{}: value", at()))?;
        let canonical = int_in(row.get_ref(3)?, 0, 1, &|| format!("{}: canonical", at()))? == 1;
        // The rule itself, row by row, before the comparison with the enumeration.
        match &e {
            Enumeration::Magic(m) => {
                let Ok(digits) = m.parse(&state) else {
                    return bad(format!("{}: not an arrangement of 1..9", at()));
                };
                let Some(sum) = m.side_sum(&digits) else {
                    return bad(format!("{}: its three sides have different sums", at()));
                };
                if value != Some(sum) {
                    return bad(format!(
                        "{}: side sum {} stored, its sides sum to {sum}",
                        at(),
                        show_opt(value)
                    ));
                }
                let r = m.rank(&digits);
                if r != rank as u64 || crate::families::magic::format_magic(&digits) != state {
                    return bad(format!("{}: the arrangement's rank is {r}", at()));
                }
            }
            Enumeration::Tour(board) => {
                if let Err(err) = board.parse_tour(&state) {
                    return bad(format!("{}: not a closed knight's tour: {err}", at()));
                }
                if value.is_some() {
                    return bad(format!("{}: a value is stored, but tours have none", at()));
                }
            }
        }
        stored.push(Solution {
            rank: rank as u64,
            state,
            value,
            canonical,
        });
    }
    let want = match e {
        Enumeration::Magic(m) => m.solve(&Silent),
        Enumeration::Tour(board) => crate::families::tour::closed_tours(board, &Silent),
    };
    for (i, w) in want.iter().enumerate() {
        let at = format!("rank {} (state {})", w.rank, w.state);
        match stored.get(i) {
            Some(s) if s == w => {}
            Some(s) if s.rank < w.rank => {
                return bad(format!(
                    "rank {} (state {}): stored, but not a solution the enumeration finds",
                    s.rank, s.state
                ));
            }
            Some(s) if s.rank == w.rank && s.state != w.state => {
                return bad(format!("{at}: state text {:?} stored instead", s.state));
            }
            Some(s) if s.rank == w.rank && s.canonical != w.canonical => {
                return bad(if w.canonical {
                    format!("{at}: its class's one representative, but not marked canonical")
                } else {
                    format!("{at}: marked canonical, but its class's representative is another row")
                });
            }
            Some(s) if s.rank == w.rank => {
                return bad(format!(
                    "{at}: value {} stored, {} expected",
                    show_opt(s.value),
                    show_opt(w.value)
                ));
            }
            _ => return bad(format!("{at}: a solution, but it is missing")),
        }
    }
    if let Some(s) = stored.get(want.len()) {
        return bad(format!(
            "rank {} (state {}): stored, but not a solution the enumeration finds",
            s.rank, s.state
        ));
    }
    let states = match e {
        Enumeration::Magic(m) => FACT[m.positions()],
        Enumeration::Tour(_) => want.len() as u64,
    };
    Ok(Derived {
        entries: want.len() as u64,
        states,
        solvable: want.len() as u64,
        max_distance: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_failure_is_the_smallest_index() {
        let f = |i: u64, _: &mut Vec<u64>| {
            if i % 7_000 == 6_999 {
                Err(format!("at {i}"))
            } else {
                Ok(())
            }
        };
        for _ in 0..20 {
            match first_failure(1 << 20, f) {
                Err(Fail::Bad(m)) => assert_eq!(m, "at 6999"),
                _ => panic!("a failure is found"),
            }
        }
        assert!(first_failure(1 << 20, |_, _| Ok(())).is_ok());
    }
}
