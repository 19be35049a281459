//! `verify`: re-derives every fact stored in a generated file from the puzzle rules and
//! reports the first one that does not hold. Nothing in the file is trusted but the
//! puzzle names: each puzzle's rules come from this build's definition
//! ([`catalog::find`]), and every stored row, blob and summary figure is checked against
//! them.
//!
//! This file is the entry point ([`verify_file`], [`verify_conn`]) and the check of each
//! puzzle's `puzzles` row; the rows behind it are checked by the file for its storage:
//! `graph` (move puzzles, rows or packed), `patterns` (fifteen's pattern tables), `peg`
//! (peg boards), `enumeration` (magic triangle, tours). `check` and `stored` hold what
//! they share.
//!
//! The checks over ranks and rows run in parallel on tables read into memory once; the
//! first failure reported is the one at the smallest rank, whatever the thread count.

mod check;
mod coded;
pub mod consistency;
mod enumeration;
mod file;
mod graph;
mod layers;
mod patterns;
mod peg;
mod stored;

use std::path::Path;
use std::time::Instant;

use crate::store::{Reader, SqlError};
use thiserror::Error;

use crate::catalog::identity::{self, definition_hash_of};
use crate::catalog::{self, UnknownPuzzle};
use crate::core::progress::{Progress, Silent};
use crate::families::Puzzle;
use crate::store::{self, PuzzleInfo, Storage, StoreError};
use check::{Check, Derived, Fail, bad, same, show_opt};
use enumeration::{Enumeration, enumeration};
use graph::{packed_graph, row_graph, two_bit_graph};
use patterns::pattern_tables;
use peg::peg_board;

