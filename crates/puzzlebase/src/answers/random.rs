//! Positions drawn at random, for `query --random` and `--scramble N`: a uniformly
//! random position among those that reach the goal, or the goal scrambled by N random
//! moves. A seed makes a draw reproducible: the generator is xoshiro256++ (a fixed,
//! published algorithm, so a seed gives the same position on every machine and build),
//! and the caller answers the position as `--state` answers it.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng, TryRng};

use super::kind::{self, Asked};
use super::packed::PackedReader;
use super::{Database, QueryError, Result};
use crate::core::space::GraphPuzzle;
use crate::store::{PuzzleInfo, Storage};

/// Draws before a random position is given up: far more than any built-in puzzle needs
/// (cube2 keeps about one rank in 72, the most sparse), few enough to answer at once.
const TRIES: u32 = 1_000_000;

/// A seed from the operating system, for a draw the user did not seed (the answer
/// shows it, so the draw can be repeated).
pub fn fresh_seed() -> u64 {
    rand::rngs::SysRng.try_next_u64().unwrap_or_else(|_| {
        // No entropy source: the clock still differs from run to run.
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        now.map_or(0, |d| d.as_nanos() as u64) ^ u64::from(std::process::id())
    })
}

fn generator(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

#[warn(missing_docs)]
impl Database {
    /// A position drawn uniformly from those of `name` that reach the goal, in its
    /// notation: ranks are drawn uniformly and those that do not reach it (no row, no
    /// distance; for a puzzle answered by search, the wrong parity) drawn again, so
    /// every solvable position is equally likely. The same seed gives the same position.
    pub fn random_position(&self, name: &str, seed: u64) -> Result<String> {
        let (p, info) = self.puzzle(name)?;
        kind::of(&p).random_position(&Asked { db: self, p: &p }, &info, seed)
    }

    /// [`Database::random_position`] over the move graph `g`: a stored table's ranks
    /// with a distance, or, for a puzzle answered by search (`searched`), the grid's
    /// ranks that parse (those of the right parity).
    pub(super) fn random_in(
        &self,
        g: &dyn GraphPuzzle,
        info: &PuzzleInfo,
        searched: bool,
        seed: u64,
    ) -> Result<String> {
        let name = g.name();
        let packed = match info.storage {
            Storage::Packed if !searched => Some(PackedReader::open(self, g)?),
            _ => None,
        };
        let mut rng = generator(seed);
        for _ in 0..TRIES {
            let rank = rng.random_range(0..g.size());
            let solvable = if searched {
                g.parse(&g.format(rank)).is_ok()
            } else if let Some(t) = &packed {
                t.distance(rank)?.is_some()
            } else {
                self.row(name, rank)?.is_some_and(|r| r.distance.is_some())
            };
            if solvable {
                return Ok(g.format(rank));
            }
        }
        Err(QueryError::NotStored(format!(
            "no position of {name} that reaches the goal came up in {TRIES} random draws; \
             use --scramble N instead"
        )))
    }

    /// The goal of `name` (one drawn, where it has several) after `moves` random
    /// moves, each drawn uniformly from the legal ones; the position may be closer
    /// than `moves` to the goal (a move can undo another). The same seed gives the
    /// same position.
    pub fn scrambled(&self, name: &str, moves: u32, seed: u64) -> Result<String> {
        let (p, _) = self.puzzle(name)?;
        kind::of(&p).scrambled(&Asked { db: self, p: &p }, moves, seed)
    }
}

/// [`Database::scrambled`] over the move graph `g`.
pub(super) fn scramble(g: &dyn GraphPuzzle, moves: u32, seed: u64) -> String {
    let mut rng = generator(seed);
    let goals = g.goals();
    let mut cur = goals[rng.random_range(0..goals.len())];
    let mut nbs = Vec::new();
    for _ in 0..moves {
        nbs.clear();
        g.neighbors(cur, &mut nbs);
        if nbs.is_empty() {
            break;
        }
        cur = nbs[rng.random_range(0..nbs.len())];
    }
    g.format(cur)
}
