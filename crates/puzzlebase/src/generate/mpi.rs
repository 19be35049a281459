//! The message layer over MPI (feature `mpi`): [`Comm`] as `MPI_Alltoallv`,
//! `MPI_Allreduce`, `MPI_Gatherv` and `MPI_Bcast` on `MPI_COMM_WORLD`, nothing more.
//! MPI counts and displacements are 32-bit, so a large buffer travels in rounds of at
//! most [`ROUND`] bytes per process.

use std::thread::ThreadId;

use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::{Count, Threading};

use crate::solvers::distributed::{Comm, Reduce};

/// Bytes a process sends or receives in one collective call, in all: below 2^31.
const ROUND: u64 = 1 << 30;

/// `MPI_COMM_WORLD` of an initialised MPI.
pub struct Mpi {
    // Finalises MPI when dropped, after the communicator.
    world: SimpleCommunicator,
    _universe: Universe,
    thread: ThreadId,
}

// SAFETY: MPI is initialised with `Threading::Funneled`, and every call checks that it
// comes from the thread that initialised it (`check`), so the handle is never used from
// two threads; `Sync` is needed only because the backend that holds it is shared with
// the build's worker threads, which never reach it.
unsafe impl Sync for Mpi {}

impl Mpi {
    /// Initialises MPI (once per process); `None` if it was already initialised.
    pub fn init() -> Option<Mpi> {
        let (universe, _) = mpi::initialize_with_threading(Threading::Funneled)?;
        // A process that panics must take the others down with it: unwinding would
        // finalise MPI while they wait in a collective, and the job would hang.
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            report(info);
            // SAFETY: MPI is initialised; MPI_Abort may be called from any thread.
            unsafe {
                mpi::ffi::MPI_Abort(mpi::ffi::RSMPI_COMM_WORLD, 101);
            }
        }));
        Some(Mpi {
            world: universe.world(),
            _universe: universe,
            thread: std::thread::current().id(),
        })
    }

    fn check(&self) {
        assert_eq!(
            std::thread::current().id(),
            self.thread,
            "MPI is called from the thread that initialised it only"
        );
    }

    /// Per-peer byte limit of one round: all peers together stay below [`ROUND`].
    fn limit(&self) -> u64 {
        (ROUND / self.size() as u64).max(1)
    }

    fn rounds(&self, longest: u64) -> u64 {
        self.reduce(Reduce::Max, &[longest.div_ceil(self.limit())])[0]
    }
}

fn displacements(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |acc, &c| {
            let at = *acc;
            *acc += c;
            Some(at)
        })
        .collect()
}

/// `len` zero bytes in an allocation of its own even when empty: Open MPI refuses a
/// send buffer at the same address as the receive buffer, which two empty vectors have.
fn buffer(len: usize) -> Vec<u8> {
    let mut b = Vec::with_capacity(len + 1);
    b.resize(len, 0);
    b
}

/// The part of a buffer of `len` bytes that round `r` carries, with limit `lim`.
fn piece(len: u64, r: u64, lim: u64) -> std::ops::Range<usize> {
    let lo = (r * lim).min(len);
    lo as usize..(lo + lim).min(len) as usize
}

impl Comm for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn exchange(&self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        self.check();
        let n = self.size();
        let sent: Vec<u64> = out.iter().map(|b| b.len() as u64).collect();
        let mut lens = vec![0u64; n];
        self.world.all_to_all_into(&sent[..], &mut lens[..]);
        let longest = sent.iter().chain(&lens).copied().max().unwrap_or(0);
        let lim = self.limit();
        let mut got: Vec<Vec<u8>> = lens
            .iter()
            .map(|&l| Vec::with_capacity(l as usize))
            .collect();
        for r in 0..self.rounds(longest) {
            let send_counts: Vec<Count> = (out.iter())
                .map(|b| piece(b.len() as u64, r, lim).len() as Count)
                .collect();
            let recv_counts: Vec<Count> = lens
                .iter()
                .map(|&l| piece(l, r, lim).len() as Count)
                .collect();
            let mut send = buffer(send_counts.iter().map(|&c| c as usize).sum());
            send.clear();
            for b in &out {
                send.extend_from_slice(&b[piece(b.len() as u64, r, lim)]);
            }
            let mut recv = buffer(recv_counts.iter().map(|&c| c as usize).sum());
            let (sd, rd) = (displacements(&send_counts), displacements(&recv_counts));
            {
                let s = Partition::new(&send[..], &send_counts[..], &sd[..]);
                let mut r = PartitionMut::new(&mut recv[..], &recv_counts[..], &rd[..]);
                self.world.all_to_all_varcount_into(&s, &mut r);
            }
            for (p, g) in got.iter_mut().enumerate() {
                let at = rd[p] as usize;
                g.extend_from_slice(&recv[at..at + recv_counts[p] as usize]);
            }
        }
        got
    }

    fn reduce(&self, op: Reduce, values: &[u64]) -> Vec<u64> {
        self.check();
        let mut out = vec![0u64; values.len()];
        match op {
            Reduce::Sum => self.world.all_reduce_into(
                values,
                &mut out[..],
                mpi::collective::SystemOperation::sum(),
            ),
            Reduce::Max => self.world.all_reduce_into(
                values,
                &mut out[..],
                mpi::collective::SystemOperation::max(),
            ),
            Reduce::Min => self.world.all_reduce_into(
                values,
                &mut out[..],
                mpi::collective::SystemOperation::min(),
            ),
        }
        out
    }

    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        self.check();
        let root = self.world.process_at_rank(0);
        let me = self.rank() == 0;
        let len = bytes.len() as u64;
        let mut lens = vec![0u64; if me { self.size() } else { 0 }];
        if me {
            root.gather_into_root(&len, &mut lens[..]);
        } else {
            root.gather_into(&len);
        }
        let lim = self.limit();
        let mut got: Vec<Vec<u8>> = lens
            .iter()
            .map(|&l| Vec::with_capacity(l as usize))
            .collect();
        // An empty vector's address is 1, which Open MPI takes for `MPI_IN_PLACE` and
        // refuses from a process other than the root (MPI_ERR_ARG): send an empty piece
        // from an allocation of its own.
        let nothing = buffer(0);
        for r in 0..self.rounds(len) {
            let range = piece(len, r, lim);
            let mine = if range.is_empty() {
                &nothing[..]
            } else {
                &bytes[range]
            };
            if me {
                let counts: Vec<Count> = lens
                    .iter()
                    .map(|&l| piece(l, r, lim).len() as Count)
                    .collect();
                let displs = displacements(&counts);
                let mut recv = buffer(counts.iter().map(|&c| c as usize).sum());
                {
                    let mut part = PartitionMut::new(&mut recv[..], &counts[..], &displs[..]);
                    root.gather_varcount_into_root(mine, &mut part);
                }
                for (p, g) in got.iter_mut().enumerate() {
                    let at = displs[p] as usize;
                    g.extend_from_slice(&recv[at..at + counts[p] as usize]);
                }
            } else {
                root.gather_varcount_into(mine);
            }
        }
        me.then_some(got)
    }

    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8> {
        self.check();
        let root = self.world.process_at_rank(0);
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        let mut buf = if self.rank() == 0 {
            bytes
        } else {
            vec![0u8; len as usize]
        };
        for piece in buf.chunks_mut(ROUND as usize) {
            root.broadcast_into(piece);
        }
        buf
    }
}
