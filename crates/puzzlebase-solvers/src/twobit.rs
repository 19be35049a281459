//! Breadth-first search with two bits per rank (Korf's two-bit breadth-first search): a
//! table of 43.6 billion ranks (the 2x7 puzzle) takes 10.9 GB instead of 43.6.
//!
//! Two codes, chosen by the space:
//! * **distance mod 4** when the move graph is bipartite with the goals on one side
//!   ([`StateSpace::parity`] says so; every rectangle of tiles). During the search a
//!   rank holds "not reached", "in the frontier" or, once expanded, `(d / 2) mod 2`: the
//!   frontier of level `d` and the ranks just claimed for `d + 1` share the code but
//!   never the parity, so each level expands exactly its own ranks, once, however wide.
//!   When the search ends, the parity completes every code to `d mod 4`. (If a rank is
//!   left unreached, which a mod-4 code cannot say, the search is run again by residue.)
//! * **distance mod 3** otherwise, the fourth value meaning "not reached". Level `d` is
//!   every rank of residue `d mod 3` in the chunks flagged as holding level `d`; ranks of
//!   levels `d - 3`, `d - 6`, ... there are expanded again (their neighbours are all
//!   reached, so this costs time, not correctness). Once the unreached ranks are few it
//!   **pulls** instead: an unreached rank with a neighbour of residue `d mod 3` is at
//!   `d + 1`, exactly (that neighbour cannot be at `d - 3`: the rank would then have
//!   been reached by `d - 2`).
//!
//! Either way, neighbours' distances differ by at most one, so from a rank at distance
//! `d` the neighbour whose code is `d - 1` (mod 3 or 4) is exactly one closer, and
//! walking such neighbours finds the distance and an optimal path.
//!
//! Claims are atomic (`fetch_and` on the word of 32 ranks; the moves between ranks of one
//! word, [`StateSpace::run_links`], one compare-and-swap of the word), so every level's
//! size is exact and the table is the same whatever the number of threads. The cells may be a
//! share of the ranks: [`crate::distributed::twobit`] runs the mod-4 search
//! across processes on the same cells, with the neighbours outside a share handed back.
//! Built with the cargo feature `owned-claims`, the mod-4 search's claims are made by the
//! threads that own the words instead (`owned`): slower on two cores, kept to be timed
//! on many.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use puzzlebase_core::memory::atomic_words;
use puzzlebase_core::progress::{Progress, Steps};
use puzzlebase_core::space::StateSpace;

#[cfg(feature = "owned-claims")]
mod owned;

mod batch;
pub use batch::Reach;
use batch::{BATCH, Batch, Claim, Scratch, within};
mod words;
pub use words::{
    Periodic, WordMasks, cells_in, low_cells, put_cells, set_bits, short_period, spread,
};
use words::{front_cells, has_unreached, unreached_cells};

/// The value of a rank not reached (yet).
pub const UNREACHED: u8 = 3;
/// Ranks per word.
const PER_WORD: u64 = 32;
/// Ranks per chunk: the unit of work and of the level flags (a multiple of [`PER_WORD`]);
/// small, so that a push expands few ranks of older levels beside the frontier, and
/// large enough that at the widest levels a chunk's frontier is many batches (the
/// prefetches of a batch land while the next is generated) and the work per chunk
/// outweighs handing it out (`fourteen`'s level 58: 26.1 s at 2048 ranks, 24.9 at 8192).
pub const CHUNK: u64 = 1 << 13;
/// Pull once the ranks not reached, beyond the frontier, are at most this many times
/// what a push would expand: a push also expands the older levels of the frontier's
/// residue in the flagged chunks, so pulling pays off earlier than in the one-byte
/// solver (which compares with the frontier alone).
const PULL_RATIO: u64 = 1;

/// Words per block of the table. The table is kept in blocks of 32 MB rather than one
/// allocation so that it can be handed on (packed, written) a block at a time and freed
/// as it goes: a 10.9 GB table is never held twice. Each block is backed by huge pages
/// where the kernel allows (all of it but the start before the first 2 MiB boundary):
/// with 4 KiB pages, nearly every neighbour read at random in gigabytes also missed the
/// TLB and walked page tables that are not in the cache either.
/// (Small in the tests, so that they cross block boundaries.)
pub const BLOCK_WORDS: usize = if cfg!(test) { 1 << 8 } else { 1 << 22 };

