//! The definition of a tokens puzzle (knight-swap and its kin): the cell graph, start
//! and goal, checked and built into a [`KnightSwap`] engine.

use super::KnightSwap;
use crate::spec::{
    MoveRule, Problem, Spec, cell_graph, common, graph_storage, problem, source, start_and_goal,
};
use crate::{Family, Puzzle};
use puzzlebase_core::format::GraphAsk;

/// The `tokens` family in the registry.
pub const FAMILY: Family = Family {
    name: "tokens",
    keys: &[
        "rows",
        "cols",
        "cells",
        "adjacency",
        "edges",
        "move",
        "start",
        "goal",
    ],
    build: |spec| Ok(Puzzle::Graph(Box::new(tokens(spec)?))),
};

pub fn tokens(spec: &Spec) -> Result<KnightSwap, Problem> {
    common(spec, FAMILY.keys)?;
    let (coords, adjacency) = cell_graph(spec, None)?;
    let n = coords.len();
    let (start, goal, black, white) = start_and_goal(spec, n)?;
    graph_storage(
        super::rank_space(n, black, white),
        GraphAsk::BySize,
        "start",
    )?;
    let rule = spec
        .rule
        .map_or("the listed connections", MoveRule::describe);
    let source = source(spec, coords, &adjacency);
    KnightSwap::from_parts(&spec.name, adjacency, start, goal, rule, source)
        .map_err(|e| problem("start", e.to_string()))
}
