//! The rules a stored enumeration row must satisfy before `query` serves it: what the
//! row claims (its state, rank, value, canonical mark) is re-derived from the state text
//! alone. Each check costs about as much as formatting the answer.

use thiserror::Error;

use crate::core::space::StateError;
use crate::families::magic::Magic;
use crate::families::magic::format_magic;
use crate::families::tour::TourBoard;
use crate::families::tour::{format_tour, is_canonical_direction};
use crate::store::SolutionRow;

/// A stored enumeration row that breaks its puzzle's rule.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RowError {
    /// The state is not an arrangement of the figure.
    #[error("stored row {rank}: {source}")]
    Arrangement {
        /// The row's stored rank.
        rank: u64,
        /// Why the state does not parse.
        source: StateError,
    },
    /// The arrangement's sides are unequal or do not sum to the stored value.
    #[error("{state} does not have equal sides summing to its stored {value:?}")]
    Sums {
        /// The stored state.
        state: String,
        /// The stored value.
        value: Option<i64>,
    },
    /// The stored rank is not the arrangement's, or the state is not written as the
    /// rank's arrangement is.
    #[error("{state} is not the arrangement of rank {rank}")]
    Rank {
        /// The stored state.
        state: String,
        /// The stored rank.
        rank: u64,
    },
    /// The arrangement is not the one its class is stored as.
    #[error("{state} is not its class's representative")]
    Representative {
        /// The stored state.
        state: String,
    },
    /// The state is not a closed tour of the board.
    #[error("stored row {rank} is not a closed tour: {source}")]
    Tour {
        /// The row's stored rank.
        rank: u64,
        /// Why the state is no tour.
        source: StateError,
    },
    /// The tour does not start at square 0, is not written as stored, or runs against
    /// the canonical direction.
    #[error("{state} is not a tour from square 0 in the canonical direction")]
    Direction {
        /// The stored state.
        state: String,
    },
    /// The puzzle stores no enumeration, so no row of it can be served as one.
    #[error("not an enumeration puzzle")]
    NotEnumeration,
}

/// A canonical magic-triangle row: nine distinct digits in the notation, equal sides
/// summing to the stored value, the rank of those digits, and the representative of its
/// class.
pub fn magic_row(m: &Magic, r: &SolutionRow) -> Result<(), RowError> {
    let digits = m.parse(&r.state).map_err(|source| RowError::Arrangement {
        rank: r.rank,
        source,
    })?;
    let sum = m.side_sum(&digits);
    if sum.is_none() || sum != r.value {
        return Err(RowError::Sums {
            state: r.state.clone(),
            value: r.value,
        });
    }
    if m.rank(&digits) != r.rank || format_magic(&digits) != r.state {
        return Err(RowError::Rank {
            state: r.state.clone(),
            rank: r.rank,
        });
    }
    if !m.is_canonical(&digits) {
        return Err(RowError::Representative {
            state: r.state.clone(),
        });
    }
    Ok(())
}

/// A canonical knight-tour row: a closed tour of the board from square 0 (every square
/// once, every step and the return a knight move), written as stored, in the canonical
/// direction.
pub fn tour_row(board: &TourBoard, r: &SolutionRow) -> Result<(), RowError> {
    let tour = board
        .parse_tour(&r.state)
        .map_err(|source| RowError::Tour {
            rank: r.rank,
            source,
        })?;
    if format_tour(&tour) != r.state || !is_canonical_direction(&tour) {
        return Err(RowError::Direction {
            state: r.state.clone(),
        });
    }
    Ok(())
}
