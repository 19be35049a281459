//! The nightly job: computes every puzzle (or reuses it from the previous file when its
//! definition is unchanged) into a temporary file beside the target, verifies it, and
//! renames it into place. An interrupted run leaves the previous file untouched; a
//! second run on the same file while one is under way is refused.

pub mod backend;
pub mod distributed;
mod lock;
#[cfg(feature = "mpi")]
pub mod mpi;
mod options;
mod rebuild;
pub mod records;
mod temporary;

pub use options::{Observer, Options, Summary};
pub use temporary::remove_temporaries;
use temporary::{TempFile, file_name, remove_stale_temporaries};

use backend::{Backend, Local};

use std::collections::HashMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::Instant;

use thiserror::Error;

use crate::catalog::identity::definition_hash;
use crate::catalog::{self, Definition, UnknownPuzzle, identity};
use crate::core::memory;
use crate::families::Puzzle;
use crate::store::integrity;
use crate::store::signature::{self, SignatureError, SigningKey};
use crate::store::{self, PuzzleInfo, StoreError};
use crate::verify;

/// Why a run of `generate` stopped. The file at the target path is then as it was.
#[derive(Debug, Error)]
#[warn(missing_docs)]
#[non_exhaustive]
pub enum GenerateError {
    /// A puzzle asked for that no definition gives.
    #[error(transparent)]
    UnknownPuzzle(#[from] UnknownPuzzle),
    /// A partition `generate --partition` names that no pattern-database puzzle has.
    #[error(transparent)]
    Partition(#[from] crate::families::fifteen::PartitionError),
    /// Another run holds the file's lock.
    #[error("another generate is already writing {0}; try again when it has finished")]
    Busy(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What failed.
        source: std::io::Error,
    },
    /// The file at the path is not one this run may replace (not a puzzlebase file).
    #[error("refusing to replace {0}")]
    Refused(String, #[source] StoreError),
    /// Reading the previous file or writing the new one failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The signing key could not be used, or signing failed.
    #[error(transparent)]
    Signature(#[from] SignatureError),
    /// Solving a puzzle failed (out of memory, a failed process of a distributed run).
    #[error("solving {puzzle}: {source}")]
    Solve {
        /// The puzzle.
        puzzle: String,
        /// Why it failed.
        source: records::SolveFailure,
    },
    /// The new file failed its checks; it was not put in place.
    #[error("verification of the new file failed: {0}")]
    Verify(String),
    /// Two definitions give the same puzzle name.
    #[error(
        "puzzle {0:?} is defined twice (a built-in puzzle or another definition has that name)"
    )]
    Clash(String),
    /// A user's puzzle in the previous file cannot be rebuilt, so it cannot be carried.
    #[error(
        "{path}: puzzle {name:?} cannot be rebuilt from its stored definition ({why}); the file is left as it was"
    )]
    StoredDefinition {
        /// The previous file.
        path: String,
        /// The puzzle.
        name: String,
        /// Why its definition cannot be used.
        why: String,
    },
}

type Result<T, E = GenerateError> = std::result::Result<T, E>;

fn io(path: &Path) -> impl Fn(std::io::Error) -> GenerateError + '_ {
    move |source| GenerateError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn sql(path: &Path) -> impl Fn(store::SqlError) -> GenerateError + '_ {
    move |source| GenerateError::Store(StoreError::from_sqlite(path, source))
}

/// Runs the job. On any error the previous file is left as it was.
#[warn(missing_docs)]
pub fn generate(opts: &Options, observer: &dyn Observer) -> Result<Vec<Summary>> {
    generate_with(opts, Vec::new(), false, observer)
}

/// Runs the job, and before the new file replaces the old one checks it: the puzzles
/// this run computed are re-derived from the rules as [`verify_file`](crate::verify_file) does, the
/// puzzles carried over unchanged are checked against their checksums and definitions,
/// and the file as a whole (structure, schema, `meta`, its record of its puzzles) as
/// `verify` checks it; [`Observer::checked`] is told which
/// were which. A failure leaves the previous file as it was. When nothing needs
/// building, the existing file is checked the same way, re-deriving nothing: `verify`
/// re-derives every puzzle.
#[warn(missing_docs)]
pub fn generate_and_verify(opts: &Options, observer: &dyn Observer) -> Result<Vec<Summary>> {
    generate_with(opts, Vec::new(), true, observer)
}

