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

use puzzlebase_core::memory::{atomic_words, prefetch};
use puzzlebase_core::progress::{Progress, Steps};
use puzzlebase_core::space::StateSpace;

#[cfg(feature = "owned-claims")]
mod owned;

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

/// What [`Search::push_front`] needs to know of a word's 32 ranks besides their cells.
#[derive(Clone, Copy, Default)]
pub struct WordMasks {
    /// Whether the space knows the ranks' parities ([`StateSpace::odd_ranks`]).
    pub known: bool,
    /// The low bits of the cells of the ranks of parity 1.
    pub odd_cells: u64,
    /// Whether the word's last rank links to the next word's first.
    pub linked_after: bool,
    /// The low bits of the cells of the ranks linked to the next one in the word.
    pub inside: u64,
    /// Whether the last rank of the word before links to this word's first.
    pub linked_before: bool,
}

impl WordMasks {
    fn of<S: StateSpace + ?Sized>(space: &S, base: u64, before: u64) -> WordMasks {
        let odd = space.odd_ranks(base);
        let links = space.run_links(base);
        WordMasks {
            known: odd.is_some(),
            odd_cells: spread(odd.unwrap_or(0)),
            linked_after: links >> 31 != 0,
            inside: spread(links & 0x7FFF_FFFF),
            linked_before: space.run_links(before) >> 31 != 0,
        }
    }
}

/// The [`WordMasks`] of one period of words ([`StateSpace::word_period`]), looked up
/// by a word's place in it instead of asked of the space for every word (two divisions
/// and two spreads of 32 bits for each word with a frontier rank); empty when the space
/// has no period (or a long one), and then asked after all.
pub struct Periodic {
    table: Vec<WordMasks>,
}

/// The space's period of words ([`StateSpace::word_period`]) where it is short enough
/// for what depends on it to be looked up in a table of one period (at most 1,024
/// words): [`Periodic`] here, and the parities of the check led by a table.
pub fn short_period<S: StateSpace + ?Sized>(space: &S) -> Option<u64> {
    space.word_period().filter(|p| (1..=1024).contains(p))
}

impl Periodic {
    pub fn new<S: StateSpace + ?Sized>(space: &S) -> Periodic {
        let table = match short_period(space) {
            Some(p) => (0..p)
                .map(|k| {
                    let before = (k + p - 1) % p;
                    WordMasks::of(space, k * PER_WORD, before * PER_WORD)
                })
                .collect(),
            None => Vec::new(),
        };
        Periodic { table }
    }

    /// Whether the space has a period short enough to be looked up.
    pub fn periodic(&self) -> bool {
        !self.table.is_empty()
    }

    /// The place in the period of the word from `base`.
    pub fn place(&self, base: u64) -> usize {
        if self.table.is_empty() {
            0
        } else {
            (base / PER_WORD % self.table.len() as u64) as usize
        }
    }

    /// The place of the word after the one at `k`.
    pub fn next(&self, k: usize) -> usize {
        if k + 1 >= self.table.len() { 0 } else { k + 1 }
    }

    /// The low bits of the cells of parity `parity` in the word at place `k`, or of
    /// every cell when the space has no short period.
    #[inline]
    pub fn cells(&self, k: usize, parity: u8) -> u64 {
        match self.table.get(k) {
            Some(m) if parity == 1 => m.odd_cells,
            Some(m) => !m.odd_cells & LOW,
            None => LOW,
        }
    }

    /// The masks of the word from `base`, at place `k`.
    pub fn at<S: StateSpace + ?Sized>(&self, space: &S, base: u64, k: usize) -> WordMasks {
        match self.table.get(k) {
            Some(m) => *m,
            None => WordMasks::of(space, base, base.saturating_sub(PER_WORD)),
        }
    }
}

/// How [`Search::push_from`] claims level `d + 1`: with `code`, and `far` when the
/// frontier has claimed the near neighbours itself (only the far ones are left).
#[derive(Clone, Copy)]
struct Claim {
    d: usize,
    code: u8,
    far: bool,
}

/// What a chunk's frontier gives [`Search::push_from`]: the ranks whose neighbours are
/// to be claimed, neighbours to claim as they are, and what was claimed already.
#[derive(Default)]
pub struct Reach {
    ranks: Vec<u64>,
    /// Scratch for [`Search::push_front`]: the words of a chunk that have frontier
    /// ranks to expand, each with its place in the space's period.
    words: Vec<(u64, usize)>,
    /// Scratch for [`Search::push_front`]: the chunk's ranks to expand, and room for
    /// four more.
    expand: Vec<u64>,
    direct: Vec<u64>,
    claimed: Vec<u64>,
    found: u64,
}

/// A thread's scratch while it expands chunks.
#[derive(Default)]
struct Scratch {
    batches: [Batch; 2],
    reach: Reach,
    open: Vec<u64>,
    /// The ranks this thread found and did not show yet ([`Steps`]).
    unshown: u64,
}

