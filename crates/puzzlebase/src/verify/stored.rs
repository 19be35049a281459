//! What the file stores, read without trusting it: a value of the wrong type, a chunk
//! missing or out of place, a row in a table the puzzle does not use, each is reported as
//! a bad fact about the file, named by where it is, rather than as a failed read. The
//! statements are [`crate::store::audit`]'s; only their raw values are judged here.

use crate::store::Reader;
use crate::store::Value;

use super::check::{Check, bad, same, show_opt};
use crate::core::packed::ChunkLayout;
use crate::store::audit::{PackedTableRow, Table};

/// The tables a puzzle stored in packed tables (move graphs, pattern databases) leaves
/// empty.
pub(super) const UNUSED_WHEN_PACKED: &[Table] = &[
    Table::Positions,
    Table::PegLayers,
    Table::PegMatrix,
    Table::Solutions,
];

/// Tables a puzzle of this storage must have no rows in.
pub(super) fn must_be_empty(conn: &Reader, name: &str, tables: &[Table]) -> Check<()> {
    let counts = conn.rows_of_each(tables, name)?;
    none_in(tables.iter().zip(counts).map(|(&t, n)| (t, n as u64)))
}

/// Each table of `counts` (a table, and the puzzle's rows in it) is empty.
pub(super) fn none_in(counts: impl IntoIterator<Item = (Table, u64)>) -> Check<()> {
    for (t, n) in counts {
        if n != 0 {
            return bad(format!(
                "{n} rows in {}, which this puzzle does not use",
                t.name()
            ));
        }
    }
    Ok(())
}

/// An integer column: `None` for NULL; anything but an integer is a bad entry.
pub(super) fn int(v: Value<'_>, what: &dyn Fn() -> String) -> Check<Option<i64>> {
    match v {
        Value::Null => Ok(None),
        Value::Integer(i) => Ok(Some(i)),
        _ => bad(format!("{}: not an integer", what())),
    }
}

/// A NOT NULL integer in `lo..=hi`.
pub(super) fn int_in(v: Value<'_>, lo: i64, hi: i64, what: &dyn Fn() -> String) -> Check<i64> {
    match int(v, what)? {
        Some(i) if (lo..=hi).contains(&i) => Ok(i),
        Some(i) => bad(format!("{}: {i} is outside {lo}..={hi}", what())),
        None => bad(format!("{}: NULL", what())),
    }
}

/// A text column: `None` for NULL; a blob, a number or bytes that are not UTF-8 are a bad
/// entry.
pub(super) fn text(v: Value<'_>, what: &dyn Fn() -> String) -> Check<Option<String>> {
    match v {
        Value::Null => Ok(None),
        Value::Text(t) => match std::str::from_utf8(t) {
            Ok(s) => Ok(Some(s.to_string())),
            Err(_) => bad(format!("{}: not UTF-8 text", what())),
        },
        _ => bad(format!("{}: not text", what())),
    }
}

/// Every row of a small per-puzzle table as integers (NULL as `None`), in key order.
pub(super) fn int_rows(conn: &Reader, table: Table, name: &str) -> Check<Vec<Vec<Option<i64>>>> {
    let mut out = Vec::new();
    conn.for_each_row(table, name, |row| -> Check<()> {
        let n = out.len();
        let vals = (row.iter())
            .map(|&v| int(v, &|| format!("{} row {n}", table.name())))
            .collect::<Check<_>>()?;
        out.push(vals);
        Ok(())
    })?;
    Ok(out)
}

