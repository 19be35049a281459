//! The puzzle definitions: each is data (a graph, a goal, a notation) for a shared
//! solver, and [`registry`] lists every puzzle the tool knows.

pub mod fifteen;
pub mod knights;
pub mod oshidori;
pub mod sliding;
pub mod stones;

use crate::enumerate::{self, TourBoard};
use crate::peg::{self, Board};
use crate::space::GraphPuzzle;

/// A puzzle the tool knows, by the kind of solver that handles it.
pub enum Puzzle {
    /// A move graph over a dense rank space, solved by [`crate::bfs`].
    Graph(Box<dyn GraphPuzzle>),
    /// Peg solitaire on a board, solved by [`crate::peg`].
    Peg(Board),
    /// The magic triangle: every arrangement with equal side sums ([`crate::enumerate::magic`]).
    Magic,
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
            Puzzle::Magic => "magic-triangle",
            Puzzle::Tour(b) => b.name,
            Puzzle::Patterns(_) => fifteen::NAME,
        }
    }

    pub fn family(&self) -> &str {
        match self {
            Puzzle::Graph(g) => g.family(),
            Puzzle::Peg(_) => "peg",
            Puzzle::Magic => "magic",
            Puzzle::Tour(_) => "tour",
            Puzzle::Patterns(_) => "sliding",
        }
    }

    /// The definition as JSON: what is stored in the file and hashed to detect changes.
    pub fn definition(&self) -> serde_json::Value {
        match self {
            Puzzle::Graph(g) => g.definition(),
            Puzzle::Peg(b) => b.definition(),
            Puzzle::Magic => enumerate::magic_definition(),
            Puzzle::Tour(b) => b.definition(),
            Puzzle::Patterns(f) => f.definition(),
        }
    }
}

/// Every puzzle, in the order `generate` builds them.
pub fn registry() -> Vec<Puzzle> {
    let mut all = graphs();
    // Boards too large to tabulate (french37, board41) are definitions only.
    all.extend(
        peg::boards()
            .into_iter()
            .filter(|b| b.tabulate)
            .map(Puzzle::Peg),
    );
    all.extend(enumerations());
    all.push(Puzzle::Patterns(fifteen::Fifteen::new()));
    all
}

/// The move-graph puzzles, in registry order.
fn graphs() -> Vec<Puzzle> {
    use sliding::Sliding;
    vec![
        Puzzle::Graph(Box::new(Sliding::six())),
        Puzzle::Graph(Box::new(Sliding::grid("seven", 2, 4))),
        Puzzle::Graph(Box::new(Sliding::grid("eight", 3, 3))),
        Puzzle::Graph(Box::new(Sliding::grid("nine", 2, 5))),
        Puzzle::Graph(Box::new(Sliding::grid("eleven", 3, 4))),
        Puzzle::Graph(Box::new(knights::KnightSwap::new())),
        Puzzle::Graph(Box::new(oshidori::Oshidori::new())),
    ]
}

/// The enumeration puzzles, in registry order.
fn enumerations() -> Vec<Puzzle> {
    let mut all = vec![Puzzle::Magic];
    all.extend(enumerate::tour_boards().into_iter().map(Puzzle::Tour));
    all
}

/// Looks a puzzle up by name. Only the peg board asked for is built: the symmetry search
/// of every board would be most of a query's time.
pub fn find(name: &str) -> Option<Puzzle> {
    if let Some(b) = peg::board::board(name) {
        return b.tabulate.then_some(Puzzle::Peg(b));
    }
    graphs()
        .into_iter()
        .chain(enumerations())
        .chain(std::iter::once_with(|| {
            Puzzle::Patterns(fifteen::Fifteen::new())
        }))
        .find(|p| p.name() == name)
}

/// Names of every known puzzle, for error messages and help.
pub fn names() -> Vec<String> {
    registry().iter().map(|p| p.name().to_string()).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn find_knows_exactly_the_registry() {
        for p in super::registry() {
            let found = super::find(p.name()).expect("every registered puzzle is found");
            assert_eq!(found.definition(), p.definition());
        }
        for name in ["french37", "board41", "twenty-four", ""] {
            assert!(super::find(name).is_none(), "{name}");
        }
    }
}
