//! Tests of `solvers::search`.

use super::*;
use crate::bfs::{self, Outputs};
use crate::pattern::{Entry, Grid, Pattern, PatternTable, build};
use puzzlebase_core::progress::Silent;
use puzzlebase_core::space::StateSpace;
use puzzlebase_families::sliding::Sliding;

fn eight_heuristic(reflect: bool) -> Heuristic {
    let g = Grid::new(3, 3);
    let patterns: Vec<Pattern> = [&[1u8, 2, 4, 5][..], &[3, 6, 7, 8]]
        .iter()
        .map(|t| Pattern::new(g.clone(), t).unwrap())
        .collect();
    let tables = patterns
        .iter()
        .map(|p| build(p, &Silent).unwrap())
        .collect();
    Heuristic::new(patterns, tables, reflect).unwrap()
}

/// Every 400th position of the 8-puzzle, with and without the reflected lookup and
/// with every search option: the search's lengths are the breadth-first distances, and the paths are real.
#[test]
fn optimal_on_the_eight_puzzle() {
    let eight = Sliding::grid("eight", 3, 3);
    let full = bfs::solve_with(&eight, Outputs::DISTANCES, &Silent).unwrap();
    let all = [
        Options::PLAIN,
        Options::FEWER_NODES,
        Options::ORDERED,
        Options::QUERY,
        Options::DUAL,
        Options {
            ordered: false,
            pathmax: true,
            parallel: true,
            dual: false,
        },
        Options {
            parallel: true,
            ..Options::DUAL
        },
        Options {
            ordered: false,
            pathmax: false,
            parallel: false,
            dual: true,
        },
    ];
    for (reflect, opts) in [false, true].into_iter().flat_map(|r| all.map(|o| (r, o))) {
        let h = eight_heuristic(reflect);
        for r in (0..eight.size()).step_by(400) {
            let cells = eight.unrank(r);
            assert!(h.estimate(&cells) <= full.dist[r as usize] as u32);
            let s = solve_with(&h, &cells, opts).unwrap();
            assert_eq!(s.length, full.dist[r as usize] as u32, "rank {r}");
            let path = replay(&h, &cells, &s.blanks).unwrap();
            assert_eq!(path.last().unwrap(), &[1, 2, 3, 4, 5, 6, 7, 8, 0]);
            assert_eq!(*s.iterations.last().unwrap(), s.length);
            if opts.parallel {
                // Handed out in depth-first order: the one-thread search's solution.
                let one = Options {
                    parallel: false,
                    ..opts
                };
                assert_eq!(s.blanks, solve_with(&h, &cells, one).unwrap().blanks);
            }
        }
    }
}

/// The dual lookups (on the board and on its reflection) never exceed the distance,
/// on every position of the 8-puzzle with two different partitions; they exceed the
/// ordinary lookups somewhere (else they would be useless); and the term they leave
/// out, that of the pattern holding the tile whose home the blank is in, is needed:
/// kept, the sum exceeds the distance somewhere.
#[test]
fn dual_lookups_never_exceed_the_distance() {
    let eight = Sliding::grid("eight", 3, 3);
    let full = bfs::solve_with(&eight, Outputs::DISTANCES, &Silent).unwrap();
    let g = Grid::new(3, 3);
    for parts in [
        &[&[1u8, 2, 4, 5][..], &[3, 6, 7, 8]][..],
        &[&[1u8, 2, 3][..], &[4, 5, 6], &[7, 8]],
    ] {
        let patterns: Vec<Pattern> = (parts.iter())
            .map(|t| Pattern::new(g.clone(), t).unwrap())
            .collect();
        let tables = (patterns.iter())
            .map(|p| build(p, &Silent).unwrap())
            .collect();
        let h = Heuristic::new(patterns, tables, true).unwrap();
        let (mut above, mut unsound) = (0, 0);
        for r in 0..eight.size() {
            let cells = eight.unrank(r);
            let d = full.dist[r as usize] as u32;
            let blank = cells.iter().position(|&c| c == 0).unwrap() as u8;
            let dual = h.dual(&cells, blank);
            let regular = h.estimate(&cells);
            assert!(dual <= d, "{cells:?}: dual {dual} > {d}");
            assert!(same_parity(dual, regular) <= d, "{cells:?}");
            above += (dual > regular) as u32;
            // The same lookups without leaving out the lost pattern.
            let mut all = 0;
            for (j, p) in h.patterns.iter().enumerate() {
                let at: Vec<u8> = (p.tiles().iter())
                    .map(|&t| match cells[t as usize - 1] {
                        0 => 8,
                        c => c - 1,
                    })
                    .collect();
                let occupied = at.iter().fold(0u16, |m, &c| m | 1 << c);
                all += h.bound(j as u8, p.rank(&at), occupied, 8);
            }
            unsound += (all > d) as u32;
        }
        assert!(above > 0, "{parts:?}");
        assert!(unsound > 0, "{parts:?}");
    }
}

