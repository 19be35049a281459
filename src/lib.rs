//! The `puzzlebase` command's library: the HTTP server behind `serve` (the page and the
//! read-only JSON API) and the hints the command adds to the library's refusals. It is
//! built on the `puzzlebase` crate's public API alone, as any other program would be;
//! the binary (`src/main.rs`) adds the argument parsing and the terminal's output.

pub mod hints;
pub mod server;
