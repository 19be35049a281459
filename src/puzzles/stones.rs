//! The notation shared by puzzles of black and white pieces that are interchangeable
//! within a colour (knight-swap, oshidori): one character per cell, `B`, `W` or `-`.

use crate::rank::{comb_rank, comb_unrank};
use crate::space::StateError;

pub const EMPTY: u8 = 0;
pub const BLACK: u8 = 1;
pub const WHITE: u8 = 2;

/// Writes cells as `B`, `W` and `-`.
pub fn format(cells: &[u8]) -> String {
    cells
        .iter()
        .map(|&c| match c {
            BLACK => 'B',
            WHITE => 'W',
            _ => '-',
        })
        .collect()
}

/// Reads `N` cells holding exactly `per_colour` pieces of each colour (`piece` names
/// them in messages). Surrounding whitespace and letter case are ignored.
pub fn parse<const N: usize>(
    text: &str,
    per_colour: usize,
    piece: &str,
) -> Result<[u8; N], StateError> {
    let t = text.trim();
    let n = t.chars().count();
    if n != N {
        return Err(StateError::malformed(
            text,
            format!("expected {N} characters (B, W or -), found {n}"),
        ));
    }
    let mut cells = [EMPTY; N];
    for (i, ch) in t.chars().enumerate() {
        cells[i] = match ch.to_ascii_uppercase() {
            'B' => BLACK,
            'W' => WHITE,
            '-' => EMPTY,
            other => {
                return Err(StateError::malformed(
                    text,
                    format!("unexpected character {other:?} in cell {i}; use B, W or -"),
                ));
            }
        };
    }
    for (colour, name) in [(BLACK, 'B'), (WHITE, 'W')] {
        let k = cells.iter().filter(|&&c| c == colour).count();
        if k != per_colour {
            return Err(StateError::malformed(
                text,
                format!("expected {per_colour} {name} {piece}, found {k}"),
            ));
        }
    }
    Ok(cells)
}

/// Colex rank of which pieces, taken in cell order, are black: the colour part of both
/// puzzles' ranks, in `0..C(pieces, per_colour)`.
pub fn colouring_rank(cells: &[u8]) -> u64 {
    let mut black = 0u64;
    for (k, &c) in cells.iter().filter(|&&c| c != EMPTY).enumerate() {
        if c == BLACK {
            black |= 1 << k;
        }
    }
    comb_rank(black)
}

/// Inverse of [`colouring_rank`]: colours the cells for which `occupied` holds, in cell
/// order, with `per_colour` black pieces chosen by `rank` and white ones elsewhere;
/// every other cell becomes empty.
pub fn colour(cells: &mut [u8], occupied: impl Fn(usize) -> bool, rank: u64, per_colour: usize) {
    let black = comb_unrank(rank, per_colour);
    let mut k = 0;
    for (i, cell) in cells.iter_mut().enumerate() {
        *cell = if !occupied(i) {
            EMPTY
        } else {
            k += 1;
            if black >> (k - 1) & 1 == 1 {
                BLACK
            } else {
                WHITE
            }
        };
    }
}
