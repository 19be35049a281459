//! Exact search for sliding puzzles too large to tabulate (`fifteen`): IDA* (Korf 1985)
//! guided by additive pattern databases ([`crate::pattern`]).
//!
//! The bound is the sum, over the disjoint patterns of a partition, of each pattern's
//! table entry for the placement of its tiles: every move moves one tile and so counts in
//! one table at most, which keeps the sum admissible. A second sum reads the same tables
//! for the board reflected about its main diagonal, with each tile relabelled by its
//! reflected home cell (the goal, blank in the last cell, is its own reflection, so the
//! reflected board is exactly as far from the goal); the bound is the larger of the two
//! (Felner, Korf & Hanan 2004). Both are admissible, so the first path IDA* finds is
//! optimal.
//!
//! A move changes one tile's cell, so only the table of that tile's pattern (and, for the
//! reflection, of its reflected tile's pattern) is read again. The search never undoes the
//! move it has just made.

use crate::pattern::{MAX_CELLS, Pattern};

/// A partition's patterns with their tables, ready to bound a search on a square board.
pub struct Heuristic {
    side: usize,
    patterns: Vec<Pattern>,
    tables: Vec<Vec<u8>>,
    /// Pattern index of each tile (index 0, the blank, unused).
    owner: [u8; MAX_CELLS],
    /// The cell reflected about the main diagonal.
    mirror: [u8; MAX_CELLS],
    /// The tile whose home is the reflection of this tile's home.
    relabel: [u8; MAX_CELLS],
    /// Cells adjacent to each cell.
    adjacent: Vec<Vec<u8>>,
    reflect: bool,
}

/// Why a heuristic cannot be assembled from these patterns.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeuristicError {
    #[error("the patterns must cover every tile 1..{0} exactly once")]
    NotAPartition(usize),
    #[error("pattern {index} has a table of {found} entries, not {want}")]
    TableLength {
        index: usize,
        found: usize,
        want: u64,
    },
    #[error("the board must be square for the reflected lookup")]
    NotSquare,
}

/// An optimal solution found by [`solve`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// Number of moves.
    pub length: u32,
    /// The cell of the blank after each move.
    pub blanks: Vec<u8>,
    /// Nodes expanded (their successors generated), over every iteration.
    pub expanded: u64,
    /// Nodes generated, over every iteration.
    pub generated: u64,
    /// The bound of each iteration, the last being the optimal length.
    pub iterations: Vec<u32>,
}

impl Heuristic {
    /// Patterns of a square board of `side * side` cells (goal `1 2 .. n-1` with the blank
    /// last) and their tables (one byte per placement rank, see [`crate::pattern`]).
    pub fn new(
        patterns: Vec<Pattern>,
        tables: Vec<Vec<u8>>,
        reflect: bool,
    ) -> Result<Heuristic, HeuristicError> {
        let grid = patterns
            .first()
            .ok_or(HeuristicError::NotAPartition(0))?
            .grid()
            .clone();
        let n = grid.cells();
        if grid.rows != grid.cols {
            return Err(HeuristicError::NotSquare);
        }
        let side = grid.rows;
        let mut owner = [u8::MAX; MAX_CELLS];
        for (j, p) in patterns.iter().enumerate() {
            if p.grid() != &grid {
                return Err(HeuristicError::NotAPartition(n - 1));
            }
            for &t in p.tiles() {
                if owner[t as usize] != u8::MAX {
                    return Err(HeuristicError::NotAPartition(n - 1));
                }
                owner[t as usize] = j as u8;
            }
        }
        if (1..n).any(|t| owner[t] == u8::MAX) || patterns.len() != tables.len() {
            return Err(HeuristicError::NotAPartition(n - 1));
        }
        for (index, (p, t)) in patterns.iter().zip(&tables).enumerate() {
            if t.len() as u64 != p.placements() {
                return Err(HeuristicError::TableLength {
                    index,
                    found: t.len(),
                    want: p.placements(),
                });
            }
        }
        let mut mirror = [0u8; MAX_CELLS];
        let mut relabel = [0u8; MAX_CELLS];
        for (c, m) in mirror.iter_mut().enumerate().take(n) {
            *m = ((c % side) * side + c / side) as u8;
        }
        for t in 1..n {
            relabel[t] = mirror[t - 1] + 1;
        }
        let adjacent = (0..n)
            .map(|c| {
                let mut m = grid.adjacent(c);
                let mut v = Vec::new();
                while m != 0 {
                    v.push(m.trailing_zeros() as u8);
                    m &= m - 1;
                }
                v
            })
            .collect();
        Ok(Heuristic {
            side,
            patterns,
            tables,
            owner,
            mirror,
            relabel,
            adjacent,
            reflect,
        })
    }

