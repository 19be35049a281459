//! Rendering for terminals: boards drawn as text ([`draw`]) and every answer as the
//! lines the command line prints ([`text`]). JSON lives with the answers.

pub mod draw;
pub mod text;
