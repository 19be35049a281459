//! A SQLite loadable extension that answers from a puzzlebase file in plain SQL, from
//! the connection the host already has open: `.load libpuzzlebase_sqlite` in the
//! `sqlite3` shell, `load_extension` in Python, Node or Go, `--load-extension` in
//! Datasette. Every function is the library's answer (`puzzlebase::Database`), checked
//! as `query` checks it; see `docs/readers.md`.
//!
//! | function | value |
//! | --- | --- |
//! | `pb_distance(puzzle, state)` | the distance to the goal; `NULL` for a legal position that cannot reach it |
//! | `pb_solutions(puzzle, state)` | the number of shortest solutions; `NULL` where none is stored |
//! | `pb_moves(puzzle, state)` | JSON: every legal move, best first, with where it leads and that position's distance |
//! | `pb_path(puzzle, state)` | JSON: the positions of an optimal path to the goal; `NULL` as for `pb_distance` |
//! | `pb_path_moves(puzzle, state)` | JSON: the names of the moves along `pb_path` (`["R","U2"]`) for puzzles whose moves have names |
//! | `pb_rank(puzzle, state)` / `pb_unrank(puzzle, rank)` | the key of the position's stored row, and back |
//! | `pb_trust(public_key)` | from now on, this connection answers only from the file its signature (`FILE.minisig`) signed with that minisign key; the key's id |
//! | `pb_version()` | this extension's version |
//!
//! Bad input is a SQL error whose message is the line `query` prints. The extension
//! reads through the host's SQLite (the library's `loadable` feature) and connection,
//! with one reader per statement (SQLite's auxiliary data of the puzzle argument):
//! nothing of it outlives the statement that called it, and the host closes its
//! connection as usual.

use std::collections::HashMap;
use std::os::raw::{c_char, c_int};
use std::path::Path;
use std::sync::{Arc, LazyLock, Mutex};

use puzzlebase::{Database, QueryError, Trust, default_stop};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::{Connection, Error, Result, ffi};

/// The entry point SQLite derives from the file name `libpuzzlebase_sqlite.so`.
///
/// # Safety
/// Called by SQLite's extension loader with a valid connection and API routines.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sqlite3_puzzlebasesqlite_init(
    db: *mut ffi::sqlite3,
    pz_err_msg: *mut *mut c_char,
    p_api: *mut ffi::sqlite3_api_routines,
) -> c_int {
    unsafe { init(db, pz_err_msg, p_api) }
}

/// The generic entry point, for hosts that load the extension under another file name.
///
/// # Safety
/// As [`sqlite3_puzzlebasesqlite_init`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sqlite3_extension_init(
    db: *mut ffi::sqlite3,
    pz_err_msg: *mut *mut c_char,
    p_api: *mut ffi::sqlite3_api_routines,
) -> c_int {
    unsafe { init(db, pz_err_msg, p_api) }
}

/// The oldest SQLite the extension loads into: Debian 12's is 3.40.1.
const OLDEST: c_int = 3_040_000;

/// How many of the API routines (`sqlite3_api_routines`, which only ever grows at its
/// end) a SQLite of `version` has, as this build's bindings lay them out.
fn routines_of(version: c_int) -> usize {
    const ALL: usize = size_of::<ffi::sqlite3_api_routines>() / size_of::<usize>();
    match version {
        v if v >= 3_044_000 => ALL,
        // get_clientdata and set_clientdata came with 3.44.0, stmt_explain with 3.43.0,
        // is_interrupted with 3.41.0.
        v if v >= 3_043_000 => ALL - 2,
        v if v >= 3_041_000 => ALL - 3,
        _ => ALL - 4,
    }
}

/// The SQLite version of this build's bindings, which rusqlite requires of its host.
unsafe extern "C" fn bindings_version() -> c_int {
    ffi::SQLITE_VERSION_NUMBER
}

