//! A puzzle's checksum: the SHA-256 of its rows in every data table, in key order, and the
//! pass that computes it while handing rows to a caller, hashing beside the reading
//! ([`Aside`]) and cutting the digests' groups on the way ([`super::digests::Grouper`]).

use std::path::Path;

use rusqlite::Connection;
use sha2::{Digest, Sha256};

use super::{DATA_TABLES, Reader, Result, StoreError, Value, audit, digests, sql};
use puzzlebase_core::digest::sha256_hex;

impl Reader {
    /// SHA-256 over every row of `puzzle` in every data table, in key order. Identical
    /// contents give identical checksums whatever produced them.
    pub fn checksum(&self, puzzle: &str) -> Result<String> {
        let (sum, _) = self.checksum_with_rows(puzzle, None, [], |[]| Ok(()))?;
        Ok(sum)
    }

    /// [`Reader::checksum`], handing each chunk of `puzzle`'s packed tables `kinds` (none when empty)
    /// to `each` (the kind's place in `kinds`, then the chunk's number and data as stored)
    /// as it is hashed, by kind and then chunk number: a puzzle whose chunks are read anyway
    /// is then read once, not once more for its checksum. Stops at the first error `each`
    /// returns.
    pub fn checksum_reading<E: From<StoreError>>(
        &self,
        puzzle: &str,
        kinds: &[&str],
        mut each: impl FnMut(usize, Value<'_>, Value<'_>) -> std::result::Result<(), E>,
    ) -> std::result::Result<String, E> {
        if kinds.is_empty() {
            return Ok(self.checksum(puzzle)?);
        }
        let chunks = Some(audit::Table::PackedChunks);
        let wanted = ["kind", "chunk", "data"];
        let (sum, _) = self.checksum_with_rows(puzzle, chunks, wanted, |[k, c, d]| {
            let Value::Text(k) = k else {
                return Ok(());
            };
            match kinds.iter().position(|kind| kind.as_bytes() == k) {
                Some(i) => each(i, c, d),
                None => Ok(()),
            }
        })?;
        Ok(sum)
    }

