//! The check of a stored two-bit table ([`crate::twobit`]'s `mod4` or `mod3`
//! codes): a breadth-first search from the goals, **led by the table**, that proves
//! every code is its rank's distance modulo 4 or 3 (or "not reached") in one pass.
//!
//! Level `d + 1` is every rank not yet reached that is one move from a rank of level
//! `d`, as in any breadth-first search; each such rank is reached once, and its stored
//! code must then be `(d + 1) mod m`. The table leads the search: a reached rank is
//! open until expanded, and the open ranks of level `d` are told from those just
//! reached for `d + 1` by their (already checked) codes. So every reached rank is
//! expanded once, where the solver that wrote the table expands the older levels of a
//! residue again (mod 3). Late levels **pull** instead (each rank not reached looks for
//! a neighbour open at `d`) once fewer ranks are left than level `d` has, by more than
//! what reading the whole table costs; every rank not reached is looked at, whatever
//! its code, so a wrong one cannot hide. When no level is left, the ranks never reached
//! must say so (`mod3`'s code 3); a `mod4` table must have reached them all.
//!
//! It shares nothing with the solver but the space's moves (and, for `mod4`, its
//! parities): passing means the stored codes are exactly the distances modulo `m`, with
//! the exact number of ranks at each level. The moves come as the space offers them to
//! the solver too: those inside a group of 32 ranks ([`StateSpace::run_links`], the
//! blank along a row) made for a whole group at once, the others generated
//! ([`StateSpace::far_neighbors_of`]); a space's promise that the two are every move is
//! tested with the space.
//!
//! Memory: a `mod4` table of a space that knows its parities is searched **in place**
//! where they are cheap to look up, or where the table is too large for more (the 2x7's
//! 43.6 billion ranks; the rule and its figures: `searched_in_place`), in the table's
//! own two bits per rank: a code's low bit is its rank's parity, checked first, which
//! leaves room for its high bit and for two marks (open, closed). Otherwise the codes
//! are kept and two bits per rank are added (reached; open), which spares a parity per
//! rank reached. A table read from a file goes through [`Codes`], which makes each word
//! ready as it is read (the parities checked, the marks made), so that no pass over the
//! whole table follows the read.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use strength_reduce::StrengthReducedU64;

use crate::twobit::{
    FARTHEST_KEPT, LOW, Periodic, UNREACHED, WordMasks, cells_in, low_cells, put_cells, set_bits,
    short_period, spread,
};
use puzzlebase_core::memory::prefetch;
use puzzlebase_core::progress::Progress;
use puzzlebase_core::space::StateSpace;

mod marks;
use marks::{CLOSED, Coded, InPlace, Parities, squeeze};

/// Ranks per unit of work (a multiple of 64): the open ranks of a level are found a unit
/// at a time, in the units flagged as having some.
const UNIT: u64 = 1 << 13;
/// Ranks expanded together: their neighbours are generated in one call and their words
/// prefetched before any is read.
const BATCH: usize = 64;
/// Ranks reached between two calls to the progress of a thread.
const SHOW_EVERY: u64 = 1 << 20;
/// Ranks per group: the codes of 32 ranks are one word.
const GROUP: u64 = 32;
/// The neighbours generated for a batch of ranks, those of the `i`-th ending at
/// `.1[i]`.
type Batch = (Vec<u64>, Vec<usize>);

/// What the search led by a table found: the number of ranks at each distance and the
/// ranks at the largest, sorted (empty when that level has more than
/// [`FARTHEST_KEPT`], as the solver keeps them).
#[derive(Debug, PartialEq, Eq)]
pub struct LedLevels {
    pub levels: Vec<u64>,
    pub farthest: Vec<u64>,
}

/// Where a table is not the distances modulo `m`: the smallest rank found wrong at the
/// first level where one was, and what is wrong with it.
#[derive(Debug, PartialEq, Eq)]
pub struct LedFailure {
    pub rank: u64,
    pub fact: String,
}

