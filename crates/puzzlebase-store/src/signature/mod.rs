//! Detached signatures of a finished file, in minisign's format: `<db>.minisig` beside
//! the file, which Debian's `minisign -Vm FILE -p KEY.pub` checks as `puzzlebase verify
//! --key KEY.pub` does. Key pairs are minisign's too (`minisign -G`, or
//! [`generate_keypair`]).
//!
//! Signatures are always minisign's prehashed kind (algorithm `ED`, the default since
//! minisign 0.8): the file is read once, in 64 KiB pieces, into a BLAKE2b-512 digest, and
//! that digest is what Ed25519 signs, so a 10 GB file signs and verifies in constant
//! memory. The trusted comment (signed too) says what was signed: the program, the file
//! name and when the file was made.
//!
//! Key, signature and password text is checked here before the minisign crate reads it:
//! every malformed input is one of [`SignatureError`]'s one-line messages naming the file,
//! never a panic. Nothing here prompts: an encrypted secret key's password comes from
//! [`PASSWORD_VAR`].

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

use ct_codecs::{Base64, Decoder};
use minisign::{KeyPair, PublicKey, PublicKeyBox, SecretKey, SecretKeyBox, SignatureBox};
use thiserror::Error;

use crate::paths;

/// The environment variable that holds the password of an encrypted secret key (for
/// `generate --sign`), or asks `keygen` for an encrypted one.
pub const PASSWORD_VAR: &str = "PUZZLEBASE_KEY_PASSWORD";

/// Longest key or signature file read: minisign's are a few hundred bytes (a trusted
/// comment at most 8 KiB), so anything larger is not one.
const TEXT_MAX: u64 = 64 * 1024;

/// The two bytes that open a public or secret key: Ed25519.
const KEY_ALG: &[u8; 2] = b"Ed";
/// The two bytes that open a prehashed signature (a legacy one has [`KEY_ALG`]).
const PREHASHED_ALG: &[u8; 2] = b"ED";
/// Bytes of a decoded public key line: algorithm, key id, Ed25519 public key.
const PUBLIC_KEY_BYTES: usize = 2 + 8 + 32;
/// Bytes of a decoded secret key line: algorithm, KDF algorithm, checksum algorithm,
/// salt, two KDF limits, key id, Ed25519 secret key, checksum.
const SECRET_KEY_BYTES: usize = 2 + 2 + 2 + 32 + 8 + 8 + 8 + 64 + 32;
/// Bytes of a decoded signature line: algorithm, key id, Ed25519 signature.
const SIGNATURE_BYTES: usize = 2 + 8 + 64;
/// Bytes of the decoded global signature (over the signature and the trusted comment).
const GLOBAL_SIGNATURE_BYTES: usize = 64;

/// What can go wrong with a key, a signature or the signed file: one line each, naming
/// the file concerned.
#[derive(Debug, Error)]
pub enum SignatureError {
    #[error("no key file at {0}")]
    MissingKey(String),
    #[error(
        "{0} is not a minisign secret key (make a key pair with `puzzlebase keygen` or `minisign -G`)"
    )]
    NotSecretKey(String),
    #[error("{0} is not a minisign public key (the .pub file of a key pair)")]
    NotPublicKey(String),
    #[error(
        "{0} is a password-protected secret key: set {PASSWORD_VAR} to its password (nothing is prompted)"
    )]
    NeedsPassword(String),
    #[error("{0}: wrong password for this secret key ({PASSWORD_VAR})")]
    WrongPassword(String),
    #[error("no signature file at {0}")]
    MissingSignature(String),
    #[error("{0} is not a minisign signature")]
    NotSignature(String),
    #[error(
        "{0} is a legacy minisign signature (not prehashed); only prehashed signatures are accepted: sign the file again"
    )]
    Legacy(String),
    #[error(
        "{signature} was made by key {found}, not by the key {expected} of {key}: the file was signed with another key"
    )]
    OtherKey {
        signature: String,
        key: String,
        found: String,
        expected: String,
    },
    #[error(
        "{file} does not match its signature {signature}: the file (or the signature) was changed after signing, or it is not the file that was signed"
    )]
    BadSignature { file: String, signature: String },
    #[error("{0} already exists: refusing to overwrite it with a new key")]
    Exists(String),
    #[error("the public and the secret key cannot both be {0}")]
    SamePath(String),
    #[error("{PASSWORD_VAR} is set but empty: unset it for a key without a password")]
    EmptyPassword,
    #[error("{PASSWORD_VAR} is not valid UTF-8")]
    PasswordEncoding,
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Crypto { path: String, message: String },
}

