//! A pattern's table (see the ranking of placements in the parent module).
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

use super::placement::{MAX_CELLS, Pattern, PatternError};
use crate::core::memory::prefetch;
use crate::core::progress::Progress;
use crate::core::space::StateSpace;
use crate::solvers::bfs::{self, Outputs, SolveError, UNREACHED};

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
        self.moves(&mut cells, empty, region, out);
    }
}

impl PatternSpace<'_> {
    /// The states one pattern-tile move away from the placement `cells` with the blank in
    /// `region` of its free cells `empty` (as [`StateSpace::neighbors`] gives them).
    #[inline]
    fn moves(&self, cells: &mut [u8; MAX_CELLS], empty: u32, region: u32, out: &mut Vec<u64>) {
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
            })
        })
        .collect()
}

/// Checks a stored table against its definition, entry by entry:
///
/// * the home placement holds 0 and no other placement does;
/// * no entry is below one more than its smallest neighbour's (a move of one pattern tile
///   into an adjacent free cell), which is what the tables' additivity rests on;
/// * each byte is what [`build`] makes of the distances of (placement, region), which are
///   found again and checked against the relation that defines them: 0 exactly at home,
///   and otherwise 1 + the minimum over the states one pattern-tile move away (free
///   moves of the blank being the region itself).
///
/// The last implies the first two (see [`check_with`]), which are checked on their own
/// only to name a damaged entry when it fails. Costs about one pass over the pattern's
/// states (seconds for six tiles), no search of its own where the table is right.
pub fn check(pattern: &Pattern, table: &PatternTable) -> Result<(), PatternError> {
    check_with(pattern, table, &crate::core::progress::Silent)
}

/// [`check`], drawing its phases on `progress`.
///
/// # What proves each entry
/// The distances of the (placement, region) states are found again by a search led by
/// the table (its module `led`: each state is looked at from the level its byte bounds it
/// by, so a right table costs about one look per state), which checks the relation that
/// defines them at *every* state as it settles it; where the table holds minima deeper
/// than that search runs, they are recomputed by the shared search and the relation is
/// checked in a pass of its own. Either way the relation holds at every state: a
/// vector that is 0 exactly at the goals and, everywhere else, 1 + the minimum over the
/// states one move away ([`UNREACHED`] where all of them are, or there are none) *is*
/// the vector of distances to the goals, whatever computed it: a finite value `d` has a
/// neighbour at `d - 1`, and so on down to a goal (only goals hold 0), so it is at least
/// the distance; and along a shortest path no value exceeds one more than the next
/// one's, so it is at most the distance (an unreached value beside a reached state
/// breaks the relation). Each byte is then compared with `encode` of those distances.
///
/// That proves every byte, so the local check of the table alone ([`check_local`]: its
/// facts hold of any table the encoding of exact distances gives) is not run again when
/// these pass: it only runs when they fail, first, so that a damaged entry it can see is
/// named as it always has been, before the failure of the relation or the encoding.
pub fn check_with(
    pattern: &Pattern,
    table: &PatternTable,
    progress: &dyn Progress,
) -> Result<(), PatternError> {
    if table.bytes.len() as u64 != pattern.placements() {
        return check_local(pattern, table);
    }
    let by_region = match super::led::distances(pattern, table, progress) {
        Ok(Some(by_region)) => Ok(by_region),
        Ok(None) => {
            let by_region = solve_regions(pattern, progress)?;
            relation(pattern, &by_region, progress).map(|()| by_region)
        }
        Err(e) => Err(e),
    };
    progress.phase("checking the encoding", 0);
    let proven = by_region.and_then(|by_region| encoding_is(pattern, table, &by_region));
    if proven.is_err() {
        check_local(pattern, table)?;
    }
    proven
}

/// Placements per parallel work item of the passes over a table.
const BLOCK: usize = 1 << 12;

/// The relation that defines the distances of (placement, region) states.
struct Rule<'a> {
    pattern: &'a Pattern,
    home: u64,
    home_empty: u32,
}

