//! The binary's own modules: its arguments and what it shows on a terminal.

pub(crate) mod args;
pub(crate) mod terminal;
