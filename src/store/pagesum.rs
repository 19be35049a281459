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
use std::ffi::{c_char, c_int, c_void};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::ffi;

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
            && match rule {
                Rule::None => self.number != 1 || !header_changed(p),
                Rule::Legacy => legacy_page_ok(p),
                Rule::Bound => page_ok(p, self.number as u32, self.value),
            };
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

/// [`failing_pages_of`] over the file at `path`, read a few MiB at a time (the file may
/// be larger than memory).
pub fn failing_pages(path: &Path) -> std::io::Result<Vec<u64>> {
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
    let mut f = std::fs::File::open(path)?;
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

/// A new file's value: random (SipHash keyed from the operating system's randomness,
/// over the time, the process and a counter), so that two files never share one.
fn fresh_value() -> [u8; 8] {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    h.write_u128(now);
    h.write_u32(std::process::id());
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.finish().to_le_bytes()
}

/// Our file: SQLite's header, then what we keep; the default VFS's own file follows in
/// the same allocation (`szOsFile` covers both).
#[repr(C)]
struct SumFile {
    base: ffi::sqlite3_file,
    /// A main database file (journals and temporary files are not checked).
    main_db: bool,
    /// The rule its header declares.
    rule: Rule,
    /// The file's value (this build's rule), once page 1 was read or written.
    value: Option<[u8; 8]>,
    /// The file's path, to see whether it changed ([`Stamp`]).
    path: Option<PathBuf>,
    /// The file as it was when this handle last began to read.
    stamp: Option<Stamp>,
    /// Pages (by number - 1) whose mapping was checked since `stamp`: a mapped page is
    /// handed out again on every access, so it is checked again only when the file
    /// changed (another program may write to it in place under a long-running reader)
    /// or this handle wrote it.
    mapped_ok: Vec<u64>,
}

/// What tells a file changed on disk: its modification and change times, size and
/// inode. A write through any program, in place or through a mapping, moves the times.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Stamp {
    modified: (i64, i64),
    changed: (i64, i64),
    len: u64,
    inode: (u64, u64),
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
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

impl SumFile {
    fn mapped_ok(&self, page: usize) -> bool {
        self.mapped_ok
            .get(page / 64)
            .is_some_and(|w| w >> (page % 64) & 1 == 1)
    }
    fn set_mapped_ok(&mut self, page: usize, ok: bool) {
        if self.mapped_ok.len() <= page / 64 {
            if !ok {
                return;
            }
            self.mapped_ok.resize(page / 64 + 1, 0);
        }
        let bit = 1u64 << (page % 64);
        if ok {
            self.mapped_ok[page / 64] |= bit;
        } else {
            self.mapped_ok[page / 64] &= !bit;
        }
    }
}

fn real(f: *mut ffi::sqlite3_file) -> *mut ffi::sqlite3_file {
    // SAFETY: the allocation is `szOsFile` bytes: our struct, then the real file.
    unsafe { (f as *mut u8).add(std::mem::size_of::<SumFile>()) as *mut ffi::sqlite3_file }
}

fn methods(f: *mut ffi::sqlite3_file) -> &'static ffi::sqlite3_io_methods {
    // SAFETY: the real file was opened successfully, so its methods are set and live
    // as long as the process (they are static in the default VFS).
    unsafe { &*(*real(f)).pMethods }
}

fn sum(f: *mut ffi::sqlite3_file) -> &'static mut SumFile {
    // SAFETY: SQLite hands back the file our xOpen initialised.
    unsafe { &mut *(f as *mut SumFile) }
}

/// A whole page: a power of two from 512 to 65536 bytes at a multiple of its size.
fn is_page(amt: c_int, offset: i64) -> bool {
    (512..=65536).contains(&amt) && (amt as u32).is_power_of_two() && offset % amt as i64 == 0
}

