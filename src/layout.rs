//! Board geometry for drawing: where each cell, hole or square sits and which of them
//! are joined, in the puzzle's own index order. The page and the terminal boards read
//! only this shape (`{"cells": [[x, y], ...], "edges": [[a, b], ...]}`), so its source
//! can move into the stored definitions without touching them.
//!
//! Coordinates are in board units: neighbouring cells of a square grid are 1 apart,
//! `y` grows downwards. Triangular boards use `x` in half units of their rows so that
//! every cell of a row sits between the two cells above it.

use serde::Serialize;

use crate::enumerate::magic;
use crate::peg::Board;
use crate::puzzles::Puzzle;

/// Positions of the cells and the connections between them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Layout {
    /// `[x, y]` per cell, in index order.
    pub cells: Vec<[f64; 2]>,
    /// Pairs of joined cells, each once, smaller index first.
    pub edges: Vec<[usize; 2]>,
}

/// Height of a row of a triangular lattice whose neighbours are 1 apart.
const ROW: f64 = 0.866_025_403_784_438_6;

/// The geometry of `p`.
pub fn layout(p: &Puzzle) -> Layout {
    match p {
        Puzzle::Graph(g) => {
            let def = g.definition();
            let cells = graph_cells(g.name(), g.size());
            // The sliding cell graph and the knight graph are in the definitions; a
            // puzzle without one (the oshidori row) is a line of cells.
            let edges = match def.get("adjacency") {
                Some(adj) => adjacency_edges(adj),
                None => (1..cells.len()).map(|i| [i - 1, i]).collect(),
            };
            Layout { cells, edges }
        }
        Puzzle::Peg(b) => peg(b),
        Puzzle::Magic => {
            // Positions 0..8 round the triangle: 0 at the top, 3 and 6 the bottom corners.
            // Each side's two middle positions split it in thirds.
            let cells = vec![
                [1.5, 0.0],
                [1.0, ROW],
                [0.5, 2.0 * ROW],
                [0.0, 3.0 * ROW],
                [1.0, 3.0 * ROW],
                [2.0, 3.0 * ROW],
                [3.0, 3.0 * ROW],
                [2.5, 2.0 * ROW],
                [2.0, ROW],
            ];
            let mut edges = Vec::new();
            for side in magic::SIDES {
                for w in side.windows(2) {
                    edges.push(ordered(w[0], w[1]));
                }
            }
            Layout { cells, edges }
        }
        Puzzle::Tour(t) => {
            let cells = t
                .cells()
                .into_iter()
                .map(|(r, c)| [c as f64, r as f64])
                .collect();
            let edges = pairs(t.adjacency().iter().map(|a| a.iter().map(|&s| s as usize)));
            Layout { cells, edges }
        }
    }
}

fn ordered(a: usize, b: usize) -> [usize; 2] {
    [a.min(b), a.max(b)]
}