/// The most ranks a level may have for its ranks to be kept as the farthest.
pub const FARTHEST_KEPT: u64 = 1 << 16;

/// Every rank's distance modulo [`TwoBitTable::modulus`] (with modulus 3, [`UNREACHED`] where
/// the goal cannot be reached; with modulus 4 every rank is reached): rank `r` in bits
/// `2 (r mod 32)` and up of word `r / 32`, that is in little-endian bytes, bits
/// `2 (r mod 4)` of byte `r / 4`; words in blocks of [`BLOCK_WORDS`]. With the number of
/// ranks at each distance and the ranks at the largest.
pub struct TwoBitTable {
    pub ranks: u64,
    /// 3 or 4: what the codes are distances modulo (see the module docs).
    pub modulus: u8,
    pub blocks: Vec<Vec<u64>>,
    pub levels: Vec<u64>,
    /// The ranks at the largest distance, sorted (empty if that level has more than
    /// [`FARTHEST_KEPT`]).
    pub farthest: Vec<u64>,
}

impl TwoBitTable {
    /// `rank`'s distance modulo [`TwoBitTable::modulus`], or [`UNREACHED`] (modulus 3 only).
    pub fn get(&self, rank: u64) -> u8 {
        let w = (rank / PER_WORD) as usize;
        cell(self.blocks[w / BLOCK_WORDS][w % BLOCK_WORDS], rank)
    }

    pub fn max_distance(&self) -> usize {
        self.levels.len() - 1
    }
}

#[inline]
fn cell(word: u64, rank: u64) -> u8 {
    (word >> (2 * (rank % PER_WORD)) & 3) as u8
}

/// Solves `space` backwards from its goals, two bits per rank. Fails only when a goal
/// is outside the space.
pub fn solve<S: StateSpace + ?Sized>(
    space: &S,
    progress: &dyn Progress,
) -> Result<TwoBitTable, u64> {
    let goals = space.goals();
    if let Some(&g) = goals.iter().find(|&&g| g >= space.size()) {
        return Err(g);
    }
    if goals_even(space, &goals)
        && let Some(t) = by_parity(space, progress)
    {
        return Ok(t);
    }
    Ok(by_residue(space, progress))
}

/// The modulus [`solve`] gives `space` once its search has reached `reached` ranks: 4
/// when the goals are all of parity 0 and every rank was reached, 3 otherwise.
pub fn modulus_of<S: StateSpace + ?Sized>(space: &S, reached: u64) -> u8 {
    if goals_even(space, &space.goals()) && reached == space.size() {
        4
    } else {
        3
    }
}

/// Whether there are goals and all are of parity 0: the mod-4 search is tried.
fn goals_even<S: StateSpace + ?Sized>(space: &S, goals: &[u64]) -> bool {
    !goals.is_empty() && goals.iter().all(|&g| space.parity(g) == Some(0))
}

/// The mod-4 search (see the module docs); `None` if some rank stays unreached.
fn by_parity<S: StateSpace + ?Sized>(space: &S, progress: &dyn Progress) -> Option<TwoBitTable> {
    let t = Search::new(0..space.size());
    let mut goals = 0;
    for g in space.goals() {
        goals += t.claim(g, FRONT, 0) as u64;
    }
    progress.phase("distances (two bits, mod 4)", t.n);
    progress.advance(goals);
    let (levels, farthest) = t.levels(goals, space.goals(), progress, |_, d, steps| {
        t.push_front(space, d, 0..t.chunks(), steps).0
    });
    let unreached = t.complete_mod4(space);
    (unreached == 0).then(|| t.into_table(4, levels, farthest))
}

/// The mod-3 search (see the module docs).
fn by_residue<S: StateSpace + ?Sized>(space: &S, progress: &dyn Progress) -> TwoBitTable {
    let t = Search::new(0..space.size());
    let mut goals = 0;
    for g in space.goals() {
        goals += t.claim(g, 0, 0) as u64;
    }
    progress.phase("distances (two bits, mod 3)", t.n);
    progress.advance(goals);
    let (levels, farthest) = t.levels(goals, space.goals(), progress, |levels, d, steps| {
        // A push expands every rank of the level's residue in the flagged chunks, so it
        // costs about the levels d, d - 3, d - 6, ... together, not level d alone.
        let pushed: u64 = levels.iter().rev().step_by(3).sum();
        let unreached = t.n - levels.iter().sum::<u64>();
        if unreached.saturating_sub(levels[d]) <= PULL_RATIO * pushed {
            t.pull(space, d, steps)
        } else {
            t.push(space, d, steps).0
        }
    });
    t.into_table(3, levels, farthest)
}

