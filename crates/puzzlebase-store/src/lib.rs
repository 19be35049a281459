//! The SQLite file: schema migrations, the bulk writer used by `generate` (rows, and the
//! chunks of packed tables laid out by [`puzzlebase_core::packed`]), checksums, and the read-only
//! queries used by `query` (every one an indexed read).

// The layers' crates are documented for the workspace's maintainers: a public item's
// documentation may name the private items it works with.
#![allow(rustdoc::private_intra_doc_links)]

pub mod audit;
mod checksum;
pub mod connection;
pub mod digests;
pub mod integrity;
mod owner;
pub mod pagesum;
pub mod paths;
mod read;
pub mod rebuild;
pub mod signature;

pub use owner::{ChunkReader, Reader, Sql, SqlError, Transaction, Value, Writer};

use checksum::{hash_row, hash_table};

use std::path::Path;

use rusqlite::{Connection, OpenFlags, params};
use sha2::{Digest, Sha256};
use thiserror::Error;

use puzzlebase_core::digest::sha256_hex;

/// `PRAGMA application_id` of a puzzlebase file ("PZB1").
pub use puzzlebase_core::records::{
    ChunkError, Chunks, FarthestRow, HistogramRow, PackedTable, PegLayerRow, PositionRow,
    PuzzleInfo, PuzzleRecord, SolutionRow, Storage,
};

pub const APPLICATION_ID: i32 = 0x505A_4231;

/// Schema migrations in order; `PRAGMA user_version` = how many have been applied.
const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_init",
        include_str!("../../../migrations/0001_init.sql"),
    ),
    (
        "0002_packed",
        include_str!("../../../migrations/0002_packed.sql"),
    ),
    (
        "0003_meta",
        include_str!("../../../migrations/0003_meta.sql"),
    ),
    (
        "0004_pairs",
        include_str!("../../../migrations/0004_pairs.sql"),
    ),
    (
        "0005_digests",
        include_str!("../../../migrations/0005_digests.sql"),
    ),
    (
        "0006_no_distance_index",
        include_str!("../../../migrations/0006_no_distance_index.sql"),
    ),
];

/// Schema version this build writes and reads.
pub const SCHEMA_VERSION: i32 = MIGRATIONS.len() as i32;

/// Why a file could not be opened or read (or written, by `generate`).
#[derive(Debug, Error)]
#[warn(missing_docs)]
#[non_exhaustive]
pub enum StoreError {
    /// No file at the path (shown absolute).
    #[error("no database at {0}")]
    Missing(String),
    /// The path is a directory.
    #[error("{0} is a directory")]
    Directory(String),
    /// The name given is no file's: SQLite's in-memory or temporary database, or a path
    /// holding a NUL byte.
    #[error("{0}")]
    NoFileName(String),
    /// The file is not SQLite, or not a puzzlebase file.
    #[error("{0} is not a puzzlebase database")]
    NotOurs(String),
    /// The file's schema is newer than this build's.
    #[error(
        "{path} has schema version {found}, newer than this build understands ({SCHEMA_VERSION}); upgrade puzzlebase"
    )]
    Newer {
        /// The file.
        path: String,
        /// The schema version found.
        found: i32,
    },
    /// The file's schema is older than this build's.
    #[error("{path} has schema version {found}, older than this build's {SCHEMA_VERSION}")]
    Older {
        /// The file.
        path: String,
        /// The schema version found.
        found: i32,
    },
    /// The host's connection reads the file through a write-ahead log beside it.
    #[error(
        "{0} is read through a write-ahead log beside it ({0}-wal), which its page checksums and signature do not cover; open the file immutable (file:{0}?immutable=1), or remove the -wal"
    )]
    ReadThroughLog(String),
    /// A writer was killed mid-change and left a journal to roll back.
    #[error(
        "{path} has a hot journal: a writer was killed while changing it; open the file once with write access to roll that change back (e.g. `sqlite3 FILE 'PRAGMA quick_check'`)"
    )]
    HotJournal {
        /// The file.
        path: String,
    },
    /// SQLite failed on the file.
    #[error("database {path}: {source}")]
    Sqlite {
        /// The file.
        path: String,
        /// SQLite's error.
        source: SqlError,
    },
    /// A page fails its checksum: the file is damaged.
    #[error(
        "the file is damaged: {} of {path} fails its checksum",
        page.map_or("a page".to_string(), |p| format!("page {p}"))
    )]
    Damaged {
        /// The file.
        path: String,
        /// The page that failed, when known.
        page: Option<u64>,
    },
    /// Another program wrote to the file: page 1 is one SQLite wrote, our checksums
    /// do not hold on it.
    #[error(
        "{path} was changed by another program: its page 1 is one SQLite wrote, but puzzlebase's page checksums no longer hold on {pages} (a program that writes to the file, such as `sqlite3 FILE ANALYZE` or VACUUM, does not keep them), so nothing is answered from it"
    )]
    Changed {
        /// The file.
        path: String,
        /// The pages that fail, as a list.
        pages: String,
    },
    /// The file carries no page checksums of this build's rule.
    #[error(
        "{0} was written by an older puzzlebase (its pages carry no checksums, or checksums of an older rule)"
    )]
    NoChecksums(String),
    /// The page-checksum layer could not be installed.
    #[error("cannot check page checksums: {0}")]
    Checksums(#[source] pagesum::InstallError),
    /// A packed table's chunks could not be written.
    #[error("{puzzle}: {message}")]
    Chunks {
        /// The puzzle.
        puzzle: String,
        /// What failed.
        message: String,
    },
}

