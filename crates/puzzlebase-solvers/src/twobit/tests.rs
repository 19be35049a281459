//! Tests of `twobit`: every table against the plain breadth-first search.

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
