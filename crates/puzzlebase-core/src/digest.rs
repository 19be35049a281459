//! SHA-256 digests as the file and its tools print them: lower-case hex, two digits per
//! byte, as `sha256sum` writes them. The checksums, the seal, the definition hashes, the
//! sidecar and the server's entity tags are all compared as text, so they must all be
//! spelled by this one rule.

use sha2::{Digest, Sha256};

/// `bytes` in lower-case hex, two digits per byte (a digest, or the leading bytes of one
/// where a short tag will do).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(2 * bytes.len());
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// The lower-case hex of the digest of everything fed to `h`.
pub fn sha256_hex(h: Sha256) -> String {
    hex(&h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two digits per byte, lower case, as `format!("{b:02x}")` writes each: the strings
    /// already in files (checksums, seals, definition hashes) must not change.
    #[test]
    fn hex_is_two_lower_case_digits_per_byte() {
        let all: Vec<u8> = (0..=255).collect();
        let want: String = all.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&all), want);
        assert_eq!(hex(&[]), "");
        let mut h = Sha256::new();
        h.update(b"abc");
        assert_eq!(
            sha256_hex(h),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
