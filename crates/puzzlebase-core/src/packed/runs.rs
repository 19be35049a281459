//! The `run-steps` layouts of a distance table: per run of up to nine neighbouring
//! ranks, the first rank's distance in one, two or four little-endian bytes (the
//! narrowest that holds the table's largest distance) and a byte of steps (described in
//! the [`super`] docs).

use serde_json::json;

use super::{CHUNK_BYTES, ChunkLayout, PackError, Slot, malformed, too_short};
use crate::format::UNREACHED;

/// Longest run one entry can describe: byte 1 holds a step bit per move within the run.
pub const MAX_RUN: u8 = 9;

/// Byte 0 of an entry whose run cannot reach the goal, in the one-byte layout (in the
/// wider ones every byte of the first distance is this: the width's all-ones value).
pub const UNREACHABLE_RUN: u8 = UNREACHED;

/// The widths of an entry's first distance, in bytes, with their encodings' names:
/// the narrowest that holds a table's largest distance is the one written, so a table
/// within a byte keeps the two-byte entries it always had.
const WIDTHS: [(u8, &str); 3] = [(1, "run-steps"), (2, "run-steps-16"), (4, "run-steps-32")];

/// The `run-steps` layout of a distance table (see the [`super`] docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLayout {
    pub(super) block: u64,
    pub(super) blocks: u64,
    /// Bytes of an entry's first distance: 1, 2 or 4 ([`WIDTHS`]).
    width: u8,
    /// `(first, len)` of each run, covering `0..block` in order, `len <= MAX_RUN`.
    pub(super) runs: Vec<(u8, u8)>,
    /// Index into `runs` of each position in a block.
    run_of: Vec<u8>,
    pub(super) blocks_per_chunk: u64,
}

impl RunLayout {
    /// How many blocks of ranks the layout covers.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// `(first, len)` of each run, covering a block in order.
    pub fn runs(&self) -> &[(u8, u8)] {
        &self.runs
    }

    /// How many blocks one chunk holds.
    pub fn blocks_per_chunk(&self) -> u64 {
        self.blocks_per_chunk
    }

    /// A layout for `blocks` blocks of `block` ranks whose runs are `runs` (runs longer
    /// than [`MAX_RUN`] are split), with one-byte first distances ([`RunLayout::fitting`]
    /// widens it). Fails unless the runs cover the block in order.
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
        Ok(RunLayout {
            block,
            blocks,
            width: 1,
            blocks_per_chunk: blocks_per_chunk(1, split.len()),
            runs: split,
            run_of,
        })
    }

    /// The same blocks and runs with first distances of `width` bytes (1, 2 or 4; any
    /// other is `None`), chunked for that width.
    fn with_width(&self, width: u8) -> Option<RunLayout> {
        WIDTHS.iter().find(|w| w.0 == width)?;
        Some(RunLayout {
            width,
            blocks_per_chunk: blocks_per_chunk(width, self.runs.len()),
            ..self.clone()
        })
    }

    /// The same blocks and runs in the narrowest layout whose entries hold every
    /// distance up to `max`: `run-steps` (one byte) up to 254, `run-steps-16` up to
    /// 65,534, `run-steps-32` beyond. A distance within a run is at most the run's
    /// largest, so `max` bounds the first distances and the decoded ones alike.
    pub fn fitting(&self, max: u32) -> RunLayout {
        let width = (WIDTHS.iter())
            .map(|w| w.0)
            .find(|&w| max < unreached(w))
            .unwrap_or(4);
        self.with_width(width).expect("a width of WIDTHS")
    }

    /// The same blocks and runs in the layout stored as `encoding` (`run-steps`,
    /// `run-steps-16` or `run-steps-32`); `None` for any other name.
    pub fn with_encoding(&self, encoding: &str) -> Option<RunLayout> {
        let &(width, _) = WIDTHS.iter().find(|w| w.1 == encoding)?;
        self.with_width(width)
    }

    /// Bytes of one run's entry: the first distance and the byte of steps.
    pub fn entry_bytes(&self) -> usize {
        self.width as usize + 1
    }

    /// The largest distance an entry holds (the width's all-ones value, less one).
    pub fn max_distance(&self) -> u32 {
        unreached(self.width) - 1
    }

    /// Whether `other` describes the same blocks and runs (chunking may differ): a
    /// stored layout must match the one the puzzle's definition gives.
    pub fn same_shape(&self, other: &RunLayout) -> bool {
        (self.block, self.blocks, &self.runs) == (other.block, other.blocks, &other.runs)
    }

    /// The distance of `rank` from the blob of its chunk; `None` where the goal is out of
    /// reach. `Err` when the blob is too short or the entry is impossible (a damaged file).
    pub fn distance(&self, chunk: &[u8], rank: u64) -> Result<Option<u32>, PackError> {
        let s = self.locate(rank);
        let w = self.width as usize;
        let entry = chunk
            .get(s.offset..s.offset + w + 1)
            .ok_or_else(|| too_short(s.chunk))?;
        let mut first = [0u8; 4];
        first[..w].copy_from_slice(&entry[..w]);
        decode(
            u32::from_le_bytes(first),
            unreached(self.width),
            entry[w],
            s.step,
        )
        .ok_or_else(|| PackError::BadLayout(format!("entry for rank {rank} is impossible")))
    }

    /// The blob of chunk `c`, from `dist` (one byte per rank, [`UNREACHED`] where the goal
    /// is out of reach).
    pub fn encode_chunk(&self, c: u64, dist: &[u8]) -> Result<Vec<u8>, PackError> {
        self.encode_chunk_with(c, |r| {
            Some(dist[r as usize])
                .filter(|&d| d != UNREACHED)
                .map(u32::from)
        })
    }

    /// Like [`RunLayout::encode_chunk`], with the distance of each rank of the chunk
    /// given by `dist` (`None` where the goal is out of reach; nothing outside the chunk
    /// is asked for). A distance past [`RunLayout::max_distance`] is refused.
    pub fn encode_chunk_with(
        &self,
        c: u64,
        dist: impl Fn(u64) -> Option<u32>,
    ) -> Result<Vec<u8>, PackError> {
        let first = c * self.blocks_per_chunk;
        let last = (first + self.blocks_per_chunk).min(self.blocks);
        let w = self.width as usize;
        let mut out =
            Vec::with_capacity(self.entry_bytes() * self.runs.len() * (last - first) as usize);
        for b in first..last {
            let base = b * self.block;
            for &(f, len) in &self.runs {
                let at = base + f as u64;
                let mut steps = 0u8;
                let d0 = match dist(at) {
                    None => {
                        if let Some(k) = (1..len as u64).find(|&k| dist(at + k).is_some()) {
                            return Err(PackError::NotBipartite(at, at + k));
                        }
                        unreached(self.width)
                    }
                    Some(d0) => {
                        let mut a = d0;
                        for j in 0..len as u64 {
                            if a > self.max_distance() {
                                return Err(PackError::TooDeep {
                                    rank: at + j,
                                    distance: a,
                                    encoding: self.encoding(),
                                    max: self.max_distance(),
                                });
                            }
                            if j + 1 == len as u64 {
                                break;
                            }
                            let b = dist(at + j + 1);
                            match b {
                                Some(b) if a.abs_diff(b) == 1 => {
                                    steps |= ((b > a) as u8) << j;
                                    a = b;
                                }
                                _ => return Err(PackError::NotBipartite(at + j, at + j + 1)),
                            }
                        }
                        d0
                    }
                };
                out.extend_from_slice(&d0.to_le_bytes()[..w]);
                out.push(steps);
            }
        }
        Ok(out)
    }
}

