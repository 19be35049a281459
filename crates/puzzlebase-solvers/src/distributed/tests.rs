use super::*;
use crate::bfs;
use puzzlebase_core::progress::Silent;
use puzzlebase_families::sliding::Sliding;

/// A share's tables laid end to end, as process 0 would assemble them.
fn assemble(shares: Vec<Share>) -> (Distances, Vec<u32>, Vec<u64>, Vec<u64>) {
    let levels = shares[0].levels.clone();
    let (mut dist, mut next, mut count) = (None, Vec::new(), Vec::new());
    for s in shares {
        assert_eq!(s.levels, levels, "every process agrees on the levels");
        dist = Some(match (dist, s.dist) {
            (None, d) => d,
            (Some(Distances::Narrow(mut a)), Distances::Narrow(b)) => {
                a.extend(b);
                Distances::Narrow(a)
            }
            (Some(Distances::Wide(mut a)), Distances::Wide(b)) => {
                a.extend(b);
                Distances::Wide(a)
            }
            _ => panic!("the processes disagree on the width of the distances"),
        });
        next.extend(s.next);
        count.extend(s.count);
    }
    (dist.unwrap(), next, count, levels)
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
        let mut next_chunk = 0;
        for q in 0..p {
            let c = part.chunks(q, g);
            if !c.is_empty() {
                assert_eq!(c.start, next_chunk, "each share's chunks follow the last's");
                next_chunk = c.end;
            }
            let r = part.share(q);
            assert_eq!(r.start, next);
            assert!(r.start.is_multiple_of(g) || r.is_empty());
            for x in r.clone() {
                assert_eq!(part.owner(x), q);
            }
            next = r.end;
        }
        assert_eq!(next, ranks);
        assert_eq!(next_chunk, ranks.div_ceil(g));
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
        assert_eq!(
            dist,
            Distances::Narrow(plain.dist.clone()),
            "{procs} processes"
        );
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
    assert_eq!(dist, Distances::Narrow(plain.dist));
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
        (
            Distances::Narrow(plain.dist),
            plain.next,
            plain.count,
            plain.levels
        )
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

/// The two-bit search across processes gives the one-process table, code for code: each
/// share's chunks laid end to end are the whole table's, with the same levels and
/// farthest ranks; a graph that is not bipartite is left to the one-process search.
#[test]
fn two_bit_shares_are_the_one_process_table() {
    use crate::twobit;
    use puzzlebase_core::packed::{CODE_RANKS_PER_CHUNK, CodeLayout};
    for g in [Sliding::grid("eight", 3, 3), Sliding::grid("nine", 2, 5)] {
        let whole = twobit::solve(&g, &Silent).unwrap();
        assert_eq!(whole.modulus, 4);
        let layout = CodeLayout::new(g.size(), 4).unwrap();
        let (levels, farthest) = (whole.levels.clone(), whole.farthest.clone());
        let want: Vec<Vec<u8>> = layout.chunks_from_blocks(0, whole.blocks).collect();
        for procs in [1, 2, 3] {
            let shares = Threads::run(procs, |comm| {
                super::twobit::solve_share(&g, CODE_RANKS_PER_CHUNK, comm, None, &Silent)
                    .unwrap()
                    .expect("a rectangle is bipartite and connected")
            });
            let mut got = Vec::new();
            for (p, s) in shares.into_iter().enumerate() {
                assert_eq!(s.levels, levels, "{} on {procs} processes", g.size());
                let want_far = if p == 0 { &farthest[..] } else { &[] };
                assert_eq!(s.farthest, want_far, "{} on {procs} processes", g.size());
                let first = s.range.start / CODE_RANKS_PER_CHUNK;
                assert_eq!(first, got.len() as u64, "shares start on their chunk");
                got.extend(layout.chunks_from_blocks(first, s.blocks));
                assert_eq!(s.exchanges.len(), levels.len());
                if procs == 1 {
                    assert!(s.exchanges.iter().all(|e| e.bytes == 0 && e.entries == 0));
                }
            }
            assert_eq!(got, want, "{} on {procs} processes", g.size());
        }
    }
    // The hexagonal six has triangles: the mod-4 code does not apply.
    let six = crate::twobit::tests::hexagonal_six();
    let none = Threads::run(2, |comm| {
        super::twobit::solve_share(&six, CODE_RANKS_PER_CHUNK, comm, None, &Silent).unwrap()
    });
    assert!(none.iter().all(Option::is_none));
}

/// A two-bit search that stops (a process cannot write its snapshot of level 20)
/// resumes from the last snapshot both processes have, level 19, to the same table; a
/// damaged snapshot is refused, not used.
#[test]
fn a_two_bit_search_resumes_from_its_snapshots() {
    use puzzlebase_core::packed::CODE_RANKS_PER_CHUNK;
    let g = Sliding::grid("nine", 2, 5);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("unit");
    let run = |c: Option<bool>| {
        Threads::run(2, |comm| {
            let c = c.map(|resume| Checkpoint { dir: &dir, resume });
            super::twobit::solve_share(&g, CODE_RANKS_PER_CHUNK, comm, c, &Silent)
        })
    };
    let plain: Vec<_> = run(None).into_iter().map(|s| s.unwrap().unwrap()).collect();
    // A whole run leaves its meta and the last level's snapshot; start again from
    // nothing but the meta, with process 1's level 20 blocked by a directory.
    for s in run(Some(false)) {
        s.unwrap().unwrap();
    }
    for p in ["p0of2", "p1of2"] {
        for e in std::fs::read_dir(dir.join(p)).unwrap() {
            let e = e.unwrap();
            if e.file_name().to_string_lossy().starts_with("snapshot-") {
                std::fs::remove_file(e.path()).unwrap();
            }
        }
    }
    std::fs::create_dir_all(dir.join("p1of2/snapshot-20/x")).unwrap();
    let failed = run(Some(true));
    for r in &failed {
        let e = r.as_ref().err().expect("the search stops").to_string();
        assert!(e.contains("checkpoint"), "{e}");
    }
    std::fs::remove_dir_all(dir.join("p1of2/snapshot-20")).unwrap();
    let resumed: Vec<_> = run(Some(true))
        .into_iter()
        .map(|s| s.unwrap().unwrap())
        .collect();
    for (a, b) in resumed.iter().zip(&plain) {
        assert_eq!(a.resumed, 19);
        assert_eq!(a.exchanges.len(), a.levels.len() - 19);
        assert_eq!(
            (&a.levels, &a.farthest, &a.blocks),
            (&b.levels, &b.farthest, &b.blocks)
        );
    }
    // Damage process 0's last snapshot: the resume is refused on both processes.
    let p0 = dir.join("p0of2");
    let snap = std::fs::read_dir(&p0)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("snapshot-")
        })
        .unwrap();
    let mut bytes = std::fs::read(&snap).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x10;
    std::fs::write(&snap, bytes).unwrap();
    let refused = run(Some(true));
    let e = refused[0].as_ref().err().unwrap().to_string();
    assert!(e.contains("damaged"), "{e}");
    assert!(refused[1].is_err());
}