/// Each `a < b` pair of an adjacency list once, in order.
fn pairs<I: IntoIterator<Item = usize>>(adj: impl Iterator<Item = I>) -> Vec<[usize; 2]> {
    let mut out: Vec<[usize; 2]> = adj
        .enumerate()
        .flat_map(|(a, nbs)| nbs.into_iter().filter(move |&b| a < b).map(move |b| [a, b]))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn adjacency_edges(adj: &serde_json::Value) -> Vec<[usize; 2]> {
    let lists = adj.as_array().cloned().unwrap_or_default();
    pairs(lists.iter().map(|l| {
        l.as_array()
            .map(|a| a.iter().filter_map(|v| v.as_u64()).map(|v| v as usize))
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
    }))
}

/// Cell positions of the move-graph puzzles, by name (their definitions say the shape
/// in words and adjacency lists, not in coordinates).
fn graph_cells(name: &str, size: u64) -> Vec<[f64; 2]> {
    let grid = |rows: usize, cols: usize| -> Vec<[f64; 2]> {
        (0..rows * cols)
            .map(|i| [(i % cols) as f64, (i / cols) as f64])
            .collect()
    };
    match name {
        // Seed 004's figure: two cells, three, two, each row offset by half a cell.
        "six" => vec![
            [0.5, 0.0],
            [1.5, 0.0],
            [0.0, ROW],
            [1.0, ROW],
            [2.0, ROW],
            [0.5, 2.0 * ROW],
            [1.5, 2.0 * ROW],
        ],
        "seven" => grid(2, 4),
        "eight" => grid(3, 3),
        "nine" => grid(2, 5),
        "eleven" => grid(3, 4),
        "fifteen" => grid(4, 4),
        "knight-swap" => grid(4, 3),
        "oshidori" => grid(1, 8),
        // An unknown move puzzle: a row of cells, one per character of its goal.
        _ => grid(1, size.min(16) as usize),
    }
}

/// Hole positions of a peg board and the lines its jumps run along.
fn peg(b: &Board) -> Layout {
    let cells: Vec<[f64; 2]> = match (b.name, &b.coordinates) {
        (_, Some(c)) => c.iter().map(|&(r, c)| [c as f64, r as f64]).collect(),
        // Rows of 1..5 holes, each centred under the one above.
        ("chinese-checkers", None) => (0..5)
            .flat_map(|r| (0..=r).map(move |k| [2.0 + k as f64 - r as f64 / 2.0, r as f64 * ROW]))
            .collect(),
        // A 5x5 square with every other point: rows 3, 2, 3, 2, 3 (diagonal jumps).
        ("hoppers", None) => [
            (0, 0),
            (0, 2),
            (0, 4),
            (1, 1),
            (1, 3),
            (2, 0),
            (2, 2),
            (2, 4),
            (3, 1),
            (3, 3),
            (4, 0),
            (4, 2),
            (4, 4),
        ]
        .iter()
        .map(|&(r, c)| [c as f64, r as f64])
        .collect(),
        // Seed 002's modified triangle, solved from its jump table on a triangular
        // lattice: two corner holes, a row of seven, then rows of 4, 3, 2, 1 and two
        // feet. `x` is in half-cell units.
        ("triangle21", None) => [
            (5, -1),
            (6, 0),
            (4, 0),
            (2, 0),
            (3, 1),
            (0, 0),
            (1, 1),
            (2, 2),
            (-2, 0),
            (-1, 1),
            (0, 2),
            (1, 3),
            (-5, -1),
            (-4, 0),
            (-3, 1),
            (-2, 2),
            (-1, 3),
            (0, 4),
            (1, 5),
            (-6, 0),
            (-1, 5),
        ]
        .iter()
        .map(|&(x, y)| [(x + 6) as f64 / 2.0, (y + 1) as f64 * ROW])
        .collect(),
        // A board without known geometry: holes on a line.
        _ => (0..b.holes).map(|i| [i as f64, 0.0]).collect(),
    };
    let mut edges: Vec<[usize; 2]> = b
        .jumps
        .iter()
        .flat_map(|j| {
            [
                ordered(j.from as usize, j.over as usize),
                ordered(j.over as usize, j.to as usize),
            ]
        })
        .collect();
    edges.sort_unstable();
    edges.dedup();
    Layout { cells, edges }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzles;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// Every jump of every tabulated board runs along a straight line in equal steps,
    /// and every hole has its own place: the drawing agrees with the rules.
    #[test]
    fn peg_jumps_are_straight_and_even() {
        for b in crate::peg::boards() {
            let l = peg(&b);
            assert_eq!(l.cells.len(), b.holes, "{}", b.name);
            for j in &b.jumps {
                let [f, o, t] = [j.from, j.over, j.to].map(|h| l.cells[h as usize]);
                assert!(
                    close(f[0] + t[0], 2.0 * o[0]) && close(f[1] + t[1], 2.0 * o[1]),
                    "{}: jump {j:?}",
                    b.name
                );
                let step = ((o[0] - f[0]).powi(2) + (o[1] - f[1]).powi(2)).sqrt();
                assert!(
                    step > 0.5 && step < 2.01,
                    "{}: jump {j:?} step {step}",
                    b.name
                );
            }
            for i in 0..l.cells.len() {
                for k in 0..i {
                    assert!(l.cells[i] != l.cells[k], "{}: holes {k} and {i}", b.name);
                }
            }
        }
    }

    /// Joined cells of the sliding puzzles are exactly one unit apart, and the edges are
    /// the puzzle's adjacency.
    #[test]
    fn every_layout_has_a_place_per_cell_and_unit_edges() {
        for p in puzzles::registry() {
            let l = layout(&p);
            let def = p.definition();
            let n = match &p {
                Puzzle::Graph(g) if g.family() == "sliding" => {
                    def["adjacency"].as_array().unwrap().len()
                }
                Puzzle::Graph(_) if p.name() == "knight-swap" => 12,
                Puzzle::Graph(_) => 8,
                Puzzle::Peg(b) => b.holes,
                Puzzle::Magic => 9,
                Puzzle::Tour(t) => t.squares(),
            };
            assert_eq!(l.cells.len(), n, "{}", p.name());
            assert!(l.edges.iter().all(|&[a, b]| a < b && b < n), "{}", p.name());
            if p.family() == "sliding" {
                let adj = def["adjacency"].as_array().unwrap();
                let count: usize = adj.iter().map(|a| a.as_array().unwrap().len()).sum();
                assert_eq!(l.edges.len() * 2, count, "{}", p.name());
                for &[a, b] in &l.edges {
                    let d = ((l.cells[a][0] - l.cells[b][0]).powi(2)
                        + (l.cells[a][1] - l.cells[b][1]).powi(2))
                    .sqrt();
                    assert!(close(d, 1.0), "{}: {a}-{b} at {d}", p.name());
                }
            }
        }
    }

    #[test]
    fn knight_swap_edges_are_knight_moves() {
        let p = puzzles::find("knight-swap").unwrap();
        let l = layout(&p);
        assert_eq!(l.edges.len(), 14);
        for &[a, b] in &l.edges {
            let dx = (l.cells[a][0] - l.cells[b][0]).abs();
            let dy = (l.cells[a][1] - l.cells[b][1]).abs();
            assert!(close(dx * dy, 2.0), "{a}-{b}");
        }
    }
}
