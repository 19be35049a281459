//! A magic figure's definition: its numbers and lines, checked and built into a
//! [`Magic`] engine.

use super::{MAX_POSITIONS, Magic};
use crate::spec::{Problem, Spec, common, problem, required, source};
use crate::{Family, Puzzle};
use puzzlebase_core::definition::intern;

/// The `magic` family in the registry.
pub const FAMILY: Family = Family {
    name: "magic",
    keys: &["cells", "numbers", "lines"],
    build: |spec| Ok(Puzzle::Magic(magic(spec)?)),
};

pub fn magic(spec: &Spec) -> Result<Magic, Problem> {
    common(spec, FAMILY.keys)?;
    let numbers = required(&spec.numbers, "numbers", "the numbers to place")?;
    let n = numbers.len();
    if !(3..=MAX_POSITIONS).contains(&n) {
        return Err(problem(
            "numbers",
            format!(
                "{n} numbers; a magic figure has 3 to {} positions",
                MAX_POSITIONS
            ),
        ));
    }
    for (i, &d) in numbers.iter().enumerate() {
        if d > 9 || numbers[..i].contains(&d) {
            return Err(problem(
                "numbers",
                format!("the numbers must be distinct digits 0-9; {d} is not"),
            ));
        }
    }
    let lines = required(&spec.lines, "lines", "the lines with equal sums")?;
    if lines.len() < 2 {
        return Err(problem("lines", "a magic figure needs at least two lines"));
    }
    for line in lines {
        if line.iter().any(|&p| p >= n) || line.len() < 2 {
            return Err(problem(
                "lines",
                format!(
                    "line {line:?} must name at least two of the positions 0..={}",
                    n - 1
                ),
            ));
        }
        if (1..line.len()).any(|i| line[..i].contains(&line[i])) {
            return Err(problem(
                "lines",
                format!("line {line:?} names a position twice"),
            ));
        }
    }
    let cells = required(&spec.cells, "cells", "the positions' coordinates [x, y]")?;
    if cells.len() != n {
        return Err(problem(
            "cells",
            format!("{} coordinates for {n} positions", cells.len()),
        ));
    }
    let mut adjacency = vec![Vec::new(); n];
    for line in lines {
        for w in line.windows(2) {
            adjacency[w[0]].push(w[1]);
        }
    }
    let source = source(spec, cells.clone(), &adjacency);
    Ok(Magic::new(
        intern(&spec.name),
        numbers,
        lines.clone(),
        source,
    ))
}
