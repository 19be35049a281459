//! What every check shares: how a check fails ([`Fail`]: a fact that does not hold, or a
//! read that failed), what a puzzle's rows give for its `puzzles` row ([`Derived`]), the
//! comparison of a stored fact with the rules', and the parallel scan over entries.
//!
//! [`first_failure`] reports the failure at the smallest index whatever the thread count,
//! so that a damaged file gives the same message on every machine.

use rayon::prelude::*;

use crate::core::format::COUNT_OVERFLOW;
use crate::core::packed::{ChunkLayout, CountLayout};
use crate::core::progress::Progress;
use crate::store::{SqlError, StoreError};

/// Why one puzzle's check stopped: a stored fact that does not hold, or a read failure.
pub(super) enum Fail {
    Bad(String),
    Sql(SqlError),
}

impl From<SqlError> for Fail {
    fn from(e: SqlError) -> Self {
        Fail::Sql(e)
    }
}

/// A failed read is a read failure; any other error of the store is a bad fact.
impl From<StoreError> for Fail {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Sqlite { source, .. } => Fail::Sql(source),
            other => Fail::Bad(other.to_string()),
        }
    }
}

impl From<String> for Fail {
    fn from(s: String) -> Self {
        Fail::Bad(s)
    }
}

pub(super) type Check<T> = Result<T, Fail>;

pub(super) fn bad<T>(fact: impl Into<String>) -> Check<T> {
    Err(Fail::Bad(fact.into()))
}

/// What the rows of a puzzle give for its `puzzles` row.
pub(super) struct Derived {
    pub(super) entries: u64,
    pub(super) states: u64,
    pub(super) solvable: u64,
    pub(super) max_distance: Option<u32>,
}

pub(super) fn show_opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("NULL".to_string(), |v| v.to_string())
}

pub(super) fn same<T: PartialEq + std::fmt::Display + ?Sized>(
    what: &str,
    stored: &T,
    want: &T,
) -> Check<()> {
    if stored == want {
        return Ok(());
    }
    let (s, w) = (stored.to_string(), want.to_string());
    // Definitions are long JSON: name the fact, not the whole text.
    if s.len() + w.len() > 200 {
        return bad(format!("{what} differs from what the rules give"));
    }
    bad(format!("{what} is {s} but the rules give {w}"))
}

/// The first failure over `0..n` checked by `f` in parallel, at the smallest index,
/// advancing `progress` by each block of indices checked.
pub(super) fn first_failure<F>(n: u64, progress: &dyn Progress, f: F) -> Check<()>
where
    F: Fn(u64, &mut Vec<u64>) -> Check<()> + Sync,
{
    const CHUNK: u64 = 1 << 14;
    let found = (0..n.div_ceil(CHUNK)).into_par_iter().find_map_first(|c| {
        let mut buf = Vec::with_capacity(16);
        let range = c * CHUNK..((c + 1) * CHUNK).min(n);
        let len = range.end - range.start;
        let found = range.into_iter().find_map(|i| f(i, &mut buf).err());
        progress.advance(len);
        found
    });
    match found {
        Some(fail) => Err(fail),
        None => Ok(()),
    }
}

pub(super) fn show_count(c: u64) -> String {
    if c == COUNT_OVERFLOW {
        "more than 2^63-1 (the overflow marker)".to_string()
    } else {
        c.to_string()
    }
}

/// A distance as a refusal names it (`None`: not stored).
pub(super) fn show_dist(d: Option<impl std::fmt::Display>) -> String {
    d.map_or("none: it is not stored".to_string(), |d| d.to_string())
}

/// The counts `count` (one per rank) are stored in `layout`, the narrowest count
/// encoding that holds them (beside `run-steps` or two-bit codes alike).
pub(super) fn counts_in_narrowest(layout: &CountLayout, count: &[u64]) -> Check<()> {
    let most = count.par_iter().copied().max().unwrap_or(0);
    let narrowest = CountLayout::for_counts(layout.ranks(), most);
    if narrowest != *layout {
        let most = if most == COUNT_OVERFLOW {
            "above 2^63 - 1".to_string()
        } else {
            most.to_string()
        };
        return bad(format!(
            "packed_tables solutions encoding: {}, but counts up to {most} take {}",
            layout.encoding(),
            narrowest.encoding()
        ));
    }
    Ok(())
}

/// Decodes solutions chunk `c` of `layout` into `out`, one count per rank of the chunk
/// in rank order (a count stored as "too many" as [`COUNT_OVERFLOW`]), or says in one
/// line why `blob` is not such a chunk: shared by the whole-table and the streaming
/// checks, so both refuse a chunk alike.
pub(super) fn decode_count_chunk(
    layout: &CountLayout,
    c: u64,
    blob: &[u8],
    out: &mut [u64],
) -> Check<()> {
    let want = layout.chunk_bytes(c);
    if blob.len() as u64 != want {
        return bad(format!(
            "solutions chunk {c}: {} bytes, {want} expected",
            blob.len()
        ));
    }
    let lo = c * layout.ranks_per_chunk();
    for (i, slot) in out.iter_mut().enumerate() {
        match layout.count(blob, lo + i as u64) {
            Ok(v) => *slot = v.unwrap_or(COUNT_OVERFLOW),
            Err(e) => return bad(format!("solutions chunk {c}: {e}")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_failure_is_the_smallest_index() {
        let f = |i: u64, _: &mut Vec<u64>| {
            if i % 7_000 == 6_999 {
                bad(format!("at {i}"))
            } else {
                Ok(())
            }
        };
        for _ in 0..20 {
            match first_failure(1 << 20, &crate::core::progress::Silent, f) {
                Err(Fail::Bad(m)) => assert_eq!(m, "at 6999"),
                _ => panic!("a failure is found"),
            }
        }
        assert!(first_failure(1 << 20, &crate::core::progress::Silent, |_, _| Ok(())).is_ok());
    }
}
