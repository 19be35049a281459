//! puzzlebase: complete solution databases for classic puzzles.
//!
//! The library knows the puzzles ([`puzzles`], [`peg`] boards), how to number their
//! states ([`rank`]), how to solve them ([`bfs`] for move graphs, [`peg`] for peg
//! solitaire, [`enumerate`] for the enumeration puzzles), how their results become rows
//! ([`records`]) or packed tables ([`packed`]), how the nightly job builds the file
//! ([`generate`], with [`integrity`] for what makes the file safe to ship), how the file
//! is written and read ([`store`], [`query`]), and how every stored fact is re-derived
//! from the rules ([`verify`]). It knows nothing of command lines or
//! terminals: progress goes through [`progress::Progress`], and `src/main.rs` is a thin
//! layer on top.

pub mod answers;
pub mod bfs;
pub mod consistency;
pub mod definitions;
pub mod draw;
pub mod enumerate;
pub mod generate;
pub mod integrity;
pub mod layout;
pub mod memory;
pub mod packed;
pub mod pattern;
pub mod peg;
pub mod progress;
pub mod puzzles;
pub mod query;
pub mod rank;
pub mod records;
pub mod search;
pub mod server;
pub mod space;
pub mod store;
pub mod verify;