/// Checks `codes` (rank `r` in bits `2 (r mod 32)` of word `r / 32`, as the solver and
/// the file store them; at least `space.size()` codes) against `space` with modulus
/// `modulus` (3 or 4). Returns the levels when every code is the distance of its rank
/// modulo `modulus` (`mod3`: 3 where no goal can be reached; `mod4`: every rank
/// reached), and otherwise the first wrong rank (which may be outside the space when the
/// space gives such a goal or neighbour). The codes are used up: a `mod4` table is
/// searched in place where the space knows its parities.
pub fn check<S: StateSpace + ?Sized>(
    space: &S,
    modulus: u8,
    codes: Vec<AtomicU64>,
    progress: &dyn Progress,
) -> Result<LedLevels, LedFailure> {
    check_as(space, modulus, codes, searched_in_place(space), progress)
}

/// [`check`] with the way of keeping the marks chosen: in place when `in_place` (a
/// `mod4` table of a space that knows its parities), beside the codes otherwise; for
/// the bench, which times both on the same table.
#[doc(hidden)]
pub fn check_as<S: StateSpace + ?Sized>(
    space: &S,
    modulus: u8,
    codes: Vec<AtomicU64>,
    in_place: bool,
    progress: &dyn Progress,
) -> Result<LedLevels, LedFailure> {
    Codes::from_words(space, modulus, codes, in_place).check(progress)
}

/// Whether [`check`] searches a `mod4` table of `space` in place (where the space knows
/// its parities): where they are looked up in a short period ([`short_period`], a
/// sliding puzzle's), and above 2^31 ranks whatever they cost (beside the codes, the
/// marks would take 512 MiB or more). Both measured (`cargo bench -p puzzlebase-families --bench twobit`;
/// `verify`): `twelve` as two bits 5.9 s in place against 10.5 s with the marks beside
/// the codes; `lights-out-5`, whose parities are computed rank by rank, 0.45 s against
/// 0.31 s.
fn searched_in_place<S: StateSpace + ?Sized>(space: &S) -> bool {
    space.size() > 1 << 31 || short_period(space).is_some()
}

/// Whether level `d + 1` of a table of `n` ranks is pulled, with `unreached` ranks left
/// and `frontier` at `d`: a push expands the frontier, a pull each rank not reached,
/// but a pull also reads every group of the table, flagged or not. A word read in order
/// costs far less than a rank expanded (its neighbours generated and read at random);
/// the reading is counted as `n / 4096` ranks, a word as 1/128 of a rank (an estimate,
/// not a measurement). Without it, `fourteen`'s last twelve levels were pulled, each
/// reading the whole 10.9 GB table to find fewer than two million ranks.
fn pulls(n: u64, unreached: u64, frontier: u64) -> bool {
    unreached + n / 4096 < frontier
}

/// A table's codes read into memory for [`Codes::check`], a run of words at a time in
/// rank order (as a file stores them), each made ready as it arrives: the goals' codes
/// are checked, and a table searched in place has its parities checked and its marks
/// made, so that no pass over the whole table is left for after the read.
pub struct Codes<'a, S: ?Sized> {
    space: &'a S,
    modulus: u8,
    n: u64,
    words: Vec<AtomicU64>,
    /// Words read so far.
    read: usize,
    /// Sorted, distinct; those before `next_goal` are checked.
    goals: Vec<u64>,
    next_goal: usize,
    /// The parities, where the table is searched in place.
    odd: Option<Parities<'a, S>>,
    /// The first goal whose code is not 0.
    wrong_goal: Option<LedFailure>,
    /// The first rank whose code's low bit is not its parity (in place).
    wrong_parity: Option<LedFailure>,
}