/// [`generate`] (or, with `verify`, [`generate_and_verify`]) with users' puzzles besides
/// the built-in ones, as `generate --definitions DIR` runs: each [`Definition`] (read
/// from files or from a TOML text made in code) is built unless its stored table is
/// current, and the users' puzzles the file already holds are carried over. Two
/// definitions of one name are refused ([`GenerateError::Clash`]).
#[warn(missing_docs)]
pub fn generate_definitions(
    opts: &Options,
    definitions: Vec<Definition>,
    verify: bool,
    observer: &dyn Observer,
) -> Result<Vec<Summary>> {
    let extra = definitions
        .into_iter()
        .map(Definition::into_puzzle)
        .collect();
    generate_with(opts, extra, verify, observer)
}

/// Runs the job with users' puzzles (`--definitions`) besides the built-in ones, verifying
/// the new file before the rename when `full_check` is set. Users' puzzles already in the
/// file are kept: they are rebuilt from their stored definitions.
pub fn generate_with(
    opts: &Options,
    extra: Vec<Puzzle>,
    full_check: bool,
    observer: &dyn Observer,
) -> Result<Vec<Summary>> {
    generate_signed(
        &Local,
        opts,
        catalog::registry(),
        extra,
        full_check,
        observer,
        None,
    )
}

/// One run of `generate` as the command line asks for it, besides its [`Options`]: the
/// pattern-database partitions to build (`--partition`), the users' puzzles
/// (`--definitions`), whether the new file is verified before it replaces the old one
/// (`--verify`), the key that signs it (`--sign`), and the processes that share its
/// searches (`--checkpoints`, `--resume`, `mpirun`; this machine's threads alone when
/// `None`). [`Job::default`] is [`generate`]'s run.
#[derive(Default)]
pub struct Job<'a> {
    /// Partitions (by name) that the pattern-database puzzles build besides their own
    /// ([`catalog::registry_building`]); an unknown name is a
    /// [`GenerateError::Partition`] before anything is touched.
    pub partitions: Vec<String>,
    /// Users' puzzles built besides the built-in ones, as [`generate_definitions`] builds them.
    pub definitions: Vec<Definition>,
    /// Verify the new file before the rename, as [`generate_and_verify`] does.
    pub verify: bool,
    /// Sign the finished file with this key: `<db>.minisig` beside it.
    pub sign: Option<&'a SigningKey>,
    /// The processes whose shares of each search this run gathers.
    pub processes: Option<&'a distributed::Processes<'a>>,
}

/// Runs `job` on the job's processes (or this machine), with the
/// built-in puzzles (building the job's partitions) and the job's definitions. The file
/// is the same whatever the processes; on any error the previous file is left as it was.
#[warn(missing_docs)]
pub fn generate_job(opts: &Options, job: Job<'_>, observer: &dyn Observer) -> Result<Vec<Summary>> {
    let registry = if job.partitions.is_empty() {
        catalog::registry()
    } else {
        catalog::registry_building(&job.partitions)?
    };
    let extra = job
        .definitions
        .into_iter()
        .map(Definition::into_puzzle)
        .collect();
    let backend: &dyn Backend = match job.processes {
        Some(p) => p,
        None => &Local,
    };
    generate_signed(
        backend, opts, registry, extra, job.verify, observer, job.sign,
    )
}

