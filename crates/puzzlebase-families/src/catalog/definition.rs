//! [`Definition`]: one puzzle as a program outside the crate holds it, from a user's
//! file, the built-in catalogue or a file's stored definition.

use std::path::Path;

use puzzlebase_core::space::GraphPuzzle;
use puzzlebase_solvers::peg::Board;

use super::{
    DefinitionError, builtin_name, definitions_builtin, find, load, load_dir, nightly, registry,
};
use crate::Puzzle;
use crate::registry as families;

/// A user's definition, read and checked by its family ([`load`]), with a name no
/// built-in puzzle has: what `generate --definitions DIR` adds to a run, and what a
/// program gives `puzzlebase::generate_definitions`. Its
/// family may be one the program registered (`puzzlebase::register_family`).
#[warn(missing_docs)]
pub struct Definition(Puzzle);

impl Definition {
    /// The definition in `text`, a definition file's TOML (`file` names it in a
    /// refusal): checked as `check-definition` checks a user's file, so a built-in
    /// puzzle's name is refused.
    pub fn from_toml(file: &str, text: &str) -> Result<Definition, DefinitionError> {
        let (spec, puzzle) = load(file, text)?;
        if definitions_builtin(&spec.name) {
            return Err(builtin_name(Path::new(file), text, &spec.name));
        }
        Ok(Definition(puzzle))
    }

    /// Every `*.toml` and `*.tws` file in `dir`, in file-name order, as `generate --definitions DIR`
    /// reads them: each checked, and a name built in or given by two files refused.
    pub fn read_dir(dir: &Path) -> Result<Vec<Definition>, DefinitionError> {
        Ok(load_dir(dir)?.into_iter().map(Definition).collect())
    }

    /// The puzzle's name.
    pub fn name(&self) -> &str {
        self.0.name()
    }

    /// The built-in puzzle `name`, as `generate --puzzle NAME` builds it; `None` when no
    /// built-in puzzle has that name. Only its own file is read.
    pub fn builtin(name: &str) -> Option<Definition> {
        find(name).map(Definition)
    }

    /// Every built-in puzzle, in the order `generate` builds them.
    pub fn builtins() -> Vec<Definition> {
        registry().into_iter().map(Definition).collect()
    }

    /// Whether `generate` without `--puzzle` builds it; the others (peg boards stored as
    /// layers, move graphs of two-bit distances) are built when named.
    pub fn in_default_run(&self) -> bool {
        nightly(&self.0)
    }

    /// Its move graph (positions as dense ranks, and their moves) when the puzzle is
    /// answered from a table of every position; `None` for the other kinds.
    pub fn graph(&self) -> Option<&dyn GraphPuzzle> {
        self.0.as_graph()
    }

    /// Its board when the puzzle is peg solitaire; `None` for the other kinds.
    pub fn peg_board(&self) -> Option<&Board> {
        self.0.as_peg()
    }

    /// The puzzle a file's stored definition describes (the JSON of its
    /// `puzzles.definition` column), rebuilt and checked as a definition file is: how a
    /// reader rebuilds a puzzle from a file alone.
    pub fn from_stored(
        definition: &serde_json::Value,
    ) -> Result<Definition, families::RebuildError> {
        families::from_definition(definition).map(Definition)
    }

    /// The definition `generate` stores for it (`puzzles.definition`), which
    /// [`Definition::from_stored`] reads back.
    pub fn stored(&self) -> serde_json::Value {
        self.0.definition()
    }

    /// [`Definition::graph`], by value.
    pub fn into_graph(self) -> Option<Box<dyn GraphPuzzle>> {
        match self.0 {
            Puzzle::Graph(g) => Some(g),
            _ => None,
        }
    }

    /// [`Definition::peg_board`], by value.
    pub fn into_peg_board(self) -> Option<Board> {
        match self.0 {
            Puzzle::Peg(b) => Some(b),
            _ => None,
        }
    }

    /// A puzzle built by the families' own constructors (tests and tools that make a
    /// variant of a built-in puzzle in code), as a definition a run builds.
    pub fn of_puzzle(puzzle: Puzzle) -> Definition {
        Definition(puzzle)
    }

    /// The puzzle it builds.
    pub fn into_puzzle(self) -> Puzzle {
        self.0
    }
}