/// The frontier's code in the mod-4 search.
const FRONT: u8 = 2;
/// The low bit of every two-bit cell.
pub const LOW: u64 = 0x5555_5555_5555_5555;

/// The cells of ranks `first..first + n` (all of them in the one-process search, a
/// process's share in [`crate::distributed::twobit`]).
pub struct Search {
    /// The first rank (a multiple of [`PER_WORD`]) and the number of ranks.
    first: u64,
    n: u64,
    blocks: Vec<Vec<AtomicU64>>,
    marks: [Vec<AtomicBool>; 2],
    /// The ranks claimed in the level under way, while there are few.
    last: std::sync::Mutex<Vec<u64>>,
    /// Set once the level under way has more than [`FARTHEST_KEPT`] ranks: claims are
    /// then no longer collected (at the widest levels that was a store per rank).
    full: AtomicBool,
}

impl Search {
    pub fn new(ranks: std::ops::Range<u64>) -> Search {
        debug_assert!(ranks.start.is_multiple_of(PER_WORD) || ranks.is_empty());
        let n = ranks.end - ranks.start;
        let words = n.div_ceil(PER_WORD) as usize;
        let blocks = (0..words.div_ceil(BLOCK_WORDS))
            .map(|b| {
                let len = BLOCK_WORDS.min(words - b * BLOCK_WORDS);
                atomic_words(len, u64::MAX, true)
            })
            .collect();
        let chunks = n.div_ceil(CHUNK) as usize;
        Search {
            first: ranks.start,
            n,
            blocks,
            marks: [0, 1].map(|_| (0..chunks).map(|_| AtomicBool::new(false)).collect()),
            last: std::sync::Mutex::new(Vec::new()),
            full: AtomicBool::new(false),
        }
    }

    /// Runs `step(levels, d, steps)` (which finds level `d + 1`, showing its ranks on
    /// `steps` as it finds them) from level 0 (`goals` ranks, `first`) until a level is
    /// empty; returns the levels and the ranks of the last one, sorted (empty if it had
    /// more than [`FARTHEST_KEPT`]).
    fn levels(
        &self,
        goals: u64,
        first: Vec<u64>,
        progress: &dyn Progress,
        step: impl Fn(&[u64], usize, &Steps) -> u64,
    ) -> (Vec<u64>, Vec<u64>) {
        let mut levels = vec![goals];
        let mut farthest = first;
        let mut d = 0usize;
        while levels[d] > 0 {
            self.clear_marks(d + 1);
            let steps = Steps::new(progress);
            let found = step(&levels, d, &steps);
            steps.end(found);
            let last = self.take_last();
            if found > 0 {
                farthest = if found <= FARTHEST_KEPT {
                    last
                } else {
                    Vec::new()
                };
            }
            levels.push(found);
            d += 1;
        }
        levels.pop();
        // The ranks never reached are settled too (unsolvable): the phase ends at its
        // total.
        progress.advance(self.n.saturating_sub(levels.iter().sum()));
        farthest.sort_unstable();
        farthest.dedup();
        (levels, farthest)
    }

    /// Number of chunks of the cells.
    pub fn chunks(&self) -> usize {
        self.marks[0].len()
    }

    /// Claims `rank` (in the cells) as a goal of the mod-4 search.
    pub fn claim_goal(&self, rank: u64) -> bool {
        self.claim(rank, FRONT, 0)
    }

    /// Clears the flags of level `d`'s chunks, before the level is found.
    pub fn clear_marks(&self, d: usize) {
        self.marks[d % 2]
            .par_iter()
            .for_each(|m| m.store(false, Relaxed));
    }

    /// Claims `ranks` (in the cells, sorted) for level `d` of the mod-4 search, as
    /// frontier; returns how many were new.
    pub fn arrive(&self, ranks: &[u64], d: usize) -> u64 {
        ranks
            .par_chunks(1 << 12)
            .map(|part| {
                let mut claimed: Vec<u64> = Vec::new();
                for &r in part {
                    if self.get(r) == UNREACHED && self.claim(r, FRONT, d) {
                        claimed.push(r);
                    }
                }
                let n = claimed.len() as u64;
                self.keep(&mut claimed);
                n
            })
            .sum()
    }

