//! Page checksums: every page of a file this build writes carries, in its last 16
//! (reserved) bytes, a value that names its file and a checksum bound to its page
//! number. Both are checked whenever the page is read, and whenever it is mapped for the
//! first time since the file last changed on disk (its times, size or inode: looked at
//! each time a connection begins to read), so a page flipped, moved to another place,
//! copied over another one or taken from another file is never handed to SQLite, even
//! under a long-running reader: the read fails with `SQLITE_IOERR_DATA`, and
//! [`damaged_page`] tells which page it was.
//!
//! The rule (docs/file-format.md, "Page checksums"):
//!
//! - the database header's byte 20 (reserved bytes per page) is 16;
//! - bytes `n-16 .. n-8` of every page (`n` the page size) hold the file's value: 8
//!   bytes chosen at random when the file is created, the same on every page; page 1's
//!   copy is the one the others are held to;
//! - bytes `n-8 .. n` hold two 32-bit sums `s1, s2` (little-endian) over the page's
//!   first `n-8` bytes (the file's value included) read as little-endian 32-bit words
//!   `x0, x1, ...` in pairs: `s1 += x[2i] + s2; s2 += x[2i+1] + s1` (wrapping), starting
//!   from `s1` = the page number (from 1) and `s2` = 0.
//!
//! Files of the previous rule (8 reserved bytes: the same sums starting from 0, SQLite's
//! `cksumvfs` rule, bound to neither place nor file) are still read and checked, so that
//! `generate` can carry their puzzles into a file of this rule; they are never written.
//!
//! This is a shim over the platform's default VFS, registered as the process's default
//! ([`install`]); the store calls it before it opens any connection. Files without
//! reserved bytes (written before page checksums) are read as they are, unverified,
//! unless page 1 shows a header whose byte 20 was changed from one of the rules above.

use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::io::{Read, Seek};
use std::path::Path;

use rusqlite::ffi;

mod copy;
mod vfs;
pub use copy::{Copied, copy_rekeyed};
pub use vfs::{InstallError, install};

/// Reserved bytes per page that carry the file's value and the checksum.
pub const RESERVED: u8 = 16;

/// Reserved bytes per page of the previous rule (an unbound checksum).
pub const LEGACY_RESERVED: u8 = 8;

/// The VFS's name (`vfs=` in a URI selects it; it is also the default).
pub const VFS_NAME: &str = "puzzlebase-cksum";

/// Which checksum rule a file's pages follow, from its header's byte 20.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// No checksums (or a header byte 20 this build does not know).
    None,
    /// The previous rule: 8 bytes, unbound; read, never written.
    Legacy,
    /// This build's rule: the file's value and a checksum bound to the page number.
    Bound,
}

impl Rule {
    /// The rule a header whose byte 20 is `reserved` declares.
    pub fn of(reserved: u8) -> Rule {
        match reserved {
            RESERVED => Rule::Bound,
            LEGACY_RESERVED => Rule::Legacy,
            _ => Rule::None,
        }
    }
}

/// The two sums over `data` (its length a multiple of 8) starting from `s1 = seed`,
/// `s2 = 0`, as the 8 bytes stored after it.
#[inline]
fn sums(seed: u32, data: &[u8]) -> [u8; 8] {
    let (mut s1, mut s2) = (seed, 0u32);
    for pair in data.chunks_exact(8) {
        // One load per pair: the low word is x[2i], the high x[2i+1].
        let w = u64::from_le_bytes(pair.try_into().unwrap());
        s1 = s1.wrapping_add(w as u32).wrapping_add(s2);
        s2 = s2.wrapping_add((w >> 32) as u32).wrapping_add(s1);
    }
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(&s1.to_le_bytes());
    out[4..].copy_from_slice(&s2.to_le_bytes());
    out
}

/// The checksum of page `number` whose first `n-8` bytes are `data`: the 8 bytes stored
/// after them. Distinct page numbers give distinct checksums for the same bytes (each
/// step of the sums is invertible), so a page read at another place fails.
pub fn checksum(number: u32, data: &[u8]) -> [u8; 8] {
    sums(number, data)
}

