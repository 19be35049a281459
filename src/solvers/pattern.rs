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
//! By the shared breadth-first solver ([`crate::solvers::bfs`]) over [`PatternSpace`], whose states
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
//!
//! # What a byte holds ([`Entry`])
//! A search knows where the blank is, so it can use more than the minimum over regions.
//! Where every entry fits in six bits ([`Entry::LargestRegion`]), the byte splits a
//! placement's regions in two: its *largest* region (the one with the most free cells,
//! the lowest cell breaking ties; the blank is there four times in five) and all the
//! others. Bits 0-5 hold the minimum over every region; bit 6 is set when the distance
//! with the blank in the largest region is at least two more than that, bit 7 when the
//! distance with the blank in every other region is. A search adds two moves when the
//! set bit is the blank's side, and the bound stays admissible because it never exceeds
//! the distance of the (placement, region) state. The grid's cells are two-coloured and
//! every move changes one tile's colour, so all regions of a placement are at distances
//! of one parity (that of its tiles' Manhattan distances): the sides differ by an even
//! number, and the bound keeps the parity of the moves left, which IDA* needs to raise
//! its bound two moves at a time. Measured over random positions, this keeps 70 to 80%
//! of what the exact region would add (the two bits capped at two moves lose almost
//! nothing: the sides rarely differ by more). Otherwise ([`Entry::Minimum`]) the byte is
//! the minimum.

use rayon::prelude::*;
use thiserror::Error;

use crate::core::progress::Progress;
use crate::core::rank::FACT;
use crate::core::space::StateSpace;
use crate::solvers::bfs::{self, Outputs, SolveError, UNREACHED};

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

    pub(crate) fn full(&self) -> u32 {
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

/// What the byte of a placement holds (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// The minimum over the blank's regions ([`UNREACHED`]: home cannot be reached).
    Minimum,
    /// Bits 0-5: the minimum over the blank's regions; bit 6: the blank in the
    /// placement's largest region ([`Grid::largest_region`]) is at least two moves
    /// farther; bit 7: the blank in any other region is.
    LargestRegion,
}

impl Entry {
    /// The most a [`Entry::LargestRegion`] byte's minimum can be.
    pub const MAX_WITH_REGION: u8 = 63;

    /// The name stored in a table's layout (`entry`).
    pub fn name(self) -> &'static str {
        match self {
            Entry::Minimum => "minimum",
            Entry::LargestRegion => "minimum+largest-region",
        }
    }

    pub fn from_name(name: &str) -> Option<Entry> {
        [Entry::Minimum, Entry::LargestRegion]
            .into_iter()
            .find(|e| e.name() == name)
    }

    /// The minimum over the blank's regions that `byte` holds.
    #[inline]
    pub fn minimum(self, byte: u8) -> u8 {
        match self {
            Entry::Minimum => byte,
            Entry::LargestRegion => byte & Entry::MAX_WITH_REGION,
        }
    }

    /// The bound `byte` gives with the blank in the placement's largest region or not.
    #[inline]
    pub fn bound(self, byte: u8, in_largest: bool) -> u32 {
        match self {
            Entry::Minimum => byte as u32,
            Entry::LargestRegion => {
                let farther = byte >> (6 + !in_largest as u8) & 1;
                (byte & Entry::MAX_WITH_REGION) as u32 + 2 * farther as u32
            }
        }
    }
}

/// A pattern's table: one byte per placement rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub entry: Entry,
    pub bytes: Vec<u8>,
}

/// Builds the table of `pattern` by the shared BFS over (placement, region) states: as
/// [`Entry::LargestRegion`] where every distance fits, else as [`Entry::Minimum`].
pub fn build(pattern: &Pattern, progress: &dyn Progress) -> Result<Table, PatternError> {
    let by_region = solve_regions(pattern, progress)?;
    Ok(encode(pattern, &by_region))
}

fn solve_regions(pattern: &Pattern, progress: &dyn Progress) -> Result<Vec<u8>, PatternError> {
    let space = PatternSpace::new(pattern);
    bfs::solve_with(&space, Outputs::DISTANCES, progress)
        .map(|t| t.dist)
        .map_err(|e: SolveError| PatternError::Solve(pattern.tiles.clone(), e.to_string()))
}

