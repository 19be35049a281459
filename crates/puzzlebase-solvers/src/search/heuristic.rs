//! The bound of a search: a partition's pattern tables, read at the placements of the
//! board's tiles (and, with `reflect`, of the board reflected about its main diagonal),
//! with the incremental rank update and the lookups the search makes at every node.

use crate::pattern::{MAX_CELLS, Pattern, PatternTable};

/// A partition's patterns with their tables, ready to bound a search on a square board.
pub struct Heuristic {
    pub(super) side: usize,
    pub(super) patterns: Vec<Pattern>,
    pub(super) tables: Vec<PatternTable>,
    /// `largest[m]`: the largest region of the cells outside `m` (a pattern's cells),
    /// as [`crate::pattern::Grid::largest_region`] gives it.
    pub(super) largest: Vec<u16>,
    /// Pattern index of each tile (index 0, the blank, unused).
    pub(super) owner: [u8; MAX_CELLS],
    /// The cell reflected about the main diagonal.
    pub(super) mirror: [u8; MAX_CELLS],
    /// The tile whose home is the reflection of this tile's home.
    pub(super) relabel: [u8; MAX_CELLS],
    /// Position of each tile in its pattern's increasing list of tiles, and the weight
    /// of that position in the placement rank.
    pub(super) index: [u8; MAX_CELLS],
    pub(super) weight: [u64; MAX_CELLS],
    /// Cells adjacent to each cell, highest first: Korf's order of moves (see
    /// `Options::PLAIN` in the search).
    pub(super) adjacent: Vec<Vec<u8>>,
    pub(super) reflect: bool,
    /// For the dual lookups, by the blank's cell `b` (see [`Heuristic::dual`]): the exact
    /// number of moves of its pattern's tiles that bring home the pattern of the tile
    /// homed at `b` when that tile is in the last cell, the others home and the blank in
    /// `b`; `None` where that cannot be done (or `b` is the last cell).
    pub(super) lost: Vec<Option<u32>>,
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

impl Heuristic {
    /// Patterns of a square board of `side * side` cells (goal `1 2 .. n-1` with the blank
    /// last) and their tables (one byte per placement rank, see [`crate::pattern`]).
    pub fn new(
        patterns: Vec<Pattern>,
        tables: Vec<PatternTable>,
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
            if t.bytes.len() as u64 != p.placements() {
                return Err(HeuristicError::TableLength {
                    index,
                    found: t.bytes.len(),
                    want: p.placements(),
                });
            }
        }
        let largest = (0..1u32 << n)
            .map(|m| grid.largest_region(grid.full() & !m) as u16)
            .collect();
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
                v.reverse();
                v
            })
            .collect();
        let mut index = [0u8; MAX_CELLS];
        let mut weight = [0u64; MAX_CELLS];
        for p in &patterns {
            let k = p.tiles().len();
            for (i, &t) in p.tiles().iter().enumerate() {
                index[t as usize] = i as u8;
                // P(n - 1 - i, k - 1 - i), as in `Pattern::rank`.
                weight[t as usize] = (0..k - 1 - i).map(|m| (n - 1 - i - m) as u64).product();
            }
        }
        let mut h = Heuristic {
            side,
            patterns,
            tables,
            largest,
            owner,
            mirror,
            relabel,
            index,
            weight,
            adjacent,
            reflect,
            lost: Vec::new(),
        };
        h.lost = (0..n as u8)
            .map(|b| {
                if b as usize == n - 1 {
                    return None;
                }
                let j = h.owner[b as usize + 1] as usize;
                let p = &h.patterns[j];
                let mut at: Vec<u8> = (p.tiles().iter())
                    .map(|&t| if t == b + 1 { (n - 1) as u8 } else { t - 1 })
                    .collect();
                h.pattern_distance(j, &mut at, b)
            })
            .collect();
        Ok(h)
    }

    /// The exact number of moves of pattern `j`'s tiles (the others free) that bring them
    /// from the cells `at` home with the blank in cell `blank`; `None` if they cannot be.
    /// IDA* in the pattern's own space, guided by its table, which never exceeds that
    /// number and is nearly it: a handful of nodes for the placements asked here.
    /// Gives up (`None`, which only weakens the dual lookups) after a million nodes, which
    /// tables far from exact (the tests' tables of zeros) would need.
    fn pattern_distance(&self, j: usize, at: &mut [u8], blank: u8) -> Option<u32> {
        let mut bound = 0;
        let mut budget = 1_000_000u32;
        loop {
            let mut next = u32::MAX;
            if self.pattern_probe(j, at, blank, 0, bound, &mut next, &mut budget) {
                return Some(bound);
            }
            // Entries of 255 mark placements that cannot reach home.
            if next >= 255 || budget == 0 {
                return None;
            }
            bound = next;
        }
    }

    // The probe's state travels as parts: it runs once per node of the search.
    #[allow(clippy::too_many_arguments)]
    fn pattern_probe(
        &self,
        j: usize,
        at: &mut [u8],
        blank: u8,
        g: u32,
        bound: u32,
        next: &mut u32,
        budget: &mut u32,
    ) -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let p = &self.patterns[j];
        let occupied = at.iter().fold(0u32, |m, &c| m | 1 << c);
        let f = g + self.bound(j as u8, p.rank(at), occupied as u16, blank);
        if f > bound {
            *next = (*next).min(f);
            return false;
        }
        if at.iter().zip(p.tiles()).all(|(&c, &t)| c + 1 == t) {
            return true;
        }
        let grid = p.grid();
        let region = grid.region(1 << blank, grid.full() & !occupied);
        for i in 0..at.len() {
            let from = at[i];
            let mut to = grid.adjacent(from as usize) & region;
            while to != 0 {
                at[i] = to.trailing_zeros() as u8;
                to &= to - 1;
                // The tile leaves `from` free, in the blank's new region.
                let found = self.pattern_probe(j, at, from, g + 1, bound, next, budget);
                at[i] = from;
                if found {
                    return true;
                }
            }
        }
        false
    }

    pub fn cells(&self) -> usize {
        self.side * self.side
    }

    /// The patterns and their tables, in partition order.
    pub fn tables(&self) -> impl Iterator<Item = (&Pattern, &PatternTable)> {
        self.patterns.iter().zip(&self.tables)
    }

    /// Copies the tables into memory backed by huge pages ([`puzzlebase_core::memory::huge_vec`]):
    /// the search then reads them about twice as fast, at the cost of a copy that can
    /// take a second when the kernel has to compact memory first. Worth it for a process
    /// that answers many positions, not for one `query`.
    pub fn move_to_huge_pages(&mut self) {
        for t in &mut self.tables {
            let mut v = puzzlebase_core::memory::huge_vec(t.bytes.len());
            v.extend_from_slice(&t.bytes);
            t.bytes = v;
        }
    }

    /// Whether the reflected lookup is used.
    pub fn reflects(&self) -> bool {
        self.reflect
    }
}

