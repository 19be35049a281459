//! A two-bit table split across processes, brought to process 0 as it is written.

use thiserror::Error;

use crate::core::packed::{CODE_RANKS_PER_CHUNK, ChunkLayout, CodeLayout};
use crate::core::records::ChunkError;
use crate::solvers::distributed::{Comm, Partition};

/// A piece of another process's share that does not hold the chunks it should.
#[derive(Debug, Error)]
enum PieceError {
    #[error(
        "process {process} sent a piece of {bytes} bytes where chunks {first}..{last} need more"
    )]
    Short {
        process: usize,
        bytes: usize,
        first: u64,
        last: u64,
    },
    #[error("process {process} sent {bytes} bytes for chunks {first}..{last}, which take {taken}")]
    Long {
        process: usize,
        bytes: usize,
        first: u64,
        last: u64,
        /// The bytes the chunks take.
        taken: usize,
    },
}

/// A two-bit table split across processes, brought to process 0 chunk by chunk: process
/// 0's own share first, made from its blocks, then each other process's in pieces of
/// `piece` chunks. Every process runs the same gathers, one per piece of processes
/// 1, 2, ...: process 0 as it iterates (and, dropped early, to the end, so that no
/// process is left waiting), the others in [`ShareStream::send`].
pub(super) struct ShareStream<'c> {
    comm: &'c dyn Comm,
    layout: CodeLayout,
    partition: Partition,
    /// Chunks per piece.
    piece: u64,
    /// This process's chunks, made as they are taken.
    own: Box<dyn Iterator<Item = Vec<u8>> + 'c>,
    /// The next piece to gather: a process and a piece of its share.
    next: (usize, u64),
    /// Chunks received and not yet taken, first first.
    pending: std::collections::VecDeque<Vec<u8>>,
}

impl<'c> ShareStream<'c> {
    pub(super) fn new(
        comm: &'c dyn Comm,
        layout: CodeLayout,
        partition: Partition,
        blocks: Vec<Vec<u64>>,
        piece: u64,
    ) -> ShareStream<'c> {
        let first = partition.share(comm.rank()).start / CODE_RANKS_PER_CHUNK;
        ShareStream {
            comm,
            layout,
            partition,
            piece,
            own: Box::new(layout.chunks_from_blocks(first, blocks)),
            next: (1, 0),
            pending: Default::default(),
        }
    }

    /// Runs the next gather, if any is left: the chunks of the piece and their first
    /// index (the bytes on process 0; empty elsewhere).
    fn step(&mut self) -> Option<(u64, Vec<u8>)> {
        let (p, k) = self.next;
        if p >= self.comm.size() {
            return None;
        }
        let chunks = self.partition.chunks(p, CODE_RANKS_PER_CHUNK);
        let first = chunks.start + k * self.piece;
        if first >= chunks.end {
            self.next = (p + 1, 0);
            return self.step();
        }
        self.next = (p, k + 1);
        let piece: Vec<u8> = if self.comm.rank() == p {
            self.own
                .by_ref()
                .take(self.piece as usize)
                .flatten()
                .collect()
        } else {
            Vec::new()
        };
        let got = self.comm.gather(&piece);
        Some((
            first,
            got.map(|mut all| all.swap_remove(p)).unwrap_or_default(),
        ))
    }

    /// This process's side of every gather (every process but 0).
    pub(super) fn send(&mut self) {
        while self.step().is_some() {}
    }
}

impl Iterator for ShareStream<'_> {
    type Item = Result<Vec<u8>, ChunkError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(c) = self.own.next() {
            return Some(Ok(c));
        }
        if let Some(c) = self.pending.pop_front() {
            return Some(Ok(c));
        }
        let (first, bytes) = self.step()?;
        let p = self.partition.owner(first * CODE_RANKS_PER_CHUNK);
        let last = (first + self.piece).min(self.partition.chunks(p, CODE_RANKS_PER_CHUNK).end);
        let mut at = 0usize;
        for c in first..last {
            let len = self.layout.chunk_bytes(c) as usize;
            let Some(chunk) = bytes.get(at..at + len) else {
                return Some(Err(PieceError::Short {
                    process: p,
                    bytes: bytes.len(),
                    first,
                    last,
                }
                .into()));
            };
            self.pending.push_back(chunk.to_vec());
            at += len;
        }
        if at != bytes.len() {
            return Some(Err(PieceError::Long {
                process: p,
                bytes: bytes.len(),
                first,
                last,
                taken: at,
            }
            .into()));
        }
        self.pending.pop_front().map(Ok)
    }
}

impl Drop for ShareStream<'_> {
    fn drop(&mut self) {
        // The other processes run every gather; so must process 0.
        while self.step().is_some() {}
    }
}
