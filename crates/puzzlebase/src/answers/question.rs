//! The questions a puzzle can be asked, each named two ways: in words, for every reader
//! of a refusal (the command, Python, SQL), and as the `puzzlebase query` option that
//! asks it, which only the command adds to its hints and help.

use std::fmt;

/// A question put to a puzzle, as a refusal names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Question {
    /// A position's distance, solution count and optimal path.
    State,
    /// The same for the puzzle's own starting position.
    Start,
    /// One arrangement of an enumeration, checked against its rule.
    Arrangement,
    /// The key of a position's stored row, or the position of a key.
    Rank,
    /// The names of the moves along an optimal path.
    MoveNames,
    /// The positions farthest from the goal.
    Longest,
    /// Positions per distance (an enumeration's solutions per value).
    Histogram,
    /// A peg board's positions per number of pegs.
    Layers,
    /// A peg board's start x finish matrix.
    Matrix,
    /// Every solution of an enumeration.
    All,
    /// The solutions of one side sum.
    Sum,
    /// A position drawn at random among those that reach the goal.
    Random,
    /// A goal scrambled by random moves.
    Scramble,
    /// Every stored position or solution, exported.
    Export,
}

impl Question {
    /// The question in words: "the farthest positions".
    pub fn words(self) -> &'static str {
        match self {
            Question::State => "a position's distance and path",
            Question::Start => "the start's distance and path",
            Question::Arrangement => "an arrangement's check",
            Question::Rank => "a position's rank",
            Question::MoveNames => "move names",
            Question::Longest => "the farthest positions",
            Question::Histogram => "the histogram",
            Question::Layers => "the peg layers",
            Question::Matrix => "the start x finish matrix",
            Question::All => "every solution",
            Question::Sum => "the solutions of one side sum",
            Question::Random => "a random position",
            Question::Scramble => "a scrambled position",
            Question::Export => "an export of every position",
        }
    }

    /// The `puzzlebase query` option that asks it (`--scramble N`); `None` for what
    /// the readers or another command ask (a rank, move names, an export).
    pub fn option(self) -> Option<&'static str> {
        Some(match self {
            Question::State | Question::Arrangement => "--state",
            Question::Start => "--start",
            Question::Longest => "--longest",
            Question::Histogram => "--histogram",
            Question::Layers => "--layers",
            Question::Matrix => "--matrix",
            Question::All => "--all",
            Question::Sum => "--sum N",
            Question::Random => "--random",
            Question::Scramble => "--scramble N",
            Question::Rank | Question::MoveNames | Question::Export => return None,
        })
    }
}

impl Question {
    /// `a`, `a or b`, `a, b or c`, in words.
    pub(crate) fn one_of(questions: &[Question]) -> String {
        let words: Vec<&str> = questions.iter().map(|q| q.words()).collect();
        crate::catalog::one_of(&words)
    }
}

impl fmt::Display for Question {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.words())
    }
}
