//! Every module of the library, for this crate's binary, tests and benchmarks: not a
//! stable interface (hidden from the documentation). Programs use the names the crate
//! root re-exports.

#[path = "../answers/mod.rs"]
pub mod answers;
pub use puzzlebase_core as core;
pub use puzzlebase_families as families;
pub use puzzlebase_families::catalog;
#[path = "../generate/mod.rs"]
pub mod generate;
#[path = "../render/mod.rs"]
pub mod render;
#[cfg(feature = "server")]
#[path = "../server.rs"]
pub mod server;
pub use puzzlebase_solvers as solvers;
pub use puzzlebase_store as store;
#[path = "../verify/mod.rs"]
pub mod verify;