/// A search past its deadline, or cancelled, gives up at once, on one thread or all;
/// one that needs no node (the goal) still answers.
#[test]
fn a_stopped_search_gives_up_and_says_why() {
    let eight = Sliding::grid("eight", 3, 3);
    let h = eight_heuristic(true);
    let far = eight.unrank(eight.size() / 2);
    let past = Stop::new(Some(Instant::now()));
    for opts in [Options::ORDERED, Options::QUERY] {
        assert_eq!(solve_until(&h, &far, opts, &past), Err(Stopped::Deadline));
        let cancelled = Stop::new(None);
        cancelled.cancel();
        assert_eq!(
            solve_until(&h, &far, opts, &cancelled),
            Err(Stopped::Cancelled)
        );
        let goal = [1, 2, 3, 4, 5, 6, 7, 8, 0];
        assert_eq!(
            solve_until(&h, &goal, opts, &past).unwrap().unwrap().length,
            0
        );
        let later = Stop::new(Some(Instant::now() + std::time::Duration::from_secs(60)));
        let s = solve_until(&h, &far, opts, &later).unwrap().unwrap();
        let t = solve_with(&h, &far, opts).unwrap();
        assert_eq!((s.length, s.blanks), (t.length, t.blanks));
    }
}

#[test]
fn reflection_relabels_tiles_by_their_mirrored_home() {
    let h = eight_heuristic(true);
    // 3x3: tile 2 (home cell 1) <-> tile 4 (home cell 3); 5 and 9's cell stay.
    assert_eq!(h.relabel[2], 4);
    assert_eq!(h.relabel[4], 2);
    assert_eq!(h.relabel[5], 5);
    assert_eq!(h.mirror[8], 8);
    // The goal and its reflection both estimate 0.
    assert_eq!(h.estimate(&[1, 2, 3, 4, 5, 6, 7, 8, 0]), 0);
}

#[test]
fn partitions_must_cover_every_tile_once() {
    let g = Grid::new(3, 3);
    let p = |t: &[u8]| Pattern::new(g.clone(), t).unwrap();
    let a = p(&[1, 2, 3, 4]);
    let b = p(&[4, 5, 6, 7, 8]);
    let zeros = |p: &Pattern| PatternTable {
        entry: Entry::Minimum,
        bytes: vec![0; p.placements() as usize],
    };
    let (ta, tb) = (zeros(&a), zeros(&b));
    assert!(Heuristic::new(vec![a.clone(), b], vec![ta.clone(), tb], true).is_err());
    let c = p(&[5, 6, 7]);
    let tc = zeros(&c);
    assert!(Heuristic::new(vec![a, c], vec![ta, tc], true).is_err());
}

/// Tables of nothing but zeros for the patterns `tiles` of the 4x4 (allocated zeroed,
/// so the large ones cost no memory until read).
fn zero_heuristic(tiles: &[&[u8]], reflect: bool) -> Heuristic {
    let g = Grid::new(4, 4);
    let patterns: Vec<Pattern> = tiles
        .iter()
        .map(|t| Pattern::new(g.clone(), t).unwrap())
        .collect();
    let tables = patterns
        .iter()
        .map(|p| PatternTable {
            entry: Entry::LargestRegion,
            bytes: vec![0u8; p.placements() as usize],
        })
        .collect();
    Heuristic::new(patterns, tables, reflect).unwrap()
}

