//! The rules a stored enumeration row must satisfy before `query` serves it: what the
//! row claims (its state, rank, value, canonical mark) is re-derived from the state text
//! alone. Each check costs about as much as formatting the answer.

use crate::families::magic::Magic;
use crate::families::magic::format_magic;
use crate::families::tour::TourBoard;
use crate::families::tour::{format_tour, is_canonical_direction};
use crate::store::SolutionRow;

/// A canonical magic-triangle row: nine distinct digits in the notation, equal sides
/// summing to the stored value, the rank of those digits, and the representative of its
/// class.
pub fn magic_row(m: &Magic, r: &SolutionRow) -> Result<(), String> {
    let digits = m
        .parse(&r.state)
        .map_err(|e| format!("stored row {}: {e}", r.rank))?;
    let sum = m.side_sum(&digits);
    if sum.is_none() || sum != r.value {
        return Err(format!(
            "{} does not have equal sides summing to its stored {:?}",
            r.state, r.value
        ));
    }
    if m.rank(&digits) != r.rank || format_magic(&digits) != r.state {
        return Err(format!(
            "{} is not the arrangement of rank {}",
            r.state, r.rank
        ));
    }
    if !m.is_canonical(&digits) {
        return Err(format!("{} is not its class's representative", r.state));
    }
    Ok(())
}

/// A canonical knight-tour row: a closed tour of the board from square 0 (every square
/// once, every step and the return a knight move), written as stored, in the canonical
/// direction.
pub fn tour_row(board: &TourBoard, r: &SolutionRow) -> Result<(), String> {
    let tour = board
        .parse_tour(&r.state)
        .map_err(|e| format!("stored row {} is not a closed tour: {e}", r.rank))?;
    if format_tour(&tour) != r.state || !is_canonical_direction(&tour) {
        return Err(format!(
            "{} is not a tour from square 0 in the canonical direction",
            r.state
        ));
    }
    Ok(())
}
