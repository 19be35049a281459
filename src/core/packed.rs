//! Packed tables for state spaces too large for one row per position (`eight` and up):
//! fixed-layout little-endian blobs, one per range of ranks, so that any one entry is a
//! single read at a computed offset. The layouts are documented here and in the README
//! for tools that read the file with plain SQL.
//!
//! # Distances: `run-steps`
//! The rank space is split into blocks of `block` consecutive ranks (a sliding puzzle's
//! `rank = t * block + blank_cell`). Within a block, the ranks `first..first + len` of
//! each *run* are a path in the move graph, and on a bipartite graph neighbours' distances
//! differ by exactly one. So a run of up to nine positions is stored in two bytes:
//!
//! * byte 0: the distance of the run's first position (255: the run is unreachable);
//! * byte 1: bit `j` is 1 when position `j + 1` of the run is one move *farther* than
//!   position `j`, 0 when it is one move closer.
//!
//! The distance of position `k` of the run is
//! `byte0 + 2 * popcount(byte1 & ((1 << k) - 1)) - k`. Entry `(block b, run i)` is at
//! byte offset `2 * ((b % blocks_per_chunk) * runs + i)` of chunk `b / blocks_per_chunk`.
//! On `eleven` (3x4, rows of four) this is four bits per solvable rank.
//!
//! # Distances: `mod4` or `mod3` (two bits per rank)
//! For spaces too large for a byte per rank while solving (`fourteen`, the 2x7, has 43.6
//! billion ranks). Rank `r`'s code is bits `2 (r mod 4)` and `2 (r mod 4) + 1` of byte
//! `(r % ranks_per_chunk) / 4` of chunk `r / ranks_per_chunk` (16,000 ranks, 4,000 bytes
//! per chunk; the last chunk is `ceil(ranks left / 4)` bytes, its unused high bits 0).
//! * `mod4`: the code is the distance modulo 4 (every rank reaches the goal);
//! * `mod3`: the distance modulo 3, or `3` where the goal is out of reach.
//!
//! Neighbours' distances differ by at most one, so the neighbour whose code is one less
//! (modulo 4 or 3) is one move closer: the distance is the number of such steps to the
//! goal, and they are an optimal path.
//!
//! # Solution counts: `u8`, `u16le`, `u32le` or `u64le`
//! `w` = 1, 2, 4 or 8 bytes per rank (`entry_bytes`), little-endian: the number of
//! distinct shortest solutions, 0 for an unreachable rank. `w` is the narrowest whose
//! all-ones value is above every count of the table; all ones (only ever written with
//! `w` = 8) means the count exceeds `2^63 - 1`. Rank `r` is at byte offset
//! `w * (r % ranks_per_chunk)` of chunk `r / ranks_per_chunk` (`4000 / w` ranks per chunk).
//!
//! # Pattern databases: `u8`
//! One byte per rank (a placement of a pattern's tiles, ranked as the pattern solver ranks them
//! documents): rank `r` is byte `r % ranks_per_chunk` of chunk `r / ranks_per_chunk`
//! (4000 ranks per chunk).
//!
//! Chunks are sized to fit one SQLite page each (about 4 KB), so a lookup touches a
//! single page after the index descent, and the table adds about 2% to the raw bytes.

use serde_json::json;
use thiserror::Error;

use crate::core::format::{COUNT_OVERFLOW, UNREACHED};

/// Target size of one chunk's blob: a little under a 4096-byte SQLite page, leaving room
/// for the row's other columns so that the row never spills onto overflow pages.
pub const CHUNK_BYTES: usize = 4000;

/// Longest run one entry can describe: byte 1 holds a step bit per move within the run.
pub const MAX_RUN: u8 = 9;

/// Byte 0 of an entry whose run cannot reach the goal.
pub const UNREACHABLE_RUN: u8 = UNREACHED;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PackError {
    #[error(
        "ranks {0} and {1} are neighbours whose distances do not differ by one: the run-steps encoding needs a bipartite move graph"
    )]
    NotBipartite(u64, u64),
    #[error("packed layout {0}")]
    BadLayout(String),
}

/// Where a rank's entry lies: `chunk`, the byte `offset` of its entry in that chunk's
/// blob, and (run-steps) the position `k` of the rank within its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub chunk: u64,
    pub offset: usize,
    pub step: u8,
}

