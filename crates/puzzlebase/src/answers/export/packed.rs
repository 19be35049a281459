//! Exporting a packed puzzle rank by rank in bounded memory ([`PackedRows`]): each
//! rank's distance, count and next position on an optimal path, read through the same
//! layouts and decoders as `query`'s reader (`super::super::packed`). That reader keeps
//! every chunk it reads, which suits a path of a few dozen lookups; an export visits
//! every rank and its neighbours, so its chunks are held in a table indexed by chunk
//! number (no hashing on the way of a quarter of a billion ranks) and dropped once a
//! budget is reached, and two-bit distances are remembered in a fixed-size cache.
//!
//! The next position is the one `query --state` shows second: the smallest-ranked
//! neighbour one move closer (on a two-bit table, the neighbours whose code is one less
//! are exactly those one move closer).

use super::ExportRow;
use crate::answers::{Database, QueryError, Result, packed_layouts};
use crate::core::packed::{ChunkLayout, CodeLayout, CountLayout, DistanceLayout};
use crate::core::space::GraphPuzzle;

/// Bytes of distance chunks kept at once: eleven's whole table (about 120 MB) fits, so
/// its neighbours' lookups read each chunk once.
const DISTANCE_BUDGET: u64 = 384 << 20;

/// Count chunks kept at once: counts are read only for the rank being written, in
/// order, so the current chunk is all that is needed.
const COUNT_CHUNKS: usize = 4;

/// Entries of the two-bit distance cache (16 bytes each: 64 MiB).
const WALKED_SLOTS: usize = 1 << 22;

/// An empty slot of the two-bit distance cache.
const UNWALKED: (u64, u32) = (u64::MAX, 0);

/// One packed table's chunks, read as asked and kept up to `limit`, then all dropped.
struct Chunks<'a> {
    db: &'a Database,
    name: &'a str,
    kind: &'static str,
    slots: Vec<Option<Box<[u8]>>>,
    held: Vec<u64>,
    limit: usize,
}

impl<'a> Chunks<'a> {
    fn new(db: &'a Database, name: &'a str, kind: &'static str, count: u64, limit: usize) -> Self {
        Chunks {
            db,
            name,
            kind,
            slots: vec![None; count as usize],
            held: Vec::new(),
            limit: limit.max(1),
        }
    }

    /// Runs `read` on chunk `c`'s blob; a chunk that is missing, or whose entry does not
    /// decode (`read` gives `None`), is damage.
    fn with<T>(&mut self, c: u64, read: impl FnOnce(&[u8]) -> Option<T>) -> Result<T> {
        let bad = || {
            (self.db).inconsistent(format!(
                "{}: {} chunk {c} is missing or damaged",
                self.name, self.kind
            ))
        };
        let i = c as usize;
        if i >= self.slots.len() {
            return Err(bad());
        }
        if self.slots[i].is_none() {
            if self.held.len() >= self.limit {
                for h in self.held.drain(..) {
                    self.slots[h as usize] = None;
                }
            }
            let key = i64::try_from(c).unwrap_or(i64::MAX);
            self.db
                .digested(self.name, "packed_chunks", self.kind, key)?;
            let blob = (self.db.chunks().chunk(self.name, self.kind, c))
                .map_err(self.db.sql())?
                .ok_or_else(bad)?;
            self.slots[i] = Some(blob.into_boxed_slice());
            self.held.push(c);
        }
        read(self.slots[i].as_deref().expect("read above")).ok_or_else(bad)
    }
}

/// The rows of a packed puzzle, one rank at a time.
pub(super) struct PackedRows<'a> {
    db: &'a Database,
    g: &'a dyn GraphPuzzle,
    layout: DistanceLayout,
    counts: Option<(CountLayout, Chunks<'a>)>,
    distance: Chunks<'a>,
    /// Two-bit tables: `(rank, distance)` at slot `rank % WALKED_SLOTS` (empty:
    /// [`UNWALKED`]), so that walks to the goal stop where an earlier one passed.
    walked: Vec<(u64, u32)>,
    /// The stored maximum distance: a walk down the codes longer than this is damage
    /// (codes that cycle), as in `query`'s reader.
    longest: u32,
    goals: Vec<u64>,
    nbs: Vec<u64>,
    path: Vec<u64>,
}

