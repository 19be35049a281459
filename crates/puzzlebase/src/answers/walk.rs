//! `--state` and `--start`: a position's distance, solution count and one optimal path,
//! walked over the stored rows, the packed distance table or a peg board's canonical
//! rows. Each walk checks what it reads on the way (its method says exactly what) and
//! refuses an answer the file contradicts: every step goes one move closer and the last
//! reaches the goal; no neighbour read is more than one move closer (in move puzzles,
//! nor farther); served texts parse back to their ranks; and the first count is the sum
//! over the optimal successors.

use super::kind::{self, Asked};
use super::moves::move_names;
use super::packed::PackedReader;
use super::{Database, QueryError, Result, Solutions, StateAnswer, Stop};
use crate::core::format;
use crate::core::space::GraphPuzzle;
use crate::solvers::peg::Board;
use crate::store::{PositionRow, PuzzleInfo, Storage};

#[warn(missing_docs)]
impl Database {
    /// Distance, solution count and an optimal path for the position written `text`.
    /// The text is checked before the file, so a malformed position is reported as such
    /// even for a puzzle that has not been generated.
    pub fn state(&self, name: &str, text: &str) -> Result<StateAnswer> {
        let p = self.known(name)?;
        kind::of(&p).state(&Asked { db: self, p: &p }, text)
    }

    /// [`Database::state`], giving up when `stop` says so where the answer is a search
    /// (a Rush Hour board's cluster, a `fifteen` position): `query --timeout`.
    pub fn state_until(&self, name: &str, text: &str, stop: &Stop) -> Result<StateAnswer> {
        let p = self.known(name)?;
        kind::of(&p).answer(&Asked { db: self, p: &p }, text, stop)
    }

    /// Like [`Database::state`] for the puzzle's own starting position.
    pub fn start(&self, name: &str) -> Result<StateAnswer> {
        let p = self.known(name)?;
        kind::of(&p).start(&Asked { db: self, p: &p })
    }

    /// An optimal path from a peg board's position, from wherever it is stored.
    pub(super) fn walk_peg_in(
        &self,
        board: &Board,
        info: &PuzzleInfo,
        bits: u64,
    ) -> Result<StateAnswer> {
        match info.storage {
            Storage::PegLayers => self.walk_layers(board, bits),
            _ => self.walk_peg(board, bits),
        }
    }

    /// An optimal path from `rank` of a move puzzle, from wherever it is stored.
    pub(super) fn walk_graph(
        &self,
        g: &dyn GraphPuzzle,
        info: &PuzzleInfo,
        rank: u64,
        text: &str,
    ) -> Result<StateAnswer> {
        match info.storage {
            Storage::Packed => self.walk_packed(g, rank, text),
            _ => self.walk(g, info, rank, text),
        }
    }

    /// Reads distances from the packed table and steps, from `rank`, to the
    /// smallest-ranked neighbour one move closer until the goal: the same path the
    /// positions table's `next_rank` gives for the smaller puzzles. Every neighbour on
    /// the way is read anyway, so each step also checks that none is more than one move
    /// closer or farther, and the count against the sum of the closer neighbours' counts.
    fn walk_packed(&self, g: &dyn GraphPuzzle, rank: u64, text: &str) -> Result<StateAnswer> {
        let name = g.name();
        let tables = PackedReader::open(self, g)?;
        let state = g.format(rank);
        let mut nbs = Vec::new();
        let Some(distance) = tables.distance(rank)? else {
            return Err(self.unsolvable(
                g,
                rank,
                text,
                |nb| Ok(tables.distance(nb)?.is_some()),
                |nb| {
                    format!(
                        "{name}: {state} is stored as unsolvable but its neighbour {} is solvable",
                        g.format(nb)
                    )
                },
            ));
        };
        let solutions = tables.solutions(rank)?;
        if distance == 0 {
            // A goal has one shortest solution: the empty one.
            self.check_count(name, &state, solutions, Some(1))?;
        }
        let mut path = vec![state.clone()];
        let mut ranks = vec![rank];
        let (mut cur, mut d) = (rank, distance);
        while d > 0 {
            nbs.clear();
            g.neighbors(cur, &mut nbs);
            let mut next = None;
            let mut sum = Some(0u64);
            for &nb in &nbs {
                let nd = tables.distance(nb)?;
                if nd.is_none_or(|nd| nd + 1 < d || nd > d + 1) {
                    return Err(self.inconsistent(format!(
                        "{name}: {} at distance {d} has a neighbour {} at distance {}",
                        g.format(cur),
                        g.format(nb),
                        nd.map_or("none".to_string(), |n| n.to_string())
                    )));
                }
                if nd == Some(d - 1) {
                    next = Some(next.map_or(nb, |n: u64| n.min(nb)));
                    if cur == rank && solutions != Solutions::NotStored {
                        sum = add_counts(sum, tables.solutions(nb)?);
                    }
                }
            }
            if cur == rank {
                self.check_count(name, &state, solutions, sum)?;
            }
            cur = next.ok_or_else(|| {
                self.inconsistent(format!(
                    "{name}: {} at distance {d} has no neighbour one move closer",
                    g.format(cur)
                ))
            })?;
            d -= 1;
            path.push(g.format(cur));
            ranks.push(cur);
        }
        if !g.goals().contains(&cur) {
            return Err(self.inconsistent(format!(
                "{name}: {} is stored at distance 0 but is not the goal",
                g.format(cur)
            )));
        }
        Ok(StateAnswer {
            puzzle: name.to_string(),
            state,
            distance,
            solutions,
            path,
            moves: None,
            move_names: move_names(g, &ranks),
            cluster: None,
        })
    }

