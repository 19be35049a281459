//! The VFS shim that applies the page rule: a file of SQLite's default VFS with every
//! whole page of a main database checked as it is read or mapped, and summed as it is
//! written. Registered as the process's default by [`install`].

use std::ffi::{c_char, c_int, c_void};
use std::path::PathBuf;
use std::ptr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::ffi;
use thiserror::Error;

use super::{DAMAGED, LEGACY_RESERVED, Rule, Stamp, checksum, file_value, sound, sums};

/// A new file's value: random (SipHash keyed from the operating system's randomness,
/// over the time, the process and a counter), so that two files never share one.
pub(super) fn fresh_value() -> [u8; 8] {
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
    // The file's value, for this build's rule: page 1 sets the value the others are
    // held to, and a page 1 with another value than the one this handle has seen is
    // another file's.
    let value = match s.rule {
        Rule::Bound if number == 1 => {
            let v = file_value(data);
            s.value.is_none_or(|seen| seen == v).then_some(v)
        }
        Rule::Bound => s.value.or_else(|| value_on_disk(f, amt)),
        _ => Some([0; 8]),
    };
    let ok = value.is_some_and(|v| sound(s.rule, data, number, v));
    if ok && s.rule == Rule::Bound {
        s.value = value;
    }
    if !ok {
        DAMAGED.with(|d| d.set(Some(number)));
    }
    ok
}

fn orig_vfs() -> *mut ffi::sqlite3_vfs {
    *ORIG.get().expect("installed before use") as *mut ffi::sqlite3_vfs
}

static ORIG: OnceLock<usize> = OnceLock::new();
static INSTALLED: OnceLock<Result<(), InstallError>> = OnceLock::new();

/// Why the checksum VFS could not be registered ([`install`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InstallError {
    /// SQLite has no VFS to read files through.
    #[error("SQLite has no default VFS")]
    NoDefault,
    /// SQLite refused to register the VFS, with this result code.
    #[error("registering the checksum VFS failed ({0})")]
    Register(c_int),
}

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
pub fn install() -> Result<(), InstallError> {
    INSTALLED
        .get_or_init(|| {
            // SAFETY: looking up and registering VFSs is thread-safe in SQLite; our VFS
            // struct is leaked so it lives as long as the process.
            unsafe {
                let orig = ffi::sqlite3_vfs_find(ptr::null());
                if orig.is_null() {
                    return Err(InstallError::NoDefault);
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
                    rc => Err(InstallError::Register(rc)),
                }
            }
        })
        .clone()
}