#[warn(missing_docs)]
impl StoreError {
    /// A failure of SQLite on the file at `path`: a page that failed its checksum is
    /// [`StoreError::Damaged`], naming the page; anything else is SQLite's own error.
    pub fn from_sqlite(path: &Path, source: impl Into<SqlError>) -> StoreError {
        let source = source.into();
        if source.is_page_damage() {
            return diagnose(path, pagesum::damaged_page());
        }
        StoreError::Sqlite {
            path: path.display().to_string(),
            source,
        }
    }
}

#[warn(missing_docs)]
impl StoreError {
    /// Whether the file's pages failed their checksums ([`StoreError::Damaged`] or
    /// [`StoreError::Changed`]): nothing may be taken from it.
    pub fn is_damage(&self) -> bool {
        matches!(
            self,
            StoreError::Damaged { .. } | StoreError::Changed { .. }
        )
    }
}

/// What a page that failed its checksum means for the file at `path`: another program
/// wrote to it ([`StoreError::Changed`]) when page 1 fails (SQLite rewrites it on every
/// change) and reads as a page SQLite wrote ([`integrity::page_one_written_by_sqlite`]);
/// damage ([`StoreError::Damaged`]) otherwise. Only page 1 is read, so a reader refuses
/// such a file at the cost of one page, not a scan of the file per question
/// ([`with_every_page`] lists the pages that fail, for `verify`). The answer is kept for
/// the file as it is ([`pagesum::Stamp`]), so a server asked again and again looks once.
fn diagnose(path: &Path, page: Option<u64>) -> StoreError {
    use std::collections::HashMap;
    use std::sync::Mutex;
    type Key = (std::path::PathBuf, pagesum::Stamp);
    static SEEN: Mutex<Option<HashMap<Key, bool>>> = Mutex::new(None);
    let damaged = StoreError::Damaged {
        path: path.display().to_string(),
        page,
    };
    let Some(stamp) = pagesum::Stamp::of(path) else {
        return damaged;
    };
    let key = (path.to_path_buf(), stamp);
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    let changed = *seen
        .get_or_insert_with(HashMap::new)
        .entry(key)
        .or_insert_with(|| {
            pagesum::page_one_fails(path).unwrap_or(false)
                && integrity::page_one_written_by_sqlite(path)
        });
    match changed {
        true => StoreError::Changed {
            path: path.display().to_string(),
            pages: "page 1 (a verify of the whole file names every page that fails)".to_string(),
        },
        false => damaged,
    }
}

/// `e`, with every page that fails named when it says another program changed the file
/// (a scan of the whole file, which `verify` pays and the readers do not).
pub fn with_every_page(e: StoreError) -> StoreError {
    match e {
        StoreError::Changed { path, pages } => {
            let pages = pagesum::failing_pages(Path::new(&path))
                .ok()
                .filter(|p| !p.is_empty())
                .map_or(pages, |p| page_list(&p));
            StoreError::Changed { path, pages }
        }
        e => e,
    }
}

