use super::*;
use crate::core::progress::Silent;
use crate::families::sliding::Sliding;
use crate::solvers::bfs;

/// A share's tables laid end to end, as process 0 would assemble them.
fn assemble(shares: Vec<Share>) -> (Vec<u8>, Vec<u32>, Vec<u64>, Vec<u64>) {
    let levels = shares[0].levels.clone();
    let (mut dist, mut next, mut count) = (Vec::new(), Vec::new(), Vec::new());
    for s in shares {
        assert_eq!(s.levels, levels, "every process agrees on the levels");
        dist.extend(s.dist);
        next.extend(s.next);
        count.extend(s.count);
    }
    (dist, next, count, levels)
}

#[test]
fn partitions_cover_the_ranks_in_granules() {
    for (ranks, p, g) in [
        (181_440, 3, 4000),
        (10, 4, 1),
        (5, 3, 8),
        (0, 2, 1),
        (7, 1, 3),
    ] {
        let part = Partition::new(ranks, p, g);
        let mut next = 0;
        for q in 0..p {
            let r = part.share(q);
            assert_eq!(r.start, next);
            assert!(r.start.is_multiple_of(g) || r.is_empty());
            for x in r.clone() {
                assert_eq!(part.owner(x), q);
            }
            next = r.end;
        }
        assert_eq!(next, ranks);
    }
}

/// The distributed search gives the plain solver's tables, rank for rank, on one, two
/// and three processes: distances, next ranks, counts and levels.
#[test]
fn any_number_of_processes_gives_the_plain_tables() {
    let nine = Sliding::grid("eight", 3, 3);
    let plain = bfs::solve(&nine, &Silent).unwrap();
    for procs in [1, 2, 3] {
        let shares = Threads::run(procs, |comm| {
            solve(&nine, Outputs::ALL, 1000, comm, None, &Silent).unwrap()
        });
        assert!(shares.iter().all(|s| s.resumed == 0));
        let (dist, next, count, levels) = assemble(shares);
        assert_eq!(levels, plain.levels, "{procs} processes");
        assert_eq!(dist, plain.dist, "{procs} processes");
        assert_eq!(next, plain.next, "{procs} processes");
        assert_eq!(count, plain.count, "{procs} processes");
    }
    let bare = Threads::run(2, |comm| {
        solve(&nine, Outputs::DISTANCES, 1, comm, None, &Silent).unwrap()
    });
    assert!(
        bare[0]
            .exchanges
            .iter()
            .any(|e| e.bytes > 0 && e.entries > 0)
    );
    let (dist, next, count, _) = assemble(bare);
    assert_eq!(dist, plain.dist);
    assert!(next.is_empty() && count.is_empty());
}

/// A run cut off after some level resumes from it to the same tables; a checkpoint of
/// another process count or another problem is refused, by every process.
#[test]
fn a_checkpointed_run_resumes_to_the_same_tables() {
    let eight = Sliding::grid("eight", 3, 3);
    let plain = bfs::solve(&eight, &Silent).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("eight");
    let run = |procs: usize, resume: bool| {
        Threads::run(procs, |comm| {
            let c = Checkpoint { dir: &dir, resume };
            solve(&eight, Outputs::ALL, 1, comm, Some(c), &Silent)
        })
    };
    let full: Vec<Share> = run(2, false).into_iter().map(Result::unwrap).collect();
    assert_eq!(full[0].levels, plain.levels);
    // As if killed while writing level 13: process 1 has it, process 0 does not.
    for d in 13..=31 {
        let _ = std::fs::remove_file(dir.join(format!("p0of2/level-{d}")));
    }
    for d in 14..=31 {
        let _ = std::fs::remove_file(dir.join(format!("p1of2/level-{d}")));
    }
    // A damaged level counts as missing: process 1's level 12 is flipped, so both
    // continue from level 11.
    let l12 = dir.join("p1of2/level-12");
    let mut bytes = std::fs::read(&l12).unwrap();
    bytes[25] ^= 1;
    std::fs::write(&l12, bytes).unwrap();
    let resumed: Vec<Share> = run(2, true).into_iter().map(Result::unwrap).collect();
    assert_eq!(resumed[0].resumed, 11);
    let (dist, next, count, levels) = assemble(resumed);
    assert_eq!(
        (dist, next, count, levels),
        (plain.dist, plain.next, plain.count, plain.levels)
    );

    for r in run(3, true) {
        let Err(DistError::Resume(why)) = r else {
            panic!("three processes resumed two's checkpoint")
        };
        assert!(why.contains("written by 2 processes"), "{why}");
    }
    let other = Threads::run(2, |comm| {
        let c = Checkpoint {
            dir: &dir,
            resume: true,
        };
        solve(&eight, Outputs::DISTANCES, 1, comm, Some(c), &Silent)
    });
    assert!(other.iter().all(|r| matches!(r, Err(DistError::Resume(_)))));
    // Started afresh (no --resume), the old files are replaced.
    let fresh: Vec<Share> = run(2, false).into_iter().map(Result::unwrap).collect();
    assert_eq!(fresh[0].resumed, 0);
    Threads::run(2, |comm| remove_checkpoint(&dir, comm).unwrap());
    assert!(!dir.exists());
}
