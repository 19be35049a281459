//! Peg solitaire boards as a family: the board model and its solver live in
//! [`crate::solvers::peg`]; this folder holds the definition checks.

pub mod spec;

pub use crate::solvers::peg::{Board, Jump};