/// The whole run: the built-in puzzles given (`registry`, e.g. with
/// [`catalog::registry_building`]'s partitions) and the users' (`extra`), the tables
/// computed on `backend` ([`Local`] is this machine's; the file is the same whatever
/// the backend), and with `sign` the file also signed: `<db>.minisig`
/// ([`signature`]) is written as a temporary beside the finished file and renamed into
/// place right after it and its sidecar. When nothing needs building, the existing file
/// is signed if `<db>.minisig` is missing or is not its signature by that key (after
/// `full_check`, when asked for). Without `sign`, a `<db>.minisig` left beside a file
/// this run replaces is removed (it signed the previous file), with a warning.
pub fn generate_signed(
    backend: &dyn Backend,
    opts: &Options,
    mut registry: Vec<Puzzle>,
    extra: Vec<Puzzle>,
    full_check: bool,
    observer: &dyn Observer,
    sign: Option<&SigningKey>,
) -> Result<Vec<Summary>> {
    for p in extra {
        if catalog::definitions_builtin(p.name()) || registry.iter().any(|q| q.name() == p.name()) {
            return Err(GenerateError::Clash(p.name().to_string()));
        }
        registry.push(p);
    }
    let stored = stored_user_puzzles(&opts.db, &registry)?;
    registry.extend(stored);
    for name in &opts.only {
        if !registry.iter().any(|p| p.name() == name) {
            let buildable: Vec<String> = registry.iter().map(|p| p.name().to_string()).collect();
            return Err(UnknownPuzzle::new(name, None, &buildable).into());
        }
    }
    // Through a symbolic link, the target is what is locked, built beside and replaced.
    let resolved = integrity::resolve(&opts.db).map_err(io(&opts.db))?;
    let db = resolved.as_path();
    let base = file_name(db)?;
    let dir = match db.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(io(&dir)(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "directory does not exist",
        )));
    }

    // The lock lives beside the file, is released by the OS however the process ends,
    // and is removed by the run that held it (`lock`).
    let lock_path = dir.join(format!("{base}.lock"));
    let run_lock = match lock::RunLock::take(&lock_path) {
        Ok(l) => l,
        Err(lock::LockError::Busy) => return Err(GenerateError::Busy(db.display().to_string())),
        Err(lock::LockError::Io(e)) => return Err(io(&lock_path)(e)),
    };
    remove_stale_temporaries(&dir, &base)?;

    let (previous, carried, changed) = previous_puzzles(db, &registry)?;
    if changed {
        observer.warn(&format!(
            "{} has pages that fail their checksums (another program wrote to it, or it is damaged): nothing is copied from it, and every puzzle it names is rebuilt: {}",
            db.display(),
            if carried.is_empty() { "none this build knows".to_string() } else { carried.join(", ") }
        ));
    }
    if !opts.force && carried.is_empty() && is_current(&registry, &previous, &opts.only) {
        // Nothing to compute and nothing to drop: the file stays exactly as it is, and
        // only a sidecar left stale by a run killed between its two renames is rewritten.
        integrity::repair_sidecar(db, &base).map_err(io(db))?;
        let summaries: Vec<Summary> = registry
            .iter()
            .filter_map(|p| previous.get(p.name()))
            .map(|info| reused(info, 0.0))
            .collect();
        summaries.iter().for_each(|s| observer.done(s));
        if full_check {
            // Nothing was built: nothing is re-derived, and the file is checked as a run
            // that carried every puzzle over checks it.
            let conn = store::open_checked(db).map_err(|e| GenerateError::Verify(e.to_string()))?;
            check_new_file(&conn, db, &[], observer)?;
        }
        if let Some(key) = sign {
            let created_at = store::open_read(db)
                .and_then(|conn| created_at(&conn).map_err(|e| StoreError::from_sqlite(db, e)))?;
            let comment = signature::trusted_comment(&base, &created_at);
            if signature::repair(db, key, &comment)? {
                observer.signed(&signature::signature_path(db), &key.key_id());
            }
        }
        return Ok(summaries);
    }
    let tmp = TempFile::new(store::paths::temporary(db));
    // A file whose pages failed is never copied from; else the puzzles kept stay in a
    // copy of the previous file's pages when they can (`rebuild`).
    let in_copy = match changed {
        true => None,
        false => rebuild::in_copy(
            backend, &tmp.path, db, &base, &registry, &previous, &carried, opts, full_check,
            observer,
        )?,
    };
    let (summaries, created_at, sealed) = match in_copy {
        Some(done) => done,
        None => write_new_file(
            backend, &tmp.path, db, &registry, &previous, &carried, opts, full_check, observer,
        )?,
    };
    let comment = signature::trusted_comment(&base, &created_at);
    match (
        persist(
            tmp,
            sealed,
            db,
            &base,
            sign.map(|key| (key, comment.as_str())),
        )?,
        sign,
    ) {
        (Signed::Yes(path), Some(key)) => observer.signed(&path, &key.key_id()),
        (Signed::StaleRemoved(path), _) => observer.unsigned(&path),
        _ => {}
    }
    drop(run_lock);
    Ok(summaries)
}

