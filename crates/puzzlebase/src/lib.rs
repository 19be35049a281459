//! puzzlebase: complete solution databases for classic puzzles, in one SQLite file.
//!
//! A program that reads a file opens a [`Database`] and asks it: a position's distance,
//! solution count, every move with its distance and an optimal path ([`StateAnswer`]),
//! the start, the longest positions ([`LongestAnswer`]), the histogram ([`Histogram`]),
//! a peg board's layers ([`PegLayerRow`]), an enumeration's solutions ([`ListAnswer`]),
//! or a search for a puzzle answered by search ([`SearchAnswer`], bounded by [`Stop`]).
//! Every answer is checked against the rules and the file before it is returned; a file
//! that fails is a [`QueryError`] (its pages: [`StoreError`]), never a wrong answer.
//! [`Database::listing`] lists the puzzles ([`PuzzleInfo`]).
//!
//! A program that writes a file calls [`generate`] with [`Options`], watching it through
//! an [`Observer`] (each puzzle's [`Summary`]); [`verify_file`] re-derives every fact of
//! a file from the rules ([`Report`], [`VerifyError`]).
//!
//! A program can add a puzzle family of its own, a move puzzle the crate does not know
//! ([`GraphPuzzle`] over a [`StateSpace`], built from a definition's [`Spec`] or refused
//! with a [`Problem`]): [`register_family`] adds its [`GraphFamily`] to the registry, and
//! from then on, in that program, its definitions ([`Definition`], from TOML files or
//! text) are generated ([`generate_definitions`]), answered through [`Database`] and
//! verified as the built-in puzzles are (`docs/library.md`, `examples/pancake/`).
//!
//! Inside, the crate is layered, each layer using only those before it (core, solvers,
//! families, catalog, store, then generate, verify and answers, then rendering and the
//! server; see `docs/architecture.md`). The command line (`src/main.rs`) and the HTTP
//! server are behind the default `cli` feature.

#![warn(missing_docs)]

mod answers;
mod generate;
mod render;
mod verify;

// The layers under this crate, by their layer's names within it.
pub(crate) use puzzlebase_core as core;
pub(crate) use puzzlebase_families as families;
pub(crate) use puzzlebase_families::catalog;
pub(crate) use puzzlebase_solvers as solvers;
pub(crate) use puzzlebase_store as store;

// The public API: opening a file and answering from it, generating one, verifying one.
pub use answers::{
    ArrangementAnswer, Database, ExportFormat, ExportKind, ExportPlan, ExportRow, Histogram,
    ListAnswer, LongestAnswer, Move, MoveOption, QueryError, Question, SEARCH_SECONDS,
    SearchAnswer, Solutions, StateAnswer, Stop, Stopped, Trust, default_stop, one_line,
};
pub use catalog::{Definition, DefinitionError, UnknownPuzzle};
pub use core::records::{HistogramRow, PegLayerRow, PuzzleInfo};
pub use core::space::{GraphPuzzle, StateError, StateSpace};
/// What a [`GraphPuzzle`] of a family defined outside the crate may return from
/// [`GraphPuzzle::storage_asked`] and [`GraphPuzzle::packing`]: the storage it asks for,
/// and the runs of ranks a packed table steps along.
pub use core::{
    format::GraphAsk,
    packed::{ChunkLayout, RunLayout},
};
pub use families::GraphFamily;
pub use families::registry::{RebuildError, RegisterError};
pub use families::spec::{Problem, Spec};
pub use generate::{
    GenerateError, Job, Observer, Options, Summary, generate, generate_and_verify,
    generate_definitions, generate_job, remove_temporaries,
};
/// A peg solitaire board ([`Definition::peg_board`]): its holes and jumps, positions as
/// bitboards (bit `i` a peg in hole `i`), their notation, moves and symmetries.
pub use solvers::peg::Board as PegBoard;
/// The file's schema version (`PRAGMA user_version`) this build reads and writes.
pub use store::SCHEMA_VERSION;
/// A [`Reader`] over a connection another program opened (the SQLite extension's host,
/// or a program reading through SQLite's own VFS, without page checksums).
pub use store::borrowing;
/// The commit this library was built from (`PUZZLEBASE_GIT_COMMIT` at build time), as
/// `generate` records it in the `meta` table; `None` when the build did not know it.
pub use store::integrity::GIT_COMMIT;
/// Opens a file read-only as it is, whatever its schema version or checksums: what a
/// tool inspecting a damaged or older file reads it through ([`Database::open`] refuses
/// such a file).
pub use store::open_unchecked;
pub use store::{Reader, StoreError};

