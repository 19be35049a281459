//! Reading a packed puzzle's distance and count tables by rank ([`PackedReader`]), from
//! the file or from the server's copy in memory. A chunk that is missing or does not
//! decode is refused as an inconsistency, never read as a value. The layouts are read
//! and checked against the definition by `packed_layouts` in the parent module, which
//! the loader of in-memory copies shares.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use super::resident::PackedTables;
use super::{Database, QueryError, Result, Solutions, packed_layouts};
use crate::core::packed::{CountLayout, RunLayout};
use crate::core::space::GraphPuzzle;
use crate::store;

/// The packed tables of one puzzle, read chunk by chunk as lookups need them: from the
/// file (a path visits a few dozen chunks, so each is read once and kept for the rest
/// of the query), or from the server's in-memory copy.
pub(super) struct PackedReader<'a> {
    db: &'a Database,
    name: &'a str,
    source: ChunkSource,
}

enum ChunkSource {
    File {
        distance: RunLayout,
        counts: Option<CountLayout>,
        chunks: RefCell<HashMap<(&'static str, u64), Vec<u8>>>,
    },
    Memory(Arc<PackedTables>),
}

impl<'a> PackedReader<'a> {
    pub(super) fn open(db: &'a Database, g: &'a dyn GraphPuzzle) -> Result<PackedReader<'a>> {
        let name = g.name();
        let source = match db.resident_packed(name) {
            Some(t) => ChunkSource::Memory(t),
            None => {
                let (distance, counts) = packed_layouts(db, g)?;
                ChunkSource::File {
                    distance,
                    counts,
                    chunks: RefCell::new(HashMap::new()),
                }
            }
        };
        Ok(PackedReader { db, name, source })
    }

    fn layouts(&self) -> (&RunLayout, Option<&CountLayout>) {
        match &self.source {
            ChunkSource::File {
                distance, counts, ..
            } => (distance, counts.as_ref()),
            ChunkSource::Memory(t) => (&t.distance, t.counts.as_ref()),
        }
    }

    /// Runs `read` on the blob of chunk `chunk` of table `kind`, reading it if needed.
    fn with_chunk<T>(
        &self,
        kind: &'static str,
        chunk: u64,
        read: impl FnOnce(&[u8]) -> Option<T>,
    ) -> Result<T> {
        let chunks = match &self.source {
            ChunkSource::Memory(t) => {
                let blob = t
                    .chunk(kind, chunk)
                    .ok_or_else(|| self.bad_chunk(kind, chunk))?;
                return read(blob).ok_or_else(|| self.bad_chunk(kind, chunk));
            }
            ChunkSource::File { chunks, .. } => chunks,
        };
        let mut chunks = chunks.borrow_mut();
        let blob = match chunks.entry((kind, chunk)) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(
                store::packed_chunk(&self.db.conn, self.name, kind, chunk)
                    .map_err(self.db.sql())?
                    .ok_or_else(|| self.bad_chunk(kind, chunk))?,
            ),
        };
        read(blob).ok_or_else(|| self.bad_chunk(kind, chunk))
    }

    fn bad_chunk(&self, kind: &str, chunk: u64) -> QueryError {
        (self.db).inconsistent(format!(
            "{}: {kind} chunk {chunk} is missing or damaged",
            self.name
        ))
    }

    pub(super) fn distance(&self, rank: u64) -> Result<Option<u8>> {
        let l = self.layouts().0;
        let chunk = l.locate(rank).chunk;
        self.with_chunk("distance", chunk, |b| l.distance(b, rank).ok())
    }

    pub(super) fn solutions(&self, rank: u64) -> Result<Solutions> {
        let Some(l) = self.layouts().1 else {
            return Ok(Solutions::NotStored);
        };
        let count =
            self.with_chunk("solutions", l.locate(rank).chunk, |b| l.count(b, rank).ok())?;
        Ok(Solutions::from_stored(count))
    }
}
