//! Answers for peg boards stored as layers (`french37`): distances read chunk by chunk
//! from the file, optimal moves and solution counts derived from them as the layer
//! solver defines them. Every chunk read is checked for shape before it is used, and
//! each walk checks what it passes: every step goes one move closer, no move of a
//! position on the path leads more than one move closer, and the last step reaches the
//! finish.

use std::cell::RefCell;
use std::collections::HashMap;

use super::{Database, LongestAnswer, QueryError, Result, Solutions, StateAnswer};
use crate::solvers::peg::Board;
use crate::solvers::peg::layers::table::{self, PegLayout};
use crate::solvers::peg::layers::{self, Distances, Layout};

/// Most positions whose counts one query derives; beyond, the count is reported as not
/// computed rather than keeping the user waiting.
pub const COUNT_BUDGET: usize = 20_000_000;

/// A board's stored layers, read from the file as lookups need them.
pub(super) struct LayerReader<'a> {
    db: &'a Database,
    name: &'a str,
    layout: PegLayout,
    chunks: RefCell<HashMap<u64, Vec<u8>>>,
}

impl<'a> LayerReader<'a> {
    /// Reads and checks the layout: the encoding, the chunk count, each layer's chunks
    /// covering exactly its ranks, in order of peg count and without gaps.
    pub(super) fn open(db: &'a Database, board: &'a Board) -> Result<LayerReader<'a>> {
        let name = board.name;
        let bad = |what: &str| db.inconsistent(format!("{name}: the layers' layout {what}"));
        let (text, chunks) = db
            .chunks()
            .table(name, "distance")
            .map_err(db.sql())?
            .ok_or_else(|| bad("is missing"))?;
        let layout: PegLayout = serde_json::from_str(&text).map_err(|_| bad("does not parse"))?;
        layout
            .check(board.holes, chunks)
            .map_err(|why| bad(&format!("is wrong: {why}")))?;
        Ok(LayerReader {
            db,
            name,
            layout,
            chunks: RefCell::new(HashMap::new()),
        })
    }

    /// Drops the chunks kept for lookups once there are more than `n` (an export reads
    /// every chunk of a board, and keeps its memory bounded).
    pub(super) fn keep_at_most(&self, n: usize) {
        let mut chunks = self.chunks.borrow_mut();
        if chunks.len() > n {
            chunks.clear();
        }
    }

    pub(super) fn layout(&self) -> &PegLayout {
        &self.layout
    }

    /// Chunk `chunk` read from the file and checked to decode (an empty blob is a chunk
    /// without positions); one that is missing or does not decode is an inconsistency.
    pub(super) fn read_chunk(&self, chunk: u64) -> Result<Vec<u8>> {
        let key = i64::try_from(chunk).unwrap_or(i64::MAX);
        let blob = (self.db.chunks().chunk(self.name, "distance", chunk)).map_err(self.db.sql())?;
        let Some(blob) = blob else {
            // Its digest's group lacks a row: named as a digest failure where it is one.
            self.db
                .digested(self.name, "packed_chunks", "distance", key)?;
            return Err((self.db).inconsistent(format!("{}: chunk {chunk} is missing", self.name)));
        };
        self.db.digested_chunk(self.name, "distance", key, &blob)?;
        if !blob.is_empty() {
            table::check(&blob).map_err(|e| {
                (self.db).inconsistent(format!("{}: chunk {chunk}: {}", self.name, e.0))
            })?;
        }
        Ok(blob)
    }
}

impl Distances for LayerReader<'_> {
    type Error = QueryError;

    fn distance(&self, pegs: usize, rank: u64) -> Result<Option<u8>> {
        let Some((chunk, base)) = self.layout.chunk_of(pegs, rank) else {
            return Ok(None);
        };
        let mut cache = self.chunks.borrow_mut();
        let blob = match cache.entry(chunk) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(self.read_chunk(chunk)?),
        };
        if blob.is_empty() {
            return Ok(None);
        }
        let r = (rank % self.layout.ranks_per_chunk) as u32;
        Ok(table::lookup(blob, base, r))
    }
}