/// Page 1's value as the file on disk holds it (the real file, read past our checks),
/// for a handle that has not read page 1 itself; `None` if it cannot be read.
fn value_on_disk(f: *mut ffi::sqlite3_file, page: c_int) -> Option<[u8; 8]> {
    let mut v = [0u8; 8];
    let rc = unsafe {
        methods(f).xRead.unwrap()(real(f), v.as_mut_ptr() as *mut c_void, 8, page as i64 - 16)
    };
    (rc == ffi::SQLITE_OK).then_some(v)
}

/// Checks a whole page read or mapped at `off` from the main database `f`; on failure
/// records its number for [`damaged_page`].
fn check(f: *mut ffi::sqlite3_file, data: &[u8], off: i64) -> bool {
    let s = sum(f);
    let amt = data.len() as c_int;
    let number = off as u64 / amt as u64 + 1;
    if number == 1 && data.len() > 20 {
        s.rule = Rule::of(data[20]);
    }
    let ok = match s.rule {
        Rule::None => number != 1 || !header_changed(data),
        Rule::Legacy => legacy_page_ok(data),
        Rule::Bound => {
            let value = if number == 1 {
                // Page 1 sets the value the others are held to; a page 1 with another
                // value than the one this handle has seen is another file's.
                let v = file_value(data);
                if s.value.is_some_and(|seen| seen != v) {
                    None
                } else {
                    Some(v)
                }
            } else {
                s.value.or_else(|| value_on_disk(f, amt))
            };
            match value {
                Some(v) if page_ok(data, number as u32, v) => {
                    s.value = Some(v);
                    true
                }
                _ => false,
            }
        }
    };
    if !ok {
        DAMAGED.with(|d| d.set(Some(number)));
    }
    ok
}

fn orig_vfs() -> *mut ffi::sqlite3_vfs {
    *ORIG.get().expect("installed before use") as *mut ffi::sqlite3_vfs
}

static ORIG: OnceLock<usize> = OnceLock::new();
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

unsafe extern "C" fn x_open(
    _vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    let orig = orig_vfs();
    // SAFETY: `file` is `szOsFile` bytes; the real file lives after our struct.
    unsafe {
        ptr::write(
            file as *mut SumFile,
            SumFile {
                base: ffi::sqlite3_file {
                    pMethods: ptr::null(),
                },
                main_db: flags & ffi::SQLITE_OPEN_MAIN_DB != 0,
                rule: Rule::None,
                value: None,
                path: (!name.is_null()).then(|| {
                    use std::os::unix::ffi::OsStrExt;
                    let bytes = std::ffi::CStr::from_ptr(name).to_bytes();
                    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
                }),
                stamp: None,
                mapped_ok: Vec::new(),
            },
        );
        let open = (*orig).xOpen.expect("the default VFS opens files");
        let rc = open(orig, name, real(file), flags, out_flags);
        if rc == ffi::SQLITE_OK {
            (*file).pMethods = &METHODS;
        }
        rc
    }
}

unsafe extern "C" fn x_close(f: *mut ffi::sqlite3_file) -> c_int {
    let rc = unsafe { methods(f).xClose.unwrap()(real(f)) };
    // SAFETY: closed once; SQLite frees the allocation, we free what our struct owns.
    let s = sum(f);
    drop(s.path.take());
    drop(std::mem::take(&mut s.mapped_ok));
    rc
}

unsafe extern "C" fn x_read(
    f: *mut ffi::sqlite3_file,
    buf: *mut c_void,
    amt: c_int,
    off: i64,
) -> c_int {
    let rc = unsafe { methods(f).xRead.unwrap()(real(f), buf, amt, off) };
    if rc != ffi::SQLITE_OK || !sum(f).main_db {
        return rc;
    }
    // SAFETY: the read filled `amt` bytes of `buf`.
    let data = unsafe { std::slice::from_raw_parts(buf as *const u8, amt as usize) };
    if off == 0 && data.len() > 20 {
        sum(f).rule = Rule::of(data[20]);
    }
    if is_page(amt, off) && !check(f, data, off) {
        return ffi::SQLITE_IOERR_DATA;
    }
    rc
}

