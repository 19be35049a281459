//! The lock that keeps two runs of `generate` off one file: an OS lock on `<db>.lock`
//! beside it, which the run that holds it removes when it ends, so that nothing is left
//! beside the database after a run.
//!
//! Removing a lock file is safe only with a check on the other side: a run may have
//! opened the file just before the holder removed it, and would then lock a file no
//! longer at the path while a third run creates and locks a new one. So a run that gets
//! the lock also checks that the file it locked is still the one at the path, and
//! starts over when it is not. A run killed with `-9` leaves the file behind, unlocked
//! (the OS releases the lock with the process): harmless, the next run takes it over
//! and removes it.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

/// The lock of one run, held until it is dropped (or the process ends), which removes
/// the file.
pub(super) struct RunLock {
    path: PathBuf,
    /// Held open: closing it would release the lock.
    _file: File,
}

/// Why the lock was not taken.
pub(super) enum LockError {
    /// Another run holds it.
    Busy,
    /// The file could not be made or locked.
    Io(std::io::Error),
}

/// The lock files of this process's runs under way, removed by
/// [`super::remove_temporaries`] when the process is told to stop (no destructor runs).
pub(super) static HELD: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

impl RunLock {
    /// Takes the lock at `path`, or says that another run holds it.
    pub(super) fn take(path: &Path) -> Result<RunLock, LockError> {
        loop {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(path)
                .map_err(LockError::Io)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) => return Err(LockError::Busy),
                Err(fs::TryLockError::Error(e)) => return Err(LockError::Io(e)),
            }
            if still_at(&file, path) {
                if let Ok(mut held) = HELD.lock() {
                    held.push(path.to_path_buf());
                }
                return Ok(RunLock {
                    path: path.to_path_buf(),
                    _file: file,
                });
            }
            // The run that held it removed it after this one opened it: a file no other
            // run will look at again. Open the one at the path now.
        }
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        if let Ok(mut held) = HELD.lock() {
            held.retain(|p| *p != self.path);
        }
        // Removed while still locked (the file closes after this): see the module docs.
        let _ = fs::remove_file(&self.path);
    }
}

/// Whether `file` is the file at `path` (not one removed from there since it was
/// opened).
#[cfg(unix)]
fn still_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

/// Elsewhere a file open here cannot be removed, so the one opened is the one there.
#[cfg(not(unix))]
fn still_at(_file: &File, path: &Path) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_is_exclusive_and_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.sqlite.lock");
        let held = RunLock::take(&path).ok().unwrap();
        assert!(path.exists());
        assert!(matches!(RunLock::take(&path), Err(LockError::Busy)));
        drop(held);
        assert!(!path.exists(), "the lock file is removed with the lock");
        // A file left by a killed run is taken over, then removed.
        fs::write(&path, "").unwrap();
        let again = RunLock::take(&path).ok().unwrap();
        drop(again);
        assert!(!path.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_on_a_removed_file_is_not_the_lock() {
        // A run that opened the file before its holder removed it: locking that file
        // succeeds, but it is not at the path any more, and must not count.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.sqlite.lock");
        let stale = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(false)
            .open(&path)
            .unwrap();
        fs::remove_file(&path).unwrap();
        stale.try_lock().unwrap();
        assert!(!still_at(&stale, &path));
        let held = RunLock::take(&path).ok().unwrap();
        assert!(still_at(&held._file, &path));
    }
}
