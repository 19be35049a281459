//! The notation shared by puzzles of black and white pieces that are interchangeable
//! within a colour (knight-swap, oshidori): one character per cell, `B`, `W` or `-`.

use puzzlebase_core::rank::{comb_rank, comb_unrank};
use puzzlebase_core::space::StateError;

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

/// The cell a character stands for (either case), `None` unless `B`, `W` or `-`.
pub fn cell_of(ch: char) -> Option<u8> {
    match ch.to_ascii_uppercase() {
        'B' => Some(BLACK),
        'W' => Some(WHITE),
        '-' => Some(EMPTY),
        _ => None,
    }
}

/// Reads `cells` cells holding exactly `black` black and `white` white pieces (`piece`
/// names them in messages). Surrounding whitespace and letter case are ignored.
pub fn parse(
    text: &str,
    cells: usize,
    black: usize,
    white: usize,
    piece: &str,
) -> Result<Vec<u8>, StateError> {
    let t = text.trim();
    let n = t.chars().count();
    if n != cells {
        return Err(StateError::malformed(
            text,
            format!("expected {cells} characters (B, W or -), found {n}"),
        ));
    }
    let mut cells = vec![EMPTY; cells];
    for (i, ch) in t.chars().enumerate() {
        cells[i] = cell_of(ch).ok_or_else(|| {
            StateError::malformed(
                text,
                format!(
                    "unexpected character {:?} in cell {i}; use B, W or -",
                    ch.to_ascii_uppercase()
                ),
            )
        })?;
    }
    for (colour, name, wanted) in [(BLACK, 'B', black), (WHITE, 'W', white)] {
        let k = cells.iter().filter(|&&c| c == colour).count();
        if k != wanted {
            return Err(StateError::malformed(
                text,
                format!("expected {wanted} {name} {piece}, found {k}"),
            ));
        }
    }
    Ok(cells)
}

/// Colex rank of which pieces, taken in cell order, are black: the colour part of both
/// puzzles' ranks, in `0..C(pieces, black pieces)`.
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
