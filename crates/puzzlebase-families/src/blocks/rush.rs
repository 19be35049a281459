//! Rush Hour boards in Michael Fogleman's notation, and the search of a board's cluster.
//!
//! **Notation.** 36 characters, the 6x6 board row by row: `.` or `o` an empty cell, `x`
//! a wall, an upper-case letter a cell of the piece of that letter. `A` is the red car:
//! horizontal, on the third row, its exit at the right end of that row. Every other
//! letter is a car (2 cells) or a truck (3 cells), horizontal or vertical as its cells
//! lie. [`Board::parse`] refuses anything else with one [`RushError`] naming the problem
//! (never a panic); [`Board::notation`] writes a board back (`o` empty, `x` a wall).
//!
//! **Moves and the goal.** A move slides one piece any distance along its line
//! (Fogleman's metric: `B+2` is the piece `B` two cells right or down, `B-1` one cell
//! left or up). A position is solved when the red car's right end is at the exit: the
//! car on the last two cells of the third row (Fogleman's goal; the move that carries it
//! out of the board is not counted).
//!
//! **The cluster.** [`solve`] searches breadth first every position reachable from the
//! board (its cluster: the moves are reversible, so the cluster is the board's connected
//! component) and gives the distance to the nearest solved position with an optimal
//! sequence of moves, or tells that the cluster has no solved position at all
//! ([`Solved::Unsolvable`]). Pieces are labelled, but two pieces on one line can never
//! pass each other, so a cluster counted with labelled pieces has as many positions as
//! with pieces of one shape interchangeable: the sizes are Fogleman's.

use std::collections::HashMap;
use std::fmt;

use puzzlebase_solvers::search::{Stop, Stopped};

/// The search's positions (a `u64` key each) by their index, Fx-hashed (one multiply per
/// key): with SipHash, the default, a large cluster took about 60% longer to search than
/// with a hand-written multiply hasher of the same kind, which this crate replaced.
type KeyMap = HashMap<u64, u32, rustc_hash::FxBuildHasher>;

/// The board's side: Fogleman's boards are 6x6.
pub const SIDE: usize = 6;
/// The cells of the board.
pub const CELLS: usize = SIDE * SIDE;
/// The red car's row (0-based: the third row).
pub const RED_ROW: usize = 2;
/// The most positions [`solve`] visits before it gives up: far above the largest
/// 6x6 cluster (Fogleman's largest has 541,934 positions).
pub const MAX_CLUSTER: usize = 1 << 24;

/// Why a board is refused, or a search given up: one line each.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RushError {
    /// The text is not 36 characters long.
    #[error("a Rush Hour board has 36 characters (6 rows of 6), this one has {0}")]
    WrongLength(usize),
    /// A character that is neither `.`, `o`, `x` nor an upper-case letter.
    #[error(
        "unknown character {ch:?} at index {at}, from 0 (use . or o for empty, x for a wall, A-Z for pieces)"
    )]
    UnknownCharacter { ch: char, at: usize },
    /// A piece of 1 cell, or of 4 or more.
    #[error("piece {piece} has {len} cell(s): a piece is a car (2) or a truck (3)")]
    BadLength { piece: char, len: usize },
    /// A piece whose cells are not one straight contiguous run.
    #[error(
        "piece {piece} is bent or split: its cells are not one straight run along a row or a column"
    )]
    Bent { piece: char },
    /// No `A` on the board.
    #[error("no red car: the board has no A")]
    RedMissing,
    /// `A` lies along a column.
    #[error("the red car A is vertical: it must lie along the third row")]
    RedVertical,
    /// `A` lies along a row other than the third.
    #[error("the red car A is on row {row}: it must be on the third row")]
    RedNotThirdRow { row: usize },
    /// `A` is a truck.
    #[error("the red car A has {len} cells: it must be a car (2 cells)")]
    RedNotCar { len: usize },
    /// A piece of a board built by hand that leaves the board (`x`: a wall off it).
    #[error("piece {piece} runs off the 6x6 board")]
    OffBoard { piece: char },
    /// A piece of a board built by hand on another or on a wall, or a letter used twice
    /// or not an upper-case letter.
    #[error("piece {piece} overlaps another piece or a wall, or its letter is taken or not A-Z")]
    Overlap { piece: char },
    /// A move of a piece the board does not have, or one that is blocked.
    #[error("move {0} is not possible on this board")]
    BadMove(Move),
    /// The cluster has more positions than the search may visit.
    #[error("the board's cluster has more than {0} positions: search given up")]
    ClusterTooLarge(usize),
    /// The search was stopped (its deadline passed, or its caller went away).
    #[error(transparent)]
    Stopped(#[from] Stopped),
}

