//! The puzzle families, one folder each: its engine (`mod.rs`, which knows nothing of
//! definition files, SQL or the command line) and its definition checks (`spec.rs`, which
//! build the engine from a [`spec::Spec`]). [`registry`] lists the families; [`Puzzle`]
//! is a built puzzle, by the kind of solver that handles it.

// The layers' crates are documented for the workspace's maintainers: a public item's
// documentation may name the private items it works with.
#![allow(rustdoc::private_intra_doc_links)]

pub mod blocks;
pub mod catalog;
pub mod fifteen;
pub mod hanoi;
pub mod layout;
pub mod lights;
pub mod magic;
pub mod oshidori;
pub mod peg;
pub mod permutation;
pub mod registry;
pub mod sliding;
pub mod spec;
pub mod stones;
pub mod tokens;
pub mod tour;

use crate::magic::Magic;
use crate::spec::{Problem, Spec};
use crate::tour::TourBoard;
use puzzlebase_core::space::{GraphPuzzle, StateError};
use puzzlebase_solvers::peg::Board;

/// A puzzle the tool knows, by the kind of solver that handles it.
pub enum Puzzle {
    /// A move graph over a dense rank space, solved by [`puzzlebase_solvers::bfs`].
    Graph(Box<dyn GraphPuzzle>),
    /// Peg solitaire on a board, solved by [`puzzlebase_solvers::peg`].
    Peg(Board),
    /// A magic figure: every arrangement with equal line sums ([`crate::magic`]).
    Magic(Magic),
    /// Closed knight's tours on a board ([`crate::tour`]).
    Tour(TourBoard),
    /// A sliding puzzle too large to tabulate: pattern databases built by [`puzzlebase_solvers::bfs`],
    /// answered by search ([`puzzlebase_solvers::search`]).
    Patterns(fifteen::Fifteen),
    /// Boards answered by searching each one's cluster, nothing tabulated (Rush Hour,
    /// [`blocks::clusters`]).
    Clusters(blocks::clusters::RushHour),
}

/// The accessors below serve code that already knows the kind it holds (a job of the
/// move-graph search, the catalogue's peg boards). What each kind answers is decided
/// once, by one match, in the answers layer (`puzzlebase`'s `answers::kind`), not by
/// trying them in turn.
impl Puzzle {
    /// The move graph, when the puzzle is one (the families answered from a table of
    /// every position: sliding, tokens, oshidori).
    pub fn as_graph(&self) -> Option<&dyn GraphPuzzle> {
        match self {
            Puzzle::Graph(g) => Some(g.as_ref()),
            _ => None,
        }
    }

    /// The peg board, when the puzzle is peg solitaire.
    pub fn as_peg(&self) -> Option<&Board> {
        match self {
            Puzzle::Peg(b) => Some(b),
            _ => None,
        }
    }

    /// The tour board, when the puzzle is a knight's tour.
    pub fn as_tour(&self) -> Option<&TourBoard> {
        match self {
            Puzzle::Tour(t) => Some(t),
            _ => None,
        }
    }

    /// The sliding puzzle answered by search over pattern tables, when it is one.
    pub fn as_patterns(&self) -> Option<&fifteen::Fifteen> {
        match self {
            Puzzle::Patterns(f) => Some(f),
            _ => None,
        }
    }

    /// [`Puzzle::as_patterns`], to change which tables it builds.
    pub fn as_patterns_mut(&mut self) -> Option<&mut fifteen::Fifteen> {
        match self {
            Puzzle::Patterns(f) => Some(f),
            _ => None,
        }
    }

    /// [`Puzzle::as_patterns`], by value.
    pub fn into_patterns(self) -> Option<fifteen::Fifteen> {
        match self {
            Puzzle::Patterns(f) => Some(f),
            _ => None,
        }
    }

    /// The position written `text` in the puzzle's own notation (the user may have
    /// typed spaces, lower case or Rush Hour's `.` for `o`), or why it is no position;
    /// `None` for enumerations and the puzzles answered by search over pattern tables.
    pub fn normalized(&self, text: &str) -> Option<Result<String, StateError>> {
        match self {
            Puzzle::Graph(g) => Some(g.parse(text).map(|r| g.format(r))),
            Puzzle::Peg(b) => Some(b.parse(text).map(|bits| b.format(bits))),
            Puzzle::Clusters(r) => Some(r.normalized(text)),
            _ => None,
        }
    }

    /// The key of the stored row of the position written `text`, or why it is no
    /// position: a move puzzle's rank, a peg board's canonical bitboard (the row of its
    /// symmetry class); `None` for puzzles whose answers are not kept by position.
    pub fn stored_key(&self, text: &str) -> Option<Result<u64, StateError>> {
        match self {
            Puzzle::Graph(g) => Some(g.parse(text)),
            Puzzle::Peg(b) => Some(b.parse(text).map(|bits| b.canonical(bits).0)),
            _ => None,
        }
    }