/// The table of `pattern` from the distances of its (placement, region) states.
fn encode(pattern: &Pattern, by_region: &[u8]) -> Table {
    let slots = pattern.grid.cells() - pattern.tiles.len();
    let minimum = |s: &[u8]| *s.iter().min().unwrap();
    // Decided first, so that only one table of a byte per placement is ever allocated
    // beside the distances (the 8-tile pattern's are 4 GB).
    if (by_region.par_chunks(slots)).any(|s| minimum(s) > Entry::MAX_WITH_REGION) {
        return Table {
            entry: Entry::Minimum,
            bytes: by_region.par_chunks(slots).map(minimum).collect(),
        };
    }
    let k = pattern.tiles.len();
    let bytes = (by_region.par_chunks(slots))
        .enumerate()
        .map_init(
            || [0u8; MAX_CELLS],
            |cells, (placement, s)| {
                let m = minimum(s);
                pattern.unrank(placement as u64, cells);
                let occupied = cells[..k].iter().fold(0u32, |o, &c| o | 1 << c);
                let empty = pattern.grid.full() & !occupied;
                let largest = pattern.grid.largest_region(empty);
                // Slot i is the i-th free cell; only a region's lowest cell is a state,
                // the other slots stay unreached, so a minimum over a side's cells is
                // the distance of its region(s).
                let (mut inside, mut outside) = (UNREACHED, UNREACHED);
                let (mut rest, mut i) = (empty, 0);
                while rest != 0 {
                    let cell = rest & rest.wrapping_neg();
                    let side = if cell & largest != 0 {
                        &mut inside
                    } else {
                        &mut outside
                    };
                    *side = (*side).min(s[i]);
                    rest &= rest - 1;
                    i += 1;
                }
                // A placement with one region has no other side: its bit stays clear.
                let farther = |d: u8| (d != UNREACHED && d >= m + 2) as u8;
                m | farther(inside) << 6 | farther(outside) << 7
            },
        )
        .collect();
    Table {
        entry: Entry::LargestRegion,
        bytes,
    }
}

/// Checks a stored table against its definition, entry by entry:
///
/// * the home placement holds 0 and no other placement does;
/// * no entry is below one more than its smallest neighbour's (a move of one pattern tile
///   into an adjacent free cell), which is what the tables' additivity rests on;
/// * each byte is what [`build`] makes of the distances of (placement, region), which are
///   recomputed by the shared BFS and are themselves checked against the relation that
///   defines them: 0 exactly at home, and otherwise 1 + the minimum over the states one
///   pattern-tile move away (free moves of the blank being the region itself).
///
/// Costs one breadth-first search of the pattern (seconds for six tiles).
pub fn check(pattern: &Pattern, table: &Table) -> Result<(), PatternError> {
    check_local(pattern, table)?;
    let space = PatternSpace::new(pattern);
    let by_region = solve_regions(pattern, &crate::core::progress::Silent)?;
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
    let want = encode(pattern, &by_region);
    if want.entry != table.entry {
        return Err(PatternError::Encoding {
            tiles: tiles(),
            found: table.entry.name(),
            want: want.entry.name(),
        });
    }
    if let Some(rank) = (0..table.bytes.len()).find(|&i| table.bytes[i] != want.bytes[i]) {
        let (got, w) = (table.bytes[rank], want.bytes[rank]);
        let why = match want.entry {
            Entry::Minimum => format!("the minimum over the blank's regions is {w}"),
            Entry::LargestRegion => format!(
                "the minimum over the blank's regions is {}, the largest region {} farther, the others {} (byte {w})",
                w & Entry::MAX_WITH_REGION,
                if w >> 6 & 1 == 1 {
                    "two moves or more"
                } else {
                    "no"
                },
                if w >> 7 == 1 {
                    "two moves or more"
                } else {
                    "no"
                }
            ),
        };
        return Err(PatternError::Entry {
            tiles: tiles(),
            rank: rank as u64,
            found: got,
            why,
        });
    }
    Ok(())
}

