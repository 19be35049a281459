//! Boards as lines of text, placed by the same [`Layout`] the page draws from: the peg
//! cross and triangles in their shapes, sliding grids as grids. Also the text bars of a
//! histogram. Plain strings; the caller decides where they go.

use crate::families::layout::Layout;

/// What a cell shows, from its token in the position's notation and the family.
fn glyph(family: &str, token: &str) -> String {
    match (family, token) {
        ("peg", "1") => "●".into(),
        ("peg", _) => "○".into(),
        ("sliding", "0") | ("rush-hour", "o") | (_, "-") => "·".into(),
        ("lights", "1") => "■".into(),
        ("lights", _) => "□".into(),
        _ => token.to_string(),
    }
}

/// The smallest gap between distinct coordinates (1 when all are equal).
fn step(values: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    let gap = v
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|&d| d > 1e-6)
        .fold(f64::INFINITY, f64::min);
    if gap.is_finite() { gap } else { 1.0 }
}

/// The position `state` of a puzzle of `family` drawn on its layout. Tours are drawn
/// as the visiting order of each square.
pub fn board(family: &str, layout: &Layout, state: &str) -> Vec<String> {
    if family == "hanoi" {
        return pegs(layout.cells.len(), state);
    }
    let toks = crate::answers::cell_tokens(state);
    let n = layout.cells.len();
    let shown: Vec<String> = if family == "tour" {
        // The tour lists squares in visiting order; show each square's turn.
        let mut order = vec![String::from("?"); n];
        for (turn, t) in toks.iter().enumerate() {
            if let Some(s) = t.parse::<usize>().ok().filter(|&s| s < n) {
                order[s] = turn.to_string();
            }
        }
        order
    } else {
        (0..n)
            .map(|i| glyph(family, toks.get(i).copied().unwrap_or("?")))
            .collect()
    };
    if n == 0 {
        return Vec::new();
    }
    let dx = step(layout.cells.iter().map(|c| c[0]));
    let dy = step(layout.cells.iter().map(|c| c[1]));
    let min_x = layout
        .cells
        .iter()
        .map(|c| c[0])
        .fold(f64::INFINITY, f64::min);
    let min_y = layout
        .cells
        .iter()
        .map(|c| c[1])
        .fold(f64::INFINITY, f64::min);
    let widest = shown.iter().map(|s| s.chars().count()).max().unwrap_or(1);
    // Half-step lattices (triangles, the hexagon) already interleave their rows, so a
    // column per half step is enough room for one-character cells.
    let half = layout
        .cells
        .iter()
        .any(|c| (((c[0] - min_x) / dx).round() as i64) % 2 == 1);
    let width = if half && widest == 1 { 2 } else { widest + 1 };
    let place: Vec<(usize, usize)> = layout
        .cells
        .iter()
        .map(|c| {
            (
                ((c[1] - min_y) / dy).round() as usize,
                ((c[0] - min_x) / dx).round() as usize,
            )
        })
        .collect();
    let rows = place.iter().map(|p| p.0).max().unwrap_or(0) + 1;
    let cols = place.iter().map(|p| p.1).max().unwrap_or(0) + 1;
    let mut grid = vec![vec![String::new(); cols]; rows];
    for (i, &(r, c)) in place.iter().enumerate() {
        grid[r][c] = shown[i].clone();
    }
    grid.into_iter()
        .map(|row| {
            let line: String = row
                .iter()
                .map(|s| format!("{s:>width$}"))
                .collect::<String>();
            line.trim_end().to_string()
        })
        .collect()
}

/// The Tower of Hanoi: `pegs` columns, each disc (the notation lists each disc's peg,
/// the largest first) drawn as its size in a column of its peg, the largest at the
/// bottom, the peg letters underneath.
fn pegs(pegs: usize, state: &str) -> Vec<String> {
    let n = state.chars().count();
    let width = n.to_string().len() + 1;
    let mut stacks: Vec<Vec<usize>> = vec![Vec::new(); pegs];
    for (i, c) in state.chars().enumerate() {
        let p = (c as usize).wrapping_sub('A' as usize);
        if p < pegs {
            stacks[p].push(n - i);
        }
    }
    let height = stacks.iter().map(Vec::len).max().unwrap_or(0);
    let mut lines: Vec<String> = (0..height)
        .rev()
        .map(|level| {
            let line: String = (stacks.iter())
                .map(|s| match s.get(level) {
                    Some(size) => format!("{size:>width$}"),
                    None => format!("{:>width$}", "|"),
                })
                .collect();
            line.trim_end().to_string()
        })
        .collect();
    lines.push(
        (0..pegs)
            .map(|p| format!("{:>width$}", (b'A' + p as u8) as char))
            .collect(),
    );
    lines
}

/// One bar of `width` characters at most per count, scaled to the largest.
pub fn bars(counts: &[u64], width: usize) -> Vec<String> {
    let max = counts.iter().copied().max().unwrap_or(0).max(1);
    counts
        .iter()
        .map(|&n| {
            let len = (n as f64 / max as f64 * width as f64).round() as usize;
            // A non-zero count always shows.
            "█".repeat(if n > 0 { len.max(1) } else { 0 })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog;
    use crate::families::layout::layout;

    fn draw(name: &str, state: &str) -> Vec<String> {
        let p = catalog::find(name).unwrap();
        board(p.family(), &layout(&p).unwrap(), state)
    }

    #[test]
    fn sliding_grids_are_grids() {
        assert_eq!(draw("eight", "867254301"), [" 8 6 7", " 2 5 4", " 3 · 1"]);
        assert_eq!(
            draw("eleven", "0,3,2,1,8,7,6,5,4,11,10,9"),
            ["  ·  3  2  1", "  8  7  6  5", "  4 11 10  9"]
        );
    }

    #[test]
    fn peg_boards_keep_their_shape() {
        let lines = draw("chinese-checkers", "111111111111011");
        assert_eq!(
            lines,
            [
                "         ●",
                "       ●   ●",
                "     ●   ●   ●",
                "   ●   ●   ●   ●",
                " ●   ●   ○   ●   ●"
            ]
        );
        let cross = draw("english33", "111111111111111101111111111111111");
        assert_eq!(cross.len(), 7);
        assert_eq!(cross[0], "     ● ● ●");
        assert_eq!(cross[3], " ● ● ● ○ ● ● ●");
    }

    #[test]
    fn hexagon_and_row() {
        // data/puzzles/six.toml draws the hexagon with a corner up: cell 0 on top,
        // 3 in the middle, rows half a cell apart.
        assert_eq!(
            draw("six", "1526340"),
            ["   1", " 5   2", "   6", " 3   4", "   ·"]
        );
        assert_eq!(draw("oshidori", "BWBWBW--"), [" B W B W B W · ·"]);
    }

    #[test]
    fn lights_and_pegs() {
        assert_eq!(
            draw("lights-out-3", "010111010"),
            [" □ ■ □", " ■ ■ ■", " □ ■ □"]
        );
        // Discs 7, 6 and 3 on A, 4 on B, 5, 2 and 1 on C.
        assert_eq!(
            draw("hanoi-3", "AACBACC"),
            [" 3 | 1", " 6 | 2", " 7 4 5", " A B C"]
        );
    }

    #[test]
    fn bars_scale_to_the_largest() {
        assert_eq!(bars(&[0, 1, 10], 10), ["", "█", "██████████"]);
    }
}
