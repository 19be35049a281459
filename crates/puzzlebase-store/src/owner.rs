//! The owners of the file's connections. Nothing above the store holds a SQLite handle or
//! names a SQLite type: `query`, `serve` and `verify` ask a [`Reader`], `generate` asks a
//! [`Writer`], and a failed read comes back as a [`SqlError`] that says what kind of
//! failure it is without exposing the SQLite library behind it.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, Params, Row, Statement};
use thiserror::Error;

/// A failure of SQLite while reading or writing the file. Its text is SQLite's own, or
/// that of the other SQLite a [`ChunkReader`] reads through.
#[derive(Debug, Error)]
#[error(transparent)]
pub struct SqlError(#[from] Failure);

#[derive(Debug, Error)]
enum Failure {
    #[error(transparent)]
    Ours(#[from] rusqlite::Error),
    #[error("{0}")]
    Other(String),
}

impl From<rusqlite::Error> for SqlError {
    fn from(e: rusqlite::Error) -> Self {
        SqlError(Failure::Ours(e))
    }
}

/// What a store read returns.
pub type Sql<T> = std::result::Result<T, SqlError>;

impl From<rusqlite::types::FromSqlError> for SqlError {
    fn from(e: rusqlite::types::FromSqlError) -> Self {
        SqlError(Failure::Ours(e.into()))
    }
}

impl SqlError {
    /// A failure of another SQLite than ours (a host's connection read through a
    /// [`ChunkReader`]), by its message.
    pub fn other(message: impl Into<String>) -> SqlError {
        SqlError(Failure::Other(message.into()))
    }

    /// Whether a stored value was of the wrong type or outside its column's range: a fact
    /// about the file's contents (damage or tampering), not a failure to read it.
    pub fn is_bad_value(&self) -> bool {
        matches!(
            self.0,
            Failure::Ours(
                rusqlite::Error::FromSqlConversionFailure(..)
                    | rusqlite::Error::IntegralValueOutOfRange(..)
                    | rusqlite::Error::InvalidColumnType(..)
            )
        )
    }

    /// Whether a page read failed its checksum ([`super::pagesum`]).
    pub fn is_page_damage(&self) -> bool {
        matches!(&self.0, Failure::Ours(e) if super::pagesum::is_damage(e))
    }
}

/// One stored value as SQLite holds it, untyped: what an audit judges for itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    /// SQL `NULL`.
    Null,
    /// An integer.
    Integer(i64),
    /// A floating-point number.
    Real(f64),
    /// Text, as stored (not checked to be UTF-8).
    Text(&'a [u8]),
    /// A blob.
    Blob(&'a [u8]),
}

impl<'a> From<rusqlite::types::ValueRef<'a>> for Value<'a> {
    fn from(v: rusqlite::types::ValueRef<'a>) -> Self {
        use rusqlite::types::ValueRef;
        match v {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(i) => Value::Integer(i),
            ValueRef::Real(f) => Value::Real(f),
            ValueRef::Text(t) => Value::Text(t),
            ValueRef::Blob(b) => Value::Blob(b),
        }
    }
}

/// A connection to a puzzlebase file, owned: opened by [`super::open_checked`] (every
/// page checked as it is read) or [`super::open_read`], and asked through the store's
/// read functions, which take it in place of a SQLite handle.
#[warn(missing_docs)]
pub struct Reader {
    conn: Connection,
    path: PathBuf,
    /// Digest groups a pass over a puzzle's rows computed on the way, kept until a
    /// digest comparison or write takes them ([`super::digests`]).
    seen: std::cell::RefCell<std::collections::HashMap<String, super::digests::Seen>>,
    /// Whether this connection writes (a [`Writer`]'s): what it reads may then change
    /// between two reads.
    writes: bool,
}

impl Reader {
    pub(super) fn new(conn: Connection, path: &Path) -> Reader {
        // Room for a statement per table and question that a whole-file `verify` repeats
        // for every puzzle (SQLite's default of 16 would evict them).
        conn.set_prepared_statement_cache_capacity(64);
        Reader {
            conn,
            path: path.to_path_buf(),
            seen: Default::default(),
            writes: false,
        }
    }

    /// Keeps the digest groups a pass over `puzzle`'s rows computed.
    pub(super) fn remember_digests(&self, puzzle: &str, seen: super::digests::Seen) {
        self.seen.borrow_mut().insert(puzzle.to_string(), seen);
    }

    /// Takes the digest groups kept for `puzzle`, if any.
    pub(super) fn take_digests(&self, puzzle: &str) -> Option<super::digests::Seen> {
        self.seen.borrow_mut().remove(puzzle)
    }

    /// Whether this connection writes the file (see the field).
    pub(super) fn writes(&self) -> bool {
        self.writes
    }

    /// Begins a read transaction: the reads until the guard is dropped see one
    /// snapshot, and SQLite takes its file lock once for all of them rather than once
    /// per statement. A read has nothing to commit; dropping the guard ends it.
    pub fn begin_read(&self) -> Sql<Transaction<'_>> {
        Transaction::begin(&self.conn)
    }

    /// The file this reader reads.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(super) fn conn(&self) -> &Connection {
        &self.conn
    }

    pub(super) fn prepare(&self, sql: &str) -> Sql<Statement<'_>> {
        Ok(self.conn.prepare(sql)?)
    }

    pub(super) fn prepare_cached(&self, sql: &str) -> Sql<rusqlite::CachedStatement<'_>> {
        Ok(self.conn.prepare_cached(sql)?)
    }

    pub(super) fn query_row<T, P: Params>(
        &self,
        sql: &str,
        params: P,
        f: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Sql<T> {
        Ok(self.conn.query_row(sql, params, f)?)
    }

    pub(super) fn execute<P: Params>(&self, sql: &str, params: P) -> Sql<usize> {
        Ok(self.conn.execute(sql, params)?)
    }

    pub(super) fn execute_batch(&self, sql: &str) -> Sql<()> {
        Ok(self.conn.execute_batch(sql)?)
    }
}

