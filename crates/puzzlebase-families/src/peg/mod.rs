//! Peg solitaire boards as a family: the board model and its solver live in
//! [`puzzlebase_solvers::peg`]; this folder holds the definition checks.

pub mod spec;

pub use puzzlebase_solvers::peg::{Board, Jump};
