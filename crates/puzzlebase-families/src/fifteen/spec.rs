//! The definition of a square sliding grid answered by search: its partitions into
//! patterns, checked and built into a [`Fifteen`] engine.

use super::{Fifteen, Partition, TABLE_KINDS};
use crate::spec::{MoveRule, Problem, Spec, cell_graph, problem, required, source};
use puzzlebase_core::definition::intern;
use puzzlebase_solvers::pattern;

/// Most tiles of one pattern: a table of 8 tiles of 16 cells has 518,918,400 entries and
/// its breadth-first search 4,151,347,200 ranks (a byte each while building).
pub const MAX_PATTERN_TILES: usize = 8;

/// A square sliding grid too large to tabulate, answered by IDA* over additive pattern
/// databases: each partition must split the tiles into disjoint patterns covering every
/// tile once (so the tables' sum is admissible), and the grid must be square (the search
/// also looks the board up reflected about its main diagonal).
pub fn patterns(spec: &Spec) -> Result<Fifteen, Problem> {
    for (key, given) in [
        ("cells", spec.cells.is_some()),
        ("adjacency", spec.adjacency.is_some()),
        ("edges", spec.edges.is_some()),
        ("goal", spec.goal.is_some()),
        ("rank_order", spec.own.contains_key("rank_order")),
    ] {
        if given {
            return Err(problem(
                key,
                format!(
                    "a puzzle with `partitions` is a square grid given by `rows` and `cols` with the default goal; `{key}` does not apply"
                ),
            ));
        }
    }
    if spec.rule.is_some_and(|r| r != MoveRule::Orthogonal) {
        return Err(problem(
            "move",
            "a puzzle with `partitions` moves tiles by orthogonal steps",
        ));
    }
    let rows = *required(&spec.rows, "rows", "the side of the square grid")?;
    let cols = *required(&spec.cols, "cols", "the side of the square grid")?;
    if rows != cols || !(2..=4).contains(&rows) {
        return Err(problem(
            "rows",
            format!(
                "a puzzle with `partitions` is a square grid of 2x2 to 4x4 cells (pattern ranks need at most {} cells); this one is {rows}x{cols}",
                pattern::MAX_CELLS
            ),
        ));
    }
    let n = rows * cols;
    let parts = required(
        &spec.partitions,
        "partitions",
        "the patterns, by partition name",
    )?;
    if parts.is_empty() {
        return Err(problem("partitions", "`partitions` names no partition"));
    }
    let mut partitions = Vec::new();
    for (name, pats) in parts {
        let bad = |m: String| problem("partitions", format!("partition {name:?}: {m}"));
        if name.is_empty() {
            return Err(problem("partitions", "a partition's name is empty"));
        }
        if pats.is_empty() || pats.len() > TABLE_KINDS.len() {
            return Err(bad(format!(
                "{} patterns; a partition has 1 to {}",
                pats.len(),
                TABLE_KINDS.len()
            )));
        }
        let mut seen = vec![false; n];
        for (i, tiles) in pats.iter().enumerate() {
            if tiles.is_empty() || tiles.len() > MAX_PATTERN_TILES {
                return Err(bad(format!(
                    "pattern {i} has {} tiles; a pattern has 1 to {MAX_PATTERN_TILES}",
                    tiles.len()
                )));
            }
            for &t in tiles {
                if t == 0 || t as usize >= n {
                    return Err(bad(format!(
                        "pattern {i} names tile {t}; the tiles are 1..={}",
                        n - 1
                    )));
                }
                if std::mem::replace(&mut seen[t as usize], true) {
                    return Err(bad(format!(
                        "tile {t} is in more than one pattern (or twice in one); the patterns must be disjoint"
                    )));
                }
            }
            pattern::Pattern::new(pattern::Grid::new(rows, cols), tiles)
                .map_err(|e| bad(format!("pattern {i}: {e}")))?;
        }
        if let Some(t) = (1..n).find(|&t| !seen[t]) {
            return Err(bad(format!(
                "tile {t} is in no pattern; every tile must be in exactly one"
            )));
        }
        partitions.push(Partition {
            name: name.clone(),
            patterns: pats.clone(),
        });
    }
    let default = required(
        &spec.default_partition,
        "default_partition",
        "the partition `generate` builds",
    )?;
    if !parts.contains_key(default) {
        return Err(problem(
            "default_partition",
            format!(
                "default_partition {default:?} is not one of `partitions` ({})",
                parts.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let (coords, adjacency) = cell_graph(spec, Some(MoveRule::Orthogonal))?;
    Ok(Fifteen::new(
        intern(&spec.name),
        rows,
        partitions,
        vec![default.clone()],
        source(spec, coords, &adjacency),
    ))
}
