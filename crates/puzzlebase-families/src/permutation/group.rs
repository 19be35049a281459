//! What a permutation puzzle's moves imply, found rather than declared: its orbits, the
//! parity and orientation-sum constraints of each ([`analyse`]), and the order of the
//! group the moves generate ([`group_order`], by Schreier-Sims).

use puzzlebase_core::rank::{FACT, parity};

use super::{MAX_ORBIT, Move};

/// One orbit of points and how its part of a position is ranked.
#[derive(Debug, Clone)]
pub struct Orbit {
    /// The points, increasing.
    pub points: Vec<u8>,
    /// Orientation modulus of its pieces (1: none).
    pub modulus: u8,
    /// Whether its permutation parity is fixed by the other orbits' (only half ranked).
    pub parity_fixed: bool,
    /// The step of its orientation sums (`g`; equal to `modulus` when the sum is fixed).
    pub sum_step: u8,
    /// Ranks of its arrangements (`k!`, or `k!/2`).
    pub arrangements: u64,
    /// Ranks of its orientations (`m^(k-1) * m/g`, 1 without orientations).
    pub orientations: u64,
    /// Whether two of its pieces are alike (the goal puts one label on two points):
    /// its arrangements are a multiset's, and its parity is not a constraint (a swap
    /// of the alike pieces changes it and nothing else).
    pub alike: bool,
    /// The labels its goal pieces carry, distinct and increasing (its points, unless
    /// the goal says otherwise), and how many pieces carry each.
    pub labels: Vec<u8>,
    pub counts: Vec<u8>,
    /// For each label `0..n`, its index in `labels` (`NONE` when this orbit has none).
    pub local_of: Vec<u8>,
}

/// No such label in an orbit ([`Orbit::local_of`]).
pub const NONE: u8 = u8::MAX;

/// What the moves imply: the orbits, the parity rule, the orientation sums.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub orbits: Vec<Orbit>,
    /// For each point, its orbit and its index in it.
    pub orbit_of: Vec<u8>,
    pub index_in: Vec<u8>,
    /// The reduced parity rows: (pivot orbit, row over orbits as a bit mask).
    pub parity_rows: Vec<(usize, u64)>,
    /// The number of ranks, `None` beyond `u64`.
    pub size: Option<u64>,
}

/// Greatest common divisor.
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The number of arrangements of a multiset with these counts: `k! / (c_1! c_2! ...)`.
pub fn multinomial(counts: &[u8]) -> u64 {
    let mut total = 0usize;
    let mut r = 1u64;
    for &c in counts {
        // Adding c items: r *= C(total + c, c), one factor at a time (each partial
        // product is itself a binomial coefficient, so every division is exact).
        for i in 1..=c as u128 {
            total += 1;
            r = (r as u128 * total as u128 / i) as u64;
        }
    }
    r
}

/// The rank of `seq` (indices `0..counts.len()`, index `v` appearing `counts[v]`
/// times) among the arrangements of that multiset in lexicographic order: dense,
/// `0..multinomial(counts)`.
pub fn multiset_rank(seq: &[u8], counts: &[u8]) -> u64 {
    let mut left = [0u8; MAX_ORBIT];
    left[..counts.len()].copy_from_slice(counts);
    let mut total = multinomial(counts) as u128;
    let mut rest = seq.len() as u128;
    let mut rank = 0u128;
    for &x in seq {
        // The arrangements that put `v` here are `total * left[v] / rest`.
        for &c in &left[..x as usize] {
            rank += total * c as u128 / rest;
        }
        total = total * left[x as usize] as u128 / rest;
        left[x as usize] -= 1;
        rest -= 1;
    }
    rank as u64
}

/// The arrangement of rank `rank` ([`multiset_rank`]) written into `out`.
pub fn multiset_unrank(mut rank: u64, counts: &[u8], out: &mut [u8]) {
    let mut left = [0u8; MAX_ORBIT];
    left[..counts.len()].copy_from_slice(counts);
    let mut total = multinomial(counts) as u128;
    let mut rest = out.len() as u128;
    for slot in out.iter_mut() {
        for (v, c) in left[..counts.len()].iter_mut().enumerate() {
            let here = total * *c as u128 / rest;
            if (rank as u128) < here {
                *slot = v as u8;
                total = here;
                *c -= 1;
                break;
            }
            rank -= here as u64;
        }
        rest -= 1;
    }
}

