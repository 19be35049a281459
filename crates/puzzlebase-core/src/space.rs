//! The interface every move-graph puzzle (sliding, knight exchange, oshidori) offers to
//! the shared solver and store: a dense rank space, its moves and its notation.

use thiserror::Error;

use crate::packed::RunLayout;

/// A finite set of states numbered densely `0..size()`, with reversible moves.
///
/// The breadth-first solver walks this graph backwards from the goals; because every
/// move can be undone, "predecessor" and "successor" are the same relation. An
/// implementation must keep that promise (`b` is among `a`'s neighbours exactly when `a`
/// is among `b`'s), and give the same answers however often and from however many
/// threads it is asked: `verify` re-derives every stored distance from these moves.
#[warn(missing_docs)]
pub trait StateSpace: Sync {
    /// Number of ranks. Ranks that are not states of the puzzle are simply never reached.
    fn size(&self) -> u64;
    /// The number of ranks the moves reach from the goals, when the space knows it
    /// without searching (a permutation puzzle's group order, a pattern's count of its
    /// states); `None` (the default) when only the search tells. A search's progress is
    /// measured against it rather than against [`StateSpace::size`] (a pattern's space
    /// reaches about a third of its ranks); below the size, `check-definition` gives the
    /// ranks as an upper bound.
    fn reachable(&self) -> Option<u64> {
        None
    }
    /// Ranks of the goal states (distance 0).
    fn goals(&self) -> Vec<u64>;
    /// Appends to `out` the rank of every state one move away from `rank`.
    fn neighbors(&self, rank: u64, out: &mut Vec<u64>);
    /// `Some(p)` when the move graph is bipartite with every goal on one side: every
    /// path from `rank` to a goal then has a length of parity `p` (0 for the goals), and
    /// neighbours always differ in it. `None` (the default) when that is not known.
    ///
    /// The two-bit search (`solvers::twobit`) uses it to tell a level from the
    /// next one without a bit of its own.
    fn parity(&self, _rank: u64) -> Option<u8> {
        None
    }
    /// Appends the neighbours of each of `ranks` to `out`, as [`StateSpace::neighbors`]
    /// gives them, and after each rank's the length of `out` to `ends`. The solvers ask
    /// for ranks in ascending order, a batch at a time, so that a space can share work
    /// between the ranks of one block (one call instead of one per rank besides).
    fn neighbors_of(&self, ranks: &[u64], out: &mut Vec<u64>, ends: &mut Vec<usize>) {
        for &r in ranks {
            self.neighbors(r, out);
            ends.push(out.len());
        }
    }
    /// The moves between consecutive ranks among the 32 from `base` (a multiple of 32):
    /// bit `i` set when ranks `base + i` and `base + i + 1` are neighbours (bit 31: `base +
    /// 31` and `base + 32`). 0, the default, when the space does not say.
    ///
    /// A space that says leaves these moves out of [`StateSpace::far_neighbors_of`]; the
    /// two-bit search then makes them with a few operations on a word of 32 ranks instead
    /// of one rank at a time (the blank moving along a row of a sliding puzzle).
    fn run_links(&self, _base: u64) -> u32 {
        0
    }
    /// [`StateSpace::neighbors_of`] without the moves [`StateSpace::run_links`] gives:
    /// together they are every move. The default, for a space without links, is every
    /// neighbour.
    fn far_neighbors_of(&self, ranks: &[u64], out: &mut Vec<u64>, ends: &mut Vec<usize>) {
        self.neighbors_of(ranks, out, ends)
    }
    /// A number of words of 32 ranks after which [`StateSpace::odd_ranks`] and
    /// [`StateSpace::run_links`] repeat: theirs for `base` are those for `base + 32 *
    /// period`. `None`, the default, when they do not (or the space does not say); the
    /// two-bit search then asks for each word instead of looking them up.
    fn word_period(&self) -> Option<u64> {
        None
    }
    /// The parities of the 32 ranks from `base`: bit `i` set when rank `base + i` has
    /// parity 1 ([`StateSpace::parity`]), `None` when the parity is not known. The
    /// two-bit search asks this once per word of its table, not once per rank.
    fn odd_ranks(&self, base: u64) -> Option<u32> {
        let mut mask = 0u32;
        for i in 0..32 {
            mask |= (self.parity(base + i)? as u32) << i;
        }
        Some(mask)
    }
}

