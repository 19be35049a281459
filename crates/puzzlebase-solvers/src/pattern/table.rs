//! A pattern's table (see the ranking of placements in the parent module).
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

use super::placement::{MAX_CELLS, Pattern, PatternError};
use crate::bfs::{self, Outputs, SolveError, UNREACHED};
use puzzlebase_core::progress::Progress;
use puzzlebase_core::space::StateSpace;

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

    fn reachable(&self) -> Option<u64> {
        self.pattern.reachable_states()
    }

    fn goals(&self) -> Vec<u64> {
        let p = self.pattern;
        let home = p.home();
        let empty = p.free_cells(&home);
        let base = p.rank(&home) * self.slots;
        (0..self.slots as u8)
            .filter(|&o| p.grid.region_by_ordinal(empty, o).is_some())
            .map(|o| base + o as u64)
            .collect()
    }

    fn neighbors(&self, rank: u64, out: &mut Vec<u64>) {
        let p = self.pattern;
        let (placement, ordinal) = (rank / self.slots, (rank % self.slots) as u8);
        let mut cells = [0u8; MAX_CELLS];
        p.unrank(placement, &mut cells);
        let empty = p.free_cells(&cells);
        let Some(region) = p.grid.region_by_ordinal(empty, ordinal) else {
            return;
        };
        self.moves(&mut cells, empty, region, out);
    }
}

impl PatternSpace<'_> {
    /// The states one pattern-tile move away from the placement `cells` with the blank in
    /// `region` of its free cells `empty` (as [`StateSpace::neighbors`] gives them).
    #[inline]
    pub(super) fn moves(
        &self,
        cells: &mut [u8; MAX_CELLS],
        empty: u32,
        region: u32,
        out: &mut Vec<u64>,
    ) {
        let grid = &self.pattern.grid;
        self.moves_with(cells, empty, region, out, |e, c| grid.ordinal(e, c));
    }

    /// [`PatternSpace::moves`], naming the region of a cell in a set of free cells by
    /// `ordinal` (as [`Grid::ordinal`](super::Grid::ordinal) does: a caller may look it
    /// up instead).
    #[inline]
    pub(super) fn moves_with(
        &self,
        cells: &mut [u8; MAX_CELLS],
        empty: u32,
        region: u32,
        out: &mut Vec<u64>,
        ordinal: impl Fn(u32, usize) -> u8,
    ) {
        let p = self.pattern;
        let k = p.tiles.len();
        for i in 0..k {
            let from = cells[i];
            let mut to = p.grid.adjacent(from as usize) & region;
            while to != 0 {
                let d = to.trailing_zeros() as u8;
                to &= to - 1;
                cells[i] = d;
                let now_empty = (empty | 1 << from) & !(1 << d);
                let ord = ordinal(now_empty, from as usize);
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
    /// placement's largest region ([`Grid::largest_region`](super::Grid::largest_region)) is at least two moves
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
pub struct PatternTable {
    pub entry: Entry,
    pub bytes: Vec<u8>,
}

/// Builds the table of `pattern` by the shared BFS over (placement, region) states: as
/// [`Entry::LargestRegion`] where every distance fits, else as [`Entry::Minimum`].
pub fn build(pattern: &Pattern, progress: &dyn Progress) -> Result<PatternTable, PatternError> {
    let by_region = solve_regions(pattern, progress)?;
    Ok(encode(pattern, &by_region))
}

pub(super) fn solve_regions(
    pattern: &Pattern,
    progress: &dyn Progress,
) -> Result<Vec<u8>, PatternError> {
    let space = PatternSpace::new(pattern);
    bfs::solve_with(&space, Outputs::DISTANCES, progress)
        .map(|t| t.dist)
        .map_err(|e: SolveError| PatternError::Solve(pattern.tiles.clone(), e.to_string()))
}

/// The table of `pattern` from the distances of its (placement, region) states.
pub(super) fn encode(pattern: &Pattern, by_region: &[u8]) -> PatternTable {
    // Decided first, so that only one table of a byte per placement is ever allocated
    // beside the distances (the 8-tile pattern's are 4 GB).
    let entry = if needs_minimum(pattern, by_region) {
        Entry::Minimum
    } else {
        Entry::LargestRegion
    };
    PatternTable {
        entry,
        bytes: encode_placements(pattern, entry, 0, by_region),
    }
}

/// Whether some placement among these distances of (placement, region) states is too
/// far for [`Entry::LargestRegion`]: then the whole table is [`Entry::Minimum`].
pub fn needs_minimum(pattern: &Pattern, by_region: &[u8]) -> bool {
    let slots = pattern.grid.cells() - pattern.tiles.len();
    (by_region.par_chunks(slots)).any(|s| minimum(s) > Entry::MAX_WITH_REGION)
}

fn minimum(s: &[u8]) -> u8 {
    *s.iter().min().unwrap()
}

/// Placements per parallel work item of the passes over a table.
pub(super) const BLOCK: usize = 1 << 12;

/// The bytes, as `entry`, of the consecutive placements from `first` whose (placement,
/// region) distances are `by_region` (a whole number of placements): a table built in
/// shares is the same as one built whole.
pub fn encode_placements(pattern: &Pattern, entry: Entry, first: u64, by_region: &[u8]) -> Vec<u8> {
    let slots = pattern.grid.cells() - pattern.tiles.len();
    if entry == Entry::Minimum {
        return by_region.par_chunks(slots).map(minimum).collect();
    }
    let k = pattern.tiles.len();
    // Blocks of placements, the first of each unranked and the rest stepped to.
    (by_region.par_chunks(BLOCK * slots))
        .enumerate()
        .flat_map_iter(|(b, block)| {
            let mut cells = [0u8; MAX_CELLS];
            pattern.unrank(first + (b * BLOCK) as u64, &mut cells);
            block.chunks(slots).enumerate().map(move |(j, s)| {
                if j > 0 {
                    pattern.step(&mut cells[..k]);
                }
                let m = minimum(s);
                let empty = pattern.free_cells(&cells);
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
            })
        })
        .collect()
}