/// Finds the orbits, parities and orientation sums of the moves on `n` points with
/// the given moduli, the goal carrying label `labels[a]` at point `a` (two points with
/// one label hold alike pieces). The moves are the generators as listed (powers and
/// inverses add nothing to what they imply).
pub fn analyse(n: usize, modulus: &[u8], moves: &[Move], labels: &[u8]) -> Analysis {
    // Orbits: union-find over the moves' cycles.
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut a: usize) -> usize {
        while parent[a] != a {
            parent[a] = parent[parent[a]];
            a = parent[a];
        }
        a
    }
    for m in moves {
        for a in 0..n {
            let (x, y) = (root(&mut parent, a), root(&mut parent, m.perm[a] as usize));
            if x != y {
                parent[x.max(y)] = x.min(y);
            }
        }
    }
    let mut orbit_of = vec![0u8; n];
    let mut index_in = vec![0u8; n];
    let mut groups: Vec<Vec<u8>> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    for a in 0..n {
        let r = root(&mut parent, a);
        let o = match roots.iter().position(|&x| x == r) {
            Some(o) => o,
            None => {
                roots.push(r);
                groups.push(Vec::new());
                roots.len() - 1
            }
        };
        orbit_of[a] = o as u8;
        index_in[a] = groups[o].len() as u8;
        groups[o].push(a as u8);
    }
    // The goal's labels on each orbit: distinct and increasing, with their counts.
    let label_sets: Vec<(Vec<u8>, Vec<u8>)> = groups
        .iter()
        .map(|pts| {
            let mut ls: Vec<u8> = pts.iter().map(|&p| labels[p as usize]).collect();
            ls.sort_unstable();
            let mut distinct: Vec<u8> = Vec::new();
            let mut counts: Vec<u8> = Vec::new();
            for l in ls {
                if distinct.last() == Some(&l) {
                    *counts.last_mut().unwrap_or(&mut 0) += 1;
                } else {
                    distinct.push(l);
                    counts.push(1);
                }
            }
            (distinct, counts)
        })
        .collect();
    let alike: Vec<bool> = label_sets
        .iter()
        .map(|(_, c)| c.iter().any(|&x| x > 1))
        .collect();
    // Parity vectors of the moves over the orbits of two points or more, reduced. An
    // orbit with alike pieces has no parity to keep: it takes no part.
    let mut rows: Vec<(usize, u64)> = Vec::new();
    for m in moves {
        let mut v = 0u64;
        for (o, pts) in groups.iter().enumerate() {
            if pts.len() < 2 || alike[o] {
                continue;
            }
            let images: Vec<u8> = pts
                .iter()
                .map(|&p| index_in[m.perm[p as usize] as usize])
                .collect();
            v |= (parity(&images) as u64) << o;
        }
        for &(pivot, row) in &rows {
            if v >> pivot & 1 == 1 {
                v ^= row;
            }
        }
        if v != 0 {
            let pivot = v.trailing_zeros() as usize;
            for r in rows.iter_mut() {
                if r.1 >> pivot & 1 == 1 {
                    r.1 ^= v;
                }
            }
            rows.push((pivot, v));
        }
    }
    let mut size = Some(1u64);
    let orbits = groups
        .into_iter()
        .enumerate()
        .zip(label_sets)
        .map(|((o, points), (labels, counts))| {
            let k = points.len();
            let m = modulus[points[0] as usize].max(1);
            let parity_fixed = k >= 2 && !alike[o] && !rows.iter().any(|&(p, _)| p == o);
            let arrangements = if k > MAX_ORBIT {
                u64::MAX
            } else if alike[o] {
                multinomial(&counts)
            } else if parity_fixed {
                FACT[k] / 2
            } else {
                FACT[k]
            };
            let mut g = m as u64;
            for mv in moves {
                let s: u64 = points.iter().map(|&p| mv.twist[p as usize] as u64).sum();
                g = gcd(g, s % m as u64);
            }
            let orientations = (m as u64)
                .checked_pow(k as u32 - 1)
                .and_then(|x| x.checked_mul(m as u64 / g.max(1)));
            size = size
                .and_then(|s| s.checked_mul(arrangements))
                .and_then(|s| orientations.and_then(|o| s.checked_mul(o)));
            let mut local_of = vec![NONE; n];
            for (i, &l) in labels.iter().enumerate() {
                local_of[l as usize] = i as u8;
            }
            Orbit {
                points,
                modulus: m,
                parity_fixed,
                sum_step: g as u8,
                arrangements,
                orientations: orientations.unwrap_or(u64::MAX),
                alike: alike[o],
                labels,
                counts,
                local_of,
            }
        })
        .collect();
    Analysis {
        orbits,
        orbit_of,
        index_in,
        parity_rows: rows,
        size,
    }
}