    pub fn cells(&self) -> usize {
        self.side * self.side
    }

    /// The patterns and their tables, in partition order.
    pub fn tables(&self) -> impl Iterator<Item = (&Pattern, &[u8])> {
        self.patterns
            .iter()
            .zip(self.tables.iter().map(Vec::as_slice))
    }

    /// Whether the reflected lookup is used.
    pub fn reflects(&self) -> bool {
        self.reflect
    }

    /// The bound for a whole arrangement (`cells[c]` = tile in cell `c`).
    pub fn estimate(&self, cells: &[u8]) -> u32 {
        let s = State::new(self, cells);
        s.h(self)
    }
}

/// The search's position: where every tile is, and every pattern's placement rank for
/// the board and for its reflection, with the two sums.
struct State {
    /// `pos[t]` = cell of tile `t` (`pos[0]`: the blank).
    pos: [u8; MAX_CELLS],
    ranks: Vec<u64>,
    mirrored: Vec<u64>,
    sum: u32,
    mirrored_sum: u32,
}

impl State {
    fn new(h: &Heuristic, cells: &[u8]) -> State {
        let mut pos = [0u8; MAX_CELLS];
        for (c, &t) in cells.iter().enumerate() {
            pos[t as usize] = c as u8;
        }
        let mut s = State {
            pos,
            ranks: vec![0; h.patterns.len()],
            mirrored: vec![0; h.patterns.len()],
            sum: 0,
            mirrored_sum: 0,
        };
        for j in 0..h.patterns.len() {
            s.ranks[j] = s.rank(h, j);
            s.sum += h.tables[j][s.ranks[j] as usize] as u32;
            s.mirrored[j] = s.mirrored_rank(h, j);
            s.mirrored_sum += h.tables[j][s.mirrored[j] as usize] as u32;
        }
        s
    }

    fn rank(&self, h: &Heuristic, j: usize) -> u64 {
        let p = &h.patterns[j];
        let mut cells = [0u8; MAX_CELLS];
        for (i, &t) in p.tiles().iter().enumerate() {
            cells[i] = self.pos[t as usize];
        }
        p.rank(&cells[..p.tiles().len()])
    }

    /// Pattern `j`'s placement on the reflected board: its tile `t` stands where the
    /// reflection puts tile `relabel[t]` (the relabelling is its own inverse).
    fn mirrored_rank(&self, h: &Heuristic, j: usize) -> u64 {
        let p = &h.patterns[j];
        let mut cells = [0u8; MAX_CELLS];
        for (i, &t) in p.tiles().iter().enumerate() {
            cells[i] = h.mirror[self.pos[h.relabel[t as usize] as usize] as usize];
        }
        p.rank(&cells[..p.tiles().len()])
    }

    fn h(&self, h: &Heuristic) -> u32 {
        if h.reflect {
            self.sum.max(self.mirrored_sum)
        } else {
            self.sum
        }
    }

    /// Moves tile `t` into the blank and updates the board's sum; the reflected sum is
    /// updated by [`State::apply_mirrored`] only when the board's sum does not already
    /// exceed the bound. Returns what [`State::undo`] restores.
    #[inline]
    fn apply(&mut self, h: &Heuristic, t: u8) -> Saved {
        self.pos.swap(t as usize, 0);
        let j = h.owner[t as usize] as usize;
        let jm = h.owner[h.relabel[t as usize] as usize] as usize;
        let saved = Saved {
            rank: self.ranks[j],
            sum: self.sum,
            mirrored: self.mirrored[jm],
            mirrored_sum: self.mirrored_sum,
        };
        self.ranks[j] = self.rank(h, j);
        self.sum = self.sum + h.tables[j][self.ranks[j] as usize] as u32
            - h.tables[j][saved.rank as usize] as u32;
        saved
    }

