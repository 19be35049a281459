use super::*;
use puzzlebase_core::progress::Silent;

/// A chain of `k` diamonds: 2^k shortest paths from one end to the other.
struct Diamonds(u64);
impl StateSpace for Diamonds {
    fn size(&self) -> u64 {
        3 * self.0 + 1
    }
    fn goals(&self) -> Vec<u64> {
        vec![0]
    }
    // Node 3i is a junction; 3i+1 and 3i+2 both join it to junction 3i+3.
    fn neighbors(&self, r: u64, out: &mut Vec<u64>) {
        match r % 3 {
            0 => {
                if r > 0 {
                    out.extend([r - 2, r - 1]);
                }
                if r + 3 <= 3 * self.0 {
                    out.extend([r + 1, r + 2]);
                }
            }
            1 => out.extend([r - 1, r + 2]),
            _ => out.extend([r - 2, r + 1]),
        }
    }
}

#[test]
fn counts_paths_and_detects_overflow() {
    let t = solve(&Diamonds(10), &Silent).unwrap();
    assert_eq!(t.dist[30], 20);
    assert_eq!(t.count[30], 1 << 10);
    assert_eq!(t.next[30], 28);
    assert_eq!(t.overflowed, 0);

    let t = solve(&Diamonds(70), &Silent).unwrap();
    assert_eq!(t.count[3 * 62], 1 << 62);
    assert_eq!(t.count[3 * 63], COUNT_OVERFLOW, "2^63 exceeds i64::MAX");
    assert_eq!(t.count[3 * 70], COUNT_OVERFLOW);
    assert!(t.overflowed > 0);
}

#[test]
fn unreachable_ranks_stay_unreached() {
    struct TwoIslands;
    impl StateSpace for TwoIslands {
        fn size(&self) -> u64 {
            4
        }
        fn goals(&self) -> Vec<u64> {
            vec![0]
        }
        fn neighbors(&self, r: u64, out: &mut Vec<u64>) {
            out.push(r ^ 1);
        }
    }
    let t = solve(&TwoIslands, &Silent).unwrap();
    assert_eq!(t.dist, vec![0, 1, UNREACHED, UNREACHED]);
    assert_eq!(t.count, vec![1, 1, 0, 0]);
    assert_eq!(t.levels, vec![1, 1]);
}

/// A path of `n` ranks, goal at 0, plus one rank no move reaches.
struct Path(u64);
impl StateSpace for Path {
    fn size(&self) -> u64 {
        self.0 + 1
    }
    fn goals(&self) -> Vec<u64> {
        vec![0]
    }
    fn neighbors(&self, r: u64, out: &mut Vec<u64>) {
        if r >= self.0 {
            return;
        }
        if r > 0 {
            out.push(r - 1);
        }
        if r + 1 < self.0 {
            out.push(r + 1);
        }
    }
}

#[test]
fn a_search_past_254_goes_on_over_wide_distances() {
    // 1,200 ranks on a path: distances 0..1199, levels pushed and pulled alike.
    let Solved::Wide(t) = solve_any(&Path(1200), Outputs::ALL, &Silent).unwrap() else {
        panic!("distances past 254 need the wide table");
    };
    assert_eq!(t.dist[..1200], (0..1200).collect::<Vec<u32>>());
    assert_eq!(t.dist[1200], WIDE_UNREACHED);
    assert_eq!(t.levels, vec![1; 1200]);
    assert_eq!(t.next[700], 699);
    assert_eq!(t.count[1199], 1);
    // 254 ranks end at distance 253: one byte, as every table had before.
    assert!(matches!(
        solve_any(&Path(254), Outputs::DISTANCES, &Silent).unwrap(),
        Solved::Narrow(_)
    ));
    // A level at 254 widens the table (expanding it could reach 255, "unreached").
    let Solved::Wide(t) = solve_any(&Path(256), Outputs::DISTANCES, &Silent).unwrap() else {
        panic!("distance 255 needs the wide table");
    };
    assert_eq!(t.dist[255], 255);
    // The one-byte solver refuses rather than wrapping.
    assert!(matches!(
        solve_with(&Path(255), Outputs::ALL, &Silent),
        Err(SolveError::TooDeep { max: 254 })
    ));
}

/// Progress that adds up what it is told.
#[derive(Default)]
struct Tally(std::sync::atomic::AtomicU64, std::sync::atomic::AtomicU64);
impl Progress for Tally {
    fn phase(&self, _: &str, total: u64) {
        self.0.store(total, Relaxed);
    }
    fn advance(&self, n: u64) {
        self.1.fetch_add(n, Relaxed);
    }
}

#[test]
fn progress_ends_at_the_total_with_unreached_ranks() {
    // Path(300) has one rank no move reaches, and goes past a byte on the way.
    for space in [Path(300), Path(20)] {
        let tally = Tally::default();
        solve_any(&space, Outputs::ALL, &tally).unwrap();
        assert_eq!(tally.1.load(Relaxed), tally.0.load(Relaxed));
        assert_eq!(tally.0.load(Relaxed), space.size());
    }
}

#[test]
fn distances_alone_are_the_same_distances() {
    let full = solve(&Diamonds(12), &Silent).unwrap();
    let bare = solve_with(&Diamonds(12), Outputs::DISTANCES, &Silent).unwrap();
    assert_eq!(bare.dist, full.dist);
    assert_eq!(bare.levels, full.levels);
    assert!(bare.next.is_empty() && bare.count.is_empty());
    assert_eq!(bare.overflowed, 0);
}
