//! The mod-4 push with threads that own what they write (cargo feature `owned-claims`):
//! the design issue 36 asked for, built to be measured on a many-core machine. On two
//! cores it takes 1.08 to 1.17 times as long as the shared words with atomic claims
//! (`docs/notes/performance-history.md`, "Thread-owned claims, a third design"), so it
//! is not the default; what it gives on 16 cores, where the atomic claims on shared
//! words are the suspect, has not been measured.
//!
//! The flagged chunks are taken a slice ([`SLICE`] chunks, 2^24 ranks) at a time, a
//! round of [`ROUND`] slices together. The thread expanding a slice is the only one
//! that writes the slice's words while the round's slices are expanded: it claims the
//! neighbours inside the slice in place, with plain loads and stores, and hands each
//! other neighbour to the part of 2^[`PART_BITS`] ranks it lies in, as a 32-bit offset.
//! Then each part claims what the round handed it, one thread per part, again with
//! plain loads and stores. So no word is ever written by two threads at once, the
//! claims are the shared search's (a rank becomes frontier once, whoever reaches it),
//! and the level's size and the table are the same whatever the number of threads.

use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::{CHUNK, PER_WORD, Reach, Scratch, Search, set_bits, unreached_cells, within};
use puzzlebase_core::memory::prefetch;
use puzzlebase_core::progress::Steps;
use puzzlebase_core::space::StateSpace;

/// Chunks per slice: a thread expands a slice alone. (Small in the tests, so that they
/// cross slices.)
const SLICE: usize = if cfg!(test) { 2 } else { 1 << 11 };
/// Ranks per part (log 2): the claims handed over are claimed a part at a time, by one
/// thread. (Small in the tests, so that they cross parts.)
const PART_BITS: u32 = if cfg!(test) { 9 } else { 24 };
/// Slices per round: the largest round measured on `fourteen` (2^33 ranks) was the
/// fastest; the whole level in one round was no faster and needed 13.0 GiB.
const ROUND: usize = 512;

/// What the expansion of one slice gives: the ranks it claimed inside the slice, the
/// neighbours outside the cells, and the others handed to each part (offsets in it).
struct Handed {
    found: u64,
    outside: Vec<u64>,
    lists: Vec<Vec<u32>>,
}

impl Search {
    /// Claims `rank` as frontier if it is unreached, with a plain load and store: only
    /// for the thread that owns the rank's word. 1 if this call reached it, else 0; the
    /// caller flags its chunk. A cell already reached, frontier or expanded, is left as
    /// it is (its low bit is clear, or its high bit is).
    #[inline]
    fn claim_owned(&self, rank: u64) -> u64 {
        let word = self.word(rank);
        let w = word.load(Relaxed);
        let bit = unreached_cells(w) & (1 << (2 * (rank % PER_WORD)));
        word.store(w & !bit, Relaxed);
        (bit != 0) as u64
    }

    /// Whether `rank` is in the cells.
    #[inline]
    fn holds(&self, rank: u64) -> bool {
        within(&self.all(), rank)
    }

    /// [`Search::push_from`] for the mod-4 search's frontier claims, the threads owning
    /// what they write (see the module docs). Returns the same as it.
    pub(super) fn push_owned(
        &self,
        space: &(impl StateSpace + ?Sized),
        d: usize,
        far: bool,
        chunks: std::ops::Range<usize>,
        steps: &Steps,
        frontier: impl Fn(std::ops::Range<u64>, &mut Reach) + Sync,
    ) -> (u64, Vec<u64>) {
        let parts = (self.n >> PART_BITS) as usize + 1;
        let slices: Vec<std::ops::Range<usize>> = (chunks.start..chunks.end)
            .step_by(SLICE)
            .map(|c| c..(c + SLICE).min(chunks.end))
            .collect();
        let mut found = 0;
        let mut outside = Vec::new();
        for round in slices.chunks(ROUND) {
            let handed: Vec<Handed> = round
                .par_iter()
                .map_init(Scratch::default, |scratch, slice| {
                    let mut handed = Handed {
                        found: 0,
                        outside: Vec::new(),
                        lists: vec![Vec::new(); parts],
                    };
                    let near = self.chunk(slice.start).start..self.chunk(slice.end - 1).end;
                    for c in slice.clone() {
                        if !self.marks[d % 2][c].load(Relaxed) {
                            continue;
                        }
                        frontier(self.chunk(c), &mut scratch.reach);
                        let Handed { outside, lists, .. } = &mut handed;
                        self.expand_reach(
                            space,
                            far,
                            near.clone(),
                            scratch,
                            |nb| {
                                if self.holds(nb) {
                                    let at = nb - self.first;
                                    lists[(at >> PART_BITS) as usize]
                                        .push((at & ((1 << PART_BITS) - 1)) as u32);
                                } else {
                                    outside.push(nb);
                                }
                            },
                            |nb| {
                                let new = self.claim_owned(nb) != 0;
                                if new {
                                    self.flag(nb, d + 1);
                                }
                                new
                            },
                        );
                        // With the frontier's own claims inside its words.
                        let found = std::mem::take(&mut scratch.reach.found);
                        steps.add(&mut scratch.unshown, found);
                        handed.found += found;
                    }
                    handed
                })
                .collect();
            found += (0..parts)
                .into_par_iter()
                .map_init(
                    || (Vec::new(), 0),
                    |(claimed, unshown), p| {
                        let found = self.claim_part(p, &handed, d, claimed);
                        steps.add(unshown, found);
                        found
                    },
                )
                .sum::<u64>();
            for h in handed {
                found += h.found;
                outside.extend(h.outside);
            }
        }
        outside.par_sort_unstable();
        outside.dedup();
        (found, outside)
    }

    /// Claims what a round handed part `p`, alone; returns how many were new.
    fn claim_part(&self, p: usize, handed: &[Handed], d: usize, claimed: &mut Vec<u64>) -> u64 {
        let base = self.first + ((p as u64) << PART_BITS);
        let mut found = 0;
        // The part's chunks where a rank was claimed, flagged once at the end.
        let mut hit = [0u64; (1 << PART_BITS) / CHUNK as usize / 64 + 1];
        for h in handed {
            let list = &h.lists[p];
            for (i, &at) in list.iter().enumerate() {
                if let Some(&ahead) = list.get(i + 16) {
                    prefetch(self.word(base + ahead as u64));
                }
                let nb = base + at as u64;
                let new = self.claim_owned(nb);
                found += new;
                let c = (at as u64 / CHUNK) as usize;
                hit[c / 64] |= new << (c % 64);
                if new != 0 && self.collecting(claimed) {
                    claimed.push(nb);
                }
            }
        }
        for (k, &h) in hit.iter().enumerate() {
            for bit in set_bits(h) {
                self.flag(base + (k as u64 * 64 + bit as u64) * CHUNK, d + 1);
            }
        }
        self.keep(claimed);
        found
    }
}
