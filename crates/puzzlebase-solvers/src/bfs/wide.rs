//! Distances past a byte: the four-byte cells a search goes on with once it reaches
//! distance 254, the byte table widened into them, and the solved table of either width
//! ([`Solved`]) that callers taking any distance read.

use std::sync::atomic::{AtomicU8, AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use super::{DistanceTable, Tables, UNREACHED, into_plain_u8, into_plain_u32, table};

/// The unreached distance of a four-byte table.
pub const WIDE_UNREACHED: u32 = u32::MAX;

/// A solved table whose distances are one byte where they fit and four where a distance
/// exceeds 254 ([`super::solve_any`]).
pub enum Solved {
    Narrow(DistanceTable<u8>),
    Wide(DistanceTable<u32>),
}

impl Solved {
    /// The distance of rank `r`, `None` where the goal cannot be reached.
    pub fn distance(&self, r: usize) -> Option<u32> {
        match self {
            Solved::Narrow(t) => Some(t.dist[r]).filter(|&d| d != UNREACHED).map(u32::from),
            Solved::Wide(t) => Some(t.dist[r]).filter(|&d| d != WIDE_UNREACHED),
        }
    }
    /// Ranks in the table.
    pub fn len(&self) -> usize {
        match self {
            Solved::Narrow(t) => t.dist.len(),
            Solved::Wide(t) => t.dist.len(),
        }
    }
    /// Whether the table has no ranks.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Ranks per distance, from 0 to the maximum.
    pub fn levels(&self) -> &[u64] {
        match self {
            Solved::Narrow(t) => &t.levels,
            Solved::Wide(t) => &t.levels,
        }
    }
    /// The next ranks ([`super::NO_NEXT`] for goals and unreached ranks; empty unless asked).
    pub fn next(&self) -> &[u32] {
        match self {
            Solved::Narrow(t) => &t.next,
            Solved::Wide(t) => &t.next,
        }
    }
    /// The counts (empty unless asked).
    pub fn count(&self) -> &[u64] {
        match self {
            Solved::Narrow(t) => &t.count,
            Solved::Wide(t) => &t.count,
        }
    }
    /// Ranks that reach a goal.
    pub fn reached(&self) -> u64 {
        self.levels().iter().sum()
    }
    /// The largest distance.
    pub fn max_distance(&self) -> u32 {
        (self.levels().len() - 1) as u32
    }
}

/// A cell of the distance table under construction: one byte, or four once a search
/// has outgrown the byte.
pub(super) trait Cell: Send + Sync + Sized {
    type Plain: Send;
    /// The value of a rank not reached (the type's largest).
    const UNREACHED: u32;
    /// One byte (read eight at a time by a pull).
    const BYTE: bool;
    fn unreached() -> Self;
    fn get(&self) -> u32;
    fn set(&self, d: u32);
    fn into_plain(v: Vec<Self>) -> Vec<Self::Plain>;
}

impl Cell for AtomicU8 {
    type Plain = u8;
    const UNREACHED: u32 = UNREACHED as u32;
    const BYTE: bool = true;
    fn unreached() -> Self {
        AtomicU8::new(UNREACHED)
    }
    fn get(&self) -> u32 {
        self.load(Relaxed) as u32
    }
    fn set(&self, d: u32) {
        self.store(d as u8, Relaxed)
    }
    fn into_plain(v: Vec<Self>) -> Vec<u8> {
        into_plain_u8(v)
    }
}

impl Cell for AtomicU32 {
    type Plain = u32;
    const UNREACHED: u32 = WIDE_UNREACHED;
    const BYTE: bool = false;
    fn unreached() -> Self {
        AtomicU32::new(WIDE_UNREACHED)
    }
    fn get(&self) -> u32 {
        self.load(Relaxed)
    }
    fn set(&self, d: u32) {
        self.store(d, Relaxed)
    }
    fn into_plain(v: Vec<Self>) -> Vec<u32> {
        into_plain_u32(v)
    }
}

impl Tables<AtomicU8> {
    /// The same tables with four-byte distances (the byte table freed once copied).
    pub(super) fn widen(self) -> Tables<AtomicU32> {
        let wide = table(self.dist.len(), AtomicU32::unreached);
        (wide.par_iter().zip(self.dist.par_iter())).for_each(|(w, b)| {
            let d = b.load(Relaxed);
            if d != UNREACHED {
                w.store(d as u32, Relaxed);
            }
        });
        Tables {
            dist: wide,
            next: self.next,
            count: self.count,
            marks: self.marks,
        }
    }
}
