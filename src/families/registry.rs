//! The registry of families: one line per family. A definition's `family` key chooses
//! the entry whose checks build its puzzle.

use thiserror::Error;

use crate::families::Family;
use crate::families::Puzzle;
use crate::families::spec::{Problem, Spec, problem};
use crate::families::{hanoi, lights, magic, oshidori, peg, permutation, sliding, tokens, tour};

/// Every family a definition can name, in the order they are listed to users.
pub const FAMILIES: &[Family] = &[
    sliding::spec::FAMILY,
    tokens::spec::FAMILY,
    oshidori::spec::FAMILY,
    peg::spec::FAMILY,
    tour::spec::FAMILY,
    magic::spec::FAMILY,
    lights::spec::FAMILY,
    hanoi::spec::FAMILY,
    permutation::spec::FAMILY,
];

/// The family named `name`.
pub fn family(name: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.name == name)
}

/// The families' names, for messages: `sliding, tokens, ...`.
pub fn family_names() -> String {
    FAMILIES
        .iter()
        .map(|f| f.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks a spec against its family's rules and builds the puzzle. A peg board that is
/// not tabulated is built too (it is a definition of its own).
pub fn build(spec: &Spec) -> Result<Puzzle, Problem> {
    let family = family(&spec.family).ok_or_else(|| {
        problem(
            "family",
            format!(
                "unknown family {:?}; known families: {}",
                spec.family,
                family_names()
            ),
        )
    })?;
    (family.build)(spec)
}

/// Why a stored definition does not rebuild its puzzle ([`from_definition`]).
#[derive(Debug, Error)]
pub enum RebuildError {
    /// The definition has no `spec` to build from.
    #[error("the stored definition has no `spec`")]
    NoSpec,
    /// Its `spec` is not a spec (a key of the wrong type, or an unknown one).
    #[error(transparent)]
    Spec(serde_json::Error),
    /// The spec breaks its family's rules.
    #[error(transparent)]
    Rules(Problem),
}

/// Rebuilds a puzzle from its stored definition (its `spec`), checked as a file is.
pub fn from_definition(definition: &serde_json::Value) -> Result<Puzzle, RebuildError> {
    let spec = definition.get("spec").ok_or(RebuildError::NoSpec)?;
    let spec: Spec = serde_json::from_value(spec.clone()).map_err(RebuildError::Spec)?;
    build(&spec).map_err(RebuildError::Rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_is_listed_once_under_its_own_name() {
        let names: Vec<&str> = FAMILIES.iter().map(|f| f.name).collect();
        assert_eq!(
            names,
            [
                "sliding",
                "tokens",
                "oshidori",
                "peg",
                "tour",
                "magic",
                "lights",
                "hanoi",
                "permutation"
            ]
        );
        for f in FAMILIES {
            assert_eq!(family(f.name).unwrap().keys, f.keys);
        }
        assert!(family("hexagon").is_none());
    }
}
