//! The check of a stored table without a search of its own: a breadth-first search of the
//! (placement, region) states *led by the table*, which checks the relation that defines
//! the distances at each state as it settles it.
//!
//! # Why it proves the distances
//! Every state starts with a bound the table gives it (its placement's minimum, two more
//! where its side's bit says so; see [`super::table`]). Level `L` looks only at the states
//! whose bound is `L`, and settles such a state at `L` when the least of its settled
//! neighbours is `L - 1`; when that least is lower, the relation fails there and the check
//! stops; when no neighbour is settled at `L - 1`, the bound rises by two (all regions of
//! a placement are at distances of one parity). Levels run in increasing order, so the
//! neighbours settled when a state is looked at are final, and all those settled later
//! are at `L` or more: a settled state holds 1 + the least of its neighbours in the end.
//! The states never settled are then checked to have no settled neighbour, and the home
//! placement's regions (settled at 0 before the first level) are the only zeros. So the
//! vector satisfies, at every state, the relation that has only the distances as its
//! solution ([`super::check_with`]), whatever the table held: a wrong bound can only make
//! the check fail (a state settled late has a neighbour too low; one never settled has a
//! settled neighbour), never pass with a wrong distance.
//!
//! # What it costs
//! Where the table is right, a state is looked at once, or twice where its bound was two
//! short: about one pass of the relation over the states, and no search besides. The
//! states of each level are found from a mask of the bounds in each block of placements,
//! so a level reads only the blocks that hold its bounds.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

use super::placement::{MAX_CELLS, Pattern, PatternError};
use super::table::{Entry, PatternSpace, PatternTable};
use puzzlebase_core::format::UNREACHED;
use puzzlebase_core::memory::prefetch;
use puzzlebase_core::progress::Progress;

/// The high bit of a state's byte while it is not settled: the rest is its bound.
const BOUND: u8 = 0x80;
/// The deepest level the led search runs to: bounds are kept below [`UNREACHED`], which
/// marks a rank that names no region (`BOUND | 127`).
const DEEPEST: u8 = 126;
/// The deepest minimum a table may hold for the led search (a state's bound is at most
/// two more, and a level may raise it by two a few times).
const DEEPEST_MINIMUM: u8 = 110;
/// Placements per block of the level masks.
const BLOCK: usize = 64;
/// Blocks per parallel work item.
const ITEM: usize = 64;

/// The regions of every set of free cells of a grid, looked up rather than grown: the
/// led search names the regions of each state it looks at and of each neighbour.
struct Regions {
    /// By set of free cells, by ordinal: the region that ordinal names (0: none).
    by_ordinal: Vec<[u16; MAX_CELLS]>,
    /// By set of free cells, by cell: the ordinal of the cell's region.
    ordinal: Vec<[u8; MAX_CELLS]>,
    /// By set of free cells: the ordinal of its largest region
    /// ([`Grid::largest_region`](super::Grid::largest_region)).
    largest: Vec<u8>,
}

impl Regions {
    fn new(grid: &super::Grid) -> Regions {
        let sets = grid.full() as usize + 1;
        let (mut by_ordinal, mut ordinal) =
            (vec![[0; MAX_CELLS]; sets], vec![[0; MAX_CELLS]; sets]);
        let mut largest = vec![0; sets];
        for empty in 0..sets as u32 {
            let mut rest = empty;
            while rest != 0 {
                let cell = rest & rest.wrapping_neg();
                let region = grid.region(cell, empty);
                let o = (empty & (cell - 1)).count_ones() as u8;
                by_ordinal[empty as usize][o as usize] = region as u16;
                let mut r = region;
                while r != 0 {
                    ordinal[empty as usize][r.trailing_zeros() as usize] = o;
                    r &= r - 1;
                }
                rest &= !region;
            }
            let biggest = grid.largest_region(empty);
            if biggest != 0 {
                largest[empty as usize] =
                    ordinal[empty as usize][biggest.trailing_zeros() as usize];
            }
        }
        Regions {
            by_ordinal,
            ordinal,
            largest,
        }
    }
}

