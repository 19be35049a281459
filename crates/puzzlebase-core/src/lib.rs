//! What every other layer builds on: the state-space traits, ranks, the file format's
//! sentinels and record shapes, the hex spelling of digests, and small process helpers.
//! Nothing here depends on the other crates of the workspace.

// The layers' crates are documented for the workspace's maintainers: a public item's
// documentation may name the private items it works with.
#![allow(rustdoc::private_intra_doc_links)]

pub mod definition;
pub mod digest;
pub mod format;
pub mod memory;
pub mod packed;
pub mod progress;
pub mod rank;
pub mod records;
pub mod space;