/// The checks of [`check`] that need the table alone: its length, 0 exactly at home, and
/// no minimum below one more than its smallest neighbouring placement's.
pub fn check_local(pattern: &Pattern, table: &Table) -> Result<(), PatternError> {
    let entry = table.entry;
    let table = &table.bytes;
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
            let byte = table[r as usize];
            let d = entry.minimum(byte);
            let bad = |why: String| PatternError::Entry {
                tiles: pattern.tiles.clone(),
                rank: r,
                found: byte,
                why,
            };
            if r == home {
                return if byte == 0 {
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
                .map(|&n| entry.minimum(table[n as usize]))
                .min()
                .unwrap_or(UNREACHED);
            if best == UNREACHED || d < best + 1 {
                return Err(bad(format!(
                    "below 1 + its smallest neighbour's minimum ({best})"
                )));
            }
            Ok(())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::progress::Silent;
    use crate::families::sliding::Sliding;

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

    #[test]
    fn the_largest_region_has_the_most_cells_and_ties_go_to_the_lowest() {
        let g = Grid::new(4, 4);
        // Column 1 full: column 0 (4 cells) against columns 2-3 (8 cells).
        let wall = (1 << 1) | (1 << 5) | (1 << 9) | (1 << 13);
        assert_eq!(g.largest_region(g.full() & !wall), 0xCCCC);
        // Columns 1 and 2 full: columns 0 and 3, four cells each.
        let wall2 = wall | wall << 1;
        assert_eq!(g.largest_region(g.full() & !wall2), 0x1111);
        assert_eq!(g.largest_region(0), 0);
    }

    /// Each byte's bound, with the blank in any cell, never exceeds the distance of the
    /// (placement, region) state it stands for, and reaches it at least once above the
    /// minimum: the region bits are admissible and used.
    #[test]
    fn region_bounds_are_admissible_and_sometimes_above_the_minimum() {
        let p = Pattern::new(Grid::new(4, 4), &[1, 2, 5, 6, 9]).unwrap();
        let by_region = solve_regions(&p, &Silent).unwrap();
        let table = encode(&p, &by_region);
        assert_eq!(table.entry, Entry::LargestRegion);
        let slots = 11;
        let mut cells = [0u8; MAX_CELLS];
        let mut above = 0;
        for r in (0..p.placements()).step_by(7) {
            p.unrank(r, &mut cells);
            let occupied = cells[..5].iter().fold(0u32, |o, &c| o | 1 << c);
            let empty = p.grid.full() & !occupied;
            let largest = p.grid.largest_region(empty);
            let byte = table.bytes[r as usize];
            for blank in (0..16).filter(|&b| empty >> b & 1 == 1) {
                let bound = table.entry.bound(byte, largest >> blank & 1 == 1);
                let d = by_region[(r * slots + p.grid.ordinal(empty, blank) as u64) as usize];
                assert!(bound <= d as u32, "placement {r}, blank {blank}");
                assert_eq!(bound % 2, d as u32 % 2, "placement {r}, blank {blank}");
                above += (bound > (byte & 63) as u32) as u32;
            }
        }
        assert!(above > 0);
    }

    /// With every tile in the pattern the blank is in a region of one cell, so the table
    /// is the puzzle's own distance table: the same as the plain BFS of `eight`.
    #[test]
    fn a_pattern_of_every_tile_is_the_full_distance_table() {
        let eight = Sliding::grid("eight", 3, 3);
        let full = bfs::solve_with(&eight, Outputs::DISTANCES, &Silent).unwrap();
        let p = Pattern::new(Grid::new(3, 3), &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let built = build(&p, &Silent).unwrap();
        // Half the placements cannot reach home, which only the plain minimum can say.
        assert_eq!(built.entry, Entry::Minimum);
        let table = &built.bytes;
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
        check(&p, &built).unwrap();
    }

    #[test]
    fn small_fifteen_patterns_pass_the_check_and_a_damaged_one_fails() {
        let g = Grid::new(4, 4);
        for tiles in [&[2u8, 3, 4][..], &[1, 5, 6, 9]] {
            let p = Pattern::new(g.clone(), tiles).unwrap();
            let mut table = build(&p, &Silent).unwrap();
            assert_eq!(table.entry, Entry::LargestRegion);
            check(&p, &table).unwrap();
            assert_eq!(table.bytes[p.rank(&p.home()) as usize], 0);
            // Raising one entry breaks the recomputed minimum; lowering one below its
            // neighbours' breaks the local relation; so does a region bit set too many.
            let r = (p.placements() / 3) as usize;
            table.bytes[r] += 1;
            assert!(check(&p, &table).is_err());
            table.bytes[r] -= 1;
            table.bytes[r] ^= 3 << 6;
            assert!(check(&p, &table).is_err());
            table.bytes[r] ^= 3 << 6;
            let plain = Table {
                entry: Entry::Minimum,
                bytes: table.bytes.iter().map(|&b| b & 63).collect(),
            };
            assert!(matches!(
                check(&p, &plain),
                Err(PatternError::Encoding { .. })
            ));
            let far = (0..table.bytes.len())
                .max_by_key(|&i| table.bytes[i] & 63)
                .unwrap();
            table.bytes[far] = 1;
            assert!(check_local(&p, &table).is_err());
            table.bytes.remove(0);
            assert!(check(&p, &table).is_err());
        }
    }
}
