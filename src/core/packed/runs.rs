//! The `run-steps` layout of a distance table: two bytes per run of up to nine
//! neighbouring ranks (described in the [`super`] docs).

use serde_json::json;

use super::{CHUNK_BYTES, ChunkLayout, PackError, Slot, malformed, too_short};
use crate::core::format::UNREACHED;

/// Longest run one entry can describe: byte 1 holds a step bit per move within the run.
pub const MAX_RUN: u8 = 9;

/// Byte 0 of an entry whose run cannot reach the goal.
pub const UNREACHABLE_RUN: u8 = UNREACHED;

/// The `run-steps` layout of a distance table (see the [`super`] docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLayout {
    pub(super) block: u64,
    pub(super) blocks: u64,
    /// `(first, len)` of each run, covering `0..block` in order, `len <= MAX_RUN`.
    pub(super) runs: Vec<(u8, u8)>,
    /// Index into `runs` of each position in a block.
    run_of: Vec<u8>,
    pub(super) blocks_per_chunk: u64,
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

    /// Whether `other` describes the same blocks and runs (chunking may differ): a
    /// stored layout must match the one the puzzle's definition gives.
    pub fn same_shape(&self, other: &RunLayout) -> bool {
        (self.block, self.blocks, &self.runs) == (other.block, other.blocks, &other.runs)
    }

    /// The distance of `rank` from the blob of its chunk; `None` where the goal is out of
    /// reach. `Err` when the blob is too short or the entry is impossible (a damaged file).
    pub fn distance(&self, chunk: &[u8], rank: u64) -> Result<Option<u8>, PackError> {
        let s = self.locate(rank);
        let entry = chunk
            .get(s.offset..s.offset + 2)
            .ok_or_else(|| too_short(s.chunk))?;
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

impl ChunkLayout for RunLayout {
    fn encoding(&self) -> &'static str {
        "run-steps"
    }

    fn ranks(&self) -> u64 {
        self.block * self.blocks
    }

    fn ranks_per_chunk(&self) -> u64 {
        self.blocks_per_chunk * self.block
    }

    fn locate(&self, rank: u64) -> Slot {
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

    /// Chunks hold whole blocks, two bytes per run of each.
    fn chunk_bytes(&self, c: u64) -> u64 {
        (self.ranks_in(c) / self.block).saturating_mul(2 * self.runs.len() as u64)
    }

    fn describe(&self) -> serde_json::Value {
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

    fn from_description(v: &serde_json::Value) -> Result<RunLayout, PackError> {
        let bad = || malformed(v);
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
        // The table's ranks and a chunk's are products of the numbers read: ones that
        // do not fit in 64 bits are damage, not a table to compute with.
        let (block, blocks, per) = (layout.block, layout.blocks, layout.blocks_per_chunk);
        if block.checked_mul(blocks).is_none() || block.checked_mul(per).is_none() {
            return Err(bad());
        }
        Ok(layout)
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