/// The connection to a new file being built by `generate`, owned. It reads like a
/// [`Reader`] (it dereferences to one) and writes through the store's write functions.
pub struct Writer {
    read: Reader,
}

impl Writer {
    pub(super) fn new(conn: Connection, path: &Path) -> Writer {
        let mut read = Reader::new(conn, path);
        read.writes = true;
        Writer { read }
    }

    pub(super) fn conn_mut(&mut self) -> &mut Connection {
        &mut self.read.conn
    }

    /// Begins the transaction in which the puzzles' rows are written, so that SQLite
    /// syncs once rather than once per statement. What is written through this writer
    /// until [`Transaction::commit`] is kept only if that is called: the guard rolls the
    /// writes back when dropped uncommitted (an error returned with `?`, a panic).
    pub fn begin(&self) -> Sql<Transaction<'_>> {
        Transaction::begin(&self.read.conn)
    }

    /// Closes the connection, reporting a failure to finish writing the file.
    pub fn close(self) -> Sql<()> {
        self.read.conn.close().map_err(|(_, e)| e.into())
    }
}

impl std::ops::Deref for Writer {
    type Target = Reader;

    fn deref(&self) -> &Reader {
        &self.read
    }
}

/// A transaction on an owner's connection, begun by [`Reader::begin_read`] or
/// [`Writer::begin`]: [`Transaction::commit`] keeps what was written; a guard dropped
/// without it rolls back, so that an early return or a panic leaves nothing of the
/// transaction in the file.
///
/// It wraps rusqlite's own transaction, begun through `unchecked_transaction` (a shared
/// borrow of the connection, checked by SQLite at run time rather than by a `&mut`
/// borrow): the owner's reads and writes go on through `&self` while the guard lives,
/// which rusqlite's `Connection::transaction` (`&mut Connection`) would forbid. A second
/// transaction begun while one is open fails ("cannot start a transaction within a
/// transaction") rather than nesting.
///
/// On a connection without a rollback journal ([`Reader::without_journal`]) SQLite
/// cannot undo the writes; there the file is one that is discarded on failure.
#[must_use = "a transaction dropped at once rolls back at once"]
pub struct Transaction<'a>(rusqlite::Transaction<'a>);

impl<'a> Transaction<'a> {
    fn begin(conn: &'a Connection) -> Sql<Transaction<'a>> {
        // `BEGIN DEFERRED`, as the plain `BEGIN` it replaces: no lock until the first
        // read or write.
        let tx = conn.unchecked_transaction()?;
        debug_assert_eq!(tx.drop_behavior(), rusqlite::DropBehavior::Rollback);
        Ok(Transaction(tx))
    }

    /// Commits the transaction: what was written in it is in the file.
    pub fn commit(self) -> Sql<()> {
        Ok(self.0.commit()?)
    }
}

/// Where a reader of packed tables gets a table's layout and its chunks: the file through
/// this crate's SQLite ([`Reader`]), or another SQLite connection to the same file.
/// Implementations hand back what is stored, unjudged: the caller checks the layout
/// against the puzzle's definition and refuses a chunk that is missing or does not
/// decode.
pub trait ChunkReader {
    /// The layout (JSON text) and chunk count of `puzzle`'s packed table `kind`
    /// (`distance` or `solutions`); `None` when the puzzle has no such table.
    fn table(&self, puzzle: &str, kind: &str) -> Sql<Option<(String, u64)>>;

    /// The blob of chunk number `chunk` of that table; `None` when there is no such row.
    fn chunk(&self, puzzle: &str, kind: &str, chunk: u64) -> Sql<Option<Vec<u8>>>;
}

impl ChunkReader for Reader {
    fn table(&self, puzzle: &str, kind: &str) -> Sql<Option<(String, u64)>> {
        self.packed_table(puzzle, kind)
    }

    fn chunk(&self, puzzle: &str, kind: &str, chunk: u64) -> Sql<Option<Vec<u8>>> {
        self.packed_chunk(puzzle, kind, chunk)
    }
}