type Result<T, E = SignatureError> = std::result::Result<T, E>;

fn shown(path: &Path) -> String {
    path.display().to_string()
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> SignatureError + '_ {
    move |source| SignatureError::Io {
        path: shown(path),
        source,
    }
}

fn crypto(path: &Path) -> impl Fn(minisign::PError) -> SignatureError + '_ {
    move |e| SignatureError::Crypto {
        path: shown(path),
        message: e.to_string(),
    }
}

/// A key id as minisign prints it: the 8 bytes read little-endian, 16 hex digits.
fn key_id(keynum: &[u8]) -> String {
    let mut bytes = [0u8; 8];
    for (b, k) in bytes.iter_mut().zip(keynum) {
        *b = *k;
    }
    format!("{:016X}", u64::from_le_bytes(bytes))
}

/// The password in [`PASSWORD_VAR`], if it is set.
pub fn password_from_env() -> Result<Option<String>> {
    match std::env::var(PASSWORD_VAR) {
        Ok(p) => Ok(Some(p)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(SignatureError::PasswordEncoding),
    }
}

/// A secret key that has been read, decrypted and checked: it signs, and its public half
/// verifies what it signs.
pub struct SigningKey {
    secret: SecretKey,
    public: PublicKey,
    path: PathBuf,
}

impl SigningKey {
    /// The key id, as minisign prints it (16 hex digits).
    pub fn key_id(&self) -> String {
        key_id(self.public.keynum())
    }

    /// The file the key was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl fmt::Debug for SigningKey {
    // Never the secret bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SigningKey({} from {})",
            self.key_id(),
            self.path.display()
        )
    }
}

/// The text of a small regular file: a key or a signature. `missing` is the error for a
/// file that is not there, `malformed` for one that cannot be a key or signature (not a
/// regular file, too large, not UTF-8).
fn read_small(
    path: &Path,
    missing: fn(String) -> SignatureError,
    malformed: fn(String) -> SignatureError,
) -> Result<String> {
    let meta = match fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(missing(shown(path))),
        r => r.map_err(io(path))?,
    };
    if !meta.is_file() || meta.len() > TEXT_MAX {
        return Err(malformed(shown(path)));
    }
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|f| f.take(TEXT_MAX + 1).read_to_end(&mut bytes))
        .map_err(io(path))?;
    if bytes.len() as u64 > TEXT_MAX {
        return Err(malformed(shown(path)));
    }
    String::from_utf8(bytes).map_err(|_| malformed(shown(path)))
}

/// The base64 line after an `untrusted comment:` line, decoded, if it is `len` bytes
/// opening with one of `algs`.
fn key_line(text: &str, len: usize, algs: &[&[u8; 2]]) -> Option<(String, Vec<u8>)> {
    let mut lines = text.lines();
    lines.next()?.strip_prefix("untrusted comment:")?;
    let line = lines.next()?.trim();
    let bytes = Base64::decode_to_vec(line, None).ok()?;
    (bytes.len() == len && algs.iter().any(|a| bytes[..2] == a[..]))
        .then(|| (line.to_string(), bytes))
}

