//! Move tables: each orbit's coordinates under every move, computed once, so that a
//! rank's neighbours are a few table lookups instead of unranking it into a position,
//! moving every point and ranking each result (which took about 80% of a `2x2x2`
//! build, `perf`). This is how Kociemba's and twsearch's solvers move coordinates.
//!
//! A rank is the mixed-radix number [`Permutation::rank`] writes: per orbit, its
//! arrangement digit (a permutation's rank, a multiset's, or half a permutation's rank
//! when its parity follows from the other orbits') and, with orientations, its
//! orientation digit. A move maps each orbit to itself, so the orbit's next arrangement
//! depends on its arrangement alone, and its next orientations on its orientations
//! alone: one table per orbit and kind, indexed by move and coordinate. The only
//! coupling is the parity: an orbit whose parity is fixed stores half its permutation's
//! rank, and the missing bit is the parity the free orbits imply, found as
//! [`Permutation::unrank`] finds it.
//!
//! The tables are built when their entries fit [`MAX_ENTRIES`] and the orbits'
//! coordinates are at most an eighth of the ranks; a puzzle with a larger orbit (twelve
//! pieces: 479,001,600 arrangements), or of one orbit, keeps the direct way. The property
//! test `move_tables_give_the_direct_neighbours` holds the two ways equal.

use super::{MAX_ORBIT, MAX_POINTS, Permutation, multiset_rank, multiset_unrank};
use puzzlebase_core::rank::{FACT, perm_rank, perm_unrank};

/// The most table entries (4 bytes each) built for one puzzle: 256 MiB.
pub const MAX_ENTRIES: u64 = 1 << 26;

/// One orbit's tables.
struct OrbitTables {
    /// Pieces in the orbit.
    k: usize,
    alike: bool,
    parity_fixed: bool,
    /// The radix of its arrangement digit in the rank, and of its orientation digit
    /// (`None` without orientations: no digit).
    arrangements: u64,
    orientations: Option<u64>,
    /// `arr[a * moves + m]`: the full arrangement after move `m` from arrangement `a`
    /// (a rank's moves side by side: one cache line for all of them).
    arr: Vec<u32>,
    /// Bit `a` set when full arrangement `a` is an odd permutation (not alike).
    odd: Vec<u64>,
    /// `ori[c * moves + m]`: the orientation digit after move `m` from `c`.
    ori: Vec<u32>,
}

impl OrbitTables {
    fn odd(&self, a: u64) -> u64 {
        self.odd[(a / 64) as usize] >> (a % 64) & 1
    }
}

/// Every orbit's tables, with the parity rule that ties them.
pub(super) struct MoveTables {
    orbits: Vec<OrbitTables>,
    moves: usize,
    /// The orbits whose parity is fixed, as a mask ([`Permutation::fixed_mask`]).
    fixed: u64,
}

impl MoveTables {
    /// The tables of `p` (its goal set), or `None` when they would take more than
    /// [`MAX_ENTRIES`] entries.
    pub(super) fn of(p: &Permutation) -> Option<MoveTables> {
        let moves = p.moves.len();
        let mut entries = 0u64;
        for orbit in &p.analysis.orbits {
            let k = orbit.points.len();
            let full = if orbit.alike {
                super::multinomial(&orbit.counts)
            } else {
                *FACT.get(k)?
            };
            let orientations = if orbit.modulus > 1 {
                orbit.orientations
            } else {
                0
            };
            entries = entries.saturating_add((full + orientations).saturating_mul(moves as u64));
        }
        // Building a table costs what the search costs per rank: worth it only when the
        // orbits' coordinates are far fewer than the ranks (not for one orbit alone,
        // such as a stack of pancakes).
        let coordinates = entries / moves.max(1) as u64;
        if entries > MAX_ENTRIES || coordinates.saturating_mul(8) > p.size {
            return None;
        }
        let orbits = (p.analysis.orbits.iter().enumerate())
            .map(|(o, orbit)| OrbitTables::of(p, o, orbit))
            .collect();
        Some(MoveTables {
            orbits,
            moves,
            fixed: p.fixed_mask(),
        })
    }

