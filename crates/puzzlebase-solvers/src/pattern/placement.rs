//! Grids, patterns and the ranks of their placements (see the parent module for the
//! ranking).

use thiserror::Error;

use puzzlebase_core::rank::FACT;

/// Most cells of a grid handled here (cell sets are `u32` bit masks, ranks need `16!`).
pub const MAX_CELLS: usize = 16;

/// `ABOVE[c]` has a 1 in nibble c' for every cell c' > c.
const ABOVE: [u64; MAX_CELLS] = {
    let mut t = [0u64; MAX_CELLS];
    let mut c = 0;
    while c < MAX_CELLS {
        let mut d = c + 1;
        while d < MAX_CELLS {
            t[c] |= 1 << (4 * d);
            d += 1;
        }
        c += 1;
    }
    t
};

/// `P(a, b) = a! / (a - b)!`, the number of `b`-permutations of `a` things.
fn falling(a: usize, b: usize) -> u64 {
    FACT[a] / FACT[a - b]
}

/// A rectangular grid of cells, row-major, with the neighbour set of every cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    pub rows: usize,
    pub cols: usize,
    /// Bit mask of the cells adjacent to each cell.
    adjacent: Vec<u32>,
    /// Every cell but those of the first (last) column: where a shift by one cell may land.
    not_first_col: u32,
    not_last_col: u32,
}

impl Grid {
    pub fn new(rows: usize, cols: usize) -> Grid {
        assert!(rows >= 1 && cols >= 1 && rows * cols <= MAX_CELLS);
        let mut adjacent = vec![0u32; rows * cols];
        for r in 0..rows {
            for c in 0..cols {
                let m = &mut adjacent[r * cols + c];
                if r > 0 {
                    *m |= 1 << ((r - 1) * cols + c);
                }
                if r + 1 < rows {
                    *m |= 1 << ((r + 1) * cols + c);
                }
                if c > 0 {
                    *m |= 1 << (r * cols + c - 1);
                }
                if c + 1 < cols {
                    *m |= 1 << (r * cols + c + 1);
                }
            }
        }
        let (mut first_col, mut last_col) = (0u32, 0u32);
        for r in 0..rows {
            first_col |= 1 << (r * cols);
            last_col |= 1 << (r * cols + cols - 1);
        }
        let full = (1u32 << (rows * cols)) - 1;
        Grid {
            rows,
            cols,
            adjacent,
            not_first_col: full & !first_col,
            not_last_col: full & !last_col,
        }
    }

    pub fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// Bit mask of the cells adjacent to `cell`.
    pub fn adjacent(&self, cell: usize) -> u32 {
        self.adjacent[cell]
    }

    /// The connected part of `allowed` that contains the cells of `seed`, grown a step in
    /// all four directions at once by shifting the whole mask.
    #[inline]
    pub fn region(&self, seed: u32, allowed: u32) -> u32 {
        let mut region = seed & allowed;
        loop {
            let grown = (region
                | ((region << 1) & self.not_first_col)
                | ((region >> 1) & self.not_last_col)
                | (region << self.cols)
                | (region >> self.cols))
                & allowed;
            if grown == region {
                return region;
            }
            region = grown;
        }
    }

    /// The name of the region of `empty` holding `cell`: its lowest cell, numbered among
    /// the cells of `empty` (0 for the lowest free cell).
    #[inline]
    pub(super) fn ordinal(&self, empty: u32, cell: usize) -> u8 {
        let low = self.region(1 << cell, empty).trailing_zeros();
        (empty & ((1u32 << low) - 1)).count_ones() as u8
    }

    /// The region named `ordinal` (see [`Grid::ordinal`]): `None` if the free cell with
    /// that number is not the lowest of its region, or there is no such cell.
    #[inline]
    pub(super) fn region_by_ordinal(&self, empty: u32, ordinal: u8) -> Option<u32> {
        let mut m = empty;
        for _ in 0..ordinal {
            m &= m.wrapping_sub(1);
        }
        if m == 0 {
            return None;
        }
        let cell = m & m.wrapping_neg();
        let region = self.region(cell, empty);
        (region & region.wrapping_neg() == cell).then_some(region)
    }

