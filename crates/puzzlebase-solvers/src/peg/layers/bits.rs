//! One bit per position of a layer (indexed by colex rank), set concurrently, scanned in
//! parallel, and spilled to unnamed scratch files while other layers are worked on.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::colex::{Colex, next};

/// Ranks per unit of parallel work when scanning (and per stored chunk).
pub const SPAN_BITS: u32 = 16;
pub const SPAN: u64 = 1 << SPAN_BITS;

/// A layer's bitmap: `len` bits, all clear at first.
pub struct Bitmap {
    words: Vec<AtomicU64>,
    len: u64,
}

impl Bitmap {
    pub fn new(len: u64) -> Bitmap {
        let n = len.div_ceil(64) as usize;
        // Zeroed memory straight from the allocator: pages are touched only when set.
        let mut v = std::mem::ManuallyDrop::new(vec![0u64; n]);
        // SAFETY: AtomicU64 has the size, alignment and bit validity of u64.
        let words =
            unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<AtomicU64>(), n, v.capacity()) };
        Bitmap { words, len }
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn get(&self, i: u64) -> bool {
        self.words[(i >> 6) as usize].load(Relaxed) >> (i & 63) & 1 == 1
    }

    /// Sets bit `i` (a plain read first: most targets are set already).
    #[inline]
    pub fn set(&self, i: u64) {
        let w = &self.words[(i >> 6) as usize];
        let m = 1u64 << (i & 63);
        if w.load(Relaxed) & m == 0 {
            w.fetch_or(m, Relaxed);
        }
    }

    pub fn count(&self) -> u64 {
        self.words
            .par_iter()
            .map(|w| w.load(Relaxed).count_ones() as u64)
            .sum()
    }

    fn as_bytes(&self) -> &[u8] {
        // SAFETY: plain bytes of the words; no thread writes while a layer is saved.
        unsafe {
            std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.words.len() * 8)
        }
    }

    /// Writes the layer to an unnamed file in `dir`: the system removes it when it is
    /// closed, whatever ends the process.
    pub fn spill(&self, dir: &Path) -> io::Result<Spilled> {
        let mut file = tempfile::tempfile_in(dir)?;
        for chunk in self.as_bytes().chunks(1 << 24) {
            file.write_all(chunk)?;
        }
        Ok(Spilled {
            file,
            len: self.len,
        })
    }

    /// Calls `f(rank, bits)` for every set bit whose rank lies in span `s` (ranks
    /// `s * SPAN ..`), in rank order; `bits` is the position with `k` pegs of that rank.
    #[inline]
    pub fn scan_span(&self, colex: &Colex, k: usize, s: u64, mut f: impl FnMut(u64, u64)) {
        let lo = s * SPAN;
        let hi = (lo + SPAN).min(self.len);
        let mut bits = None;
        let mut r = lo;
        while r < hi {
            let w = self.words[(r >> 6) as usize].load(Relaxed);
            let end = (r + 64).min(hi);
            if w == 0 {
                bits = None;
                r = end;
                continue;
            }
            let mut b = match bits {
                Some(b) => b,
                None => colex.unrank(k, r),
            };
            let mut word = w;
            let mut at = r;
            // Gosper steps are cheaper than unranking at each set bit.
            while word != 0 {
                let tz = word.trailing_zeros() as u64;
                for _ in at..r + tz {
                    b = next(b);
                }
                at = r + tz;
                f(at, b);
                word &= word - 1;
            }
            for _ in at..end {
                b = next(b);
            }
            bits = if end < self.len { Some(b) } else { None };
            r = end;
        }
    }

    /// Spans of this layer.
    pub fn spans(&self) -> u64 {
        self.len.div_ceil(SPAN)
    }
}

/// A layer's bitmap on scratch disk.
pub struct Spilled {
    file: File,
    len: u64,
}

impl Spilled {
    /// Reads the layer back into memory.
    pub fn load(&mut self) -> io::Result<Bitmap> {
        let map = Bitmap::new(self.len);
        self.file.seek(SeekFrom::Start(0))?;
        // SAFETY: the words are not shared yet; filled from the bytes written by `spill`.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(map.words.as_ptr() as *mut u8, map.words.len() * 8)
        };
        for chunk in bytes.chunks_mut(1 << 24) {
            self.file.read_exact(chunk)?;
        }
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_visit_every_set_bit_with_its_position() {
        let colex = Colex::new(20);
        let k = 9;
        let map = Bitmap::new(colex.layer_size(k));
        let mut x = 12345u64;
        let mut set = Vec::new();
        for _ in 0..5000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (x >> 20) % map.len();
            map.set(r);
            set.push(r);
        }
        set.sort_unstable();
        set.dedup();
        assert_eq!(map.count(), set.len() as u64);
        let mut seen = Vec::new();
        for s in 0..map.spans() {
            map.scan_span(&colex, k, s, |r, b| {
                assert_eq!(colex.rank(b), r);
                seen.push(r);
            });
        }
        assert_eq!(seen, set);
        let dir = tempfile::tempdir().unwrap();
        let mut spilled = map.spill(dir.path()).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "unnamed");
        let back = spilled.load().unwrap();
        assert!(set.iter().all(|&r| back.get(r)));
        assert_eq!(back.count(), set.len() as u64);
    }
}