    /// The ranks one move from `rank`, in the order of the moves: what
    /// [`Permutation::neighbors`] gives the direct way.
    pub(super) fn neighbors(&self, p: &Permutation, rank: u64, out: &mut Vec<u64>) {
        let count = self.orbits.len();
        let mut arr = [0u64; MAX_POINTS];
        let mut ori = [0u64; MAX_POINTS];
        let mut r = rank;
        for (o, t) in self.orbits.iter().enumerate().rev() {
            if let Some(n) = t.orientations {
                ori[o] = r % n;
                r /= n;
            }
            arr[o] = r % t.arrangements;
            r /= t.arrangements;
        }
        // The full arrangements: free orbits first, whose parities decide the fixed
        // orbits' missing bit, exactly as `unrank` decides it.
        let mut free = 0u64;
        let fixed = self.fixed;
        for pass in 0..if fixed == 0 { 1 } else { 2 } {
            for (o, t) in self.orbits.iter().enumerate() {
                if t.parity_fixed != (pass == 1) {
                    continue;
                }
                let par = if t.alike {
                    0
                } else if t.parity_fixed {
                    let want = p.fixed_parity(free, fixed, o);
                    arr[o] *= 2;
                    if t.odd(arr[o]) != want {
                        arr[o] += 1;
                    }
                    want
                } else {
                    t.odd(arr[o])
                };
                if t.k >= 2 {
                    free |= par << o;
                }
            }
        }
        let moves = self.moves;
        let first = out.len();
        out.resize(first + moves, 0);
        let next = &mut out[first..];
        for (o, t) in self.orbits[..count].iter().enumerate() {
            let arrs = &t.arr[arr[o] as usize * moves..][..moves];
            let shift = t.parity_fixed as u32;
            for (r, &a) in next.iter_mut().zip(arrs) {
                *r = *r * t.arrangements + (a >> shift) as u64;
            }
            if let Some(n) = t.orientations {
                let oris = &t.ori[ori[o] as usize * moves..][..moves];
                for (r, &c) in next.iter_mut().zip(oris) {
                    *r = *r * n + c as u64;
                }
            }
        }
    }
}

impl OrbitTables {
    /// Orbit `o`'s tables: each coordinate unranked into the orbit's pieces (or
    /// orientations), moved, and ranked again, as `unrank`, `apply` and `rank` do.
    fn of(p: &Permutation, o: usize, orbit: &super::Orbit) -> OrbitTables {
        let k = orbit.points.len();
        let full = if orbit.alike {
            super::multinomial(&orbit.counts) as usize
        } else {
            FACT[k] as usize
        };
        // Where each move sends each of the orbit's points, by index in the orbit.
        let index_of = |q: u8| p.analysis.index_in[q as usize] as usize;
        let sends: Vec<Vec<usize>> = (p.moves.iter())
            .map(|mv| {
                (orbit.points.iter())
                    .map(|&q| index_of(mv.perm[q as usize]))
                    .collect()
            })
            .collect();
        let mut arr = vec![0u32; full * p.moves.len()];
        let mut odd = vec![0u64; full.div_ceil(64)];
        let (mut local, mut moved) = ([0u8; MAX_ORBIT], [0u8; MAX_ORBIT]);
        for a in 0..full {
            if orbit.alike {
                multiset_unrank(a as u64, &orbit.counts, &mut local[..k]);
            } else if perm_unrank(a as u64, &mut local[..k]) == 1 {
                odd[a / 64] |= 1 << (a % 64);
            }
            for (m, to) in sends.iter().enumerate() {
                for i in 0..k {
                    moved[to[i]] = local[i];
                }
                arr[a * p.moves.len() + m] = if orbit.alike {
                    multiset_rank(&moved[..k], &orbit.counts)
                } else {
                    perm_rank(&moved[..k])
                } as u32;
            }
        }
        let orientations = (orbit.modulus > 1).then_some(orbit.orientations);
        let mut ori = Vec::new();
        if let Some(n) = orientations {
            let n = n as usize;
            ori = vec![0u32; n * p.moves.len()];
            let m = orbit.modulus as u64;
            let o_index = orbit.orientations / m.pow(k as u32 - 1);
            let goal_sum = p.goal_sums[o] as u64;
            let g = orbit.sum_step as u64;
            let mut orient = [0u64; MAX_ORBIT];
            let mut after = [0u64; MAX_ORBIT];
            for c in 0..n as u64 {
                // As `unrank`: the first k - 1 digits, the last from the sum.
                let mut digits = c / o_index;
                let last = c % o_index;
                let mut sum = 0u64;
                for i in (0..k - 1).rev() {
                    orient[i] = digits % m;
                    digits /= m;
                    sum += orient[i];
                }
                let target = goal_sum + last * g;
                orient[k - 1] = (target + m * k as u64 - sum % m) % m;
                for (mv_i, (mv, to)) in p.moves.iter().zip(&sends).enumerate() {
                    for i in 0..k {
                        let b = orbit.points[to[i]] as usize;
                        after[to[i]] = (orient[i] + mv.twist[b] as u64) % m;
                    }
                    // As `rank`.
                    let (mut digits, mut sum) = (0u64, 0u64);
                    for &d in &after[..k - 1] {
                        digits = digits * m + d;
                        sum += d;
                    }
                    sum += after[k - 1];
                    let last = ((sum + m - goal_sum % m) % m) / g;
                    ori[c as usize * p.moves.len() + mv_i] = (digits * o_index + last) as u32;
                }
            }
        }
        OrbitTables {
            k,
            alike: orbit.alike,
            parity_fixed: orbit.parity_fixed,
            arrangements: orbit.arrangements,
            orientations,
            arr,
            odd,
            ori,
        }
    }
}