    #[inline]
    fn apply_mirrored(&mut self, h: &Heuristic, t: u8, saved: &Saved) {
        let jm = h.owner[h.relabel[t as usize] as usize] as usize;
        self.mirrored[jm] = self.mirrored_rank(h, jm);
        self.mirrored_sum = self.mirrored_sum + h.tables[jm][self.mirrored[jm] as usize] as u32
            - h.tables[jm][saved.mirrored as usize] as u32;
    }

    #[inline]
    fn undo(&mut self, h: &Heuristic, t: u8, saved: &Saved) {
        self.pos.swap(t as usize, 0);
        self.ranks[h.owner[t as usize] as usize] = saved.rank;
        self.sum = saved.sum;
        self.mirrored[h.owner[h.relabel[t as usize] as usize] as usize] = saved.mirrored;
        self.mirrored_sum = saved.mirrored_sum;
    }
}

/// What undoing a move restores.
struct Saved {
    rank: u64,
    sum: u32,
    mirrored: u64,
    mirrored_sum: u32,
}

/// Result of one depth-first iteration below a bound.
enum Probe {
    Found,
    /// The smallest f-value above the bound met (`u32::MAX`: none).
    Exceeded(u32),
}

struct Search<'h> {
    h: &'h Heuristic,
    state: State,
    /// `cells[c]` = tile in cell `c`, kept beside `state.pos` for move generation.
    cells: [u8; MAX_CELLS],
    path: Vec<u8>,
    expanded: u64,
    generated: u64,
}

impl Search<'_> {
    /// Searches below the current position, whose f-value is within `bound`.
    fn dfs(&mut self, g: u32, bound: u32, previous: u8) -> Probe {
        if self.state.sum == 0 {
            // Every pattern is home, so every tile is: the goal.
            return Probe::Found;
        }
        self.expanded += 1;
        let h = self.h;
        let blank = self.state.pos[0];
        let mut next = u32::MAX;
        for &c in &h.adjacent[blank as usize] {
            if c == previous {
                continue;
            }
            self.generated += 1;
            let t = self.cells[c as usize];
            let saved = self.state.apply(h, t);
            let mut f = g + 1 + self.state.sum;
            if f <= bound && h.reflect {
                self.state.apply_mirrored(h, t, &saved);
                f = f.max(g + 1 + self.state.mirrored_sum);
            }
            if f > bound {
                next = next.min(f);
                self.state.undo(h, t, &saved);
                continue;
            }
            self.cells[blank as usize] = t;
            self.cells[c as usize] = 0;
            self.path.push(c);
            match self.dfs(g + 1, bound, blank) {
                Probe::Found => return Probe::Found,
                Probe::Exceeded(x) => next = next.min(x),
            }
            self.path.pop();
            self.cells[c as usize] = t;
            self.cells[blank as usize] = 0;
            self.state.undo(h, t, &saved);
        }
        Probe::Exceeded(next)
    }
}

/// Finds an optimal solution of `cells` (tile in each cell, 0 the blank), which must be
/// solvable (the caller checks the parity); `None` only if the tables say the goal is out
/// of reach, which cannot happen for a solvable arrangement and complete tables.
pub fn solve(h: &Heuristic, cells: &[u8]) -> Option<Solution> {
    assert_eq!(cells.len(), h.cells());
    let mut board = [0u8; MAX_CELLS];
    board[..cells.len()].copy_from_slice(cells);
    let state = State::new(h, cells);
    let mut search = Search {
        h,
        state,
        cells: board,
        path: Vec::new(),
        expanded: 0,
        generated: 0,
    };
    let mut bound = search.state.h(h);
    let mut iterations = Vec::new();
    loop {
        // Entries of 255 mark placements that cannot reach home.
        if bound >= 255 * h.patterns.len() as u32 {
            return None;
        }
        iterations.push(bound);
        match search.dfs(0, bound, u8::MAX) {
            Probe::Found => {
                return Some(Solution {
                    length: search.path.len() as u32,
                    blanks: search.path,
                    expanded: search.expanded,
                    generated: search.generated,
                    iterations,
                });
            }
            Probe::Exceeded(u32::MAX) => return None,
            Probe::Exceeded(next) => bound = next,
        }
    }
}