    /// The answer for a position the file does not hold: it cannot be solved, unless a
    /// neighbour is stored as solvable (`solvable`), which the file cannot both say, and
    /// which is reported as inconsistent (`contradiction` names the neighbour's case).
    fn unsolvable(
        &self,
        g: &dyn GraphPuzzle,
        rank: u64,
        text: &str,
        mut solvable: impl FnMut(u64) -> Result<bool>,
        contradiction: impl Fn(u64) -> String,
    ) -> QueryError {
        // An unsolvable position has only unsolvable neighbours.
        let mut nbs = Vec::new();
        g.neighbors(rank, &mut nbs);
        for nb in nbs {
            match solvable(nb) {
                Ok(false) => {}
                Ok(true) => return self.inconsistent(contradiction(nb)),
                Err(e) => return e,
            }
        }
        QueryError::Unreachable(format!(
            "{} in {} cannot be solved: the goal is not reachable from it",
            text.trim(),
            g.name()
        ))
    }

    /// A stored solution count must be the sum over the optimal successors' counts
    /// (`None` in `sum`: the sum overflows, which only the overflow marker may say).
    fn check_count(
        &self,
        name: &str,
        state: &str,
        stored: Solutions,
        sum: Option<u64>,
    ) -> Result<()> {
        if stored == Solutions::Exactly(0) {
            // Every position with a distance has at least one shortest solution.
            return Err(self.inconsistent(format!("{name}: the solution count of {state} is 0")));
        }
        let expected = match sum {
            _ if stored == Solutions::NotStored => return Ok(()),
            Some(n) if n <= i64::MAX as u64 => Solutions::Exactly(n),
            _ => Solutions::Overflow,
        };
        if stored != expected {
            return Err(self.inconsistent(format!(
                "{name}: the solution count of {state} is {stored:?} but its optimal moves \
                 lead to {expected:?}"
            )));
        }
        Ok(())
    }

    /// Why the rank `rank` of a move puzzle stored as rows has no row: only solvable
    /// positions are rows, so it cannot be solved ([`QueryError::Unreachable`]) unless
    /// every rank reaches the goal or one of its neighbours has a row, which the file
    /// cannot both say (damage, [`QueryError::Inconsistent`]). The one rule by which a
    /// walk and a distance read a missing row.
    pub(super) fn no_row(
        &self,
        g: &dyn GraphPuzzle,
        info: &PuzzleInfo,
        rank: u64,
        text: &str,
    ) -> QueryError {
        let name = g.name();
        if info.solvable == info.states {
            return self.inconsistent(format!(
                "{name}: {} (rank {rank}) has no row, but every position of {name} \
                 reaches the goal",
                g.format(rank)
            ));
        }
        let rows = self.rows(name);
        self.unsolvable(
            g,
            rank,
            text,
            |nb| Ok(rows.facts(nb)?.is_some()),
            |nb| {
                format!(
                    "{name}: {} has no row but its neighbour of rank {nb} has one",
                    g.format(rank)
                )
            },
        )
    }