    /// The ranks claimed since the last call while the level under way had at most
    /// about [`FARTHEST_KEPT`] (empty, or some of them, beyond).
    pub fn take_last(&self) -> Vec<u64> {
        self.full.store(false, Relaxed);
        std::mem::take(&mut *self.last.lock().unwrap())
    }

    /// Whether a rank claimed now is to be collected for [`Search::keep`].
    #[inline]
    fn collecting(&self, claimed: &[u64]) -> bool {
        claimed.len() as u64 <= FARTHEST_KEPT && !self.full.load(Relaxed)
    }

    /// Writes every cell, words of 32 in little-endian order.
    pub fn save(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut buf = Vec::with_capacity(1 << 20);
        for block in &self.blocks {
            for part in block.chunks(1 << 17) {
                buf.clear();
                buf.extend(part.iter().flat_map(|w| w.load(Relaxed).to_le_bytes()));
                out.write_all(&buf)?;
            }
        }
        Ok(())
    }

    /// Reads every cell as [`Search::save`] wrote them.
    pub fn load(&self, input: &mut dyn std::io::Read) -> std::io::Result<()> {
        let mut buf = vec![0u8; 1 << 20];
        for block in &self.blocks {
            for part in block.chunks(1 << 17) {
                let bytes = &mut buf[..8 * part.len()];
                input.read_exact(bytes)?;
                for (w, b) in part.iter().zip(bytes.chunks_exact(8)) {
                    w.store(u64::from_le_bytes(b.try_into().unwrap()), Relaxed);
                }
            }
        }
        Ok(())
    }

    /// Flags, for level `d`, every chunk that holds a frontier rank (after level `d` is
    /// found, the frontier is level `d` alone).
    pub fn mark_front(&self, d: usize) {
        self.clear_marks(d);
        (0..self.chunks()).into_par_iter().for_each(|c| {
            let r = self.chunk(c);
            // Cells past the last rank are never frontier (they stay 0b11).
            let front = (r.start..r.end)
                .step_by(PER_WORD as usize)
                .any(|base| front_cells(self.word(base).load(Relaxed)) != 0);
            if front {
                self.marks[d % 2][c].store(true, Relaxed);
            }
        });
    }

    /// The cells, words in blocks of [`BLOCK_WORDS`].
    pub fn into_blocks(self) -> Vec<Vec<u64>> {
        (self.blocks.into_iter())
            .map(|b| b.into_iter().map(AtomicU64::into_inner).collect())
            .collect()
    }

    fn into_table(self, modulus: u8, levels: Vec<u64>, farthest: Vec<u64>) -> TwoBitTable {
        TwoBitTable {
            ranks: self.n,
            modulus,
            blocks: self.into_blocks(),
            levels,
            farthest,
        }
    }

    // (`#[inline]` on these: the search is generic, so a crate that calls it (a bench)
    // instantiates it, and without the attribute calls each of them per neighbour.)
    #[inline]
    fn word(&self, rank: u64) -> &AtomicU64 {
        let w = ((rank - self.first) / PER_WORD) as usize;
        &self.blocks[w / BLOCK_WORDS][w % BLOCK_WORDS]
    }

    #[inline]
    fn get(&self, rank: u64) -> u8 {
        cell(self.word(rank).load(Relaxed), rank)
    }

    /// Keeps `claimed` (ranks new to the level under way) while the level is small.
    fn keep(&self, claimed: &mut Vec<u64>) {
        if !claimed.is_empty() {
            let mut last = self.last.lock().unwrap();
            if last.len() as u64 <= FARTHEST_KEPT {
                last.append(claimed);
            } else {
                self.full.store(true, Relaxed);
            }
        }
        claimed.clear();
    }

