//! Pattern databases for sliding puzzles on a rectangular grid (the 4x4 `fifteen`): for a
//! *pattern*, a set of tiles, a table giving for every placement of those tiles the
//! minimum number of moves **of those tiles** that brings them home, the other tiles
//! being indistinguishable and their moves free. Tables of disjoint patterns add up to an
//! admissible bound (Korf & Felner 2002; Felner, Korf & Hanan 2004).
//!
//! # Placements and their ranks
//! A pattern's tiles are listed in increasing order `t_0 < t_1 < ... < t_{k-1}` (tile `t`
//! belongs in cell `t - 1`, cells row-major). A placement is the cell `c_i` of each tile, a
//! k-permutation of the `n` cells, ranked lexicographically:
//!
//! ```text
//! rank = sum over i of d_i * P(n - 1 - i, k - 1 - i),   P(a, b) = a! / (a - b)!
//! d_i  = c_i - #{ j < i : c_j < c_i }
//! ```
//!
//! so ranks run densely over `0..P(n, k)` (5,765,760 for six tiles of 16 cells,
//! 57,657,600 for seven, 518,918,400 for eight).
//!
//! # How a table is built
//! By the shared breadth-first solver ([`crate::bfs`]) over [`PatternSpace`], whose states
//! are a placement together with the *region* of the blank: the connected set of cells not
//! holding a pattern tile that contains the blank. Within a region the blank moves for free
//! (those moves slide non-pattern tiles), so a region is one state; a move of a pattern
//! tile into an adjacent cell of the blank's region costs one and leaves the blank in the
//! region of the cell the tile left. The rank of a state is
//! `placement_rank * (n - k) + ordinal`, where `ordinal` names the region by its lowest
//! cell, numbered among the `n - k` free cells of the placement (ordinals of cells that
//! are not the lowest of their region are ranks that are never reached). The goal states are the home placement with
//! the blank in any region. A table entry is the minimum over the regions of its
//! placement. For eight tiles of sixteen cells the state space has
//! 518,918,400 * 8 = 4,151,347,200 ranks, which still fits the solver's 32-bit ranks.

use rayon::prelude::*;
use thiserror::Error;

use crate::bfs::{self, Outputs, SolveError, UNREACHED};
use crate::progress::Progress;
use crate::rank::FACT;
use crate::space::StateSpace;

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
    fn region(&self, seed: u32, allowed: u32) -> u32 {
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
    fn ordinal(&self, empty: u32, cell: usize) -> u8 {
        let low = self.region(1 << cell, empty).trailing_zeros();
        (empty & ((1u32 << low) - 1)).count_ones() as u8
    }

    /// The region named `ordinal` (see [`Grid::ordinal`]): `None` if the free cell with
    /// that number is not the lowest of its region, or there is no such cell.
    #[inline]
    fn region_by_ordinal(&self, empty: u32, ordinal: u8) -> Option<u32> {
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

    fn full(&self) -> u32 {
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
    grid: Grid,
    /// The tiles, increasing; tile `t` belongs in cell `t - 1`.
    tiles: Vec<u8>,
    /// `weights[i] = P(n - 1 - i, k - 1 - i)`.
    weights: Vec<u64>,
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
        let occupied = cells[..k].iter().fold(0u32, |m, &c| m | 1 << c);
        for i in 0..k {
            let c = cells[i];
            let mut to = self.grid.adjacent(c as usize) & !occupied;
            while to != 0 {
                cells[i] = to.trailing_zeros() as u8;
                out.push(self.rank(&cells[..k]));
                to &= to - 1;
            }
            cells[i] = c;
        }
    }
}

/// The breadth-first state space of a pattern: (placement, region of the blank).
pub struct PatternSpace<'a> {
    pattern: &'a Pattern,
    /// Ranks per placement: `n - k`, the most regions a placement can have.
    slots: u64,
}