    /// The start and the goals in the puzzle's notation, for a move or peg puzzle.
    pub fn start_and_goals(&self) -> Option<(Option<String>, Vec<String>)> {
        match self {
            Puzzle::Graph(g) => Some((
                g.start().map(|r| g.format(r)),
                g.goals().iter().map(|&r| g.format(r)).collect(),
            )),
            Puzzle::Peg(b) => Some((Some(b.format(b.start)), vec![b.format(b.finish)])),
            _ => None,
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Puzzle::Graph(g) => g.name(),
            Puzzle::Peg(b) => b.name,
            Puzzle::Magic(m) => m.name,
            Puzzle::Tour(b) => b.name,
            Puzzle::Patterns(f) => f.name(),
            Puzzle::Clusters(r) => r.name(),
        }
    }

    pub fn family(&self) -> &str {
        match self {
            Puzzle::Graph(g) => g.family(),
            Puzzle::Peg(_) => "peg",
            Puzzle::Magic(_) => "magic",
            Puzzle::Tour(_) => "tour",
            Puzzle::Patterns(_) => "sliding",
            Puzzle::Clusters(_) => "rush-hour",
        }
    }

    /// How a position of this puzzle is written, in words: the one description of its
    /// notation, which `query --help` and docs/notation.md list for every built-in
    /// puzzle (a move graph's from [`GraphPuzzle::notation`], so a family defined
    /// outside the crate brings its own).
    pub fn notation(&self) -> String {
        match self {
            Puzzle::Graph(g) => g.notation(),
            Puzzle::Peg(b) => format!(
                "one digit per hole ({} holes, numbered row by row): 1 a peg, 0 empty; a move is one peg's chain of jumps [FROM,TO,...]",
                b.holes
            ),
            Puzzle::Magic(m) => format!(
                "an arrangement of the numbers, {} positions, comma-separated; asked by side sum",
                m.positions()
            ),
            Puzzle::Tour(t) => format!(
                "a closed tour of the {}x{} board: the squares in visiting order; asked as a whole",
                t.rows, t.cols
            ),
            Puzzle::Patterns(f) => format!(
                "{} tiles' numbers in cell order, comma-separated, 0 = the blank; answered by IDA* over stored pattern databases",
                f.cells()
            ),
            Puzzle::Clusters(r) => r.notation(),
        }
    }

    /// A position in the puzzle's notation to show with [`Puzzle::notation`]: its start,
    /// else its goal; `None` for enumerations, which are not asked by position.
    pub fn example(&self) -> Option<String> {
        match self {
            Puzzle::Graph(g) => Some(g.format(g.start().or_else(|| g.goals().first().copied())?)),
            Puzzle::Peg(b) => Some(b.format(b.start)),
            Puzzle::Patterns(f) => Some(f.format(&f.goal())),
            Puzzle::Clusters(r) => Some(r.start().to_string()),
            Puzzle::Magic(_) | Puzzle::Tour(_) => None,
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
            Puzzle::Clusters(r) => r.definition(),
        }
    }
}

/// One family of the registry ([`crate::registry`]): its name in definition
/// files, the keys it reads besides `name` and `family`, and how it checks a spec and
/// builds the puzzle.
pub struct Family {
    pub name: &'static str,
    pub keys: &'static [&'static str],
    pub build: fn(&Spec) -> Result<Puzzle, Problem>,
}

/// A family of move puzzles defined outside this crate, which a program adds to the
/// registry at run time (`puzzlebase::register_family`). From
/// then on, in that program, a definition naming the family (a user's file, a file's
/// stored definition) builds its puzzle wherever a built-in family's would: `generate`,
/// `query` and the other answers, `verify`, the server.
///
/// A family outside the crate is a move graph: the breadth-first solver, the store,
/// `verify` and the answers handle every [`GraphPuzzle`] with no code of its own, while
/// the other kinds of puzzle (peg boards, enumerations, puzzles answered by search) each
/// need their own arm in the layers' dispatch.
#[derive(Clone, Copy)]
#[warn(missing_docs)]
pub struct GraphFamily {
    /// The family's name, as definitions give it in their `family` key: 1 to 64
    /// lower-case letters, digits or '-', and none of the built-in families' names.
    pub name: &'static str,
    /// The keys the family reads besides `name` and `family`: shared ones, which are
    /// fields of [`Spec`] (`start`, `goal`, `rows`, ...), and its own, which it reads with
    /// [`Spec::own_keys`]. A definition with any other key is refused, naming the key,
    /// before `build` is called.
    pub keys: &'static [&'static str],
    /// Checks a definition and builds its puzzle; a problem names the key at fault, and
    /// a definition file's refusal then points at that key's line. The puzzle must name
    /// itself ([`GraphPuzzle::name`]) and its family ([`GraphPuzzle::family`]) as the
    /// spec does, and its [`GraphPuzzle::definition`] must hold the spec under `"spec"`
    /// (`serde_json::to_value(spec)`), from which a file's reader rebuilds it: the
    /// registry refuses a puzzle that does not.
    pub build: fn(&Spec) -> Result<Box<dyn GraphPuzzle>, Problem>,
}