/// Why a piece of text is not a state of a puzzle: `query` and the readers give it as
/// their refusal's one line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[warn(missing_docs)]
pub enum StateError {
    /// The text does not describe an arrangement (length, characters, counts).
    #[error("malformed state {text:?}: {reason}")]
    Malformed {
        /// The text given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A rank (the key of a stored row) past the puzzle's last position.
    #[error("rank {rank} is outside the positions of {puzzle}: its ranks run from 0 to {last}")]
    RankOutside {
        /// The rank given.
        rank: u64,
        /// The puzzle.
        puzzle: String,
        /// Its last rank.
        last: u64,
    },
    /// A well-formed arrangement that can never reach the goal.
    #[error("state {text:?} cannot be solved: {reason}")]
    Unsolvable {
        /// The text given.
        text: String,
        /// Why no move sequence reaches the goal.
        reason: String,
    },
}

#[warn(missing_docs)]
impl StateError {
    /// [`StateError::Malformed`]: `text` is no arrangement, for `reason`.
    pub fn malformed(text: &str, reason: impl Into<String>) -> Self {
        StateError::Malformed {
            text: text.to_string(),
            reason: reason.into(),
        }
    }
    /// [`StateError::Unsolvable`]: `text` never reaches the goal, for `reason`.
    pub fn unsolvable(text: &str, reason: impl Into<String>) -> Self {
        StateError::Unsolvable {
            text: text.to_string(),
            reason: reason.into(),
        }
    }
}

/// A puzzle whose positions form a [`StateSpace`]: a definition, not a code path. The
/// shared solver (breadth-first search) and store handle every such puzzle the same way.
///
/// `format` and `parse` are each other's inverse on the ranks of states (`parse(&format(r))
/// == Ok(r)`), so a stored row's key and its notation are one rule.
#[warn(missing_docs)]
pub trait GraphPuzzle: StateSpace + Send {
    /// Identifier used on the command line and in the database (`eight`).
    fn name(&self) -> &str;
    /// Family name stored in the database (`sliding`, `tokens`, ...).
    fn family(&self) -> &str;
    /// The full definition as JSON (cells, adjacency, goal, notation), stored verbatim
    /// and hashed to decide whether a stored table is still current. It holds `spec`, the
    /// definition's keys, from which a reader of the file rebuilds the puzzle, and
    /// `layout`, `{"cells": [[x, y], ...], "edges": [[a, b], ...]}` in the order of the
    /// notation's cells, which the page and the terminal draw.
    fn definition(&self) -> serde_json::Value;
    /// The notation of the state with this rank.
    fn format(&self, rank: u64) -> String;
    /// Parses the notation back to a rank (input may be more lenient than `format`).
    fn parse(&self, text: &str) -> Result<u64, StateError>;
    /// The puzzle's usual starting position, if it has one (`query --start`).
    fn start(&self) -> Option<u64> {
        None
    }
    /// The packed distance layout for this rank space, if it has one: blocks of
    /// consecutive ranks whose runs are paths in a bipartite move graph (the `run-steps`
    /// layout of the file format), which a packed table then uses. `None` (the default)
    /// for a puzzle without one: packed, its distances are two-bit codes.
    fn packing(&self) -> Option<RunLayout> {
        None
    }
    /// The name of the move from `from` to its neighbour `to`, for puzzles whose moves
    /// are not a piece going from cell to cell (a cube's `R2`, a press of a light, a
    /// disc from peg to peg). `None` (the default): the move is told by the cells that
    /// changed in the notation.
    fn move_name(&self, _from: u64, _to: u64) -> Option<String> {
        None
    }
    /// Whether [`GraphPuzzle::move_name`] names this puzzle's moves: then an answer's
    /// path comes with the name of each move (`query --state`'s `moves`), an empty list
    /// at the goal. `false` (the default) for puzzles told by their cells.
    fn names_moves(&self) -> bool {
        false
    }
    /// How a position is written, in words, for `query --help` and docs/notation.md
    /// (`tiles in cell order, 0 = the blank`); the example beside it is the puzzle's
    /// start or goal as [`GraphPuzzle::format`] writes it. The default says only that.
    fn notation(&self) -> String {
        format!("positions as the {} family writes them", self.family())
    }
    /// What the definition asks of the storage: rows, packed tables or two-bit distances
    /// whatever the size (the file format's storage rule). The default asks nothing: the
    /// size decides.
    fn storage_asked(&self) -> crate::format::GraphAsk {
        crate::format::GraphAsk::BySize
    }
}

/// The three storage facts of a move graph, by the rules of [`crate::format`]:
/// where it is stored, whether its distances are two-bit codes, whether counts are kept.
pub fn graph_tables(g: &dyn GraphPuzzle) -> (crate::records::Storage, bool, bool) {
    use crate::format;
    let (size, asked) = (g.size(), g.storage_asked());
    (
        format::graph_storage(size, asked),
        format::two_bit_distances(size, g.packing().is_some(), asked),
        format::packed_counts(size, asked),
    )
}
