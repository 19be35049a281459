//! A stored puzzle's identity: which generator and which definition made its tables
//! ([`definition_hash`]), and the one staleness rule every reader and the build apply.

use sha2::{Digest, Sha256};

use crate::Puzzle;
use crate::fifteen::Fifteen;
use crate::registry;
use puzzlebase_core::digest::sha256_hex;
use puzzlebase_core::records::PuzzleInfo;

/// Changes whenever the solvers' output for an unchanged definition may change; part of
/// every definition hash, so a new generator recomputes everything once.
pub const GENERATOR_VERSION: &str =
    concat!("puzzlebase ", env!("CARGO_PKG_VERSION"), " / tables 5");

/// sha256 of the generator version, the puzzle's name and its definition.
pub fn definition_hash(p: &Puzzle) -> String {
    definition_hash_of(p.name(), &p.definition().to_string())
}

/// [`definition_hash`] of the puzzle `name` whose definition is `definition` (as
/// written out), for a caller that has written it out already.
pub fn definition_hash_of(name: &str, definition: &str) -> String {
    let mut h = Sha256::new();
    h.update(GENERATOR_VERSION.as_bytes());
    h.update(b"\n");
    h.update(name.as_bytes());
    h.update(b"\n");
    h.update(definition.as_bytes());
    sha256_hex(h)
}

/// The puzzle whose tables a stored row describes. Which partitions' tables a
/// pattern-database puzzle built is part of its definition, so `fifteen` is narrowed to
/// what the stored definition says was built (when this build makes exactly that
/// definition); every other puzzle is the puzzle itself.
pub fn as_stored(p: Puzzle, info: &PuzzleInfo) -> Puzzle {
    if p.as_patterns().is_none() {
        return p;
    }
    stored_fifteen(&info.definition).map_or(p, Puzzle::Patterns)
}

/// The `fifteen` a stored definition describes (its spec, and which partitions it
/// built), if this build makes exactly that definition from it.
pub fn stored_fifteen(text: &str) -> Option<Fifteen> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let names: Vec<String> = (v["build"].as_array()?.iter())
        .map(|n| n.as_str().map(str::to_string))
        .collect::<Option<_>>()?;
    let f = registry::from_definition(&v).ok()?.into_patterns()?;
    let f = f.building(&names).ok()?;
    (f.definition() == v).then_some(f)
}

/// Whether `info`'s tables were built by this generator from exactly `p`'s definition:
/// the rule `generate` uses to reuse a puzzle instead of recomputing it.
pub fn built_from(p: &Puzzle, info: &PuzzleInfo) -> bool {
    info.definition_hash == definition_hash(p)
}

/// Whether a stored puzzle may be answered from: its tables were built by this
/// generator from `p`'s definition, as stored ([`as_stored`]: for `fifteen`, any of the
/// partitions this build knows). Readers (`query`, `serve`, `verify`) apply this rule.
pub fn is_current(p: &Puzzle, info: &PuzzleInfo) -> bool {
    if p.as_patterns().is_some() {
        stored_fifteen(&info.definition).is_some_and(|f| built_from(&Puzzle::Patterns(f), info))
    } else {
        built_from(p, info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use puzzlebase_core::records::Storage;

    fn info(p: &Puzzle, hash: String) -> PuzzleInfo {
        PuzzleInfo {
            name: p.name().to_string(),
            family: p.family().to_string(),
            definition: p.definition().to_string(),
            storage: Storage::Positions,
            counts: true,
            states: 0,
            solvable: 0,
            max_distance: None,
            generated_at: String::new(),
            definition_hash: hash,
            checksum: String::new(),
            seconds: 0.0,
        }
    }

    #[test]
    fn a_puzzle_is_current_only_for_its_own_definition_and_generator() {
        let six = crate::catalog::find("six").unwrap();
        let seven = crate::catalog::find("seven").unwrap();
        assert!(is_current(&six, &info(&six, definition_hash(&six))));
        assert!(built_from(&six, &info(&six, definition_hash(&six))));
        assert!(!is_current(&six, &info(&six, definition_hash(&seven))));
        assert!(!is_current(&six, &info(&six, "0".repeat(64))));
    }

    #[test]
    fn fifteen_is_current_for_any_partition_this_build_knows_but_rebuilt_only_for_its_own() {
        let f = (crate::catalog::find("fifteen").and_then(Puzzle::into_patterns))
            .expect("fifteen is built in");
        let other: Vec<String> = (f.partitions().iter())
            .map(|p| p.name.clone())
            .filter(|n| !f.built().iter().any(|b| &b.name == n))
            .take(1)
            .collect();
        let wider = Puzzle::Patterns(f.building(&other).unwrap());
        let stored = info(&wider, definition_hash(&wider));
        let default = Puzzle::Patterns(f);
        assert!(is_current(&default, &stored));
        assert!(!built_from(&default, &stored));
        assert_eq!(as_stored(default, &stored).definition(), wider.definition());
    }
}