/// Asks the processor to bring a table entry into its cache: the entries a node's
/// children need are requested together, so their memory latencies overlap.
#[inline(always)]
pub(super) fn prefetch(table: &[u8], i: u64) {
    #[cfg(target_arch = "x86_64")]
    if let Some(p) = table.get(i as usize) {
        // SAFETY: a hint about an address inside the table; nothing is read or written.
        unsafe {
            std::arch::x86_64::_mm_prefetch(
                p as *const u8 as *const i8,
                std::arch::x86_64::_MM_HINT_T0,
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (table, i);
}

impl Heuristic {
    /// The rank of the placement of tile `t`'s pattern after `t` moves from cell `a` to
    /// the free adjacent cell `b`, from `rank` before the move, `tile_at` giving the
    /// board. With `rank = sum_i d_i * w_i` and `d_i` = cell of the i-th tile minus the
    /// earlier tiles in lower cells ([`crate::pattern`]), only tiles of the pattern in the
    /// cells strictly between `a` and `b` change a digit besides `t`'s own: none for a move
    /// along a row, at most `side - 1` along a column.
    #[inline(always)]
    pub(super) fn moved_rank(
        &self,
        rank: u64,
        t: u8,
        a: u8,
        b: u8,
        tile_at: impl Fn(usize) -> u8,
    ) -> u64 {
        let j = self.owner[t as usize];
        let i = self.index[t as usize];
        let (lo, hi) = (a.min(b) as usize, a.max(b) as usize);
        let (mut earlier, mut later) = (0u64, 0u64);
        for x in lo + 1..hi {
            let u = tile_at(x) as usize;
            if self.owner[u] == j {
                if self.index[u] < i {
                    earlier += 1;
                } else {
                    later += self.weight[u];
                }
            }
        }
        let delta =
            (hi - lo) as u64 * self.weight[t as usize] - earlier * self.weight[t as usize] + later;
        if b > a { rank + delta } else { rank - delta }
    }

    /// The dual lookups of the board `cells` (tile per cell) whose blank is in cell
    /// `blank`: the same tables read at the *dual* placements, the larger of the sum on the
    /// board and (with `reflect`) the sum on its reflection.
    ///
    /// # Why this is admissible
    /// Number the cells by the tiles whose home they are (the blank's home is the last
    /// cell, `n - 1`) and let `p(x)` be the cell now holding the tile whose home is `x`. A
    /// solution of `k` moves swaps the blank with a neighbour `k` times, each swap a
    /// transposition `t_i` of two adjacent cells, and `t_k .. t_1 p = id`. Applied to a
    /// board, the same transpositions in the same order are also legal moves when they
    /// start from a board whose blank is in cell `b`, the blank's cell now: take `G'`, the
    /// goal with the blank and the tile homed at `b` exchanged (blank in `b`, that tile in
    /// the last cell); the moves take it, in `k` moves, to `D = t_k .. t_1 G'`, and back.
    /// Tile by tile, `D` puts the tile homed at `x` in the home of the tile now in cell
    /// `x`, except that the blank is in the last cell and the tile homed at `b` is where
    /// the last cell's tile is at home. So `D` is `k` moves from `G'`, where every pattern
    /// is home except the one holding the tile homed at `b`: each table but that one's,
    /// read at `D`'s placement of its tiles (blank in the last cell), bounds the moves of
    /// its tiles on the way to `G'`. For that one, the moves of its tiles from `D` to `G'`
    /// are at least its table's entry for `D` less the exact number of moves of its tiles
    /// from `G'` home (`lost`, computed once per cell by a small search): the triangle
    /// inequality in the pattern's own space. The terms count moves of disjoint tiles, so
    /// their sum bounds `k` as the ordinary sum does (Felner et al. 2005, "dual lookups",
    /// here for any cell of the blank). With the blank at home the dual is the inverse
    /// permutation itself and every table counts in full. The reflection about the main
    /// diagonal fixes the goal, so the reflected board's dual bound is another.
    /// `dual_lookups_never_exceed_the_distance` checks it on every position of the
    /// 8-puzzle, and that the lost pattern's entry in full would not be admissible.
    #[inline]
    pub(super) fn dual(&self, cells: &[u8], blank: u8) -> u32 {
        let corner = (self.cells() - 1) as u8;
        let mut best = 0;
        for mirrored in [false, true] {
            if mirrored && !self.reflect {
                break;
            }
            let b = if mirrored {
                self.mirror[blank as usize]
            } else {
                blank
            };
            let lost = if b == corner {
                u8::MAX
            } else {
                self.owner[b as usize + 1]
            };
            let mut sum = 0;
            for (j, p) in self.patterns.iter().enumerate() {
                let offset = if j as u8 == lost {
                    match self.lost[b as usize] {
                        Some(o) => o,
                        None => continue,
                    }
                } else {
                    0
                };
                let mut at = [0u8; MAX_CELLS];
                let k = p.tiles().len();
                for (i, &t) in p.tiles().iter().enumerate() {
                    // The home of the tile now in tile t's home (the last cell's tile
                    // for the tile whose home holds the blank), on the board looked at.
                    let x = if t - 1 == b { corner } else { t - 1 };
                    at[i] = if mirrored {
                        self.mirror[cells[self.mirror[x as usize] as usize] as usize - 1]
                    } else {
                        cells[x as usize] - 1
                    };
                }
                let rank = p.rank(&at[..k]);
                let occupied = at[..k].iter().fold(0u16, |m, &c| m | 1 << c);
                sum += self
                    .bound(j as u8, rank, occupied, corner)
                    .saturating_sub(offset);
            }
            best = best.max(sum);
        }
        best
    }

    /// Pattern `j`'s bound at placement `rank`, its tiles in the cells of `occupied`
    /// and the blank in cell `blank`.
    #[inline(always)]
    pub(super) fn bound(&self, j: u8, rank: u64, occupied: u16, blank: u8) -> u32 {
        let t = &self.tables[j as usize];
        let in_largest = self.largest[occupied as usize] >> blank & 1 == 1;
        t.entry.bound(t.bytes[rank as usize], in_largest)
    }
}