impl<'a> PatternSpace<'a> {
    pub fn new(pattern: &'a Pattern) -> PatternSpace<'a> {
        let slots = (pattern.grid.cells() - pattern.tiles.len()) as u64;
        PatternSpace { pattern, slots }
    }

    pub fn slots(&self) -> u64 {
        self.slots
    }
}

impl StateSpace for PatternSpace<'_> {
    fn size(&self) -> u64 {
        self.pattern.placements() * self.slots
    }

    fn goals(&self) -> Vec<u64> {
        let p = self.pattern;
        let home = p.home();
        let occupied = home.iter().fold(0u32, |m, &c| m | 1 << c);
        let empty = p.grid.full() & !occupied;
        let base = p.rank(&home) * self.slots;
        (0..self.slots as u8)
            .filter(|&o| p.grid.region_by_ordinal(empty, o).is_some())
            .map(|o| base + o as u64)
            .collect()
    }

    fn neighbors(&self, rank: u64, out: &mut Vec<u64>) {
        let p = self.pattern;
        let k = p.tiles.len();
        let (placement, ordinal) = (rank / self.slots, (rank % self.slots) as u8);
        let mut cells = [0u8; MAX_CELLS];
        p.unrank(placement, &mut cells);
        let occupied = cells[..k].iter().fold(0u32, |m, &c| m | 1 << c);
        let empty = p.grid.full() & !occupied;
        let Some(region) = p.grid.region_by_ordinal(empty, ordinal) else {
            return;
        };
        for i in 0..k {
            let from = cells[i];
            let mut to = p.grid.adjacent(from as usize) & region;
            while to != 0 {
                let d = to.trailing_zeros() as u8;
                to &= to - 1;
                cells[i] = d;
                let now_empty = (empty | 1 << from) & !(1 << d);
                let ord = p.grid.ordinal(now_empty, from as usize);
                out.push(p.rank(&cells[..k]) * self.slots + ord as u64);
            }
            cells[i] = from;
        }
    }
}

/// Builds the table of `pattern`: one byte per placement rank, the minimum number of
/// pattern-tile moves over every position of the blank ([`UNREACHED`] for placements that
/// cannot reach home, which only happens on grids with a single free cell).
pub fn build(pattern: &Pattern, progress: &dyn Progress) -> Result<Vec<u8>, PatternError> {
    let by_region = solve_regions(pattern, progress)?;
    Ok(min_over_regions(
        &by_region,
        pattern.grid.cells() - pattern.tiles.len(),
    ))
}

fn solve_regions(pattern: &Pattern, progress: &dyn Progress) -> Result<Vec<u8>, PatternError> {
    let space = PatternSpace::new(pattern);
    bfs::solve_with(&space, Outputs::DISTANCES, progress)
        .map(|t| t.dist)
        .map_err(|e: SolveError| PatternError::Solve(pattern.tiles.clone(), e.to_string()))
}

fn min_over_regions(by_region: &[u8], slots: usize) -> Vec<u8> {
    by_region
        .par_chunks(slots)
        .map(|s| *s.iter().min().unwrap())
        .collect()
}