/// "page 1", "pages 1, 4 and 9", or the first ten and how many in all.
fn page_list(pages: &[u64]) -> String {
    let shown: Vec<String> = pages.iter().take(10).map(u64::to_string).collect();
    match pages.len() {
        1 => format!("page {}", shown[0]),
        n if n <= 10 => format!("pages {} and {}", shown[..n - 1].join(", "), shown[n - 1]),
        n => format!("pages {}, … ({n} pages in all)", shown.join(", ")),
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |source| StoreError::from_sqlite(path, source)
}

impl Writer {
    /// Applies every migration newer than the file's `user_version`, each in a transaction.
    pub fn migrate(&mut self) -> Result<()> {
        let path = &self.path().to_path_buf();
        let conn = self.conn_mut();
        let found: i32 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(sql(path))?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::Newer {
                path: path.display().to_string(),
                found,
            });
        }
        for (version, (_name, script)) in MIGRATIONS.iter().enumerate().skip(found as usize) {
            let tx = conn.transaction().map_err(sql(path))?;
            tx.execute_batch(script).map_err(sql(path))?;
            tx.pragma_update(None, "user_version", version as i32 + 1)
                .map_err(sql(path))?;
            tx.pragma_update(None, "application_id", APPLICATION_ID)
                .map_err(sql(path))?;
            tx.commit().map_err(sql(path))?;
        }
        Ok(())
    }

    /// Prepares a new file for a bulk load: a page cache that holds a small puzzle's rows,
    /// and temporary tables in memory.
    pub fn begin_bulk_load(&self) -> Result<()> {
        let path = self.path();
        self.conn()
            .execute_batch("PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;")
            .map_err(sql(path))
    }

    /// Writes one puzzle's rows (inside the caller's transaction) and records its
    /// checksum, the one [`Reader::checksum`] computes from the file: the large tables (positions in
    /// rank order, packed chunks) are hashed from the rows as written, the rest read back.
    /// `written` is called once per position row and once per packed chunk.
    pub fn write_puzzle(&self, rec: PuzzleRecord<'_>, written: &dyn Fn()) -> Result<()> {
        let path = self.path();
        let conn = self.conn();
        let e = sql(path);
        // The checksum of the positions rows is taken as they are written, in the encoding
        // and order in which [`Reader::checksum`] reads them back (by rank), unless they come out of
        // rank order; then the whole checksum is read back from the file.
        // The digests' groups are cut from the same rows ([`digests::Grouper`]).
        let mut streamed = Some((Sha256::new(), digests::Grouper::default()));
        if let Some((h, g)) = &mut streamed {
            h.update(b"positions");
            g.start("positions");
        }
        let mut last_rank: Option<u64> = None;
        let mut packed = (|| -> rusqlite::Result<Vec<PackedTable>> {
            conn.execute(
                "INSERT INTO puzzles (name, family, definition, states, solvable, max_distance, generated_at,
                                  definition_hash, checksum, seconds, storage, counts)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?7, '', ?8, ?9, ?10)",
                params![
                    rec.name,
                    rec.family,
                    rec.definition,
                    rec.states as i64,
                    rec.solvable as i64,
                    rec.max_distance,
                    rec.definition_hash,
                    rec.seconds,
                    rec.storage.as_str(),
                    rec.counts
                ],
            )?;
            let mut st = conn.prepare_cached(
                "INSERT INTO positions (puzzle, rank, state, distance, next_rank, solutions, move)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            // The puzzle is bound once; each row rebinds the rest and runs the statement.
            st.raw_bind_parameter(1, &rec.name)?;
            for p in rec.positions {
                st.raw_bind_parameter(2, p.rank as i64)?;
                st.raw_bind_parameter(3, &p.state)?;
                st.raw_bind_parameter(4, p.distance)?;
                st.raw_bind_parameter(5, opt_i64(p.next_rank))?;
                st.raw_bind_parameter(6, opt_i64(p.solutions))?;
                st.raw_bind_parameter(7, &p.mv)?;
                st.raw_execute()?;
                if let Some((h, g)) = &mut streamed {
                    if last_rank.is_some_and(|l| p.rank <= l) {
                        streamed = None;
                    } else {
                        use rusqlite::types::ValueRef::{Integer, Null, Text};
                        let opt = |v: Option<i64>| v.map_or(Null, Integer);
                        let row = [
                            Text(rec.name.as_bytes()),
                            Integer(p.rank as i64),
                            Text(p.state.as_bytes()),
                            opt(p.distance.map(i64::from)),
                            opt(opt_i64(p.next_rank)),
                            opt(opt_i64(p.solutions)),
                            p.mv.as_deref().map_or(Null, |m| Text(m.as_bytes())),
                        ];
                        hash_row(h, row);
                        g.row(&row);
                    }
                }
                last_rank = Some(p.rank);
                written();
            }
            let mut table = conn.prepare_cached(
                "INSERT INTO packed_tables (puzzle, kind, encoding, ranks_per_chunk, chunks, layout)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for t in &rec.packed {
                table.execute(params![
                    rec.name,
                    t.kind,
                    t.encoding,
                    t.ranks_per_chunk as i64,
                    t.chunks.len() as i64,
                    t.layout
                ])?;
            }
            let mut st = conn.prepare_cached(
                "INSERT INTO farthest (puzzle, rank, state, distance) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for f in &rec.farthest {
                st.execute(params![rec.name, f.rank as i64, f.state, f.distance])?;
            }
            let mut st = conn.prepare_cached(
                "INSERT INTO histogram (puzzle, distance, positions, classes) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for h in &rec.histogram {
                st.execute(params![rec.name, h.distance, h.positions as i64, h.classes as i64])?;
            }
            let mut st = conn.prepare_cached(
                "INSERT INTO peg_layers (puzzle, pegs, reachable, can_finish, reachable_classes, can_finish_classes,
                                     reachable_pairs)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for l in &rec.peg_layers {
                st.execute(params![
                    rec.name,
                    l.pegs,
                    l.reachable as i64,
                    l.can_finish as i64,
                    l.reachable_classes as i64,
                    l.can_finish_classes as i64,
                    l.reachable_pairs as i64
                ])?;
            }
            let mut st = conn
                .prepare_cached("INSERT INTO peg_matrix (puzzle, start, finish, distance) VALUES (?1, ?2, ?3, ?4)")?;
            for &(s, f, d) in &rec.peg_matrix {
                st.execute(params![rec.name, s, f, d])?;
            }
            let mut st = conn.prepare_cached(
                "INSERT INTO solutions (puzzle, rank, state, value, canonical) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for s in &rec.solutions {
                st.execute(params![rec.name, s.rank as i64, s.state, s.value, s.canonical])?;
            }
            Ok(rec.packed)
        })()
        .map_err(&e)?;
        // The rest is small but for the packed chunks, which are written last and hashed
        // as they are written, in their place in the checksum's order: they may be made
        // only as they are written, and never held.
        for (table, order) in &DATA_TABLES[1..] {
            if *table == "packed_chunks" {
                let tables = std::mem::take(&mut packed);
                write_chunks(conn, path, &rec.name, tables, streamed.as_mut(), written)?;
            } else if let Some((h, g)) = &mut streamed {
                hash_table((h, g), conn, path, (table, order), &rec.name, [], |[]| {
                    Ok(())
                })?;
            }
        }
        let sum = match streamed {
            Some((h, g)) => {
                let sum = sha256_hex(h);
                digests::remember(self, &rec.name, Some(&sum), g);
                sum
            }
            None => self.checksum(&rec.name)?,
        };
        conn.execute(
            "UPDATE puzzles SET checksum = ?1 WHERE name = ?2",
            params![sum, rec.name],
        )
        .map_err(e)?;
        Ok(())
    }

    /// Copies one puzzle's rows from the attached database `prev` into the main database.
    pub fn copy_puzzle(&self, puzzle: &str) -> Result<()> {
        let path = self.path();
        let conn = self.conn();
        conn.execute(
            "INSERT INTO main.puzzles SELECT * FROM prev.puzzles WHERE name = ?1",
            [puzzle],
        )
        .map_err(sql(path))?;
        for (table, _) in DATA_TABLES {
            conn.execute(
                &format!("INSERT INTO main.{table} SELECT * FROM prev.{table} WHERE puzzle = ?1"),
                [puzzle],
            )
            .map_err(sql(path))?;
        }
        Ok(())
    }
}

