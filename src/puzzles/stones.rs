//! The notation shared by puzzles of black and white pieces that are interchangeable
//! within a colour (knight-swap, oshidori): one character per cell, `B`, `W` or `-`.

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
