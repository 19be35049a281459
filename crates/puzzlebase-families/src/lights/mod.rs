//! Lights Out on a grid: every cell is a light, on (`1`) or off (`0`); pressing a cell
//! toggles it and its orthogonal neighbours. A position's distance is the fewest presses
//! that turn every light off. A press undoes itself, so every move is reversible and the
//! shared breadth-first search applies.
//!
//! # Which positions can be solved
//!
//! Over GF(2) a position is a vector of `rows * cols` bits and a press adds its cell's
//! pattern, so the positions that can be turned off are exactly the span of the presses'
//! patterns. On some grids that is everything (3x3: all 2^9); on others a subspace (5x5:
//! 2^23 of 2^25, the two "quiet patterns" pressing nothing visible). The span is computed
//! from the grid by Gaussian elimination ([`Lights::new`]); a position outside it is
//! refused by [`GraphPuzzle::parse`] as [`StateError::Unsolvable`].
//!
//! # Ranking scheme (`span-pivots`)
//!
//! Only the solvable positions are ranked, densely: `0..2^r` for a span of dimension `r`.
//! Elimination in cell order gives a basis `b_0 .. b_{r-1}` of the span in reduced echelon
//! form: basis vector `b_j` has a *pivot* cell `p_j` (`p_0 < p_1 < ...`) that is lit in
//! `b_j` and in no other basis vector. A position `x` of the span is `sum of b_j` over the
//! `j` whose pivot is lit in `x`, so its rank is the lights of the pivot cells, bit `j`
//! for cell `p_j`:
//!
//! `rank(x) = sum over j of x[p_j] * 2^j`, and `x = XOR of b_j over the bits j of rank`.
//!
//! On a grid whose presses span everything (3x3) the pivots are every cell and the rank
//! is the position read as a binary number, cell 0 the lowest bit. A press adds a fixed
//! vector, so in ranks it is an exclusive or with the press's own rank: the neighbours of
//! a rank are `rank ^ rank(press_i)`.
//!
//! # Parity
//!
//! The move graph is bipartite (every path from a position to all-off has the same
//! parity of presses) exactly when every combination of presses that changes nothing
//! presses an even number of cells; then the parity of a rank is a linear form of its
//! bits, computed with the basis ([`StateSpace::parity`]), and the two-bit search keeps
//! distances modulo 4.
//!
//! # Notation
//!
//! One character per cell, row-major from the top-left: `1` lit, `0` off; whitespace is
//! ignored on input (rows may be written on lines of their own or separated by spaces).

pub mod spec;

use serde_json::json;

use puzzlebase_core::definition::Source;
use puzzlebase_core::format::GraphAsk;
use puzzlebase_core::space::{GraphPuzzle, StateError, StateSpace};

/// The most cells a grid may have: a position is a 64-bit mask.
pub const MAX_CELLS: usize = 64;

/// The presses of a grid and the span they generate: the linear algebra behind the
/// ranks, independent of any puzzle's name or storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The number of cells.
    pub cells: usize,
    /// Each cell's press: the lights it toggles, bit `c` for cell `c`.
    pub presses: Vec<u64>,
    /// The basis in reduced echelon form, `basis[j]` with pivot cell `pivots[j]`.
    pub basis: Vec<u64>,
    /// The pivot cells, ascending.
    pub pivots: Vec<usize>,
    /// Per basis vector, which presses sum to it (bit `i` for cell `i`'s press).
    combos: Vec<u64>,
    /// The press combinations that change nothing (a basis of the presses' kernel).
    pub quiet: Vec<u64>,
}

