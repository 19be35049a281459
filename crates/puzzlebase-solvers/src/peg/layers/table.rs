//! The stored form of a large board's table: per peg count, the positions that can
//! still finish (canonical, by colex rank) with their distances, in chunks of
//! [`SPAN`] ranks. This is the format other tools read; `docs/file-format.md` restates it.
//!
//! A chunk's blob (little-endian) is a header of 31 `u16`, the index of the first entry
//! of each of the sub-buckets 1..=31 (sub-bucket `b` holds ranks `b * 2048 ..` of the
//! chunk; sub-bucket 0 starts at 0), then one `u16` per position in rank order: the rank
//! within its sub-bucket in the high 11 bits and `distance - base` in the low 5 bits,
//! where `base` is the layer's smallest distance. A chunk without positions is not
//! stored. So a position costs 2 bytes plus 62 bytes per stored chunk.

use thiserror::Error;

use super::bits::{SPAN, SPAN_BITS};

/// Ranks per sub-bucket.
pub const SUB_BITS: u32 = 11;
pub const SUBS: usize = 1 << (SPAN_BITS - SUB_BITS);
const HEADER: usize = 2 * (SUBS - 1);
/// Distances above a layer's base that an entry can hold.
pub const DIST_RANGE: u8 = 1 << (16 - SUB_BITS);

/// Encodes one chunk from its `(rank within the chunk, distance)` pairs in rank order;
/// `None` when a distance lies outside `base .. base + DIST_RANGE`.
pub fn encode(entries: &[(u32, u8)], base: u8) -> Option<Vec<u8>> {
    let mut out = vec![0u8; HEADER + 2 * entries.len()];
    let mut sub = 1;
    for (i, &(r, d)) in entries.iter().enumerate() {
        debug_assert!((r as u64) < SPAN);
        let b = (r >> SUB_BITS) as usize;
        while sub <= b {
            out[2 * (sub - 1)..2 * sub].copy_from_slice(&(i as u16).to_le_bytes());
            sub += 1;
        }
        let off = d.checked_sub(base).filter(|&o| o < DIST_RANGE)?;
        let e = ((r & ((1 << SUB_BITS) - 1)) as u16) << (16 - SUB_BITS) | off as u16;
        out[HEADER + 2 * i..HEADER + 2 * i + 2].copy_from_slice(&e.to_le_bytes());
    }
    while sub < SUBS {
        out[2 * (sub - 1)..2 * sub].copy_from_slice(&(entries.len() as u16).to_le_bytes());
        sub += 1;
    }
    Some(out)
}

/// Why a blob is not a chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadChunk(pub String);

fn u16_at(blob: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([blob[i], blob[i + 1]])
}

/// The index after the last entry of sub-bucket `b` of a blob of `n` entries.
fn sub_end(blob: &[u8], b: usize, n: usize) -> usize {
    if b + 1 < SUBS {
        u16_at(blob, 2 * b) as usize
    } else {
        n
    }
}

/// Checks a blob's shape: a header, whole entries, sub-bucket starts in order, and the
/// ranks within each sub-bucket strictly increasing.
pub fn check(blob: &[u8]) -> Result<usize, BadChunk> {
    if blob.len() < HEADER + 2 || !(blob.len() - HEADER).is_multiple_of(2) {
        return Err(BadChunk(format!("{} bytes is not a chunk", blob.len())));
    }
    let n = (blob.len() - HEADER) / 2;
    let mut start = 0usize;
    for b in 0..SUBS {
        let end = sub_end(blob, b, n);
        if end < start || end > n {
            return Err(BadChunk(format!("sub-bucket {b} ends at entry {end}")));
        }
        for i in start + 1..end {
            if u16_at(blob, HEADER + 2 * i) >> (16 - SUB_BITS)
                <= u16_at(blob, HEADER + 2 * (i - 1)) >> (16 - SUB_BITS)
            {
                return Err(BadChunk(format!("entry {i} is out of rank order")));
            }
        }
        start = end;
    }
    Ok(n)
}