impl<'a, S: StateSpace + ?Sized> Codes<'a, S> {
    /// Room for the codes of `space`'s table modulo `modulus` (3 or 4), searched in
    /// place as [`check`] would. On huge pages, as the search's own table is: the
    /// check reads it at random (on ordinary pages the check of `twelve`'s 60 MB took 6%
    /// longer).
    pub fn new(space: &'a S, modulus: u8) -> Codes<'a, S> {
        let words =
            puzzlebase_core::memory::atomic_words(space.size().div_ceil(GROUP) as usize, 0, true);
        Codes::unread(space, modulus, words, searched_in_place(space))
    }

    fn unread(space: &'a S, modulus: u8, words: Vec<AtomicU64>, in_place: bool) -> Codes<'a, S> {
        let n = space.size();
        assert!(
            words.len() as u64 >= n.div_ceil(GROUP),
            "a code for every rank"
        );
        assert!(modulus == 3 || modulus == 4, "codes modulo 3 or 4");
        let mut goals = space.goals();
        goals.sort_unstable();
        goals.dedup();
        let odd = (in_place && modulus == 4)
            .then(|| Parities::new(space))
            .flatten();
        Codes {
            space,
            modulus,
            n,
            words,
            read: 0,
            goals,
            next_goal: 0,
            odd,
            wrong_goal: None,
            wrong_parity: None,
        }
    }

    /// `codes` (at least a word per 32 ranks) as read whole, made ready in parallel.
    fn from_words(
        space: &'a S,
        modulus: u8,
        codes: Vec<AtomicU64>,
        in_place: bool,
    ) -> Codes<'a, S> {
        let mut c = Codes::unread(space, modulus, codes, in_place);
        let groups = c.n.div_ceil(GROUP);
        while let Some(&g) = c.goals.get(c.next_goal).filter(|&&g| g < c.n) {
            let w = c.words[(g / GROUP) as usize].load(Relaxed);
            c.goal_code(g, w);
        }
        if let Some(odd) = &c.odd {
            let (n, words) = (c.n, &c.words);
            c.wrong_parity = (0..groups).into_par_iter().find_map_first(|g| {
                let w = words[g as usize].load(Relaxed);
                match in_place_word(n, g, w, odd.odd(g).unwrap_or(0)) {
                    Ok(w) => {
                        words[g as usize].store(w, Relaxed);
                        None
                    }
                    Err(f) => Some(f),
                }
            });
        }
        c.read = groups as usize;
        c
    }

    /// Checks goal `g`, in word `w` as read; the first wrong one is kept.
    fn goal_code(&mut self, g: u64, w: u64) {
        let code = cell(w, g);
        if code != 0 && self.wrong_goal.is_none() {
            self.wrong_goal = Some(failure(g, format!("a goal, but its code is {code}")));
        }
        self.next_goal += 1;
    }

    /// The next words of the table, as little-endian bytes: 8 to a word, but for a
    /// shorter last word (its missing bytes are 0).
    ///
    /// # Panics
    /// If `bytes` holds more words than the table has left.
    pub fn extend(&mut self, bytes: &[u8]) {
        let groups = self.n.div_ceil(GROUP);
        assert!(
            (self.read + bytes.len().div_ceil(8)) as u64 <= groups,
            "more codes than ranks"
        );
        for part in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..part.len()].copy_from_slice(part);
            let mut w = u64::from_le_bytes(word);
            let g = self.read as u64;
            while let Some(&r) = self.goals.get(self.next_goal).filter(|&&r| r / GROUP == g) {
                self.goal_code(r, w);
            }
            if let Some(odd) = self.odd.as_ref().filter(|_| self.wrong_parity.is_none()) {
                match in_place_word(self.n, g, w, odd.odd(g).unwrap_or(0)) {
                    Ok(marks) => w = marks,
                    Err(f) => self.wrong_parity = Some(f),
                }
            }
            *self.words[self.read].get_mut() = w;
            self.read += 1;
        }
    }

    /// [`check`] on the codes read: every word must have been.
    ///
    /// # Panics
    /// If fewer words were read than the table has.
    pub fn check(self, progress: &dyn Progress) -> Result<LedLevels, LedFailure> {
        let n = self.n;
        self.search_with(progress, |unreached, frontier| {
            pulls(n, unreached, frontier)
        })
    }

    fn search_with(
        self,
        progress: &dyn Progress,
        pull: impl Fn(u64, u64) -> bool,
    ) -> Result<LedLevels, LedFailure> {
        let n = self.n;
        assert!(self.read as u64 >= n.div_ceil(GROUP), "every code read");
        // In the order of the goals (those outside the space last), then the parities.
        if let Some(f) = self.wrong_goal {
            return Err(f);
        }
        if let Some(&g) = self.goals.iter().find(|&&g| g >= n) {
            return Err(failure(g, "a goal outside the space".to_string()));
        }
        if let Some(f) = self.wrong_parity {
            return Err(f);
        }
        let marks = [0, 1].map(|_| {
            (0..n.div_ceil(UNIT))
                .map(|_| AtomicBool::new(false))
                .collect()
        });
        let (space, goals) = (self.space, self.goals);
        match self.odd {
            Some(odd) => {
                let cells = InPlace {
                    n,
                    cells: self.words,
                    odd,
                };
                search(space, cells, n, marks, goals, progress, pull)
            }
            None => {
                let cells = Coded {
                    modulus: self.modulus,
                    n,
                    codes: self.words,
                    seen: (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
                    open: (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
                };
                search(space, cells, n, marks, goals, progress, pull)
            }
        }
    }
}

/// Word `g` of a table searched in place, `w` as stored, with the parities `odd` of its
/// ranks: every code's low bit must be its rank's parity; then only the high bits are
/// kept (and [`CLOSED`] past the last rank, which is never reached).
fn in_place_word(n: u64, g: u64, w: u64, odd: u32) -> Result<u64, LedFailure> {
    let base = g * GROUP;
    let valid = low_cells(n - base);
    let differ = (w ^ spread(odd)) & valid;
    if differ != 0 {
        let r = base + (differ.trailing_zeros() / 2) as u64;
        return Err(failure(
            r,
            format!(
                "its code is {}, which is not its parity ({}) modulo 2",
                cell(w, r),
                odd >> (r % GROUP) & 1
            ),
        ));
    }
    let past = !(valid | valid << 1) & (LOW * CLOSED as u64);
    Ok(w >> 1 & valid | past)
}

fn failure(rank: u64, fact: String) -> LedFailure {
    LedFailure { rank, fact }
}

#[inline]
fn cell(word: u64, rank: u64) -> u8 {
    (word >> (2 * (rank % GROUP)) & 3) as u8
}

/// What reaching a rank found.
enum Reached {
    /// It was reached before.
    Already,
    /// Reached now, its code right; it is open.
    Now,
    /// Not reached before, but its code is this one, not the level's.
    Wrong(u8),
}

/// The marks of the search, kept beside the codes or in them.
trait Marks: Sync {
    /// Reaches `rank` at level `d`: if not reached before, checks its code and opens it.
    fn reach(&self, rank: u64, d: usize) -> Reached;
    /// The ranks of group `g` open at level `d`, closed as they are returned.
    fn take_open(&self, g: u64, d: usize) -> u32;
    /// Whether `rank` is open at level `d`.
    fn open_at(&self, rank: u64, d: usize) -> bool;
    /// Whether `rank` was reached (at any level): [`Marks::reach`] would find it so.
    fn reached(&self, rank: u64) -> bool;
    /// The ranks of group `g` not reached.
    fn not_reached(&self, g: u64) -> u32;
    /// The word to prefetch before `rank` is reached or looked at.
    fn word(&self, rank: u64) -> &AtomicU64;
    /// After the search: the ranks never reached, checked.
    fn unreached_say_so(&self) -> Result<(), LedFailure>;
    /// The moves inside group `g` ([`StateSpace::run_links`]; `m.inside` has the low bit
    /// of the cell of each rank linked to the next), made together: the ranks open at `d`
    /// (closed if `close`) reach each neighbour in the group not reached yet, which is
    /// opened at `d + 1` if its code is that level's. (`m` has the group's parities too,
    /// where known: they are not looked up again.)
    fn inside(&self, g: u64, d: usize, m: &WordMasks, close: bool) -> Inside;
    /// The code stored for `rank`, while it is not reached.
    fn stored(&self, rank: u64) -> u8;
    /// Whether a rank of group `g` is open, at any level.
    fn any_open(&self, g: u64) -> bool;
}

/// What [`Marks::inside`] did in a group, as the low bits of the ranks' cells (bit
/// `2 i`: its rank `i`), the form a group's word has: none is squeezed on the way.
#[derive(Default)]
struct Inside {
    /// The ranks open at the level.
    taken: u64,
    /// The neighbours reached and opened.
    reached: u64,
    /// The neighbours not reached before whose codes are not the next level's.
    wrong: u64,
}

/// The search itself, on either kind of marks.
fn search<S: StateSpace + ?Sized, M: Marks>(
    space: &S,
    cells: M,
    n: u64,
    marks: [Vec<AtomicBool>; 2],
    goals: Vec<u64>,
    progress: &dyn Progress,
    pull: impl Fn(u64, u64) -> bool,
) -> Result<LedLevels, LedFailure> {
    let led = Led {
        space,
        cells,
        n,
        links: Some(Periodic::new(space)).filter(Periodic::periodic),
        marks,
    };
    progress.phase("distances, led by the stored codes", n);
    let mut found = 0;
    for &g in &goals {
        if let Reached::Now = led.cells.reach(g, 0) {
            led.flag(g, 0);
            found += 1;
        }
    }
    progress.advance(found);
    let mut levels = vec![found];
    let mut last = goals;
    loop {
        let d = levels.len() - 1;
        let unreached = n - levels.iter().sum::<u64>();
        let step = led.level(d, pull(unreached, levels[d]), progress)?;
        if step.found == 0 {
            break;
        }
        levels.push(step.found);
        last = step.kept;
    }
    if levels.iter().sum::<u64>() < n {
        led.cells.unreached_say_so()?;
    }
    let max = levels.len() - 1;
    let farthest = if levels[max] <= FARTHEST_KEPT {
        last.sort_unstable();
        last
    } else {
        Vec::new()
    };
    Ok(LedLevels { levels, farthest })
}

struct Led<'a, S: ?Sized, M> {
    space: &'a S,
    cells: M,
    n: u64,
    /// The space's moves inside groups, a period of them; `None` when the space has no
    /// short period, whose moves are then all generated.
    links: Option<Periodic>,
    /// Per unit, for a level's parity: whether a rank of the unit was reached at a level
    /// of that parity (and so may be open at it).
    marks: [Vec<AtomicBool>; 2],
}