/// One piece: its letter, its line and where it lies on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Its letter (`A` the red car).
    pub letter: char,
    /// Along a row (true) or a column.
    pub horizontal: bool,
    /// Its top-left cell's row (0-based).
    pub row: usize,
    /// Its top-left cell's column (0-based).
    pub col: usize,
    /// 2 (a car) or 3 (a truck).
    pub len: usize,
}

impl Piece {
    /// Its place along its line: the column of a horizontal piece, the row of a vertical.
    pub fn position(&self) -> usize {
        if self.horizontal { self.col } else { self.row }
    }

    /// The piece moved to `position` along its line.
    fn at(self, position: usize) -> Piece {
        if self.horizontal {
            Piece {
                col: position,
                ..self
            }
        } else {
            Piece {
                row: position,
                ..self
            }
        }
    }

    /// Its cells as a mask, cell `row * 6 + col` the bit of that index.
    /// Cells past the 64th (a piece built by hand off the board) are left out.
    pub fn mask(&self) -> u64 {
        let step = if self.horizontal { 1 } else { SIDE };
        let first = self.row.saturating_mul(SIDE).saturating_add(self.col);
        (0..self.len.min(SIDE)).fold(0, |m, i| {
            let cell = first.saturating_add(i * step);
            m | u32::try_from(cell)
                .ok()
                .and_then(|c| 1u64.checked_shl(c))
                .unwrap_or(0)
        })
    }
}

/// A move: a piece slid `by` cells (positive right or down), written `B+2`, `C-1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    pub piece: char,
    pub by: i8,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:+}", self.piece, self.by)
    }
}

/// A board: its walls and its pieces, in reading order of their first cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    /// The walls, cell `row * 6 + col` the bit of that index.
    pub walls: u64,
    /// The pieces, in reading order of their top-left cells when parsed.
    pub pieces: Vec<Piece>,
}

impl Board {
    /// Reads a board in Fogleman's notation, refusing a malformed one with the first
    /// problem found (checked in this order: length, characters, each piece's shape in
    /// letter order, the red car).
    pub fn parse(text: &str) -> Result<Board, RushError> {
        let chars: Vec<char> = text.chars().collect();
        if chars.len() != CELLS {
            return Err(RushError::WrongLength(chars.len()));
        }
        let mut walls = 0u64;
        let mut cells: [Vec<usize>; 26] = Default::default();
        let mut order = Vec::new();
        for (at, &ch) in chars.iter().enumerate() {
            match ch {
                '.' | 'o' => {}
                'x' => walls |= 1 << at,
                'A'..='Z' => {
                    let i = ch as usize - 'A' as usize;
                    if cells[i].is_empty() {
                        order.push(ch);
                    }
                    cells[i].push(at);
                }
                _ => return Err(RushError::UnknownCharacter { ch, at }),
            }
        }
        let mut letters = order.clone();
        letters.sort_unstable();
        let mut shaped = HashMap::new();
        for &letter in &letters {
            let at = &cells[letter as usize - 'A' as usize];
            shaped.insert(letter, piece_of(letter, at)?);
        }
        let red = *shaped.get(&'A').ok_or(RushError::RedMissing)?;
        if !red.horizontal {
            return Err(RushError::RedVertical);
        }
        if red.row != RED_ROW {
            return Err(RushError::RedNotThirdRow { row: red.row + 1 });
        }
        if red.len != 2 {
            return Err(RushError::RedNotCar { len: red.len });
        }
        let pieces = order.iter().map(|l| shaped[l]).collect();
        Ok(Board { walls, pieces })
    }

    /// The board in Fogleman's notation: `o` empty, `x` a wall, the pieces' letters.
    pub fn notation(&self) -> String {
        let mut out = ['o'; CELLS];
        for (i, c) in out.iter_mut().enumerate() {
            if self.walls >> i & 1 == 1 {
                *c = 'x';
            }
        }
        for p in &self.pieces {
            let m = p.mask();
            for (i, c) in out.iter_mut().enumerate() {
                if m >> i & 1 == 1 {
                    *c = p.letter;
                }
            }
        }
        out.iter().collect()
    }