    /// Sets `rank`, if unreached, to `code` and flags its chunk for level `d`; true if
    /// this call reached it. The rank must be unreached or hold `code` already: every
    /// caller has seen it unreached, and since then only a claim of the same level, with
    /// the same code, can have changed it.
    #[inline]
    fn claim(&self, rank: u64, code: u8, d: usize) -> bool {
        let shift = 2 * (rank % PER_WORD);
        // Unreached is 0b11: clearing the bits that `code` lacks sets it, and leaves a
        // rank already claimed (by another thread in this level, same code) as it is.
        let clear = (3 ^ code as u64) << shift;
        let was_unreached = if code == FRONT {
            // So the cell holds 0b11 or, claimed since, 0b10, and its low bit alone says
            // which: tested as it is cleared, in one instruction (`lock btr`) where the
            // whole old cell would take a compare-and-swap loop (the mod-4 search's
            // every claim).
            let bit = 1 << shift;
            self.word(rank).fetch_and(!bit, Relaxed) & bit != 0
        } else {
            // (A loop of its own: written as `fetch_and`, both arms became one
            // compare-and-swap loop.)
            let word = self.word(rank);
            let mut w = word.load(Relaxed);
            loop {
                if (w >> shift & 3) as u8 != UNREACHED {
                    break false;
                }
                match word.compare_exchange_weak(w, w & !clear, Relaxed, Relaxed) {
                    Ok(_) => break true,
                    Err(now) => w = now,
                }
            }
        };
        if was_unreached {
            self.flag(rank, d);
        }
        was_unreached
    }

    /// Flags the chunk of `rank` as holding level `d`.
    #[inline]
    fn flag(&self, rank: u64, d: usize) {
        let flag = &self.marks[d % 2][((rank - self.first) / CHUNK) as usize];
        if !flag.load(Relaxed) {
            flag.store(true, Relaxed);
        }
    }

    #[inline]
    fn chunk(&self, c: usize) -> std::ops::Range<u64> {
        let lo = c as u64 * CHUNK;
        self.first + lo..self.first + (lo + CHUNK).min(self.n)
    }

    /// Level `d + 1` in the mod-4 search, from `chunks` of the cells: every frontier
    /// rank of level `d`'s parity in the chunks flagged for `d` claims its unreached
    /// neighbours (as frontier, of the other parity) and becomes `(d / 2) mod 2`.
    /// Returns the ranks claimed and the neighbours outside the cells (sorted, distinct),
    /// which another process claims.
    ///
    /// The moves inside a word ([`StateSpace::run_links`]) are made a word at a time:
    /// one compare-and-swap turns the word's frontier to done and claims the unreached
    /// ranks next to it; the rest go rank by rank.
    pub fn push_front<S: StateSpace + ?Sized>(
        &self,
        space: &S,
        d: usize,
        chunks: std::ops::Range<usize>,
        steps: &Steps,
    ) -> (u64, Vec<u64>) {
        let parity = (d % 2) as u8;
        let done = (FRONT ^ ((d / 2) % 2) as u8) as u64;
        let masks = Periodic::new(space);
        let claim = Claim {
            d,
            code: FRONT,
            far: true,
        };
        self.push_from(space, claim, chunks, steps, |ranks, reach| {
            // First the words with a frontier rank of the level's parity, picked out
            // without a branch on each: at the wide levels about half the words have
            // one, and a branch on it was a coin toss.
            let mut words = std::mem::take(&mut reach.words);
            words.clear();
            words.resize(
                (ranks.end - ranks.start).div_ceil(PER_WORD) as usize,
                (0, 0),
            );
            let mut n = 0;
            let mut k = masks.place(ranks.start);
            for base in ranks.clone().step_by(PER_WORD as usize) {
                let at = k;
                k = masks.next(k);
                let mine = front_cells(self.word(base).load(Relaxed)) & masks.cells(at, parity);
                words[n] = (base, at);
                n += (mine != 0) as usize;
            }
            let mut claimed_any = 0;
            let mut expand = std::mem::take(&mut reach.expand);
            let room = (ranks.end - ranks.start) as usize + 4;
            if expand.len() < room {
                expand.resize(room, 0);
            }
            let mut len = 0;
            for &(base, at) in &words[..n] {
                let word = self.word(base);
                let mut w = word.load(Relaxed);
                let m = masks.at(space, base, at);
                let mine = front_cells(w)
                    & if parity == 1 {
                        m.odd_cells
                    } else {
                        !m.odd_cells
                    };
                if mine == 0 || !m.known {
                    continue;
                }
                // Bit 31's link leaves the word: made rank by rank, as is the link into
                // bit 0 from the word before.
                let next = (mine & m.inside) << 2 | (mine >> 2 & m.inside);
                // Only this thread reads the frontier cells of its chunk, and other
                // threads change unreached cells alone (to FRONT): the word is flipped
                // and its neighbours claimed in one step, retried if another thread got
                // in between. (`mine` has the low bit of each cell: times `done` is
                // `done` in each; FRONT is unreached less its low bit.)
                let claimed = loop {
                    let new = next & unreached_cells(w);
                    match word.compare_exchange_weak(
                        w,
                        (w ^ (mine * done)) & !new,
                        Relaxed,
                        Relaxed,
                    ) {
                        Ok(_) => break new,
                        Err(now) => w = now,
                    }
                };
                reach.found += cells_in(claimed);
                claimed_any |= claimed;
                if self.collecting(&reach.claimed) && claimed != 0 {
                    reach
                        .claimed
                        .extend(set_bits(claimed).map(|bit| base + (bit / 2) as u64));
                }
                if m.linked_after && mine >> 62 != 0 {
                    reach.direct.push(base + PER_WORD);
                }
                if mine & 1 != 0 && base >= PER_WORD && m.linked_before {
                    reach.direct.push(base - 1);
                }
                len = put_cells(&mut expand, len, base, mine);
            }
            // The ranks claimed inside words are all in this chunk.
            if claimed_any != 0 {
                self.flag(ranks.start, d + 1);
            }
            reach.ranks.extend_from_slice(&expand[..len]);
            reach.words = words;
            reach.expand = expand;
        })
    }