impl Span {
    /// The span of the `presses` of `cells` cells (at most [`MAX_CELLS`]).
    pub fn new(cells: usize, presses: Vec<u64>) -> Span {
        // Each row: (pattern, the presses that make it). Elimination in cell order.
        let mut rows: Vec<(u64, u64)> = presses
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, 1u64 << i))
            .collect();
        let mut basis: Vec<(usize, u64, u64)> = Vec::new();
        for c in 0..cells {
            let bit = 1u64 << c;
            let Some(at) = rows.iter().position(|r| r.0 & bit != 0) else {
                continue;
            };
            let pivot = rows.swap_remove(at);
            for r in rows.iter_mut() {
                if r.0 & bit != 0 {
                    r.0 ^= pivot.0;
                    r.1 ^= pivot.1;
                }
            }
            for b in basis.iter_mut() {
                if b.1 & bit != 0 {
                    b.1 ^= pivot.0;
                    b.2 ^= pivot.1;
                }
            }
            basis.push((c, pivot.0, pivot.1));
        }
        // What is left reduced to nothing: the combinations of presses that change nothing.
        let quiet = rows.iter().map(|r| r.1).collect();
        Span {
            cells,
            presses,
            pivots: basis.iter().map(|b| b.0).collect(),
            basis: basis.iter().map(|b| b.1).collect(),
            combos: basis.iter().map(|b| b.2).collect(),
            quiet,
        }
    }

    /// The presses of a `rows` x `cols` grid, cells row-major: each toggles itself and
    /// its orthogonal neighbours.
    pub fn grid(rows: usize, cols: usize) -> Span {
        let presses = (0..rows * cols)
            .map(|c| {
                let (r, k) = (c / cols, c % cols);
                grid_neighbours(rows, cols, c)
                    .into_iter()
                    .fold(1u64 << (r * cols + k), |m, n| m | 1 << n)
            })
            .collect();
        Span::new(rows * cols, presses)
    }

    /// The dimension of the span: there are `2^dimension` solvable positions.
    pub fn dimension(&self) -> usize {
        self.basis.len()
    }

    /// The rank of position `x` (its pivot lights), or `None` when `x` is outside the span.
    pub fn rank(&self, x: u64) -> Option<u64> {
        let rank = (self.pivots.iter().enumerate()).fold(0u64, |r, (j, &p)| r | (x >> p & 1) << j);
        (self.position(rank) == x).then_some(rank)
    }

    /// The position of `rank`: the basis vectors of its bits, added.
    pub fn position(&self, rank: u64) -> u64 {
        (0..self.basis.len())
            .filter(|&j| rank >> j & 1 == 1)
            .fold(0, |x, j| x ^ self.basis[j])
    }

    /// A set of presses (bit `i` for cell `i`) that lights `rank`'s position from all off,
    /// so also turns it off again.
    pub fn presses_of(&self, rank: u64) -> u64 {
        (0..self.combos.len())
            .filter(|&j| rank >> j & 1 == 1)
            .fold(0, |x, j| x ^ self.combos[j])
    }

    /// When every press combination that changes nothing presses an even number of cells,
    /// the parity of the presses of any solution as a mask over the rank's bits
    /// (`popcount(rank & mask) mod 2`); `None` when solutions of both parities exist.
    pub fn parity_mask(&self) -> Option<u64> {
        if self.quiet.iter().any(|q| q.count_ones() % 2 == 1) {
            return None;
        }
        Some(
            (self.combos.iter().enumerate())
                .filter(|(_, c)| c.count_ones() % 2 == 1)
                .fold(0, |m, (j, _)| m | 1 << j),
        )
    }
}

/// The orthogonal neighbours of cell `c` of a `rows` x `cols` grid, row-major.
pub fn grid_neighbours(rows: usize, cols: usize, c: usize) -> Vec<usize> {
    let (r, k) = (c / cols, c % cols);
    let mut v = Vec::with_capacity(4);
    if r > 0 {
        v.push(c - cols);
    }
    if k > 0 {
        v.push(c - 1);
    }
    if k + 1 < cols {
        v.push(c + 1);
    }
    if r + 1 < rows {
        v.push(c + cols);
    }
    v
}

/// Lights Out on a grid. See the module documentation.
pub struct Lights {
    name: String,
    rows: usize,
    cols: usize,
    span: Span,
    /// The distinct moves: a press's rank (what it adds, in ranks) and the cells whose
    /// press it is (two cells of a 1 x 2 grid press the same lights).
    moves: Vec<(u64, Vec<usize>)>,
    parity: Option<u64>,
    start: u64,
    storage: GraphAsk,
    source: Source,
}

impl Lights {
    /// Lights Out on a `rows` x `cols` grid (at most [`MAX_CELLS`] cells), starting from
    /// `start` in the notation (`None`: every light on), its distances kept as `storage`
    /// asks. Fails when the start is malformed or cannot be turned off.
    pub fn new(
        name: &str,
        rows: usize,
        cols: usize,
        start: Option<&str>,
        storage: GraphAsk,
        source: Source,
    ) -> Result<Lights, StateError> {
        let span = Span::grid(rows, cols);
        let mut moves: Vec<(u64, Vec<usize>)> = Vec::new();
        for (cell, &p) in span.presses.iter().enumerate() {
            let r = span.rank(p).expect("a press is in the span");
            match moves.iter_mut().find(|m| m.0 == r) {
                Some(m) => m.1.push(cell),
                None => moves.push((r, vec![cell])),
            }
        }
        let parity = span.parity_mask();
        let mut l = Lights {
            name: name.to_string(),
            rows,
            cols,
            parity,
            span,
            moves,
            start: 0,
            storage,
            source,
        };
        let all = "1".repeat(rows * cols);
        l.start = l.parse(start.unwrap_or(&all))?;
        Ok(l)
    }

