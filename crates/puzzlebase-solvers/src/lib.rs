//! The solvers: breadth-first search over a rank space ([`bfs`], [`twobit`], and
//! [`twobit_led`], which checks a stored two-bit table), pattern databases
//! ([`pattern`]), IDA* over them ([`search`]), the peg solitaire solver ([`peg`]) and the
//! shapes enumeration results take ([`enumerate`]). They depend only on [`puzzlebase_core`].

// The layers' crates are documented for the workspace's maintainers: a public item's
// documentation may name the private items it works with.
#![allow(rustdoc::private_intra_doc_links)]

pub mod bfs;
pub mod distributed;
pub mod enumerate;
pub mod pattern;
pub mod peg;
pub mod search;
pub mod twobit;
pub mod twobit_led;