/// The `run-steps` layout of a distance table (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLayout {
    block: u64,
    blocks: u64,
    /// `(first, len)` of each run, covering `0..block` in order, `len <= MAX_RUN`.
    runs: Vec<(u8, u8)>,
    /// Index into `runs` of each position in a block.
    run_of: Vec<u8>,
    blocks_per_chunk: u64,
}

impl RunLayout {
    /// A layout for `blocks` blocks of `block` ranks whose runs are `runs` (runs longer
    /// than [`MAX_RUN`] are split). Fails unless the runs cover the block in order.
    pub fn new(block: u64, blocks: u64, runs: &[(u8, u8)]) -> Result<RunLayout, PackError> {
        let mut split = Vec::new();
        let mut next = 0u64;
        for &(first, len) in runs {
            if first as u64 != next || len == 0 {
                return Err(PackError::BadLayout(format!(
                    "runs {runs:?} do not cover 0..{block} in order"
                )));
            }
            let mut at = first;
            let mut left = len;
            while left > 0 {
                let l = left.min(MAX_RUN);
                split.push((at, l));
                at += l;
                left -= l;
            }
            next = first as u64 + len as u64;
        }
        if next != block || block == 0 || blocks == 0 {
            return Err(PackError::BadLayout(format!(
                "runs {runs:?} do not cover 0..{block}"
            )));
        }
        let mut run_of = vec![0u8; block as usize];
        for (i, &(first, len)) in split.iter().enumerate() {
            for k in 0..len {
                run_of[(first + k) as usize] = i as u8;
            }
        }
        let blocks_per_chunk = (CHUNK_BYTES / (2 * split.len())).max(1) as u64;
        Ok(RunLayout {
            block,
            blocks,
            runs: split,
            run_of,
            blocks_per_chunk,
        })
    }