    /// Follows `next_rank` from `rank` to the goal. Each step reads every neighbour's
    /// row: `next_rank` must be the smallest-ranked neighbour one move closer, no
    /// neighbour may be more than one move closer or farther, every served state text
    /// must parse back to its rank, and the first count must be the sum of the counts of
    /// the neighbours one move closer.
    fn walk(
        &self,
        g: &dyn GraphPuzzle,
        info: &PuzzleInfo,
        rank: u64,
        text: &str,
    ) -> Result<StateAnswer> {
        let name = g.name();
        let rows = self.rows(name);
        let mut nbs = Vec::new();
        let Some(first) = rows.get(rank)? else {
            return Err(self.no_row(g, info, rank, text));
        };
        self.check_state_text(name, &first, g.parse(&first.state).ok())?;
        // A move puzzle's rows are exactly the positions that reach the goal, so a row
        // without a distance is damage, not an answer.
        let Some(distance) = first.distance else {
            return Err(self.inconsistent(format!(
                "{name}: the row of {} has no distance",
                first.state
            )));
        };
        let solutions = if info.counts {
            Solutions::from_stored(first.solutions)
        } else {
            Solutions::NotStored
        };
        if distance == 0 {
            // A goal has one shortest solution: the empty one.
            self.check_count(name, &first.state, solutions, Some(1))?;
        }
        let mut path = vec![first.state.clone()];
        let mut ranks = vec![first.rank];
        let mut row = first.clone();
        let mut d = distance;
        while d > 0 {
            nbs.clear();
            g.neighbors(row.rank, &mut nbs);
            let mut closer: Option<u64> = None;
            let mut sum = Some(0u64);
            for &nb in &nbs {
                let n = rows.facts(nb)?;
                let nd = n.and_then(|n| n.distance);
                if nd.is_none_or(|nd| nd + 1 < d || nd > d + 1) {
                    return Err(self.inconsistent(format!(
                        "{name}: {} at distance {d} has a neighbour of rank {nb} at distance {}",
                        row.state,
                        nd.map_or("none".to_string(), |n| n.to_string())
                    )));
                }
                let n = n.expect("checked above");
                if nd == Some(d - 1) {
                    if row.rank == rank {
                        sum = add_counts(sum, Solutions::from_stored(n.solutions));
                    }
                    if closer.is_none_or(|c| nb < c) {
                        closer = Some(nb);
                    }
                }
            }
            if row.rank == rank {
                self.check_count(name, &first.state, solutions, sum)?;
            }
            let next = closer
                .filter(|&c| Some(c) == row.next_rank)
                .map(|c| rows.get(c))
                .transpose()?
                .flatten()
                .ok_or_else(|| {
                    self.inconsistent(format!(
                        "{name}: the next position stored for {} (rank {:?}) is not its \
                         smallest-ranked neighbour one move closer",
                        row.state, row.next_rank
                    ))
                })?;
            self.check_state_text(name, &next, g.parse(&next.state).ok())?;
            path.push(next.state.clone());
            ranks.push(next.rank);
            row = next;
            d -= 1;
        }
        if !g.goals().contains(&row.rank) || row.next_rank.is_some() {
            return Err(self.inconsistent(format!(
                "{name}: {} is stored at distance 0 but is not the goal",
                row.state
            )));
        }
        Ok(StateAnswer {
            puzzle: name.to_string(),
            state: first.state,
            distance,
            solutions,
            path,
            moves: None,
            move_names: move_names(g, &ranks),
            cluster: None,
        })
    }