/// Checks a stored table against its definition, entry by entry:
///
/// * the home placement holds 0 and no other placement does;
/// * no entry is below one more than its smallest neighbour's (a move of one pattern tile
///   into an adjacent free cell), which is what the tables' additivity rests on;
/// * each entry equals the minimum over the blank's regions of the distance of
///   (placement, region), where those distances are recomputed by the shared BFS and are
///   themselves checked against the relation that defines them: 0 exactly at home, and
///   otherwise 1 + the minimum over the states one pattern-tile move away (free moves of
///   the blank being the region itself).
///
/// Costs one breadth-first search of the pattern (seconds for six tiles).
pub fn check(pattern: &Pattern, table: &[u8]) -> Result<(), PatternError> {
    check_local(pattern, table)?;
    let space = PatternSpace::new(pattern);
    let by_region = solve_regions(pattern, &crate::progress::Silent)?;
    let slots = space.slots() as usize;
    let tiles = || pattern.tiles.clone();
    let home = pattern.rank(&pattern.home());
    let home_empty = pattern.grid.full() & !pattern.home().iter().fold(0u32, |m, &c| m | 1 << c);
    // The relation that defines the search's distances, checked state by state.
    (0..by_region.len() as u64)
        .into_par_iter()
        .try_for_each_init(Vec::new, |buf, r| {
            let d = by_region[r as usize];
            buf.clear();
            space.neighbors(r, buf);
            let at_home = r / slots as u64 == home;
            if buf.is_empty() && !at_home {
                // An ordinal beyond the placement's regions: never a state.
                return if d == UNREACHED {
                    Ok(())
                } else {
                    Err(PatternError::Relation {
                        tiles: tiles(),
                        rank: r,
                        found: d,
                        why: "but it is not a state".into(),
                    })
                };
            }
            let best = buf.iter().map(|&n| by_region[n as usize]).min();
            let is_goal = at_home
                && (pattern.grid)
                    .region_by_ordinal(home_empty, (r % slots as u64) as u8)
                    .is_some();
            let want = if is_goal {
                0
            } else {
                match best {
                    Some(b) if b != UNREACHED => b + 1,
                    _ => UNREACHED,
                }
            };
            if d != want {
                return Err(PatternError::Relation {
                    tiles: tiles(),
                    rank: r,
                    found: d,
                    why: format!("1 + the minimum over its neighbours is {want}"),
                });
            }
            Ok(())
        })?;
    let want = min_over_regions(&by_region, slots);
    if let Some(rank) = (0..table.len()).find(|&i| table[i] != want[i]) {
        return Err(PatternError::Entry {
            tiles: tiles(),
            rank: rank as u64,
            found: table[rank],
            why: format!("the minimum over the blank's regions is {}", want[rank]),
        });
    }
    Ok(())
}

