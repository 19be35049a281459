//! Peak resident memory of this process, for the per-puzzle figures `generate` reports.
//! Linux only (`/proc/self/status` and `/proc/self/clear_refs`); elsewhere nothing is
//! measured and the figures are simply absent.

/// The process's peak resident set size in bytes (`VmHWM`), if the platform says.
pub fn peak() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line[6..].trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}

/// Starts a new peak measurement from the current resident size, so that [`peak`] then
/// reports the peak since this call. Returns whether the platform allowed it.
pub fn reset_peak() -> bool {
    // Writing 5 to clear_refs resets the peak RSS (Linux 4.0 and later).
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}