/// Makes puzzlebase's page-checksum VFS this process's default SQLite VFS, once: every
/// SQLite connection the process opens afterwards, through any crate, reads and writes
/// through it, so that a program editing a file with its own SQL keeps every page's
/// checksum valid (`docs/file-format.md`). Opening a file through [`Database`] installs
/// it too; this is for programs that open connections of their own first.
pub fn install_page_checksums() -> Result<(), StoreError> {
    store::pagesum::install().map_err(StoreError::Checksums)
}
pub use verify::{Bars, Checked, Report, VerifyError, verify_file, verify_file_with};

// What the `puzzlebase` command and its server use besides the above, documented as for
// any program: answers as JSON and as text, progress, signatures, the file's state as a
// server watches it, definitions checked, and generation across processes.
pub use answers::RowWriter as ExportWriter;
pub use answers::json;
pub use answers::{LoadedTables, Resident, fresh_seed, solve_loaded};
pub use catalog::plan::Plan;
pub use core::progress::{Progress, Silent};
pub use render::text;
pub use store::FileState;
pub use store::signature;

/// Checks the definition file at `path` (TOML, as `generate --definitions` reads it) and
/// says what building it would do ([`Plan`]: its positions, storage and size), without
/// building it; a file that is not a sound definition is refused with one line.
pub fn check_definition(path: &std::path::Path) -> Result<Plan, DefinitionError> {
    let (_, puzzle) = catalog::check_file(path)?;
    Ok(catalog::plan::plan(&puzzle))
}

/// The built-in puzzles' names, in the registry's order (the default file's puzzles and
/// those built on request).
pub fn puzzle_names() -> Vec<String> {
    catalog::names()
}

/// Every built-in puzzle's notation, one line each, as `query --help` and
/// `docs/notation.md` list them (generated from the definitions).
pub fn notations() -> Vec<String> {
    render::notation::lines(&catalog::registry())
}

/// Generation across processes (`generate --checkpoints`, `--resume`, and `mpirun` with
/// feature `mpi`; `docs/distributed.md`): process 0 builds the file through
/// [`Processes`](distributed::Processes) given as [`Job::processes`], every other
/// process runs [`work`](distributed::work) on the same [`Comm`](distributed::Comm).
pub mod distributed {
    pub use crate::generate::backend::BackendError;
    pub use crate::generate::distributed::{Checkpoints, Processes, work};
    #[cfg(feature = "mpi")]
    pub use crate::generate::mpi::Mpi;
    pub use crate::solvers::distributed::{Comm, Reduce, Solo, Threads};
}

/// Adds a family defined outside the crate to this process's registry, after the
/// built-in families: from then on, until the process ends, a definition naming it (a
/// [`Definition`] given to [`generate_definitions`], the definition a file stores for one
/// of its puzzles) builds its puzzle through [`GraphFamily::build`], so [`generate`],
/// [`Database`]'s answers, [`verify_file`] and the server treat the puzzle as they treat
/// a built-in one. A name that is malformed, a built-in family's, or already registered
/// is refused ([`RegisterError`]) and nothing changes.
///
/// A program that has not registered the family (the `puzzlebase` command, the SQLite
/// extension, the Python package) refuses every question about such a puzzle with one
/// line naming the family; its positions' rows stay readable by plain SQL.
pub fn register_family(family: GraphFamily) -> Result<(), RegisterError> {
    families::registry::register(family)
}
