//! Where the check led by a table keeps its marks ([`Marks`]): beside the codes
//! ([`Coded`]), or in the codes' own two bits for a `mod4` table ([`InPlace`]), with
//! each group's parities ([`Parities`]).

use super::*;

/// The codes as stored, with a bit for "reached" and a bit for "open" per rank.
pub(super) struct Coded {
    pub(super) modulus: u8,
    pub(super) n: u64,
    pub(super) codes: Vec<AtomicU64>,
    pub(super) seen: Vec<AtomicU64>,
    pub(super) open: Vec<AtomicU64>,
}

impl Coded {
    pub(super) fn code(&self, rank: u64) -> u8 {
        cell(self.codes[(rank / GROUP) as usize].load(Relaxed), rank)
    }

    pub(super) fn bits(set: &[AtomicU64], g: u64) -> u32 {
        (set[(g / 2) as usize].load(Relaxed) >> (32 * (g % 2))) as u32
    }

    /// The ranks of group `g` open at level `d`.
    pub(super) fn open_now(&self, g: u64, d: usize) -> u32 {
        let open = Coded::bits(&self.open, g);
        let want = (d % self.modulus as usize) as u8;
        set_bits(open as u64)
            .filter(|&b| self.code(g * GROUP + b as u64) == want)
            .fold(0u32, |m, b| m | 1 << b)
    }
}

impl Marks for Coded {
    #[inline(always)]
    fn reach(&self, rank: u64, d: usize) -> Reached {
        let (w, bit) = ((rank / 64) as usize, 1u64 << (rank % 64));
        if self.seen[w].load(Relaxed) & bit != 0 || self.seen[w].fetch_or(bit, Relaxed) & bit != 0 {
            return Reached::Already;
        }
        let code = self.code(rank);
        if code as usize != d % self.modulus as usize {
            return Reached::Wrong(code);
        }
        self.open[w].fetch_or(bit, Relaxed);
        Reached::Now
    }

    fn take_open(&self, g: u64, d: usize) -> u32 {
        let mine = self.open_now(g, d);
        if mine != 0 {
            self.open[(g / 2) as usize].fetch_and(!((mine as u64) << (32 * (g % 2))), Relaxed);
        }
        mine
    }

    fn open_at(&self, rank: u64, d: usize) -> bool {
        self.open[(rank / 64) as usize].load(Relaxed) >> (rank % 64) & 1 != 0
            && self.code(rank) as usize == d % self.modulus as usize
    }

    fn reached(&self, rank: u64) -> bool {
        self.seen[(rank / 64) as usize].load(Relaxed) >> (rank % 64) & 1 != 0
    }

    fn not_reached(&self, g: u64) -> u32 {
        !Coded::bits(&self.seen, g)
    }

    fn word(&self, rank: u64) -> &AtomicU64 {
        &self.seen[(rank / 64) as usize]
    }

    fn inside(&self, g: u64, d: usize, m: &WordMasks, close: bool) -> Inside {
        let open = if close {
            self.take_open(g, d)
        } else {
            self.open_now(g, d)
        };
        let links = squeeze(m.inside);
        let base = g * GROUP;
        let next = ((open & links) << 1 | (open >> 1 & links)) as u64;
        let next = next & ((1 << GROUP.min(self.n - base)) - 1);
        let (mut reached, mut wrong) = (0, 0);
        for b in set_bits(next) {
            match self.reach(base + b as u64, d + 1) {
                Reached::Already => {}
                Reached::Now => reached |= 1 << b,
                Reached::Wrong(_) => wrong |= 1 << b,
            }
        }
        Inside {
            taken: spread(open),
            reached: spread(reached),
            wrong: spread(wrong),
        }
    }

    fn stored(&self, rank: u64) -> u8 {
        self.code(rank)
    }

    fn any_open(&self, g: u64) -> bool {
        Coded::bits(&self.open, g) != 0
    }

