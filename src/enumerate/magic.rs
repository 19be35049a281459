//! The magic triangle of seed 000: place 1..9 on the nine positions
//!
//! ```text
//!       0
//!      1 8
//!     2   7
//!    3 4 5 6
//! ```
//!
//! so that the three sides 0+1+2+3, 3+4+5+6 and 6+7+8+0 have equal sums.
//!
//! Every one of the `9!` arrangements is tested, by permutation rank, in parallel; the
//! result is every solving arrangement (not only the representatives), sorted by rank:
//!
//! * `rank`: [`perm_rank`] of the arrangement's digits minus one, in position order;
//! * `state`: the nine digits in position order, e.g. `168524937`;
//! * `value`: the common side sum;
//! * `canonical`: whether the arrangement is the representative of its class under the
//!   48 symmetries (3 rotations x 2 reflections x swapping the two numbers between each
//!   of the three pairs of vertices).
//!
//! The representative is the image that is smallest when its positions are read in the
//! order 0, 3, 6, 1, 2, 4, 5, 7, 8 (vertices first, then each edge pair). That reading
//! order is what makes the group's choice coincide with the seed's rule
//! `0 < 3 < 6, 1 < 2, 4 < 5, 7 < 8`; reading the plain digit string instead would prefer
//! e.g. `137924568` over the seed's `168524937` (same class).

use rayon::prelude::*;
use serde_json::json;

use crate::enumerate::Solution;
use crate::progress::Progress;
use crate::rank::{FACT, perm_rank, perm_unrank};
use crate::space::StateError;

/// The three sides, each as its four positions from one vertex to the next.
pub const SIDES: [[usize; 4]; 3] = [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 0]];

/// The corner positions.
pub const VERTICES: [usize; 3] = [0, 3, 6];

/// Order in which positions are compared to choose a class representative (see the
/// module documentation for why it is not plain position order).
pub const CANONICAL_KEY_ORDER: [usize; 9] = [0, 3, 6, 1, 2, 4, 5, 7, 8];

/// The common side sum of `digits` (in position order), or `None` if the sides differ.
pub fn side_sum(digits: &[u8; 9]) -> Option<i64> {
    let sums = SIDES.map(|side| side.iter().map(|&p| digits[p] as i64).sum::<i64>());
    (sums[0] == sums[1] && sums[1] == sums[2]).then_some(sums[0])
}

/// The 48 symmetries of the triangle as position maps: the image of arrangement `a`
/// under `s` is `b[i] = a[s[i]]`. The identity comes first.
pub fn symmetries() -> Vec<[usize; 9]> {
    // Generators: rotation by one side, the reflection fixing vertex 0, and the swap of
    // each edge pair. Closing under composition gives the whole group, which is simpler
    // to trust than writing out 48 maps by hand.
    let identity: [usize; 9] = std::array::from_fn(|i| i);
    let rotation: [usize; 9] = std::array::from_fn(|i| (i + 3) % 9);
    let reflection: [usize; 9] = std::array::from_fn(|i| (9 - i) % 9);
    let swap = |a: usize, b: usize| {
        let mut s = identity;
        s.swap(a, b);
        s
    };
    let generators = [rotation, reflection, swap(1, 2), swap(4, 5), swap(7, 8)];
    let mut group = vec![identity];
    let mut next = 0;
    while next < group.len() {
        let g = group[next];
        next += 1;
        for h in &generators {
            let composed: [usize; 9] = std::array::from_fn(|i| g[h[i]]);
            if !group.contains(&composed) {
                group.push(composed);
            }
        }
    }
    group
}

/// Applies symmetry `s` to `digits` (see [`symmetries`]).
pub fn apply(s: &[usize; 9], digits: &[u8; 9]) -> [u8; 9] {
    std::array::from_fn(|i| digits[s[i]])
}

fn canonical_key(digits: &[u8; 9]) -> [u8; 9] {
    CANONICAL_KEY_ORDER.map(|p| digits[p])
}

