//! The message layer the distributed search needs, and nothing more: an all-to-all
//! exchange of byte buffers, a reduction of a few integers, a gather to process 0 and a
//! broadcast from it. MPI provides these (`generate::mpi`, feature `mpi`); [`Solo`] is one
//! process, and [`Threads`] runs several "processes" as threads of this one, so that the
//! search's partitioning is tested without MPI.

use std::sync::{Arc, Barrier, Mutex};

/// How [`Comm::reduce`] combines each position of the processes' vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduce {
    Sum,
    Max,
    Min,
}

impl Reduce {
    pub fn apply(self, a: u64, b: u64) -> u64 {
        match self {
            Reduce::Sum => a.wrapping_add(b),
            Reduce::Max => a.max(b),
            Reduce::Min => a.min(b),
        }
    }
}

/// A group of processes that call the same collective operations in the same order.
/// Every method is collective: each process of the group must call it, or all wait.
pub trait Comm: Sync {
    /// This process's number, `0..size()`; process 0 writes the file.
    fn rank(&self) -> usize;
    /// Number of processes.
    fn size(&self) -> usize;
    /// Sends `out[p]` to process `p` (`out.len() == size()`); returns what each process
    /// sent to this one, indexed by sender. Buffers may exceed 2^31 bytes.
    fn exchange(&self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>>;
    /// Combines `values` position by position across the processes; every process gets
    /// the result. Each process passes a vector of the same length.
    fn reduce(&self, op: Reduce, values: &[u64]) -> Vec<u64>;
    /// Process 0 gets every process's `bytes` (indexed by sender); the others `None`.
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>>;
    /// Every process gets process 0's `bytes` (what the others pass is ignored).
    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8>;

    /// Whether any process passes `true`.
    fn any(&self, flag: bool) -> bool {
        self.reduce(Reduce::Max, &[flag as u64])[0] != 0
    }
}

/// A group of one: every operation is a copy.
pub struct Solo;

impl Comm for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn exchange(&self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        out
    }
    fn reduce(&self, _: Reduce, values: &[u64]) -> Vec<u64> {
        values.to_vec()
    }
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        Some(vec![bytes.to_vec()])
    }
    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8> {
        bytes
    }
}

/// Several processes simulated by threads of this one (for tests): each thread holds
/// one member, and the members meet at a barrier in every operation.
pub struct Threads {
    rank: usize,
    shared: Arc<Shared>,
}

struct Shared {
    size: usize,
    barrier: Barrier,
    /// `mail[to][from]`.
    mail: Mutex<Vec<Vec<Vec<u8>>>>,
    values: Mutex<Vec<Vec<u64>>>,
}

impl Threads {
    /// Runs `f` on `size` members at once, each on its own thread; returns their
    /// results by rank.
    pub fn run<T: Send>(size: usize, f: impl Fn(&Threads) -> T + Sync) -> Vec<T> {
        let shared = Arc::new(Shared {
            size,
            barrier: Barrier::new(size),
            mail: Mutex::new(vec![vec![Vec::new(); size]; size]),
            values: Mutex::new(vec![Vec::new(); size]),
        });
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..size)
                .map(|rank| {
                    let member = Threads {
                        rank,
                        shared: shared.clone(),
                    };
                    let f = &f;
                    s.spawn(move || f(&member))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    fn mail(&self) -> std::sync::MutexGuard<'_, Vec<Vec<Vec<u8>>>> {
        self.shared.mail.lock().unwrap()
    }
}

impl Comm for Threads {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.shared.size
    }
    fn exchange(&self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        assert_eq!(out.len(), self.size());
        for (to, bytes) in out.into_iter().enumerate() {
            self.mail()[to][self.rank] = bytes;
        }
        self.shared.barrier.wait();
        let got = std::mem::replace(&mut self.mail()[self.rank], vec![Vec::new(); self.size()]);
        self.shared.barrier.wait();
        got
    }
    fn reduce(&self, op: Reduce, values: &[u64]) -> Vec<u64> {
        self.shared.values.lock().unwrap()[self.rank] = values.to_vec();
        self.shared.barrier.wait();
        let all = self.shared.values.lock().unwrap().clone();
        self.shared.barrier.wait();
        (0..values.len())
            .map(|i| {
                all.iter()
                    .map(|v| v[i])
                    .reduce(|a, b| op.apply(a, b))
                    .unwrap()
            })
            .collect()
    }
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        let mut out = vec![Vec::new(); self.size()];
        out[0] = bytes.to_vec();
        let got = self.exchange(out);
        (self.rank == 0).then_some(got)
    }
    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8> {
        let out = if self.rank == 0 {
            vec![bytes; self.size()]
        } else {
            vec![Vec::new(); self.size()]
        };
        self.exchange(out).swap_remove(0)
    }
}
