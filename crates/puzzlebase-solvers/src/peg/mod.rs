//! Peg solitaire: board definitions and the solver that tabulates them.
//!
//! - [`board`]: boards as data (holes and jump lines, start and finish), their
//!   symmetries (computed as automorphisms of the jump structure, never hand-listed),
//!   and the notation of positions (`"0111…"`, one character per hole) and moves
//!   (`[from,to1,to2,...]`, a chain of jumps by one peg).
//! - [`solve`](mod@solve): reachable positions, positions that can still finish, minimum numbers
//!   of moves, counts of optimal jump sequences, and the start/finish matrix.
//!
//! This module is a pure library: no storage, no command line, no printing.
//!
//! ## Choices about the classic boards
//! The position-class argument (label a grid hole by `(row+col) mod 3` and by
//! `(row-col) mod 3`; a jump flips the parity of the peg count in all three classes of
//! each labelling, so the pairwise sums of those parities never change) shows that a
//! single-vacancy start on a board can end with one peg in its own hole only if the
//! full board is in the zero class. That holds for `english33`, but not for `french37`
//! nor for the 41-hole diamond, so those two use a start and a different finish hole
//! allowed by the class argument (see `boards` in the tests). Both are definitions only
//! (`tabulate == false`): their reachable sets are far too large for this machine.

pub mod board;
pub mod layers;
mod lookup;
mod pairs;
pub mod solve;

pub use board::{Board, Flips, Images, Jump};
pub use lookup::Lookup;
pub use solve::{
    LayerCounts, LayerStats, PegError, PegRow, PegTable, Reachable, STORE_ALL_LIMIT,
    for_each_reachable_layer, matrix, reachable_layers, single_jump_predecessors, solve,
};

#[cfg(test)]
pub mod tests;