unsafe extern "C" fn x_write(
    f: *mut ffi::sqlite3_file,
    buf: *const c_void,
    amt: c_int,
    off: i64,
) -> c_int {
    let s = sum(f);
    // SAFETY: SQLite passes `amt` readable bytes.
    let data = unsafe { std::slice::from_raw_parts(buf as *const u8, amt as usize) };
    if s.main_db && off == 0 && data.len() > 20 {
        s.rule = Rule::of(data[20]);
    }
    let write = methods(f).xWrite.unwrap();
    if s.main_db && is_page(amt, off) {
        s.set_mapped_ok((off / amt as i64) as usize, false);
    }
    if !s.main_db || !is_page(amt, off) || s.rule == Rule::None {
        return unsafe { write(real(f), buf, amt, off) };
    }
    let mut page = data.to_vec();
    match s.rule {
        Rule::Legacy => {
            let n = page.len() - LEGACY_RESERVED as usize;
            let sums = sums(0, &page[..n]);
            page[n..].copy_from_slice(&sums);
        }
        _ => {
            let value = match s.value {
                Some(v) => v,
                None => {
                    // A handle that writes before it has read page 1: a new file gets a
                    // new value, an existing one keeps its own.
                    let mut size = 0i64;
                    let existing = unsafe { methods(f).xFileSize.unwrap()(real(f), &mut size) }
                        == ffi::SQLITE_OK
                        && size >= amt as i64;
                    let v = if existing {
                        value_on_disk(f, amt)
                    } else {
                        None
                    };
                    v.unwrap_or_else(fresh_value)
                }
            };
            s.value = Some(value);
            let n = page.len();
            page[n - 16..n - 8].copy_from_slice(&value);
            let number = (off / amt as i64 + 1) as u32;
            let sums = checksum(number, &page[..n - 8]);
            page[n - 8..].copy_from_slice(&sums);
        }
    }
    unsafe { write(real(f), page.as_ptr() as *const c_void, amt, off) }
}

