//! A sliding puzzle's definition: its cell graph and goal (and, optionally, the order its
//! rank reads the cells in), checked and built into a [`Sliding`] engine.

use serde::Deserialize;

use super::{MAX_CELLS, Sliding, parse_values};
use crate::spec::{
    MoveRule, Problem, Spec, cell_graph, common, graph_ask, graph_storage, problem, source,
};
use crate::{Family, Puzzle};
use puzzlebase_core::space::StateSpace;

/// The `sliding` family in the registry.
pub const FAMILY: Family = Family {
    name: "sliding",
    keys: &[
        "rows",
        "cols",
        "cells",
        "adjacency",
        "edges",
        "move",
        "goal",
        "storage",
        "partitions",
        "default_partition",
        "rank_order",
    ],
    build: |spec| {
        Ok(if spec.partitions.is_some() {
            common(spec, FAMILY.keys)?;
            Puzzle::Patterns(crate::fifteen::spec::patterns(spec)?)
        } else {
            Puzzle::Graph(Box::new(sliding(spec)?))
        })
    },
};

/// The family's own keys.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    /// The cells in the order the rank reads them (see [`Sliding::with_rank_order`]).
    rank_order: Option<Vec<i64>>,
}

pub fn sliding(spec: &Spec) -> Result<Sliding, Problem> {
    common(spec, FAMILY.keys)?;
    let keys: Keys = spec.own_keys(FAMILY.keys)?;
    if spec.default_partition.is_some() {
        return Err(problem(
            "default_partition",
            "`default_partition` needs `partitions` (the patterns of a puzzle answered by search)",
        ));
    }
    let (coords, adjacency) = cell_graph(spec, Some(MoveRule::Orthogonal))?;
    let n = coords.len();
    if !(2..=MAX_CELLS).contains(&n) {
        return Err(problem(
            if spec.cells.is_some() {
                "cells"
            } else {
                "rows"
            },
            format!(
                "a sliding puzzle has 2 to {} cells; this one has {n}",
                MAX_CELLS
            ),
        ));
    }
    let goal: Vec<u8> = match &spec.goal {
        None => (1..n as u8).chain([0]).collect(),
        Some(text) => parse_values(text, n).map_err(|e| {
            problem(
                "goal",
                format!(
                    "the goal is not a permutation of the tiles 0..={}: {e}",
                    n - 1
                ),
            )
        })?,
    };
    // The rank space: (n-1)! arrangements of the tiles (half of them on a bipartite
    // graph) times n blank cells.
    let adj8: Vec<Vec<u8>> = adjacency
        .iter()
        .map(|l| l.iter().map(|&c| c as u8).collect())
        .collect();
    let asked = graph_ask(spec, "a sliding puzzle")?;
    let p = match keys.rank_order {
        None => Sliding::new(&spec.name, adj8, goal),
        Some(order) => Sliding::with_rank_order(&spec.name, adj8, goal, rank_order(&order, n)?),
    }
    .with_storage(asked);
    graph_storage(
        Some(p.size()),
        asked,
        if spec.cells.is_some() {
            "cells"
        } else {
            "rows"
        },
    )?;
    let source = source(spec, coords, &adjacency);
    Ok(p.with_source(source))
}

/// The definition's `rank_order` checked: every cell `0..n` once.
fn rank_order(order: &[i64], n: usize) -> Result<Vec<u8>, Problem> {
    let why = |m: String| {
        problem(
            "rank_order",
            format!(
                "{m}; `rank_order` lists every cell 0..={} once, in the order the rank reads them",
                n - 1
            ),
        )
    };
    if order.len() != n {
        return Err(why(format!(
            "{} cells listed, the board has {n}",
            order.len()
        )));
    }
    let mut seen = vec![false; n];
    for &c in order {
        match usize::try_from(c).ok().filter(|&c| c < n) {
            None => return Err(why(format!("cell {c} does not exist"))),
            Some(c) if seen[c] => return Err(why(format!("cell {c} is listed twice"))),
            Some(c) => seen[c] = true,
        }
    }
    Ok(order.iter().map(|&c| c as u8).collect())
}