fn hanoi(discs: usize) -> puzzlebase_families::hanoi::Hanoi {
    use puzzlebase_core::{definition::Source, format::GraphAsk};
    puzzlebase_families::hanoi::Hanoi::new("t", 3, discs, GraphAsk::BySize, Source::default())
}

/// Past distance 254 the shares widen to four bytes a rank, as one process's table does:
/// three-peg Hanoi with 8 discs (farthest 255 moves, one level past the byte) and 9
/// (511) gives the tables of [`bfs::solve_any`] on one, two and three processes, with
/// every output and with distances alone; 7 discs (127) keeps its bytes.
#[test]
fn a_search_past_254_widens_to_the_plain_tables() {
    for discs in [7, 8, 9] {
        let h = hanoi(discs);
        let plain = bfs::solve_any(&h, Outputs::ALL, &Silent).unwrap();
        assert_eq!(plain.max_distance(), (1 << discs) - 1);
        let want = match &plain {
            bfs::Solved::Narrow(t) => Distances::Narrow(t.dist.clone()),
            bfs::Solved::Wide(t) => Distances::Wide(t.dist.clone()),
        };
        assert_eq!(matches!(want, Distances::Wide(_)), discs > 7);
        for procs in [1, 2, 3] {
            let shares = Threads::run(procs, |comm| {
                solve(&h, Outputs::ALL, 1000, comm, None, &Silent).unwrap()
            });
            assert!(
                shares
                    .iter()
                    .all(|s| s.max_distance() == plain.max_distance())
            );
            let (dist, next, count, levels) = assemble(shares);
            let at = format!("{discs} discs, {procs} processes");
            assert_eq!(levels, plain.levels(), "{at}");
            assert_eq!(dist, want, "{at}");
            assert_eq!(next, plain.next(), "{at}");
            assert_eq!(count, plain.count(), "{at}");
            let bare = Threads::run(procs, |comm| {
                solve(&h, Outputs::DISTANCES, 243, comm, None, &Silent).unwrap()
            });
            let (dist, next, count, _) = assemble(bare);
            assert_eq!(dist, want, "{at}, distances alone");
            assert!(next.is_empty() && count.is_empty());
        }
    }
}

