//! The command's hints: what to type next, added to the library's refusals. The library
//! says what is wrong in its own terms (a Python or SQL user reads the same line); the
//! command and its server add the flag or command that mends it, so that `query`,
//! `verify`, `generate` and the API print the lines they always have.

use puzzlebase::signature::SignatureError;
use puzzlebase::{GenerateError, QueryError, Stopped, StoreError, VerifyError};

/// `e`'s line, then `hint` when there is one.
fn with(e: &dyn std::fmt::Display, hint: Option<String>) -> String {
    format!("{e}{}", hint.unwrap_or_default())
}

/// A refusal of `query`, `list`, `export` or the API, with its hint.
pub fn query(e: &QueryError) -> String {
    let hint = match e {
        QueryError::NotGenerated(name) => {
            Some(format!(": run `puzzlebase generate --puzzle {name}`"))
        }
        QueryError::Stale(_) => Some(": run `puzzlebase generate`".to_string()),
        QueryError::NoFullTable { .. } => Some(" (use --state)".to_string()),
        QueryError::NotApplicable { applies, .. } => {
            let options: Vec<&str> = applies.iter().filter_map(|q| q.option()).collect();
            match options.as_slice() {
                [] => None,
                [one] => Some(format!(" (query {one})")),
                [rest @ .., last] => Some(format!(" (query {} or {last})", rest.join(", "))),
            }
        }
        QueryError::Inconsistent { .. } => Some(": run `puzzlebase verify`".to_string()),
        QueryError::Contradicted { .. } => Some("; run `puzzlebase verify`".to_string()),
        QueryError::NoPartition {
            puzzle, partition, ..
        } => Some(format!(
            "; run `puzzlebase generate --puzzle {puzzle} --partition {partition}`"
        )),
        QueryError::Stopped {
            why: Stopped::Deadline,
            ..
        } => Some("; allow more time with --timeout SECONDS (serve: --search-timeout)".to_string()),
        QueryError::Store(s) => store_hint(s),
        QueryError::Signature(s) => signature_hint(s),
        _ => None,
    };
    with(e, hint)
}

/// A refusal of `verify`, with its hint.
pub fn verify(e: &VerifyError) -> String {
    let hint = match e {
        VerifyError::NotGenerated(name) => {
            Some(format!(": run `puzzlebase generate --puzzle {name}`"))
        }
        VerifyError::Store(s) => store_hint(s),
        _ => None,
    };
    with(e, hint)
}

/// The hint that ends a failed `generate`'s line (after its causes), if any.
pub fn generate(e: &GenerateError) -> Option<String> {
    match e {
        GenerateError::StoredDefinition { .. } => {
            Some(": give its definition with --definitions, or remove the file".to_string())
        }
        GenerateError::Store(s) | GenerateError::Refused(_, s) => store_hint(s),
        GenerateError::Signature(s) => signature_hint(s),
        _ => None,
    }
}

/// A signature's refusal (`verify --key`, `generate --sign`), with its hint.
pub fn signature(e: &SignatureError) -> String {
    with(e, signature_hint(e))
}

/// What to do about the file itself.
fn store_hint(e: &StoreError) -> Option<String> {
    Some(match e {
        StoreError::Missing(_) => ": name the file with --db PATH (or PUZZLEBASE_DB=PATH), or build it there with `puzzlebase generate --db PATH` (a quick start: `--puzzle eight`)".to_string(),
        StoreError::Directory(path) => format!(
            ": --db names the database file itself (for example {path}/puzzles.sqlite)"
        ),
        StoreError::Older { .. } => ": run `puzzlebase generate`".to_string(),
        StoreError::HotJournal { .. } => ", then run `puzzlebase verify`".to_string(),
        StoreError::Damaged { .. } => {
            "; run `puzzlebase verify`, or fetch or regenerate the file".to_string()
        }
        StoreError::Changed { .. } => {
            "; rebuild it with `puzzlebase generate`, or fetch it again".to_string()
        }
        StoreError::NoChecksums(_) => ": run `puzzlebase generate` to rebuild it".to_string(),
        _ => return None,
    })
}

fn signature_hint(e: &SignatureError) -> Option<String> {
    match e {
        SignatureError::MissingSignature(_) => Some(
            " (sign with `puzzlebase generate --sign KEY`, or fetch the .minisig published with the file)"
                .to_string(),
        ),
        _ => None,
    }
}
