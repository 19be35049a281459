//! The scratch of the two-bit search's threads: a chunk's frontier and claims, and the
//! batches of neighbours generated and prefetched ahead of their claims.

use puzzlebase_core::memory::prefetch;
use puzzlebase_core::space::StateSpace;

use super::Search;

/// How [`Search::push_from`] claims level `d + 1`: with `code`, and `far` when the
/// frontier has claimed the near neighbours itself (only the far ones are left).
#[derive(Clone, Copy)]
pub(super) struct Claim {
    pub(super) d: usize,
    pub(super) code: u8,
    pub(super) far: bool,
}

/// What a chunk's frontier gives [`Search::push_from`]: the ranks whose neighbours are
/// to be claimed, neighbours to claim as they are, and what was claimed already.
#[derive(Default)]
pub struct Reach {
    pub(super) ranks: Vec<u64>,
    /// Scratch for [`Search::push_front`]: the words of a chunk that have frontier
    /// ranks to expand, each with its place in the space's period.
    pub(super) words: Vec<(u64, usize)>,
    /// Scratch for [`Search::push_front`]: the chunk's ranks to expand, and room for
    /// four more.
    pub(super) expand: Vec<u64>,
    pub(super) direct: Vec<u64>,
    pub(super) claimed: Vec<u64>,
    pub(super) found: u64,
}

/// A thread's scratch while it expands chunks.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) batches: [Batch; 2],
    pub(super) reach: Reach,
    pub(super) open: Vec<u64>,
    /// The ranks this thread found and did not show yet ([`Steps`]).
    pub(super) unshown: u64,
}

/// Neighbours generated for a batch of ranks, and their words prefetched, before any is
/// read: the table is gigabytes read at random, and a batch lets the cache misses
/// overlap instead of stalling one after another.
#[derive(Default)]
pub(super) struct Batch {
    /// The neighbours of the batch's ranks, those of the `i`-th ending at `ends[i]`.
    pub(super) nbs: Vec<u64>,
    pub(super) ends: Vec<usize>,
}

/// Ranks per [`Batch`].
pub(super) const BATCH: usize = 64;

impl Batch {
    /// Generates the neighbours of `ranks` (ascending) in one call (a space computes the
    /// ranks of one block together), only the far ones with `far`, and prefetches the
    /// words of those in `near` (the cells, or the part of them about to be claimed).
    pub(super) fn expand<S: StateSpace + ?Sized>(
        &mut self,
        space: &S,
        t: &Search,
        ranks: &[u64],
        far: bool,
        near: std::ops::Range<u64>,
    ) {
        self.nbs.clear();
        self.ends.clear();
        if far {
            space.far_neighbors_of(ranks, &mut self.nbs, &mut self.ends);
        } else {
            space.neighbors_of(ranks, &mut self.nbs, &mut self.ends);
        }
        for &nb in &self.nbs {
            if within(&near, nb) {
                prefetch(t.word(nb));
            }
        }
    }

    /// Generates the neighbours of `ranks` (ascending) a batch at a time (only the far
    /// ones with `far`, the words of those in `near` prefetched) and hands each batch's
    /// to `claim` once the next batch is generated, so that its prefetched words have
    /// arrived by then.
    #[inline]
    pub(super) fn pipelined<S: StateSpace + ?Sized>(
        batches: &mut [Batch; 2],
        space: &S,
        t: &Search,
        ranks: &[u64],
        far: bool,
        near: std::ops::Range<u64>,
        mut claim: impl FnMut(&[u64]),
    ) {
        let parts = ranks.len().div_ceil(BATCH);
        for i in 0..=parts {
            if i < parts {
                let part = &ranks[i * BATCH..((i + 1) * BATCH).min(ranks.len())];
                batches[i % 2].expand(space, t, part, far, near.clone());
            }
            if i > 0 {
                claim(&batches[(i - 1) % 2].nbs);
            }
        }
    }

    /// Each rank's neighbours, in the order of the ranks given to [`Batch::expand`].
    pub(super) fn each(&self) -> impl Iterator<Item = &[u64]> {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let nbs = &self.nbs[start..end];
            start = end;
            nbs
        })
    }
}

/// Whether `x` is in `r`, with one comparison (per neighbour in the searches' loops,
/// where `Range::contains` takes two).
#[inline]
pub(super) fn within(r: &std::ops::Range<u64>, x: u64) -> bool {
    x.wrapping_sub(r.start) < r.end - r.start
}