    fn unreached_say_so(&self) -> Result<(), LedFailure> {
        let wrong = (0..self.n.div_ceil(GROUP)).into_par_iter().find_map_first(|g| {
            let left = self.not_reached(g);
            let ranks = g * GROUP..((g + 1) * GROUP).min(self.n);
            ranks
                .filter(|&r| left >> (r % GROUP) & 1 != 0)
                .find_map(|r| match (self.modulus, self.code(r)) {
                    (3, UNREACHED) => None,
                    (3, code) => Some(failure(
                        r,
                        format!("no goal can be reached from it, but its code is {code}"),
                    )),
                    (_, code) => Some(failure(
                        r,
                        format!(
                            "no goal can be reached from it, but it has code {code} in a mod4 table, which has no code for that"
                        ),
                    )),
                })
        });
        wrong.map_or(Ok(()), Err)
    }
}

/// Each group's parities ([`StateSpace::odd_ranks`]), looked up in one period of groups
/// when the space has a short one ([`StateSpace::word_period`]).
pub(super) struct Parities<'a, S: ?Sized> {
    pub(super) space: &'a S,
    pub(super) period: Vec<u32>,
    /// The period's length, divided by multiplication: a lookup is made for every rank
    /// reached and every group at every level.
    pub(super) len: StrengthReducedU64,
}

impl<'a, S: StateSpace + ?Sized> Parities<'a, S> {
    /// `None` when the space does not know the parities of every rank.
    pub(super) fn new(space: &'a S) -> Option<Parities<'a, S>> {
        let period = match short_period(space) {
            Some(p) => (0..p)
                .map(|k| space.odd_ranks(k * GROUP))
                .collect::<Option<Vec<u32>>>()?,
            None => {
                let groups = space.size().div_ceil(GROUP);
                let known = (0..groups)
                    .into_par_iter()
                    .all(|g| space.odd_ranks(g * GROUP).is_some());
                known.then(Vec::new)?
            }
        };
        let len = StrengthReducedU64::new(period.len().max(1) as u64);
        Some(Parities { space, period, len })
    }

    /// The parity of `rank` (0 where the space does not know it: checked at the start).
    pub(super) fn of(&self, rank: u64) -> u8 {
        match self.period.len() {
            0 => self.space.parity(rank).unwrap_or(0),
            _ => (self.period[(rank / GROUP % self.len) as usize] >> (rank % GROUP) & 1) as u8,
        }
    }

    /// The parities of group `g` (bit `i`: rank `32 g + i` is odd); `None` where the
    /// space does not know them.
    pub(super) fn odd(&self, g: u64) -> Option<u32> {
        match self.period.len() {
            0 => self.space.odd_ranks(g * GROUP),
            _ => Some(self.period[(g % self.len) as usize]),
        }
    }
}

/// A `mod4` table searched in its own two bits per rank: a rank not reached keeps the
/// high bit of its code (its low bit, the parity, was checked against the space's
/// first); a reached one is open or closed.
pub(super) struct InPlace<'a, S: ?Sized> {
    pub(super) n: u64,
    pub(super) cells: Vec<AtomicU64>,
    pub(super) odd: Parities<'a, S>,
}

/// Cells of [`InPlace`]: not reached with high bit 0 or 1, then these two.
pub(super) const OPEN: u8 = 2;
pub(super) const CLOSED: u8 = 3;

impl<S: StateSpace + ?Sized> InPlace<'_, S> {
    pub(super) fn parity(&self, rank: u64) -> u8 {
        self.odd.of(rank)
    }
}

