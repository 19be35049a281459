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

/// A token on a grid of `rows` rows of `cols` cells, the goal the corner cell 0: cell
/// `(x, y)` is `x + y` moves away, and each row is a run of the packed layout.
struct Corridor {
    rows: u64,
    cols: u64,
}

impl StateSpace for Corridor {
    fn size(&self) -> u64 {
        self.rows * self.cols
    }
    fn goals(&self) -> Vec<u64> {
        vec![0]
    }
    fn neighbors(&self, rank: u64, out: &mut Vec<u64>) {
        let (x, y) = (rank % self.cols, rank / self.cols);
        out.extend((x > 0).then(|| rank - 1));
        out.extend((x + 1 < self.cols).then(|| rank + 1));
        out.extend((y > 0).then(|| rank - self.cols));
        out.extend((y + 1 < self.rows).then(|| rank + self.cols));
    }
}

impl GraphPuzzle for Corridor {
    fn name(&self) -> &str {
        "corridor"
    }
    fn family(&self) -> &str {
        "corridor"
    }
    fn definition(&self) -> serde_json::Value {
        serde_json::json!({"rows": self.rows, "cols": self.cols})
    }
    fn format(&self, rank: u64) -> String {
        rank.to_string()
    }
    fn parse(&self, text: &str) -> Result<u64, crate::core::space::StateError> {
        text.parse()
            .map_err(|_| crate::core::space::StateError::malformed(text, "a rank"))
    }
    fn packing(&self) -> Option<RunLayout> {
        RunLayout::new(self.cols, self.rows, &[(0, self.cols as u8)]).ok()
    }
}

/// Packed chunks past distance 254 across processes are one process's, chunk for
/// chunk: the same widened layout (`run-steps-16` for 448 moves), counts, levels and
/// farthest ranks, on one, two and three processes; within a byte, `run-steps` still.
#[test]
fn packed_chunks_past_a_byte_are_the_plain_ones() {
    for (rows, cols, encoding) in [(100, 100, "run-steps"), (250, 200, "run-steps-16")] {
        let g = Corridor { rows, cols };
        let layout = g.packing().unwrap();
        let plain = Local.packed_graph(&g, &layout, true, &Silent).unwrap();
        assert_eq!(plain.layout.encoding(), encoding);
        for procs in [1, 2, 3] {
            let got = Threads::run(procs, |comm| {
                match packed_graph(comm, &g, true, None, &Silent).unwrap().0 {
                    Some(Output::Packed(p)) => Some(p),
                    _ => None,
                }
            });
            let p = got.into_iter().next().unwrap();
            let p = p.expect("process 0 gets the packed chunks");
            let at = format!("{rows}x{cols} on {procs} processes");
            assert_eq!(p.layout.describe(), plain.layout.describe(), "{at}");
            assert_eq!(p.distance, plain.distance, "{at}");
            assert_eq!(p.levels, plain.levels, "{at}");
            assert_eq!(p.farthest, plain.farthest, "{at}");
            let counts = |c: &Option<(CountLayout, Vec<Vec<u8>>)>| c.as_ref().map(|c| c.1.clone());
            assert_eq!(counts(&p.counts), counts(&plain.counts), "{at}");
        }
    }
}