/// Whether a run would leave the file as it is: every puzzle asked for (all when `only`
/// is empty) is already there, and everything there is a known puzzle built from its
/// current definition (anything else would be dropped).
fn is_current(
    registry: &[Puzzle],
    previous: &HashMap<String, PuzzleInfo>,
    only: &[String],
) -> bool {
    let current = |p: &Puzzle| {
        previous
            .get(p.name())
            .is_some_and(|i| identity::built_from(p, i))
    };
    let known = previous
        .keys()
        .all(|name| registry.iter().any(|p| p.name() == name));
    // A puzzle not asked for may also be absent: it stays absent.
    known
        && registry
            .iter()
            .all(|p| current(p) || (!asked(p, only) && !previous.contains_key(p.name())))
}

/// Whether a run asked for `p`: named in `only`, or, when `only` is empty, built by the
/// default run ([`catalog::nightly`]).
fn asked(p: &Puzzle, only: &[String]) -> bool {
    if only.is_empty() {
        catalog::nightly(p)
    } else {
        only.iter().any(|o| o == p.name())
    }
}

/// The `puzzles` rows of the previous file, through the page checks: a page that fails
/// its checksum is [`StoreError::Damaged`] whether it is met opening the file or reading
/// the rows.
fn previous_infos(db: &Path) -> std::result::Result<Vec<PuzzleInfo>, StoreError> {
    store::open_read(db).and_then(|conn| conn.puzzles().map_err(|e| StoreError::from_sqlite(db, e)))
}

/// Users' puzzles in the file at `db` that `registry` does not define, rebuilt from
/// their stored definitions. One that cannot be rebuilt stops the run: carrying the file
/// over without it would drop it silently. (A file that cannot be read at all is the
/// business of the steps that read the previous file.)
fn stored_user_puzzles(db: &Path, registry: &[Puzzle]) -> Result<Vec<Puzzle>> {
    let stored: Vec<(String, String)> = match previous_infos(db) {
        Ok(infos) => infos.into_iter().map(|i| (i.name, i.definition)).collect(),
        // A file another program changed still names its puzzles: the user's are rebuilt
        // from their definitions, checked by the family as any definition is.
        Err(e) if e.is_damage() => integrity::puzzles_past_checksums(db).unwrap_or_default(),
        Err(_) => return Ok(Vec::new()),
    };
    stored
        .iter()
        .filter(|(name, _)| {
            !catalog::definitions_builtin(name) && !registry.iter().any(|p| p.name() == name)
        })
        .map(|(name, definition)| {
            catalog::lookup(name, Some(definition)).map_err(|e| GenerateError::StoredDefinition {
                path: db.display().to_string(),
                name: name.clone(),
                why: match e {
                    catalog::LookupError::Unknown => "no such family".to_string(),
                    catalog::LookupError::BadDefinition(why) => why,
                },
            })
        })
        .collect()
}

fn reused(info: &PuzzleInfo, seconds: f64) -> Summary {
    Summary {
        name: info.name.clone(),
        states: info.states,
        solvable: info.solvable,
        max_distance: info.max_distance,
        seconds,
        reused: true,
        peak_memory: None,
    }
}

