//! The puzzle families, one folder each: its engine (`mod.rs`, which knows nothing of
//! definition files, SQL or the command line) and its definition checks (`spec.rs`, which
//! build the engine from a [`spec::Spec`]). [`registry`] lists the families; [`Puzzle`]
//! is a built puzzle, by the kind of solver that handles it.

pub mod fifteen;
pub mod layout;
pub mod magic;
pub mod oshidori;
pub mod peg;
pub mod registry;
pub mod sliding;
pub mod spec;
pub mod stones;
pub mod tokens;
pub mod tour;

use crate::core::space::GraphPuzzle;
use crate::families::magic::Magic;
use crate::families::spec::{Problem, Spec};
use crate::families::tour::TourBoard;
use crate::solvers::peg::Board;

/// A puzzle the tool knows, by the kind of solver that handles it.
pub enum Puzzle {
    /// A move graph over a dense rank space, solved by [`crate::solvers::bfs`].
    Graph(Box<dyn GraphPuzzle>),
    /// Peg solitaire on a board, solved by [`crate::solvers::peg`].
    Peg(Board),
    /// A magic figure: every arrangement with equal line sums ([`crate::families::magic`]).
    Magic(Magic),
    /// Closed knight's tours on a board ([`crate::families::tour`]).
    Tour(TourBoard),
    /// A sliding puzzle too large to tabulate: pattern databases built by [`crate::solvers::bfs`],
    /// answered by search ([`crate::solvers::search`]).
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

    /// The `query` options that apply to this puzzle, for a refusal that says what to
    /// ask instead. The answers' own checks decide; this list only names them.
    pub fn query_options(&self) -> Vec<&'static str> {
        match self {
            Puzzle::Graph(g) => {
                let mut v = vec!["--state"];
                if g.start().is_some() {
                    v.push("--start");
                }
                v.extend(["--longest", "--histogram"]);
                v
            }
            Puzzle::Peg(b) => {
                let mut v = vec!["--state", "--start", "--longest", "--histogram"];
                if b.matrix {
                    v.push("--matrix");
                }
                v.push("--layers");
                v
            }
            Puzzle::Magic(_) => vec!["--all", "--sum N", "--histogram"],
            Puzzle::Tour(_) => vec!["--all"],
            Puzzle::Patterns(_) => vec!["--state"],
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
}

/// One family of the registry ([`crate::families::registry`]): its name in definition
/// files, the keys it reads besides `name` and `family`, and how it checks a spec and
/// builds the puzzle.
pub struct Family {
    pub name: &'static str,
    pub keys: &'static [&'static str],
    pub build: fn(&Spec) -> Result<Puzzle, Problem>,
}
