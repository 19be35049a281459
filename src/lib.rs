//! puzzlebase: complete solution databases for classic puzzles.
//!
//! The library knows the puzzles ([`puzzles`]), how to number their states ([`rank`]),
//! how to solve them ([`bfs`] for move graphs, [`peg`] for peg solitaire, [`enumerate`]
//! for the enumeration puzzles) and how to store and read the results ([`store`]). It
//! knows nothing of command lines or terminals; `src/main.rs` is a thin layer on top.

pub mod bfs;
pub mod enumerate;
pub mod generate;
pub mod peg;
pub mod progress;
pub mod puzzles;
pub mod query;
pub mod rank;
pub mod records;
pub mod space;
pub mod store;