    /// [`Reader::checksum`], handing each row of `puzzle` in `table` (its `wanted` columns, in that
    /// order; none when `table` is `None`) to `each` as it is hashed, in key order: rows read
    /// anyway are then read once. Also gives the number of `puzzle`'s rows in each data
    /// table, in the order of [`audit::Table::ALL`], so that a caller that needs tables empty
    /// asks no more. Stops at the first error `each` returns.
    pub fn checksum_with_rows<E: From<StoreError>, const N: usize>(
        &self,
        puzzle: &str,
        table: Option<audit::Table>,
        wanted: [&str; N],
        mut each: impl FnMut([Value<'_>; N]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(String, [u64; DATA_TABLES.len()]), E> {
        let path = self.path();
        let conn = self.conn();
        let mut counts = [0; DATA_TABLES.len()];
        let mut groups = digests::Grouper::default();
        let sum = hashed(|h| -> std::result::Result<(), E> {
            for ((name, order), n) in DATA_TABLES.iter().zip(&mut counts) {
                *n = if Some(*name) == table.map(audit::Table::name) {
                    hash_table(
                        (h, &mut groups),
                        conn,
                        path,
                        (name, order),
                        puzzle,
                        wanted,
                        |row| each(row.map(Value::from)),
                    )?
                } else {
                    hash_table(
                        (h, &mut groups),
                        conn,
                        path,
                        (name, order),
                        puzzle,
                        [],
                        |[]| Ok::<_, E>(()),
                    )?
                };
            }
            Ok(())
        })?;
        digests::remember(self, puzzle, Some(&sum), groups);
        Ok((sum, counts))
    }
}

/// The hex SHA-256 of what `rows` feeds, hashed beside the reading ([`Aside`]).
fn hashed<E>(
    rows: impl FnOnce(&mut Aside<'_, '_>) -> std::result::Result<(), E>,
) -> std::result::Result<String, E> {
    std::thread::scope(|s| {
        let mut aside = Aside {
            scope: s,
            bytes: Vec::with_capacity(ASIDE_BYTES),
            hasher: None,
        };
        let read = rows(&mut aside);
        let h = aside.finish();
        read.map(|()| sha256_hex(h))
    })
}

/// Bytes to hash, gathered into runs of about this many before they are handed on.
const ASIDE_BYTES: usize = 1 << 20;

/// What is fed to a checksum: a SHA-256 itself, or [`Aside`].
pub(super) trait Feed {
    fn feed(&mut self, bytes: &[u8]);
}

impl Feed for Sha256 {
    fn feed(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}

/// Bytes for a SHA-256, taken on another thread once there are more than
/// [`ASIDE_BYTES`] of them: the hashing then runs beside the reading, on the core the
/// read leaves idle (hashed in line, fourteen's codes took 39.6 s to read and check,
/// and 30.9 s this way). A puzzle with fewer bytes is hashed in line when the reading
/// ends, without starting a thread.
struct Aside<'scope, 'env> {
    scope: &'scope std::thread::Scope<'scope, 'env>,
    bytes: Vec<u8>,
    hasher: Option<(
        std::sync::mpsc::SyncSender<Vec<u8>>,
        std::thread::ScopedJoinHandle<'scope, Sha256>,
    )>,
}

impl Aside<'_, '_> {
    /// Hands on the bytes gathered, starting the hashing thread the first time.
    fn pass(&mut self) {
        let run = std::mem::replace(&mut self.bytes, Vec::with_capacity(ASIDE_BYTES));
        let (to, _) = self.hasher.get_or_insert_with(|| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(4);
            let hashing = self.scope.spawn(move || {
                let mut h = Sha256::new();
                for bytes in rx {
                    h.update(&bytes);
                }
                h
            });
            (tx, hashing)
        });
        // The hashing thread ends only when its sender is dropped, in `finish`.
        to.send(run).expect("the hashing thread is waiting");
    }

    /// The SHA-256 of every byte fed.
    fn finish(mut self) -> Sha256 {
        match self.hasher.take() {
            None => Sha256::new_with_prefix(&self.bytes),
            Some((to, hashing)) => {
                to.send(std::mem::take(&mut self.bytes))
                    .expect("the hashing thread is waiting");
                drop(to);
                hashing.join().expect("hashing bytes does not panic")
            }
        }
    }
}

impl Feed for Aside<'_, '_> {
    fn feed(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
        if self.bytes.len() >= ASIDE_BYTES {
            self.pass();
        }
    }
}

/// Feeds one table's rows of `puzzle`, in `order`, into the checksum, calling `row`
/// with each row's `wanted` columns, in that order, after the row is hashed; returns
/// the number of rows.
pub(super) fn hash_table<E: From<StoreError>, const N: usize>(
    (h, groups): (&mut impl Feed, &mut digests::Grouper),
    conn: &Connection,
    path: &Path,
    (table, order): (&str, &str),
    puzzle: &str,
    wanted: [&str; N],
    mut row: impl FnMut([rusqlite::types::ValueRef<'_>; N]) -> std::result::Result<(), E>,
) -> std::result::Result<u64, E> {
    h.feed(table.as_bytes());
    groups.start(table);
    // Cached: a checksum is eight statements, taken of every puzzle a run writes or
    // checks, and preparing them was most of it for the small ones.
    let mut st = conn
        .prepare_cached(&format!(
            "SELECT * FROM {table} WHERE puzzle = ?1 ORDER BY {order}"
        ))
        .map_err(sql(path))?;
    let cols = st.column_count();
    // Looked up once: by name on each row, it was a search of the columns per row.
    let mut at = [0; N];
    for (i, name) in at.iter_mut().zip(wanted) {
        *i = st.column_index(name).map_err(sql(path))?;
    }
    let mut rows = st.query([puzzle]).map_err(sql(path))?;
    let mut n = 0;
    while let Some(r) = rows.next().map_err(sql(path))? {
        let values = (0..cols)
            .map(|i| r.get_ref(i))
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(sql(path))?;
        hash_row(h, values.iter().copied());
        groups.row(&values);
        row(at.map(|i| values[i]))?;
        n += 1;
    }
    Ok(n)
}

/// One row's contribution to the checksum: a newline, then each value with its type.
pub(super) fn hash_row<'a>(
    h: &mut impl Feed,
    values: impl IntoIterator<Item = rusqlite::types::ValueRef<'a>>,
) {
    use rusqlite::types::ValueRef::*;
    h.feed(b"\n");
    for v in values {
        match v {
            Null => h.feed(b"\x00N"),
            Integer(v) => {
                h.feed(b"\x00I");
                h.feed(&v.to_le_bytes());
            }
            Real(v) => {
                h.feed(b"\x00R");
                h.feed(&v.to_le_bytes());
            }
            Text(t) | Blob(t) => {
                h.feed(b"\x00T");
                h.feed(&(t.len() as u64).to_le_bytes());
                h.feed(t);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fed in line or through its thread, [`Aside`] gives the SHA-256 of the bytes.
    #[test]
    fn aside_hashes_what_it_is_fed_either_way() {
        for len in [0, 1000, ASIDE_BYTES - 1, ASIDE_BYTES, 3 * ASIDE_BYTES + 7] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
            let got = std::thread::scope(|s| {
                let mut aside = Aside {
                    scope: s,
                    bytes: Vec::new(),
                    hasher: None,
                };
                for piece in bytes.chunks(4099) {
                    aside.feed(piece);
                }
                let started = aside.hasher.is_some();
                (sha256_hex(aside.finish()), started)
            });
            assert_eq!(
                got,
                (
                    sha256_hex(Sha256::new_with_prefix(&bytes)),
                    len >= ASIDE_BYTES
                )
            );
        }
    }
}