/// The checks of [`check`] that need the table alone: its length, 0 exactly at home, and
/// no entry below one more than its smallest neighbour's.
pub fn check_local(pattern: &Pattern, table: &[u8]) -> Result<(), PatternError> {
    if table.len() as u64 != pattern.placements() {
        return Err(PatternError::Length {
            found: table.len(),
            want: pattern.placements(),
        });
    }
    let home = pattern.rank(&pattern.home());
    (0..table.len() as u64)
        .into_par_iter()
        .try_for_each_init(Vec::new, |buf, r| {
            let d = table[r as usize];
            let bad = |why: String| PatternError::Entry {
                tiles: pattern.tiles.clone(),
                rank: r,
                found: d,
                why,
            };
            if r == home {
                return if d == 0 {
                    Ok(())
                } else {
                    Err(bad("the home placement must hold 0".into()))
                };
            }
            if d == 0 {
                return Err(bad("only the home placement holds 0".into()));
            }
            if d == UNREACHED {
                return Ok(());
            }
            buf.clear();
            pattern.placement_neighbours(r, buf);
            let best = buf
                .iter()
                .map(|&n| table[n as usize])
                .min()
                .unwrap_or(UNREACHED);
            if best == UNREACHED || d < best + 1 {
                return Err(bad(format!(
                    "below 1 + its smallest neighbour's entry ({best})"
                )));
            }
            Ok(())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::puzzles::sliding::Sliding;

    #[test]
    fn placement_ranks_are_dense_and_round_trip() {
        let p = Pattern::new(Grid::new(3, 3), &[2, 5, 7]).unwrap();
        assert_eq!(p.placements(), 9 * 8 * 7);
        let mut seen = vec![false; p.placements() as usize];
        let mut cells = [0u8; 3];
        for r in 0..p.placements() {
            p.unrank(r, &mut cells);
            assert_eq!(p.rank(&cells), r);
            assert!(!std::mem::replace(&mut seen[r as usize], true));
        }
        // Lexicographic: the first placement is cells 0, 1, 2; the last 8, 7, 6.
        assert_eq!(p.rank(&[0, 1, 2]), 0);
        assert_eq!(p.rank(&[8, 7, 6]), p.placements() - 1);
        let big = Pattern::new(Grid::new(4, 4), &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        assert_eq!(big.placements(), 518_918_400);
        assert_eq!(PatternSpace::new(&big).size(), 4_151_347_200);
        assert!(PatternSpace::new(&big).size() < u32::MAX as u64);
    }

    #[test]
    fn bad_patterns_are_refused() {
        let g = Grid::new(4, 4);
        assert!(Pattern::new(g.clone(), &[]).is_err());
        assert!(Pattern::new(g.clone(), &[0, 1]).is_err());
        assert!(Pattern::new(g.clone(), &[16]).is_err());
        assert!(Pattern::new(g.clone(), &[3, 3]).is_err());
        assert!(Pattern::new(g, &(1..=15).collect::<Vec<_>>()).is_ok());
    }

    #[test]
    fn regions_are_named_by_their_lowest_free_cell() {
        let g = Grid::new(4, 4);
        // Column 1 full: cells 0, 4, 8, 12 form one region, columns 2-3 another, whose
        // lowest cell 2 is the second free cell.
        let wall = (1 << 1) | (1 << 5) | (1 << 9) | (1 << 13);
        let empty = g.full() & !wall;
        assert_eq!(g.ordinal(empty, 12), 0);
        assert_eq!(g.ordinal(empty, 2), 1);
        assert_eq!(g.ordinal(empty, 15), 1);
        assert_eq!(g.region_by_ordinal(empty, 0), Some(0x1111));
        assert_eq!(g.region_by_ordinal(empty, 1), Some(0xCCCC));
        // Free cell 2 is cell 3, not the lowest of its region; there are 12 free cells.
        assert_eq!(g.region_by_ordinal(empty, 2), None);
        assert_eq!(g.region_by_ordinal(empty, 12), None);
    }

    /// With every tile in the pattern the blank is in a region of one cell, so the table
    /// is the puzzle's own distance table: the same as the plain BFS of `eight`.
    #[test]
    fn a_pattern_of_every_tile_is_the_full_distance_table() {
        let eight = Sliding::grid("eight", 3, 3);
        let full = bfs::solve_with(&eight, Outputs::DISTANCES, &Silent).unwrap();
        let p = Pattern::new(Grid::new(3, 3), &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let table = build(&p, &Silent).unwrap();
        let mut checked = 0;
        for r in 0..eight.size() {
            let cells = eight.unrank(r);
            let placement = p.placement_of(&cells);
            assert_eq!(table[p.rank(&placement) as usize], full.dist[r as usize]);
            checked += 1;
        }
        assert_eq!(checked, 181_440);
        // The other half of the placements (odd permutations) cannot reach home.
        assert_eq!(table.iter().filter(|&&d| d == UNREACHED).count(), 181_440);
        check(&p, &table).unwrap();
    }

    #[test]
    fn small_fifteen_patterns_pass_the_check_and_a_damaged_one_fails() {
        let g = Grid::new(4, 4);
        for tiles in [&[2u8, 3, 4][..], &[1, 5, 6, 9]] {
            let p = Pattern::new(g.clone(), tiles).unwrap();
            let mut table = build(&p, &Silent).unwrap();
            check(&p, &table).unwrap();
            assert_eq!(table[p.rank(&p.home()) as usize], 0);
            assert!(table.iter().all(|&d| d != UNREACHED));
            // Raising one entry breaks the recomputed minimum; lowering one below its
            // neighbours' breaks the local relation.
            let r = (p.placements() / 3) as usize;
            table[r] += 1;
            assert!(check(&p, &table).is_err());
            table[r] -= 1;
            let far = (0..table.len()).max_by_key(|&i| table[i]).unwrap();
            table[far] = 1;
            assert!(check_local(&p, &table).is_err());
            assert!(check(&p, &table[1..]).is_err());
        }
    }
}
