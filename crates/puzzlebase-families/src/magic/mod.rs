//! Magic figures: place distinct numbers on positions so that every line has the same
//! sum. The magic triangle of seed 000 places 1..9 on the nine positions
//!
//! ```text
//!       0
//!      1 8
//!     2   7
//!    3 4 5 6
//! ```
//!
//! so that the three sides 0+1+2+3, 3+4+5+6 and 6+7+8+0 have equal sums. The positions,
//! lines and numbers are data (`data/puzzles/magic-triangle.toml`, read by
//! the catalog).
//!
//! Every one of the `n!` arrangements is tested, by permutation rank, in parallel; the
//! result is every solving arrangement (not only the representatives), sorted by rank:
//!
//! * `rank`: [`perm_rank`] of the arrangement, each number replaced by its index among
//!   the numbers in increasing order (for 1..9: the digit minus one), in position order;
//! * `state`: the digits in position order, e.g. `168524937`;
//! * `value`: the common line sum;
//! * `canonical`: whether the arrangement is the representative of its class under the
//!   symmetries of the figure.
//!
//! The symmetries are computed, never listed: every permutation of the positions that
//! maps each line, as a set, onto a line. For the triangle that is the 48 maps of 3
//! rotations x 2 reflections x swapping the two numbers between each pair of vertices.
//!
//! The representative is the image that is smallest when its positions are read in
//! [`Magic::key_order`]: positions on more lines first, then by position (for the
//! triangle 0, 3, 6, 1, 2, 4, 5, 7, 8: vertices first, then each edge pair). That reading
//! order is what makes the group's choice coincide with the seed's rule
//! `0 < 3 < 6, 1 < 2, 4 < 5, 7 < 8`; reading the plain digit string instead would prefer
//! e.g. `137924568` over the seed's `168524937` (same class).

pub mod spec;

use rayon::prelude::*;
use serde_json::json;

use puzzlebase_core::definition::Source;
use puzzlebase_core::progress::Progress;
use puzzlebase_core::rank::{FACT, perm_rank, perm_unrank};
use puzzlebase_core::space::StateError;
use puzzlebase_solvers::enumerate::Solution;

/// Most positions: the notation is one digit per position and all `n!` arrangements
/// are scanned.
pub const MAX_POSITIONS: usize = 10;

/// A magic figure. See the module documentation.
#[derive(Debug, Clone)]
pub struct Magic {
    pub name: &'static str,
    /// The numbers placed, in increasing order (single digits).
    numbers: Vec<u8>,
    /// Each line as its positions.
    lines: Vec<Vec<usize>>,
    /// Position maps `s`: the image of arrangement `a` is `b[i] = a[s[i]]`; identity first.
    symmetries: Vec<Vec<usize>>,
    key_order: Vec<usize>,
    source: Source,
}

impl Magic {
    /// A figure of `numbers.len()` positions. The caller (the catalog) has
    /// checked that the numbers are distinct digits and every line names positions.
    pub fn new(
        name: &'static str,
        numbers: &[u8],
        lines: Vec<Vec<usize>>,
        source: Source,
    ) -> Magic {
        let mut numbers = numbers.to_vec();
        numbers.sort_unstable();
        let n = numbers.len();
        let on_lines: Vec<usize> = (0..n)
            .map(|p| lines.iter().filter(|l| l.contains(&p)).count())
            .collect();
        let mut key_order: Vec<usize> = (0..n).collect();
        key_order.sort_by_key(|&p| (std::cmp::Reverse(on_lines[p]), p));
        let symmetries = line_automorphisms(n, &lines, &on_lines);
        Magic {
            name,
            numbers,
            lines,
            symmetries,
            key_order,
            source,
        }
    }

    pub fn positions(&self) -> usize {
        self.numbers.len()
    }

    pub fn lines(&self) -> &[Vec<usize>] {
        &self.lines
    }

    /// The order in which positions are compared to choose a class representative.
    pub fn key_order(&self) -> &[usize] {
        &self.key_order
    }

    /// The common line sum of `digits` (in position order), or `None` if lines differ.
    pub fn side_sum(&self, digits: &[u8]) -> Option<i64> {
        let mut sums = self
            .lines
            .iter()
            .map(|l| l.iter().map(|&p| digits[p] as i64).sum::<i64>());
        let first = sums.next()?;
        sums.all(|s| s == first).then_some(first)
    }

    /// The symmetries as position maps (see [`apply`]); the identity comes first.
    pub fn symmetries(&self) -> &[Vec<usize>] {
        &self.symmetries
    }