/// The distances of every (placement, region) state of `pattern`, proven by the led
/// search against the relation that defines them ([`UNREACHED`] for a rank naming no
/// region, or a state no move leads home from); `None` where the table holds a minimum
/// deeper than the led search runs (then the caller searches); an error names the first
/// state found where the relation fails.
///
/// The table must have one byte per placement.
pub(super) fn distances(
    pattern: &Pattern,
    table: &PatternTable,
    progress: &dyn Progress,
) -> Result<Option<Vec<u8>>, PatternError> {
    let deepest = (table.bytes.par_iter())
        .map(|&b| table.entry.minimum(b))
        .filter(|&m| m != UNREACHED)
        .max()
        .unwrap_or(0);
    if deepest > DEEPEST_MINIMUM {
        return Ok(None);
    }
    let space = PatternSpace::new(pattern);
    let regions = Regions::new(&pattern.grid);
    let slots = space.slots() as usize;
    let home = pattern.rank(&pattern.home()) as usize;
    let mut by_region = vec![UNREACHED; table.bytes.len() * slots];
    progress.phase("reading the table", table.bytes.len() as u64);
    let (mut masks, states): (Vec<u128>, Vec<u64>) = (by_region.par_chunks_mut(BLOCK * slots))
        .enumerate()
        .map(|(b, block)| {
            let mut cells = [0u8; MAX_CELLS];
            let (mut mask, mut states) = (0u128, 0u64);
            let k = pattern.tiles.len();
            pattern.unrank((b * BLOCK) as u64, &mut cells);
            for (j, s) in block.chunks_mut(slots).enumerate() {
                let i = b * BLOCK + j;
                if j > 0 {
                    pattern.step(&mut cells[..k]);
                }
                states += bounds(pattern, &regions, table, i == home, i, &cells, s);
                for &v in s.iter().filter(|&&v| v != UNREACHED && v & BOUND != 0) {
                    mask |= 1 << (v & !BOUND);
                }
            }
            progress.advance((block.len() / slots) as u64);
            (mask, states)
        })
        .unzip();
    let states: u64 = states.iter().sum();
    // SAFETY: `AtomicU8` has the size, alignment and bit validity of `u8`, and
    // `by_region` is borrowed mutably for as long as this view lives.
    let dist: &[AtomicU8] =
        unsafe { &*(by_region.as_mut_slice() as *mut [u8] as *const [AtomicU8]) };
    let led = Led {
        pattern,
        space: &space,
        regions: &regions,
        slots,
        dist,
        too_deep: AtomicBool::new(false),
    };
    progress.phase("settling levels led by the table", states);
    // The home placement's states are settled at level 0, as they were read.
    let at_home = pattern.grid.regions(pattern.free_cells(&pattern.home())) as u64;
    progress.advance(at_home);
    let mut settled_all = at_home;
    for level in 1..=DEEPEST {
        let settled = (masks.par_chunks_mut(ITEM))
            .enumerate()
            .map(|(item, masks)| {
                let mut work = Work::default();
                let mut settled = 0;
                for (j, mask) in masks.iter_mut().enumerate() {
                    if *mask >> level & 1 == 1 {
                        settled += led.level(item * ITEM + j, level, mask, &mut work)?;
                    }
                }
                progress.advance(settled);
                Ok(settled)
            })
            .try_reduce(|| 0, |a, b| Ok(a + b))?;
        if led.too_deep.load(Relaxed) {
            return Ok(None);
        }
        settled_all += settled;
        if settled == 0 {
            // Nothing settled at this level can lead to the next: the search is over.
            break;
        }
    }
    // Any state no level settled is one the next pass finds unreachable (or fails on):
    // settled as such, so that the phase ends at its total.
    progress.advance(states.saturating_sub(settled_all));
    progress.phase("states never settled", masks.len() as u64);
    (masks.par_chunks(ITEM)).enumerate().try_for_each_init(
        Work::default,
        |work, (item, masks)| {
            for (j, &mask) in masks.iter().enumerate() {
                if mask != 0 {
                    led.never_settled(item * ITEM + j, work)?;
                }
            }
            progress.advance(masks.len() as u64);
            Ok(())
        },
    )?;
    Ok(Some(by_region))
}

/// Writes the first byte of placement `i` (its cells `cells`, the home placement or not)
/// into its slots `s` for each of its regions: 0 at home, else its bound with [`BOUND`]
/// set (slots naming no region stay [`UNREACHED`]); returns how many regions it has.
#[inline]
fn bounds(
    pattern: &Pattern,
    regions: &Regions,
    table: &PatternTable,
    at_home: bool,
    i: usize,
    cells: &[u8; MAX_CELLS],
    s: &mut [u8],
) -> u64 {
    let empty = pattern.free_cells(cells);
    let byte = table.bytes[i];
    let m = table.entry.minimum(byte);
    let of = &regions.by_ordinal[empty as usize];
    let largest = regions.largest[empty as usize] as usize;
    let count = of.iter().filter(|&&r| r != 0).count();
    let single = count == 1;
    for (ordinal, _) in of.iter().enumerate().filter(|(_, r)| **r != 0) {
        s[ordinal] = if at_home {
            0
        } else {
            // A placement the table says cannot reach home gets a bound no level
            // reaches; the final pass then checks that no neighbour is settled.
            let farther = match table.entry {
                Entry::LargestRegion if !single => {
                    let bit = if ordinal == largest { 6 } else { 7 };
                    2 * (byte >> bit & 1)
                }
                _ => 0,
            };
            let bound = if m == UNREACHED {
                DEEPEST
            } else {
                (m + farther).clamp(1, DEEPEST)
            };
            BOUND | bound
        };
    }
    count as u64
}

