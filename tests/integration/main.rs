//! One integration binary: the command line and the file, end to end.

mod bad_input;
mod bounded;
mod browser;
mod damage;
mod definitions;
mod english33;
mod fifteen;
mod hardened;
mod hostile;
mod layers;
mod nightly;
mod others;
mod packed;
mod peg;
mod properties;
mod resident;
mod rules;
mod serve;
mod sliding;
mod util;