/// Why a file failed verification, or could not be verified.
#[derive(Debug, Error)]
#[warn(missing_docs)]
#[non_exhaustive]
pub enum VerifyError {
    /// A puzzle name that no definition gives.
    #[error(transparent)]
    UnknownPuzzle(#[from] UnknownPuzzle),
    /// A puzzle asked for that the file does not hold.
    #[error("puzzle {0} is not in the database")]
    NotGenerated(String),
    /// A stored fact that does not hold: the puzzle, and where and what.
    #[error("verify: {puzzle}: {fact}")]
    Bad {
        /// The puzzle.
        puzzle: String,
        /// Where and what.
        fact: String,
    },
    /// SQLite's own structure check failed.
    #[error("verify: the file fails SQLite's integrity_check: {0}")]
    Structure(String),
    /// A fact about the file as a whole (schema, `meta`, its record of its puzzles,
    /// rows of no listed puzzle).
    #[error("verify: the file: {0}")]
    File(String),
    /// The file could not be opened or read, or its pages fail their checksums.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl VerifyError {
    /// Whether the user asked for something malformed (exit code 2).
    pub fn is_usage(&self) -> bool {
        matches!(self, VerifyError::UnknownPuzzle(_))
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
#[warn(missing_docs)]
#[non_exhaustive]
pub struct Report {
    /// The puzzle.
    pub puzzle: String,
    /// How its answers are stored.
    pub storage: Storage,
    /// What `list` shows as `stored` (and `list --json` as `states`), re-derived: the
    /// ranks of a move puzzle's space, the pattern-table entries of a puzzle answered by
    /// search, the positions reachable on a peg board, the arrangements an enumeration
    /// examines.
    pub stored: u64,
    /// Entries read and checked: ranks of a move puzzle's space, rows of a peg board
    /// (one per symmetry class) or an enumeration, entries of the pattern tables built.
    pub entries: u64,
    /// Positions that reach the goal (or solutions), as re-derived.
    pub solvable: u64,
    /// The largest distance, as re-derived.
    pub max_distance: Option<u32>,
    /// Seconds the checks took.
    pub seconds: f64,
}

/// Opens `db` read-only and verifies it, every puzzle (or only those named) in registry
/// order, calling `done` after each and stopping at the first fact that does not hold.
#[warn(missing_docs)]
pub fn verify_file(
    db: &Path,
    only: &[String],
    done: &mut dyn FnMut(&Report),
) -> Result<Vec<Report>, VerifyError> {
    verify_file_with(db, only, &|_| Box::new(Silent), done)
}

/// A progress sink for the re-derivation of one puzzle, by its name (as
/// [`crate::generate::Observer::progress`] gives).
pub type Bars<'a> = &'a dyn Fn(&str) -> Box<dyn Progress + 'a>;

/// [`verify_file`] with a progress sink for each puzzle re-derived.
pub fn verify_file_with(
    db: &Path,
    only: &[String],
    bars: Bars<'_>,
    done: &mut dyn FnMut(&Report),
) -> Result<Vec<Report>, VerifyError> {
    // verify names every page another program changed; the readers only page 1.
    let every = |e: VerifyError| match e {
        VerifyError::Store(e) => VerifyError::Store(store::with_every_page(e)),
        e => e,
    };
    let conn = store::open_checked(db).map_err(|e| every(e.into()))?;
    verify_conn_with(&conn, db, Scope::Named(only), bars, done)
        .map(|c| c.reports)
        .map_err(every)
}

/// Which puzzles a verify re-derives from the rules.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    /// These puzzles, or every puzzle the file holds when empty (and then the file as a
    /// whole too): what `verify` does.
    Named(&'a [String]),
    /// What a `generate` run computed: these puzzles are re-derived; every other puzzle
    /// in the file (carried over unchanged from a file that was checked when it was
    /// made) has its `puzzles` row checked against its definition and its rows against
    /// its checksum; and the file as a whole is checked as [`Scope::Named`] with every
    /// puzzle checks it (structure, size, schema, `meta`, the record of its puzzles,
    /// orphan rows, the seal): what `generate --verify` does.
    Built(&'a [String]),
}

/// What a verify checked.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Checked {
    /// The puzzles re-derived from the rules, in the order checked.
    pub reports: Vec<Report>,
    /// The puzzles checked only against their definitions and checksums
    /// (the puzzles `generate --verify` carried over unchanged), in the order checked.
    pub by_checksum: Vec<String>,
}

/// Verifies `conn` as `scope` says, in registry order, calling `done` after each puzzle
/// re-derived and drawing its progress on `bars(puzzle)`. Stops at the first puzzle with
/// a fact that does not hold.
pub fn verify_conn_with(
    conn: &Reader,
    path: &Path,
    scope: Scope<'_>,
    bars: Bars<'_>,
    done: &mut dyn FnMut(&Report),
) -> Result<Checked, VerifyError> {
    let sql = |source: SqlError| VerifyError::Store(StoreError::from_sqlite(path, source));
    let names = catalog::names();
    let only = match scope {
        Scope::Named(only) => only,
        Scope::Built(_) => &[],
    };
    for name in only {
        // A `puzzles` row that cannot be read is damage, reported as such, not a name the
        // user mistyped.
        if let Err(catalog::LookupError::Unknown) = known(conn, name).map_err(sql)? {
            let held = conn.puzzle_names().ok();
            return Err(UnknownPuzzle::new(name, held.as_deref(), &names).into());
        }
    }
    file::structure(conn, &sql)?;
    file::size(conn, path, &sql)?;
    // Only the names are read from `puzzles` before each puzzle is checked, so that a
    // damaged column is reported as such rather than as a read error.
    let mut stored = conn.puzzle_names().map_err(sql)?;
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

    let mut checked = Checked::default();
    for name in stored {
        let fail = |f| match f {
            Fail::Bad(fact) => VerifyError::Bad {
                puzzle: name.clone(),
                fact,
            },
            Fail::Sql(e) => sql(e),
        };
        if let Scope::Built(built) = scope
            && !built.contains(&name)
        {
            by_checksum(conn, &name).map_err(fail)?;
            digests_match(conn, &name).map_err(fail)?;
            checked.by_checksum.push(name);
            continue;
        }
        let started = Instant::now();
        let progress = bars(&name);
        let report = verify_puzzle(conn, path, &name, progress.as_ref()).map_err(fail)?;
        digests_match(conn, &name).map_err(fail)?;
        drop(progress);
        let report = Report {
            seconds: started.elapsed().as_secs_f64(),
            ..report
        };
        done(&report);
        checked.reports.push(report);
    }
    // The whole file once its puzzles pass: so that a fact about one puzzle is reported
    // as such, and a verify of a few puzzles only looks at those.
    if only.is_empty() {
        file::whole(conn, &sql)?;
    }
    Ok(checked)
}

/// The digests beside the puzzle's rows are those its rows give, group for group
/// ([`store::digests`]): what the readers check each value they read against.
fn digests_match(conn: &Reader, name: &str) -> Check<()> {
    match conn.digest_difference(name)? {
        Some(fact) => bad(format!("digests: {fact}")),
        None => Ok(()),
    }
}

/// A puzzle's `puzzles` row as its definition gives it, and the puzzle, its row, its
/// storage and whether it stores counts.
fn row_facts(conn: &Reader, name: &str) -> Check<(Puzzle, PuzzleInfo, Storage, bool)> {
    // One read of the row: it gives the stored definition a user's puzzle is rebuilt
    // from, and the facts checked against what the definition gives.
    let info = match conn.puzzle(name) {
        Ok(Some(info)) => info,
        Ok(None) => return bad("its puzzles row vanished while reading"),
        Err(e) if e.is_bad_value() => {
            return bad(format!("its puzzles row is malformed: {e}"));
        }
        Err(e) => return Err(e.into()),
    };
    // A built-in puzzle's rules come from the binary; a user's from its stored definition.
    let p = match catalog::lookup(name, Some(&info.definition)) {
        Ok(p) => p,
        // Its own reason: a family this program does not know (one defined outside the
        // crate, say) is named, not taken for damage.
        Err(catalog::LookupError::BadDefinition(why)) => {
            return bad(format!("its stored definition cannot be used: {why}"));
        }
        Err(catalog::LookupError::Unknown) => {
            return bad("not a puzzle this build knows or can rebuild from its stored definition");
        }
    };
    // Which partitions' tables fifteen stores is part of its definition: any this build
    // knows is checked against the tables it names.
    let p = identity::as_stored(p, &info);
    let (storage, counts) = catalog::plan::storage(&p);
    let definition = p.definition().to_string();
    same("puzzles.family", info.family.as_str(), p.family())?;
    same(
        "puzzles.definition (the file was built from another definition: build it again)",
        info.definition.as_str(),
        definition.as_str(),
    )?;
    same(
        "puzzles.definition_hash",
        info.definition_hash.as_str(),
        definition_hash_of(p.name(), &definition).as_str(),
    )?;
    same("puzzles.storage", info.storage.as_str(), storage.as_str())?;
    same("puzzles.counts", &info.counts, &counts)?;
    Ok((p, info, storage, counts))
}

/// A puzzle carried over unchanged by `generate` ([`Scope::Built`]): its `puzzles` row
/// is what its definition gives, and its rows are the ones its checksum was taken of
/// when they were derived (and checked, by the run that made the previous file).
fn by_checksum(conn: &Reader, name: &str) -> Check<()> {
    let (_, info, _, _) = row_facts(conn, name)?;
    checksum(conn, &info)
}

fn verify_puzzle(conn: &Reader, path: &Path, name: &str, progress: &dyn Progress) -> Check<Report> {
    let (p, info, storage, counts) = row_facts(conn, name)?;
    // The rows' checksum, where it was taken as they were read.
    let mut sum = None;
    let derived = match &p {
        Puzzle::Graph(g) => {
            let g = g.as_ref();
            let (_, two_bit, _) = crate::core::space::graph_tables(g);
            match g.packing().filter(|_| storage == Storage::Packed) {
                _ if storage == Storage::Packed && two_bit => {
                    let (derived, read) = two_bit_graph(conn, name, g, counts, progress)?;
                    sum = Some(read);
                    derived
                }
                Some(layout) => packed_graph(conn, name, g, layout, counts, progress)?,
                None => row_graph(conn, name, g, progress)?,
            }
        }
        Puzzle::Peg(board) if storage == Storage::PegLayers => {
            layers::peg_layers(conn, path, name, board, progress)?
        }
        Puzzle::Peg(board) => peg_board(conn, name, board, progress)?,
        Puzzle::Magic(m) => {
            let (derived, read) = enumeration(conn, name, Enumeration::Magic(m))?;
            sum = Some(read);
            derived
        }
        Puzzle::Tour(board) => {
            let (derived, read) = enumeration(conn, name, Enumeration::Tour(board))?;
            sum = Some(read);
            derived
        }
        Puzzle::Patterns(f) => {
            let (derived, read) = pattern_tables(conn, name, f, progress)?;
            sum = Some(read);
            derived
        }
        Puzzle::Clusters(r) => clusters(r)?,
    };
    same("puzzles.states", &info.states, &derived.states)?;
    same("puzzles.solvable", &info.solvable, &derived.solvable)?;
    same(
        "puzzles.max_distance",
        show_opt(info.max_distance).as_str(),
        show_opt(derived.max_distance).as_str(),
    )?;
    match sum {
        Some(sum) => checksum_is(&info, &sum)?,
        None => checksum(conn, &info)?,
    }
    Ok(Report {
        puzzle: name.to_string(),
        storage,
        stored: derived.states,
        entries: derived.entries,
        solvable: derived.solvable,
        max_distance: derived.max_distance,
        seconds: 0.0,
    })
}

/// A puzzle answered by searching each board's cluster stores nothing: its row says so,
/// the rows' checksum (taken by the caller) is that of no rows, and the search still
/// solves its start.
fn clusters(r: &crate::families::blocks::clusters::RushHour) -> Check<Derived> {
    let stop = crate::solvers::search::Stop::default();
    if let Err(e) = r.solve(r.start(), crate::families::blocks::rush::MAX_CLUSTER, &stop) {
        return bad(format!("its start board is not solved by the search: {e}"));
    }
    Ok(Derived {
        entries: 0,
        states: 0,
        solvable: 0,
        max_distance: None,
    })
}

fn checksum(conn: &Reader, info: &PuzzleInfo) -> Check<()> {
    checksum_is(info, &conn.checksum(&info.name)?)
}

/// `sum`, the checksum of the puzzle's rows, is the one its `puzzles` row records.
fn checksum_is(info: &PuzzleInfo, sum: &str) -> Check<()> {
    if sum != info.checksum {
        return bad(format!(
            "puzzles.checksum is {} but the rows give {sum}",
            info.checksum
        ));
    }
    Ok(())
}

/// The puzzle `name` as the file holds it: built in, or rebuilt from the definition
/// stored with it ([`catalog::lookup`], the rule `query` follows too), or why it is
/// neither. A row that cannot be read is an error, not an unknown name.
fn known(conn: &Reader, name: &str) -> store::Sql<Result<Puzzle, catalog::LookupError>> {
    let stored = conn.puzzle(name)?;
    Ok(catalog::lookup(
        name,
        stored.as_ref().map(|i| i.definition.as_str()),
    ))
}