/// One level's outcome: the ranks reached, and which (while they are few).
struct Step {
    found: u64,
    kept: Vec<u64>,
}

impl<S: StateSpace + ?Sized, M: Marks> Led<'_, S, M> {
    fn flag(&self, rank: u64, d: usize) {
        // Read first: a store to a flag already set would still take its cache line
        // from the other threads.
        let flag = &self.marks[d % 2][(rank / UNIT) as usize];
        if !flag.load(Relaxed) {
            flag.store(true, Relaxed);
        }
    }

    /// Whether unit `u` is flagged for level `d`, clearing the flag. Read first, as in
    /// [`Led::flag`]: most units are not flagged at most levels, and a swap on each was
    /// a write to every flag's cache line at every level.
    fn unflag(&self, u: usize, d: usize) -> bool {
        let flag = &self.marks[d % 2][u];
        flag.load(Relaxed) && flag.swap(false, Relaxed)
    }

    /// Generates the moves of `part` not made a group at a time into `batch` (all of
    /// them when the space has no period of links) and prefetches their words; a
    /// neighbour outside the space fails the batch, which is then left empty.
    fn expand(&self, part: &[u64], batch: &mut Batch, t: &mut Tally) {
        let (nbs, ends) = batch;
        nbs.clear();
        ends.clear();
        if self.links.is_some() {
            self.space.far_neighbors_of(part, nbs, ends);
        } else {
            self.space.neighbors_of(part, nbs, ends);
        }
        // One pass: the words of those inside prefetched, the first outside kept.
        let mut outside = None;
        for &nb in nbs.iter() {
            if nb < self.n {
                prefetch(self.cells.word(nb));
            } else if outside.is_none() {
                outside = Some(nb);
            }
        }
        if let Some(nb) = outside {
            t.fail(failure(nb, "a neighbour outside the space".to_string()));
            nbs.clear();
            ends.clear();
        }
    }

    /// The groups of unit `u`.
    fn groups(&self, u: usize) -> std::ops::Range<u64> {
        u as u64 * UNIT / GROUP..((u as u64 + 1) * UNIT).min(self.n).div_ceil(GROUP)
    }

    /// Reaches `rank` at `d + 1` from a rank at `d`.
    #[inline(always)]
    fn reach(&self, rank: u64, d: usize, t: &mut Tally) {
        if rank >= self.n {
            return t.fail(failure(rank, "a neighbour outside the space".to_string()));
        }
        match self.cells.reach(rank, d + 1) {
            Reached::Already => {}
            Reached::Wrong(code) => t.fail(wrong_code(rank, code, d)),
            Reached::Now => {
                self.flag(rank, d + 1);
                t.arrived(rank);
            }
        }
    }

    /// Level `d + 1`, unit by unit: by **pushing** from the open ranks of level `d`
    /// (their neighbours not reached), or by **pulling** (the ranks not reached with a
    /// neighbour open at `d`; the moves are undone by moves, as every search here
    /// assumes). Either way each rank reached must have the code of `d + 1`. A wrong code
    /// ends the search after the level, with the smallest wrong rank (the same whatever
    /// the number of threads).
    ///
    /// The moves inside a group of 32 ranks ([`StateSpace::run_links`]) are made a group
    /// at a time ([`Marks::inside`]), the links across groups rank by rank, and only the
    /// other moves are generated ([`StateSpace::far_neighbors_of`]).
    fn level(&self, d: usize, pull: bool, progress: &dyn Progress) -> Result<Step, LedFailure> {
        let units = self.marks[0].len();
        let kept = Mutex::new(Vec::new());
        // Set once the level has more ranks than are kept: from then on they are not
        // collected (at the widest levels that was a store per rank reached).
        let full = AtomicBool::new(false);
        // What the threads have shown of the level so far; the rest is shown at its end.
        let shown = AtomicU64::new(0);
        let (found, wrong) = (0..units)
            .into_par_iter()
            .filter(|&u| pull || self.unflag(u, d))
            .map_init(
                || {
                    let scratch = (Vec::new(), Vec::new(), Vec::new());
                    (scratch, <[Batch; 2]>::default(), Tally::default())
                },
                |((ranks, busy, fresh), batches, t), u| {
                    t.found = 0;
                    t.collect = !full.load(Relaxed);
                    let groups = self.groups(u);
                    // First the groups with something to do, each told from one load
                    // and picked out without a branch: most have nothing at most levels,
                    // and which have is a coin toss at the widest.
                    busy.clear();
                    busy.resize((groups.end - groups.start) as usize, (0, 0));
                    let mut n = 0;
                    let mut k = self
                        .links
                        .as_ref()
                        .map_or(0, |p| p.place(groups.start * GROUP));
                    for g in groups.clone() {
                        let at = k;
                        k = self.links.as_ref().map_or(0, |p| p.next(k));
                        busy[n] = (g, at);
                        let to_do = if pull {
                            self.cells.any_open(g) || self.cells.not_reached(g) != 0
                        } else {
                            self.cells.any_open(g)
                        };
                        n += to_do as usize;
                    }
                    let room = (groups.end - groups.start) as usize * GROUP as usize + 4;
                    if ranks.len() < room {
                        ranks.resize(room, 0);
                    }
                    let mut len = 0;
                    for &(g, at) in &busy[..n] {
                        let base = g * GROUP;
                        let open = self.cells.any_open(g);
                        let m = match &self.links {
                            Some(p) => p.at(self.space, base, at),
                            None => WordMasks::default(),
                        };
                        let inside = if open {
                            self.cells.inside(g, d, &m, !pull)
                        } else {
                            Inside::default()
                        };
                        if inside.reached != 0 {
                            self.flag(base, d + 1);
                            t.arrived_in(base, inside.reached);
                        }
                        for b in set_bits(inside.wrong) {
                            let r = base + (b / 2) as u64;
                            t.fail(wrong_code(r, self.cells.stored(r), d));
                        }
                        let these = if pull {
                            let all = GROUP.min(self.n - base);
                            let all = if all == GROUP { !0 } else { (1u32 << all) - 1 };
                            let mut rest = self.cells.not_reached(g) & all & !squeeze(inside.wrong);
                            let last = base + GROUP - 1;
                            if m.linked_after
                                && rest >> 31 != 0
                                && last + 1 < self.n
                                && self.cells.open_at(last + 1, d)
                            {
                                self.reach(last, d, t);
                                rest &= !(1 << 31);
                            }
                            if m.linked_before
                                && rest & 1 != 0
                                && base > 0
                                && self.cells.open_at(base - 1, d)
                            {
                                self.reach(base, d, t);
                                rest &= !1;
                            }
                            spread(rest)
                        } else {
                            if m.linked_after && inside.taken >> 62 != 0 {
                                self.reach(base + GROUP, d, t);
                            }
                            if m.linked_before && inside.taken & 1 != 0 && base > 0 {
                                self.reach(base - 1, d, t);
                            }
                            inside.taken
                        };
                        len = put_cells(ranks, len, base, these);
                    }
                    let ranks = &ranks[..len];
                    // Each batch is reached after the next one is generated, so that
                    // its prefetched words have arrived by then (as the solver does).
                    let parts = ranks.len().div_ceil(BATCH);
                    for i in 0..=parts {
                        if i < parts {
                            let part = &ranks[i * BATCH..((i + 1) * BATCH).min(ranks.len())];
                            self.expand(part, &mut batches[i % 2], t);
                        }
                        if i == 0 {
                            continue;
                        }
                        let (nbs, ends) = &batches[(i - 1) % 2];
                        if pull {
                            let part = &ranks[(i - 1) * BATCH..(i * BATCH).min(ranks.len())];
                            let mut start = 0;
                            for (&r, &end) in part.iter().zip(ends.iter()) {
                                let near =
                                    nbs[start..end].iter().any(|&nb| self.cells.open_at(nb, d));
                                start = end;
                                if near {
                                    self.reach(r, d, t);
                                }
                            }
                        } else {
                            // The neighbours not reached yet are picked out first,
                            // without a branch on each (a coin toss at the wide levels).
                            fresh.clear();
                            fresh.resize(nbs.len(), 0);
                            let mut n = 0;
                            for &nb in nbs.iter() {
                                fresh[n] = nb;
                                n += (nb >= self.n || !self.cells.reached(nb)) as usize;
                            }
                            for &nb in &fresh[..n] {
                                self.reach(nb, d, t);
                            }
                        }
                    }
                    // Shown in steps: a unit at a time was a call (and the bar's lock)
                    // per 8192 ranks at every level.
                    t.unshown += t.found;
                    if t.unshown >= SHOW_EVERY {
                        progress.advance(t.unshown);
                        shown.fetch_add(t.unshown, Relaxed);
                        t.unshown = 0;
                    }
                    if !t.mine.is_empty() {
                        let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
                        if kept.len() as u64 <= FARTHEST_KEPT {
                            kept.append(&mut t.mine);
                        } else {
                            full.store(true, Relaxed);
                        }
                        t.mine.clear();
                    }
                    (t.found, t.wrong.take())
                },
            )
            .reduce(
                || (0, None),
                |(a, x), (b, y)| {
                    let wrong = match (x, y) {
                        (Some(x), Some(y)) => Some(if y.rank < x.rank { y } else { x }),
                        (x, y) => x.or(y),
                    };
                    (a + b, wrong)
                },
            );
        progress.advance(found - shown.load(Relaxed));
        if let Some(f) = wrong {
            return Err(f);
        }
        if pull {
            // Level d's ranks were not expanded: closed here, so that every open rank is
            // again at the next level or the one after.
            (0..units)
                .into_par_iter()
                .filter(|&u| self.unflag(u, d))
                .for_each(|u| {
                    for g in self.groups(u) {
                        self.cells.take_open(g, d);
                    }
                });
        }
        Ok(Step {
            found,
            kept: kept.into_inner().unwrap_or_else(|e| e.into_inner()),
        })
    }
}

