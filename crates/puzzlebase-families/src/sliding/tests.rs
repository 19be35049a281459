//! Unit tests of the sliding family: ranking and rank orders, neighbours, notation, parity and the seed figures.

use super::*;
use puzzlebase_core::progress::Silent;
use puzzlebase_solvers::bfs::{UNREACHED, solve};

impl Sliding {
    /// The hexagonal `six`, from its definition file.
    fn six() -> Sliding {
        let spec = crate::catalog::builtin_spec("six").unwrap();
        super::spec::sliding(&spec).unwrap()
    }
}

/// The batch form the two-bit search calls gives, rank by rank, what `neighbors`
/// gives (its far neighbours with the run links too), and `odd_ranks` what `parity` gives, on grids with and without a
/// colouring (the 2x7 beyond 2^32 ranks included).
#[test]
fn batched_neighbours_and_parities_are_the_single_ones() {
    // splitmix64: reproducible ranks without a random-number crate.
    let mut state = 36u64;
    let mut below = |n: u64| {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ z >> 30).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ z >> 27).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ z >> 31) % n
    };
    // A ring of 12 cells: the move between its first and last cell crosses 10
    // tiles, more than the far moves' words of bytes hold.
    let ring = Sliding::new(
        "ring",
        (0..12u8)
            .map(|c| vec![(c + 11) % 12, (c + 1) % 12])
            .collect(),
        (1..12).chain([0]).collect(),
    );
    assert!(ring.fast.far.is_none());
    for p in [
        Sliding::grid("g", 2, 6),
        Sliding::grid("g", 3, 3),
        Sliding::grid("g", 2, 7),
        by_columns("g", 7),
        // 16 cells: the prefix fills a word; the 2x8's moves cross 8 tiles.
        Sliding::grid("g", 4, 4),
        Sliding::grid("g", 2, 8),
        Sliding::six(),
        ring,
    ] {
        let n = p.cells() as u64;
        for _ in 0..200 {
            // Runs of nearby ranks, as a chunk of the search gives them, and far ones.
            let start = below(p.size());
            let mut ranks: Vec<u64> = Vec::new();
            for i in 0..36 {
                ranks.push(match i {
                    0..32 => (start + below(4 * n)).min(p.size() - 1),
                    _ => below(p.size()),
                });
            }
            ranks.sort_unstable();
            let (mut out, mut ends) = (Vec::new(), Vec::new());
            p.neighbors_of(&ranks, &mut out, &mut ends);
            let mut want = Vec::new();
            let mut want_ends = Vec::new();
            for &r in &ranks {
                p.neighbors(r, &mut want);
                want_ends.push(want.len());
            }
            assert_eq!((&out, &ends), (&want, &want_ends), "{}x cells", n);
            // The far neighbours and the links between consecutive ranks are every
            // neighbour, each once.
            let (mut far, mut far_ends) = (Vec::new(), Vec::new());
            p.far_neighbors_of(&ranks, &mut far, &mut far_ends);
            let mut from = 0;
            for (i, &r) in ranks.iter().enumerate() {
                let linked = |a: u64| p.run_links(a / 32 * 32) >> (a % 32) & 1 == 1;
                let mut got = far[from..far_ends[i]].to_vec();
                got.extend((r + 1 < p.size() && linked(r)).then_some(r + 1));
                got.extend((r > 0 && linked(r - 1)).then(|| r - 1));
                got.sort_unstable();
                let mut all =
                    want[if i == 0 { 0 } else { want_ends[i - 1] }..want_ends[i]].to_vec();
                all.sort_unstable();
                assert_eq!(got, all, "rank {r} of {n} cells");
                from = far_ends[i];
            }
            let base = start / 32 * 32;
            let odd = p.odd_ranks(base);
            let single: Option<u32> = (0..32)
                .map(|i| p.parity(base + i).map(|b| (b as u32) << i))
                .sum();
            assert_eq!(odd, single);
        }
    }
}

