//! Page checksums: every page of a file this build writes carries an 8-byte checksum in
//! its reserved bytes, written with the page and verified whenever the page is read. A
//! page whose checksum does not match is never handed to SQLite: the read fails with
//! `SQLITE_IOERR_DATA`, and [`damaged_page`] tells which page it was.
//!
//! The layout and the rule are those of SQLite's checksum VFS (`ext/misc/cksumvfs.c`),
//! so that extension verifies our files too and any SQLite reads them (reserved bytes are
//! part of the file format):
//!
//! - the database header's byte 20 (reserved bytes per page) is 8;
//! - the last 8 bytes of each page hold two 32-bit sums `s1, s2` (little-endian) over the
//!   page's other bytes read as little-endian 32-bit words `x0, x1, ...` in pairs:
//!   `s1 += x[2i] + s2; s2 += x[2i+1] + s1` (wrapping), both starting at 0: the
//!   checksum of SQLite's write-ahead log, over the page.
//!
//! This is a shim over the platform's default VFS, registered as the process's default
//! ([`install`]); the store calls it before it opens any connection. Files without
//! reserved bytes (written before page checksums) are read as they are, unverified.
//! Pages SQLite memory-maps are checked when mapped, as read ones are when read.

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_void};
use std::ptr;
use std::sync::OnceLock;

use rusqlite::ffi;

/// Reserved bytes per page that carry the checksum.
pub const RESERVED: u8 = 8;

/// The VFS's name (`vfs=` in a URI selects it; it is also the default).
pub const VFS_NAME: &str = "puzzlebase-cksum";

/// The two sums of `data` (a page without its last 8 bytes; its length a multiple of 8),
/// as the 8 bytes stored after it.
pub fn checksum(data: &[u8]) -> [u8; 8] {
    let (mut s1, mut s2) = (0u32, 0u32);
    for pair in data.chunks_exact(8) {
        let a = u32::from_le_bytes(pair[..4].try_into().unwrap());
        let b = u32::from_le_bytes(pair[4..].try_into().unwrap());
        s1 = s1.wrapping_add(a).wrapping_add(s2);
        s2 = s2.wrapping_add(b).wrapping_add(s1);
    }
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(&s1.to_le_bytes());
    out[4..].copy_from_slice(&s2.to_le_bytes());
    out
}

