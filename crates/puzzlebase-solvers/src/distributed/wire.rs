//! How a batch of discovered ranks travels (between processes, and into checkpoint
//! files): sorted by rank, duplicates merged, each entry a LEB128 varint gap from the
//! previous rank (the first from the receiver's first rank), then the parent rank and
//! the path count when the search keeps them, as varints too. Sorted gaps take one to
//! three bytes where a plain rank takes eight.

/// One neighbour reached from a rank at the level being expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// The neighbour's global rank.
    pub rank: u64,
    /// The smallest rank it was reached from.
    pub parent: u32,
    /// The sum of the path counts it was reached with.
    pub count: u64,
}

/// Which fields besides the rank an encoded batch carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fields {
    pub parent: bool,
    pub count: bool,
}

/// Sorts `batch` by rank and merges entries of one rank (smallest parent, summed
/// counts), as the receiver would apply them one after the other.
pub fn merge(batch: &mut Vec<Reach>) {
    use rayon::slice::ParallelSliceMut;
    batch.par_sort_unstable_by_key(|r| r.rank);
    batch.dedup_by(|later, kept| {
        if later.rank != kept.rank {
            return false;
        }
        kept.parent = kept.parent.min(later.parent);
        kept.count = puzzlebase_core::format::add_counts(kept.count, later.count);
        true
    });
}

/// Appends `batch` (sorted, ranks distinct, none below `base`) to `out`.
pub fn encode(batch: &[Reach], base: u64, fields: Fields, out: &mut Vec<u8>) {
    let mut prev = base;
    for r in batch {
        put(out, r.rank - prev);
        prev = r.rank;
        if fields.parent {
            put(out, r.parent as u64);
        }
        if fields.count {
            put(out, r.count);
        }
    }
}

/// Calls `f` on each entry of an encoded batch; `None` if the bytes end inside an entry
/// or a value overflows.
pub fn decode(bytes: &[u8], base: u64, fields: Fields, mut f: impl FnMut(Reach)) -> Option<()> {
    let mut pos = 0;
    let mut rank = base;
    while pos < bytes.len() {
        f(entry(bytes, &mut pos, &mut rank, fields)?);
    }
    Some(())
}

/// Appends `batch` as a segment: its number of entries, then the batch as [`encode`]
/// writes it. Segments let one message carry several sorted batches (one per slice of
/// the sender's share).
pub fn encode_segment(batch: &[Reach], base: u64, fields: Fields, out: &mut Vec<u8>) {
    put(out, batch.len() as u64);
    encode(batch, base, fields, out);
}

/// Ranks alone: a batch carries neither parent nor count.
pub const BARE: Fields = Fields {
    parent: false,
    count: false,
};

/// Appends `ranks` (sorted, distinct, none below `base`) as a segment of bare ranks,
/// exactly as [`encode_segment`] writes them with [`BARE`] fields.
pub fn encode_rank_segment(ranks: &[u64], base: u64, out: &mut Vec<u8>) {
    put(out, ranks.len() as u64);
    let mut prev = base;
    for &r in ranks {
        put(out, r - prev);
        prev = r;
    }
}

/// Calls `f` on each segment of a message, decoded; `None` if the bytes are not whole
/// segments.
pub fn decode_segments(
    bytes: &[u8],
    base: u64,
    fields: Fields,
    mut f: impl FnMut(Vec<Reach>),
) -> Option<()> {
    let mut pos = 0;
    while pos < bytes.len() {
        let n = get(bytes, &mut pos)?;
        // Each entry takes at least a byte: a count beyond the bytes left is damage.
        if n > (bytes.len() - pos) as u64 {
            return None;
        }
        let mut rank = base;
        let mut seg = Vec::with_capacity(n as usize);
        for _ in 0..n {
            seg.push(entry(bytes, &mut pos, &mut rank, fields)?);
        }
        f(seg);
    }
    Some(())
}

fn entry(bytes: &[u8], pos: &mut usize, rank: &mut u64, fields: Fields) -> Option<Reach> {
    *rank = rank.checked_add(get(bytes, pos)?)?;
    let parent = if fields.parent {
        u32::try_from(get(bytes, pos)?).ok()?
    } else {
        0
    };
    let count = if fields.count { get(bytes, pos)? } else { 0 };
    Some(Reach {
        rank: *rank,
        parent,
        count,
    })
}

fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        v |= ((b & 0x7f) as u64).checked_shl(shift)?;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_round_trip_merged() {
        let mut batch = vec![
            Reach {
                rank: 900,
                parent: 7,
                count: 2,
            },
            Reach {
                rank: 10,
                parent: 3,
                count: 1,
            },
            Reach {
                rank: 900,
                parent: 5,
                count: 3,
            },
            Reach {
                rank: u64::MAX >> 1,
                parent: u32::MAX - 1,
                count: u64::MAX,
            },
        ];
        merge(&mut batch);
        assert_eq!(batch.len(), 3);
        assert_eq!(
            batch[1],
            Reach {
                rank: 900,
                parent: 5,
                count: 5
            }
        );
        let all = Fields {
            parent: true,
            count: true,
        };
        let mut bytes = Vec::new();
        encode(&batch, 10, all, &mut bytes);
        let mut back = Vec::new();
        decode(&bytes, 10, all, |r| back.push(r)).unwrap();
        assert_eq!(back, batch);
        // Ranks alone: one byte for a gap below 128.
        let bare = Fields {
            parent: false,
            count: false,
        };
        let mut small = Vec::new();
        encode(&batch[..2], 0, bare, &mut small);
        assert_eq!(small.len(), 1 + 2);
        // A batch cut inside an entry is refused.
        assert!(decode(&bytes[..bytes.len() - 1], 10, all, |_| ()).is_none());
        // Segments: two sorted batches in one message, each from the base again.
        let mut msg = Vec::new();
        encode_segment(&batch[..2], 10, all, &mut msg);
        encode_segment(&batch[..1], 10, all, &mut msg);
        let mut segs = Vec::new();
        decode_segments(&msg, 10, all, |s| segs.push(s)).unwrap();
        assert_eq!(segs, vec![batch[..2].to_vec(), batch[..1].to_vec()]);
        assert!(decode_segments(&msg[..msg.len() - 1], 10, all, |_| ()).is_none());
        // Bare ranks: the same bytes as entries without parent or count.
        let ranks: Vec<u64> = batch.iter().map(|r| r.rank).collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        encode_rank_segment(&ranks, 10, &mut a);
        encode_segment(&batch, 10, BARE, &mut b);
        assert_eq!(a, b);
    }
}