unsafe extern "C" fn x_truncate(f: *mut ffi::sqlite3_file, size: i64) -> c_int {
    sum(f).mapped_ok.clear();
    unsafe { methods(f).xTruncate.unwrap()(real(f), size) }
}
unsafe extern "C" fn x_sync(f: *mut ffi::sqlite3_file, flags: c_int) -> c_int {
    unsafe { methods(f).xSync.unwrap()(real(f), flags) }
}
unsafe extern "C" fn x_file_size(f: *mut ffi::sqlite3_file, size: *mut i64) -> c_int {
    unsafe { methods(f).xFileSize.unwrap()(real(f), size) }
}
unsafe extern "C" fn x_lock(f: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    let rc = unsafe { methods(f).xLock.unwrap()(real(f), level) };
    let s = sum(f);
    // Every read begins with the shared lock: if the file changed since this handle
    // last looked, every mapped page is checked again as it is next used.
    if rc == ffi::SQLITE_OK && s.main_db && level == ffi::SQLITE_LOCK_SHARED {
        let now = s.path.as_deref().and_then(Stamp::of);
        if now.is_none() || now != s.stamp {
            s.mapped_ok.clear();
        }
        s.stamp = now;
    }
    rc
}
unsafe extern "C" fn x_unlock(f: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    unsafe { methods(f).xUnlock.unwrap()(real(f), level) }
}
unsafe extern "C" fn x_check_reserved_lock(f: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    unsafe { methods(f).xCheckReservedLock.unwrap()(real(f), out) }
}
unsafe extern "C" fn x_file_control(
    f: *mut ffi::sqlite3_file,
    op: c_int,
    arg: *mut c_void,
) -> c_int {
    unsafe { methods(f).xFileControl.unwrap()(real(f), op, arg) }
}
unsafe extern "C" fn x_sector_size(f: *mut ffi::sqlite3_file) -> c_int {
    unsafe { methods(f).xSectorSize.unwrap()(real(f)) }
}
unsafe extern "C" fn x_device_characteristics(f: *mut ffi::sqlite3_file) -> c_int {
    unsafe { methods(f).xDeviceCharacteristics.unwrap()(real(f)) }
}
unsafe extern "C" fn x_shm_map(
    f: *mut ffi::sqlite3_file,
    page: c_int,
    size: c_int,
    extend: c_int,
    out: *mut *mut c_void,
) -> c_int {
    match methods(f).xShmMap {
        Some(m) => unsafe { m(real(f), page, size, extend, out) },
        None => ffi::SQLITE_IOERR,
    }
}
unsafe extern "C" fn x_shm_lock(
    f: *mut ffi::sqlite3_file,
    offset: c_int,
    n: c_int,
    flags: c_int,
) -> c_int {
    match methods(f).xShmLock {
        Some(m) => unsafe { m(real(f), offset, n, flags) },
        None => ffi::SQLITE_IOERR,
    }
}
unsafe extern "C" fn x_shm_barrier(f: *mut ffi::sqlite3_file) {
    if let Some(m) = methods(f).xShmBarrier {
        unsafe { m(real(f)) }
    }
}
unsafe extern "C" fn x_shm_unmap(f: *mut ffi::sqlite3_file, delete: c_int) -> c_int {
    match methods(f).xShmUnmap {
        Some(m) => unsafe { m(real(f), delete) },
        None => ffi::SQLITE_OK,
    }
}
unsafe extern "C" fn x_fetch(
    f: *mut ffi::sqlite3_file,
    off: i64,
    amt: c_int,
    pp: *mut *mut c_void,
) -> c_int {
    let Some(fetch) = methods(f).xFetch else {
        unsafe { *pp = ptr::null_mut() };
        return ffi::SQLITE_OK;
    };
    let rc = unsafe { fetch(real(f), off, amt, pp) };
    // A mapped page is checked as a read one is, before SQLite sees it, the first time
    // this handle uses it after the file changed (see `x_lock`).
    if rc == ffi::SQLITE_OK && sum(f).main_db && is_page(amt, off) {
        let page = unsafe { *pp };
        let number = (off / amt as i64) as usize;
        if !page.is_null() && !sum(f).mapped_ok(number) {
            // SAFETY: the mapping holds `amt` bytes at `page` until it is unfetched.
            let data = unsafe { std::slice::from_raw_parts(page as *const u8, amt as usize) };
            if !check(f, data, off) {
                if let Some(unfetch) = methods(f).xUnfetch {
                    unsafe { unfetch(real(f), off, page) };
                }
                unsafe { *pp = ptr::null_mut() };
                return ffi::SQLITE_IOERR_DATA;
            }
            sum(f).set_mapped_ok(number, true);
        }
    }
    rc
}
unsafe extern "C" fn x_unfetch(f: *mut ffi::sqlite3_file, off: i64, p: *mut c_void) -> c_int {
    match methods(f).xUnfetch {
        Some(m) => unsafe { m(real(f), off, p) },
        None => ffi::SQLITE_OK,
    }
}

static METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 3,
    xClose: Some(x_close),
    xRead: Some(x_read),
    xWrite: Some(x_write),
    xTruncate: Some(x_truncate),
    xSync: Some(x_sync),
    xFileSize: Some(x_file_size),
    xLock: Some(x_lock),
    xUnlock: Some(x_unlock),
    xCheckReservedLock: Some(x_check_reserved_lock),
    xFileControl: Some(x_file_control),
    xSectorSize: Some(x_sector_size),
    xDeviceCharacteristics: Some(x_device_characteristics),
    xShmMap: Some(x_shm_map),
    xShmLock: Some(x_shm_lock),
    xShmBarrier: Some(x_shm_barrier),
    xShmUnmap: Some(x_shm_unmap),
    xFetch: Some(x_fetch),
    xUnfetch: Some(x_unfetch),
};