/// The ranks updated move by move (on the board and on its reflection) equal the
/// ranks computed afresh from the whole board, along random walks with the 6-6-3 and
/// 7-8 patterns; and undoing every move restores the start.
#[test]
fn incremental_ranks_equal_full_ranks() {
    let parts: [&[&[u8]]; 2] = [
        &[&[1, 2, 5, 6, 9, 10], &[3, 4, 7, 8, 11, 12], &[13, 14, 15]],
        &[&[1, 2, 3, 4, 5, 6, 7, 8], &[9, 10, 11, 12, 13, 14, 15]],
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for tiles in parts {
        let h = zero_heuristic(tiles, true);
        let goal: Vec<u8> = (1..16).chain([0]).collect();
        let mut s = Search::new(&h, &goal, Options::FEWER_NODES);
        let mut done = Vec::new();
        for _ in 0..3000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let moves = &h.adjacent[s.pos[0] as usize];
            let k = s.child(moves[(seed % moves.len() as u64) as usize]);
            let saved = s.apply(&k);
            done.push((k, saved));
            let fresh = Search::new(&h, &s.cells[..16], Options::FEWER_NODES);
            assert_eq!(fresh.ranks, s.ranks, "{:?}", &s.cells[..16]);
            assert_eq!(fresh.mirrored, s.mirrored, "{:?}", &s.cells[..16]);
            assert_eq!(fresh.occupied, s.occupied, "{:?}", &s.cells[..16]);
            assert_eq!(fresh.mirrored_occupied, s.mirrored_occupied);
            assert_eq!(fresh.pos, s.pos);
        }
        while let Some((k, saved)) = done.pop() {
            s.undo(&k, saved);
        }
        let start = Search::new(&h, &goal, Options::FEWER_NODES);
        assert_eq!(
            (start.cells, start.ranks, start.mirrored),
            (s.cells, s.ranks, s.mirrored)
        );
        assert_eq!(
            (start.occupied, start.mirrored_occupied),
            (s.occupied, s.mirrored_occupied)
        );
    }
}

/// The calibration of the node counts: with Manhattan distance as the bound (fifteen
/// patterns of one tile each, whose tables are exactly each tile's distance), the
/// plain search generates, on Korf's instances 12, 79 and 97, the nodes Korf's 1985
/// table gives for them (546,344, 540,860 and 1,002,927), counting the start as he
/// does. So `generated` counts what the literature counts.
#[test]
fn plain_search_generates_korfs_published_node_counts() {
    let g = Grid::new(4, 4);
    let patterns: Vec<Pattern> = (1..16u8)
        .map(|t| Pattern::new(g.clone(), &[t]).unwrap())
        .collect();
    let tables = patterns
        .iter()
        .map(|p| build(p, &Silent).unwrap())
        .collect();
    let h = Heuristic::new(patterns, tables, false).unwrap();
    let cases: [(u32, u32, u32, u64, [u8; 16]); 3] = [
        (
            12,
            35,
            45,
            546_344,
            [14, 1, 9, 6, 4, 8, 12, 5, 7, 2, 3, 0, 10, 11, 13, 15],
        ),
        (
            79,
            28,
            42,
            540_860,
            [0, 1, 9, 7, 11, 13, 5, 3, 14, 12, 4, 2, 8, 6, 10, 15],
        ),
        (
            97,
            32,
            44,
            1_002_927,
            [9, 14, 5, 7, 8, 15, 1, 2, 10, 4, 13, 6, 12, 0, 11, 3],
        ),
    ];
    for (id, manhattan, length, published, korf) in cases {
        let cells = puzzlebase_families::fifteen::from_korf(&korf);
        assert_eq!(h.estimate(&cells), manhattan, "instance {id}");
        let plain = solve_with(&h, &cells, Options::PLAIN).unwrap();
        assert_eq!(plain.length, length, "instance {id}");
        assert_eq!(plain.generated + 1, published, "instance {id}");
        let best = solve_with(&h, &cells, Options::FEWER_NODES).unwrap();
        assert_eq!(best.length, length, "instance {id}");
    }
}