/// The file's value as `page` (a whole page of a file of this rule) carries it.
pub fn file_value(page: &[u8]) -> [u8; 8] {
    let n = page.len();
    page[n - 16..n - 8].try_into().unwrap()
}

/// Whether `page` (a whole page, reserved bytes included) is page `number` of the file
/// whose value is `value`, under this build's rule.
pub fn page_ok(page: &[u8], number: u32, value: [u8; 8]) -> bool {
    let n = page.len() - 8;
    // The sums first: they read the page from its start, in the order the memory
    // system fetches it best.
    checksum(number, &page[..n]) == page[n..] && file_value(page) == value
}

/// Whether `page` holds its checksum under the previous rule.
pub fn legacy_page_ok(page: &[u8]) -> bool {
    let n = page.len() - LEGACY_RESERVED as usize;
    sums(0, &page[..n]) == page[n..]
}

/// Whether page 1 of a file whose header declares no known rule is a page of one of
/// the rules with its byte 20 changed: a damaged header, not an old file.
fn header_changed(page: &[u8]) -> bool {
    if page.len() <= 20 || Rule::of(page[20]) != Rule::None {
        return false;
    }
    let mut p = page.to_vec();
    p[20] = RESERVED;
    if page_ok(&p, 1, file_value(&p)) {
        return true;
    }
    p[20] = LEGACY_RESERVED;
    legacy_page_ok(&p)
}

/// Whether `page`, page `number` of a file whose header declares `rule`, is sound:
/// under this build's rule, also that it carries the file's `value` (unused by the
/// others); a file of no known rule has only its page 1 looked at, for a changed byte 20.
fn sound(rule: Rule, page: &[u8], number: u64, value: [u8; 8]) -> bool {
    match rule {
        Rule::None => number != 1 || !header_changed(page),
        Rule::Legacy => legacy_page_ok(page),
        Rule::Bound => page_ok(page, number as u32, value),
    }
}

/// Whether page `number` (from 1) of a file of `page`-byte pages is SQLite's lock-byte
/// page, the one holding byte offset 2^30: SQLite never reads or writes it (it holds
/// the file locks' bytes on some systems), so in a file larger than 1 GiB it stays as
/// the file system left it (zeros) and carries no checksum.
pub fn is_lock_page(number: u64, page: usize) -> bool {
    number == (1u64 << 30) / page as u64 + 1
}

/// The pages of a whole file, one after another, each checked by the rule its page 1
/// declares.
#[derive(Default)]
struct Scan {
    rule: Option<Rule>,
    value: [u8; 8],
    number: u64,
    failing: Vec<u64>,
}

impl Scan {
    fn page(&mut self, p: &[u8], page: usize) {
        self.number += 1;
        let rule = *self
            .rule
            .get_or_insert_with(|| Rule::of(p.get(20).copied().unwrap_or(0)));
        if self.number == 1 && p.len() == page {
            self.value = file_value(p);
        }
        let ok = p.len() == page
            && (is_lock_page(self.number, page) || sound(rule, p, self.number, self.value));
        if !ok {
            self.failing.push(self.number);
        }
    }
}

/// The pages of `bytes` (a whole file of page size `page`) that fail the rule its own
/// header declares, numbered from 1 (a piece shorter than a page at the end fails too);
/// a header of no known rule fails page 1 only when its byte 20 was changed from a
/// known rule.
pub fn failing_pages_of(bytes: &[u8], page: usize) -> Vec<u64> {
    let mut scan = Scan::default();
    bytes.chunks(page).for_each(|p| scan.page(p, page));
    scan.failing
}

/// The file at `path`, positioned at its start, and its page size from its header.
fn open_pages(path: &Path) -> std::io::Result<(std::fs::File, usize)> {
    let mut f = std::fs::File::open(path)?;
    let mut header = [0u8; 100];
    f.read_exact(&mut header)?;
    let page = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65536,
        n => n as usize,
    };
    if !(512..=65536).contains(&page) || !page.is_power_of_two() {
        return Err(std::io::Error::other("not a SQLite header"));
    }
    f.seek(std::io::SeekFrom::Start(0))?;
    Ok((f, page))
}