/// The far moves keep what they found of the last prefix a thread saw: a puzzle
/// asked in between must not be answered with another's. The 2x6 and the 2x7 have
/// the same prefix numbers at small ranks, but not the same prefixes; the 2x7 with
/// another goal swaps the last two tiles of other ranks.
#[test]
fn far_neighbours_of_puzzles_asked_in_turn_are_each_their_own() {
    let a = Sliding::grid("a", 2, 7);
    let b = Sliding::new(
        "b",
        a.adjacency.clone(),
        (0..14u8).map(|v| (v + 7) % 14).collect(),
    );
    let c = Sliding::grid("c", 2, 6);
    for base in [0u64, 5040 * 14 * 3 + 17, 1 << 33] {
        for p in [&a, &b, &c, &a, &c, &b] {
            let ranks: Vec<u64> = (0..40)
                .map(|i| (base + 7 * i) % p.size())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let (mut far, mut ends) = (Vec::new(), Vec::new());
            p.far_neighbors_of(&ranks, &mut far, &mut ends);
            let mut from = 0;
            for (i, &r) in ranks.iter().enumerate() {
                let mut all = Vec::new();
                p.neighbors(r, &mut all);
                for nb in &far[from..ends[i]] {
                    assert!(
                        all.contains(nb),
                        "{}: {nb} is not a neighbour of {r}",
                        p.name
                    );
                }
                from = ends[i];
            }
        }
    }
}

/// The 2 x `cols` grid whose rank reads down and up the columns in turn, as
/// `fourteen`'s definition asks.
fn by_columns(name: &str, cols: usize) -> Sliding {
    let order = (0..cols as u8)
        .flat_map(|c| {
            let (top, bottom) = (c, c + cols as u8);
            if c % 2 == 0 {
                [top, bottom]
            } else {
                [bottom, top]
            }
        })
        .collect();
    reordered(&Sliding::grid(name, 2, cols), order)
}

/// `plain` (a puzzle in its notation's order) with its rank reading `order`.
fn reordered(plain: &Sliding, order: Vec<u8>) -> Sliding {
    Sliding::with_rank_order(
        &plain.name,
        plain.adjacency().to_vec(),
        plain.goal_cells(),
        order,
    )
}

/// The 3x3 whose rank reads the cells along the snail (the example `eight-snail`'s
/// order).
fn by_snail() -> Sliding {
    reordered(
        &Sliding::grid("eight", 3, 3),
        vec![0, 1, 2, 5, 8, 7, 6, 3, 4],
    )
}

/// A rank order changes the ranks alone: over the whole 2x4 read by columns and 3x3
/// read along the snail, every rank round-trips through the notation (in the
/// notation's cell order), its neighbours are the notation's swaps, and each
/// position's distance is the row-major puzzle's.
#[test]
fn a_rank_order_changes_the_ranks_alone() {
    for (plain, p) in [
        (Sliding::grid("seven", 2, 4), by_columns("seven", 4)),
        (Sliding::grid("eight", 3, 3), by_snail()),
    ] {
        assert_eq!(p.adjacency(), plain.adjacency());
        assert_eq!(p.format(p.goals()[0]), plain.format(plain.goals()[0]));
        assert_ne!(p.goals(), plain.goals(), "the rank differs");
        assert_eq!(p.definition()["adjacency"], plain.definition()["adjacency"]);
        let order = &p.notation.as_ref().unwrap().order;
        assert_eq!(p.definition()["rank_order"], json!(order));
        assert!(plain.definition().get("rank_order").is_none());
        let (tp, tq) = (solve(&plain, &Silent).unwrap(), solve(&p, &Silent).unwrap());
        assert_eq!(tq.levels, tp.levels);
        let mut cells = vec![0; p.cells()];
        let mut nbs = Vec::new();
        for r in 0..p.size() {
            p.unrank_into(r, &mut cells);
            assert!(p.in_space(&cells));
            assert_eq!(p.rank_of(&cells), r);
            let text = p.format(r);
            assert_eq!(p.parse(&text), Ok(r));
            let q = plain.parse(&text).unwrap();
            assert_eq!(tq.dist[r as usize], tp.dist[q as usize], "{text}");
            nbs.clear();
            p.neighbors(r, &mut nbs);
            let mut swaps = neighbours_by_swapping(&p, r);
            nbs.sort_unstable();
            swaps.sort_unstable();
            assert_eq!(nbs, swaps, "{text}");
        }
    }
}