    /// The largest region of `empty` (the connected set of its cells with the most cells;
    /// of equal ones, the one holding the lowest cell), `0` if `empty` is.
    pub fn largest_region(&self, empty: u32) -> u32 {
        let (mut rest, mut best) = (empty, 0u32);
        while rest != 0 {
            let region = self.region(rest & rest.wrapping_neg(), empty);
            if region.count_ones() > best.count_ones() {
                best = region;
            }
            rest &= !region;
        }
        best
    }

    /// The number of regions (connected sets) of the cells of `empty`.
    pub fn regions(&self, empty: u32) -> u32 {
        let (mut rest, mut n) = (empty, 0);
        while rest != 0 {
            rest &= !self.region(rest & rest.wrapping_neg(), empty);
            n += 1;
        }
        n
    }

    pub fn full(&self) -> u32 {
        if self.cells() == 32 {
            u32::MAX
        } else {
            (1u32 << self.cells()) - 1
        }
    }
}

/// A set of tiles and the ranking of their placements on a grid (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    pub(super) grid: Grid,
    /// The tiles, increasing; tile `t` belongs in cell `t - 1`.
    pub(super) tiles: Vec<u8>,
    /// `weights[i] = P(n - 1 - i, k - 1 - i)`.
    pub(super) weights: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PatternError {
    #[error("pattern {0:?} must be a non-empty set of distinct tiles 1..{1}, leaving a cell free")]
    BadTiles(Vec<u8>, usize),
    #[error("pattern table has {found} entries, its pattern has {want} placements")]
    Length { found: usize, want: u64 },
    #[error("pattern {tiles:?}: placement {rank} holds {found}, {why}")]
    Entry {
        tiles: Vec<u8>,
        rank: u64,
        found: u8,
        why: String,
    },
    #[error("pattern {tiles:?}: state {rank} of the search holds {found}, {why}")]
    Relation {
        tiles: Vec<u8>,
        rank: u64,
        found: u8,
        why: String,
    },
    #[error("pattern {tiles:?}: the table holds {found} entries, the rules give {want}")]
    Encoding {
        tiles: Vec<u8>,
        found: &'static str,
        want: &'static str,
    },
    #[error("building the table of pattern {0:?}: {1}")]
    Solve(Vec<u8>, String),
}

impl Pattern {
    pub fn new(grid: Grid, tiles: &[u8]) -> Result<Pattern, PatternError> {
        let n = grid.cells();
        let mut sorted = tiles.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.is_empty()
            || sorted.len() != tiles.len()
            || sorted.len() >= n
            || sorted.iter().any(|&t| t == 0 || t as usize >= n)
        {
            return Err(PatternError::BadTiles(tiles.to_vec(), n - 1));
        }
        let k = sorted.len();
        let weights = (0..k).map(|i| falling(n - 1 - i, k - 1 - i)).collect();
        Ok(Pattern {
            grid,
            tiles: sorted,
            weights,
        })
    }

    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    pub fn tiles(&self) -> &[u8] {
        &self.tiles
    }

    /// Number of placements: `P(n, k)`.
    pub fn placements(&self) -> u64 {
        falling(self.grid.cells(), self.tiles.len())
    }

    /// The number of (placement, region of the blank) states a search from home
    /// reaches ([`PatternSpace`](super::PatternSpace)), counted without searching: `k!`
    /// placements of the tiles on each set of `k` cells, times the regions of the cells
    /// left free. `None` where not every such state is reached, or that is not known.
    ///
    /// Every state is reached when the grid is 2-connected and not a cycle (two rows and
    /// two columns at least, more than 2x2) and at least two tiles outside the pattern
    /// move with the blank: Wilson's theorem (1974) then makes every arrangement of the
    /// whole puzzle of the goal's parity reachable (a grid is bipartite, and no grid is
    /// his one exception, a graph of seven vertices), and swapping two of the
    /// indistinguishable tiles outside the pattern gives any (placement, blank cell) an
    /// arrangement of either parity. Elsewhere some states may not be reached (in one
    /// row the tiles keep their order; on 2x2 their cyclic order; with one tile outside
    /// the pattern, the parity of the arrangement is fixed).
    pub fn reachable_states(&self) -> Option<u64> {
        let (g, k) = (&self.grid, self.tiles.len());
        let n = g.cells();
        let wilson = g.rows >= 2 && g.cols >= 2 && n > 4;
        (wilson && n - k >= 3).then(|| self.placement_regions())
    }