/// Loads the extension into a host whose SQLite may be older than this build's
/// bindings (3.45.3). rusqlite refuses such a host outright; the routines it would use
/// that the host lacks are only the newest four (none of which this extension calls),
/// so it is handed a copy of the host's routines with those left empty and the
/// bindings' version in place of the host's. The copy lives as long as the process,
/// as the host's routines do.
unsafe fn init(
    db: *mut ffi::sqlite3,
    pz_err_msg: *mut *mut c_char,
    p_api: *mut ffi::sqlite3_api_routines,
) -> c_int {
    if p_api.is_null() {
        return ffi::SQLITE_ERROR;
    }
    // SAFETY: SQLite hands the loader its routines, valid for the process's life.
    let version = match unsafe { (*p_api).libversion_number } {
        Some(f) => unsafe { f() },
        None => return ffi::SQLITE_ERROR,
    };
    if version < OLDEST {
        return ffi::SQLITE_ERROR;
    }
    let copy: &'static mut ffi::sqlite3_api_routines = Box::leak(Box::new(
        // SAFETY: every field is an optional function pointer, for which zero is None.
        unsafe { std::mem::zeroed() },
    ));
    let n = routines_of(version);
    // SAFETY: the host's table has at least `n` entries (its version says so), each a
    // pointer-sized optional function pointer, as the copy's first `n` are.
    unsafe {
        std::ptr::copy_nonoverlapping(
            p_api as *const usize,
            (copy as *mut ffi::sqlite3_api_routines).cast::<usize>(),
            n,
        );
    }
    copy.libversion_number = Some(bindings_version);
    unsafe { Connection::extension_init2(db, pz_err_msg, copy, register) }
}

/// Registers the functions on the host's connection. Their answers depend on the file,
/// so none is declared deterministic.
fn register(db: Connection) -> Result<bool> {
    let flags = FunctionFlags::SQLITE_UTF8;
    db.create_scalar_function("pb_version", 0, flags, |_| {
        Ok(env!("CARGO_PKG_VERSION").to_string())
    })?;
    db.create_scalar_function("pb_trust", 1, flags, |ctx| {
        let key: String = text(ctx, 0)?;
        let trust = Trust::from_text(&key).map_err(user_error)?;
        // SAFETY: the host's connection running this function, used for this call only.
        let conn = unsafe { ctx.get_connection()? };
        let key_id = trust.check(&main_file(&conn)?).map_err(user_error)?;
        // SAFETY: the handle is only read, as the key of this connection's entry.
        let handle = unsafe { conn.handle() } as usize;
        trusts().insert(handle, Arc::new(trust));
        Ok(key_id)
    })?;
    db.create_scalar_function("pb_distance", 2, flags, |ctx| {
        let (name, state) = two_texts(ctx)?;
        with_database(ctx, |db| db.distance(&name, &state, &default_stop()))
    })?;
    db.create_scalar_function("pb_solutions", 2, flags, |ctx| {
        let (name, state) = two_texts(ctx)?;
        let count = with_database(ctx, |db| db.solution_count(&name, &state, &default_stop()))?;
        // SQLite's integers are signed: a count above 2^63 - 1 is not stored either.
        Ok(count.and_then(|n| i64::try_from(n).ok()))
    })?;
    db.create_scalar_function("pb_moves", 2, flags, |ctx| {
        let (name, state) = two_texts(ctx)?;
        let moves = with_database(ctx, |db| db.legal_moves(&name, &state, &default_stop()))?;
        Ok(serde_json::Value::Array(moves).to_string())
    })?;
    db.create_scalar_function("pb_path", 2, flags, |ctx| {
        let (name, state) = two_texts(ctx)?;
        let path = with_database(ctx, |db| db.path(&name, &state, &default_stop()))?;
        Ok(path.map(|p| serde_json::Value::from(p).to_string()))
    })?;
    db.create_scalar_function("pb_path_moves", 2, flags, |ctx| {
        let (name, state) = two_texts(ctx)?;
        let names = with_database(ctx, |db| db.path_moves(&name, &state, &default_stop()))?;
        Ok(names.map(|n| serde_json::Value::from(n).to_string()))
    })?;
    db.create_scalar_function("pb_rank", 2, flags, |ctx| {
        let (name, state) = two_texts(ctx)?;
        let rank = with_database(ctx, |db| db.rank(&name, &state))?;
        i64::try_from(rank).map_err(|_| user_error(format!("rank {rank} exceeds SQL integers")))
    })?;
    db.create_scalar_function("pb_unrank", 2, flags, |ctx| {
        let name: String = text(ctx, 0)?;
        let rank: i64 = ctx
            .get(1)
            .map_err(|_| user_error("pb_unrank: the rank must be an integer"))?;
        let rank = u64::try_from(rank)
            .map_err(|_| user_error(format!("rank {rank} is outside the positions of {name}")))?;
        with_database(ctx, |db| db.unrank(&name, rank))
    })?;
    Ok(false)
}