/// Puzzles in the current file that can be copied, and the names of the known puzzles
/// it holds that must be rebuilt even if not asked for (stale definitions, or a schema
/// too old to copy from): a run never drops a puzzle the file had. A file that is not
/// ours, or is newer, is never replaced.
/// The third value says the file's pages failed their checksums, so that nothing is
/// copied and everything it names is rebuilt.
#[allow(clippy::type_complexity)]
fn previous_puzzles(
    db: &Path,
    registry: &[Puzzle],
) -> Result<(HashMap<String, PuzzleInfo>, Vec<String>, bool)> {
    if !db.exists() {
        return Ok((HashMap::new(), Vec::new(), false));
    }
    let find = |name: &str| registry.iter().find(|p| p.name() == name);
    let (infos, older) = match previous_infos(db) {
        // A file of an older page rule (read and checked by that rule) is rewritten in
        // this one, as a file of an older schema is.
        Ok(infos)
            if store::pagesum::file_rule(db).map_err(io(db))? != store::pagesum::Rule::Bound =>
        {
            (infos, Some(store::SCHEMA_VERSION))
        }
        Ok(infos) => (infos, None),
        // Pages that fail their checksums (another program wrote to the file, or it is
        // damaged): nothing is copied from them, and every puzzle the file names is
        // rebuilt.
        Err(e) if e.is_damage() => {
            // A file without puzzlebase's tables is another program's, never replaced.
            let names = integrity::puzzles_past_checksums(db).map_err(|_| {
                GenerateError::Refused(
                    db.display().to_string(),
                    StoreError::NotOurs(db.display().to_string()),
                )
            })?;
            let carried = (names.into_iter())
                .map(|(n, _)| n)
                .filter(|n| find(n).is_some())
                .collect();
            return Ok((HashMap::new(), carried, true));
        }
        Err(StoreError::Older { found, .. }) if found >= integrity::COPYABLE_SINCE => {
            let conn = store::open_unchecked(db)?;
            (conn.puzzles().map_err(sql(db))?, Some(found))
        }
        Err(StoreError::Older { .. }) => {
            let old = integrity::older_puzzles(db).map_err(sql(db))?;
            let carried = old
                .names
                .into_iter()
                .filter(|n| find(n).is_some())
                .collect();
            return Ok((HashMap::new(), carried, false));
        }
        Err(e @ (StoreError::NotOurs(_) | StoreError::Newer { .. })) => {
            return Err(GenerateError::Refused(db.display().to_string(), e));
        }
        Err(e) => return Err(e.into()),
    };
    let mut carried = Vec::new();
    let mut copyable = HashMap::new();
    for info in infos {
        let Some(p) = find(&info.name) else {
            continue;
        };
        // An older file is always rewritten, so everything in it is carried.
        if older.is_some() || info.definition_hash != definition_hash(p) {
            carried.push(info.name.clone());
        }
        copyable.insert(info.name.clone(), info);
    }
    Ok((copyable, carried, false))
}

#[allow(clippy::too_many_arguments)]
fn write_new_file(
    backend: &dyn Backend,
    tmp: &Path,
    db: &Path,
    registry: &[Puzzle],
    previous: &HashMap<String, PuzzleInfo>,
    carried: &[String],
    opts: &Options,
    full_check: bool,
    observer: &dyn Observer,
) -> Result<(Vec<Summary>, String, integrity::Sealed)> {
    let mut conn = store::create(tmp)?;
    // Nothing needs rolling back in a file that is discarded on failure.
    conn.without_journal().map_err(sql(tmp))?;
    conn.migrate()?;
    conn.write_meta(&opts.only).map_err(sql(tmp))?;
    conn.begin_bulk_load()?;
    if !previous.is_empty() {
        // Read-only, so nothing this run does can touch the previous file.
        // Immutable as well: a journal planted beside it is never copied from.
        let uri = store::paths::immutable_uri(&db.canonicalize().map_err(io(db))?);
        conn.attach_previous(&uri).map_err(sql(tmp))?;
    }

    let written = conn.begin().map_err(sql(tmp))?;
    let mut summaries = Vec::new();
    for p in registry {
        let name = p.name();
        // From before the hash: a puzzle's time covers what `verify`'s covers too.
        let started = Instant::now();
        let hash = definition_hash(p);
        let selected = asked(p, &opts.only);
        let keep = selected || carried.iter().any(|c| c == name);
        let current = previous.get(name).filter(|i| i.definition_hash == hash);
        let summary = match current {
            Some(info) if !selected || !opts.force => {
                conn.copy_puzzle(name)?;
                reused(info, started.elapsed().as_secs_f64())
            }
            _ if !keep => continue,
            _ => build_one(backend, &conn, tmp, p, hash, started, observer)?,
        };
        observer.done(&summary);
        summaries.push(summary);
    }
    // Read back from the file, so that they are the digests of what a reader will read
    // (and a puzzle copied from the previous file gets them too).
    conn.write_all_digests().map_err(sql(tmp))?;
    written.commit().map_err(sql(tmp))?;
    if !previous.is_empty() {
        conn.detach_previous().map_err(sql(tmp))?;
    }
    // Statistics, the compaction and the checks of the copied puzzles take seconds to
    // minutes on a large file: a bar of their own says what the run is doing.
    let progress = observer.progress("the file");
    progress.phase("compacting", 1);
    conn.write_contents().map_err(sql(tmp))?;
    conn.finish().map_err(sql(tmp))?;
    let sealed = seal_and_check(
        conn,
        tmp,
        &summaries,
        Carried::Rehashed,
        full_check,
        observer,
        progress,
    )?;
    Ok((summaries, sealed.0, sealed.1))
}