/// Whether page 1 of the file at `path` fails the rule its header declares (or is cut
/// short): what every write by another SQLite program does, since it rewrites page 1.
pub fn page_one_fails(path: &Path) -> std::io::Result<bool> {
    let (f, page) = open_pages(path)?;
    let mut first = Vec::with_capacity(page);
    f.take(page as u64).read_to_end(&mut first)?;
    let mut scan = Scan::default();
    scan.page(&first, page);
    Ok(!scan.failing.is_empty())
}

/// [`failing_pages_of`] over the file at `path`, read a few MiB at a time (the file may
/// be larger than memory).
pub fn failing_pages(path: &Path) -> std::io::Result<Vec<u64>> {
    let (mut f, page) = open_pages(path)?;
    let mut buf = vec![0u8; 4 << 20];
    let mut scan = Scan::default();
    loop {
        let mut got = 0;
        while got < buf.len() {
            match f.read(&mut buf[got..])? {
                0 => break,
                n => got += n,
            }
        }
        buf[..got].chunks(page).for_each(|p| scan.page(p, page));
        if got < buf.len() {
            return Ok(scan.failing);
        }
    }
}

/// What tells a file changed on disk: its modification and change times, size and
/// inode. A write through any program, in place or through a mapping, moves the times.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Stamp {
    modified: (i64, i64),
    changed: (i64, i64),
    len: u64,
    inode: (u64, u64),
}

impl Stamp {
    /// The file at `path` as it is now; `None` if it cannot be looked at.
    pub fn of(path: &Path) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        Some(Stamp {
            modified: (m.mtime(), m.mtime_nsec()),
            changed: (m.ctime(), m.ctime_nsec()),
            len: m.len(),
            inode: (m.dev(), m.ino()),
        })
    }
}

/// The rule the file at `path` declares in its header.
pub fn file_rule(path: &Path) -> std::io::Result<Rule> {
    let mut header = [0u8; 21];
    std::fs::File::open(path)?.read_exact(&mut header)?;
    Ok(Rule::of(header[20]))
}

thread_local! {
    /// The page (numbered from 1) whose checksum failed last on this thread.
    static DAMAGED: Cell<Option<u64>> = const { Cell::new(None) };
}

/// The page whose checksum failed in the last failed read on this thread, if a read
/// failed that way; reading it clears it.
pub fn damaged_page() -> Option<u64> {
    DAMAGED.with(|d| d.take())
}

/// Whether `e` is a read refused because a page failed its checksum.
pub fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.extended_code == ffi::SQLITE_IOERR_DATA)
}

/// SQLite's reserved-bytes file control on `conn`'s main database: sets `n` when it is
/// not negative, and returns the setting.
fn reserve_bytes(conn: &rusqlite::Connection, mut n: c_int) -> rusqlite::Result<i32> {
    // SAFETY: a file control on the connection's own main database; SQLite writes the
    // current setting back to `n`.
    let rc = unsafe {
        ffi::sqlite3_file_control(
            conn.handle(),
            c"main".as_ptr(),
            ffi::SQLITE_FCNTL_RESERVE_BYTES,
            &mut n as *mut c_int as *mut c_void,
        )
    };
    if rc != ffi::SQLITE_OK {
        return Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), None));
    }
    Ok(n)
}

/// Asks SQLite to keep [`RESERVED`] bytes at the end of every page of the new, empty
/// database on `conn`, so that its pages carry checksums.
pub fn reserve(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    reserve_bytes(conn, RESERVED as c_int).map(|_| ())
}

/// The reserved bytes per page of the main database on `conn` (16 for a file with page
/// checksums).
pub fn reserved(conn: &rusqlite::Connection) -> rusqlite::Result<i32> {
    reserve_bytes(conn, -1)
}

#[cfg(test)]
mod tests;