    fn canonical_key(&self, digits: &[u8]) -> Vec<u8> {
        self.key_order.iter().map(|&p| digits[p]).collect()
    }

    /// Whether `digits` is its class's representative: no image has a smaller
    /// [`Magic::key_order`] reading. Images of distinct digits under distinct symmetries
    /// are distinct, so exactly one member of each class passes.
    pub fn is_canonical(&self, digits: &[u8]) -> bool {
        let key = self.canonical_key(digits);
        self.symmetries
            .iter()
            .all(|s| key <= self.canonical_key(&apply(s, digits)))
    }

    /// Every arrangement whose lines have equal sums, sorted by rank.
    pub fn solve(&self, progress: &dyn Progress) -> Vec<Solution> {
        let n = self.positions();
        // Blocks of (n-2)! ranks: enough blocks to balance two or more cores and to
        // report progress smoothly, few enough that the per-block overhead is nothing.
        let block = FACT[n.saturating_sub(2)];
        let blocks = FACT[n] / block;
        progress.phase(self.name, FACT[n]);
        let found: Vec<Vec<Solution>> = (0..blocks)
            .into_par_iter()
            .map(|b| {
                let mut out = Vec::new();
                let mut perm = vec![0u8; n];
                let mut digits = vec![0u8; n];
                for rank in b * block..(b + 1) * block {
                    perm_unrank(rank, &mut perm);
                    for (d, &i) in digits.iter_mut().zip(&perm) {
                        *d = self.numbers[i as usize];
                    }
                    if let Some(sum) = self.side_sum(&digits) {
                        out.push(Solution {
                            rank,
                            state: format_magic(&digits),
                            value: Some(sum),
                            canonical: self.is_canonical(&digits),
                        });
                    }
                }
                progress.advance(block);
                out
            })
            .collect();
        // Blocks are collected in index order and each is scanned in rank order, so the
        // concatenation is already sorted by rank.
        found.into_iter().flatten().collect()
    }

    /// Reads an arrangement: each number once, in position order, optionally separated
    /// by spaces or commas.
    pub fn parse(&self, text: &str) -> Result<Vec<u8>, StateError> {
        let bad = |reason: String| StateError::malformed(text, reason);
        let n = self.positions();
        let mut digits = Vec::with_capacity(n);
        for c in text.trim().chars() {
            match c.to_digit(10) {
                Some(d) if self.numbers.contains(&(d as u8)) => digits.push(d as u8),
                _ if c == ' ' || c == ',' => {}
                _ => return Err(bad(format!("unexpected character {c:?}"))),
            }
        }
        if digits.len() != n {
            return Err(bad(format!("expected {n} digits, found {}", digits.len())));
        }
        let mut seen = 0u16;
        for &d in &digits {
            if seen & (1 << d) != 0 {
                return Err(bad(format!("digit {d} appears twice")));
            }
            seen |= 1 << d;
        }
        Ok(digits)
    }

    /// The rank of an arrangement in the database (see the module documentation).
    pub fn rank(&self, digits: &[u8]) -> u64 {
        let idx: Vec<u8> = digits
            .iter()
            .map(|d| self.numbers.iter().position(|x| x == d).unwrap_or(0) as u8)
            .collect();
        perm_rank(&idx)
    }

    /// A self-contained description of the puzzle and of the database's conventions.
    pub fn definition(&self) -> serde_json::Value {
        let mut d = json!({
            "name": self.name,
            "positions": self.positions(),
            "digits": self.numbers,
            "sides": self.lines,
            "rule": "every line has the same sum",
            "state": "the digits in position order",
            "rank": "lexicographic permutation rank of the numbers' indices (in increasing order of the numbers), in position order",
            "value": "the common line sum",
            "symmetries": self.symmetries.len(),
            "symmetry_rule": "every permutation of the positions mapping each line, as a set, onto a line",
            "canonical": "the member of its symmetry class whose digits, read in canonical_key_order, are smallest",
            "canonical_key_order": self.key_order,
        });
        self.source.annotate(&mut d);
        d
    }
}

/// Applies symmetry `s` to `digits` (see [`Magic::symmetries`]).
pub fn apply(s: &[usize], digits: &[u8]) -> Vec<u8> {
    s.iter().map(|&i| digits[i]).collect()
}

/// The notation: the digits in position order, no separators.
pub fn format_magic(digits: &[u8]) -> String {
    digits.iter().map(|d| char::from(b'0' + d)).collect()
}