    /// The number of (placement, region of its free cells) pairs, reached or not.
    pub(super) fn placement_regions(&self) -> u64 {
        let (g, k) = (&self.grid, self.tiles.len());
        let full = g.full();
        let regions: u64 = (0..=full)
            .filter(|occupied: &u32| occupied.count_ones() as usize == k)
            .map(|occupied| g.regions(full & !occupied) as u64)
            .sum();
        FACT[k] * regions
    }

    /// Rank of the placement putting tile `tiles[i]` in cell `cells[i]`.
    #[inline]
    pub fn rank(&self, cells: &[u8]) -> u64 {
        // Nibble c of `below` counts the cells used so far that are lower than c: cheaper
        // than a population count on targets without the instruction.
        let mut below = 0u64;
        let mut rank = 0u64;
        for (i, &c) in cells.iter().enumerate() {
            let d = c as u64 - ((below >> (4 * c)) & 0xF);
            rank += d * self.weights[i];
            below += ABOVE[c as usize];
        }
        rank
    }

    /// The placement with this rank, written into `cells` (one cell per tile).
    pub fn unrank(&self, mut rank: u64, cells: &mut [u8]) {
        let mut unused = self.grid.full();
        for (i, slot) in cells.iter_mut().enumerate().take(self.tiles.len()) {
            let w = self.weights[i];
            let d = rank / w;
            rank %= w;
            let mut m = unused;
            for _ in 0..d {
                m &= m - 1;
            }
            let c = m.trailing_zeros();
            *slot = c as u8;
            unused &= !(1 << c);
        }
    }

    /// Steps `cells` (one cell per tile) from the placement of rank `r` to that of rank
    /// `r + 1`, as [`Pattern::unrank`] would give it but without its divisions: `false`
    /// (and `cells` left as it was) at the last placement. A pass over placements in
    /// rank order unranks its first and steps through the rest.
    #[inline]
    pub fn step(&self, cells: &mut [u8]) -> bool {
        let k = self.tiles.len();
        let full = self.grid.full();
        let mut used = cells[..k].iter().fold(0u32, |m, &c| m | 1 << c);
        // The last tile that can move to a higher cell unused by the tiles before it
        // does; those after it take the lowest cells left, in order.
        for i in (0..k).rev() {
            used &= !(1 << cells[i]);
            let higher = full & !used & !((2u64 << cells[i]) - 1) as u32;
            if higher != 0 {
                cells[i] = higher.trailing_zeros() as u8;
                used |= 1 << cells[i];
                let mut free = full & !used;
                for c in &mut cells[i + 1..k] {
                    *c = free.trailing_zeros() as u8;
                    free &= free - 1;
                }
                return true;
            }
        }
        false
    }

    /// The cells free of the pattern's tiles in the placement `cells` (one cell per tile;
    /// cells beyond the pattern's tiles are ignored).
    #[inline]
    pub fn free_cells(&self, cells: &[u8]) -> u32 {
        let occupied = cells[..self.tiles.len()]
            .iter()
            .fold(0u32, |m, &c| m | 1 << c);
        self.grid.full() & !occupied
    }

    /// The placement with every tile home.
    pub fn home(&self) -> Vec<u8> {
        self.tiles.iter().map(|&t| t - 1).collect()
    }

    /// The cells of this pattern's tiles in a whole arrangement (`cells[c]` = tile in c).
    pub fn placement_of(&self, arrangement: &[u8]) -> Vec<u8> {
        self.tiles
            .iter()
            .map(|&t| arrangement.iter().position(|&v| v == t).unwrap() as u8)
            .collect()
    }

    /// Appends the rank of every placement one move of a pattern tile away, the blank
    /// being anywhere (the relaxation used by the consistency checks).
    pub fn placement_neighbours(&self, rank: u64, out: &mut Vec<u64>) {
        let mut cells = [0u8; MAX_CELLS];
        let k = self.tiles.len();
        self.unrank(rank, &mut cells);
        let empty = self.free_cells(&cells);
        for i in 0..k {
            let c = cells[i];
            let mut to = self.grid.adjacent(c as usize) & empty;
            while to != 0 {
                cells[i] = to.trailing_zeros() as u8;
                out.push(self.rank(&cells[..k]));
                to &= to - 1;
            }
            cells[i] = c;
        }
    }
}
