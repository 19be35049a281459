//! One integration binary: the command line and the file, end to end.

mod bad_input;
mod english33;
mod fifteen;
mod nightly;
mod others;
mod packed;
mod peg;
mod sliding;
mod util;