    /// Reads a layout back from its [`RunLayout::describe`] JSON.
    pub fn from_description(v: &serde_json::Value) -> Result<RunLayout, PackError> {
        let bad = || PackError::BadLayout(format!("description {v} is malformed"));
        let num = |k: &str| v[k].as_u64().ok_or_else(bad);
        let runs = (v["runs"].as_array().ok_or_else(bad)?.iter())
            .map(|r| match (r[0].as_u64(), r[1].as_u64()) {
                (Some(f), Some(l)) if f < 256 && (1..=MAX_RUN as u64).contains(&l) => {
                    Ok((f as u8, l as u8))
                }
                _ => Err(bad()),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if v["encoding"] != "run-steps" {
            return Err(bad());
        }
        let mut layout = RunLayout::new(num("block")?, num("blocks")?, &runs)?;
        if layout.runs != runs {
            return Err(bad());
        }
        layout.blocks_per_chunk = num("blocks_per_chunk")?.max(1);
        Ok(layout)
    }

    /// The layout as stored in `packed_tables.layout`: everything a reader needs.
    pub fn describe(&self) -> serde_json::Value {
        json!({
            "encoding": "run-steps",
            "block": self.block,
            "blocks": self.blocks,
            "runs": self.runs.iter().map(|&(f, l)| [f, l]).collect::<Vec<_>>(),
            "blocks_per_chunk": self.blocks_per_chunk,
            "ranks_per_chunk": self.ranks_per_chunk(),
            "entry_bytes": 2,
        })
    }

    pub fn ranks(&self) -> u64 {
        self.block * self.blocks
    }

    /// Whether `other` describes the same blocks and runs (chunking may differ): a
    /// stored layout must match the one the puzzle's definition gives.
    pub fn same_shape(&self, other: &RunLayout) -> bool {
        (self.block, self.blocks, &self.runs) == (other.block, other.blocks, &other.runs)
    }

    pub fn ranks_per_chunk(&self) -> u64 {
        self.blocks_per_chunk * self.block
    }

    pub fn chunks(&self) -> u64 {
        self.blocks.div_ceil(self.blocks_per_chunk)
    }

    /// Where `rank`'s entry is. `rank` must be below [`RunLayout::ranks`].
    pub fn locate(&self, rank: u64) -> Slot {
        let (b, p) = div_rem(rank, self.block);
        let p = p as usize;
        let i = self.run_of[p] as usize;
        let (chunk, within) = div_rem(b, self.blocks_per_chunk);
        Slot {
            chunk,
            offset: 2 * (within as usize * self.runs.len() + i),
            step: p as u8 - self.runs[i].0,
        }
    }

    /// The length of chunk `c`'s blob as [`RunLayout::encode_chunk`] writes it (0 past
    /// the last chunk).
    pub fn chunk_bytes(&self, c: u64) -> u64 {
        let first = c.saturating_mul(self.blocks_per_chunk);
        let blocks = self.blocks.saturating_sub(first).min(self.blocks_per_chunk);
        blocks.saturating_mul(2 * self.runs.len() as u64)
    }

    /// The distance of `rank` from the blob of its chunk; `None` where the goal is out of
    /// reach. `Err` when the blob is too short or the entry is impossible (a damaged file).
    pub fn distance(&self, chunk: &[u8], rank: u64) -> Result<Option<u8>, PackError> {
        let s = self.locate(rank);
        let entry = chunk
            .get(s.offset..s.offset + 2)
            .ok_or_else(|| PackError::BadLayout(format!("chunk {} is too short", s.chunk)))?;
        decode(entry[0], entry[1], s.step)
            .ok_or_else(|| PackError::BadLayout(format!("entry for rank {rank} is impossible")))
    }

    /// The blob of chunk `c`, from `dist` (one byte per rank, [`UNREACHED`] where the goal
    /// is out of reach).
    pub fn encode_chunk(&self, c: u64, dist: &[u8]) -> Result<Vec<u8>, PackError> {
        self.encode_chunk_with(c, |r| dist[r as usize])
    }

    /// Like [`RunLayout::encode_chunk`], with the distance of each rank of the chunk
    /// given by `dist` (nothing outside the chunk is asked for).
    pub fn encode_chunk_with(
        &self,
        c: u64,
        dist: impl Fn(u64) -> u8,
    ) -> Result<Vec<u8>, PackError> {
        let first = c * self.blocks_per_chunk;
        let last = (first + self.blocks_per_chunk).min(self.blocks);
        let mut out = Vec::with_capacity(2 * self.runs.len() * (last - first) as usize);
        for b in first..last {
            let base = b * self.block;
            for &(f, len) in &self.runs {
                let at = base + f as u64;
                let d0 = dist(at);
                let mut steps = 0u8;
                if d0 == UNREACHED {
                    if let Some(k) = (1..len as u64).find(|&k| dist(at + k) != UNREACHED) {
                        return Err(PackError::NotBipartite(at, at + k));
                    }
                } else {
                    let mut a = d0;
                    for j in 0..len as u64 - 1 {
                        let b = dist(at + j + 1);
                        if b == UNREACHED || a.abs_diff(b) != 1 {
                            return Err(PackError::NotBipartite(at + j, at + j + 1));
                        }
                        steps |= ((b > a) as u8) << j;
                        a = b;
                    }
                }
                out.extend([d0, steps]);
            }
        }
        Ok(out)
    }
}

/// `(a / d, a % d)`, in 32 bits when both fit: several times faster than 64-bit division
/// on common x86 cores, and a served answer locates a few hundred ranks.
fn div_rem(a: u64, d: u64) -> (u64, u64) {
    match (u32::try_from(a), u32::try_from(d)) {
        (Ok(a), Ok(d)) => ((a / d) as u64, (a % d) as u64),
        _ => (a / d, a % d),
    }
}

/// Distance of position `step` of a run from its entry bytes; `Some(None)` for an
/// unreachable run, `None` for an entry no encoder writes.
fn decode(d0: u8, steps: u8, step: u8) -> Option<Option<u8>> {
    if d0 == UNREACHABLE_RUN {
        return Some(None);
    }
    let up = (steps & ((1u16 << step) - 1) as u8).count_ones() as i32;
    let d = d0 as i32 + 2 * up - step as i32;
    (0..UNREACHED as i32).contains(&d).then_some(Some(d as u8))
}

/// The layout of a per-rank solution count table, `w` bytes per rank (see the module
/// docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountLayout {
    ranks: u64,
    ranks_per_chunk: u64,
    width: usize,
}

/// The count encodings by entry width: `(bytes per rank, encoding name)`.
const COUNT_WIDTHS: [(usize, &str); 4] = [(1, "u8"), (2, "u16le"), (4, "u32le"), (8, "u64le")];

impl CountLayout {
    /// The narrowest layout that holds every count up to `max` below its all-ones value
    /// (eight bytes, whose all-ones value marks an overflowed count, when none does).
    pub fn for_counts(ranks: u64, max: u64) -> CountLayout {
        let width = (COUNT_WIDTHS.iter())
            .map(|&(w, _)| w)
            .find(|&w| w == 8 || max < all_ones(w))
            .unwrap_or(8);
        CountLayout::of_width(ranks, width)
    }