/// Calls `f(rank within the chunk, distance)` for every entry of a checked blob.
pub fn entries(blob: &[u8], base: u8, mut f: impl FnMut(u32, u8)) {
    let n = (blob.len() - HEADER) / 2;
    let mut start = 0usize;
    for b in 0..SUBS {
        let end = sub_end(blob, b, n);
        for i in start..end {
            let e = u16_at(blob, HEADER + 2 * i);
            let r = (b as u32) << SUB_BITS | (e >> (16 - SUB_BITS)) as u32;
            f(r, base + (e as u8 & (DIST_RANGE - 1)));
        }
        start = end.max(start);
    }
}

/// The distance stored for rank `r` (within the chunk) of a checked blob.
#[inline]
pub fn lookup(blob: &[u8], base: u8, r: u32) -> Option<u8> {
    let n = (blob.len() - HEADER) / 2;
    let b = (r >> SUB_BITS) as usize;
    let start = if b == 0 { 0 } else { sub_end(blob, b - 1, n) };
    let end = sub_end(blob, b, n);
    let want = (r & ((1 << SUB_BITS) - 1)) as u16;
    let (mut lo, mut hi) = (start, end.min(n));
    while lo < hi {
        let mid = (lo + hi) / 2;
        let e = u16_at(blob, HEADER + 2 * mid);
        match (e >> (16 - SUB_BITS)).cmp(&want) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Some(base + (e as u8 & (DIST_RANGE - 1))),
        }
    }
    None
}

/// Ranks per chunk.
pub const SPAN_RANKS: u64 = SPAN;

/// Why the distances of one peg count cannot be stored as a layer.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DistanceError {
    /// A position the backward pass says can finish has no move into the layers below:
    /// the passes disagree.
    #[error("a position of {pegs} pegs that can finish has no move into the table")]
    NoMove {
        /// The layer's peg count.
        pegs: usize,
    },
    /// The layer's distances span more values than an entry holds beside its base.
    #[error(
        "the distances of {pegs} pegs run from {base} to {top}, more than the {DIST_RANGE} values a stored entry holds"
    )]
    Range {
        /// The layer's peg count.
        pegs: usize,
        /// Its smallest distance.
        base: u8,
        /// Its largest distance.
        top: u8,
    },
}

/// Why a stored layout cannot be the layout of a board's layers ([`PegLayout::check`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LayoutError {
    /// The layout names another encoding or another chunk size.
    #[error(
        "encoding {encoding:?} with {ranks_per_chunk} ranks per chunk is not {ENCODING:?} with {SPAN_RANKS}"
    )]
    Encoding {
        /// The encoding the layout names.
        encoding: String,
        /// The ranks per chunk it names.
        ranks_per_chunk: u64,
    },
    /// A layer out of peg order, beyond the board, not numbered on from the previous
    /// one, not covering exactly its ranks, or with a base no entry can hold.
    #[error("the layer of {pegs} pegs is impossible")]
    Layer {
        /// The layer's peg count.
        pegs: u8,
    },
    /// The layers place another number of chunks than are stored.
    #[error("{stored} chunks are stored, the layers place {placed}")]
    Chunks {
        /// Chunks in the file.
        stored: u64,
        /// Chunks the layers account for.
        placed: u64,
    },
}

/// `packed_tables.encoding` of a peg board's layers.
pub const ENCODING: &str = "peg-layers";

/// `packed_tables.layout` of a peg board's layers (JSON): where each peg count's chunks
/// are among the table's, numbered from 0 across the layers in order of peg count.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PegLayout {
    pub encoding: String,
    pub ranks_per_chunk: u64,
    pub layers: Vec<LayerLayout>,
}

/// One peg count's chunks: ranks `c * ranks_per_chunk ..` of the layer are in chunk
/// `first_chunk + c`; an empty blob is a chunk without positions.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LayerLayout {
    pub pegs: u8,
    /// The smallest distance of the layer: an entry holds `distance - base`.
    pub base: u8,
    pub first_chunk: u64,
    pub chunks: u64,
    /// Positions (classes) stored.
    pub positions: u64,
}

impl PegLayout {
    /// The layout of `layers` (indexed by peg count), with their position counts.
    pub fn of(layers: &[Layer], positions: impl Fn(usize) -> u64) -> PegLayout {
        let mut first = 0;
        let mut out = Vec::new();
        for (k, l) in layers.iter().enumerate() {
            if l.chunks.is_empty() {
                continue;
            }
            out.push(LayerLayout {
                pegs: k as u8,
                base: l.base,
                first_chunk: first,
                chunks: l.chunks.len() as u64,
                positions: positions(k),
            });
            first += l.chunks.len() as u64;
        }
        PegLayout {
            encoding: ENCODING.to_string(),
            ranks_per_chunk: SPAN,
            layers: out,
        }
    }