/// Neighbours generated for a batch of ranks, and their words prefetched, before any is
/// read: the table is gigabytes read at random, and a batch lets the cache misses
/// overlap instead of stalling one after another.
#[derive(Default)]
struct Batch {
    /// The neighbours of the batch's ranks, those of the `i`-th ending at `ends[i]`.
    nbs: Vec<u64>,
    ends: Vec<usize>,
}

/// Ranks per [`Batch`].
const BATCH: usize = 64;

impl Batch {
    /// Generates the neighbours of `ranks` (ascending) in one call (a space computes the
    /// ranks of one block together), only the far ones with `far`, and prefetches the
    /// words of those in `near` (the cells, or the part of them about to be claimed).
    fn expand<S: StateSpace + ?Sized>(
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
    fn pipelined<S: StateSpace + ?Sized>(
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
    fn each(&self) -> impl Iterator<Item = &[u64]> {
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
fn within(r: &std::ops::Range<u64>, x: u64) -> bool {
    x.wrapping_sub(r.start) < r.end - r.start
}

/// The positions of the set bits of `mask`, lowest first.
pub fn set_bits(mut mask: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let bit = mask.trailing_zeros();
            mask &= mask - 1;
            bit
        })
    })
}

/// Writes the rank of each cell of `mask` (a mask of cells' low bits, of the word from
/// rank `base`) to `out` from `len` on, lowest first; returns `len` plus their number.
/// `out` must have room for four past them: four are written whatever `mask` has. At
/// the wide levels a word has one or two such ranks, and a loop by its bits was
/// mispredicted where it ended; written this way there is no branch until the fifth.
#[inline]
pub fn put_cells(out: &mut [u64], len: usize, base: u64, mask: u64) -> usize {
    let mut rest = mask;
    for slot in &mut out[len..len + 4] {
        *slot = base + (rest.trailing_zeros() / 2) as u64;
        rest &= rest.wrapping_sub(1);
    }
    for (slot, bit) in out[len + 4..].iter_mut().zip(set_bits(rest)) {
        *slot = base + (bit / 2) as u64;
    }
    len + cells_in(mask) as usize
}

/// The low bits of the cells of a word's first `ranks` ranks (all 32 from 32 on): a
/// last word may be partly past the last rank.
pub fn low_cells(ranks: u64) -> u64 {
    if ranks >= PER_WORD {
        LOW
    } else {
        LOW & ((1 << (2 * ranks)) - 1)
    }
}

/// Bit `i` of `x` moved to bit `2 i`: a mask of ranks as the low bits of their cells.
pub fn spread(x: u32) -> u64 {
    let mut x = x as u64;
    x = (x | x << 16) & 0x0000_FFFF_0000_FFFF;
    x = (x | x << 8) & 0x00FF_00FF_00FF_00FF;
    x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & LOW
}