    /// The span of the grid's presses.
    pub fn span(&self) -> &Span {
        &self.span
    }

    fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// The press that leads from `from` to `to`, as its cells.
    fn press(&self, from: u64, to: u64) -> Option<&[usize]> {
        let d = from ^ to;
        self.moves.iter().find(|m| m.0 == d).map(|m| m.1.as_slice())
    }
}

impl StateSpace for Lights {
    fn size(&self) -> u64 {
        1u64 << self.span.dimension()
    }
    fn goals(&self) -> Vec<u64> {
        vec![0]
    }
    fn neighbors(&self, rank: u64, out: &mut Vec<u64>) {
        out.extend(self.moves.iter().map(|m| rank ^ m.0));
    }
    fn parity(&self, rank: u64) -> Option<u8> {
        self.parity.map(|m| ((rank & m).count_ones() & 1) as u8)
    }
}

impl GraphPuzzle for Lights {
    fn name(&self) -> &str {
        &self.name
    }
    fn family(&self) -> &str {
        "lights"
    }
    fn definition(&self) -> serde_json::Value {
        let n = self.cells();
        let mut d = json!({
            "name": self.name(),
            "rows": self.rows,
            "cols": self.cols,
            "cells": n,
            "move": "a press toggles the pressed light and its orthogonal neighbours",
            "start": self.format(self.start),
            "goal": "0".repeat(n),
            "notation": format!("{n} characters, row-major from the top-left: 1 lit, 0 off"),
            "ranking": "span-pivots",
            "pivots": self.span.pivots,
            "dimension": self.span.dimension(),
            "size": self.size(),
        });
        self.source.annotate(&mut d);
        d
    }
    fn notation(&self) -> String {
        format!(
            "one digit per light, row by row ({} rows of {}): 1 on, 0 off; moves: press ROW,COLUMN (from 1,1)",
            self.rows, self.cols
        )
    }
    fn format(&self, rank: u64) -> String {
        let x = self.span.position(rank);
        (0..self.cells())
            .map(|c| if x >> c & 1 == 1 { '1' } else { '0' })
            .collect()
    }
    fn parse(&self, text: &str) -> Result<u64, StateError> {
        let n = self.cells();
        let mut x = 0u64;
        let mut len = 0;
        for ch in text.chars().filter(|c| !c.is_whitespace()) {
            match ch {
                '0' => {}
                '1' if len < n => x |= 1 << len,
                '1' => {}
                other => {
                    return Err(StateError::malformed(
                        text,
                        format!("{other:?} is not a light; use 1 (on) and 0 (off)"),
                    ));
                }
            }
            len += 1;
        }
        if len != n {
            return Err(StateError::malformed(
                text,
                format!("{len} lights; the {}x{} grid has {n}", self.rows, self.cols),
            ));
        }
        self.span.rank(x).ok_or_else(|| {
            StateError::unsolvable(
                text,
                format!(
                    "no presses turn it off: it is outside the span of the presses, which holds 2^{} of the 2^{n} patterns",
                    self.span.dimension()
                ),
            )
        })
    }
    fn start(&self) -> Option<u64> {
        Some(self.start)
    }
    fn names_moves(&self) -> bool {
        true
    }
    fn move_name(&self, from: u64, to: u64) -> Option<String> {
        let cells = self.press(from, to)?;
        let names: Vec<String> = cells
            .iter()
            .map(|&c| format!("press {},{}", c / self.cols + 1, c % self.cols + 1))
            .collect();
        Some(names.join(" or "))
    }
    fn storage_asked(&self) -> GraphAsk {
        self.storage
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use puzzlebase_core::progress::Silent;
    use puzzlebase_solvers::bfs;

    fn lights(rows: usize, cols: usize) -> Lights {
        Lights::new("t", rows, cols, None, GraphAsk::BySize, Source::default()).unwrap()
    }

    #[test]
    fn the_span_is_computed_from_the_grid() {
        // OEIS A076436: the n x n boards where every position can be turned off (the
        // presses are independent) begin 1, 2, 3, 6; A117870 (the others) begins 4, 5.
        // Anderson & Feil, "Turning Lights Out with Linear Algebra", Math. Magazine 71
        // (1998) 300-303: the 5x5 press matrix has rank 23, so 2^23 positions solvable.
        for n in 1..=6 {
            let s = Span::grid(n, n);
            assert_eq!(
                s.dimension() == s.cells,
                [1, 2, 3, 6].contains(&n),
                "{n}x{n}"
            );
            assert_eq!(s.quiet.len(), s.cells - s.dimension());
            for q in &s.quiet {
                let x = (0..s.cells)
                    .filter(|&i| q >> i & 1 == 1)
                    .fold(0, |x, i| x ^ s.presses[i]);
                assert_eq!(x, 0, "a quiet pattern changes nothing");
            }
        }
        assert_eq!(Span::grid(5, 5).dimension(), 23);
    }

    #[test]
    fn ranks_are_dense_and_round_trip() {
        for (r, c) in [(3, 3), (4, 4), (2, 5)] {
            let l = lights(r, c);
            let mut seen = std::collections::HashSet::new();
            for rank in 0..l.size() {
                let s = l.format(rank);
                assert!(seen.insert(s.clone()));
                assert_eq!(l.parse(&s), Ok(rank));
                // The recorded presses light it from all off.
                let p = l.span.presses_of(rank);
                let x = (0..l.cells())
                    .filter(|&i| p >> i & 1 == 1)
                    .fold(0, |x, i| x ^ l.span.presses[i]);
                assert_eq!(x, l.span.position(rank));
            }
        }
        // 3x3: every pattern, and the rank is the pattern read as binary.
        let l = lights(3, 3);
        assert_eq!(l.size(), 512);
        assert_eq!(l.parse("100000000"), Ok(1));
        assert_eq!(l.parse("000000001"), Ok(256));
    }

    #[test]
    fn unsolvable_and_malformed_positions_are_told_apart() {
        let l = lights(5, 5);
        assert_eq!(l.size(), 1 << 23);
        // A single lit corner is not in the 5x5 span (the press matrix is symmetric, so the
        // span is what is orthogonal to the quiet patterns, and one of them presses it).
        let corner = format!("1{}", "0".repeat(24));
        assert!(matches!(
            l.parse(&corner),
            Err(StateError::Unsolvable { .. })
        ));
        for bad in ["", "0101", &"2".repeat(25), &"1".repeat(26)] {
            assert!(
                matches!(l.parse(bad), Err(StateError::Malformed { .. })),
                "{bad}"
            );
        }
        // Rows may be written apart.
        assert_eq!(l.parse("11111 11111\n11111 11111 11111"), Ok(l.start));
    }

    #[test]
    fn neighbours_are_presses_and_parity_alternates() {
        let l = lights(3, 3);
        let mut v = Vec::new();
        for rank in 0..l.size() {
            v.clear();
            l.neighbors(rank, &mut v);
            assert_eq!(v.len(), 9);
            let x = l.span.position(rank);
            for (cell, &nb) in v.iter().enumerate() {
                assert_eq!(l.span.position(nb), x ^ l.span.presses[cell]);
                assert_ne!(l.parity(rank), l.parity(nb));
                assert_eq!(
                    l.move_name(rank, nb),
                    Some(format!("press {},{}", cell / 3 + 1, cell % 3 + 1))
                );
            }
        }
        // 4x4: the quiet patterns press an even number of cells too; a 1x2 grid's two
        // presses are one move.
        assert!(lights(4, 4).span.parity_mask().is_some());
        let pair = lights(1, 2);
        assert_eq!(pair.moves.len(), 1);
        assert_eq!(pair.move_name(0, 1).unwrap(), "press 1,1 or press 1,2");
    }

    #[test]
    fn every_distance_is_the_fewest_presses() {
        // Independently: the distance of a position is the smallest number of cells in a
        // set of presses that makes it (order does not matter and a press twice is none).
        for (r, c) in [(3, 3), (4, 4), (2, 3)] {
            let l = lights(r, c);
            let n = l.cells();
            let mut best = vec![u8::MAX; 1 << n];
            for set in 0u64..1 << n {
                let x = (0..n)
                    .filter(|&i| set >> i & 1 == 1)
                    .fold(0, |x, i| x ^ l.span.presses[i]);
                best[x as usize] = best[x as usize].min(set.count_ones() as u8);
            }
            let t = bfs::solve(&l, &Silent).unwrap();
            for rank in 0..l.size() {
                let x = l.span.position(rank) as usize;
                assert_eq!(t.dist[rank as usize], best[x], "{r}x{c} {}", l.format(rank));
            }
        }
    }
}