/// Whether `digits` is its class's representative: no image under `group` has a
/// smaller [`CANONICAL_KEY_ORDER`] reading. Images of distinct digits under distinct
/// symmetries are distinct, so exactly one member of each class passes.
pub fn is_canonical(group: &[[usize; 9]], digits: &[u8; 9]) -> bool {
    let key = canonical_key(digits);
    group
        .iter()
        .all(|s| key <= canonical_key(&apply(s, digits)))
}

/// Every arrangement of 1..9 whose three sides have equal sums, sorted by rank.
pub fn magic_triangle(progress: &dyn Progress) -> Vec<Solution> {
    let group = symmetries();
    // Blocks of 7! ranks: enough blocks to balance two or more cores and to report
    // progress smoothly, few enough that the per-block overhead is nothing.
    let block = FACT[7];
    let blocks = FACT[9] / block;
    progress.phase("magic-triangle", FACT[9]);
    let found: Vec<Vec<Solution>> = (0..blocks)
        .into_par_iter()
        .map(|b| {
            let mut out = Vec::new();
            let mut perm = [0u8; 9];
            for rank in b * block..(b + 1) * block {
                perm_unrank(rank, &mut perm);
                let digits = perm.map(|v| v + 1);
                if let Some(sum) = side_sum(&digits) {
                    out.push(Solution {
                        rank,
                        state: format_magic(&digits),
                        value: Some(sum),
                        canonical: is_canonical(&group, &digits),
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

/// The notation: the nine digits in position order, no separators.
pub fn format_magic(digits: &[u8; 9]) -> String {
    digits.iter().map(|d| char::from(b'0' + d)).collect()
}

/// Reads an arrangement: nine distinct digits 1-9 in position order, optionally
/// separated by spaces or commas.
pub fn parse_magic(text: &str) -> Result<[u8; 9], StateError> {
    let bad = |reason: String| StateError::malformed(text, reason);
    let mut digits = Vec::with_capacity(9);
    for c in text.trim().chars() {
        match c {
            '1'..='9' => digits.push(c as u8 - b'0'),
            ' ' | ',' => {}
            _ => return Err(bad(format!("unexpected character {c:?}"))),
        }
    }
    let digits: [u8; 9] = digits
        .try_into()
        .map_err(|d: Vec<u8>| bad(format!("expected 9 digits, found {}", d.len())))?;
    let mut seen = 0u16;
    for d in digits {
        if seen & (1 << d) != 0 {
            return Err(bad(format!("digit {d} appears twice")));
        }
        seen |= 1 << d;
    }
    Ok(digits)
}

/// The rank of an arrangement in the database ([`perm_rank`] of the digits minus one).
pub fn magic_rank(digits: &[u8; 9]) -> u64 {
    perm_rank(&digits.map(|d| d - 1))
}

/// A self-contained description of the puzzle and of the database's conventions.
pub fn magic_definition() -> serde_json::Value {
    json!({
        "name": "magic-triangle",
        "source": "seed 000",
        "layout": ["      0", "     1 8", "    2   7", "   3 4 5 6"],
        "positions": 9,
        "digits": [1, 2, 3, 4, 5, 6, 7, 8, 9],
        "sides": SIDES,
        "vertices": VERTICES,
        "rule": "the three sides have equal sums",
        "state": "the nine digits in position order",
        "rank": "lexicographic permutation rank (Lehmer code) of the digits minus one, in position order",
        "value": "the common side sum",
        "symmetries": 48,
        "symmetry_generators": [
            "rotation: position i -> i+3 mod 9",
            "reflection: position i -> 9-i mod 9",
            "swap positions 1,2", "swap positions 4,5", "swap positions 7,8"
        ],
        "canonical": "the member of its symmetry class whose digits, read in positions 0,3,6,1,2,4,5,7,8, are smallest; equivalently 0<3<6, 1<2, 4<5, 7<8",
        "canonical_key_order": CANONICAL_KEY_ORDER,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use std::collections::BTreeMap;

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
