//! Pattern databases for sliding puzzles on a rectangular grid (the 4x4 `fifteen`): for a
//! *pattern*, a set of tiles, a table giving for every placement of those tiles the
//! minimum number of moves **of those tiles** that brings them home, the other tiles
//! being indistinguishable and their moves free. Tables of disjoint patterns add up to an
//! admissible bound (Korf & Felner 2002; Felner, Korf & Hanan 2004).
//!
//! # Placements and their ranks
//! A pattern's tiles are listed in increasing order `t_0 < t_1 < ... < t_{k-1}` (tile `t`
//! belongs in cell `t - 1`, cells row-major). A placement is the cell `c_i` of each tile, a
//! k-permutation of the `n` cells, ranked lexicographically:
//!
//! ```text
//! rank = sum over i of d_i * P(n - 1 - i, k - 1 - i),   P(a, b) = a! / (a - b)!
//! d_i  = c_i - #{ j < i : c_j < c_i }
//! ```
//!
//! so ranks run densely over `0..P(n, k)` (5,765,760 for six tiles of 16 cells,
//! 57,657,600 for seven, 518,918,400 for eight).
//!
//! The tables themselves, how they are built and what a byte holds, are in its `table` module;
//! how a stored table is checked without a search of its own, in its `led` module.

mod check;
mod led;
mod placement;
mod table;

pub use check::{check, check_local, check_with};
pub use placement::{Grid, MAX_CELLS, Pattern, PatternError};
pub use table::{Entry, PatternSpace, PatternTable, build, encode_placements, needs_minimum};

#[cfg(test)]
mod tests {
    use super::check::relation;
    use super::table::{encode, solve_regions};
    use super::*;
    use crate::bfs::{self, Outputs};
    use puzzlebase_core::format::UNREACHED;
    use puzzlebase_core::progress::Silent;
    use puzzlebase_core::space::StateSpace;
    use puzzlebase_families::sliding::Sliding;

