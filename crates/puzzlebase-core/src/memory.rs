//! Peak resident memory and CPU time of this process, for the per-puzzle figures
//! `generate` reports and the benches, and huge pages for large tables read at random. Linux only (`/proc/self/status`,
//! `/proc/self/clear_refs`, `madvise`); elsewhere nothing is measured and the figures are
//! simply absent, and tables keep ordinary pages.

use std::sync::atomic::AtomicU64;

use rayon::prelude::*;

/// The process's peak resident set size in bytes (`VmHWM`), if the platform says.
pub fn peak() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line[6..].trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}

/// Asks the processor to bring `x`'s cache line in ahead of its use (a hint only): the
/// solvers generate a batch of neighbours and prefetch their entries before reading any,
/// so that the cache misses of a table read at random overlap.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and has no effect on the program's semantics.
    unsafe {
        std::arch::x86_64::_mm_prefetch(x as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// User plus system CPU seconds of this process so far (`/proc/self/stat`, in clock
/// ticks of 1/100 s), if the platform says.
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses and may hold spaces:
    // utime and stime are the 12th and 13th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Starts a new peak measurement from the current resident size, so that [`peak`] then
/// reports the peak since this call. Returns whether the platform allowed it.
pub fn reset_peak() -> bool {
    // Writing 5 to clear_refs resets the peak RSS (Linux 4.0 and later).
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// An empty vector with room for `len` bytes, in memory the kernel is asked to back with
/// huge pages before it is first written: a table of hundreds of megabytes read at
/// random (the pattern databases a search looks up) otherwise misses the TLB on nearly
/// every read. The first writes can then be slow (the kernel may compact memory to find
/// 2 MiB pages), so this is for processes that read the table many times.
pub fn huge_vec(len: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(len);
    advise_huge_pages(v.as_mut_ptr(), len);
    v
}

/// `len` atomic words holding `fill`, written by every thread, in memory the kernel is
/// asked to back with huge pages ([`huge_vec`]) when `huge`: for a table that a search
/// then reads and writes at random.
pub fn atomic_words(len: usize, fill: u64, huge: bool) -> Vec<AtomicU64> {
    let mut v = Vec::with_capacity(len);
    if huge {
        advise_huge_pages(v.as_mut_ptr() as *mut u8, 8 * len);
    }
    (0..len)
        .into_par_iter()
        .map(|_| AtomicU64::new(fill))
        .collect_into_vec(&mut v);
    v
}

/// Asks the kernel to back the 2 MiB-aligned part of `bytes` bytes from `ptr` with huge
/// pages. `ptr..ptr + bytes` must lie inside one allocation the caller owns (its pages
/// need not be touched yet). Elsewhere than Linux, and on refusal, nothing changes.
pub fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + bytes) / HUGE * HUGE;
        if end > start {
            // SAFETY: the range lies inside an allocation the caller owns; the advice only
            // changes how its pages are backed, never their contents. Failure is harmless.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, bytes);
}
