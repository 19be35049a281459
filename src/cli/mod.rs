//! The binary's own modules: its arguments, what it shows on a terminal, and `export`.

pub(crate) mod args;
pub(crate) mod export;
pub(crate) mod terminal;