/// The led search's view of the states.
struct Led<'a> {
    pattern: &'a Pattern,
    space: &'a PatternSpace<'a>,
    regions: &'a Regions,
    slots: usize,
    dist: &'a [AtomicU8],
    /// Set when a bound would rise past [`DEEPEST`].
    too_deep: AtomicBool,
}

/// A block's states under look, with their neighbours, reused from block to block.
#[derive(Default)]
struct Work {
    /// (rank, end of its neighbours in `nbs`).
    states: Vec<(u64, usize)>,
    nbs: Vec<u64>,
}

impl Led<'_> {
    /// Fills `work` with the states of block `b` whose byte `want` picks, and their
    /// neighbours, the neighbours' bytes prefetched.
    fn gather(&self, b: usize, want: impl Fn(u8) -> bool, work: &mut Work) {
        work.states.clear();
        work.nbs.clear();
        let p = self.pattern;
        let k = p.tiles.len();
        let mut cells = [0u8; MAX_CELLS];
        let first = b * BLOCK;
        let last = (first + BLOCK).min(self.dist.len() / self.slots);
        let ordinal = |e: u32, c: usize| self.regions.ordinal[e as usize][c];
        // Unranked when the first state is picked, then stepped to each placement.
        let (mut at, mut empty) = (None, 0);
        for i in first..last {
            let base = i * self.slots;
            let picked = (0..self.slots).filter(|&o| want(self.dist[base + o].load(Relaxed)));
            for o in picked {
                if at != Some(i) {
                    match at {
                        None => p.unrank(i as u64, &mut cells),
                        Some(j) => (j..i).for_each(|_| {
                            p.step(&mut cells[..k]);
                        }),
                    }
                    at = Some(i);
                    empty = p.free_cells(&cells);
                }
                let start = work.nbs.len();
                let region = self.regions.by_ordinal[empty as usize][o] as u32;
                (self.space).moves_with(&mut cells, empty, region, &mut work.nbs, ordinal);
                for &n in &work.nbs[start..] {
                    prefetch(&self.dist[n as usize]);
                }
                work.states.push(((base + o) as u64, work.nbs.len()));
            }
        }
    }

    /// The least settled byte among the neighbours `nbs` ([`BOUND`] if none is settled).
    #[inline]
    fn least(&self, nbs: &[u64]) -> u8 {
        (nbs.iter())
            .map(|&n| self.dist[n as usize].load(Relaxed))
            .filter(|&d| d & BOUND == 0)
            .min()
            .unwrap_or(BOUND)
    }

    /// Looks at the states of block `b` whose bound is `level`: settles them, raises
    /// their bound, or fails on the first where the relation does; updates the block's
    /// `mask` and returns how many it settled.
    fn level(
        &self,
        b: usize,
        level: u8,
        mask: &mut u128,
        work: &mut Work,
    ) -> Result<u64, PatternError> {
        self.gather(b, |v| v == BOUND | level, work);
        *mask &= !(1 << level);
        let mut settled = 0;
        let mut start = 0;
        for &(r, end) in &work.states {
            let least = self.least(&work.nbs[start..end]);
            start = end;
            if least == level - 1 {
                self.dist[r as usize].store(level, Relaxed);
                settled += 1;
            } else if least < level - 1 {
                return Err(self.fails(r, level, least));
            } else {
                // Nothing at `level - 1` beside it yet: its distance is two more at least.
                let raised = level + 2;
                if raised > DEEPEST {
                    self.too_deep.store(true, Relaxed);
                    continue;
                }
                self.dist[r as usize].store(BOUND | raised, Relaxed);
                *mask |= 1 << raised;
            }
        }
        Ok(settled)
    }

    /// Checks that the states of block `b` left with a bound have no settled neighbour,
    /// and marks them [`UNREACHED`].
    fn never_settled(&self, b: usize, work: &mut Work) -> Result<(), PatternError> {
        self.gather(b, |v| v != UNREACHED && v & BOUND != 0, work);
        let mut start = 0;
        for &(r, end) in &work.states {
            let least = self.least(&work.nbs[start..end]);
            start = end;
            if least & BOUND == 0 {
                let bound = self.dist[r as usize].load(Relaxed) & !BOUND;
                return Err(self.fails(r, bound, least));
            }
            self.dist[r as usize].store(UNREACHED, Relaxed);
        }
        Ok(())
    }

    fn fails(&self, rank: u64, found: u8, least: u8) -> PatternError {
        PatternError::Relation {
            tiles: self.pattern.tiles.clone(),
            rank,
            found,
            why: format!(
                "its bound from the table, but a state one move away is {least} moves from home"
            ),
        }
    }
}