    /// The index of the red car in [`Board::pieces`].
    fn red(&self) -> Option<usize> {
        self.pieces.iter().position(|p| p.letter == 'A')
    }

    /// Checks a board built by hand (its fields are public) as [`Board::parse`] would:
    /// pieces of upper-case letters each once, cars and trucks on the board, no overlap
    /// (with each other or a wall), and the red car in its place.
    pub fn check(&self) -> Result<(), RushError> {
        let mut seen = self.walls;
        if self.walls >> CELLS != 0 {
            return Err(RushError::OffBoard { piece: 'x' });
        }
        for (i, p) in self.pieces.iter().enumerate() {
            if !p.letter.is_ascii_uppercase()
                || self.pieces[..i].iter().any(|q| q.letter == p.letter)
            {
                return Err(RushError::Overlap { piece: p.letter });
            }
            if !(2..=3).contains(&p.len) {
                return Err(RushError::BadLength {
                    piece: p.letter,
                    len: p.len,
                });
            }
            let (along, across) = if p.horizontal {
                (p.col, p.row)
            } else {
                (p.row, p.col)
            };
            if across >= SIDE || along > SIDE - p.len {
                return Err(RushError::OffBoard { piece: p.letter });
            }
            if p.mask() & seen != 0 {
                return Err(RushError::Overlap { piece: p.letter });
            }
            seen |= p.mask();
        }
        let red = self.pieces[self.red().ok_or(RushError::RedMissing)?];
        match red {
            Piece {
                horizontal: false, ..
            } => Err(RushError::RedVertical),
            Piece { row, .. } if row != RED_ROW => Err(RushError::RedNotThirdRow { row: row + 1 }),
            Piece { len, .. } if len != 2 => Err(RushError::RedNotCar { len }),
            _ => Ok(()),
        }
    }

    /// Whether the red car's right end is at the exit.
    pub fn is_solved(&self) -> bool {
        self.red()
            .is_some_and(|i| self.pieces[i].col + self.pieces[i].len == SIDE)
    }

    /// The board after `mv`, refused when the piece is missing or the way is blocked.
    pub fn apply(&self, mv: Move) -> Result<Board, RushError> {
        self.check()?;
        let bad = || RushError::BadMove(mv);
        let i = self
            .pieces
            .iter()
            .position(|p| p.letter == mv.piece)
            .ok_or_else(bad)?;
        let p = self.pieces[i];
        let to = p.position() as isize + mv.by as isize;
        if mv.by == 0 || to < 0 || to as usize + p.len > SIDE {
            return Err(bad());
        }
        let others = self.occupied() & !p.mask();
        let (lo, hi) = if mv.by > 0 {
            (p.position() + 1, to as usize)
        } else {
            (to as usize, p.position() - 1)
        };
        if (lo..=hi).any(|q| p.at(q).mask() & others != 0) {
            return Err(bad());
        }
        let mut next = self.clone();
        next.pieces[i] = p.at(to as usize);
        Ok(next)
    }

    /// The cells covered by walls and pieces.
    pub fn occupied(&self) -> u64 {
        self.pieces.iter().fold(self.walls, |m, p| m | p.mask())
    }
}

/// The piece of `letter` on the cells `at` (ascending), or why there is none.
fn piece_of(letter: char, at: &[usize]) -> Result<Piece, RushError> {
    let (row, col) = (at[0] / SIDE, at[0] % SIDE);
    let run = |step: usize| at.iter().enumerate().all(|(i, &c)| c == at[0] + i * step);
    let horizontal = at.iter().all(|&c| c / SIDE == row) && run(1);
    let vertical = at.iter().all(|&c| c % SIDE == col) && run(SIDE);
    if !horizontal && !vertical {
        return Err(RushError::Bent { piece: letter });
    }
    if !(2..=3).contains(&at.len()) {
        return Err(RushError::BadLength {
            piece: letter,
            len: at.len(),
        });
    }
    Ok(Piece {
        letter,
        horizontal,
        row,
        col,
        len: at.len(),
    })
}

/// What [`solve`] finds: the board's distance and an optimal solution, or that its
/// cluster has no solved position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Solved {
    /// The nearest solved position is `moves.len()` moves away.
    Solution {
        /// The distance to the nearest solved position (0 for a solved board).
        distance: u32,
        /// An optimal sequence of moves from the board to a solved position.
        moves: Vec<Move>,
        /// The positions reachable from the board, solved ones and the board included.
        cluster: usize,
    },
    /// No position reachable from the board is solved.
    Unsolvable {
        /// The positions reachable from the board, the board included.
        cluster: usize,
    },
}

