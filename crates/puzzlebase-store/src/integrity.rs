//! What makes a generated file safe to ship and to replace: the `meta` table that says
//! what wrote it, the `<db>.sha256` sidecar a recipient checks with `sha256sum -c`, the
//! statistics and compaction done before the rename, which leftover files a run may
//! delete, where `--db` really points, and what an older-schema file still holds.
//!
//! The build calls these at the matching steps of the nightly job.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, params};
use sha2::{Digest, Sha256};

pub use crate::paths::resolve;
use crate::paths::{beside, temporary};
use crate::{APPLICATION_ID, Reader, SCHEMA_VERSION, Sql, Writer};
use puzzlebase_core::digest::sha256_hex;
use puzzlebase_families::catalog::identity::GENERATOR_VERSION;

/// The commit the binary was built from, when the build could ask git.
pub const GIT_COMMIT: Option<&str> = option_env!("PUZZLEBASE_GIT_COMMIT");

/// The oldest schema version whose `puzzles` and data tables are exactly this build's
/// (version 4 added `peg_layers.reachable_pairs`), so that its puzzles can be copied row
/// for row.
pub const COPYABLE_SINCE: i32 = 4;

impl Writer {
    /// Fills the `meta` table of a new file. `only` is what `--puzzle` asked for (empty:
    /// every puzzle).
    pub fn write_meta(&self, only: &[String]) -> Sql<()> {
        let puzzles = if only.is_empty() {
            "all".to_string()
        } else {
            only.join(",")
        };
        let mut rows = vec![
            ("generator", "puzzlebase".to_string()),
            ("generator_version", env!("CARGO_PKG_VERSION").to_string()),
            ("tables_version", GENERATOR_VERSION.to_string()),
            ("schema_version", SCHEMA_VERSION.to_string()),
            ("puzzles", puzzles),
        ];
        if let Some(commit) = GIT_COMMIT {
            rows.push(("git_commit", commit.to_string()));
        }
        let mut st = self.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)")?;
        for (k, v) in rows {
            st.execute(params![k, v])?;
        }
        self.execute(
            "INSERT OR REPLACE INTO meta (key, value)
         VALUES ('created_at', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
            [],
        )?;
        Ok(())
    }

    /// Records in `meta` (key `contents`) what the file holds: every puzzle with its
    /// checksum, as a JSON array of `[name, checksum]` pairs sorted by name. `verify` holds
    /// the `puzzles` rows to it, so a row deleted or edited on its own is seen.
    pub fn write_contents(&self) -> Sql<()> {
        self.execute(
            "INSERT OR REPLACE INTO meta (key, value)
         SELECT 'contents', coalesce(json_group_array(json_array(name, checksum)), '[]')
         FROM (SELECT name, checksum FROM puzzles ORDER BY name)",
            [],
        )?;
        Ok(())
    }

    /// Planner statistics (`sqlite_stat1`) for tools that query the file with their own
    /// SQL, the file's [`Reader::seal`] over them and the rest of what `generate` wrote, then a
    /// compact file (VACUUM; above 4 GiB only when there are free pages). The copy VACUUM makes
    /// goes to a temporary file, not memory: the file may be as large as the tables (10.9
    /// GB with `fourteen`), and memory is what the largest builds run short of.
    pub fn finish(&self) -> Sql<()> {
        let (free, pages) = analyze_and_seal(self, true)?;
        // VACUUM rewrites the whole file through a copy. On the default file that packs the
        // pages the bulk writes left part full (67 MB of 1.68 GB); on a file of `fourteen`'s
        // size without free pages it took about a minute and the disk room of a second copy
        // to save 0.1%, so such a file is left as written.
        let size: i64 = self.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        if free > 0 || pages.saturating_mul(size) < VACUUM_SKIPPED_FROM {
            self.execute_batch("PRAGMA temp_store = FILE; VACUUM;")?;
        }
        Ok(())
    }

