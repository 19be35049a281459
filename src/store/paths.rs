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
