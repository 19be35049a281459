//! Every module of the library, for this crate's binary, tests and benchmarks: not a
//! stable interface (hidden from the documentation). Programs use the names the crate
//! root re-exports.

#[path = "../answers/mod.rs"]
pub mod answers;
#[path = "../catalog/mod.rs"]
pub mod catalog;
pub use puzzlebase_core as core;
#[path = "../families/mod.rs"]
pub mod families;
#[path = "../generate/mod.rs"]
pub mod generate;
#[path = "../render/mod.rs"]
pub mod render;
#[cfg(feature = "server")]
#[path = "../server.rs"]
pub mod server;
pub use puzzlebase_solvers as solvers;
#[path = "../store/mod.rs"]
pub mod store;
#[path = "../verify/mod.rs"]
pub mod verify;