/// Checks that `conn` is a puzzlebase file of exactly this build's schema version.
fn check_identity(conn: &Connection, path: &Path) -> Result<()> {
    let id: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(|e| match e {
            // A file that is not SQLite at all fails on its first read.
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::NotADatabase => {
                StoreError::NotOurs(path.display().to_string())
            }
            // A read-only connection cannot roll back what a killed writer left behind.
            rusqlite::Error::SqliteFailure(f, _)
                if f.extended_code == rusqlite::ffi::SQLITE_READONLY_ROLLBACK =>
            {
                StoreError::HotJournal {
                    path: path.display().to_string(),
                }
            }
            other => sql(path)(other),
        })?;
    if id != APPLICATION_ID {
        return Err(StoreError::NotOurs(path.display().to_string()));
    }
    let found: i32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(sql(path))?;
    let p = path.display().to_string();
    match found.cmp(&SCHEMA_VERSION) {
        std::cmp::Ordering::Greater => Err(StoreError::Newer { path: p, found }),
        std::cmp::Ordering::Less => Err(StoreError::Older { path: p, found }),
        std::cmp::Ordering::Equal => Ok(()),
    }
}

/// Opens an existing database read-only after checking that it is ours and current. Its
/// pages are checked as they are read when it has page checksums ([`pagesum`]); a file
/// without them (from an older build) is read as it is, which only `generate` does, to
/// carry its puzzles over: readers that answer from a file use [`open_checked`].
pub fn open_read(path: &Path) -> Result<Reader> {
    no_file_name(path)?;
    if path.is_dir() {
        return Err(StoreError::Directory(path.display().to_string()));
    }
    if !path.is_file() {
        // The absolute path: a relative default read from another directory is the
        // usual cause.
        let shown = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        return Err(StoreError::Missing(shown.display().to_string()));
    }
    // SQLite would roll a hot journal back before reading; an immutable connection
    // does not look at it, and would read the half-changed pages.
    if paths::hot_journal(path) {
        return Err(StoreError::HotJournal {
            path: path.display().to_string(),
        });
    }
    pagesum::install().map_err(StoreError::Checksums)?;
    // Immutable: a journal beside the file is neither read nor created (paths.rs).
    let conn = Connection::open_with_flags(
        paths::immutable_uri(path),
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(sql(path))?;
    check_identity(&conn, path)?;
    Ok(Reader::new(conn, path))
}

/// What a long-lived reader looks at to follow a file: its stamp (inode, size, times)
/// and those of the journals SQLite would read beside it. Readers open the file
/// immutable ([`open_read`]) and see no change on their own, so a reader that keeps a
/// connection (the server, the Python package) compares this before each answer and,
/// on any difference, drops what it took from the file and opens and checks it again.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub struct FileState([Option<pagesum::Stamp>; 4]);

impl FileState {
    /// The file at `path` and its companions as they are now.
    pub fn of(path: &Path) -> FileState {
        let at = |suffix: &str| pagesum::Stamp::of(&paths::beside(path, suffix));
        FileState([
            pagesum::Stamp::of(path),
            at("-wal"),
            at("-shm"),
            at("-journal"),
        ])
    }
}

/// Refuses names that are no file's, which SQLite would take as something else (`:memory:`,
/// an empty name) or no system call can carry (a NUL byte), each in one line.
fn no_file_name(path: &Path) -> Result<()> {
    let text = path.to_string_lossy();
    if text.is_empty() || text == ":memory:" {
        return Err(StoreError::NoFileName(format!(
            "{} names SQLite's in-memory or temporary database, not a puzzlebase file; give the path of the file",
            if text.is_empty() {
                "an empty name"
            } else {
                "\":memory:\""
            }
        )));
    }
    if text.contains('\0') {
        return Err(StoreError::NoFileName(format!(
            "the path {:?} holds a NUL byte, which no file name can",
            text.replace('\0', "\\0")
        )));
    }
    Ok(())
}

/// A reader over a connection that another program opened (the host of the SQLite
/// extension), after checking that its main database is a puzzlebase file of this
/// build's schema. The connection is borrowed, not closed when the reader is dropped,
/// and its pages are read through whatever SQLite and VFS that program uses: this
/// crate's page checksums are checked only where that program checks them.
#[warn(missing_docs)]
pub fn borrowing(conn: Connection) -> Result<Reader> {
    let path = std::path::PathBuf::from(conn.path().unwrap_or(""));
    no_file_name(&path)?;
    check_identity(&conn, &path)?;
    // The host's connection may read a write-ahead log beside the file (planted, or
    // left by another program), which no checksum or signature of the file covers.
    let mode: String = conn
        .query_row("PRAGMA main.journal_mode", [], |r| r.get(0))
        .map_err(sql(&path))?;
    if mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::ReadThroughLog(path.display().to_string()));
    }
    Ok(Reader::new(conn, &path))
}

