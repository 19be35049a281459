//! How a stored table is checked against its definition ([`check`]): its distances found
//! again (by the search led by the table, [`super::led`], or by the shared search and a
//! pass of the relation), then every byte against them; the local check of the table
//! alone names a damaged entry when that fails.

use rayon::prelude::*;

use super::placement::{MAX_CELLS, Pattern, PatternError};
use super::table::{BLOCK, Entry, PatternSpace, PatternTable, encode, solve_regions};
use puzzlebase_core::format::UNREACHED;
use puzzlebase_core::memory::prefetch;
use puzzlebase_core::progress::Progress;

/// Checks a stored table against its definition, entry by entry:
///
/// * the home placement holds 0 and no other placement does;
/// * no entry is below one more than its smallest neighbour's (a move of one pattern tile
///   into an adjacent free cell), which is what the tables' additivity rests on;
/// * each byte is what [`build`](super::build) makes of the distances of (placement, region), which are
///   found again and checked against the relation that defines them: 0 exactly at home,
///   and otherwise 1 + the minimum over the states one pattern-tile move away (free
///   moves of the blank being the region itself).
///
/// The last implies the first two (see [`check_with`]), which are checked on their own
/// only to name a damaged entry when it fails. Costs about one pass over the pattern's
/// states (seconds for six tiles), no search of its own where the table is right.
pub fn check(pattern: &Pattern, table: &PatternTable) -> Result<(), PatternError> {
    check_with(pattern, table, &puzzlebase_core::progress::Silent)
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

/// The relation that defines the distances of (placement, region) states.
struct Rule<'a> {
    pattern: &'a Pattern,
    home: u64,
    home_empty: u32,
}

impl<'a> Rule<'a> {
    fn new(pattern: &'a Pattern) -> Rule<'a> {
        let home = pattern.rank(&pattern.home());
        let home_empty = pattern.free_cells(&pattern.home());
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
        let empty = p.free_cells(cells);
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