/// Whether `page` (a whole page, reserved bytes included) holds its own checksum.
pub fn page_ok(page: &[u8]) -> bool {
    let n = page.len() - RESERVED as usize;
    checksum(&page[..n]) == page[n..]
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

/// Our file: SQLite's header, then what we keep; the default VFS's own file follows in
/// the same allocation (`szOsFile` covers both).
#[repr(C)]
struct SumFile {
    base: ffi::sqlite3_file,
    /// A main database file (journals and temporary files are not checked).
    main_db: bool,
    /// Its header says 8 reserved bytes: pages are checked and summed.
    verified: bool,
    /// Pages (by number - 1) whose mapping was checked on this handle: a mapped page is
    /// handed out again on every access, and the file is never changed in place while
    /// it is read (`generate` replaces files by renaming), so one check per handle does.
    /// A page this handle writes is checked again when next mapped.
    mapped_ok: Vec<u64>,
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
                verified: false,
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
    unsafe { std::mem::take(&mut (*(f as *mut SumFile)).mapped_ok) };
    rc
}

unsafe extern "C" fn x_read(
    f: *mut ffi::sqlite3_file,
    buf: *mut c_void,
    amt: c_int,
    off: i64,
) -> c_int {
    let rc = unsafe { methods(f).xRead.unwrap()(real(f), buf, amt, off) };
    let s = sum(f);
    if rc != ffi::SQLITE_OK || !s.main_db {
        return rc;
    }
    // SAFETY: the read filled `amt` bytes of `buf`.
    let data = unsafe { std::slice::from_raw_parts(buf as *const u8, amt as usize) };
    if off == 0 && data.len() > 20 {
        s.verified = data[20] == RESERVED;
    }
    if s.verified && is_page(amt, off) && !page_ok(data) {
        DAMAGED.with(|d| d.set(Some(off as u64 / amt as u64 + 1)));
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
        s.verified = data[20] == RESERVED;
    }
    let write = methods(f).xWrite.unwrap();
    if s.main_db && is_page(amt, off) {
        s.set_mapped_ok((off / amt as i64) as usize, false);
    }
    if s.main_db && s.verified && is_page(amt, off) {
        let mut page = data.to_vec();
        let n = page.len() - RESERVED as usize;
        let sums = checksum(&page[..n]);
        page[n..].copy_from_slice(&sums);
        return unsafe { write(real(f), page.as_ptr() as *const c_void, amt, off) };
    }
    unsafe { write(real(f), buf, amt, off) }
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
    unsafe { methods(f).xLock.unwrap()(real(f), level) }
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
    let s = sum(f);
    // A mapped page is checked as a read one is, before SQLite sees it.
    if rc == ffi::SQLITE_OK && s.main_db && s.verified && is_page(amt, off) {
        let page = unsafe { *pp };
        let number = (off / amt as i64) as usize;
        if !page.is_null() && !s.mapped_ok(number) {
            // SAFETY: the mapping holds `amt` bytes at `page` until it is unfetched.
            let data = unsafe { std::slice::from_raw_parts(page as *const u8, amt as usize) };
            if !page_ok(data) {
                if let Some(unfetch) = methods(f).xUnfetch {
                    unsafe { unfetch(real(f), off, page) };
                }
                unsafe { *pp = ptr::null_mut() };
                DAMAGED.with(|d| d.set(Some(off as u64 / amt as u64 + 1)));
                return ffi::SQLITE_IOERR_DATA;
            }
            s.set_mapped_ok(number, true);
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

/// The reserved bytes per page of the main database on `conn` (8 for a file with page
/// checksums).
pub fn reserved(conn: &rusqlite::Connection) -> rusqlite::Result<i32> {
    reserve_bytes(conn, -1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sums_are_the_wal_rule_over_little_endian_words() {
        assert_eq!(checksum(&[0; 16]), [0; 8]);
        // One pair (1, 2): s1 = 1, s2 = 2 + 1 = 3.
        let mut d = [0u8; 8];
        d[0] = 1;
        d[4] = 2;
        assert_eq!(checksum(&d), [1, 0, 0, 0, 3, 0, 0, 0]);
        // Two pairs: s1 = 1 + 3 + 0 = 4... wrapping past 2^32 stays defined.
        let d = [0xFFu8; 16];
        let s = checksum(&d);
        let s1 = u32::from_le_bytes(s[..4].try_into().unwrap());
        let s2 = u32::from_le_bytes(s[4..].try_into().unwrap());
        let (mut a, mut b) = (0u32, 0u32);
        for _ in 0..2 {
            a = a.wrapping_add(u32::MAX).wrapping_add(b);
            b = b.wrapping_add(u32::MAX).wrapping_add(a);
        }
        assert_eq!((s1, s2), (a, b));
    }

    #[test]
    fn pages_written_through_the_vfs_carry_checksums_and_a_flip_is_refused() {
        install().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sums.sqlite");
        {
            let conn = rusqlite::Connection::open(&path).unwrap();
            reserve(&conn).unwrap();
            conn.execute_batch(
                "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT);
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                 INSERT INTO t SELECT i, printf('value %d', i) FROM n;",
            )
            .unwrap();
        }
        let check = rusqlite::Connection::open(&path).unwrap();
        assert_eq!(reserved(&check).unwrap(), RESERVED as i32);
        drop(check);
        let mut bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes[20], RESERVED);
        let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
        assert!(bytes.chunks(page).all(page_ok));
        // A bit flipped in the third page: reading the table fails as damage, page 3.
        bytes[2 * page + 300] ^= 0x10;
        std::fs::write(&path, &bytes).unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        let e = conn
            .query_row("SELECT sum(length(v)) FROM t", [], |r| r.get::<_, i64>(0))
            .unwrap_err();
        assert!(is_damage(&e), "{e}");
        assert_eq!(damaged_page(), Some(3));
        // The same through memory-mapped pages.
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA mmap_size = 1000000000;")
            .unwrap();
        let e = conn
            .query_row("SELECT sum(length(v)) FROM t", [], |r| r.get::<_, i64>(0))
            .unwrap_err();
        assert!(is_damage(&e), "{e}");
        assert_eq!(damaged_page(), Some(3));
    }
}