    /// Follows the stored optimal moves from `bits` to the finish. Rows are stored in
    /// canonical form, so each step canonicalises the position, reads its row, and maps
    /// the stored move back through the inverse symmetry into the user's orientation.
    /// Every stored move must be legal and lead to the stored next position one move
    /// closer; the first position's moves are all read, so that none leads more than one
    /// move closer and the count is the sum over the optimal ones.
    fn walk_peg(&self, board: &Board, bits: u64) -> Result<StateAnswer> {
        let name = board.name;
        let text = board.format(bits);
        let finish = board.finish.trailing_zeros();
        let lookup = |bits: u64| -> Result<Option<PositionRow>> {
            let rank = board.canonical(bits).0;
            let row = self.row(name, rank)?;
            if let Some(r) = &row {
                let parsed = board.parse(&r.state).ok().map(|b| board.canonical(b).0);
                self.check_state_text(name, r, parsed)?;
            }
            Ok(row)
        };
        let Some(first) = lookup(bits)? else {
            if bits == board.start {
                return Err(self.inconsistent(format!("{name}: the start {text} has no row")));
            }
            let why = if self.peg_stores_all(name)? {
                // Every position one jump after a reachable one is reachable: a stored
                // parent proves this one should be stored too.
                for j in &board.jumps {
                    let (from, over, to) = (1u64 << j.from, 1u64 << j.over, 1u64 << j.to);
                    if bits & to != 0 && bits & (from | over) == 0 {
                        let parent = (bits & !to) | from | over;
                        if lookup(parent)?.is_some() {
                            return Err(self.inconsistent(format!(
                                "{name}: {text} has no row but {} one jump before it has one",
                                board.format(parent)
                            )));
                        }
                    }
                }
                "it is not reachable from the start position".to_string()
            } else {
                format!(
                    "only positions that can still finish are stored for {name}, so it is either \
                     not reachable from the start or cannot finish with one peg in hole {finish}"
                )
            };
            return Err(QueryError::Unreachable(format!(
                "{text} has no entry in {name}: {why}"
            )));
        };
        let Some(distance) = first.distance else {
            // A move to a position that can finish would make this one able to finish.
            let mut moves = Vec::new();
            board.for_each_move(bits, |_, after| moves.push(after));
            for after in moves {
                if lookup(after)?.is_some_and(|r| r.distance.is_some()) {
                    return Err(self.inconsistent(format!(
                        "{name}: {text} is stored as unable to finish but its move to {} can",
                        board.format(after)
                    )));
                }
            }
            return Err(QueryError::Unreachable(format!(
                "{text} is reachable in {name} but cannot finish with one peg in hole {finish}"
            )));
        };
        let bad = |what: String| self.inconsistent(format!("{name}: {what}"));
        if distance > 0 {
            let mut sum = Some(0u64);
            let mut moves = Vec::new();
            board.for_each_move(bits, |_, after| moves.push(after));
            for after in moves {
                let Some(d) = lookup(after)?.map(|r| (r.distance, r.solutions)) else {
                    continue;
                };
                match d.0 {
                    Some(nd) if nd + 1 < distance => {
                        return Err(bad(format!(
                            "{text} at distance {distance} has a move to {} at distance {nd}",
                            board.format(after)
                        )));
                    }
                    Some(nd) if nd + 1 == distance => {
                        sum = add_counts(sum, Solutions::from_stored(d.1));
                    }
                    _ => {}
                }
            }
            self.check_count(name, &text, Solutions::from_stored(first.solutions), sum)?;
        } else {
            // The finish has one shortest solution: the empty one.
            self.check_count(
                name,
                &text,
                Solutions::from_stored(first.solutions),
                Some(1),
            )?;
        }
        let mut path = vec![text.clone()];
        let mut moves = Vec::new();
        let mut cur = bits;
        let mut row = first.clone();
        while row.distance != Some(0) {
            let (Some(mv_text), Some(next_rank)) = (&row.mv, row.next_rank) else {
                return Err(bad(format!("{} has no stored move", row.state)));
            };
            let (_, sym) = board.canonical(cur);
            let illegal = || {
                bad(format!(
                    "the move {mv_text} stored for {} is illegal",
                    row.state
                ))
            };
            let stored = board.parse_move(mv_text).ok_or_else(illegal)?;
            let mv = board.map_move(&stored, sym, true);
            cur = board.apply_move(cur, &mv).ok_or_else(illegal)?;
            if board.canonical(cur).0 != next_rank {
                return Err(bad(format!(
                    "the move {mv_text} stored for {} does not lead to its stored next position",
                    row.state
                )));
            }
            path.push(board.format(cur));
            moves.push(mv);
            let closer = row.distance.map(|d| d - 1);
            row = (lookup(cur)?)
                .filter(|r| r.distance == closer)
                .ok_or_else(|| {
                    bad(format!(
                        "{} is not one move closer than the position before it",
                        board.format(cur)
                    ))
                })?;
        }
        if cur != board.finish {
            return Err(bad(format!(
                "{} is stored at distance 0 but is not the finish",
                board.format(cur)
            )));
        }
        Ok(StateAnswer {
            puzzle: name.to_string(),
            state: text,
            distance,
            solutions: Solutions::from_stored(first.solutions),
            path,
            moves: Some(moves),
            move_names: None,
            cluster: None,
        })
    }

    /// Whether the file keeps every reachable position of this peg puzzle, rather than
    /// only those that can still finish: only then are there rows without a distance.
    fn peg_stores_all(&self, name: &str) -> Result<bool> {
        self.conn
            .has_positions_without_distance(name)
            .map_err(self.sql())
    }
}

/// Adds a successor's count to a running sum; `None` once the sum can no longer be
/// represented (it will then only match the overflow marker).
fn add_counts(sum: Option<u64>, count: Solutions) -> Option<u64> {
    match count {
        Solutions::Exactly(n) => format::add_known_counts(sum, Some(n)),
        Solutions::Overflow => None,
        Solutions::NotStored => sum,
    }
}