impl Solved {
    /// The cluster's size either way.
    pub fn cluster(&self) -> usize {
        match self {
            Solved::Solution { cluster, .. } | Solved::Unsolvable { cluster } => *cluster,
        }
    }
}

/// The positions along `moves` from `board`, the board first, in notation.
pub fn path(board: &Board, moves: &[Move]) -> Result<Vec<String>, RushError> {
    let mut b = board.clone();
    let mut out = vec![b.notation()];
    for &mv in moves {
        b = b.apply(mv)?;
        out.push(b.notation());
    }
    Ok(out)
}

/// Searches `board`'s cluster ([`MAX_CLUSTER`] positions at most): see the module's
/// documentation.
pub fn solve(board: &Board) -> Result<Solved, RushError> {
    solve_bounded(board, MAX_CLUSTER, &Stop::default())
}

/// How many positions the search takes from its queue between two looks at its stop:
/// a few hundred microseconds' work.
const STOP_EVERY: usize = 1 << 12;

/// [`solve`], giving up past `limit` positions ([`RushError::ClusterTooLarge`]) or when
/// `stop` says so ([`RushError::Stopped`]).
pub fn solve_bounded(board: &Board, limit: usize, stop: &Stop) -> Result<Solved, RushError> {
    let seen = explore(board, limit, stop)?;
    let size = seen.states.len();
    let Some(mut at) = seen.first_solved else {
        return Ok(Solved::Unsolvable { cluster: size });
    };
    let mut chain = vec![seen.states[at]];
    while seen.parent[at] != u32::MAX {
        at = seen.parent[at] as usize;
        chain.push(seen.states[at]);
    }
    chain.reverse();
    let moves: Vec<Move> = chain
        .windows(2)
        .map(|w| seen.cluster.move_between(w[0], w[1]))
        .collect();
    Ok(Solved::Solution {
        distance: moves.len() as u32,
        moves,
        cluster: size,
    })
}

/// Every position of a board's cluster with its distance to the nearest solved one
/// ([`cluster_distances`]): one search answers the distance of every position one move
/// from the board (a page's legal moves), where a search per position would explore
/// the same cluster again for each.
pub struct ClusterDistances {
    cluster: Cluster,
    index: KeyMap,
    /// By index; `u32::MAX` where no solved position is reachable.
    dist: Vec<u32>,
}

impl ClusterDistances {
    /// The distance of `board`, a position of the cluster (the searched board's pieces
    /// moved); `None` when the cluster has no solved position, or `board` is not in it.
    pub fn distance(&self, board: &Board) -> Option<u32> {
        let key = self.cluster.key_of(board);
        let &i = self.index.get(&key)?;
        Some(self.dist[i as usize]).filter(|&d| d != u32::MAX)
    }

    /// The cluster's size.
    pub fn len(&self) -> usize {
        self.dist.len()
    }

    /// Whether the cluster is empty (never: it holds the board).
    pub fn is_empty(&self) -> bool {
        self.dist.is_empty()
    }
}

/// The distances of `board`'s whole cluster: explored from the board, then searched
/// breadth first back from every solved position (the moves are reversible). Bounded as
/// [`solve_bounded`] is.
pub fn cluster_distances(
    board: &Board,
    limit: usize,
    stop: &Stop,
) -> Result<ClusterDistances, RushError> {
    let seen = explore(board, limit, stop)?;
    let mut dist = vec![u32::MAX; seen.states.len()];
    let mut queue: Vec<u32> = Vec::new();
    for (i, &key) in seen.states.iter().enumerate() {
        if seen.cluster.solved(key) {
            dist[i] = 0;
            queue.push(i as u32);
        }
    }
    let (mut head, mut next) = (0, Vec::new());
    while head < queue.len() {
        if head % STOP_EVERY == 0
            && let Some(why) = stop.why()
        {
            return Err(why.into());
        }
        let i = queue[head] as usize;
        next.clear();
        seen.cluster.neighbors(seen.states[i], &mut next);
        for n in &next {
            let j = seen.index[n] as usize;
            if dist[j] == u32::MAX {
                dist[j] = dist[i] + 1;
                queue.push(j as u32);
            }
        }
        head += 1;
    }
    Ok(ClusterDistances {
        cluster: seen.cluster,
        index: seen.index,
        dist,
    })
}