/// Answers `ask` from the host's connection. The reader is kept as SQLite's auxiliary
/// data of the puzzle argument: while one statement runs with the same puzzle on every
/// row (`SELECT pb_distance('eleven', s) FROM t`), it is made once and keeps what it
/// has read and checked (the puzzle's definition, its row in `puzzles`, its packed
/// layouts); SQLite drops it, with the statements it prepared, when the statement ends.
/// A puzzle that is not a constant of the statement gets a reader per call.
fn with_database<T>(
    ctx: &Context<'_>,
    ask: impl FnOnce(&Database) -> std::result::Result<T, QueryError>,
) -> Result<T> {
    let db = ctx.get_or_create_aux(0, |_| -> Result<Mutex<Database>> {
        // SAFETY: the handle is the host's connection running this function; the
        // wrapper does not own it and goes with the statement, before the connection.
        // SAFETY: the host's connection running this function; the handle is only read.
        let host = unsafe { ctx.get_connection()? };
        let handle = unsafe { host.handle() };
        // A connection given a key (`pb_trust`) answers only from the signed file: checked
        // once per statement here, and read again only when the file changed.
        let trust = trusts().get(&(handle as usize)).cloned();
        if let Some(trust) = trust {
            trust.check(&main_file(&host)?).map_err(user_error)?;
        }
        let conn = unsafe { Connection::from_handle(handle)? };
        let reader = puzzlebase::borrowing(conn).map_err(user_error)?;
        Ok(Mutex::new(Database::over(reader)))
    })?;
    let db = db.lock().unwrap_or_else(|e| e.into_inner());
    ask(&db).map_err(user_error)
}

/// The keys given with `pb_trust`, by connection (its handle). A connection's entry
/// outlives it; a later connection at the same address is then held to the key too,
/// which refuses, never answers wrongly.
fn trusts() -> std::sync::MutexGuard<'static, HashMap<usize, Arc<Trust>>> {
    static TRUSTS: LazyLock<Mutex<HashMap<usize, Arc<Trust>>>> = LazyLock::new(Default::default);
    TRUSTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The connection's main database file.
fn main_file(conn: &rusqlite::Connection) -> Result<std::path::PathBuf> {
    match conn.path() {
        Some(p) if !p.is_empty() => Ok(Path::new(p).to_path_buf()),
        _ => Err(user_error(
            "the connection's main database is in memory or temporary: no file to check",
        )),
    }
}

fn two_texts(ctx: &Context<'_>) -> Result<(String, String)> {
    Ok((text(ctx, 0)?, text(ctx, 1)?))
}

/// Argument `i` as text: a puzzle name or a position as `query` accepts them.
fn text(ctx: &Context<'_>, i: usize) -> Result<String> {
    ctx.get::<String>(i)
        .map_err(|_| user_error(format!("argument {} must be text", i + 1)))
}

/// A SQL error whose message is `e`'s text as `query` prints it (one line, a long
/// position's middle left out).
fn user_error(e: impl std::fmt::Display) -> Error {
    Error::UserFunctionError(puzzlebase::one_line(&e.to_string()).into())
}