    /// The layout `encoding` names for a table of `ranks` counts; `None` for a name that
    /// is not a count encoding.
    pub fn with_encoding(ranks: u64, encoding: &str) -> Option<CountLayout> {
        let &(width, _) = COUNT_WIDTHS.iter().find(|(_, e)| *e == encoding)?;
        Some(CountLayout::of_width(ranks, width))
    }

    /// `width` bytes per rank, as many ranks per chunk as fit.
    fn of_width(ranks: u64, width: usize) -> CountLayout {
        CountLayout {
            ranks,
            ranks_per_chunk: (CHUNK_BYTES / width) as u64,
            width,
        }
    }

    pub fn from_description(v: &serde_json::Value) -> Result<CountLayout, PackError> {
        let bad = || PackError::BadLayout(format!("description {v} is malformed"));
        let &(width, encoding) = (COUNT_WIDTHS.iter())
            .find(|(_, e)| v["encoding"].as_str() == Some(e))
            .ok_or_else(bad)?;
        if v["entry_bytes"].as_u64() != Some(width as u64) {
            return Err(bad());
        }
        let (ranks, ranks_per_chunk) = fixed_width_description(v, encoding)?;
        Ok(CountLayout {
            ranks,
            ranks_per_chunk,
            width,
        })
    }

    pub fn describe(&self) -> serde_json::Value {
        json!({
            "encoding": self.encoding(),
            "ranks": self.ranks,
            "ranks_per_chunk": self.ranks_per_chunk,
            "entry_bytes": self.width,
        })
    }

    /// `u8`, `u16le`, `u32le` or `u64le`.
    pub fn encoding(&self) -> &'static str {
        (COUNT_WIDTHS.iter())
            .find(|&&(w, _)| w == self.width)
            .map_or("u64le", |&(_, e)| e)
    }

    pub fn ranks_per_chunk(&self) -> u64 {
        self.ranks_per_chunk
    }

    pub fn chunks(&self) -> u64 {
        self.ranks.div_ceil(self.ranks_per_chunk)
    }

    pub fn locate(&self, rank: u64) -> Slot {
        Slot {
            chunk: rank / self.ranks_per_chunk,
            offset: self.width * (rank % self.ranks_per_chunk) as usize,
            step: 0,
        }
    }

    /// The length of chunk `c`'s blob as [`CountLayout::encode_chunk`] writes it (0 past
    /// the last chunk).
    pub fn chunk_bytes(&self, c: u64) -> u64 {
        let first = c.saturating_mul(self.ranks_per_chunk);
        (self.ranks.saturating_sub(first).min(self.ranks_per_chunk))
            .saturating_mul(self.width as u64)
    }

    /// The count of `rank` from the blob of its chunk: `None` for all ones (above
    /// `2^63 - 1`).
    pub fn count(&self, chunk: &[u8], rank: u64) -> Result<Option<u64>, PackError> {
        let s = self.locate(rank);
        let bytes = chunk
            .get(s.offset..s.offset + self.width)
            .ok_or_else(|| PackError::BadLayout(format!("chunk {} is too short", s.chunk)))?;
        let mut le = [0u8; 8];
        le[..self.width].copy_from_slice(bytes);
        let v = u64::from_le_bytes(le);
        Ok((v != all_ones(self.width)).then_some(v))
    }

    /// The blob of chunk `c` from `count` (one `u64` per rank, [`COUNT_OVERFLOW`] for an
    /// overflowed count). Counts must fit the layout ([`CountLayout::for_counts`]).
    pub fn encode_chunk(&self, c: u64, count: &[u64]) -> Vec<u8> {
        self.encode_chunk_from(c, count, 0)
    }