impl<S: StateSpace + ?Sized> Marks for InPlace<'_, S> {
    #[inline(always)]
    fn reach(&self, rank: u64, d: usize) -> Reached {
        let word = &self.cells[(rank / GROUP) as usize];
        let shift = 2 * (rank % GROUP);
        let mut w = word.load(Relaxed);
        loop {
            let c = cell(w, rank);
            if c >= OPEN {
                return Reached::Already;
            }
            let parity = self.parity(rank);
            if c as usize != d / 2 % 2 || parity as usize != d % 2 {
                return Reached::Wrong(2 * c + parity);
            }
            let opened = w & !(3 << shift) | (OPEN as u64) << shift;
            match word.compare_exchange_weak(w, opened, Relaxed, Relaxed) {
                Ok(_) => return Reached::Now,
                Err(now) => w = now,
            }
        }
    }

    fn take_open(&self, g: u64, d: usize) -> u32 {
        let word = &self.cells[g as usize];
        let w = word.load(Relaxed);
        let open = open_cells(w);
        if open == 0 {
            return 0;
        }
        let odd = spread(self.odd.odd(g).unwrap_or(0));
        let mine = open & if d % 2 == 1 { odd } else { !odd };
        if mine != 0 {
            // 0b10 | 0b01 = CLOSED; other threads only open cells not reached.
            word.fetch_or(mine, Relaxed);
        }
        squeeze(mine)
    }

    fn open_at(&self, rank: u64, d: usize) -> bool {
        cell(self.cells[(rank / GROUP) as usize].load(Relaxed), rank) == OPEN
            && self.parity(rank) as usize == d % 2
    }

    fn reached(&self, rank: u64) -> bool {
        cell(self.cells[(rank / GROUP) as usize].load(Relaxed), rank) >= OPEN
    }

    fn not_reached(&self, g: u64) -> u32 {
        let w = self.cells[g as usize].load(Relaxed);
        squeeze(!(w >> 1) & LOW)
    }

    fn word(&self, rank: u64) -> &AtomicU64 {
        &self.cells[(rank / GROUP) as usize]
    }

    #[inline(always)]
    fn inside(&self, g: u64, d: usize, m: &WordMasks, close: bool) -> Inside {
        let word = &self.cells[g as usize];
        let links = m.inside;
        let odd = if m.known {
            m.odd_cells
        } else {
            spread(self.odd.odd(g).unwrap_or(0))
        };
        let at_d = if d % 2 == 1 { odd } else { LOW & !odd };
        let next_level = d + 1;
        let high = if next_level / 2 % 2 == 1 { LOW } else { 0 };
        let mut w = word.load(Relaxed);
        loop {
            // Open cells are 0b10; only this thread closes those at `d` (their unit is
            // its), and other threads only open cells not reached, at `d + 1`.
            let open = open_cells(w) & at_d;
            let next = (open & links) << 2 | (open >> 2 & links);
            let new = next & !(w >> 1) & LOW;
            // A cell not reached holds its code's high bit; the code of `d + 1` has the
            // high bit of `(d + 1) mod 4` and the other parity than `d`'s.
            let wrong = new & ((w ^ high) | at_d);
            let good = new & !wrong;
            let closed = if close { open } else { 0 };
            let to = (w | closed) & !(good * 3) | good << 1;
            let done = || Inside {
                taken: open,
                reached: good,
                wrong,
            };
            if to == w {
                return done();
            }
            match word.compare_exchange_weak(w, to, Relaxed, Relaxed) {
                Ok(_) => return done(),
                Err(now) => w = now,
            }
        }
    }

    fn stored(&self, rank: u64) -> u8 {
        2 * cell(self.cells[(rank / GROUP) as usize].load(Relaxed), rank) + self.parity(rank)
    }

    fn any_open(&self, g: u64) -> bool {
        let w = self.cells[g as usize].load(Relaxed);
        open_cells(w) != 0
    }

    fn unreached_say_so(&self) -> Result<(), LedFailure> {
        let wrong = (0..self.n.div_ceil(GROUP)).into_par_iter().find_map_first(|g| {
            let left = self.not_reached(g);
            (left != 0).then(|| {
                let r = g * GROUP + left.trailing_zeros() as u64;
                let code = self.stored(r);
                failure(
                    r,
                    format!(
                        "no goal can be reached from it, but it has code {code} in a mod4 table, which has no code for that"
                    ),
                )
            })
        });
        wrong.map_or(Ok(()), Err)
    }
}

/// The low bits of the [`OPEN`] cells of an [`InPlace`] word: the high bit without the
/// low one.
pub(super) fn open_cells(w: u64) -> u64 {
    w >> 1 & !w & LOW
}

/// Bit `2 i` of `x` moved to bit `i` (the inverse of [`spread`] on cells' low bits).
pub(super) fn squeeze(x: u64) -> u32 {
    let mut x = x & LOW;
    x = (x | x >> 1) & 0x3333_3333_3333_3333;
    x = (x | x >> 2) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | x >> 4) & 0x00FF_00FF_00FF_00FF;
    x = (x | x >> 8) & 0x0000_FFFF_0000_FFFF;
    (x | x >> 16) as u32
}