/// Registers the checksum VFS as the process's default, once. Every connection opened
/// afterwards reads and writes through it.
pub fn install() -> Result<(), String> {
    INSTALLED
        .get_or_init(|| {
            // SAFETY: looking up and registering VFSs is thread-safe in SQLite; our VFS
            // struct is leaked so it lives as long as the process.
            unsafe {
                let orig = ffi::sqlite3_vfs_find(ptr::null());
                if orig.is_null() {
                    return Err("SQLite has no default VFS".to_string());
                }
                let _ = ORIG.set(orig as usize);
                let mut vfs: ffi::sqlite3_vfs = *orig;
                vfs.pNext = ptr::null_mut();
                vfs.zName = c"puzzlebase-cksum".as_ptr() as *const c_char;
                vfs.szOsFile = (*orig).szOsFile + std::mem::size_of::<SumFile>() as c_int;
                vfs.xOpen = Some(x_open);
                let vfs = Box::leak(Box::new(vfs));
                match ffi::sqlite3_vfs_register(vfs, 1) {
                    ffi::SQLITE_OK => Ok(()),
                    rc => Err(format!("registering the checksum VFS failed ({rc})")),
                }
            }
        })
        .clone()
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
mod tests {
    use super::*;

    #[test]
    fn the_sums_are_the_wal_rule_started_at_the_page_number() {
        assert_eq!(checksum(0, &[0; 16]), [0; 8]);
        // One pair (1, 2) on page 0: s1 = 1, s2 = 2 + 1 = 3.
        let mut d = [0u8; 8];
        d[0] = 1;
        d[4] = 2;
        assert_eq!(checksum(0, &d), [1, 0, 0, 0, 3, 0, 0, 0]);
        // On page 5: s1 = 5 + 1 = 6, s2 = 2 + 6 = 8.
        assert_eq!(checksum(5, &d), [6, 0, 0, 0, 8, 0, 0, 0]);
        // Wrapping past 2^32 stays defined.
        let d = [0xFFu8; 16];
        let s = checksum(0, &d);
        let s1 = u32::from_le_bytes(s[..4].try_into().unwrap());
        let s2 = u32::from_le_bytes(s[4..].try_into().unwrap());
        let (mut a, mut b) = (0u32, 0u32);
        for _ in 0..2 {
            a = a.wrapping_add(u32::MAX).wrapping_add(b);
            b = b.wrapping_add(u32::MAX).wrapping_add(a);
        }
        assert_eq!((s1, s2), (a, b));
    }

    /// A file of 2,000 rows written through the VFS, its bytes and page size.
    fn written(path: &Path) -> (Vec<u8>, usize) {
        install().unwrap();
        let conn = rusqlite::Connection::open(path).unwrap();
        reserve(&conn).unwrap();
        conn.execute_batch(
            "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
             INSERT INTO t SELECT i, printf('value %d', i) FROM n;",
        )
        .unwrap();
        drop(conn);
        let bytes = std::fs::read(path).unwrap();
        let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
        (bytes, page)
    }

    /// Reading the whole table from `bytes` written to `path`, read pages and mapped
    /// ones: the page that failed, or `None` when it reads.
    fn refused_page(path: &Path, bytes: &[u8]) -> [Option<u64>; 2] {
        std::fs::write(path, bytes).unwrap();
        [0u64, 1_000_000_000].map(|mmap| {
            let conn = rusqlite::Connection::open(path).unwrap();
            conn.execute_batch(&format!("PRAGMA mmap_size = {mmap};"))
                .unwrap();
            match conn.query_row("SELECT sum(length(v)) FROM t", [], |r| r.get::<_, i64>(0)) {
                Ok(_) => None,
                Err(e) => {
                    assert!(is_damage(&e), "{e}");
                    Some(damaged_page().unwrap())
                }
            }
        })
    }

    #[test]
    fn pages_written_through_the_vfs_carry_checksums_and_a_flip_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sums.sqlite");
        let (mut bytes, page) = written(&path);
        let check = rusqlite::Connection::open(&path).unwrap();
        assert_eq!(reserved(&check).unwrap(), RESERVED as i32);
        drop(check);
        assert_eq!(bytes[20], RESERVED);
        let value = file_value(&bytes[..page]);
        assert!(bytes.chunks(page).all(|p| file_value(p) == value));
        assert!(failing_pages_of(&bytes, page).is_empty());
        assert!(failing_pages(&path).unwrap().is_empty());
        assert_eq!(refused_page(&path, &bytes), [None, None]);
        // A bit flipped in the third page: reading the table fails as damage, page 3.
        bytes[2 * page + 300] ^= 0x10;
        assert_eq!(refused_page(&path, &bytes), [Some(3), Some(3)]);
        assert_eq!(failing_pages(&path).unwrap(), [3]);
    }

    #[test]
    fn pages_moved_copied_or_from_another_file_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (good, page) = written(&dir.path().join("a.sqlite"));
        // The same rows written again: the same bytes but for the file's value.
        let (other, _) = written(&dir.path().join("b.sqlite"));
        assert_eq!(good.len(), other.len());
        assert_ne!(file_value(&good[..page]), file_value(&other[..page]));
        let path = dir.path().join("moved.sqlite");
        let pages = good.len() / page;
        assert!(pages > 4, "{pages} pages");
        let at = |n: usize| n * page..(n + 1) * page;
        // Two leaf pages swapped.
        let mut b = good.clone();
        let (x, y) = (pages - 1, pages - 2);
        let px = good[at(x)].to_vec();
        b[at(x)].copy_from_slice(&good[at(y)]);
        b[at(y)].copy_from_slice(&px);
        assert!(refused_page(&path, &b).iter().all(Option::is_some));
        assert_eq!(failing_pages_of(&b, page), [y as u64 + 1, x as u64 + 1]);
        // One page copied over another.
        let mut b = good.clone();
        b[at(x)].copy_from_slice(&good[at(y)]);
        assert_eq!(refused_page(&path, &b), [Some(x as u64 + 1); 2]);
        // The same page of the other file (its content may even be the same).
        let mut b = good.clone();
        b[at(x)].copy_from_slice(&other[at(x)]);
        assert_eq!(refused_page(&path, &b), [Some(x as u64 + 1); 2]);
        // The other file's page 1: every other page is then held to its value.
        let mut b = good.clone();
        b[at(0)].copy_from_slice(&other[at(0)]);
        assert!(refused_page(&path, &b).iter().all(Option::is_some));
        assert_eq!(failing_pages_of(&b, page).len(), pages - 1);
    }

    #[test]
    fn a_flip_in_the_header_byte_that_names_the_rule_is_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        let (good, page) = written(&path);
        for bit in 0..8 {
            let mut b = good.clone();
            b[20] ^= 1 << bit;
            assert_eq!(failing_pages_of(&b, page), [1], "bit {bit}");
            std::fs::write(&path, &b).unwrap();
            // Opening reads the header: refused as damage to page 1, or by SQLite
            // itself when the byte leaves too few usable bytes per page.
            let conn = rusqlite::Connection::open(&path).unwrap();
            let e = conn
                .query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0))
                .unwrap_err();
            if is_damage(&e) {
                assert_eq!(damaged_page(), Some(1), "bit {bit}");
            }
        }
    }

    #[test]
    fn files_of_the_previous_rule_are_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("legacy.sqlite");
        let (good, page) = written(&path);
        // The same pages under the previous rule: 8 reserved bytes, unbound sums.
        let mut b = good.clone();
        b[20] = LEGACY_RESERVED;
        for p in b.chunks_mut(page) {
            let n = page - 8;
            let s = sums(0, &p[..n]);
            p[n..].copy_from_slice(&s);
        }
        // Bytes n-16..n-8 are payload under that rule; only our rows' bytes matter.
        assert!(failing_pages_of(&b, page).is_empty());
        std::fs::write(&path, &b).unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        assert_eq!(reserved(&conn).unwrap(), LEGACY_RESERVED as i32);
        drop(conn);
        b[3 * page + 100] ^= 1;
        assert_eq!(refused_page(&path, &b), [Some(4); 2]);
    }
}