/// Ranks of whole blocks in a chunk of about [`CHUNK_BYTES`], at `width + 1` bytes per
/// run of `runs` per block.
fn blocks_per_chunk(width: u8, runs: usize) -> u64 {
    (CHUNK_BYTES / ((width as usize + 1) * runs)).max(1) as u64
}

/// The first distance of an unreachable run in entries `width` bytes wide: all ones.
fn unreached(width: u8) -> u32 {
    (u64::from(u32::MAX) >> (32 - 8 * u32::from(width))) as u32
}

impl ChunkLayout for RunLayout {
    fn encoding(&self) -> &'static str {
        (WIDTHS.iter())
            .find(|w| w.0 == self.width)
            .map_or("run-steps", |w| w.1)
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
            offset: self.entry_bytes() * (within as usize * self.runs.len() + i),
            step: p as u8 - self.runs[i].0,
        }
    }

    /// Chunks hold whole blocks, an entry per run of each.
    fn chunk_bytes(&self, c: u64) -> u64 {
        (self.ranks_in(c) / self.block)
            .saturating_mul((self.entry_bytes() * self.runs.len()) as u64)
    }

    fn describe(&self) -> serde_json::Value {
        json!({
            "encoding": self.encoding(),
            "block": self.block,
            "blocks": self.blocks,
            "runs": self.runs.iter().map(|&(f, l)| [f, l]).collect::<Vec<_>>(),
            "blocks_per_chunk": self.blocks_per_chunk,
            "ranks_per_chunk": self.ranks_per_chunk(),
            "entry_bytes": self.entry_bytes(),
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
        let encoding = v["encoding"].as_str().ok_or_else(bad)?;
        let mut layout = RunLayout::new(num("block")?, num("blocks")?, &runs)?
            .with_encoding(encoding)
            .ok_or_else(bad)?;
        if layout.runs != runs || num("entry_bytes")? != layout.entry_bytes() as u64 {
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

/// Distance of position `step` of a run from its entry: the first distance `d0` and the
/// byte of steps, in entries whose unreachable first distance is `unreached`;
/// `Some(None)` for an unreachable run, `None` for an entry no encoder writes.
fn decode(d0: u32, unreached: u32, steps: u8, step: u8) -> Option<Option<u32>> {
    if d0 == unreached {
        return Some(None);
    }
    let up = (steps & ((1u16 << step) - 1) as u8).count_ones() as i64;
    let d = d0 as i64 + 2 * up - step as i64;
    (0..unreached as i64).contains(&d).then_some(Some(d as u32))
}
