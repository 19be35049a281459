//! A key a reader trusts: the file is answered from only while it is the file its
//! minisign signature signed with that key. The check reads the whole file, so it is
//! made once per state of the file (inode, size, times: [`FileState`]) and kept.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use minisign::PublicKey;

use super::{QueryError, Result};
use crate::store::FileState;
use crate::store::signature;

/// A minisign public key, the signature to check with it, and the last state of a file
/// found signed.
#[warn(missing_docs)]
pub struct Trust {
    public: PublicKey,
    /// How messages name the key (its file, or "the key given").
    name: PathBuf,
    /// The signature file; `None`: `<file>.minisig` beside the file.
    signature: Option<PathBuf>,
    /// The file and its state when it was last found signed.
    last: Mutex<Option<(PathBuf, FileState)>>,
}

#[warn(missing_docs)]
impl Trust {
    /// The public key in the file `key` (minisign's format), to check `signature` (or
    /// `<file>.minisig`) with. A missing or malformed key is refused here.
    pub fn from_file(key: &Path, signature: Option<&Path>) -> Result<Trust> {
        Ok(Trust {
            public: signature::load_public_key(key)?,
            name: key.to_path_buf(),
            signature: signature.map(Path::to_path_buf),
            last: Mutex::new(None),
        })
    }

    /// The public key given as text (its `RW...` line, as minisign prints it), to check
    /// `<file>.minisig` with.
    pub fn from_text(text: &str) -> Result<Trust> {
        Ok(Trust {
            public: signature::public_key_from_text(text, "the key given")?,
            name: PathBuf::from("the key given"),
            signature: None,
            last: Mutex::new(None),
        })
    }

    /// Checks that the file at `path`, as it is now, is the one its signature signed
    /// with this key; returns the key's id. A file already found signed in the same
    /// state is not read again. A file that changes while it is read is refused.
    pub fn check(&self, path: &Path) -> Result<String> {
        let state = FileState::of(path);
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if last.as_ref().is_some_and(|(p, s)| p == path && *s == state) {
            return Ok(signature::key_id_of(&self.public));
        }
        let sig = (self.signature.clone()).unwrap_or_else(|| signature::signature_path(path));
        let verified = signature::verify_with_key(path, &sig, &self.public, &self.name)?;
        if FileState::of(path) != state {
            *last = None;
            return Err(QueryError::NotStored(format!(
                "{} changed while its signature was checked; ask again",
                path.display()
            )));
        }
        *last = Some((path.to_path_buf(), state));
        Ok(verified.key_id)
    }
}