/// A wide search resumes from its checkpoint to the plain tables, whether it stopped
/// before the widening (level 200) or after it (level 300, whose bytes are widened as
/// the levels are loaded); a level written with cells of another width is refused.
#[test]
fn a_wide_search_resumes_across_the_widening() {
    let h = hanoi(9);
    let Ok(bfs::Solved::Wide(plain)) = bfs::solve_any(&h, Outputs::ALL, &Silent) else {
        panic!("nine discs need more than a byte");
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("hanoi");
    let run = |resume: bool| {
        Threads::run(2, |comm| {
            let c = Checkpoint { dir: &dir, resume };
            solve(&h, Outputs::ALL, 1, comm, Some(c), &Silent)
        })
    };
    let cut = |after: u32| {
        for p in ["p0of2", "p1of2"] {
            for d in after + 1..=511 {
                let _ = std::fs::remove_file(dir.join(format!("{p}/level-{d}")));
            }
        }
    };
    for r in run(false) {
        r.unwrap();
    }
    for after in [300, 200] {
        cut(after);
        let resumed: Vec<Share> = run(true).into_iter().map(Result::unwrap).collect();
        assert_eq!(resumed[0].resumed, after);
        assert_eq!(resumed[0].exchanges.len(), 512 - after as usize);
        let (dist, next, count, levels) = assemble(resumed);
        assert_eq!(dist, Distances::Wide(plain.dist.clone()), "from {after}");
        assert_eq!(
            (&next, &count, &levels),
            (&plain.next, &plain.count, &plain.levels)
        );
    }
    // Level 300 of process 1 rewritten (with a good checksum) as if its cells were
    // bytes: refused on resume, never read.
    cut(300);
    let l300 = dir.join("p1of2/level-300");
    let mut bytes = std::fs::read(&l300).unwrap();
    assert_eq!(bytes[12], 4, "level 300 was found with four-byte cells");
    bytes[12] = 1;
    let body = bytes.len() - 32;
    let sum = <sha2::Sha256 as sha2::Digest>::digest(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum);
    std::fs::write(&l300, bytes).unwrap();
    let refused = run(true);
    let Err(DistError::Resume(why)) = &refused[1] else {
        panic!("a level of another width was read");
    };
    assert!(why.contains("level 300") && why.contains("1-byte"), "{why}");
    assert!(why.contains(&dir.display().to_string()) && why.contains("without resuming"));
    assert!(!why.contains('\n'));
    assert!(refused[0].is_err());
}

/// A checkpoint of the format before it had a version (a `meta` of one line, the
/// problem alone), or of another version, is refused on resume on every process, with
/// one line naming the directory and what to do; run afresh, the search replaces it.
#[test]
fn a_checkpoint_of_another_format_is_refused() {
    let eight = Sliding::grid("eight", 3, 3);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("eight");
    let run = |resume: bool| {
        Threads::run(2, |comm| {
            let c = Checkpoint { dir: &dir, resume };
            solve(&eight, Outputs::ALL, 1, comm, Some(c), &Silent)
        })
    };
    for r in run(false) {
        r.unwrap();
    }
    let metas = ["p0of2/meta", "p1of2/meta"].map(|m| dir.join(m));
    let meta = std::fs::read_to_string(&metas[0]).unwrap();
    let (format, problem) = meta.split_once('\n').unwrap();
    assert_eq!(format, checkpoint::FORMAT);
    for (written, says) in [
        (problem.to_string(), "older puzzlebase"),
        (meta.replace("format 2", "format 3"), "another format"),
    ] {
        for m in &metas {
            std::fs::write(m, &written).unwrap();
        }
        for r in run(true) {
            let Err(DistError::Resume(why)) = r else {
                panic!("a checkpoint of another format was read")
            };
            assert!(why.contains(says), "{why}");
            assert!(why.contains(&dir.display().to_string()), "{why}");
            assert!(
                why.contains("remove it or start afresh without resuming"),
                "{why}"
            );
            assert!(!why.contains('\n'), "{why}");
        }
    }
    let fresh: Vec<Share> = run(false).into_iter().map(Result::unwrap).collect();
    assert_eq!(fresh[0].resumed, 0);
    assert!(
        std::fs::read_to_string(&metas[1])
            .unwrap()
            .starts_with(checkpoint::FORMAT)
    );
}

/// A path: `n` ranks, rank 0 the goal, `n - 1` moves from one end to the other.
struct Line(u64);

impl StateSpace for Line {
    fn size(&self) -> u64 {
        self.0
    }
    fn goals(&self) -> Vec<u64> {
        vec![0]
    }
    fn neighbors(&self, r: u64, out: &mut Vec<u64>) {
        out.extend(r.checked_sub(1));
        out.extend(Some(r + 1).filter(|&n| n < self.0));
    }
    fn parity(&self, r: u64) -> Option<u8> {
        Some((r % 2) as u8)
    }
}

/// The two-bit search across processes keeps distance mod 4 and has no cap: a path
/// of 17,999 moves (a chunk and a half, so that each of two processes has a share)
/// gives the one-process table and its 18,000 levels.
#[test]
fn a_two_bit_search_has_no_depth_cap() {
    use puzzlebase_core::packed::{CODE_RANKS_PER_CHUNK, CodeLayout};
    let line = Line(CODE_RANKS_PER_CHUNK * 3 / 2);
    let whole = crate::twobit::solve(&line, &Silent).unwrap();
    assert_eq!(whole.levels.len() as u64, line.size());
    let layout = CodeLayout::new(line.size(), 4).unwrap();
    let want: Vec<Vec<u8>> = layout.chunks_from_blocks(0, whole.blocks).collect();
    let shares = Threads::run(2, |comm| {
        super::twobit::solve_share(&line, CODE_RANKS_PER_CHUNK, comm, None, &Silent)
            .unwrap()
            .expect("a path is bipartite")
    });
    assert_eq!(shares[0].levels, whole.levels);
    assert_eq!(shares[0].farthest, vec![line.size() - 1]);
    let mut got = Vec::new();
    for s in shares {
        assert!(!s.range.is_empty());
        got.extend(layout.chunks_from_blocks(s.range.start / CODE_RANKS_PER_CHUNK, s.blocks));
    }
    assert_eq!(got, want);
}

/// More processes than chunks: the last process's share is empty (and starts at the
/// end of the ranks, not on a word), and the search still ends with the one-process
/// table rather than a panic in one process and the others waiting on it.
#[test]
fn a_two_bit_search_with_an_empty_share_ends() {
    use puzzlebase_core::packed::{CODE_RANKS_PER_CHUNK, CodeLayout};
    let line = Line(CODE_RANKS_PER_CHUNK + 7);
    let whole = crate::twobit::solve(&line, &Silent).unwrap();
    let layout = CodeLayout::new(line.size(), 4).unwrap();
    let want: Vec<Vec<u8>> = layout.chunks_from_blocks(0, whole.blocks).collect();
    let shares = Threads::run(3, |comm| {
        super::twobit::solve_share(&line, CODE_RANKS_PER_CHUNK, comm, None, &Silent)
            .unwrap()
            .expect("a path is bipartite")
    });
    assert!(shares[2].range.is_empty());
    assert_eq!(shares[0].levels, whole.levels);
    let mut got = Vec::new();
    for s in shares.into_iter().filter(|s| !s.range.is_empty()) {
        got.extend(layout.chunks_from_blocks(s.range.start / CODE_RANKS_PER_CHUNK, s.blocks));
    }
    assert_eq!(got, want);
}
