//! Tests of `generate::distributed`.

use super::*;
use crate::core::space::StateSpace;
use crate::families::sliding::Sliding;
use crate::solvers::distributed::Threads;
use crate::solvers::twobit;

/// Process 0 receives every share's chunks in order, a few at a time, whatever the
/// number of processes; dropped part-way, it still runs every gather, so no process
/// is left waiting.
#[test]
fn shares_reach_process_0_in_pieces() {
    let g = Sliding::grid("nine", 2, 5);
    let whole = twobit::solve(&g, &Silent).unwrap();
    let layout = CodeLayout::new(g.size(), 4).unwrap();
    let want: Vec<Vec<u8>> = layout.chunks_from_blocks(0, whole.blocks).collect();
    for procs in [1, 2, 3] {
        for take in [usize::MAX, 50] {
            let got = Threads::run(procs, |comm| {
                let share =
                    distributed::twobit::solve_share(&g, CODE_RANKS_PER_CHUNK, comm, None, &Silent)
                        .unwrap()
                        .unwrap();
                let mut s = ShareStream::new(comm, layout, share.partition, share.blocks, 5);
                if comm.rank() != 0 {
                    s.send();
                    return Vec::new();
                }
                s.by_ref().take(take).map(Result::unwrap).collect()
            });
            let n = want.len().min(take);
            assert_eq!(got[0], want[..n], "{procs} processes, {take} taken");
        }
    }
}