#[warn(missing_docs)]
impl Database {
    /// `--state` and `--start` on a board stored as layers: the distance, the count of
    /// shortest solutions (derived) and the path of first optimal moves.
    pub(super) fn walk_layers(&self, board: &Board, bits: u64) -> Result<StateAnswer> {
        let name = board.name;
        let text = board.format(bits);
        let reader = LayerReader::open(self, board)?;
        let layout = Layout::new(board);
        let bad = |what: String| self.inconsistent(format!("{name}: {what}"));
        let Some(distance) = layers::distance_of(&layout, &reader, bits)? else {
            if bits == board.start {
                return Err(bad(format!("the start {text} is not stored")));
            }
            return Err(QueryError::Unreachable(format!(
                "{text} has no entry in {name}: only positions that can still finish are \
                 stored, so it is either not reachable from the start or cannot finish with \
                 one peg in hole {}",
                board.finish.trailing_zeros()
            )));
        };
        let mut path = vec![text.clone()];
        let mut moves = Vec::new();
        let (mut cur, mut d) = (bits, distance);
        while d > 0 {
            let mut first = None;
            let mut err = None;
            board.for_each_move(cur, |mv, after| {
                if err.is_some() {
                    return;
                }
                match layers::distance_of(&layout, &reader, after) {
                    Ok(Some(e)) if e + 1 < d => {
                        err = Some(bad(format!(
                            "{} at distance {d} has a move to {} at distance {e}",
                            board.format(cur),
                            board.format(after)
                        )))
                    }
                    Ok(Some(e)) if e + 1 == d && first.is_none() => {
                        first = Some((mv.to_vec(), after))
                    }
                    Ok(_) => {}
                    Err(e) => err = Some(e),
                }
            });
            if let Some(e) = err {
                return Err(e);
            }
            let (mv, after) = first.ok_or_else(|| {
                bad(format!(
                    "{} at distance {d} has no move one closer",
                    board.format(cur)
                ))
            })?;
            path.push(board.format(after));
            moves.push(mv);
            cur = after;
            d -= 1;
        }
        if cur != board.finish {
            return Err(bad(format!(
                "{} is stored at distance 0 but is not the finish",
                board.format(cur)
            )));
        }
        let mut memo = HashMap::new();
        let counted =
            layers::count_solutions_within(&layout, &reader, bits, &mut memo, COUNT_BUDGET)?;
        let solutions = match counted {
            Some(Some(n)) => Solutions::Exactly(n),
            Some(None) => Solutions::Overflow,
            None => Solutions::NotStored,
        };
        Ok(StateAnswer {
            puzzle: name.to_string(),
            state: text,
            distance: distance.into(),
            solutions,
            path,
            moves: Some(moves),
            move_names: None,
            cluster: None,
        })
    }

    /// `--longest` on a board stored as layers: the stored farthest positions, each
    /// checked against its own lookup, as many as the histogram's classes at the maximum.
    pub(super) fn longest_layers(&self, board: &Board, max: Option<u32>) -> Result<LongestAnswer> {
        let name = board.name;
        let reader = LayerReader::open(self, board)?;
        let layout = Layout::new(board);
        self.digested(name, "farthest", "", 0)?;
        let rows = self.conn.farthest(name).map_err(self.sql())?;
        let at_max = self
            .conn
            .histogram(name)
            .map_err(self.sql())?
            .into_iter()
            .find(|h| Some(h.distance) == max);
        for r in &rows {
            let parsed = board.parse(&r.state).ok();
            let canonical = parsed.map(|b| board.canonical(b).0);
            if canonical != Some(r.rank)
                || Some(r.distance) != max
                || layers::distance_of(&layout, &reader, r.rank)?.map(u32::from) != max
            {
                return Err(self.inconsistent(format!(
                    "{name}: the farthest position {} is not at the maximum distance",
                    r.state
                )));
            }
        }
        let distance = max
            .filter(|_| at_max.is_some_and(|h| h.classes == rows.len() as u64))
            .ok_or_else(|| {
                self.inconsistent(format!(
                    "{name}: the farthest positions do not match the histogram"
                ))
            })?;
        Ok(LongestAnswer {
            puzzle: name.to_string(),
            distance,
            count: rows.len() as u64,
            states: rows.into_iter().map(|r| r.state).collect(),
        })
    }

    /// The classes stored per peg count, from the layout (checked against the chunks).
    pub(super) fn stored_layer_classes(&self, board: &Board) -> Result<Vec<(u8, u64)>> {
        let reader = LayerReader::open(self, board)?;
        Ok((reader.layout().layers.iter())
            .map(|l| (l.pegs, l.positions))
            .collect())
    }
}