/// Reads a minisign secret key, unencrypted (`minisign -G -W`, `puzzlebase keygen`) or
/// encrypted with `password`, and checks that it signs: a signature it makes verifies
/// against its public half. An encrypted key without a password is
/// [`SignatureError::NeedsPassword`]; nothing is prompted.
pub fn load_secret_key(path: &Path, password: Option<String>) -> Result<SigningKey> {
    let not_key = || SignatureError::NotSecretKey(shown(path));
    let text = read_small(
        path,
        SignatureError::MissingKey,
        SignatureError::NotSecretKey,
    )?;
    let (_, bytes) = key_line(&text, SECRET_KEY_BYTES, &[KEY_ALG]).ok_or_else(not_key)?;
    let (kdf, checksum) = (&bytes[2..4], &bytes[SECRET_KEY_BYTES - 32..]);
    let secret = if kdf == [0, 0] {
        // `minisign -G -W` leaves the checksum of an unencrypted key zero; the signing
        // check below stands for it.
        if checksum.iter().all(|&b| b == 0) {
            SecretKey::from_bytes(&bytes).map_err(|_| not_key())?
        } else {
            SecretKey::from_unencrypted_box(SecretKeyBox::from(text.clone()))
                .map_err(|_| not_key())?
        }
    } else if kdf == b"Sc" {
        let Some(password) = password else {
            return Err(SignatureError::NeedsPassword(shown(path)));
        };
        // The KDF's limits are the key's own: a key asking for more memory than
        // minisign allows is refused by the crate rather than attempted.
        SecretKey::from_box(SecretKeyBox::from(text.clone()), Some(password)).map_err(
            |e| match e.kind() {
                minisign::ErrorKind::Verify => SignatureError::WrongPassword(shown(path)),
                _ => not_key(),
            },
        )?
    } else {
        return Err(not_key());
    };
    let public = PublicKey::from_secret_key(&secret).map_err(|_| not_key())?;
    // A damaged key (or one whose unchecked checksum hides a changed byte) makes
    // signatures that its public half refuses; the crate checks the one made here.
    minisign::sign(Some(&public), &secret, &b""[..], None, None).map_err(|_| not_key())?;
    Ok(SigningKey {
        secret,
        public,
        path: path.to_path_buf(),
    })
}

/// Reads a minisign public key file (`untrusted comment:` line, then the key).
pub fn load_public_key(path: &Path) -> Result<PublicKey> {
    let text = read_small(
        path,
        SignatureError::MissingKey,
        SignatureError::NotPublicKey,
    )?;
    let (line, _) = key_line(&text, PUBLIC_KEY_BYTES, &[KEY_ALG])
        .ok_or_else(|| SignatureError::NotPublicKey(shown(path)))?;
    PublicKey::from_base64(&line).map_err(|_| SignatureError::NotPublicKey(shown(path)))
}

/// Reads a minisign public key given as text: the key's base64 line (`RW...`, as
/// minisign prints it and `.pub` files hold it), alone or after its
/// `untrusted comment:` line. `shown` names it in messages.
pub fn public_key_from_text(text: &str, shown_as: &str) -> Result<PublicKey> {
    let text = text.trim();
    let file = if text.starts_with("untrusted comment:") {
        text.to_string()
    } else {
        format!("untrusted comment: given\n{text}")
    };
    let (line, _) = key_line(&file, PUBLIC_KEY_BYTES, &[KEY_ALG])
        .ok_or_else(|| SignatureError::NotPublicKey(shown_as.to_string()))?;
    PublicKey::from_base64(&line).map_err(|_| SignatureError::NotPublicKey(shown_as.to_string()))
}

/// The id of `public` (16 hex digits, as minisign prints it).
pub fn key_id_of(public: &PublicKey) -> String {
    key_id(public.keynum())
}

/// [`verify_file`] with a key already read (`key_name` names it in messages).
pub fn verify_with_key(
    file: &Path,
    signature: &Path,
    public: &PublicKey,
    key_name: &Path,
) -> Result<Verified> {
    verify_with(file, signature, public, key_name)
}

/// The trusted comment `generate` signs: the program and its version, the file's name
/// and when it was made (`meta.created_at`), on one line.
pub fn trusted_comment(file_name: &str, created_at: &str) -> String {
    let flat = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect()
    };
    format!(
        "puzzlebase {} file:{} created_at:{}",
        env!("CARGO_PKG_VERSION"),
        flat(file_name),
        flat(created_at)
    )
}

