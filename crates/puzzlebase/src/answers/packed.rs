//! Reading a packed puzzle's distance and count tables by rank ([`PackedReader`]), from
//! the file or from the server's copy in memory. A chunk that is missing or does not
//! decode is refused as an inconsistency, never read as a value. Two-bit tables give a
//! distance by walking to the goal through neighbours one code lower. The layouts are read
//! and checked against the definition by `packed_layouts` in the parent module, which
//! the loader of in-memory copies shares.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use super::resident::PackedTables;
use super::{Database, QueryError, Result, Solutions, packed_layouts};
use crate::core::packed::{ChunkLayout, CodeLayout, CountLayout, DistanceLayout};
use crate::core::space::GraphPuzzle;

/// The packed tables of one puzzle, read chunk by chunk as lookups need them: from the
/// file (a path visits a few dozen chunks, so each is read once and kept for the rest
/// of the query), or from the server's in-memory copy.
pub(super) struct PackedReader<'a> {
    db: &'a Database,
    name: &'a str,
    g: &'a dyn GraphPuzzle,
    source: ChunkSource,
    /// Distances found by walking two-bit codes (a path asks for every neighbour of
    /// every rank on it, and walks share their tails).
    walked: RefCell<HashMap<u64, Option<u32>>>,
    /// The longest walk an undamaged table allows: the stored maximum distance.
    longest: u32,
}

enum ChunkSource {
    File {
        distance: DistanceLayout,
        counts: Option<CountLayout>,
        chunks: RefCell<HashMap<(&'static str, u64), Vec<u8>>>,
    },
    Memory(Arc<PackedTables>),
}

/// How far a walk down a two-bit table's codes may go: the puzzle's stored maximum
/// distance. A longer walk is damage (codes that cycle); a puzzle without one stored
/// cannot be read anyway, so 0.
pub(super) fn longest_walk(db: &Database, name: &str) -> Result<u32> {
    let info = db.conn.puzzle(name).map_err(db.sql())?;
    Ok(info.and_then(|i| i.max_distance).unwrap_or(0))
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
        let longest = longest_walk(db, name)?;
        Ok(PackedReader {
            db,
            name,
            g,
            source,
            walked: RefCell::new(HashMap::new()),
            longest,
        })
    }

    fn layouts(&self) -> (&DistanceLayout, Option<&CountLayout>) {
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
            std::collections::hash_map::Entry::Vacant(e) => {
                let key = i64::try_from(chunk).map_err(|_| self.bad_chunk(kind, chunk))?;
                let blob =
                    (self.db.chunks().chunk(self.name, kind, chunk)).map_err(self.db.sql())?;
                // A chunk missing is damage too: its digest's group then lacks a row.
                let Some(blob) = blob else {
                    self.db.digested(self.name, "packed_chunks", kind, key)?;
                    return Err(self.bad_chunk(kind, chunk));
                };
                self.db.digested_chunk(self.name, kind, key, &blob)?;
                e.insert(blob)
            }
        };
        read(blob).ok_or_else(|| self.bad_chunk(kind, chunk))
    }

    fn bad_chunk(&self, kind: &str, chunk: u64) -> QueryError {
        (self.db).inconsistent(format!(
            "{}: {kind} chunk {chunk} is missing or damaged",
            self.name
        ))
    }

    /// `rank`'s distance to the goal; `None` where the goal is out of reach.
    pub(super) fn distance(&self, rank: u64) -> Result<Option<u32>> {
        match self.layouts().0 {
            DistanceLayout::Runs(l) => {
                let chunk = l.locate(rank).chunk;
                self.with_chunk("distance", chunk, |b| l.distance(b, rank).ok())
            }
            DistanceLayout::Codes(l) => self.walk(l, rank),
        }
    }

    fn code(&self, l: &CodeLayout, rank: u64) -> Result<Option<u8>> {
        if rank >= l.ranks() {
            return Err(self
                .db
                .inconsistent(format!("{}: rank {rank} is outside its table", self.name)));
        }
        self.with_chunk("distance", l.locate(rank).chunk, |b| l.code(b, rank).ok())
    }

    /// The distance from two-bit codes: the number of steps to a goal, each to a
    /// neighbour whose code is one less (modulo 4 or 3). Neighbours' distances differ by
    /// at most one and those three values have three codes, so that neighbour is exactly
    /// one closer and the walk is an optimal path. A walk that finds no such neighbour,
    /// reaches a goal whose code is not 0 or goes on past the stored maximum distance is
    /// damage.
    fn walk(&self, l: &CodeLayout, rank: u64) -> Result<Option<u32>> {
        if let Some(&d) = self.walked.borrow().get(&rank) {
            return Ok(d);
        }
        let damaged = |what: String| self.db.inconsistent(format!("{}: {what}", self.name));
        let Some(mut code) = self.code(l, rank)? else {
            self.walked.borrow_mut().insert(rank, None);
            return Ok(None);
        };
        let goals = self.g.goals();
        let (mut path, mut nbs) = (vec![rank], Vec::new());
        let end = loop {
            let r = *path.last().unwrap();
            if let Some(&Some(d)) = self.walked.borrow().get(&r) {
                break d as usize;
            }
            if goals.contains(&r) {
                if code != 0 {
                    return Err(damaged(format!("the goal (rank {r}) has code {code}")));
                }
                break 0;
            }
            if path.len() > self.longest as usize {
                return Err(damaged(format!(
                    "rank {rank}: no goal within {} steps (the maximum distance) down its codes",
                    self.longest
                )));
            }
            let want = l.closer(code);
            nbs.clear();
            self.g.neighbors(r, &mut nbs);
            let mut closer = None;
            for &nb in &nbs {
                if self.code(l, nb)? == Some(want) {
                    closer = Some(nb);
                    break;
                }
            }
            let Some(nb) = closer else {
                return Err(damaged(format!(
                    "rank {r} (code {code}) has no neighbour one move closer"
                )));
            };
            path.push(nb);
            code = want;
        };
        let steps = path.len() - 1;
        if end + steps > self.longest as usize {
            return Err(damaged(format!(
                "rank {rank}: more than {} moves (the maximum distance) from the goal",
                self.longest
            )));
        }
        let mut walked = self.walked.borrow_mut();
        for (i, &r) in path.iter().enumerate() {
            walked.insert(r, Some((end + steps - i) as u32));
        }
        Ok(Some((end + steps) as u32))
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
