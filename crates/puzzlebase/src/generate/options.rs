//! What a run is asked ([`Options`]), what it reports of each puzzle ([`Summary`]), and
//! how a caller watches it ([`Observer`]).

use std::path::{Path, PathBuf};

use crate::core::progress::Progress;
use crate::verify;

/// What to build.
#[warn(missing_docs)]
pub struct Options {
    /// The database file to (re)place.
    pub db: PathBuf,
    /// Only these puzzles (all when empty); others are carried over when current.
    pub only: Vec<String>,
    /// Recompute even puzzles whose definition is unchanged.
    pub force: bool,
}

/// One line of the report: what happened to a puzzle.
#[derive(Debug, Clone)]
#[warn(missing_docs)]
#[non_exhaustive]
pub struct Summary {
    /// The puzzle.
    pub name: String,
    /// Positions (or arrangements) examined.
    pub states: u64,
    /// Of those, the ones that reach the goal (or the solutions found).
    pub solvable: u64,
    /// The largest distance to the goal.
    pub max_distance: Option<u32>,
    /// Seconds spent on it (computing and writing, or copying).
    pub seconds: f64,
    /// Carried over from the previous file because its definition is unchanged.
    pub reused: bool,
    /// Peak resident memory of the process while this puzzle was computed and written,
    /// in bytes (where the platform can measure it; never for a reused puzzle).
    pub peak_memory: Option<u64>,
}

/// Receives progress and results as the run goes.
#[warn(missing_docs)]
pub trait Observer: Sync {
    /// Progress sink for the computation of one puzzle. The default reports nothing, so
    /// an observer that only wants the results implements [`Observer::done`] alone.
    fn progress(&self, _puzzle: &str) -> Box<dyn Progress + '_> {
        Box::new(crate::core::progress::Silent)
    }
    /// A puzzle is finished (computed or reused).
    fn done(&self, summary: &Summary);
    /// A puzzle of the new file passed [`crate::verify_file`]'s checks (only with
    /// [`generate_and_verify`](super::generate_and_verify)): only the puzzles this run computed are re-derived.
    fn verified(&self, _report: &verify::Report) {}
    /// The verify of [`generate_and_verify`](super::generate_and_verify) passed: what it re-derived, and which
    /// puzzles (carried over unchanged) it checked against their checksums and
    /// definitions only, besides the file as a whole.
    fn checked(&self, _checked: &verify::Checked) {}
    /// Something the run did that the user should know of, though it goes on (one line).
    fn warn(&self, _message: &str) {}
    /// `signature` (`<db>.minisig`) was written: the file is signed by the key `key_id`
    /// (only with a signing key, [`Job::sign`](crate::Job::sign)).
    fn signed(&self, _signature: &Path, _key_id: &str) {}
    /// A run without a key removed `signature` (`<db>.minisig`): it signed the file this
    /// run replaced. The default tells it through [`Observer::warn`].
    fn unsigned(&self, signature: &Path) {
        self.warn(&format!(
            "removed {}: it signed the previous file",
            signature.display()
        ));
    }
}