/// Signs the bytes of `file` with `key`, reading it once in pieces (prehashed, so any
/// size in constant memory), and returns the signature file's text: four lines that
/// `minisign -Vm FILE -p KEY.pub` and [`verify_file`] accept while the file is unchanged.
/// `trusted_comment` (one line) is signed with it.
pub fn sign_file(file: &Path, key: &SigningKey, trusted_comment: &str) -> Result<String> {
    let reader = File::open(file).map_err(io(file))?;
    let untrusted = format!("signature from puzzlebase secret key {}", key.key_id());
    let comment: String = (trusted_comment.chars())
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let signature = minisign::sign(
        Some(&key.public),
        &key.secret,
        reader,
        Some(comment.trim()),
        Some(&untrusted),
    )
    .map_err(crypto(file))?;
    Ok(signature.into_string())
}

/// `<db>.minisig`, beside the file (minisign's default name for its signature).
pub fn signature_path(db: &Path) -> PathBuf {
    paths::beside(db, ".minisig")
}

/// Where `generate --sign` writes `db`'s signature: [`signature_path`] of the file `db`
/// is, through any symbolic links (`db` itself when they cannot be read).
pub fn signature_of(db: &Path) -> PathBuf {
    signature_path(&paths::resolve(db).unwrap_or_else(|_| db.to_path_buf()))
}

/// Signs `file` (the finished temporary) and writes the signature into
/// `<db>.minisig.tmp-<pid>`, flushed; returns that temporary's path. The file is read
/// before the temporary is made, so an interrupted signing leaves nothing behind.
pub fn write_temporary(
    file: &Path,
    db: &Path,
    key: &SigningKey,
    trusted_comment: &str,
) -> Result<PathBuf> {
    let text = sign_file(file, key, trusted_comment)?;
    let tmp = paths::temporary(&signature_path(db));
    let written = File::create(&tmp).and_then(|mut f| {
        f.write_all(text.as_bytes())?;
        f.sync_all()
    });
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(io(&tmp)(e));
    }
    Ok(tmp)
}

/// Makes `<db>.minisig` a signature of `db` by `key`: left alone when it already is one
/// (whatever its trusted comment), otherwise written anew through a temporary with
/// `trusted_comment`. Returns whether it was written. A missing `db` is left unsigned.
pub fn repair(db: &Path, key: &SigningKey, trusted_comment: &str) -> Result<bool> {
    if !db.is_file() {
        return Ok(false);
    }
    let path = signature_path(db);
    if verify_with(
        db,
        &path,
        &key.public,
        Path::new("the secret key's public half"),
    )
    .is_ok()
    {
        return Ok(false);
    }
    let tmp = write_temporary(db, db, key, trusted_comment)?;
    if let Err(e) = fs::rename(&tmp, &path) {
        let _ = fs::remove_file(&tmp);
        return Err(io(&path)(e));
    }
    Ok(true)
}

/// Whether `path` could be a signature temporary this program wrote: empty (made, not
/// yet written), or small text that opens as a minisign signature does.
pub fn is_signature_text(path: &Path) -> bool {
    match read_small(
        path,
        SignatureError::MissingKey,
        SignatureError::NotSignature,
    ) {
        Ok(text) => text.is_empty() || text.starts_with("untrusted comment: "),
        Err(_) => false,
    }
}

/// What a good signature says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The id of the key that made it (16 hex digits, as minisign prints it).
    pub key_id: String,
    /// The trusted comment, signed with the file.
    pub trusted_comment: String,
}

/// Checks that `signature` is a signature of the bytes of `file` made by the secret half
/// of the public key in `public_key`, exactly as `minisign -Vm FILE -x SIGNATURE -p KEY`
/// does, but accepting only prehashed signatures. The key and the signature are read and
/// checked before the file is: a missing or malformed one, or a signature by another key
/// ([`SignatureError::OtherKey`]), is refused at once. Any changed, added or removed
/// byte of the file is [`SignatureError::BadSignature`].
pub fn verify_file(file: &Path, signature: &Path, public_key: &Path) -> Result<Verified> {
    let public = load_public_key(public_key)?;
    verify_with(file, signature, &public, public_key)
}