/// Every permutation of `n` positions mapping each line, as a set, onto a line, by
/// backtracking position by position (a position can only go where as many lines meet);
/// sorted, so the identity comes first.
fn line_automorphisms(n: usize, lines: &[Vec<usize>], on_lines: &[usize]) -> Vec<Vec<usize>> {
    let sets: Vec<u64> = lines
        .iter()
        .map(|l| l.iter().fold(0, |m, &p| m | 1 << p))
        .collect();
    fn go(
        i: usize,
        perm: &mut Vec<usize>,
        used: u64,
        on_lines: &[usize],
        sets: &[u64],
        out: &mut Vec<Vec<usize>>,
    ) {
        let n = on_lines.len();
        // Each line is checked as soon as its points are all placed, so that a branch
        // that cannot be a symmetry is cut there rather than at its 4,320 leaves (the
        // magic triangle's, built again by every `verify`).
        let image = |set: u64| {
            (0..i)
                .filter(|&p| set >> p & 1 == 1)
                .fold(0u64, |m, p| m | 1 << perm[p])
        };
        let placed = |set: u64| i > 0 && 64 - set.leading_zeros() as usize == i;
        if !(sets.iter())
            .filter(|&&s| placed(s))
            .all(|&s| sets.contains(&image(s)))
        {
            return;
        }
        if i == n {
            out.push(perm.clone());
            return;
        }
        for c in 0..n {
            if used >> c & 1 == 0 && on_lines[c] == on_lines[i] {
                perm.push(c);
                go(i + 1, perm, used | 1 << c, on_lines, sets, out);
                perm.pop();
            }
        }
    }
    let mut maps = Vec::new();
    go(0, &mut Vec::with_capacity(n), 0, on_lines, &sets, &mut maps);
    // `maps` send position p to perm[p]; the image arrangement b[perm[p]] = a[p], i.e.
    // b[i] = a[inverse[i]]: store the inverses, which form the same group.
    let mut out: Vec<Vec<usize>> = maps
        .into_iter()
        .map(|m| {
            let mut inv = vec![0; n];
            for (p, &q) in m.iter().enumerate() {
                inv[q] = p;
            }
            inv
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use puzzlebase_core::progress::Silent;
    use std::collections::BTreeMap;

    // The seed's triangle, read from its definition file, seen through the seed's
    // fixed-size arrays.
    const SIDES: [[usize; 4]; 3] = [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 0]];

    fn triangle() -> Magic {
        let spec = crate::catalog::builtin_spec("magic-triangle").unwrap();
        super::spec::magic(&spec).unwrap()
    }
    fn symmetries() -> Vec<Vec<usize>> {
        triangle().symmetries().to_vec()
    }
    fn magic_triangle(progress: &dyn Progress) -> Vec<Solution> {
        triangle().solve(progress)
    }
    fn parse_magic(text: &str) -> Result<[u8; 9], StateError> {
        triangle().parse(text).map(|d| d.try_into().unwrap())
    }
    fn magic_rank(d: &[u8; 9]) -> u64 {
        triangle().rank(d)
    }
    fn side_sum(d: &[u8]) -> Option<i64> {
        triangle().side_sum(d)
    }
    fn apply(s: &[usize], d: &[u8]) -> [u8; 9] {
        super::apply(s, d).try_into().unwrap()
    }
    fn is_canonical(_group: &[Vec<usize>], d: &[u8]) -> bool {
        triangle().is_canonical(d)
    }
    fn magic_definition() -> serde_json::Value {
        triangle().definition()
    }

    #[test]
    fn key_order_reads_vertices_first() {
        assert_eq!(triangle().key_order(), [0, 3, 6, 1, 2, 4, 5, 7, 8]);
    }

    fn seed_rule(d: &[u8; 9]) -> bool {
        d[0] < d[3] && d[3] < d[6] && d[1] < d[2] && d[4] < d[5] && d[7] < d[8]
    }

    #[test]
    fn group_has_48_side_preserving_maps() {
        let group = symmetries();
        assert_eq!(group.len(), 48);
        let side_sets: Vec<u16> = SIDES
            .iter()
            .map(|s| s.iter().fold(0, |m, &p| m | 1 << p))
            .collect();
        for s in &group {
            for side in SIDES {
                let image = side.iter().fold(0u16, |m, &p| m | 1 << s[p]);
                assert!(side_sets.contains(&image));
            }
        }
    }

    #[test]
    fn seed_figures() {
        let all = magic_triangle(&Silent);
        assert_eq!(all.len(), 864);
        assert!(all.windows(2).all(|w| w[0].rank < w[1].rank));
        let canonical: Vec<&Solution> = all.iter().filter(|s| s.canonical).collect();
        assert_eq!(canonical.len(), 18);
        let mut per_sum = BTreeMap::new();
        for s in &canonical {
            *per_sum.entry(s.value.unwrap()).or_insert(0) += 1;
        }
        assert_eq!(
            per_sum.into_iter().collect::<Vec<_>>(),
            vec![(17, 2), (19, 4), (20, 6), (21, 4), (23, 2)]
        );
        let twenty: Vec<&str> = canonical
            .iter()
            .filter(|s| s.value == Some(20))
            .map(|s| s.state.as_str())
            .collect();
        assert_eq!(
            twenty,
            [
                "168524937",
                "249516837",
                "267534819",
                "348526719",
                "429518637",
                "438527619"
            ]
        );
        // The seed's full list, "sum:digits" as printed.
        let seed = "17:1 5 9 2 4 8 3 6 7 19:1 5 9 4 2 6 7 3 8 17:1 6 8 2 5 7 3 4 9 \
            19:1 6 8 4 3 5 7 2 9 20:1 6 8 5 2 4 9 3 7 20:2 4 9 5 1 6 8 3 7 \
            19:2 5 9 3 1 8 7 4 6 20:2 6 7 5 3 4 8 1 9 19:2 6 8 3 4 5 7 1 9 \
            21:3 2 9 7 1 5 8 4 6 20:3 4 8 5 2 6 7 1 9 21:3 4 8 6 1 5 9 2 7 \
            21:3 5 6 7 2 4 8 1 9 21:3 5 7 6 2 4 9 1 8 20:4 2 9 5 1 8 6 3 7 \
            20:4 3 8 5 2 7 6 1 9 23:7 2 6 8 1 5 9 3 4 23:7 3 5 8 2 4 9 1 6";
        let seed: Vec<(i64, String)> = seed
            .split_whitespace()
            .collect::<Vec<_>>()
            .chunks(9)
            .map(|c| {
                let (sum, first) = c[0].split_once(':').unwrap();
                (sum.parse().unwrap(), format!("{first}{}", c[1..].concat()))
            })
            .collect();
        let ours: Vec<(i64, String)> = canonical
            .iter()
            .map(|s| (s.value.unwrap(), s.state.clone()))
            .collect();
        // The seed prints in its search order, which is lexicographic: so is rank order.
        assert_eq!(ours, seed);
    }

    #[test]
    fn canonical_agrees_with_seed_rule_and_classes_have_48() {
        let group = symmetries();
        let all = magic_triangle(&Silent);
        let mut classes: BTreeMap<[u8; 9], (usize, usize)> = BTreeMap::new();
        for s in &all {
            let d = parse_magic(&s.state).unwrap();
            assert_eq!(magic_rank(&d), s.rank);
            assert_eq!(side_sum(&d), s.value);
            assert_eq!(s.canonical, seed_rule(&d), "{}", s.state);
            // Class identity: the smallest image under plain order.
            let class = group.iter().map(|g| apply(g, &d)).min().unwrap();
            let entry = classes.entry(class).or_default();
            entry.0 += 1;
            entry.1 += s.canonical as usize;
            // Every image is a solution too, with the same sum.
            for g in &group {
                assert_eq!(side_sum(&apply(g, &d)), s.value);
            }
        }
        assert_eq!(classes.len(), 18);
        assert!(classes.values().all(|&c| c == (48, 1)));
    }

    #[test]
    fn plain_string_order_would_disagree_with_the_seed() {
        // Documents why the canonical key reads vertices first.
        let group = symmetries();
        let d = parse_magic("168524937").unwrap();
        let min = group.iter().map(|g| apply(g, &d)).min().unwrap();
        assert_eq!(format_magic(&min), "137924568");
        assert!(is_canonical(&group, &d));
    }

    #[test]
    fn parse_accepts_separators_and_rejects_bad_text() {
        let d = [1, 6, 8, 5, 2, 4, 9, 3, 7];
        assert_eq!(parse_magic("168524937"), Ok(d));
        assert_eq!(parse_magic("1 6 8 5 2 4 9 3 7"), Ok(d));
        assert_eq!(parse_magic(" 1,6,8, 5,2,4, 9,3,7 "), Ok(d));
        for bad in [
            "",
            "16852493",
            "1685249377",
            "168524930",
            "168524931",
            "16852493x",
        ] {
            assert!(parse_magic(bad).is_err(), "{bad:?}");
        }
        assert_eq!(side_sum(&d), Some(20));
        assert_eq!(side_sum(&[1, 2, 3, 4, 5, 6, 7, 8, 9]), None);
        assert_eq!(magic_definition()["symmetries"], 48);
    }
}