/// The arrangements along a solution, from `cells` (included) to the goal: the blank
/// moves into each cell of `blanks` in turn. `None` if a step is not a move.
pub fn replay(h: &Heuristic, cells: &[u8], blanks: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut cur = cells.to_vec();
    let mut out = vec![cur.clone()];
    for &c in blanks {
        let b = cur.iter().position(|&v| v == 0)?;
        if !h.adjacent.get(b)?.contains(&c) {
            return None;
        }
        cur.swap(b, c as usize);
        out.push(cur.clone());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{Outputs, solve_with};
    use crate::pattern::{Grid, build};
    use crate::progress::Silent;
    use crate::puzzles::sliding::Sliding;
    use crate::space::StateSpace;

    fn eight_heuristic(reflect: bool) -> Heuristic {
        let g = Grid::new(3, 3);
        let patterns: Vec<Pattern> = [&[1u8, 2, 4, 5][..], &[3, 6, 7, 8]]
            .iter()
            .map(|t| Pattern::new(g.clone(), t).unwrap())
            .collect();
        let tables = patterns
            .iter()
            .map(|p| build(p, &Silent).unwrap())
            .collect();
        Heuristic::new(patterns, tables, reflect).unwrap()
    }

    /// Every 400th position of the 8-puzzle, with and without the reflected lookup: the
    /// search's lengths are the breadth-first distances, and the paths are real.
    #[test]
    fn optimal_on_the_eight_puzzle() {
        let eight = Sliding::grid("eight", 3, 3);
        let full = solve_with(&eight, Outputs::DISTANCES, &Silent).unwrap();
        for reflect in [false, true] {
            let h = eight_heuristic(reflect);
            for r in (0..eight.size()).step_by(400) {
                let cells = eight.unrank(r);
                assert!(h.estimate(&cells) <= full.dist[r as usize] as u32);
                let s = solve(&h, &cells).unwrap();
                assert_eq!(s.length, full.dist[r as usize] as u32, "rank {r}");
                let path = replay(&h, &cells, &s.blanks).unwrap();
                assert_eq!(path.last().unwrap(), &[1, 2, 3, 4, 5, 6, 7, 8, 0]);
                assert_eq!(*s.iterations.last().unwrap(), s.length);
            }
        }
    }

    #[test]
    fn reflection_relabels_tiles_by_their_mirrored_home() {
        let h = eight_heuristic(true);
        // 3x3: tile 2 (home cell 1) <-> tile 4 (home cell 3); 5 and 9's cell stay.
        assert_eq!(h.relabel[2], 4);
        assert_eq!(h.relabel[4], 2);
        assert_eq!(h.relabel[5], 5);
        assert_eq!(h.mirror[8], 8);
        // The goal and its reflection both estimate 0.
        assert_eq!(h.estimate(&[1, 2, 3, 4, 5, 6, 7, 8, 0]), 0);
    }

    #[test]
    fn partitions_must_cover_every_tile_once() {
        let g = Grid::new(3, 3);
        let p = |t: &[u8]| Pattern::new(g.clone(), t).unwrap();
        let a = p(&[1, 2, 3, 4]);
        let b = p(&[4, 5, 6, 7, 8]);
        let ta = vec![0; a.placements() as usize];
        let tb = vec![0; b.placements() as usize];
        assert!(Heuristic::new(vec![a.clone(), b], vec![ta.clone(), tb], true).is_err());
        let c = p(&[5, 6, 7]);
        let tc = vec![0; c.placements() as usize];
        assert!(Heuristic::new(vec![a, c], vec![ta, tc], true).is_err());
    }
}
