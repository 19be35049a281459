//! Board geometry for drawing: where each cell, hole or square sits and which of them
//! are joined, in the puzzle's own index order. It is read from the puzzle's definition
//! (`definition()["layout"]`, written by the catalog from the puzzle's file),
//! so a user's puzzle rebuilt from its stored definition is drawn like a built-in one.
//! The page and the terminal boards read only this shape
//! (`{"cells": [[x, y], ...], "edges": [[a, b], ...]}`).
//!
//! Coordinates are in the units of the definition file: `x` to the right, `y` downwards.

use serde::{Deserialize, Serialize};

use crate::Puzzle;

/// Positions of the cells and the connections between them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    /// `[x, y]` per cell, in index order.
    pub cells: Vec<[f64; 2]>,
    /// Pairs of joined cells, each once, smaller index first.
    pub edges: Vec<[usize; 2]>,
}

/// The geometry of `p`, from its definition; `None` when the definition carries none
/// or it does not fit the puzzle (an edge naming a cell that is not there).
pub fn layout(p: &Puzzle) -> Option<Layout> {
    from_definition(&p.definition())
}

/// The `layout` of a definition (as stored in the file's `puzzles` table).
pub fn from_definition(definition: &serde_json::Value) -> Option<Layout> {
    let l: Layout = serde_json::from_value(definition.get("layout")?.clone()).ok()?;
    let n = l.cells.len();
    (n > 0 && l.edges.iter().all(|&[a, b]| a < n && b < n)).then_some(l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// Every jump of every tabulated board runs along a straight line in equal steps,
    /// and every hole has its own place: the drawing agrees with the rules.
    #[test]
    fn peg_jumps_are_straight_and_even() {
        for b in crate::catalog::builtin_boards() {
            let l = layout(&Puzzle::Peg(b.clone())).unwrap();
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

    /// The edges of the sliding puzzles are the puzzle's adjacency, and joined cells are
    /// evenly spaced: one unit apart on the grids; the data's hexagon of `six` (rows half
    /// a unit apart) has edges of 1 and sqrt(1.25), so the drawing's connections differ
    /// in length by at most that ratio.
    #[test]
    fn every_layout_has_a_place_per_cell_and_unit_edges() {
        for p in catalog::registry() {
            let l = layout(&p).unwrap();
            let def = p.definition();
            let n = match &p {
                Puzzle::Graph(g) => match g.family() {
                    "sliding" => def["adjacency"].as_array().unwrap().len(),
                    // A place per cell (a light, a token's cell); a place per peg
                    // (hanoi's discs are drawn on them).
                    "lights" | "tokens" | "oshidori" => def["cells"].as_u64().unwrap() as usize,
                    "hanoi" => def["pegs"].as_u64().unwrap() as usize,
                    // A cell per sticker (the cube's 24) or else per point.
                    "permutation" => def["spec"]["stickers"]
                        .as_array()
                        .map_or(def["points"].as_u64().unwrap() as usize, Vec::len),
                    "blocks" => {
                        (def["rows"].as_u64().unwrap() * def["cols"].as_u64().unwrap()) as usize
                    }
                    // A new family says here how many places its drawing has.
                    family => panic!("{}: no cell count for family {family}", p.name()),
                },
                Puzzle::Peg(b) => b.holes,
                Puzzle::Magic(m) => m.positions(),
                Puzzle::Tour(t) => t.squares(),
                Puzzle::Patterns(f) => f.cells(),
                Puzzle::Clusters(_) => {
                    (def["rows"].as_u64().unwrap() * def["cols"].as_u64().unwrap()) as usize
                }
            };
            assert_eq!(l.cells.len(), n, "{}", p.name());
            assert!(l.edges.iter().all(|&[a, b]| a < b && b < n), "{}", p.name());
            if p.family() == "sliding" {
                // fifteen's definition holds its partitions; its grid holds the adjacency.
                let grid = match &p {
                    Puzzle::Patterns(f) => {
                        puzzlebase_core::space::GraphPuzzle::definition(f.grid())
                    }
                    _ => def.clone(),
                };
                let adj = grid["adjacency"].as_array().unwrap();
                let count: usize = adj.iter().map(|a| a.as_array().unwrap().len()).sum();
                assert_eq!(l.edges.len() * 2, count, "{}", p.name());
                let lengths: Vec<f64> = (l.edges.iter())
                    .map(|&[a, b]| {
                        ((l.cells[a][0] - l.cells[b][0]).powi(2)
                            + (l.cells[a][1] - l.cells[b][1]).powi(2))
                        .sqrt()
                    })
                    .collect();
                let shortest = lengths.iter().cloned().fold(f64::INFINITY, f64::min);
                let longest = lengths.iter().cloned().fold(0.0, f64::max);
                assert!(close(shortest, 1.0), "{}: shortest {shortest}", p.name());
                if p.name() != "six" {
                    assert!(close(longest, 1.0), "{}: longest {longest}", p.name());
                }
                assert!(longest <= 1.25f64.sqrt() + 1e-9, "{}: {longest}", p.name());
            }
        }
    }

    #[test]
    fn knight_swap_edges_are_knight_moves() {
        let p = catalog::find("knight-swap").unwrap();
        let l = layout(&p).unwrap();
        assert_eq!(l.edges.len(), 14);
        for &[a, b] in &l.edges {
            let dx = (l.cells[a][0] - l.cells[b][0]).abs();
            let dy = (l.cells[a][1] - l.cells[b][1]).abs();
            assert!(close(dx * dy, 2.0), "{a}-{b}");
        }
    }
}