    /// [`Writer::finish`] for a copy of the previous file in which some puzzles were rebuilt
    /// (`generate`'s rebuild in a copy): the statistics (ANALYZE, which reads every index
    /// of the file, only when `analyze`: not when the rows deleted and written add the
    /// same to them, [`crate::rebuild::KeyShape`]) and the seal as [`Writer::finish`] makes
    /// them, and no VACUUM, which would rewrite the whole file, unless the free pages the
    /// rebuild left (a puzzle rebuilt smaller, or dropped) are more than [`RECLAIMED_ABOVE`]
    /// of it. The free pages left below that are reused by the next rebuild's rows, so
    /// repeated rebuilds do not grow the file. Returns whether the file was vacuumed.
    pub fn finish_rebuilt(&self, analyze: bool) -> Sql<bool> {
        let (free, pages) = analyze_and_seal(self, analyze)?;
        let vacuum =
            free.saturating_mul(RECLAIMED_ABOVE.1) > pages.saturating_mul(RECLAIMED_ABOVE.0);
        if vacuum {
            self.execute_batch("PRAGMA temp_store = FILE; VACUUM;")?;
        }
        Ok(vacuum)
    }
}

/// What [`Writer::write_contents`] recorded, parsed: `None` when the key is missing or is not
/// a list of `[name, checksum]` pairs.
pub fn contents(meta: &[(String, String)]) -> Option<Vec<(String, String)>> {
    let (_, text) = meta.iter().find(|(k, _)| k == "contents")?;
    serde_json::from_str(text).ok()
}

/// The tables and indexes of a file of this schema, `(type, name)` sorted: those of a
/// fresh file migrated in memory.
pub fn expected_schema_objects() -> Sql<Vec<(String, String)>> {
    let memory = Path::new(":memory:");
    let mut fresh = Writer::new(Connection::open_in_memory()?, memory);
    fresh.migrate().map_err(|_| rusqlite::Error::InvalidQuery)?;
    fresh.schema_objects()
}

/// Files of at least this many bytes without free pages are not vacuumed (see [`Writer::finish`]).
const VACUUM_SKIPPED_FROM: i64 = 4 << 30;

/// The statistics (when `analyze`) and then the seal over them, as both ways of finishing
/// a file write them; returns the file's free pages and pages, for the choice of VACUUM.
fn analyze_and_seal(conn: &Writer, analyze: bool) -> Sql<(i64, i64)> {
    if analyze {
        conn.execute_batch("ANALYZE;")?;
    }
    let seal = conn.seal()?;
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('seal', ?1)",
        [seal],
    )?;
    let free: i64 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0))?;
    let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
    Ok((free, pages))
}

/// The share of a rebuilt file's pages (numerator, denominator) that may stay free
/// before [`Writer::finish_rebuilt`] compacts it: an eighth.
pub const RECLAIMED_ABOVE: (i64, i64) = (1, 8);

impl Reader {
    /// The file's seal (`meta` key `seal`): SHA-256, in hex, over what `generate` wrote
    /// besides the puzzles' own rows (which their checksums cover): every other `meta` row,
    /// every `puzzles` row (every column) and the planner statistics (`sqlite_stat1`), each
    /// value as SQL's `quote()` writes it, in key order. `verify` recomputes it, so a
    /// value edited on its own (a `created_at`, a `generated_at`, a statistic) is seen;
    /// only a signature tells who made a file whose seal was recomputed too.
    pub fn seal(&self) -> Sql<String> {
        let mut h = Sha256::new();
        for (table, filter, order) in [
            ("meta", "WHERE key <> 'seal'", "key"),
            ("puzzles", "", "name"),
            ("sqlite_stat1", "", "tbl, idx"),
        ] {
            let mut columns = Vec::new();
            let mut st = self.prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))?;
            for c in st.query_map([], |r| r.get::<_, String>(0))? {
                columns.push(format!("quote(\"{}\")", c?));
            }
            if columns.is_empty() {
                continue;
            }
            h.update(table.as_bytes());
            h.update(b"\n");
            let sql = format!(
                "SELECT {} FROM {table} {filter} ORDER BY {order}",
                columns.join(" || ',' || ")
            );
            let mut st = self.prepare(&sql)?;
            for row in st.query_map([], |r| r.get::<_, String>(0))? {
                h.update(row?.as_bytes());
                h.update(b"\n");
            }
        }
        Ok(sha256_hex(h))
    }
}