/// Opens the file at `path` read-only as it is, whatever its schema version: what
/// `generate` reads the puzzles of an older file through, to carry them over.
pub fn open_unchecked(path: &Path) -> Result<Reader> {
    let conn = Connection::open_with_flags(
        paths::immutable_uri(path),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(sql(path))?;
    Ok(Reader::new(conn, path))
}

/// [`open_read`] for a reader that answers from the file (`query`, `serve`, `verify`):
/// the file must carry page checksums, so that every page it reads is checked.
pub fn open_checked(path: &Path) -> Result<Reader> {
    let conn = open_read(path)?;
    if pagesum::reserved(conn.conn()).map_err(sql(path))? != pagesum::RESERVED as i32 {
        return Err(StoreError::NoChecksums(path.display().to_string()));
    }
    Ok(conn)
}

/// Creates the new file at `path` (which must not exist, or be empty) with page
/// checksums: every page written through the connection carries its checksum.
pub fn create(path: &Path) -> Result<Writer> {
    pagesum::install().map_err(StoreError::Checksums)?;
    let conn = Connection::open(path).map_err(sql(path))?;
    pagesum::reserve(&conn).map_err(sql(path))?;
    Ok(Writer::new(conn, path))
}

// ---------------------------------------------------------------------------------------
// Rows

fn opt_i64(v: Option<u64>) -> Option<i64> {
    v.map(|x| x as i64)
}

/// Tables holding per-puzzle rows, with the order that makes their content canonical.
pub const DATA_TABLES: &[(&str, &str)] = &[
    ("positions", "rank"),
    ("histogram", "distance"),
    ("peg_layers", "pegs"),
    ("peg_matrix", "start, finish"),
    ("solutions", "rank"),
    ("packed_tables", "kind"),
    ("packed_chunks", "kind, chunk"),
    ("farthest", "rank"),
];

/// Writes the chunks of `puzzle`'s packed tables (by kind, then chunk: the order in
/// which [`hash_table`] reads them back), feeding each into `h` as it goes. A stream
/// that fails, ends early or runs on fails the write.
fn write_chunks(
    conn: &Connection,
    path: &Path,
    puzzle: &str,
    mut tables: Vec<PackedTable>,
    mut h: Option<&mut (Sha256, digests::Grouper)>,
    written: &dyn Fn(),
) -> Result<()> {
    use rusqlite::types::ValueRef::{Blob, Integer, Text};
    let e = sql(path);
    if let Some((h, g)) = &mut h {
        h.update(b"packed_chunks");
        g.start("packed_chunks");
    }
    let mut st = conn
        .prepare_cached(
            "INSERT INTO packed_chunks (puzzle, kind, chunk, data) VALUES (?1, ?2, ?3, ?4)",
        )
        .map_err(&e)?;
    tables.sort_by_key(|t| t.kind);
    for t in tables {
        let expected = t.chunks.len();
        let fail = |message: String| StoreError::Chunks {
            puzzle: puzzle.to_string(),
            message: format!("{} table: {message}", t.kind),
        };
        let chunks: Box<dyn Iterator<Item = std::result::Result<Vec<u8>, ChunkError>>> =
            match t.chunks {
                Chunks::Held(c) => Box::new(c.into_iter().map(Ok)),
                Chunks::Streamed { chunks, .. } => chunks,
            };
        let mut i = 0u64;
        for data in chunks {
            let data = data.map_err(|e| fail(e.to_string()))?;
            if i == expected {
                return Err(fail(format!("more than the {expected} chunks announced")));
            }
            st.execute(params![puzzle, t.kind, i as i64, data])
                .map_err(&e)?;
            if let Some((h, g)) = &mut h {
                let row = [
                    Text(puzzle.as_bytes()),
                    Text(t.kind.as_bytes()),
                    Integer(i as i64),
                    Blob(&data),
                ];
                hash_row(h, row);
                g.row(&row);
            }
            written();
            i += 1;
        }
        if i != expected {
            return Err(fail(format!("{i} chunks of the {expected} announced")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