impl<'a> Rule<'a> {
    fn new(pattern: &'a Pattern) -> Rule<'a> {
        let home = pattern.rank(&pattern.home());
        let home_empty =
            pattern.grid.full() & !pattern.home().iter().fold(0u32, |m, &c| m | 1 << c);
        Rule {
            pattern,
            home,
            home_empty,
        }
    }

    /// Appends the neighbours of rank `r` (its placement unranked into `cells`) to
    /// `out`, and says whether `r` is a state and whether it is a goal.
    #[inline]
    fn neighbours(
        &self,
        space: &PatternSpace,
        r: u64,
        cells: &mut [u8; MAX_CELLS],
        out: &mut Vec<u64>,
    ) -> (bool, bool) {
        let p = self.pattern;
        let slots = space.slots();
        let k = p.tiles.len();
        let occupied = cells[..k].iter().fold(0u32, |m, &c| m | 1 << c);
        let empty = p.grid.full() & !occupied;
        let start = out.len();
        if let Some(region) = p.grid.region_by_ordinal(empty, (r % slots) as u8) {
            space.moves(cells, empty, region, out);
        }
        let at_home = r / slots == self.home;
        if out.len() == start && !at_home {
            // An ordinal beyond the placement's regions (or a region no tile can move
            // into, which no placement of a pattern has): never a state.
            return (false, false);
        }
        let goal = at_home
            && (p.grid)
                .region_by_ordinal(self.home_empty, (r % slots) as u8)
                .is_some();
        (true, goal)
    }
}

/// The relation that defines the search's distances, checked state by state; the first
/// failure reported is at the smallest rank. The neighbours of a few dozen states are
/// generated and their distances prefetched a batch before any is read, so that the
/// reads at random overlap and have landed when they are needed.
pub(super) fn relation(
    pattern: &Pattern,
    by_region: &[u8],
    progress: &dyn Progress,
) -> Result<(), PatternError> {
    const BATCH: usize = 32;
    let space = PatternSpace::new(pattern);
    let rule = Rule::new(pattern);
    let n = by_region.len() as u64;
    let slots = space.slots();
    let per = BLOCK as u64 * slots;
    progress.phase("checking relation", n);
    let found = (0..n.div_ceil(per)).into_par_iter().find_map_first(|b| {
        let ranks = b * per..((b + 1) * per).min(n);
        let len = ranks.end - ranks.start;
        let mut cells = [0u8; MAX_CELLS];
        // Two batches: each is checked after the next one is generated, so that the
        // distances prefetched for it have arrived by then.
        let mut batches = [RelationBatch::default(), RelationBatch::default()];
        let mut r = ranks.start;
        let mut fill = |b: &mut RelationBatch, r: &mut u64| {
            b.states.clear();
            b.nbs.clear();
            while b.states.len() < BATCH && *r < ranks.end {
                if (*r).is_multiple_of(slots) {
                    pattern.unrank(*r / slots, &mut cells);
                }
                let start = b.nbs.len();
                let (state, goal) = rule.neighbours(&space, *r, &mut cells, &mut b.nbs);
                for &nb in &b.nbs[start..] {
                    prefetch(&by_region[nb as usize]);
                }
                b.states.push((*r, state, goal, b.nbs.len()));
                *r += 1;
            }
        };
        fill(&mut batches[0], &mut r);
        let mut found = None;
        let mut cur = 0;
        while !batches[cur].states.is_empty() && found.is_none() {
            let [a, b] = &mut batches;
            let (now, next) = if cur == 0 { (&*a, b) } else { (&*b, a) };
            fill(next, &mut r);
            let mut start = 0;
            for &(r, state, goal, end) in &now.states {
                let best = now.nbs[start..end]
                    .iter()
                    .map(|&n| by_region[n as usize])
                    .min();
                start = end;
                let want = match best {
                    _ if !state => UNREACHED,
                    _ if goal => 0,
                    Some(b) if b != UNREACHED => b + 1,
                    _ => UNREACHED,
                };
                let d = by_region[r as usize];
                if d != want {
                    found = Some(PatternError::Relation {
                        tiles: pattern.tiles.clone(),
                        rank: r,
                        found: d,
                        why: if state {
                            format!("1 + the minimum over its neighbours is {want}")
                        } else {
                            "but it is not a state".into()
                        },
                    });
                    break;
                }
            }
            cur ^= 1;
        }
        progress.advance(len);
        found
    });
    match found {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// States of [`relation`] whose neighbours are generated and prefetched together:
/// (rank, is a state, is a goal, end of its neighbours in `nbs`).
#[derive(Default)]
struct RelationBatch {
    states: Vec<(u64, bool, bool, usize)>,
    nbs: Vec<u64>,
}

/// Every byte of `table` is what [`encode`] makes of `by_region`.
fn encoding_is(
    pattern: &Pattern,
    table: &PatternTable,
    by_region: &[u8],
) -> Result<(), PatternError> {
    let tiles = || pattern.tiles.clone();
    let want = encode(pattern, by_region);
    if want.entry != table.entry {
        return Err(PatternError::Encoding {
            tiles: tiles(),
            found: table.entry.name(),
            want: want.entry.name(),
        });
    }
    let first = (0..table.bytes.len())
        .into_par_iter()
        .find_first(|&i| table.bytes[i] != want.bytes[i]);
    if let Some(rank) = first {
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
pub fn check_local(pattern: &Pattern, table: &PatternTable) -> Result<(), PatternError> {
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
