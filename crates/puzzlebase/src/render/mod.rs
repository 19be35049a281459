//! Rendering for terminals: boards drawn as text ([`draw`]) and every answer as the
//! lines the command line prints ([`text`]); every puzzle's notation for `query --help`
//! and docs/notation.md ([`notation`]). JSON lives with the answers.

pub mod draw;
pub mod notation;
pub mod text;
