//! A Tower of Hanoi definition: `pegs`, `discs`, optional `start`, `goal` and `storage`,
//! checked and built into a [`Hanoi`] engine.

use serde::Deserialize;

use super::{Hanoi, MAX_DISCS, MAX_PEGS, rank_space};
use crate::spec::{Problem, Spec, common, graph_ask, graph_storage, problem};
use crate::{Family, Puzzle};

/// The `hanoi` family in the registry.
pub const FAMILY: Family = Family {
    name: "hanoi",
    keys: &["pegs", "discs", "start", "goal", "storage"],
    build: |spec| Ok(Puzzle::Graph(Box::new(hanoi(spec)?))),
};

/// The family's own keys.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    pegs: Option<i64>,
    discs: Option<i64>,
}

pub fn hanoi(spec: &Spec) -> Result<Hanoi, Problem> {
    common(spec, FAMILY.keys)?;
    let keys: Keys = spec.own_keys(FAMILY.keys)?;
    let pegs = keys
        .pegs
        .ok_or_else(|| problem("pegs", "missing key `pegs` (the number of pegs, 3 or more)"))?;
    let discs = keys.discs.ok_or_else(|| {
        problem(
            "discs",
            "missing key `discs` (the number of discs, 1 or more)",
        )
    })?;
    if !(3..=MAX_PEGS as i64).contains(&pegs) {
        return Err(problem(
            "pegs",
            format!(
                "{pegs} pegs; the puzzle needs 3 to {MAX_PEGS} (with fewer than 3 a tower of two discs cannot move)"
            ),
        ));
    }
    if !(1..=MAX_DISCS as i64).contains(&discs) {
        return Err(problem(
            "discs",
            format!("{discs} discs; give 1 to {MAX_DISCS}"),
        ));
    }
    let (pegs, discs) = (pegs as usize, discs as usize);
    let size = rank_space(pegs, discs);
    let asked = graph_ask(spec, "the Tower of Hanoi")?;
    graph_storage(size, asked, "discs")?;
    // The drawing: the pegs in a row, any peg to any other.
    let coords: Vec<[f64; 2]> = (0..pegs).map(|p| [p as f64, 0.0]).collect();
    let adjacency: Vec<Vec<usize>> = (0..pegs)
        .map(|a| (0..pegs).filter(|&b| b != a).collect())
        .collect();
    let source = crate::spec::source(spec, coords, &adjacency);
    let mut h = Hanoi::new(&spec.name, pegs, discs, asked, source);
    if let Some(start) = &spec.start {
        h = h
            .with_start(start)
            .map_err(|e| problem("start", e.to_string()))?;
    }
    if let Some(goal) = &spec.goal {
        h = h
            .with_goal(goal)
            .map_err(|e| problem("goal", e.to_string()))?;
    }
    Ok(h)
}