/// A board's cluster as the breadth-first search from it found it.
struct Explored {
    cluster: Cluster,
    /// Every position, in the order found (the board first).
    states: Vec<u64>,
    /// Each position's index in `states`.
    index: KeyMap,
    /// The index of the position each was found from (`u32::MAX` for the board).
    parent: Vec<u32>,
    /// The first solved position found: one nearest the board.
    first_solved: Option<usize>,
}

/// Every position reachable from `board`, breadth first, giving up past `limit`
/// positions or when `stop` says so.
fn explore(board: &Board, limit: usize, stop: &Stop) -> Result<Explored, RushError> {
    board.check()?;
    let red = board.red().ok_or(RushError::RedMissing)?;
    let cluster = Cluster::new(board, red);
    let start = cluster.key_of(board);
    let mut states = vec![start];
    let mut parent = vec![u32::MAX];
    let mut index = KeyMap::default();
    index.insert(start, 0u32);
    let mut first_solved = None;
    let mut head = 0;
    let mut next = Vec::new();
    while head < states.len() {
        if head % STOP_EVERY == 0
            && let Some(why) = stop.why()
        {
            return Err(why.into());
        }
        let key = states[head];
        if first_solved.is_none() && cluster.solved(key) {
            first_solved = Some(head);
        }
        next.clear();
        cluster.neighbors(key, &mut next);
        for &n in &next {
            if let std::collections::hash_map::Entry::Vacant(e) = index.entry(n) {
                if states.len() >= limit {
                    return Err(RushError::ClusterTooLarge(limit));
                }
                e.insert(states.len() as u32);
                states.push(n);
                parent.push(head as u32);
            }
        }
        head += 1;
    }
    Ok(Explored {
        cluster,
        states,
        index,
        parent,
        first_solved,
    })
}

/// A board's pieces as fixed lines; a position is a key with 3 bits per piece (its
/// place along its line), piece 0 lowest: 18 pieces at most on 36 cells, 54 bits.
struct Cluster {
    walls: u64,
    pieces: Vec<Piece>,
    /// `masks[i][q]`: piece `i`'s cells at place `q`.
    masks: Vec<[u64; SIDE]>,
    red: usize,
}

impl Cluster {
    fn new(board: &Board, red: usize) -> Cluster {
        let masks = board
            .pieces
            .iter()
            .map(|p| {
                let mut m = [0u64; SIDE];
                for (q, slot) in m.iter_mut().enumerate().take(SIDE - p.len + 1) {
                    *slot = p.at(q).mask();
                }
                m
            })
            .collect();
        Cluster {
            walls: board.walls,
            pieces: board.pieces.clone(),
            masks,
            red,
        }
    }

    fn key_of(&self, board: &Board) -> u64 {
        board
            .pieces
            .iter()
            .enumerate()
            .fold(0, |k, (i, p)| k | (p.position() as u64) << (3 * i))
    }

    fn place(key: u64, i: usize) -> usize {
        (key >> (3 * i) & 7) as usize
    }

    fn solved(&self, key: u64) -> bool {
        Self::place(key, self.red) + self.pieces[self.red].len == SIDE
    }

    fn neighbors(&self, key: u64, out: &mut Vec<u64>) {
        let occupied =
            (0..self.pieces.len()).fold(self.walls, |m, i| m | self.masks[i][Self::place(key, i)]);
        for (i, p) in self.pieces.iter().enumerate() {
            let q = Self::place(key, i);
            let others = occupied & !self.masks[i][q];
            let clear = key & !(7 << (3 * i));
            let mut to = q;
            while to > 0 && self.masks[i][to - 1] & others == 0 {
                to -= 1;
                out.push(clear | (to as u64) << (3 * i));
            }
            let mut to = q;
            while to + p.len < SIDE && self.masks[i][to + 1] & others == 0 {
                to += 1;
                out.push(clear | (to as u64) << (3 * i));
            }
        }
    }

    /// The move from `a` to its neighbour `b`.
    fn move_between(&self, a: u64, b: u64) -> Move {
        let i = (0..self.pieces.len())
            .find(|&i| Self::place(a, i) != Self::place(b, i))
            .unwrap_or(0);
        let by = Self::place(b, i) as i8 - Self::place(a, i) as i8;
        Move {
            piece: self.pieces[i].letter,
            by,
        }
    }
}
