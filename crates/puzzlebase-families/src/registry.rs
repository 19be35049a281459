//! The registry of families: one line per built-in family, and the families a program
//! adds at run time ([`register`]: families defined outside the crate). A definition's
//! `family` key chooses the entry whose checks build its puzzle; every path that builds
//! a puzzle (a definition file, a file's stored definition) comes through [`build`], so
//! a registered family is seen everywhere a built-in one is.

use std::sync::RwLock;

use thiserror::Error;

use crate::spec::{Problem, Spec, common, graph_storage, problem};
use crate::{Family, GraphFamily, Puzzle};
use crate::{blocks, hanoi, lights, magic, oshidori, peg, permutation, sliding, tokens, tour};

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
    blocks::spec::FAMILY,
    blocks::clusters::FAMILY,
];

/// The families registered at run time, in the order they were registered. Entries are
/// never removed: a puzzle built from one may be answered from at any later time.
static REGISTERED: RwLock<Vec<GraphFamily>> = RwLock::new(Vec::new());

/// The registered families. (No code panics while holding the lock, but a poisoned one
/// still holds whole entries: they are pushed, never edited.)
fn registered() -> Vec<GraphFamily> {
    REGISTERED.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The family registered at run time under `name`.
fn registered_family(name: &str) -> Option<GraphFamily> {
    registered().into_iter().find(|f| f.name == name)
}

/// The built-in family named `name`.
pub fn family(name: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.name == name)
}

/// Whether `name` is a family a definition may name: built in, or registered.
pub fn is_family(name: &str) -> bool {
    family(name).is_some() || registered_family(name).is_some()
}

/// The families' names, for messages: `sliding, tokens, ...`, then the registered ones.
pub fn family_names() -> String {
    let registered = registered();
    FAMILIES
        .iter()
        .map(|f| f.name)
        .chain(registered.iter().map(|f| f.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why [`register`] refused a family.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[warn(missing_docs)]
#[non_exhaustive]
pub enum RegisterError {
    /// The name is not 1 to 64 lower-case letters, digits or '-'.
    #[error("family name {0:?} must be 1 to 64 lower-case letters, digits or '-'")]
    Name(String),
    /// The name is a built-in family's.
    #[error("family {0:?} is built into puzzlebase; choose another name")]
    BuiltIn(String),
    /// A family of that name is already registered (by this program, earlier).
    #[error("family {0:?} is already registered")]
    Registered(String),
}

/// Adds a family defined outside the crate to the registry, for the rest of the process:
/// from then on definitions naming it build its puzzles through [`build`]. A name that is
/// malformed, built in or already registered is refused, and nothing changes.
pub fn register(family: GraphFamily) -> Result<(), RegisterError> {
    let name = family.name;
    if name.is_empty()
        || name.len() > 64
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(RegisterError::Name(name.to_string()));
    }
    if self::family(name).is_some() {
        return Err(RegisterError::BuiltIn(name.to_string()));
    }
    let mut all = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    if all.iter().any(|f| f.name == name) {
        return Err(RegisterError::Registered(name.to_string()));
    }
    all.push(family);
    Ok(())
}

/// Checks a spec against its family's rules and builds the puzzle. A peg board that is
/// not tabulated is built too (it is a definition of its own).
pub fn build(spec: &Spec) -> Result<Puzzle, Problem> {
    if let Some(family) = family(&spec.family) {
        return (family.build)(spec);
    }
    match registered_family(&spec.family) {
        Some(family) => build_registered(&family, spec),
        None => Err(problem(
            "family",
            format!(
                "unknown family {:?}; known families: {}",
                spec.family,
                family_names()
            ),
        )),
    }
}

/// A registered family's puzzle, held to what a built-in family's checks guarantee: the
/// name's form and no key the family does not read (checked before its own checks run),
/// a puzzle that names itself and its family as the spec does, carries the spec in its
/// definition (so a file's reader rebuilds the same puzzle), and fits the storage.
fn build_registered(family: &GraphFamily, spec: &Spec) -> Result<Puzzle, Problem> {
    common(spec, family.keys)?;
    let g = (family.build)(spec)?;
    let wrong = |what: String| {
        problem(
            "family",
            format!("the {} family's puzzle {what}", family.name),
        )
    };
    if g.name() != spec.name {
        return Err(wrong(format!(
            "names itself {:?}, not {:?}",
            g.name(),
            spec.name
        )));
    }
    if g.family() != family.name {
        return Err(wrong(format!("names its family {:?}", g.family())));
    }
    let spec_json = serde_json::to_value(spec).map_err(|e| wrong(e.to_string()))?;
    if g.definition().get("spec") != Some(&spec_json) {
        return Err(wrong(
            "does not hold its spec in its definition (under \"spec\")".to_string(),
        ));
    }
    graph_storage(Some(g.size()), g.storage_asked(), "name")?;
    Ok(Puzzle::Graph(g))
}

/// Why a stored definition does not rebuild its puzzle ([`from_definition`]).
#[derive(Debug, Error)]
pub enum RebuildError {
    /// The definition has no `spec` to build from.
    #[error("the stored definition has no `spec`")]
    NoSpec,
    /// Its family is neither built in nor registered by this program: a family defined
    /// outside the crate is known only where a program registers it.
    #[error(
        "its family {0:?} is not one this program knows (a family defined outside puzzlebase \
         is answered only by a program that registers it; known families: {1})"
    )]
    UnknownFamily(String, String),
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
    if !is_family(&spec.family) {
        return Err(RebuildError::UnknownFamily(spec.family, family_names()));
    }
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
                "permutation",
                "blocks",
                "rush-hour"
            ]
        );
        for f in FAMILIES {
            assert_eq!(family(f.name).unwrap().keys, f.keys);
        }
        assert!(family("hexagon").is_none());
    }
}