/// The rule the rank order is chosen by (module docs): a move between the cells
/// `i < j` of the rank order changes the tiles' rank by less than `(n - 1 - i)!`,
/// and read by columns every move of the 2x7 that changes it jumps two tiles (cells
/// three apart), where row-major each jumps six.
#[test]
fn moves_in_rank_order_stay_within_their_digits() {
    for (p, jump) in [(Sliding::grid("g", 2, 7), 7), (by_columns("g", 7), 3)] {
        let n = p.cells() as u64;
        let mut nbs = Vec::new();
        for r in samples(14, 20_000, p.size()) {
            nbs.clear();
            p.neighbors(r, &mut nbs);
            for &nb in &nbs {
                let (i, j) = (r % n, nb % n);
                let (lo, hi) = (i.min(j), i.max(j));
                let dt = (r / n).abs_diff(nb / n);
                assert!(dt <= FACT[(n - 1 - lo) as usize], "{r} -> {nb}");
                assert!(dt == 0 || hi - lo == jump, "{r} -> {nb}");
                assert_eq!(dt == 0, hi - lo == 1, "{r} -> {nb}");
            }
        }
    }
}

fn all() -> Vec<Sliding> {
    vec![
        Sliding::six(),
        Sliding::grid("seven", 2, 4),
        Sliding::grid("eight", 3, 3),
    ]
}

#[test]
fn boards_above_ten_cells_are_written_as_comma_separated_numbers() {
    let p = Sliding::grid("eleven", 3, 4);
    let cells: Vec<u8> = (0..12).rev().collect();
    let text = p.format_cells(&cells);
    assert_eq!(text, "11,10,9,8,7,6,5,4,3,2,1,0");
    assert_eq!(p.parse_cells(&text).unwrap(), cells);
}

#[test]
fn rank_unrank_round_trips_over_whole_spaces() {
    for p in all() {
        let mut cells = vec![0; p.cells()];
        for r in 0..p.size() {
            p.unrank_into(r, &mut cells);
            assert!(p.in_space(&cells));
            assert_eq!(p.rank_of(&cells), r, "{} rank {r}", p.name);
            assert_eq!(p.parse(&p.format(r)), Ok(r));
        }
    }
}

/// A fixed pseudo-random sequence (SplitMix64), so sampled tests are reproducible.
fn samples(seed: u64, count: usize, below: u64) -> impl Iterator<Item = u64> {
    let mut x = seed;
    (0..count).map(move |_| {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % below
    })
}

/// Neighbours of the unranked arrangement, found the slow way: swap and rank.
fn neighbours_by_swapping(p: &Sliding, r: u64) -> Vec<u64> {
    let cells = p.unrank(r);
    let blank = cells.iter().position(|&v| v == 0).unwrap();
    p.adjacency()[blank]
        .iter()
        .map(|&c| {
            let mut next = cells.clone();
            next.swap(blank, c as usize);
            p.rank_of(&next)
        })
        .collect()
}