    /// Checks the layout against a board of `holes` holes and the `chunks` stored: the
    /// encoding, layers in increasing peg counts, each covering exactly its ranks with
    /// chunks numbered on from the previous layer's, and a base an entry can hold.
    pub fn check(&self, holes: usize, chunks: u64) -> Result<(), LayoutError> {
        if self.encoding != ENCODING || self.ranks_per_chunk != SPAN_RANKS {
            return Err(LayoutError::Encoding {
                encoding: self.encoding.clone(),
                ranks_per_chunk: self.ranks_per_chunk,
            });
        }
        let colex = super::colex::Colex::new(holes);
        let mut next = 0;
        let mut pegs = None;
        for l in &self.layers {
            if l.pegs as usize > holes
                || pegs.is_some_and(|p| p >= l.pegs)
                || l.first_chunk != next
                || l.chunks != colex.layer_size(l.pegs as usize).div_ceil(SPAN_RANKS)
                || l.base >= 64
            {
                return Err(LayoutError::Layer { pegs: l.pegs });
            }
            pegs = Some(l.pegs);
            next += l.chunks;
        }
        if next != chunks {
            return Err(LayoutError::Chunks {
                stored: chunks,
                placed: next,
            });
        }
        Ok(())
    }

    /// Total chunks.
    pub fn chunks(&self) -> u64 {
        self.layers.iter().map(|l| l.chunks).sum()
    }

    /// The layer of `pegs`, if any position of that many pegs is stored.
    pub fn layer(&self, pegs: usize) -> Option<&LayerLayout> {
        self.layers.iter().find(|l| l.pegs as usize == pegs)
    }

    /// The global chunk of `rank` among positions of `pegs` pegs, or `None` if no chunk
    /// holds it (then the position is not stored).
    pub fn chunk_of(&self, pegs: usize, rank: u64) -> Option<(u64, u8)> {
        let l = self.layer(pegs)?;
        let c = rank / self.ranks_per_chunk;
        (c < l.chunks).then_some((l.first_chunk + c, l.base))
    }
}

/// One peg count of a table in memory: its chunks (empty when not stored) and the
/// base of its distances.
#[derive(Default)]
pub struct Layer {
    pub base: u8,
    pub chunks: Vec<Vec<u8>>,
}

impl Layer {
    /// Bytes of the chunks.
    pub fn bytes(&self) -> u64 {
        self.chunks.iter().map(|c| c.len() as u64).sum()
    }

    #[inline]
    pub fn get(&self, rank: u64) -> Option<u8> {
        let blob = self.chunks.get((rank >> SPAN_BITS) as usize)?;
        if blob.is_empty() {
            return None;
        }
        lookup(blob, self.base, (rank & (SPAN - 1)) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_round_trip_and_look_up() {
        let mut x = 7u64;
        let mut entries = Vec::new();
        let mut r = 0u32;
        loop {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            r += 1 + (x >> 58) as u32 * 37;
            if r as u64 >= SPAN {
                break;
            }
            entries.push((r, 9 + (x >> 40) as u8 % DIST_RANGE));
        }
        let blob = encode(&entries, 9).unwrap();
        assert_eq!(check(&blob), Ok(entries.len()));
        let mut back = Vec::new();
        entries_of(&blob, &mut back);
        assert_eq!(back, entries);
        for r in 0..SPAN as u32 {
            let want = entries.iter().find(|e| e.0 == r).map(|e| e.1);
            assert_eq!(lookup(&blob, 9, r), want, "rank {r}");
        }
        assert_eq!(encode(&[(3, 8)], 9), None, "below the base");
        assert_eq!(encode(&[(3, 9 + DIST_RANGE)], 9), None, "above the range");
        let mut bad = blob.clone();
        bad[0] = 0xff;
        assert!(check(&bad).is_err());
        assert!(check(&blob[..blob.len() - 1]).is_err());
    }

    fn entries_of(blob: &[u8], out: &mut Vec<(u32, u8)>) {
        entries(blob, 9, |r, d| out.push((r, d)));
    }
}