/// The number of cells in `mask`, a mask of cells' low bits (without POPCNT, which the
/// baseline x86-64 target lacks, `count_ones` takes twice the operations).
pub fn cells_in(mask: u64) -> u64 {
    let pairs = (mask + (mask >> 2)) & 0x3333_3333_3333_3333;
    let bytes = (pairs + (pairs >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    bytes.wrapping_mul(0x0101_0101_0101_0101) >> 56
}

/// The low bits of the cells of `w` that hold [`FRONT`] (0b10).
fn front_cells(w: u64) -> u64 {
    w >> 1 & !w & LOW
}

/// The low bits of the cells of `w` that hold [`UNREACHED`] (0b11).
fn unreached_cells(w: u64) -> u64 {
    w & w >> 1 & LOW
}

/// Whether some two-bit cell of `w` is 0b11.
fn has_unreached(w: u64) -> bool {
    unreached_cells(w) != 0
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::bfs::{self, Outputs};
    use puzzlebase_core::progress::Silent;
    use puzzlebase_families::sliding::Sliding;

    /// The hexagonal six: triangles, so not bipartite.
    pub fn hexagonal_six() -> Sliding {
        let adjacency = [
            &[1, 2, 3][..],
            &[0, 3, 4],
            &[0, 3, 5],
            &[0, 1, 2, 4, 5, 6],
            &[1, 3, 6],
            &[2, 3, 6],
            &[3, 4, 5],
        ];
        Sliding::new(
            "six",
            adjacency.iter().map(|a| a.to_vec()).collect(),
            vec![1, 2, 3, 4, 5, 6, 0],
        )
    }

    /// Every rank holds its distance modulo the table's modulus (4 for the rectangles,
    /// 3 for the hexagonal `six` and when asked by residue), and the levels and the
    /// farthest ranks are the plain solver's.
    #[test]
    fn codes_and_levels_are_the_plain_solvers() {
        let six = hexagonal_six();
        let (eight, nine) = (Sliding::grid("eight", 3, 3), Sliding::grid("nine", 2, 5));
        let cases: Vec<(&dyn StateSpace, u8, bool)> = vec![
            (&eight, 4, false),
            (&nine, 4, false),
            (&eight, 3, true),
            (&nine, 3, true),
            (&six, 3, false),
        ];
        for (g, modulus, by_residue_only) in cases {
            let plain = bfs::solve_with(g, Outputs::DISTANCES, &Silent).unwrap();
            let two = if by_residue_only {
                by_residue(g, &Silent)
            } else {
                solve(g, &Silent).unwrap()
            };
            assert_eq!(two.modulus, modulus);
            assert_eq!(two.levels, plain.levels);
            for r in 0..g.size() {
                let d = plain.dist[r as usize];
                let want = if d == bfs::UNREACHED {
                    UNREACHED
                } else {
                    d % modulus
                };
                assert_eq!(two.get(r), want, "rank {r}");
            }
            let words: usize = two.blocks.iter().map(Vec::len).sum();
            assert_eq!(words as u64, g.size().div_ceil(32));
            // The farthest ranks are those at the plain solver's largest distance.
            let max = *plain
                .dist
                .iter()
                .filter(|&&d| d != bfs::UNREACHED)
                .max()
                .unwrap();
            let far: Vec<u64> = (0..g.size())
                .filter(|&r| plain.dist[r as usize] == max)
                .collect();
            assert_eq!(two.farthest, far);
        }
    }

    /// `cells_in` counts what `count_ones` counts, on masks of cells' low bits.
    #[test]
    fn cells_in_counts_the_cells() {
        let mut x = 0x0123_4567_89AB_CDEFu64;
        for _ in 0..10_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let mask = x & LOW;
            assert_eq!(cells_in(mask), mask.count_ones() as u64);
        }
        assert_eq!(cells_in(LOW), 32);
        assert_eq!(cells_in(0), 0);
    }

    /// `put_cells` writes what `set_bits` gives, however many cells a mask has (none, up
    /// to four, more), after what is there, and leaves what is before it alone.
    #[test]
    fn put_cells_writes_each_cells_rank() {
        let mut x = 0x0123_4567_89AB_CDEFu64;
        let mut masks = vec![0, LOW, 1, 1 << 62, 0b0101, LOW & !1];
        for _ in 0..2_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            // Sparse and dense masks alike.
            masks.push(x & LOW & (x >> 7) & (x >> 13));
            masks.push(x & LOW);
        }
        let mut out = vec![7u64; 3 + 32 + 4];
        for (i, &mask) in masks.iter().enumerate() {
            let base = 1000 * i as u64;
            let len = put_cells(&mut out, 3, base, mask);
            let want: Vec<u64> = set_bits(mask).map(|b| base + (b / 2) as u64).collect();
            assert_eq!(&out[3..len], &want[..], "mask {mask:#x}");
            assert_eq!(&out[..3], &[7, 7, 7]);
        }
    }

    /// Ranks below 40 form a path to the goal 0; the rest (40 to 69) pair up among
    /// themselves and never reach it.
    pub struct Islands;
    impl StateSpace for Islands {
        fn size(&self) -> u64 {
            70
        }
        fn goals(&self) -> Vec<u64> {
            vec![0]
        }
        fn neighbors(&self, r: u64, out: &mut Vec<u64>) {
            if r < 40 {
                out.extend((r > 0).then(|| r - 1));
                out.extend((r + 1 < 40).then_some(r + 1));
            } else {
                out.push(40 + ((r - 40) ^ 1));
            }
        }
    }

    /// A graph with ranks that never reach the goal keeps them unreached.
    #[test]
    fn unreachable_ranks_stay_unreached() {
        let t = solve(&Islands, &Silent).unwrap();
        assert_eq!((t.modulus, &t.levels), (3, &vec![1; 40]));
        for r in 0..70 {
            assert_eq!(t.get(r), if r < 40 { (r % 3) as u8 } else { UNREACHED });
        }

        // Bipartite, so the mod-4 search runs first; its table cannot say "unreached",
        // so the search is made again by residue.
        struct Bipartite;
        impl StateSpace for Bipartite {
            fn size(&self) -> u64 {
                Islands.size()
            }
            fn goals(&self) -> Vec<u64> {
                Islands.goals()
            }
            fn neighbors(&self, r: u64, out: &mut Vec<u64>) {
                Islands.neighbors(r, out)
            }
            fn parity(&self, r: u64) -> Option<u8> {
                Some((r % 2) as u8)
            }
        }
        let t = solve(&Bipartite, &Silent).unwrap();
        assert_eq!((t.modulus, &t.levels), (3, &vec![1; 40]));
        assert_eq!(t.get(69), UNREACHED);

        // The path alone is reached whole: mod 4.
        struct Path;
        impl StateSpace for Path {
            fn size(&self) -> u64 {
                40
            }
            fn goals(&self) -> Vec<u64> {
                vec![0]
            }
            fn neighbors(&self, r: u64, out: &mut Vec<u64>) {
                Islands.neighbors(r, out)
            }
            fn parity(&self, r: u64) -> Option<u8> {
                Some((r % 2) as u8)
            }
        }
        let t = solve(&Path, &Silent).unwrap();
        assert_eq!((t.modulus, &t.levels), (4, &vec![1; 40]));
        assert!((0..40).all(|r| t.get(r) == (r % 4) as u8));
    }
}
