//! The solution counts stored beside two-bit codes (a packed move graph without runs,
//! solved a byte per rank): read in the same pass as the codes, then checked against
//! them rank by rank. Once the codes are proven (the search they lead), the neighbours
//! one move closer are exactly those whose code is one less, so a count is right when it
//! is the sum of theirs; goals have 1 and ranks out of reach 0.

use super::check::{Check, bad, decode_count_chunk, first_failure, show_count};
use crate::core::format::add_counts;
use crate::core::packed::{ChunkLayout, CodeLayout, CountLayout};
use crate::core::progress::Progress;
use crate::core::space::GraphPuzzle;

/// The count table as read, with the codes' bytes kept beside it; empty where the
/// puzzle stores no counts.
pub(super) struct Tables {
    counts: Option<(CountLayout, Vec<u64>)>,
    /// The distance chunks laid end to end (four ranks to a byte), kept only with counts.
    codes: Vec<u8>,
}

impl Tables {
    pub(super) fn new(layout: Option<CountLayout>) -> Tables {
        Tables {
            counts: layout.map(|l| (l, Vec::with_capacity(l.ranks() as usize))),
            codes: Vec::new(),
        }
    }

    /// A distance chunk, as it is read (in order).
    pub(super) fn codes_chunk(&mut self, blob: &[u8]) {
        if self.counts.is_some() {
            self.codes.extend_from_slice(blob);
        }
    }

    /// Count chunk `c`, as it is read (in order): its size must be its layout's.
    pub(super) fn counts_chunk(&mut self, c: u64, blob: &[u8]) -> Check<()> {
        let Some((l, count)) = &mut self.counts else {
            return bad(format!("solutions chunk {c}: the rules give no counts"));
        };
        let start = count.len();
        count.resize(start + l.ranks_in(c) as usize, 0);
        decode_count_chunk(l, c, blob, &mut count[start..])
    }

    /// Every stored count is the number of shortest solutions the proven `layout` codes
    /// give, and the counts are stored in the narrowest encoding that holds them
    /// ([`super::check::counts_in_narrowest`]). Nothing to check without counts.
    pub(super) fn counts_follow_codes(
        &self,
        g: &dyn GraphPuzzle,
        layout: &CodeLayout,
        progress: &dyn Progress,
    ) -> Check<()> {
        let Some((l, count)) = &self.counts else {
            return Ok(());
        };
        let code = |r: u64| match self.codes[(r / 4) as usize] >> (2 * (r % 4)) & 3 {
            3 if layout.modulus() == 3 => None,
            c => Some(c),
        };
        let mut goals = g.goals();
        goals.sort_unstable();
        let at = |r: u64| {
            format!(
                "rank {r} (state {}, solutions chunk {})",
                g.format(r),
                l.locate(r).chunk
            )
        };
        progress.phase("checking the counts", g.size());
        first_failure(g.size(), progress, |r, nbs| {
            let stored = count[r as usize];
            let want = match code(r) {
                None => 0,
                Some(_) if goals.binary_search(&r).is_ok() => 1,
                Some(c) => {
                    let closer = layout.closer(c);
                    nbs.clear();
                    g.neighbors(r, nbs);
                    (nbs.iter())
                        .filter(|&&nb| code(nb) == Some(closer))
                        .fold(0, |s, &nb| add_counts(s, count[nb as usize]))
                }
            };
            if stored != want {
                return bad(format!(
                    "{}: {} shortest solutions stored, but {} by its neighbours one move closer",
                    at(r),
                    show_count(stored),
                    show_count(want)
                ));
            }
            Ok(())
        })?;
        super::check::counts_in_narrowest(l, count)?;
        Ok(())
    }
}
