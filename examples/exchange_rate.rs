//! The rate of the distributed search's all-to-all exchange on this machine or
//! cluster, apart from the search: every process sends `MB` megabytes to every other,
//! a few times, through the same message layer as `generate` (`generate::mpi`).
//!
//! ```sh
//! cargo build --release --features mpi --example exchange_rate
//! mpirun -np 2 target/release/examples/exchange_rate 64
//! ```
//!
//! Prints, from process 0, the bytes each process sent per exchange, the seconds per
//! exchange (the slowest process's) and the rate per process.

use std::time::Instant;

use puzzlebase::distributed::{Comm, Mpi, Reduce};

fn main() {
    let Some(comm) = Mpi::init() else {
        eprintln!("exchange_rate: MPI could not be initialised");
        std::process::exit(1);
    };
    let mb: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(64);
    let n = comm.size();
    let per_peer = mb * 1_000_000 / n.max(2);
    for round in 0..4 {
        let out: Vec<Vec<u8>> = (0..n)
            .map(|p| {
                if p == comm.rank() {
                    Vec::new()
                } else {
                    vec![round as u8; per_peer]
                }
            })
            .collect();
        let sent = out.iter().map(|b| b.len() as u64).sum::<u64>();
        let started = Instant::now();
        let got = comm.exchange(out);
        let secs = started.elapsed().as_secs_f64();
        assert!(
            got.iter()
                .enumerate()
                .all(|(p, b)| p == comm.rank() || b.len() == per_peer)
        );
        let slowest = comm.reduce(Reduce::Max, &[(secs * 1e6) as u64])[0] as f64 / 1e6;
        if comm.rank() == 0 && round > 0 {
            println!(
                "{n} processes: {:.1} MB sent per process per exchange, {:.4} s, {:.2} GB/s per process",
                sent as f64 / 1e6,
                slowest,
                sent as f64 / slowest / 1e9
            );
        }
    }
}