/// What one thread found in a unit: the ranks reached (the first of them kept) and the
/// smallest wrong one.
#[derive(Default)]
struct Tally {
    found: u64,
    /// Whether the ranks reached are still collected (the level is not yet known to
    /// have more than [`FARTHEST_KEPT`]).
    collect: bool,
    mine: Vec<u64>,
    wrong: Option<LedFailure>,
    /// Ranks reached but not yet shown as progress.
    unshown: u64,
}

impl Tally {
    #[inline]
    fn arrived(&mut self, rank: u64) {
        self.found += 1;
        if self.collect && self.found <= FARTHEST_KEPT {
            self.mine.push(rank);
        }
    }

    /// [`Tally::arrived`] for the ranks `base + i` of the cells whose low bits (bit
    /// `2 i`) are set in `cells`.
    #[inline]
    fn arrived_in(&mut self, base: u64, cells: u64) {
        if self.collect && self.found < FARTHEST_KEPT {
            for b in set_bits(cells) {
                self.arrived(base + (b / 2) as u64);
            }
        } else {
            self.found += cells_in(cells);
        }
    }

    fn fail(&mut self, f: LedFailure) {
        if self.wrong.as_ref().is_none_or(|w| f.rank < w.rank) {
            self.wrong = Some(f);
        }
    }
}

fn wrong_code(rank: u64, code: u8, d: usize) -> LedFailure {
    failure(
        rank,
        format!(
            "at distance {} (one move from a rank at {d}), but its code is {code}",
            d + 1
        ),
    )
}

#[cfg(test)]
mod tests;
