//! A Lights Out definition: the grid (`rows`, `cols`), the start and the storage, checked
//! and built into a [`Lights`] engine.

use super::{Lights, MAX_CELLS, grid_neighbours};
use crate::core::format::{self, GraphAsk};
use crate::families::spec::{Problem, Spec, common, graph_storage, problem, required, source};
use crate::families::{Family, Puzzle};

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
    // Above the line for a row per position the distances are two-bit codes: a row
    // per position would be tens of bytes each, and the counts of shortest press
    // orders (the distance's factorial times the fewest press sets) say little.
    let asked = match spec.storage.as_deref() {
        None if size.is_some_and(|s| s > format::PACK_ABOVE) => GraphAsk::TwoBit,
        None => GraphAsk::BySize,
        Some("two-bit") => GraphAsk::TwoBit,
        Some(other) => {
            return Err(problem(
                "storage",
                format!(
                    "storage {other:?}: Lights Out may ask for \"two-bit\" (distances modulo 4 or 3, two bits per position; the default above {} positions); leave it out otherwise",
                    format::PACK_ABOVE
                ),
            ));
        }
    };
    graph_storage(size, None, asked, "rows")?;
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