/// The order of the group the moves generate, acting on (point, orientation) pairs, by
/// Schreier-Sims; `None` when it exceeds `u64`.
pub fn group_order(n: usize, modulus: &[u8], moves: &[Move]) -> Option<u64> {
    // Each (point, orientation) pair is one element the group permutes.
    let mut offset = vec![0usize; n + 1];
    for a in 0..n {
        offset[a + 1] = offset[a] + modulus[a].max(1) as usize;
    }
    let big = offset[n];
    let gens: Vec<Vec<u32>> = moves
        .iter()
        .map(|mv| {
            let mut g = vec![0u32; big];
            for a in 0..n {
                let b = mv.perm[a] as usize;
                let m = modulus[b].max(1) as usize;
                for o in 0..modulus[a].max(1) as usize {
                    g[offset[a] + o] = (offset[b] + (o + mv.twist[b] as usize) % m) as u32;
                }
            }
            g
        })
        .collect();
    schreier_sims(big, &gens)
}

/// Deterministic Schreier-Sims (Holt, *Handbook of computational group theory*, 4.4.2):
/// the order of the group generated by `gens` on `0..n`, as the product of the basic
/// orbits' lengths; `None` beyond `u64`.
fn schreier_sims(n: usize, gens: &[Vec<u32>]) -> Option<u64> {
    type Perm = Vec<u32>;
    // `a` then `b`.
    fn mul(a: &Perm, b: &Perm) -> Perm {
        a.iter().map(|&x| b[x as usize]).collect()
    }
    fn inv(a: &Perm) -> Perm {
        let mut r = vec![0u32; a.len()];
        for (i, &x) in a.iter().enumerate() {
            r[x as usize] = i as u32;
        }
        r
    }
    fn moved(g: &Perm) -> Option<usize> {
        g.iter().enumerate().position(|(i, &x)| i != x as usize)
    }
    // For each level: its generators (the strong generators fixing the earlier base
    // points) and its transversal (for each point of the base point's orbit, an element
    // taking the base point there).
    struct Level {
        gens: Vec<Perm>,
        trans: Vec<Option<Perm>>,
    }
    fn levels(n: usize, base: &[usize], sgs: &[Perm]) -> Vec<Level> {
        (0..base.len())
            .map(|i| {
                let gens: Vec<Perm> = sgs
                    .iter()
                    .filter(|g| base[..i].iter().all(|&b| g[b] as usize == b))
                    .cloned()
                    .collect();
                let mut trans: Vec<Option<Perm>> = vec![None; n];
                trans[base[i]] = Some((0..n as u32).collect());
                let mut stack = vec![base[i]];
                while let Some(x) = stack.pop() {
                    let tx = trans[x].clone().unwrap_or_default();
                    for g in &gens {
                        let y = g[x] as usize;
                        if trans[y].is_none() {
                            trans[y] = Some(mul(&tx, g));
                            stack.push(y);
                        }
                    }
                }
                Level { gens, trans }
            })
            .collect()
    }
    // Sifts `g` through the levels from `from`: the residue and the level it stopped at.
    fn strip(levels: &[Level], base: &[usize], mut g: Perm, from: usize) -> (Perm, usize) {
        for (i, l) in levels.iter().enumerate().skip(from) {
            match &l.trans[g[base[i]] as usize] {
                Some(t) => g = mul(&g, &inv(t)),
                None => return (g, i),
            }
        }
        (g, levels.len())
    }
    let mut base: Vec<usize> = Vec::new();
    let mut sgs: Vec<Perm> = Vec::new();
    for g in gens {
        let Some(p) = moved(g) else { continue };
        if base.iter().all(|&b| g[b] as usize == b) {
            base.push(p);
        }
        sgs.push(g.clone());
    }
    let mut lv = levels(n, &base, &sgs);
    let mut i = base.len();
    while i > 0 {
        let level = i - 1;
        let mut found = None;
        'search: for x in 0..n {
            let Some(tx) = &lv[level].trans[x] else {
                continue;
            };
            for g in &lv[level].gens {
                let y = g[x] as usize;
                let Some(ty) = &lv[level].trans[y] else {
                    continue;
                };
                let s = mul(&mul(tx, g), &inv(ty));
                let (h, j) = strip(&lv, &base, s, level + 1);
                if let Some(p) = moved(&h) {
                    found = Some((h, j, p));
                    break 'search;
                }
            }
        }
        match found {
            Some((h, j, p)) => {
                if j == base.len() {
                    base.push(p);
                }
                sgs.push(h);
                lv = levels(n, &base, &sgs);
                i = j + 1;
            }
            None => i -= 1,
        }
    }
    lv.iter().try_fold(1u64, |order, l| {
        order.checked_mul(l.trans.iter().filter(|t| t.is_some()).count() as u64)
    })
}
