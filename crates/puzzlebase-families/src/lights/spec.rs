//! A Lights Out definition: the grid (`rows`, `cols`), the start and the storage, checked
//! and built into a [`Lights`] engine.

use super::{Lights, MAX_CELLS, grid_neighbours};
use crate::spec::{Problem, Spec, common, graph_ask, graph_storage, problem, required, source};
use crate::{Family, Puzzle};

/// The `lights` family in the registry.
pub const FAMILY: Family = Family {
    name: "lights",
    keys: &["rows", "cols", "start", "storage"],
    build: |spec| Ok(Puzzle::Graph(Box::new(lights(spec)?))),
};

pub fn lights(spec: &Spec) -> Result<Lights, Problem> {
    common(spec, FAMILY.keys)?;
    let rows = *required(&spec.rows, "rows", "the grid's number of rows")?;
    let cols = *required(&spec.cols, "cols", "the grid's number of columns")?;
    if rows == 0 || cols == 0 || rows.checked_mul(cols).is_none_or(|n| n > MAX_CELLS) {
        return Err(problem(
            "rows",
            format!("a {rows}x{cols} grid is not 1 to {MAX_CELLS} lights"),
        ));
    }
    let span = super::Span::grid(rows, cols);
    let size = 1u64
        .checked_shl(span.dimension() as u32)
        .filter(|_| span.dimension() < 64);
    let asked = graph_ask(spec, "Lights Out")?;
    graph_storage(size, asked, "rows")?;
    let coords: Vec<[f64; 2]> = (0..rows * cols)
        .map(|i| [(i % cols) as f64, (i / cols) as f64])
        .collect();
    let adjacency: Vec<Vec<usize>> = (0..rows * cols)
        .map(|c| grid_neighbours(rows, cols, c))
        .collect();
    let source = source(spec, coords, &adjacency);
    Lights::new(
        &spec.name,
        rows,
        cols,
        spec.start.as_deref(),
        asked,
        source,
    )
    .map_err(|e| {
        problem(
            "start",
            match spec.start {
                Some(_) => e.to_string(),
                None => "every light on (the default start) cannot be turned off on this grid; give a `start` that can".to_string(),
            },
        )
    })
}
