//! The puzzle engines and the list of puzzles: each puzzle is data (a definition file
//! under `data/puzzles/`, read by [`crate::definitions`]) for a shared solver, and
//! [`registry`] lists every built-in puzzle.

pub mod fifteen;
pub mod knights;
pub mod oshidori;
pub mod sliding;
pub mod stones;

use crate::definitions::{self, Family};
use crate::enumerate::{Magic, TourBoard};
use crate::peg::Board;
use crate::space::GraphPuzzle;

/// A puzzle the tool knows, by the kind of solver that handles it.
pub enum Puzzle {
    /// A move graph over a dense rank space, solved by [`crate::bfs`].
    Graph(Box<dyn GraphPuzzle>),
    /// Peg solitaire on a board, solved by [`crate::peg`].
    Peg(Board),
    /// A magic figure: every arrangement with equal line sums ([`crate::enumerate::magic`]).
    Magic(Magic),
    /// Closed knight's tours on a board ([`crate::enumerate::tour`]).
    Tour(TourBoard),
    /// A sliding puzzle too large to tabulate: pattern databases built by [`crate::bfs`],
    /// answered by search ([`crate::search`]).
    Patterns(fifteen::Fifteen),
}

impl Puzzle {
    pub fn name(&self) -> &str {
        match self {
            Puzzle::Graph(g) => g.name(),
            Puzzle::Peg(b) => b.name,
            Puzzle::Magic(m) => m.name,
            Puzzle::Tour(b) => b.name,
            Puzzle::Patterns(f) => f.name(),
        }
    }

    pub fn family(&self) -> &str {
        match self {
            Puzzle::Graph(g) => g.family(),
            Puzzle::Peg(_) => "peg",
            Puzzle::Magic(_) => "magic",
            Puzzle::Tour(_) => "tour",
            Puzzle::Patterns(_) => "sliding",
        }
    }

    /// The definition as JSON: what is stored in the file and hashed to detect changes.
    /// Its `spec` is the definition file's contents, its `layout` the drawing
    /// (`{"cells": [[x, y], ...], "edges": [[a, b], ...]}` in the puzzle's cell order).
    pub fn definition(&self) -> serde_json::Value {
        match self {
            Puzzle::Graph(g) => g.definition(),
            Puzzle::Peg(b) => b.definition(),
            Puzzle::Magic(m) => m.definition(),
            Puzzle::Tour(b) => b.definition(),
            Puzzle::Patterns(f) => f.definition(),
        }
    }

    /// Rebuilds a puzzle from its stored definition (its `spec`), checked as a file is.
    pub fn from_definition(definition: &serde_json::Value) -> Result<Puzzle, String> {
        let spec = definition
            .get("spec")
            .ok_or("the stored definition has no `spec`")?;
        let spec: definitions::Spec =
            serde_json::from_value(spec.clone()).map_err(|e| e.to_string())?;
        definitions::build(&spec).map_err(|p| format!("{}: {}", p.key, p.message))
    }
}

/// Whether `generate` builds this built-in definition (boards too large to tabulate,
/// french37 and board41, are definitions only).
fn built(spec: &definitions::Spec) -> bool {
    spec.family != Family::Peg || spec.tabulate.unwrap_or(true)
}

/// Every built-in puzzle, in the order `generate` builds them.
pub fn registry() -> Vec<Puzzle> {
    definitions::builtin_specs()
        .iter()
        .filter(|s| built(s))
        .map(definitions::builtin_puzzle)
        .collect()
}

/// Looks a built-in puzzle up by name. Only its own file is read and only it is built:
/// the symmetry search of every peg board would be most of a query's time.
pub fn find(name: &str) -> Option<Puzzle> {
    definitions::builtin_spec(name)
        .filter(built)
        .map(|s| definitions::builtin_puzzle(&s))
}

/// Whether `name` is one of the built-in definition files (tabulated or not): such a
/// name is never taken from a user's file or a stored definition.
pub fn definitions_builtin(name: &str) -> bool {
    definitions::builtin_names().any(|n| n == name)
}

/// Names of every built-in puzzle, for error messages and help.
pub fn names() -> Vec<String> {
    definitions::builtin_specs()
        .into_iter()
        .filter(built)
        .map(|s| s.name)
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn find_knows_exactly_the_registry() {
        for p in super::registry() {
            let found = super::find(p.name()).expect("every registered puzzle is found");
            assert_eq!(found.definition(), p.definition());
        }
        assert_eq!(
            super::names(),
            super::registry()
                .iter()
                .map(|p| p.name().to_string())
                .collect::<Vec<_>>()
        );
        for name in ["french37", "board41", "twenty-four", ""] {
            assert!(super::find(name).is_none(), "{name}");
        }
    }
}