/// `<db>.sha256`, beside the file.
pub fn sidecar(db: &Path) -> PathBuf {
    beside(db, ".sha256")
}

/// Lower-case hex SHA-256 of a file's bytes.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut f = File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(sha256_hex(h))
}

/// The sidecar's one line, as `sha256sum` prints it and `sha256sum -c` reads it.
fn sidecar_line(hex: &str, base: &str) -> String {
    format!("{hex}  {base}\n")
}

/// A finished file flushed to disk and hashed ([`Sealed::take`]), so that its sidecar
/// can be written later without reading it again: `generate` takes it while SQLite's
/// structure check reads the same file, which on `fourteen`'s 11 GB is seconds of
/// each.
pub struct Sealed {
    hex: String,
    /// The file as it was when hashed.
    stamp: Stamp,
}

impl Sealed {
    /// Flushes `path` to disk, then hashes it. The stamp is taken first, so that a
    /// write while it is read makes [`Sealed::of`] hash it again.
    pub fn take(path: &Path) -> std::io::Result<Sealed> {
        let stamp = stamp(path)?;
        File::open(path)?.sync_all()?;
        let hex = sha256_file(path)?;
        Ok(Sealed { hex, stamp })
    }

    /// The hash of `path` as it is now: the one taken, when the file is still as it
    /// was then (its size, modification time and header bytes), else flushed and hashed afresh.
    pub fn of(self, path: &Path) -> std::io::Result<Sealed> {
        if stamp(path)? == self.stamp {
            Ok(self)
        } else {
            Sealed::take(path)
        }
    }
}

/// What changes when a file is written: its length, its modification time (as fine as
/// the file system keeps it) and, for an SQLite file, the header's change counter,
/// which every write transaction advances.
type Stamp = (u64, std::time::SystemTime, [u8; 4]);

fn stamp(path: &Path) -> std::io::Result<Stamp> {
    let m = fs::metadata(path)?;
    let mut header = [0u8; 28];
    let counter = match File::open(path)?.read_exact(&mut header) {
        Ok(()) => [header[24], header[25], header[26], header[27]],
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => [0; 4],
        Err(e) => return Err(e),
    };
    Ok((m.len(), m.modified()?, counter))
}

/// Writes the sidecar of the finished temporary whose hash is `sealed`, as it will be
/// named `base`, into `<sidecar>.tmp-<pid>`, flushed; returns that temporary's path.
pub fn write_sidecar_of(sealed: Sealed, db: &Path, base: &str) -> std::io::Result<PathBuf> {
    write_sidecar_hex(&sealed.hex, db, base)
}

fn write_sidecar_hex(hex: &str, db: &Path, base: &str) -> std::io::Result<PathBuf> {
    let tmp = temporary(&sidecar(db));
    let mut f = File::create(&tmp)?;
    f.write_all(sidecar_line(hex, base).as_bytes())?;
    f.sync_all()?;
    Ok(tmp)
}

/// Whether `<db>.sha256` is the sidecar of a file named `base` whose SHA-256 is `hex`:
/// then that file is byte for byte the one `generate` wrote, checked and hashed.
pub fn sidecar_says(db: &Path, base: &str, hex: &str) -> bool {
    fs::read(sidecar(db)).is_ok_and(|have| have == sidecar_line(hex, base).as_bytes())
}

/// Makes `<db>.sha256` agree with `db` (a run killed between the two renames leaves the
/// old sidecar beside the new file). Returns whether it had to be rewritten.
pub fn repair_sidecar(db: &Path, base: &str) -> std::io::Result<bool> {
    if !db.is_file() {
        return Ok(false);
    }
    let hex = sha256_file(db)?;
    let path = sidecar(db);
    if fs::read(&path).is_ok_and(|have| have == sidecar_line(&hex, base).as_bytes()) {
        return Ok(false);
    }
    let tmp = write_sidecar_hex(&hex, db, base)?;
    fs::rename(&tmp, &path)?;
    Ok(true)
}

