//! The layouts with a whole number of bytes per rank: solution counts (`u8` to `u64le`)
//! and the one-byte tables of the pattern databases (described in the [`super`] docs).

use serde_json::json;

use super::{
    CHUNK_BYTES, ChunkLayout, ChunkRun, PackError, Slot, malformed, per_rank_description, too_short,
};
use crate::format::COUNT_OVERFLOW;

/// The slot of `rank` in a table of `width`-byte entries, `per` to a chunk.
fn whole_bytes(rank: u64, per: u64, width: usize) -> Slot {
    Slot {
        chunk: rank / per,
        offset: width * (rank % per) as usize,
        step: 0,
    }
}

/// The layout of a per-rank solution count table, `w` bytes per rank (see the [`super`]
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

    /// The count of `rank` from the blob of its chunk: `None` for all ones (above
    /// `2^63 - 1`).
    pub fn count(&self, chunk: &[u8], rank: u64) -> Result<Option<u64>, PackError> {
        let s = self.locate(rank);
        let bytes = chunk
            .get(s.offset..s.offset + self.width)
            .ok_or_else(|| too_short(s.chunk))?;
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
        let last = first + self.ranks_in(c) as usize;
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

impl ChunkLayout for CountLayout {
    /// `u8`, `u16le`, `u32le` or `u64le`.
    fn encoding(&self) -> &'static str {
        (COUNT_WIDTHS.iter())
            .find(|&&(w, _)| w == self.width)
            .map_or("u64le", |&(_, e)| e)
    }

    fn ranks(&self) -> u64 {
        self.ranks
    }

    fn ranks_per_chunk(&self) -> u64 {
        self.ranks_per_chunk
    }

    fn locate(&self, rank: u64) -> Slot {
        whole_bytes(rank, self.ranks_per_chunk, self.width)
    }

    fn chunk_bytes(&self, c: u64) -> u64 {
        self.ranks_in(c).saturating_mul(self.width as u64)
    }

    fn describe(&self) -> serde_json::Value {
        json!({
            "encoding": self.encoding(),
            "ranks": self.ranks,
            "ranks_per_chunk": self.ranks_per_chunk,
            "entry_bytes": self.width,
        })
    }

    fn from_description(v: &serde_json::Value) -> Result<CountLayout, PackError> {
        let &(width, encoding) = (COUNT_WIDTHS.iter())
            .find(|(_, e)| v["encoding"].as_str() == Some(e))
            .ok_or_else(|| malformed(v))?;
        if v["entry_bytes"].as_u64() != Some(width as u64) {
            return Err(malformed(v));
        }
        let (ranks, ranks_per_chunk) = per_rank_description(v, encoding)?;
        Ok(CountLayout {
            ranks,
            ranks_per_chunk,
            width,
        })
    }
}

/// The largest value of a `width`-byte entry.
fn all_ones(width: usize) -> u64 {
    u64::MAX >> (64 - 8 * width)
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
    /// A table of `ranks` bytes, [`CHUNK_BYTES`] to a chunk.
    pub fn new(ranks: u64) -> ByteLayout {
        ByteLayout {
            ranks,
            ranks_per_chunk: CHUNK_BYTES as u64,
        }
    }

    /// The blob of chunk `c` from `values` (one byte per rank).
    pub fn encode_chunk(&self, c: u64, values: &[u8]) -> Vec<u8> {
        let first = (c * self.ranks_per_chunk) as usize;
        values[first..first + self.ranks_in(c) as usize].to_vec()
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

impl ChunkLayout for ByteLayout {
    fn encoding(&self) -> &'static str {
        "u8"
    }

    fn ranks(&self) -> u64 {
        self.ranks
    }

    fn ranks_per_chunk(&self) -> u64 {
        self.ranks_per_chunk
    }

    fn locate(&self, rank: u64) -> Slot {
        whole_bytes(rank, self.ranks_per_chunk, 1)
    }

    fn chunk_bytes(&self, c: u64) -> u64 {
        self.ranks_in(c)
    }

    fn describe(&self) -> serde_json::Value {
        json!({
            "encoding": "u8",
            "ranks": self.ranks,
            "ranks_per_chunk": self.ranks_per_chunk,
            "entry_bytes": 1,
        })
    }

    fn from_description(v: &serde_json::Value) -> Result<ByteLayout, PackError> {
        let (ranks, ranks_per_chunk) = per_rank_description(v, "u8")?;
        Ok(ByteLayout {
            ranks,
            ranks_per_chunk,
        })
    }
}