    /// Like [`CountLayout::encode_chunk`], with `count` holding the counts of the ranks
    /// from `base` on (a share of the table that contains the chunk).
    pub fn encode_chunk_from(&self, c: u64, count: &[u64], base: u64) -> Vec<u8> {
        let first = (c * self.ranks_per_chunk - base) as usize;
        let last = first
            + (self
                .ranks_per_chunk
                .min(self.ranks - c * self.ranks_per_chunk)) as usize;
        count[first..last]
            .iter()
            .flat_map(|v| {
                let v = if *v == COUNT_OVERFLOW {
                    all_ones(self.width)
                } else {
                    *v
                };
                v.to_le_bytes().into_iter().take(self.width)
            })
            .collect()
    }
}

/// The largest value of a `width`-byte entry.
fn all_ones(width: usize) -> u64 {
    u64::MAX >> (64 - 8 * width)
}

/// The two-bit layout of a distance table, `mod4` or `mod3` (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeLayout {
    ranks: u64,
    modulus: u8,
}

/// Ranks per chunk of a [`CodeLayout`]: four to a byte, [`CHUNK_BYTES`] bytes.
pub const CODE_RANKS_PER_CHUNK: u64 = 4 * CHUNK_BYTES as u64;

impl CodeLayout {
    /// `modulus` is 3 or 4.
    pub fn new(ranks: u64, modulus: u8) -> Result<CodeLayout, PackError> {
        if !(3..=4).contains(&modulus) {
            return Err(PackError::BadLayout(format!(
                "codes modulo {modulus}: only 3 and 4 are defined"
            )));
        }
        Ok(CodeLayout { ranks, modulus })
    }

    pub fn from_description(v: &serde_json::Value) -> Result<CodeLayout, PackError> {
        let bad = || PackError::BadLayout(format!("description {v} is malformed"));
        let modulus = match v["encoding"].as_str() {
            Some("mod4") => 4,
            Some("mod3") => 3,
            _ => return Err(bad()),
        };
        let (ranks, per) = fixed_width_description(v, if modulus == 4 { "mod4" } else { "mod3" })?;
        let layout = CodeLayout::new(ranks, modulus)?;
        if per != CODE_RANKS_PER_CHUNK || layout.describe() != *v {
            return Err(bad());
        }
        Ok(layout)
    }

    pub fn describe(&self) -> serde_json::Value {
        json!({
            "encoding": self.encoding(),
            "ranks": self.ranks,
            "ranks_per_chunk": CODE_RANKS_PER_CHUNK,
            "bits_per_rank": 2,
            "modulus": self.modulus,
        })
    }