fn verify_with(
    file: &Path,
    signature: &Path,
    public: &PublicKey,
    key_path: &Path,
) -> Result<Verified> {
    let not_signature = || SignatureError::NotSignature(shown(signature));
    let text = read_small(
        signature,
        SignatureError::MissingSignature,
        SignatureError::NotSignature,
    )?;
    // The lines the crate reads, checked first: it indexes a global signature of the
    // wrong length instead of refusing it.
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() < 4
        || !lines[0].starts_with("untrusted comment: ")
        || !lines[2].starts_with("trusted comment: ")
    {
        return Err(not_signature());
    }
    let sig = Base64::decode_to_vec(lines[1].trim(), None).map_err(|_| not_signature())?;
    let global = Base64::decode_to_vec(lines[3].trim(), None).map_err(|_| not_signature())?;
    if sig.len() != SIGNATURE_BYTES || global.len() != GLOBAL_SIGNATURE_BYTES {
        return Err(not_signature());
    }
    if sig[..2] == KEY_ALG[..] {
        return Err(SignatureError::Legacy(shown(signature)));
    }
    if sig[..2] != PREHASHED_ALG[..] {
        return Err(not_signature());
    }
    let found = key_id(&sig[2..10]);
    let expected = key_id(public.keynum());
    if found != expected {
        return Err(SignatureError::OtherKey {
            signature: shown(signature),
            key: shown(key_path),
            found,
            expected,
        });
    }
    let sig_box = SignatureBox::from_string(&text).map_err(|_| not_signature())?;
    let trusted_comment = sig_box.trusted_comment().map_err(|_| not_signature())?;
    let reader = BufReader::with_capacity(1 << 20, File::open(file).map_err(io(file))?);
    minisign::verify(public, &sig_box, reader, true, false, false).map_err(|e| match e.kind() {
        minisign::ErrorKind::Verify => SignatureError::BadSignature {
            file: shown(file),
            signature: shown(signature),
        },
        _ => crypto(file)(e),
    })?;
    Ok(Verified {
        key_id: expected,
        trusted_comment,
    })
}

/// Writes a new key pair: the public key to `public` and the secret key to `secret`
/// (readable by its owner only), in minisign's format, encrypted with `password` when
/// one is given. Neither file may exist: nothing is overwritten, and when the second
/// cannot be written the first is removed again. Returns the key id.
pub fn generate_keypair(public: &Path, secret: &Path, password: Option<String>) -> Result<String> {
    if password.as_deref() == Some("") {
        return Err(SignatureError::EmptyPassword);
    }
    if public == secret {
        return Err(SignatureError::SamePath(shown(public)));
    }
    for p in [public, secret] {
        if fs::symlink_metadata(p).is_ok() {
            return Err(SignatureError::Exists(shown(p)));
        }
    }
    let encrypted = password.is_some();
    let pair = match password {
        Some(p) => KeyPair::generate_encrypted_keypair(Some(p)),
        None => KeyPair::generate_unencrypted_keypair(),
    }
    .map_err(crypto(secret))?;
    let id = key_id(pair.pk.keynum());
    let kind = if encrypted { "encrypted " } else { "" };
    let secret_text = pair
        .sk
        .to_box(Some(&format!("puzzlebase {kind}secret key {id}")))
        .map_err(crypto(secret))?
        .into_string();
    let public_text = PublicKeyBox::into_string(pair.pk.to_box().map_err(crypto(public))?);
    write_new(secret, &secret_text, true)?;
    if let Err(e) = write_new(public, &public_text, false) {
        let _ = fs::remove_file(secret);
        return Err(e);
    }
    Ok(id)
}

/// Creates `path`, which must not exist, with `text`, flushed; `private`: readable and
/// writable by its owner only. A file that could not be written whole is removed.
fn write_new(path: &Path, text: &str, private: bool) -> Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    let mut f = match options.open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(SignatureError::Exists(shown(path)));
        }
        r => r.map_err(io(path))?,
    };
    if let Err(e) = f.write_all(text.as_bytes()).and_then(|_| f.sync_all()) {
        drop(f);
        let _ = fs::remove_file(path);
        return Err(io(path)(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