    #[test]
    fn placement_ranks_are_dense_and_round_trip() {
        let p = Pattern::new(Grid::new(3, 3), &[2, 5, 7]).unwrap();
        assert_eq!(p.placements(), 9 * 8 * 7);
        let mut seen = vec![false; p.placements() as usize];
        let mut cells = [0u8; 3];
        for r in 0..p.placements() {
            p.unrank(r, &mut cells);
            assert_eq!(p.rank(&cells), r);
            assert!(!std::mem::replace(&mut seen[r as usize], true));
        }
        // Lexicographic: the first placement is cells 0, 1, 2; the last 8, 7, 6.
        assert_eq!(p.rank(&[0, 1, 2]), 0);
        assert_eq!(p.rank(&[8, 7, 6]), p.placements() - 1);
        let big = Pattern::new(Grid::new(4, 4), &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        assert_eq!(big.placements(), 518_918_400);
        assert_eq!(PatternSpace::new(&big).size(), 4_151_347_200);
        assert!(PatternSpace::new(&big).size() < u32::MAX as u64);
    }

    /// The search led by the table finds the shared search's distances, from a table
    /// that splits regions or one that does not; a table it cannot lead (a minimum too
    /// deep) is left to the shared search, whose relation pass holds of its distances.
    #[test]
    fn the_search_led_by_the_table_finds_the_searched_distances() {
        let g = Grid::new(4, 4);
        for tiles in [&[2u8, 3, 4][..], &[1, 5, 6, 9], &[9, 10, 13, 14, 15]] {
            let p = Pattern::new(g.clone(), tiles).unwrap();
            let by_region = solve_regions(&p, &Silent).unwrap();
            let table = encode(&p, &by_region);
            assert_eq!(table.entry, Entry::LargestRegion);
            let led = super::led::distances(&p, &table, &Silent).unwrap();
            assert_eq!(led.as_ref(), Some(&by_region), "{tiles:?}");
            let plain = PatternTable {
                entry: Entry::Minimum,
                bytes: table.bytes.iter().map(|&b| b & 63).collect(),
            };
            let led = super::led::distances(&p, &plain, &Silent).unwrap();
            assert_eq!(led.as_ref(), Some(&by_region), "{tiles:?}");
            relation(&p, &by_region, &Silent).unwrap();
            let mut deep = plain.clone();
            deep.bytes[1] = 120;
            assert_eq!(super::led::distances(&p, &deep, &Silent).unwrap(), None);
            assert!(check(&p, &deep).is_err());
            let mut wrong = by_region.clone();
            let r = wrong.iter().position(|&d| d > 1 && d != UNREACHED).unwrap();
            wrong[r] += 2;
            assert!(relation(&p, &wrong, &Silent).is_err());
        }
    }

    /// Every way a byte can be wrong fails the check: a minimum too high or too low, a
    /// region bit set or cleared, a reachable placement marked unreachable.
    #[test]
    fn every_damaged_byte_fails_the_check_led_by_the_table() {
        let p = Pattern::new(Grid::new(4, 4), &[1, 5, 6, 9]).unwrap();
        let table = build(&p, &Silent).unwrap();
        let home = p.rank(&p.home()) as usize;
        let mut damaged = 0;
        for r in (0..table.bytes.len()).step_by(997).chain([home]) {
            for change in [
                |b: u8| b.wrapping_add(2),
                |b: u8| b.wrapping_sub(2),
                |b: u8| b ^ 1 << 6,
                |b: u8| b ^ 1 << 7,
                |_| UNREACHED,
                |b: u8| b.wrapping_add(1),
            ] {
                let mut t = table.clone();
                t.bytes[r] = change(t.bytes[r]);
                if t.bytes[r] != table.bytes[r] {
                    assert!(check(&p, &t).is_err(), "placement {r}: {}", t.bytes[r]);
                    damaged += 1;
                }
            }
        }
        assert!(damaged > 250, "{damaged}");
    }

    /// Progress that keeps a phase's total and every amount it is told.
    #[derive(Default)]
    struct Told(std::sync::Mutex<(u64, Vec<u64>)>);
    impl puzzlebase_core::progress::Progress for Told {
        fn phase(&self, _: &str, total: u64) {
            *self.0.lock().unwrap() = (total, Vec::new());
        }
        fn advance(&self, n: u64) {
            self.0.lock().unwrap().1.push(n);
        }
    }

    /// The states a pattern's search reaches, counted from the pattern alone, are the
    /// states it reaches: its progress runs to that total as they are found, with nothing
    /// left to add at the end. Where the count is refused (a 2x2 or 2x3 grid, fewer than
    /// two tiles outside the pattern), the search reaches fewer than the pairs of a
    /// placement and a region.
    #[test]
    fn the_states_a_pattern_search_reaches_are_counted_up_front() {
        let counted = [
            (3, 3, &[1u8, 2, 3][..]),
            (3, 3, &[2, 4, 6, 8]),
            (3, 3, &[1, 2, 3, 4, 5, 6]),
            (3, 4, &[1, 5, 6, 9, 10]),
            (4, 3, &[3, 6, 9]),
            (2, 4, &[1, 2, 5]),
            (2, 3, &[1, 2, 4]),
            (2, 5, &[2, 3, 4, 7, 8, 9]),
            (4, 4, &[1, 5, 6, 9]),
            (4, 4, &[9, 10, 13, 14, 15]),
        ];
        for (rows, cols, tiles) in counted {
            let p = Pattern::new(Grid::new(rows, cols), tiles).unwrap();
            let told = Told::default();
            let by_region = solve_regions(&p, &told).unwrap();
            let reached = by_region.iter().filter(|&&d| d != UNREACHED).count() as u64;
            let want = p.reachable_states();
            assert_eq!(want, Some(reached), "{rows}x{cols} {tiles:?}");
            assert!(reached < PatternSpace::new(&p).size());
            let (total, amounts) = told.0.into_inner().unwrap();
            assert_eq!(total, reached, "{rows}x{cols} {tiles:?}");
            assert!(amounts.iter().sum::<u64>() >= total);
            assert_eq!(
                amounts.last(),
                Some(&0),
                "{rows}x{cols} {tiles:?}: {amounts:?}"
            );
        }
        // (2x2 with one tile happens to reach every state, but is not counted: a cycle.)
        let refused = [
            (2, 2, &[1u8][..], false),
            (2, 2, &[1, 2], true),
            (1, 5, &[1, 2], true),
            (3, 3, &[1, 2, 3, 4, 5, 6, 7], true),
            (2, 4, &[1, 2, 3, 4, 5, 6], true),
        ];
        for (rows, cols, tiles, fewer) in refused {
            let p = Pattern::new(Grid::new(rows, cols), tiles).unwrap();
            assert_eq!(p.reachable_states(), None, "{rows}x{cols} {tiles:?}");
            if !fewer {
                continue;
            }
            let by_region = solve_regions(&p, &Silent).unwrap();
            let reached = by_region.iter().filter(|&&d| d != UNREACHED).count() as u64;
            assert!(reached < p.placement_regions(), "{rows}x{cols} {tiles:?}");
        }
    }

    #[test]
    fn stepping_through_placements_is_unranking_each() {
        for (rows, cols, tiles) in [
            (4, 4, &[1u8, 2, 3][..]),
            (2, 3, &[1, 2, 3, 4, 5]),
            (3, 3, &[2, 5, 8, 1]),
        ] {
            let p = Pattern::new(Grid::new(rows, cols), tiles).unwrap();
            let k = tiles.len();
            let (mut cells, mut want) = ([0u8; MAX_CELLS], [0u8; MAX_CELLS]);
            p.unrank(0, &mut cells);
            for r in 1..p.placements() {
                assert!(p.step(&mut cells[..k]));
                p.unrank(r, &mut want);
                assert_eq!(cells[..k], want[..k], "rank {r}");
            }
            let last = cells;
            assert!(!p.step(&mut cells[..k]));
            assert_eq!(cells, last);
        }
    }

    #[test]
    fn bad_patterns_are_refused() {
        let g = Grid::new(4, 4);
        assert!(Pattern::new(g.clone(), &[]).is_err());
        assert!(Pattern::new(g.clone(), &[0, 1]).is_err());
        assert!(Pattern::new(g.clone(), &[16]).is_err());
        assert!(Pattern::new(g.clone(), &[3, 3]).is_err());
        assert!(Pattern::new(g, &(1..=15).collect::<Vec<_>>()).is_ok());
    }

    #[test]
    fn regions_are_named_by_their_lowest_free_cell() {
        let g = Grid::new(4, 4);
        // Column 1 full: cells 0, 4, 8, 12 form one region, columns 2-3 another, whose
        // lowest cell 2 is the second free cell.
        let wall = (1 << 1) | (1 << 5) | (1 << 9) | (1 << 13);
        let empty = g.full() & !wall;
        assert_eq!(g.ordinal(empty, 12), 0);
        assert_eq!(g.ordinal(empty, 2), 1);
        assert_eq!(g.ordinal(empty, 15), 1);
        assert_eq!(g.region_by_ordinal(empty, 0), Some(0x1111));
        assert_eq!(g.region_by_ordinal(empty, 1), Some(0xCCCC));
        // Free cell 2 is cell 3, not the lowest of its region; there are 12 free cells.
        assert_eq!(g.region_by_ordinal(empty, 2), None);
        assert_eq!(g.region_by_ordinal(empty, 12), None);
    }

    #[test]
    fn the_largest_region_has_the_most_cells_and_ties_go_to_the_lowest() {
        let g = Grid::new(4, 4);
        // Column 1 full: column 0 (4 cells) against columns 2-3 (8 cells).
        let wall = (1 << 1) | (1 << 5) | (1 << 9) | (1 << 13);
        assert_eq!(g.largest_region(g.full() & !wall), 0xCCCC);
        // Columns 1 and 2 full: columns 0 and 3, four cells each.
        let wall2 = wall | wall << 1;
        assert_eq!(g.largest_region(g.full() & !wall2), 0x1111);
        assert_eq!(g.largest_region(0), 0);
    }

    /// Each byte's bound, with the blank in any cell, never exceeds the distance of the
    /// (placement, region) state it stands for, and reaches it at least once above the
    /// minimum: the region bits are admissible and used.
    #[test]
    fn region_bounds_are_admissible_and_sometimes_above_the_minimum() {
        let p = Pattern::new(Grid::new(4, 4), &[1, 2, 5, 6, 9]).unwrap();
        let by_region = solve_regions(&p, &Silent).unwrap();
        let table = encode(&p, &by_region);
        assert_eq!(table.entry, Entry::LargestRegion);
        let slots = 11;
        let mut cells = [0u8; MAX_CELLS];
        let mut above = 0;
        for r in (0..p.placements()).step_by(7) {
            p.unrank(r, &mut cells);
            let occupied = cells[..5].iter().fold(0u32, |o, &c| o | 1 << c);
            let empty = p.grid.full() & !occupied;
            let largest = p.grid.largest_region(empty);
            let byte = table.bytes[r as usize];
            for blank in (0..16).filter(|&b| empty >> b & 1 == 1) {
                let bound = table.entry.bound(byte, largest >> blank & 1 == 1);
                let d = by_region[(r * slots + p.grid.ordinal(empty, blank) as u64) as usize];
                assert!(bound <= d as u32, "placement {r}, blank {blank}");
                assert_eq!(bound % 2, d as u32 % 2, "placement {r}, blank {blank}");
                above += (bound > (byte & 63) as u32) as u32;
            }
        }
        assert!(above > 0);
    }

    /// With every tile in the pattern the blank is in a region of one cell, so the table
    /// is the puzzle's own distance table: the same as the plain BFS of `eight`.
    #[test]
    fn a_pattern_of_every_tile_is_the_full_distance_table() {
        let eight = Sliding::grid("eight", 3, 3);
        let full = bfs::solve_with(&eight, Outputs::DISTANCES, &Silent).unwrap();
        let p = Pattern::new(Grid::new(3, 3), &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let built = build(&p, &Silent).unwrap();
        // Half the placements cannot reach home, which only the plain minimum can say.
        assert_eq!(built.entry, Entry::Minimum);
        let table = &built.bytes;
        let mut checked = 0;
        for r in 0..eight.size() {
            let cells = eight.unrank(r);
            let placement = p.placement_of(&cells);
            assert_eq!(table[p.rank(&placement) as usize], full.dist[r as usize]);
            checked += 1;
        }
        assert_eq!(checked, 181_440);
        // The other half of the placements (odd permutations) cannot reach home.
        assert_eq!(table.iter().filter(|&&d| d == UNREACHED).count(), 181_440);
        check(&p, &built).unwrap();
    }

    #[test]
    fn small_fifteen_patterns_pass_the_check_and_a_damaged_one_fails() {
        let g = Grid::new(4, 4);
        for tiles in [&[2u8, 3, 4][..], &[1, 5, 6, 9]] {
            let p = Pattern::new(g.clone(), tiles).unwrap();
            let mut table = build(&p, &Silent).unwrap();
            assert_eq!(table.entry, Entry::LargestRegion);
            check(&p, &table).unwrap();
            assert_eq!(table.bytes[p.rank(&p.home()) as usize], 0);
            // Raising one entry breaks the recomputed minimum; lowering one below its
            // neighbours' breaks the local relation; so does a region bit set too many.
            let r = (p.placements() / 3) as usize;
            table.bytes[r] += 1;
            assert!(check(&p, &table).is_err());
            table.bytes[r] -= 1;
            table.bytes[r] ^= 3 << 6;
            assert!(check(&p, &table).is_err());
            table.bytes[r] ^= 3 << 6;
            let plain = PatternTable {
                entry: Entry::Minimum,
                bytes: table.bytes.iter().map(|&b| b & 63).collect(),
            };
            assert!(matches!(
                check(&p, &plain),
                Err(PatternError::Encoding { .. })
            ));
            let far = (0..table.bytes.len())
                .max_by_key(|&i| table.bytes[i] & 63)
                .unwrap();
            table.bytes[far] = 1;
            assert!(check_local(&p, &table).is_err());
            table.bytes.remove(0);
            assert!(check(&p, &table).is_err());
        }
    }
}
