//! puzzlebase: complete solution databases for classic puzzles.
//!
//! The crate is layered, each layer using only those before it (see
//! `docs/architecture.md`):
//!
//! - [`core`]: state-space traits, ranks, the file format's sentinels and record shapes;
//! - [`solvers`]: breadth-first search, pattern databases, IDA*, the peg solver;
//! - [`families`]: one folder per puzzle family (its engine and its definition checks),
//!   and the registry of families;
//! - [`catalog`]: built-in and users' definitions, lookup, a puzzle's identity, the plan;
//! - [`store`]: every SQL statement, behind the types the rest of the code calls;
//! - [`generate`] (the nightly job and its backends), [`verify`] and [`answers`];
//! - [`render`] (text for terminals) and [`server`] (HTTP).
//!
//! It knows nothing of command lines or terminals: progress goes through
//! [`core::progress::Progress`], and `src/main.rs` is a thin layer on top.

pub mod answers;
pub mod catalog;
pub mod core;
pub mod families;
pub mod generate;
pub mod render;
#[cfg(feature = "server")]
pub mod server;
pub mod solvers;
pub mod store;
pub mod verify;