    /// Turns every expanded rank's `(d / 2) mod 2` into `d mod 4` with its parity;
    /// returns the number of ranks left unreached (which keep [`UNREACHED`]).
    pub fn complete_mod4<S: StateSpace + ?Sized>(&self, space: &S) -> u64 {
        self.blocks
            .par_iter()
            .enumerate()
            .flat_map(|(b, block)| {
                block
                    .par_iter()
                    .enumerate()
                    .map(move |(i, w)| ((b * BLOCK_WORDS + i) as u64 * PER_WORD, w))
            })
            .map(|(offset, word)| {
                let w = word.load(Relaxed);
                let odd = space.odd_ranks(self.first + offset).unwrap_or(0);
                // The whole word at once: each reached cell holds (d / 2) mod 2, which
                // moves to the high bit beside the parity; unreached cells and those
                // past the last rank stay 0b11.
                let valid = low_cells(self.n - offset);
                let unreached = unreached_cells(w) & valid;
                let reached = valid & !unreached;
                let codes = (w & reached) << 1 | (spread(odd) & reached);
                word.store(w & !(reached * 3) | codes, Relaxed);
                cells_in(unreached)
            })
            .sum()
    }

    /// Level `d + 1` from the ranks of residue `d mod 3` in the chunks flagged for `d`.
    fn push<S: StateSpace + ?Sized>(&self, space: &S, d: usize, steps: &Steps) -> (u64, Vec<u64>) {
        let want = (d % 3) as u8;
        let code = ((d + 1) % 3) as u8;
        self.push_from(
            space,
            Claim {
                d,
                code,
                far: false,
            },
            0..self.chunks(),
            steps,
            |ranks, reach| reach.ranks.extend(ranks.filter(|&r| self.get(r) == want)),
        )
    }

    /// Level `d + 1` by pushing: in every chunk of `chunks` flagged for `d`, `frontier`
    /// picks the ranks to expand (and may claim some of their neighbours itself, `far`
    /// then saying that only [`StateSpace::far_neighbors_of`] are left); each claims its
    /// unreached neighbours with `code`. Returns the ranks claimed and the neighbours
    /// outside the cells (sorted, distinct).
    fn push_from<S, F>(
        &self,
        space: &S,
        Claim { d, code, far }: Claim,
        chunks: std::ops::Range<usize>,
        steps: &Steps,
        frontier: F,
    ) -> (u64, Vec<u64>)
    where
        S: StateSpace + ?Sized,
        F: Fn(std::ops::Range<u64>, &mut Reach) + Sync,
    {
        #[cfg(feature = "owned-claims")]
        if code == FRONT {
            return self.push_owned(space, d, far, chunks, steps, frontier);
        }
        let (found, mut outside) = chunks
            .into_par_iter()
            .filter(|&c| self.marks[d % 2][c].load(Relaxed))
            .map_init(Scratch::default, |scratch, c| {
                scratch.reach.found = 0;
                let mut outside = Vec::new();
                frontier(self.chunk(c), &mut scratch.reach);
                self.expand_reach(
                    space,
                    far,
                    self.all(),
                    scratch,
                    |nb| outside.push(nb),
                    |nb| self.claim(nb, code, d + 1),
                );
                steps.add(&mut scratch.unshown, scratch.reach.found);
                (scratch.reach.found, outside)
            })
            .reduce(
                || (0, Vec::new()),
                |(a, mut x), (b, y)| {
                    x.extend(y);
                    (a + b, x)
                },
            );
        outside.par_sort_unstable();
        outside.dedup();
        (found, outside)
    }

