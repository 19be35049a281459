//! The definition of an oshidori row: its length, start and goal, checked and built into
//! an [`Oshidori`] engine.

use super::Oshidori;
use crate::spec::{
    Problem, Spec, common, graph_storage, problem, required, source, start_and_goal,
};
use crate::{Family, Puzzle};
use puzzlebase_core::format::GraphAsk;

/// The `oshidori` family in the registry.
pub const FAMILY: Family = Family {
    name: "oshidori",
    keys: &["length", "start", "goal"],
    build: |spec| Ok(Puzzle::Graph(Box::new(oshidori(spec)?))),
};

pub fn oshidori(spec: &Spec) -> Result<Oshidori, Problem> {
    common(spec, FAMILY.keys)?;
    let start = required(&spec.start, "start", "the start row, B/W/- per cell")?;
    let n = start.trim().chars().count();
    if let Some(len) = spec.length
        && len != n
    {
        return Err(problem(
            "length",
            format!("length is {len} but the start has {n} cells"),
        ));
    }
    if !(3..=super::MAX_CELLS).contains(&n) {
        return Err(problem(
            "start",
            format!(
                "a row has 3 to {} cells; this one has {n}",
                super::MAX_CELLS
            ),
        ));
    }
    let (start, goal, black, _) = start_and_goal(spec, n)?;
    for (key, text) in [("start", start), ("goal", goal)] {
        let t = text.trim();
        if t.matches('-').count() != 2 || !t.contains("--") {
            return Err(problem(
                key,
                format!("{key} {text:?} must have exactly two empty cells, side by side"),
            ));
        }
    }
    graph_storage(super::rank_space(n, black), GraphAsk::BySize, "start")?;
    let adjacency: Vec<Vec<usize>> = (0..n)
        .map(|i| {
            [i.checked_sub(1), (i + 1 < n).then_some(i + 1)]
                .into_iter()
                .flatten()
                .collect()
        })
        .collect();
    let source = source(spec, (0..n).map(|i| [i as f64, 0.0]).collect(), &adjacency);
    Oshidori::from_parts(&spec.name, start, goal, source)
        .map_err(|e| problem("start", e.to_string()))
}