    pub fn encoding(&self) -> &'static str {
        if self.modulus == 4 { "mod4" } else { "mod3" }
    }

    pub fn modulus(&self) -> u8 {
        self.modulus
    }

    pub fn ranks(&self) -> u64 {
        self.ranks
    }

    pub fn ranks_per_chunk(&self) -> u64 {
        CODE_RANKS_PER_CHUNK
    }

    pub fn chunks(&self) -> u64 {
        self.ranks.div_ceil(CODE_RANKS_PER_CHUNK)
    }

    /// The length of chunk `c` (the last may be short; 0 past the end).
    pub fn chunk_bytes(&self, c: u64) -> u64 {
        let first = c.saturating_mul(CODE_RANKS_PER_CHUNK);
        self.ranks
            .saturating_sub(first)
            .min(CODE_RANKS_PER_CHUNK)
            .div_ceil(4)
    }

    pub fn locate(&self, rank: u64) -> Slot {
        let within = rank % CODE_RANKS_PER_CHUNK;
        Slot {
            chunk: rank / CODE_RANKS_PER_CHUNK,
            offset: (within / 4) as usize,
            step: (2 * (within % 4)) as u8,
        }
    }

    /// `rank`'s code from the blob of its chunk: the distance modulo 4 or 3, or
    /// `Ok(None)` where the goal is out of reach (`3` in a `mod3` table). `Err` when the
    /// blob is too short.
    pub fn code(&self, chunk: &[u8], rank: u64) -> Result<Option<u8>, PackError> {
        let s = self.locate(rank);
        let byte = chunk
            .get(s.offset)
            .ok_or_else(|| PackError::BadLayout(format!("chunk {} is too short", s.chunk)))?;
        match byte >> s.step & 3 {
            3 if self.modulus == 3 => Ok(None),
            c => Ok(Some(c)),
        }
    }

    /// The code of a rank one move closer than a rank of code `code`.
    pub fn closer(&self, code: u8) -> u8 {
        (code + self.modulus - 1) % self.modulus
    }

    /// The chunks from chunk `first` on, made from a solver's words of 32 codes (rank
    /// `r` in bits `2 (r mod 32)` of word `r / 32`, ranks past the end as `3`) in blocks
    /// that start at chunk `first`: as many whole chunks as the blocks hold, and the
    /// table's last chunk (its unused bits cleared) if they reach it. Each block is freed
    /// once its bytes are in chunks, and each chunk is made when asked for, so the table
    /// is never held twice.
    pub fn chunks_from_blocks(
        &self,
        first: u64,
        blocks: Vec<Vec<u64>>,
    ) -> impl Iterator<Item = Vec<u8>> + use<> {
        let layout = *self;
        let mut bytes = blocks
            .into_iter()
            .flat_map(|b| b.into_iter().flat_map(u64::to_le_bytes));
        (first..self.chunks()).map_while(move |c| {
            let len = layout.chunk_bytes(c) as usize;
            let mut chunk = Vec::with_capacity(len);
            chunk.extend(bytes.by_ref().take(len));
            if chunk.len() < len {
                return None;
            }
            if c + 1 == layout.chunks() {
                layout.clear_unused(&mut chunk);
            }
            Some(chunk)
        })
    }

    /// Chunk `c` as [`CodeLayout::chunks_from_blocks`] makes it, from `word(i)`, the
    /// solver's word `i` (32 codes).
    pub fn chunk_from_words(&self, c: u64, word: impl Fn(u64) -> u64) -> Vec<u8> {
        let first = c * CHUNK_BYTES as u64;
        let mut chunk: Vec<u8> = (first..first + self.chunk_bytes(c))
            .map(|i| (word(i / 8) >> (8 * (i % 8))) as u8)
            .collect();
        if c + 1 == self.chunks() {
            self.clear_unused(&mut chunk);
        }
        chunk
    }

    /// Clears the bits past the last rank in the last chunk.
    fn clear_unused(&self, last: &mut [u8]) {
        let used = self.ranks % 4;
        if let (Some(b), true) = (last.last_mut(), used != 0) {
            *b &= (1u8 << (2 * used)) - 1;
        }
    }
}

/// How a packed move graph's distances are stored: `run-steps` (a byte per rank while
/// solving) or two-bit codes (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DistanceLayout {
    Runs(RunLayout),
    Codes(CodeLayout),
}

impl DistanceLayout {
    /// Reads either layout back from its description (the `encoding` says which).
    pub fn from_description(v: &serde_json::Value) -> Result<DistanceLayout, PackError> {
        match v["encoding"].as_str() {
            Some("run-steps") => RunLayout::from_description(v).map(DistanceLayout::Runs),
            _ => CodeLayout::from_description(v).map(DistanceLayout::Codes),
        }
    }

    pub fn describe(&self) -> serde_json::Value {
        match self {
            DistanceLayout::Runs(l) => l.describe(),
            DistanceLayout::Codes(l) => l.describe(),
        }
    }

    pub fn encoding(&self) -> &'static str {
        match self {
            DistanceLayout::Runs(_) => "run-steps",
            DistanceLayout::Codes(l) => l.encoding(),
        }
    }

    pub fn ranks_per_chunk(&self) -> u64 {
        match self {
            DistanceLayout::Runs(l) => l.ranks_per_chunk(),
            DistanceLayout::Codes(l) => l.ranks_per_chunk(),
        }
    }

    pub fn chunks(&self) -> u64 {
        match self {
            DistanceLayout::Runs(l) => l.chunks(),
            DistanceLayout::Codes(l) => l.chunks(),
        }
    }

    pub fn locate(&self, rank: u64) -> Slot {
        match self {
            DistanceLayout::Runs(l) => l.locate(rank),
            DistanceLayout::Codes(l) => l.locate(rank),
        }
    }

    pub fn chunk_bytes(&self, c: u64) -> u64 {
        match self {
            DistanceLayout::Runs(l) => l.chunk_bytes(c),
            DistanceLayout::Codes(l) => l.chunk_bytes(c),
        }
    }
}

/// The `u8` layout of a table with one byte per rank (the pattern databases of
/// `fifteen`, see the pattern solver): rank `r` is byte `r % ranks_per_chunk` of chunk
/// `r / ranks_per_chunk`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteLayout {
    ranks: u64,
    ranks_per_chunk: u64,
}