/// Whether `name` in the database's directory is a temporary that a run of this program
/// made and did not finish: `<db>.tmp-<pid>` with a numeric pid and a file that is ours
/// (our SQLite header, or still empty), `<db>.sha256.tmp-<pid>` holding a sidecar
/// line, or `<db>.minisig.tmp-<pid>` holding a signature (or still empty). Anything else,
/// such as a user's `<db>.tmp-backup`, is left alone.
pub fn is_our_temporary(dir: &Path, base: &str, name: &str) -> bool {
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let path = dir.join(name);
    if let Some(pid) = name.strip_prefix(&format!("{base}.tmp-")) {
        return numeric(pid) && is_our_database_or_empty(&path);
    }
    if let Some(pid) = name.strip_prefix(&format!("{base}.sha256.tmp-")) {
        return numeric(pid) && is_sidecar_text(&path, base);
    }
    if let Some(pid) = name.strip_prefix(&format!("{base}.minisig.tmp-")) {
        return numeric(pid) && crate::signature::is_signature_text(&path);
    }
    false
}

fn is_our_database_or_empty(path: &Path) -> bool {
    let Ok(mut f) = File::open(path) else {
        return false;
    };
    let mut header = [0u8; 72];
    let mut got = 0;
    while got < header.len() {
        match f.read(&mut header[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(_) => return false,
        }
    }
    if got == 0 {
        return fs::metadata(path).is_ok_and(|m| m.len() == 0);
    }
    got == header.len()
        && &header[..16] == b"SQLite format 3\0"
        && header[68..72] == APPLICATION_ID.to_be_bytes()
}

fn is_sidecar_text(path: &Path, base: &str) -> bool {
    let Ok(text) = fs::read_to_string(path) else {
        return false;
    };
    let Some((hex, rest)) = text.split_once("  ") else {
        return text.is_empty();
    };
    hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) && rest == format!("{base}\n")
}

/// Puzzles recorded in a puzzlebase file of an older schema than this build's: their
/// names, and whether the file's tables are this build's so they can be copied.
pub struct OlderFile {
    pub version: i32,
    pub names: Vec<String>,
}

/// The names and stored definitions of the puzzles of a file whose pages fail their
/// checksums (changed by a program that does not keep them, such as `sqlite3 FILE
/// ANALYZE`, or damaged), read past the checksums through SQLite's own `unix` VFS: what
/// `generate` needs to rebuild every puzzle such a file held. Nothing else is taken
/// from it. The header's application id and user version are not looked at: they are
/// on page 1, which failed, and another program may have changed them; a file without
/// puzzlebase's `puzzles` table is an error.
pub fn puzzles_past_checksums(db: &Path) -> Sql<Vec<(String, String)>> {
    let conn = Connection::open_with_flags_and_vfs(
        super::paths::immutable_uri(db),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
        c"unix",
    )?;
    let mut st = conn.prepare("SELECT name, definition FROM puzzles ORDER BY name")?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether page 1 of the file at `db` reads as one a SQLite program wrote: its header's
/// change counter equals its version-valid-for number (every SQLite write sets both),
/// and SQLite, through its `unix` VFS (past our page checksums), reads the schema it
/// holds. One page is read, whatever the file's size. A flip in page 1's free space
/// passes too; the refusal then says "changed" where "damaged" was meant, and refuses
/// all the same.
pub fn page_one_written_by_sqlite(db: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 100];
    let read = std::fs::File::open(db).and_then(|mut f| f.read_exact(&mut header));
    if read.is_err() || header[24..28] != header[92..96] {
        return false;
    }
    Connection::open_with_flags_and_vfs(
        super::paths::immutable_uri(db),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
        c"unix",
    )
    .and_then(|c| {
        c.query_row("SELECT count(*) FROM sqlite_schema", [], |r| {
            r.get::<_, i64>(0)
        })
    })
    .is_ok_and(|n| n > 0)
}