/// Computes puzzle `p` (definition hash `hash`, its time counted from `started`) on
/// `backend` and writes its rows into `conn`, inside the caller's transaction.
fn build_one(
    backend: &dyn Backend,
    conn: &store::Writer,
    tmp: &Path,
    p: &Puzzle,
    hash: String,
    started: Instant,
    observer: &dyn Observer,
) -> Result<Summary> {
    let name = p.name();
    let measured = memory::reset_peak();
    let progress = observer.progress(name);
    // Scratch files of the large peg boards go beside the file being built.
    let scratch = tmp.parent().unwrap_or(Path::new("."));
    let rec = records::compute(p, hash, backend, scratch, progress.as_ref()).map_err(|source| {
        GenerateError::Solve {
            puzzle: name.to_string(),
            source,
        }
    })?;
    progress.phase("writing", rec.write_units());
    let summary = Summary {
        name: name.to_string(),
        states: rec.states,
        solvable: rec.solvable,
        max_distance: rec.max_distance,
        seconds: 0.0,
        reused: false,
        peak_memory: None,
    };
    conn.write_puzzle(rec, &|| progress.advance(1))?;
    Ok(Summary {
        seconds: started.elapsed().as_secs_f64(),
        peak_memory: memory::peak().filter(|_| measured),
        ..summary
    })
}

/// How the puzzles carried over into a new file are known to hold their checksums.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Carried {
    /// Copied row by row: their rows are hashed again in the new file.
    Rehashed,
    /// In a copy of the previous file's pages ([`store::pagesum::copy_rekeyed`]) whose
    /// bytes hashed to its sidecar: the file a run wrote after holding every puzzle to
    /// its checksum, and the kept puzzles' rows not written since.
    AsSealed,
}

