//! The two-bit layouts of a distance table, `mod4` and `mod3`: four ranks to a byte
//! (described in the [`super`] docs).

use serde_json::json;

use super::{
    CHUNK_BYTES, ChunkLayout, PackError, Slot, malformed, per_rank_description, too_short,
};

/// The two-bit layout of a distance table, `mod4` or `mod3` (see the [`super`] docs).
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

    pub fn modulus(&self) -> u8 {
        self.modulus
    }

    /// `rank`'s code from the blob of its chunk: the distance modulo 4 or 3, or
    /// `Ok(None)` where the goal is out of reach (`3` in a `mod3` table). `Err` when the
    /// blob is too short.
    pub fn code(&self, chunk: &[u8], rank: u64) -> Result<Option<u8>, PackError> {
        let s = self.locate(rank);
        let byte = chunk.get(s.offset).ok_or_else(|| too_short(s.chunk))?;
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
        // Copied a run of words at a time: a byte at a time through nested iterators
        // took about a nanosecond a byte (`perf` of `twelve` at two bits).
        let mut blocks = blocks.into_iter();
        let (mut block, mut at) = (Vec::new(), 0);
        (first..self.chunks()).map_while(move |c| {
            let len = layout.chunk_bytes(c) as usize;
            let mut chunk = Vec::with_capacity(len.next_multiple_of(8));
            while chunk.len() < len {
                if at == block.len() {
                    block = blocks.next()?;
                    at = 0;
                    continue;
                }
                let take = ((len - chunk.len()).div_ceil(8)).min(block.len() - at);
                for w in &block[at..at + take] {
                    chunk.extend_from_slice(&w.to_le_bytes());
                }
                at += take;
            }
            chunk.truncate(len);
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

    /// Chunk `c` from each of its ranks' distances (`None` where the goal is out of
    /// reach), as the two-bit search would write it: the distance modulo the modulus,
    /// `3` in `mod3` where the goal is out of reach, the bits past the last rank clear.
    /// `Err` for a rank out of reach in a `mod4` table, which has no code for it.
    pub fn encode_chunk_with(
        &self,
        c: u64,
        distance: impl Fn(u64) -> Option<u32>,
    ) -> Result<Vec<u8>, PackError> {
        let first = c * CODE_RANKS_PER_CHUNK;
        let mut chunk = vec![0u8; self.chunk_bytes(c) as usize];
        for r in first..first + self.ranks_in(c) {
            let code = match distance(r) {
                Some(d) => (d % self.modulus as u32) as u8,
                None if self.modulus == 3 => 3,
                None => {
                    return Err(PackError::BadLayout(format!(
                        "mod4 has no code for rank {r}, which cannot reach the goal"
                    )));
                }
            };
            chunk[((r - first) / 4) as usize] |= code << (2 * (r % 4));
        }
        Ok(chunk)
    }

    /// Clears the bits past the last rank in the last chunk.
    fn clear_unused(&self, last: &mut [u8]) {
        let used = self.ranks % 4;
        if let (Some(b), true) = (last.last_mut(), used != 0) {
            *b &= (1u8 << (2 * used)) - 1;
        }
    }
}

impl ChunkLayout for CodeLayout {
    fn encoding(&self) -> &'static str {
        if self.modulus == 4 { "mod4" } else { "mod3" }
    }

    fn ranks(&self) -> u64 {
        self.ranks
    }

    fn ranks_per_chunk(&self) -> u64 {
        CODE_RANKS_PER_CHUNK
    }

    fn locate(&self, rank: u64) -> Slot {
        let within = rank % CODE_RANKS_PER_CHUNK;
        Slot {
            chunk: rank / CODE_RANKS_PER_CHUNK,
            offset: (within / 4) as usize,
            step: (2 * (within % 4)) as u8,
        }
    }

    /// The last chunk may be short, and its last byte partly used.
    fn chunk_bytes(&self, c: u64) -> u64 {
        self.ranks_in(c).div_ceil(4)
    }

    fn describe(&self) -> serde_json::Value {
        json!({
            "encoding": self.encoding(),
            "ranks": self.ranks,
            "ranks_per_chunk": CODE_RANKS_PER_CHUNK,
            "bits_per_rank": 2,
            "modulus": self.modulus,
        })
    }

    fn from_description(v: &serde_json::Value) -> Result<CodeLayout, PackError> {
        let modulus = match v["encoding"].as_str() {
            Some("mod4") => 4,
            Some("mod3") => 3,
            _ => return Err(malformed(v)),
        };
        let (ranks, per) = per_rank_description(v, if modulus == 4 { "mod4" } else { "mod3" })?;
        let layout = CodeLayout::new(ranks, modulus)?;
        if per != CODE_RANKS_PER_CHUNK || layout.describe() != *v {
            return Err(malformed(v));
        }
        Ok(layout)
    }
}
