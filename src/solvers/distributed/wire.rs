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
        kept.count = crate::core::format::add_counts(kept.count, later.count);
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
        rank = rank.checked_add(get(bytes, &mut pos)?)?;
        let parent = if fields.parent {
            u32::try_from(get(bytes, &mut pos)?).ok()?
        } else {
            0
        };
        let count = if fields.count {
            get(bytes, &mut pos)?
        } else {
            0
        };
        f(Reach {
            rank,
            parent,
            count,
        });
    }
    Some(())
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
    }
}
