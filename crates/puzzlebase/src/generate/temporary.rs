//! The temporary file a run builds beside the target, removed unless the run completes
//! (by its destructor, or by [`remove_temporaries`] when the process is told to stop),
//! and those of runs that were killed.

use std::fs;
use std::path::{Path, PathBuf};

use super::{Result, io, lock};
use crate::store::integrity;

/// Removes the temporary file unless the run completed.
pub(super) struct TempFile {
    pub(super) path: PathBuf,
    pub(super) keep: bool,
}

/// The temporary files of this process's runs that are not finished: what
/// [`remove_temporaries`] removes when the process is told to stop, since no destructor
/// runs then.
static LIVE: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

impl TempFile {
    pub(super) fn new(path: PathBuf) -> TempFile {
        if let Ok(mut live) = LIVE.lock() {
            live.push(path.clone());
        }
        TempFile { path, keep: false }
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Ok(mut live) = LIVE.lock() {
            live.retain(|p| *p != self.path);
        }
        if !self.keep {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Removes the temporary files of the runs under way in this process, for a process
/// told to stop (SIGINT, SIGTERM) that exits without unwinding: the previous file is
/// untouched either way, and nothing half-written is left beside it. Returns how many
/// were removed.
pub fn remove_temporaries() -> usize {
    let Ok(live) = LIVE.lock() else {
        return 0;
    };
    let removed = live.iter().filter(|p| fs::remove_file(p).is_ok()).count();
    // The lock files too (still locked by this process, so removing them is safe).
    if let Ok(held) = lock::HELD.lock() {
        held.iter().for_each(|p| drop(fs::remove_file(p)));
    }
    removed
}

pub(super) fn file_name(db: &Path) -> Result<String> {
    db.file_name()
        .and_then(|n| n.to_str())
        .map(str::to_string)
        .ok_or_else(|| io(db)(std::io::Error::other("not a file path")))
}

/// Temporary files of runs that were killed: safe to delete because we hold the lock.
pub(super) fn remove_stale_temporaries(dir: &Path, base: &str) -> Result<()> {
    for entry in fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        if entry
            .file_name()
            .to_str()
            .is_some_and(|n| integrity::is_our_temporary(dir, base, n))
        {
            fs::remove_file(entry.path()).map_err(io(&entry.path()))?;
        }
    }
    Ok(())
}