impl ByteLayout {
    pub fn new(ranks: u64) -> ByteLayout {
        ByteLayout {
            ranks,
            ranks_per_chunk: CHUNK_BYTES as u64,
        }
    }

    pub fn from_description(v: &serde_json::Value) -> Result<ByteLayout, PackError> {
        let (ranks, ranks_per_chunk) = fixed_width_description(v, "u8")?;
        Ok(ByteLayout {
            ranks,
            ranks_per_chunk,
        })
    }

    pub fn describe(&self) -> serde_json::Value {
        json!({
            "encoding": "u8",
            "ranks": self.ranks,
            "ranks_per_chunk": self.ranks_per_chunk,
            "entry_bytes": 1,
        })
    }

    pub fn ranks(&self) -> u64 {
        self.ranks
    }

    pub fn ranks_per_chunk(&self) -> u64 {
        self.ranks_per_chunk
    }

    pub fn chunks(&self) -> u64 {
        self.ranks.div_ceil(self.ranks_per_chunk)
    }

    /// The length of chunk `c` (the last may be short; 0 past the end).
    pub fn chunk_bytes(&self, c: u64) -> u64 {
        let first = c.saturating_mul(self.ranks_per_chunk);
        self.ranks.saturating_sub(first).min(self.ranks_per_chunk)
    }

    pub fn locate(&self, rank: u64) -> Slot {
        Slot {
            chunk: rank / self.ranks_per_chunk,
            offset: (rank % self.ranks_per_chunk) as usize,
            step: 0,
        }
    }

    /// The blob of chunk `c` from `values` (one byte per rank).
    pub fn encode_chunk(&self, c: u64, values: &[u8]) -> Vec<u8> {
        let first = (c * self.ranks_per_chunk) as usize;
        let last = (first + self.ranks_per_chunk as usize).min(self.ranks as usize);
        values[first..last].to_vec()
    }

    /// The whole table back from its chunks in order; `None` if a chunk has the wrong
    /// size or one is missing.
    pub fn decode<B: AsRef<[u8]>>(&self, chunks: impl IntoIterator<Item = B>) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(self.ranks as usize);
        let mut run = ChunkRun::new(0..self.chunks());
        for (c, blob) in chunks.into_iter().enumerate() {
            let blob = blob.as_ref();
            if run.accept(c as u64, blob, self.chunk_bytes(c as u64)) {
                out.extend_from_slice(blob);
            }
        }
        run.complete().then_some(out)
    }
}

/// A run of a packed table's chunks read in chunk order, checked as it comes: the chunks
/// must be numbered `chunks.start`, the one after, and so on to `chunks.end` (excluded),
/// each of the size its layout gives and none empty. After the first that is not, none
/// is accepted.
pub struct ChunkRun {
    next: u64,
    end: u64,
    clean: bool,
}

impl ChunkRun {
    pub fn new(chunks: std::ops::Range<u64>) -> ChunkRun {
        ChunkRun {
            next: chunks.start,
            end: chunks.end,
            clean: true,
        }
    }

    /// Whether chunk `c`, whose layout gives it `size` bytes, is the next one and of that
    /// size (so its bytes are to be kept).
    pub fn accept(&mut self, c: u64, blob: &[u8], size: u64) -> bool {
        self.clean &= c == self.next && c < self.end && size != 0 && blob.len() as u64 == size;
        if self.clean {
            self.next += 1;
        }
        self.clean
    }

    /// Whether every chunk of the run came, and nothing else.
    pub fn complete(&self) -> bool {
        self.clean && self.next == self.end
    }
}

/// `ranks` and `ranks_per_chunk` of a fixed-width table's description with this
/// `encoding` (the layouts whose entries are a whole number of bytes per rank).
fn fixed_width_description(v: &serde_json::Value, encoding: &str) -> Result<(u64, u64), PackError> {
    match (
        v["encoding"].as_str(),
        v["ranks"].as_u64(),
        v["ranks_per_chunk"].as_u64(),
    ) {
        (Some(e), Some(ranks), Some(per)) if e == encoding && per > 0 => Ok((ranks, per)),
        _ => Err(PackError::BadLayout(format!(
            "description {v} is malformed"
        ))),
    }
}

#[cfg(test)]
mod tests;