impl<'a> PackedRows<'a> {
    pub(super) fn open(db: &'a Database, g: &'a dyn GraphPuzzle) -> Result<PackedRows<'a>> {
        let name = g.name();
        let (layout, counts) = packed_layouts(db, g)?;
        let inner: &dyn ChunkLayout = match &layout {
            DistanceLayout::Runs(l) => l,
            DistanceLayout::Codes(l) => l,
        };
        let limit = (DISTANCE_BUDGET / inner.chunk_bytes(0).max(1)) as usize;
        let distance = Chunks::new(db, name, "distance", inner.chunks(), limit);
        let counts = counts.map(|l| {
            let chunks = Chunks::new(db, name, "solutions", l.chunks(), COUNT_CHUNKS);
            (l, chunks)
        });
        let walked = match layout {
            DistanceLayout::Codes(_) => vec![UNWALKED; WALKED_SLOTS],
            DistanceLayout::Runs(_) => Vec::new(),
        };
        let longest = super::super::packed::longest_walk(db, name)?;
        Ok(PackedRows {
            db,
            g,
            layout,
            counts,
            distance,
            walked,
            longest,
            goals: g.goals(),
            nbs: Vec::new(),
            path: Vec::new(),
        })
    }

    /// Rank `rank`'s row.
    pub(super) fn row(&mut self, rank: u64) -> Result<ExportRow> {
        let (distance, next) = match self.layout {
            DistanceLayout::Codes(l) => self.by_codes(&l, rank)?,
            DistanceLayout::Runs(_) => {
                let distance = self.distance(rank)?;
                let next = match distance {
                    Some(d) if d > 0 => Some(self.next(rank, d)?),
                    _ => None,
                };
                (distance, next)
            }
        };
        let solutions = match (&mut self.counts, distance) {
            (Some((l, chunks)), Some(_)) => {
                chunks.with(l.locate(rank).chunk, |b| l.count(b, rank).ok())?
            }
            _ => None,
        };
        let next = next.map(|n| self.g.format(n));
        Ok(ExportRow::Position {
            rank,
            state: self.g.format(rank),
            distance,
            solutions,
            next,
        })
    }

    /// A two-bit rank's distance and next position from one reading of its neighbours:
    /// the next is the smallest-ranked neighbour one code lower, and the distance one
    /// more than that neighbour's (walked, or remembered from an earlier walk).
    fn by_codes(&mut self, l: &CodeLayout, rank: u64) -> Result<(Option<u32>, Option<u64>)> {
        let Some(code) = self.code(l, rank)? else {
            return Ok((None, None));
        };
        if self.goals.contains(&rank) {
            return match code {
                0 => Ok((Some(0), None)),
                _ => Err(self.inconsistent(format!("the goal (rank {rank}) has code {code}"))),
            };
        }
        let want = l.closer(code);
        let mut nbs = std::mem::take(&mut self.nbs);
        nbs.clear();
        self.g.neighbors(rank, &mut nbs);
        let mut closer = None;
        let mut result = Ok(());
        for &nb in &nbs {
            match self.code(l, nb) {
                Ok(Some(c)) if c == want => closer = Some(closer.map_or(nb, |c: u64| c.min(nb))),
                Ok(Some(_)) => {}
                Ok(None) => {
                    result = Err(self.inconsistent(format!(
                        "{} (code {code}) has a neighbour {} out of reach",
                        self.g.format(rank),
                        self.g.format(nb)
                    )));
                    break;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.nbs = nbs;
        result?;
        let next = closer.ok_or_else(|| {
            self.inconsistent(format!(
                "rank {rank} (code {code}) has no neighbour one move closer"
            ))
        })?;
        let d = (self.walk(l, next)?)
            .and_then(|d| d.checked_add(1))
            .ok_or_else(|| self.inconsistent(format!("rank {rank}: no distance down its codes")))?;
        self.walked[(rank % WALKED_SLOTS as u64) as usize] = (rank, d);
        Ok((Some(d), Some(next)))
    }

    fn inconsistent(&self, what: String) -> QueryError {
        self.db.inconsistent(format!("{}: {what}", self.g.name()))
    }

    /// The smallest-ranked neighbour of `rank` (at distance `d`) one move closer; every
    /// neighbour is read, and one more than a move closer or farther is damage.
    fn next(&mut self, rank: u64, d: u32) -> Result<u64> {
        let mut nbs = std::mem::take(&mut self.nbs);
        nbs.clear();
        self.g.neighbors(rank, &mut nbs);
        let mut closer = None;
        let mut result = Ok(());
        for &nb in &nbs {
            let nd = match &self.layout {
                // On a two-bit table a neighbour's code tells closer, same or farther.
                DistanceLayout::Codes(l) => {
                    let l = *l;
                    match self.code(&l, nb) {
                        Ok(Some(c)) if c == l.closer((d % u32::from(l.modulus())) as u8) => {
                            Some(d - 1)
                        }
                        Ok(Some(_)) => Some(d),
                        Ok(None) => None,
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
                DistanceLayout::Runs(_) => match self.distance(nb) {
                    Ok(nd) => nd,
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                },
            };
            if nd.is_none_or(|nd| nd + 1 < d || nd > d + 1) {
                result = Err(self.inconsistent(format!(
                    "{} at distance {d} has a neighbour {} at distance {}",
                    self.g.format(rank),
                    self.g.format(nb),
                    nd.map_or("none".to_string(), |n| n.to_string())
                )));
                break;
            }
            if nd == Some(d - 1) {
                closer = Some(closer.map_or(nb, |c: u64| c.min(nb)));
            }
        }
        self.nbs = nbs;
        result?;
        closer.ok_or_else(|| {
            self.inconsistent(format!(
                "{} at distance {d} has no neighbour one move closer",
                self.g.format(rank)
            ))
        })
    }

    /// `rank`'s distance; `None` where the goal is out of reach.
    fn distance(&mut self, rank: u64) -> Result<Option<u32>> {
        if rank >= self.g.size() {
            return Err(self.inconsistent(format!("rank {rank} is outside its table")));
        }
        match &self.layout {
            DistanceLayout::Runs(l) => {
                (self.distance).with(l.locate(rank).chunk, |b| l.distance(b, rank).ok())
            }
            DistanceLayout::Codes(l) => {
                let l = *l;
                self.walk(&l, rank)
            }
        }
    }

    fn code(&mut self, l: &CodeLayout, rank: u64) -> Result<Option<u8>> {
        self.distance
            .with(l.locate(rank).chunk, |b| l.code(b, rank).ok())
    }

    fn remembered(&self, rank: u64) -> Option<u32> {
        let (r, d) = self.walked[(rank % WALKED_SLOTS as u64) as usize];
        (r == rank).then_some(d)
    }

    /// A two-bit rank's distance: the number of steps to the goal through neighbours
    /// one code lower, as `query`'s reader counts them (and with the same refusals),
    /// stopping at a rank an earlier walk passed.
    fn walk(&mut self, l: &CodeLayout, rank: u64) -> Result<Option<u32>> {
        if let Some(d) = self.remembered(rank) {
            return Ok(Some(d));
        }
        let Some(mut code) = self.code(l, rank)? else {
            return Ok(None);
        };
        let mut path = std::mem::take(&mut self.path);
        let mut nbs = std::mem::take(&mut self.nbs);
        path.clear();
        path.push(rank);
        let end = loop {
            let r = *path.last().expect("not empty");
            if let Some(d) = self.remembered(r).filter(|_| r != rank) {
                break Ok(d as usize);
            }
            if self.goals.contains(&r) {
                if code != 0 {
                    break Err(self.inconsistent(format!("the goal (rank {r}) has code {code}")));
                }
                break Ok(0);
            }
            if path.len() > self.longest as usize {
                break Err(self.inconsistent(format!(
                    "rank {rank}: no goal within {} steps (the maximum distance) down its codes",
                    self.longest
                )));
            }
            let want = l.closer(code);
            nbs.clear();
            self.g.neighbors(r, &mut nbs);
            let mut closer = None;
            for &nb in &nbs {
                match self.code(l, nb) {
                    Ok(c) if c == Some(want) => {
                        closer = Some(Ok(nb));
                        break;
                    }
                    Ok(_) => {}
                    Err(e) => {
                        closer = Some(Err(e));
                        break;
                    }
                }
            }
            match closer {
                Some(Ok(nb)) => path.push(nb),
                Some(Err(e)) => break Err(e),
                None => {
                    break Err(self.inconsistent(format!(
                        "rank {r} (code {code}) has no neighbour one move closer"
                    )));
                }
            }
            code = want;
        };
        let result = end.and_then(|end| {
            let steps = path.len() - 1;
            let far = u32::try_from(end + steps)
                .ok()
                .filter(|&d| d <= self.longest)
                .ok_or_else(|| {
                    self.inconsistent(format!(
                        "rank {rank}: more than {} moves (the maximum distance) from the goal",
                        self.longest
                    ))
                })?;
            for (i, &r) in path.iter().enumerate() {
                self.walked[(r % WALKED_SLOTS as u64) as usize] = (r, far - i as u32);
            }
            Ok(Some(far))
        });
        self.path = path;
        self.nbs = nbs;
        result
    }
}