#[test]
fn sampled_ranks_of_the_larger_grids() {
    for (name, rows, cols, size) in [
        ("nine", 2, 5, 1_814_400),
        ("eleven", 3, 4, 239_500_800),
        ("twelve", 2, 6, 239_500_800),
    ] {
        let p = Sliding::grid(name, rows, cols);
        assert_eq!(p.size(), size);
        let corners = [0, 1, size - 2, size - 1];
        let mut cells = vec![0; p.cells()];
        let mut nbs = Vec::new();
        for r in samples(7, 20_000, size).chain(corners) {
            p.unrank_into(r, &mut cells);
            assert!(p.in_space(&cells), "{name} rank {r}");
            assert_eq!(p.rank_of(&cells), r, "{name} rank {r}");
            let text = p.format(r);
            assert_eq!(text.contains(','), p.cells() > 10, "{text}");
            assert_eq!(p.parse(&text), Ok(r));
            nbs.clear();
            p.neighbors(r, &mut nbs);
            assert_eq!(nbs, neighbours_by_swapping(&p, r), "{name} rank {r}");
            for &nb in &nbs {
                assert!(nb < size);
                // A move within a row changes only the blank digit.
                if (nb / p.cells() as u64) == (r / p.cells() as u64) {
                    assert_eq!(nb.abs_diff(r), 1);
                }
            }
        }
        // The goal's tiles are in order (t = 0) with the blank in the last cell.
        assert_eq!(p.goals(), vec![p.cells() as u64 - 1]);
    }
}

/// Runs of consecutive ranks, as the solver visits them: a thread's cached block and
/// prefix of Lehmer digits are reused across blocks, and across a prefix boundary.
#[test]
fn neighbours_of_consecutive_ranks() {
    for (name, rows, cols) in [("eleven", 3, 4), ("twelve", 2, 6), ("nine", 2, 5)] {
        let p = Sliding::grid(name, rows, cols);
        let per_prefix = FACT[LOW_DIGITS] / 2 * p.cells() as u64;
        let mut nbs = Vec::new();
        for start in [0, per_prefix - 300, 7 * per_prefix + 11, p.size() - 600] {
            for r in start..start + 600 {
                nbs.clear();
                p.neighbors(r, &mut nbs);
                assert_eq!(nbs, neighbours_by_swapping(&p, r), "{name} rank {r}");
            }
        }
    }
}

#[test]
fn runs_are_the_rows_of_a_rectangle() {
    assert_eq!(
        Sliding::grid("eleven", 3, 4).runs(),
        [(0, 4), (4, 4), (8, 4)]
    );
    assert_eq!(Sliding::grid("nine", 2, 5).runs(), [(0, 5), (5, 5)]);
    assert_eq!(Sliding::grid("twelve", 2, 6).runs(), [(0, 6), (6, 6)]);
    // The hexagon: 0-1, 2-3-4 and 5-6 (1-2 and 4-5 are not adjacent).
    assert_eq!(Sliding::six().runs(), [(0, 2), (2, 3), (5, 2)]);
}

#[test]
fn parity_split_is_detected_from_the_graph() {
    assert!(!Sliding::six().is_bipartite());
    assert!(Sliding::grid("seven", 2, 4).is_bipartite());
    let eight = Sliding::grid("eight", 3, 3);
    assert!(eight.is_bipartite());
    assert_eq!(eight.size(), 181_440);
    assert!(matches!(
        eight.parse("123456870"),
        Err(StateError::Unsolvable { .. })
    ));
}

#[test]
fn seed_figures() {
    let six = Sliding::six();
    let t = solve(&six, &Silent).unwrap();
    assert_eq!(t.reached(), 5040);
    assert_eq!(t.dist[six.parse("1526340").unwrap() as usize], 11);
    assert_eq!((t.max_distance(), *t.levels.last().unwrap()), (15, 24));

    let seven = Sliding::grid("seven", 2, 4);
    let t = solve(&seven, &Silent).unwrap();
    assert_eq!((t.max_distance(), *t.levels.last().unwrap()), (36, 1));
    assert_eq!(t.dist[seven.parse("07214365").unwrap() as usize], 36);

    let eight = Sliding::grid("eight", 3, 3);
    let t = solve(&eight, &Silent).unwrap();
    let r = eight.parse("867254301").unwrap() as usize;
    assert_eq!((t.dist[r], t.count[r]), (31, 40));
    assert!(t.dist.iter().all(|&d| d != UNREACHED));
}