/// The end of a new file (statistics, seal and compaction done): the rollback journal
/// restored, then the file flushed and hashed for its sidecar while SQLite's structure
/// check and (as `carried` says) the carried puzzles' checksums, and with `full_check`
/// the `--verify` checks, read it. Returns the file's `created_at` and its hash.
fn seal_and_check(
    conn: store::Writer,
    tmp: &Path,
    summaries: &[Summary],
    carried: Carried,
    full_check: bool,
    observer: &dyn Observer,
    progress: Box<dyn crate::core::progress::Progress + '_>,
) -> Result<(String, integrity::Sealed)> {
    // The file's last write.
    conn.with_journal().map_err(sql(tmp))?;
    let created = created_at(&conn).map_err(sql(tmp))?;
    progress.advance(1);
    progress.phase("checking", 1);
    // The file is flushed and hashed for its sidecar on a second thread while the
    // checks read it; `persist` hashes it again if it changed after all.
    let (sealed, checked) = std::thread::scope(|scope| {
        let sealed = scope.spawn(|| integrity::Sealed::take(tmp));
        let checked = verify(&conn, tmp, summaries, carried).and_then(|()| {
            progress.advance(1);
            if full_check {
                let built: Vec<String> = (summaries.iter())
                    .filter(|s| !s.reused)
                    .map(|s| s.name.clone())
                    .collect();
                check_new_file(&conn, tmp, &built, observer)?;
            }
            Ok(())
        });
        (sealed.join(), checked)
    });
    drop(progress);
    checked?;
    let sealed = match sealed {
        Ok(sealed) => sealed.map_err(io(tmp))?,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    conn.close().map_err(sql(tmp))?;
    Ok((created, sealed))
}

/// `--verify`: re-derives the puzzles this run computed (`built`); the others were
/// carried over from a file whose rows they still match by checksum, so those and the
/// file as a whole are checked without re-deriving them ([`verify::Scope::Built`]).
fn check_new_file(
    conn: &store::Reader,
    path: &Path,
    built: &[String],
    observer: &dyn Observer,
) -> Result<()> {
    let checked = verify::verify_conn_with(
        conn,
        path,
        verify::Scope::Built(built),
        &|name| observer.progress(name),
        &mut |r| observer.verified(r),
    )
    .map_err(|e| GenerateError::Verify(e.to_string()))?;
    observer.checked(&checked);
    Ok(())
}

/// `meta.created_at` of a file: when it was made, for the signature's trusted comment.
fn created_at(conn: &store::Reader) -> store::Sql<String> {
    let meta = conn.meta()?;
    Ok((meta.into_iter())
        .find(|(k, _)| k == "created_at")
        .map(|(_, v)| v)
        .unwrap_or_default())
}

/// SQLite's own structure check must pass, and every puzzle copied row by row from the
/// previous file must still match its checksum (those kept in a copy of a file that is
/// what its sidecar says are known to: see [`Carried`]). A freshly computed
/// puzzle's checksum was just taken from these same rows by `Writer::write_puzzle`;
/// reading them again would only compare the file with itself.
fn verify(
    conn: &store::Reader,
    path: &Path,
    summaries: &[Summary],
    carried: Carried,
) -> Result<()> {
    let check = conn.quick_check().map_err(sql(path))?;
    if check != "ok" {
        return Err(GenerateError::Verify(check));
    }
    if carried == Carried::AsSealed {
        return Ok(());
    }
    let carried = |name: &str| summaries.iter().any(|s| s.reused && s.name == name);
    for info in conn.puzzles().map_err(sql(path))? {
        if carried(&info.name) && conn.checksum(&info.name)? != info.checksum {
            return Err(GenerateError::Verify(format!(
                "checksum mismatch for {}",
                info.name
            )));
        }
    }
    Ok(())
}

/// What [`persist`] did about the signature.
enum Signed {
    /// `<db>.minisig` was written.
    Yes(PathBuf),
    /// Unsigned run: the previous file's `<db>.minisig` was removed.
    StaleRemoved(PathBuf),
    No,
}

/// Renames the finished file, flushed to disk and hashed (`sealed`, taken again if
/// the file changed since), over the target, then its `<db>.sha256` over the old
/// sidecar, then (with `sign`: the key and the trusted
/// comment) its `<db>.minisig`. Every temporary is complete before the first rename. A
/// crash between the renames leaves a stale sidecar or signature, which the next run
/// rewrites (see [`integrity::repair_sidecar`], [`signature::repair`]). Without `sign`, a
/// `<db>.minisig` of the previous file is removed.
fn persist(
    mut tmp: TempFile,
    sealed: integrity::Sealed,
    db: &Path,
    base: &str,
    sign: Option<(&SigningKey, &str)>,
) -> Result<Signed> {
    let sealed = sealed.of(&tmp.path).map_err(io(&tmp.path))?;
    let sidecar = TempFile::new(integrity::write_sidecar_of(sealed, db, base).map_err(io(db))?);
    let signed = match sign {
        Some((key, comment)) => Some(TempFile::new(signature::write_temporary(
            &tmp.path, db, key, comment,
        )?)),
        None => None,
    };
    fs::rename(&tmp.path, db).map_err(io(db))?;
    tmp.keep = true;
    let target = integrity::sidecar(db);
    fs::rename(&sidecar.path, &target).map_err(io(&target))?;
    let mut sidecar = sidecar;
    sidecar.keep = true;
    let target = signature::signature_path(db);
    let outcome = match signed {
        Some(mut signed) => {
            fs::rename(&signed.path, &target).map_err(io(&target))?;
            signed.keep = true;
            Signed::Yes(target)
        }
        None => match fs::remove_file(&target) {
            Ok(()) => Signed::StaleRemoved(target),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Signed::No,
            Err(e) => return Err(io(&target)(e)),
        },
    };
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        // Makes the rename itself durable; not every platform can open a directory.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(outcome)
}