/// Compares stored rows with the rows the rules give, naming the first difference.
pub(super) fn same_rows(
    table: &str,
    key: &dyn Fn(&[Option<i64>]) -> String,
    stored: &[Vec<Option<i64>>],
    want: &[Vec<Option<i64>>],
) -> Check<()> {
    let fmt = |r: &[Option<i64>]| {
        r.iter()
            .map(|v| show_opt(*v))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (i, w) in want.iter().enumerate() {
        match stored.get(i) {
            Some(s) if s == w => {}
            Some(s) if key(s) == key(w) => {
                return bad(format!(
                    "{table} {}: stored ({}) but the rules give ({})",
                    key(w),
                    fmt(s),
                    fmt(w)
                ));
            }
            _ => return bad(format!("{table} {}: missing ({})", key(w), fmt(w))),
        }
    }
    if let Some(s) = stored.get(want.len()) {
        return bad(format!(
            "{table} {}: a row the rules do not give ({})",
            key(s),
            fmt(s)
        ));
    }
    Ok(())
}

/// A puzzle's `packed_tables` rows in kind order; a row that does not read as one is a
/// bad fact.
pub(super) fn packed_table_rows(conn: &Reader, name: &str) -> Check<Vec<PackedTableRow>> {
    conn.packed_table_rows(name)?
        .or_else(|e| bad(format!("packed_tables is malformed: {e}")))
}

/// The encoding, chunk size and chunk count a `packed_tables` row gives are `layout`'s.
pub(super) fn table_columns_are(s: &PackedTableRow, layout: &dyn ChunkLayout) -> Check<()> {
    let what = |col: &str| format!("packed_tables {} {col}", s.kind);
    same(&what("encoding"), s.encoding.as_str(), layout.encoding())?;
    same(
        &what("ranks_per_chunk"),
        &s.ranks_per_chunk,
        &(layout.ranks_per_chunk() as i64),
    )?;
    same(&what("chunks"), &s.chunks, &(layout.chunks() as i64))
}

/// The blobs of chunks `0..chunks` of one packed table, each present exactly once.
pub(super) fn read_chunks(
    conn: &Reader,
    name: &str,
    kind: &str,
    chunks: u64,
) -> Check<Vec<Vec<u8>>> {
    let mut out = Vec::with_capacity(chunks as usize);
    each_chunk(conn, name, kind, chunks, |_, b| {
        out.push(b.to_vec());
        Ok(())
    })?;
    Ok(out)
}

/// Hands `each` the blobs of chunks `0..chunks` of one packed table in order, one at a
/// time (a table of gigabytes is never held whole); fails unless each is present exactly
/// once.
pub(super) fn each_chunk(
    conn: &Reader,
    name: &str,
    kind: &str,
    chunks: u64,
    mut each: impl FnMut(u64, &[u8]) -> Check<()>,
) -> Check<()> {
    let mut order = ChunkOrder::new(kind, chunks);
    conn.for_each_chunk(name, kind, |chunk, data| {
        let (c, blob) = order.next(chunk, data)?;
        each(c, blob)
    })?;
    order.end()
}

/// The chunks of one packed table as they are read, in the order of their numbers:
/// chunks `0..chunks`, each present exactly once ([`each_chunk`], and the reads that
/// take the chunks with the checksum).
pub(super) struct ChunkOrder<'k> {
    kind: &'k str,
    chunks: u64,
    seen: u64,
}

impl<'k> ChunkOrder<'k> {
    pub(super) fn new(kind: &'k str, chunks: u64) -> ChunkOrder<'k> {
        ChunkOrder {
            kind,
            chunks,
            seen: 0,
        }
    }

    /// The next chunk read (its stored number and data): its number, if it is the one
    /// due, and its blob.
    pub(super) fn next<'v>(&mut self, chunk: Value<'_>, data: Value<'v>) -> Check<(u64, &'v [u8])> {
        let (kind, seen, chunks) = (self.kind, self.seen, self.chunks);
        let c = int(chunk, &|| format!("{kind} chunk number"))?;
        if c != Some(seen as i64) {
            return bad(format!(
                "{kind} chunk {seen}: missing ({} stored in its place)",
                show_opt(c)
            ));
        }
        if seen >= chunks {
            return bad(format!(
                "{kind} chunk {seen}: beyond the table's {chunks} chunks"
            ));
        }
        match data {
            Value::Blob(b) => {
                self.seen += 1;
                Ok((seen, b))
            }
            _ => bad(format!("{kind} chunk {seen}: its data is not a blob")),
        }
    }

    /// After the last chunk read: none is missing.
    pub(super) fn end(self) -> Check<()> {
        if self.seen < self.chunks {
            return bad(format!("{} chunk {}: missing", self.kind, self.seen));
        }
        Ok(())
    }
}

/// The stored `farthest` rows are `far` (sorted ranks), each with the notation `notation`
/// gives and the maximum distance `max`.
pub(super) fn farthest_rows_are(
    conn: &Reader,
    name: &str,
    far: &[u64],
    max: Option<u32>,
    notation: &dyn Fn(u64) -> String,
) -> Check<()> {
    let mut i = 0;
    conn.for_each_row(Table::Farthest, name, |row| -> Check<()> {
        let rank = int(row[0], &|| "farthest.rank".to_string())?;
        let Some(&want) = far.get(i) else {
            return bad(format!(
                "farthest: rank {} is stored but is not at the maximum distance",
                show_opt(rank)
            ));
        };
        let at = || format!("farthest rank {want} (state {})", notation(want));
        if rank != Some(want as i64) {
            return bad(format!(
                "{}: missing (rank {} stored in its place)",
                at(),
                show_opt(rank)
            ));
        }
        let state = text(row[1], &|| format!("{}: state", at()))?;
        if state.as_deref() != Some(notation(want).as_str()) {
            return bad(format!(
                "{}: state text {:?} is not the notation of the rank",
                at(),
                state.unwrap_or_default()
            ));
        }
        let d = int(row[2], &|| format!("{}: distance", at()))?;
        if d != max.map(i64::from) {
            return bad(format!(
                "{}: distance {} but the table gives {}",
                at(),
                show_opt(d),
                show_opt(max)
            ));
        }
        i += 1;
        Ok(())
    })?;
    if let Some(&want) = far.get(i) {
        return bad(format!(
            "farthest rank {want} (state {}): at the maximum distance but missing",
            notation(want)
        ));
    }
    Ok(())
}
