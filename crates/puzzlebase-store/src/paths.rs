//! The names of the files that travel with a database file: its sidecars and the
//! temporaries they are written through.

use std::path::{Path, PathBuf};

/// `db`'s name with `suffix` appended, in its directory: the files that travel with it.
pub fn beside(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    db.with_file_name(name)
}

/// `<path>.tmp-<pid>`: the temporary through which this process writes `path`, renamed
/// into place when complete (the names [`super::integrity::is_our_temporary`] knows).
pub fn temporary(path: &Path) -> PathBuf {
    beside(path, &format!(".tmp-{}", std::process::id()))
}

/// The SQLite URI that opens `path` as a shipped file that nothing writes while it is
/// read (`immutable=1`): SQLite then reads the file's own pages and nothing beside it. A
/// `-wal`, `-shm` or `-journal` file next to it, planted or left by another program, is
/// never read and never created, so what a reader answers from is exactly the bytes
/// that the page checksums, the seal and the signature cover. Every byte outside the
/// URI's unreserved set (and `/`) is percent-encoded, so any path, UTF-8 or not, names
/// the same file.
pub fn immutable_uri(path: &Path) -> String {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().into_owned().into_bytes();
    let mut out = String::from("file:");
    for b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.push_str("?immutable=1");
    out
}

/// Whether `<path>-journal` is a hot rollback journal, one that a writer killed in the
/// middle of a change left (it begins with SQLite's journal magic; a journal a finished
/// transaction left behind is empty or has its header zeroed).
pub fn hot_journal(path: &Path) -> bool {
    use std::io::Read;
    const MAGIC: [u8; 8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7];
    let mut head = [0u8; 8];
    std::fs::File::open(beside(path, "-journal"))
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == MAGIC)
}

/// Where a file really is: symbolic links are followed to their final target (which need
/// not exist yet), so the lock, the temporary and the rename all act on the target and
/// two spellings of one file share one lock.
pub fn resolve(db: &Path) -> std::io::Result<PathBuf> {
    let mut path = db.to_path_buf();
    // The kernel's own limit on a chain of links.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immutable_uris_escape_everything_that_could_end_or_alter_the_path() {
        assert_eq!(
            immutable_uri(Path::new("data/puzzles.sqlite")),
            "file:data/puzzles.sqlite?immutable=1"
        );
        assert_eq!(
            immutable_uri(Path::new("/a b/c?d#e%f")),
            "file:/a%20b/c%3Fd%23e%25f?immutable=1"
        );
    }
}