/// Reads the puzzle names of a file whose schema is older than ours (every version
/// since the first has `puzzles.name`).
pub fn older_puzzles(db: &Path) -> Sql<OlderFile> {
    let conn = Connection::open_with_flags(
        super::paths::immutable_uri(db),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
    )?;
    let version: i32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let mut st = conn.prepare("SELECT name FROM puzzles ORDER BY name")?;
    let names = st
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(OlderFile { version, names })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_hash_is_taken_again_when_the_file_was_written_since() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.sqlite");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
            .unwrap();
        let sealed = Sealed::take(&path).unwrap();
        assert_eq!(sealed.hex, sha256_file(&path).unwrap());
        let unchanged = sealed.of(&path).unwrap();
        assert_eq!(unchanged.hex, sha256_file(&path).unwrap());
        // A write in place: same length, and within the file system's clock tick,
        // perhaps the same modification time; the header's change counter moves.
        conn.execute("UPDATE t SET x = 2", []).unwrap();
        let before = unchanged.hex.clone();
        let again = unchanged.of(&path).unwrap();
        assert_ne!(again.hex, before);
        assert_eq!(again.hex, sha256_file(&path).unwrap());
    }

    #[test]
    fn only_numbered_temporaries_with_our_content_are_ours() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let ours = Connection::open(d.join("p.sqlite.tmp-12")).unwrap();
        ours.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        ours.execute_batch("CREATE TABLE t (x)").unwrap();
        drop(ours);
        let foreign = Connection::open(d.join("p.sqlite.tmp-13")).unwrap();
        foreign.execute_batch("CREATE TABLE t (x)").unwrap();
        drop(foreign);
        fs::write(d.join("p.sqlite.tmp-14"), b"").unwrap();
        fs::write(d.join("p.sqlite.tmp-backup"), b"").unwrap();
        fs::write(d.join("p.sqlite.tmp-15"), b"notes").unwrap();
        let line = sidecar_line(&"ab".repeat(32), "p.sqlite");
        fs::write(d.join("p.sqlite.sha256.tmp-16"), &line).unwrap();
        fs::write(d.join("p.sqlite.sha256.tmp-old"), &line).unwrap();
        fs::write(d.join("p.sqlite.minisig.tmp-17"), b"untrusted comment: x\n").unwrap();
        fs::write(d.join("p.sqlite.minisig.tmp-18"), b"").unwrap();
        fs::write(d.join("p.sqlite.minisig.tmp-19"), b"my notes").unwrap();
        let ours = |n: &str| is_our_temporary(d, "p.sqlite", n);
        assert!(ours("p.sqlite.tmp-12"));
        assert!(!ours("p.sqlite.tmp-13"), "another program's SQLite file");
        assert!(
            ours("p.sqlite.tmp-14"),
            "a run killed before its first write"
        );
        assert!(!ours("p.sqlite.tmp-backup"));
        assert!(!ours("p.sqlite.tmp-15"));
        assert!(ours("p.sqlite.sha256.tmp-16"));
        assert!(!ours("p.sqlite.sha256.tmp-old"));
        assert!(ours("p.sqlite.minisig.tmp-17"));
        assert!(
            ours("p.sqlite.minisig.tmp-18"),
            "killed before its first write"
        );
        assert!(!ours("p.sqlite.minisig.tmp-19"), "not a signature");
        assert!(!ours("q.sqlite.tmp-12"));
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_to_a_target_that_may_not_exist_yet() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::create_dir(d.join("real")).unwrap();
        std::os::unix::fs::symlink("real/p.sqlite", d.join("a")).unwrap();
        std::os::unix::fs::symlink(d.join("a"), d.join("b")).unwrap();
        assert_eq!(resolve(&d.join("b")).unwrap(), d.join("real/p.sqlite"));
        assert_eq!(resolve(&d.join("x")).unwrap(), d.join("x"));
        std::os::unix::fs::symlink("loop", d.join("loop")).unwrap();
        assert!(resolve(&d.join("loop")).is_err());
    }
}
