//! Enumeration puzzles: puzzles whose database is the complete list of their solutions
//! rather than a distance table over a move graph.
//!
//! * `magic`: magic figures such as the magic triangle (1..9 on a triangle with equal
//!   side sums), found by scanning all `n!` arrangements by permutation rank.
//! * `tour`: closed knight's tours on boards described as data, found by a pruned
//!   depth-first search.
//!
//! Both produce [`Solution`] rows, sorted by `rank` and deterministic, so that two runs
//! (or two machines) write byte-identical databases. Nothing here touches SQLite, the
//! command line or the terminal; progress goes through [`puzzlebase_core::progress::Progress`].

/// One solution of an enumeration puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// Position of the solution in the puzzle's documented order (see each puzzle).
    pub rank: u64,
    /// The solution in the puzzle's notation.
    pub state: String,
    /// A puzzle-specific number (the side sum of a magic triangle), if any.
    pub value: Option<i64>,
    /// Whether this row is the one representative of its symmetry class.
    pub canonical: bool,
}
