//! A tour board's definition: its rectangle and missing squares, checked and built into
//! a [`TourBoard`].

use super::TourBoard;
use crate::spec::{MoveRule, Problem, Spec, common, problem, required};
use crate::{Family, Puzzle};
use puzzlebase_core::definition::intern;

/// The `tour` family in the registry.
pub const FAMILY: Family = Family {
    name: "tour",
    keys: &["rows", "cols", "missing", "move"],
    build: |spec| Ok(Puzzle::Tour(tour(spec)?)),
};

/// Most squares of a tour board: the number of tours grows too fast beyond (an 8x8
/// board has about 1.3 x 10^13 closed tours).
pub const MAX_TOUR_SQUARES: usize = 40;

pub fn tour(spec: &Spec) -> Result<TourBoard, Problem> {
    common(spec, FAMILY.keys)?;
    if spec.rule.is_some_and(|r| r != MoveRule::Knight) {
        return Err(problem("move", "tours are enumerated for the knight only"));
    }
    let rows = *required(&spec.rows, "rows", "the board's rows")?;
    let cols = *required(&spec.cols, "cols", "the board's columns")?;
    let mut missing = Vec::new();
    for &[r, c] in spec.missing.iter().flatten() {
        if r >= rows || c >= cols {
            return Err(problem(
                "missing",
                format!("missing square [{r}, {c}] is not on the {rows}x{cols} board"),
            ));
        }
        if !missing.contains(&(r, c)) {
            missing.push((r, c));
        }
    }
    let squares = (rows * cols).saturating_sub(missing.len());
    if squares == 0 || squares > MAX_TOUR_SQUARES {
        return Err(problem(
            "rows",
            format!(
                "the board has {squares} squares; tour boards have 1 to {MAX_TOUR_SQUARES} (the number of tours grows too fast beyond)"
            ),
        ));
    }
    Ok(TourBoard {
        name: intern(&spec.name),
        rows,
        cols,
        missing,
    })
}