    /// Expands the ranks `frontier` left in `scratch.reach` (and claims the neighbours
    /// it left in `direct`): each neighbour in `near` that is unreached is claimed with
    /// `claim` (true if that reached it), counted in `found` and kept while the level
    /// is small; every other neighbour goes to `away`.
    #[inline]
    fn expand_reach<S: StateSpace + ?Sized>(
        &self,
        space: &S,
        far: bool,
        near: std::ops::Range<u64>,
        scratch: &mut Scratch,
        mut away: impl FnMut(u64),
        claim: impl Fn(u64) -> bool,
    ) {
        let Scratch {
            batches,
            reach,
            open,
            ..
        } = scratch;
        let Reach {
            ranks,
            direct,
            claimed,
            found,
            ..
        } = reach;
        // The neighbours still unreached are picked out first, without a branch on each
        // (whether a neighbour is reached is a coin toss at the wide levels, so a branch
        // on it was mispredicted about half the time), and claimed after.
        let mut claim_all = |nbs: &[u64]| {
            open.clear();
            open.resize(nbs.len(), 0);
            let mut n = 0;
            for &nb in nbs {
                if !within(&near, nb) {
                    away(nb);
                    continue;
                }
                open[n] = nb;
                n += (self.get(nb) == UNREACHED) as usize;
            }
            for &nb in &open[..n] {
                if claim(nb) {
                    *found += 1;
                    if self.collecting(claimed) {
                        claimed.push(nb);
                    }
                }
            }
        };
        claim_all(direct);
        direct.clear();
        Batch::pipelined(batches, space, self, ranks, far, near.clone(), claim_all);
        ranks.clear();
        self.keep(claimed);
    }

    /// Every rank of the cells.
    fn all(&self) -> std::ops::Range<u64> {
        self.first..self.first + self.n
    }

    /// Level `d + 1` as the unreached ranks with a neighbour of residue `d mod 3`.
    fn pull<S: StateSpace + ?Sized>(&self, space: &S, d: usize, steps: &Steps) -> u64 {
        let want = (d % 3) as u8;
        (0..self.marks[0].len())
            .into_par_iter()
            .map_init(
                || (Batch::default(), Vec::new(), Vec::new(), 0),
                |(batch, ranks, claimed, unshown), c| {
                    let mut found = 0;
                    let chunk = self.chunk(c);
                    let mut r = chunk.start;
                    while r < chunk.end {
                        // A word with no unreached rank is skipped whole (chunks start on
                        // word boundaries).
                        let word = self.word(r).load(Relaxed);
                        if r.is_multiple_of(PER_WORD) && !has_unreached(word) {
                            r += PER_WORD;
                            continue;
                        }
                        if cell(word, r) == UNREACHED {
                            ranks.push(r);
                        }
                        r += 1;
                    }
                    for part in ranks.chunks(BATCH) {
                        batch.expand(space, self, part, false, self.all());
                        for (&r, nbs) in part.iter().zip(batch.each()) {
                            if nbs.iter().any(|&nb| self.get(nb) == want)
                                && self.claim(r, ((d + 1) % 3) as u8, d + 1)
                            {
                                found += 1;
                                if claimed.len() as u64 <= FARTHEST_KEPT {
                                    claimed.push(r);
                                }
                            }
                        }
                    }
                    ranks.clear();
                    self.keep(claimed);
                    steps.add(unshown, found);
                    found
                },
            )
            .sum()
    }
}

#[cfg(test)]
pub mod tests;
