//! Sliding-block puzzles (Klotski; Rush Hour's boards in [`clusters`]) defined as data: rectangular
//! pieces on a rectangular board with walls, pieces of a group interchangeable, moved in
//! one of three metrics. The engine ranks every placement of the pieces densely
//! (an enumerated, sorted table searched by binary search) and gives the moves between
//! placements; [`spec`] checks a definition and builds it.
//!
//! A position is written row by row, rows joined by `/`, one character per cell: `.`
//! empty, `#` a wall, else the letter of the group of the piece covering the cell. Pieces
//! never turn, so a region of one letter is tiled by that group's rectangles in one way
//! only (the first cell in reading order is always a piece's top-left corner): the
//! letters per group are enough to tell the pieces apart.

pub mod census;
pub mod clusters;
pub mod layouts;
#[cfg(test)]
mod layouts_tests;
pub mod rush;
#[cfg(test)]
mod rush_tests;
pub mod spec;
#[cfg(test)]
mod tests;

use puzzlebase_core::definition::Source;
use puzzlebase_core::space::{GraphPuzzle, StateError, StateSpace};
use serde_json::json;

/// The most placements a board may have: the table of packed placements (16 bytes
/// each) then takes at most 256 MiB while it is built. Rush Hour's 6x6 board (about 49
/// billion layouts) is far beyond it: [`layouts`] ranks those by a transfer matrix
/// instead, to replace [`Blocks::rank_of`] and [`Blocks::key_of`] (the table) behind the
/// same interface.
pub const MAX_PLACEMENTS: usize = 1 << 24;

/// The most cells a board may have: a placement's covered cells are one `u128` mask.
pub const MAX_CELLS: usize = 128;

/// How a piece may move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Moves {
    /// In any of the four directions.
    Free,
    /// Left and right only (a Rush Hour car lying along its row).
    Row,
    /// Up and down only.
    Column,
}

impl Moves {
    /// The directions `(row step, column step)` a piece may take.
    fn directions(self) -> &'static [(isize, isize)] {
        match self {
            Moves::Free => &[(-1, 0), (1, 0), (0, -1), (0, 1)],
            Moves::Row => &[(0, -1), (0, 1)],
            Moves::Column => &[(-1, 0), (1, 0)],
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Moves::Free => "free",
            Moves::Row => "row",
            Moves::Column => "column",
        }
    }
}

/// What counts as one move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// One piece, one cell.
    Step,
    /// One piece, any distance in one direction.
    Straight,
    /// One piece, any route through empty cells.
    Path,
}

impl Metric {
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Step => "step",
            Metric::Straight => "straight",
            Metric::Path => "path",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Metric::Step => "one piece moves one cell",
            Metric::Straight => "one piece slides any distance in one direction",
            Metric::Path => "one piece moves along any route through empty cells",
        }
    }
}

/// Interchangeable pieces: one shape, one way of moving, one letter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub letter: char,
    pub h: usize,
    pub w: usize,
    pub moves: Moves,
    pub count: usize,
}

/// A sliding-block puzzle with its table of placements.
pub struct Blocks {
    name: String,
    rows: usize,
    cols: usize,
    wall: Vec<bool>,
    groups: Vec<Group>,
    metric: Metric,
    /// Bits per cell in a packed placement: enough for the groups' codes (1-based).
    bits: u32,
    /// Every placement, packed ([`Blocks::key_of`]), ascending: a placement's rank is
    /// its index.
    table: Vec<u128>,
    start: u64,
    goals: Vec<u64>,
    /// The goal as the definition gives it, for the stored definition.
    goal_text: String,
    /// What the definition asks of the storage (`klotski` asks for packed tables).
    storage: puzzlebase_core::format::GraphAsk,
    source: Source,
}

/// A placement: each piece's group and top-left cell.
type Pieces = Vec<(usize, usize)>;

impl Blocks {
    /// The board's cells, row by row.
    fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// A placement packed in a `u128`: at each piece's top-left cell its group's code
    /// (index + 1), `bits` bits per cell, cell 0 lowest. Covered and empty cells are 0:
    /// the top-left corners alone determine the placement.
    fn key_of(&self, pieces: &[(usize, usize)]) -> u128 {
        pieces.iter().fold(0u128, |k, &(g, cell)| {
            k | ((g as u128 + 1) << (cell as u32 * self.bits))
        })
    }

    /// The pieces of a packed placement, in cell order.
    fn pieces_of(&self, key: u128) -> Pieces {
        let mask = (1u128 << self.bits) - 1;
        (0..self.cells())
            .filter_map(|cell| {
                let code = (key >> (cell as u32 * self.bits)) & mask;
                (code != 0).then(|| (code as usize - 1, cell))
            })
            .collect()
    }

    /// The rank of a packed placement, if it is one of the table's.
    fn rank_of(&self, key: u128) -> Option<u64> {
        self.table.binary_search(&key).ok().map(|r| r as u64)
    }

    /// Whether a piece of group `g` fits with its top-left at (`r`, `c`) on a board where
    /// `busy` says which cells are taken (walls included).
    fn fits(&self, g: usize, r: isize, c: isize, busy: &[bool]) -> bool {
        let Group { h, w, .. } = self.groups[g];
        if r < 0 || c < 0 || r as usize + h > self.rows || c as usize + w > self.cols {
            return false;
        }
        let (r, c) = (r as usize, c as usize);
        (r..r + h).all(|y| (c..c + w).all(|x| !busy[y * self.cols + x]))
    }

    /// Marks (or clears) the cells of a piece of group `g` at `cell` in `busy`.
    fn mark(&self, g: usize, cell: usize, busy: &mut [bool], on: bool) {
        let Group { h, w, .. } = self.groups[g];
        let (r, c) = (cell / self.cols, cell % self.cols);
        for y in r..r + h {
            for x in c..c + w {
                busy[y * self.cols + x] = on;
            }
        }
    }

    /// The top-left cells a piece of group `g` at `cell` reaches in one move of the
    /// metric, the piece itself lifted off `busy`.
    fn targets(&self, g: usize, cell: usize, busy: &[bool], out: &mut Vec<usize>) {
        let at = |r: isize, c: isize| r as usize * self.cols + c as usize;
        let (r0, c0) = ((cell / self.cols) as isize, (cell % self.cols) as isize);
        let dirs = self.groups[g].moves.directions();
        match self.metric {
            Metric::Step => {
                for &(dr, dc) in dirs {
                    if self.fits(g, r0 + dr, c0 + dc, busy) {
                        out.push(at(r0 + dr, c0 + dc));
                    }
                }
            }
            Metric::Straight => {
                for &(dr, dc) in dirs {
                    let (mut r, mut c) = (r0 + dr, c0 + dc);
                    while self.fits(g, r, c, busy) {
                        out.push(at(r, c));
                        (r, c) = (r + dr, c + dc);
                    }
                }
            }
            Metric::Path => {
                // Breadth-first over the piece's own positions: every one reached is one
                // move away, however winding the route.
                let start = out.len();
                let mut seen = vec![false; self.cells()];
                seen[cell] = true;
                let mut queue = vec![cell];
                while let Some(p) = queue.pop() {
                    let (r, c) = ((p / self.cols) as isize, (p % self.cols) as isize);
                    for &(dr, dc) in dirs {
                        if self.fits(g, r + dr, c + dc, busy) && !seen[at(r + dr, c + dc)] {
                            seen[at(r + dr, c + dc)] = true;
                            queue.push(at(r + dr, c + dc));
                            out.push(at(r + dr, c + dc));
                        }
                    }
                }
                debug_assert!(out[start..].iter().all(|&t| t != cell));
            }
        }
    }

    /// The cells taken in a placement: walls and pieces.
    fn busy(&self, pieces: &[(usize, usize)]) -> Vec<bool> {
        let mut busy = self.wall.clone();
        for &(g, cell) in pieces {
            self.mark(g, cell, &mut busy, true);
        }
        busy
    }

    /// The board's characters, row-major, for a placement.
    fn chars(&self, pieces: &[(usize, usize)]) -> Vec<char> {
        let mut out: Vec<char> = self
            .wall
            .iter()
            .map(|&w| if w { '#' } else { '.' })
            .collect();
        for &(g, cell) in pieces {
            let Group { h, w, letter, .. } = self.groups[g];
            let (r, c) = (cell / self.cols, cell % self.cols);
            for y in r..r + h {
                for x in c..c + w {
                    out[y * self.cols + x] = letter;
                }
            }
        }
        out
    }

    /// The pieces of a position written in the notation, or why it is none.
    fn read(&self, text: &str) -> Result<Pieces, StateError> {
        let bad = |reason: String| StateError::malformed(text, reason);
        let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let rows: Vec<&str> = if squeezed.contains('/') {
            squeezed.split('/').collect()
        } else {
            // Without separators: one run of rows x cols characters.
            let chars: Vec<char> = squeezed.chars().collect();
            if chars.len() != self.cells() {
                return Err(bad(format!(
                    "{} characters; the board has {} cells ({} rows of {}, rows may be joined by '/')",
                    chars.len(),
                    self.cells(),
                    self.rows,
                    self.cols
                )));
            }
            return self.read_chars(text, &chars);
        };
        if rows.len() != self.rows {
            return Err(bad(format!(
                "{} rows; the board has {}",
                rows.len(),
                self.rows
            )));
        }
        if let Some((i, row)) = rows
            .iter()
            .enumerate()
            .find(|(_, r)| r.chars().count() != self.cols)
        {
            return Err(bad(format!(
                "row {} has {} cells; the board has {} columns",
                i + 1,
                row.chars().count(),
                self.cols
            )));
        }
        let chars: Vec<char> = rows.iter().flat_map(|r| r.chars()).collect();
        self.read_chars(text, &chars)
    }

    /// [`Blocks::read`] once the characters are one per cell.
    fn read_chars(&self, text: &str, chars: &[char]) -> Result<Pieces, StateError> {
        let bad = |reason: String| StateError::malformed(text, reason);
        let where_ = |cell: usize| {
            format!(
                "row {}, column {}",
                cell / self.cols + 1,
                cell % self.cols + 1
            )
        };
        let mut taken = vec![false; self.cells()];
        let mut pieces = Vec::new();
        let mut counts = vec![0usize; self.groups.len()];
        for (cell, &ch) in chars.iter().enumerate() {
            match (ch, self.wall[cell]) {
                ('#', true) => continue,
                ('#', false) => {
                    return Err(bad(format!("'#' at {}, which is no wall", where_(cell))));
                }
                (_, true) => {
                    return Err(bad(format!(
                        "{ch:?} at {}, which is a wall ('#')",
                        where_(cell)
                    )));
                }
                ('.', false) => continue,
                _ => {}
            }
            if taken[cell] {
                continue;
            }
            let Some(g) = self.groups.iter().position(|gr| gr.letter == ch) else {
                let letters: String = self.groups.iter().map(|g| g.letter).collect();
                return Err(bad(format!(
                    "{ch:?} at {} is no piece's letter (the pieces are {letters}; '.' empty, '#' a wall)",
                    where_(cell)
                )));
            };
            // The first untaken cell of a letter is a piece's top-left corner: its whole
            // rectangle must carry the letter.
            let Group { h, w, .. } = self.groups[g];
            let (r, c) = (cell / self.cols, cell % self.cols);
            let whole = r + h <= self.rows
                && c + w <= self.cols
                && (r..r + h).all(|y| {
                    (c..c + w).all(|x| chars[y * self.cols + x] == ch && !taken[y * self.cols + x])
                });
            if !whole {
                return Err(bad(format!(
                    "the {ch:?} cells from {} do not form {h}x{w} pieces",
                    where_(cell)
                )));
            }
            self.mark(g, cell, &mut taken, true);
            counts[g] += 1;
            pieces.push((g, cell));
        }
        for (g, &n) in counts.iter().enumerate() {
            let gr = &self.groups[g];
            if n != gr.count {
                return Err(bad(format!(
                    "{n} pieces {:?}; the puzzle has {}",
                    gr.letter, gr.count
                )));
            }
        }
        Ok(pieces)
    }

    /// The groups, for the tests and the definition.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The metric of the moves.
    pub fn metric(&self) -> Metric {
        self.metric
    }
}

/// Every placement of `groups`' pieces on the board, packed ([`Blocks::key_of`]) and
/// sorted; `None` when there are more than `limit` ([`MAX_PLACEMENTS`] for a definition).
fn placements(
    rows: usize,
    cols: usize,
    wall: &[bool],
    groups: &[Group],
    bits: u32,
    limit: usize,
) -> Option<Vec<u128>> {
    struct Walk<'a> {
        rows: usize,
        cols: usize,
        groups: &'a [Group],
        bits: u32,
        limit: usize,
        left: Vec<usize>,
        out: Vec<u128>,
    }
    impl Walk<'_> {
        /// Decides the cells from `cell` on, in reading order: the first undecided
        /// cell is empty or a piece's top-left corner, so each placement comes once.
        fn go(&mut self, cell: usize, busy: u128, empties: usize, key: u128) -> bool {
            let n = self.rows * self.cols;
            let mut cell = cell;
            while cell < n && (busy >> cell) & 1 == 1 {
                cell += 1;
            }
            if cell == n {
                if self.left.iter().all(|&l| l == 0) {
                    self.out.push(key);
                }
                return self.out.len() <= self.limit;
            }
            if empties > 0 && !self.go(cell + 1, busy | 1 << cell, empties - 1, key) {
                return false;
            }
            let (r, c) = (cell / self.cols, cell % self.cols);
            for g in 0..self.groups.len() {
                let Group { h, w, .. } = self.groups[g];
                if self.left[g] == 0 || r + h > self.rows || c + w > self.cols {
                    continue;
                }
                let mut mask = 0u128;
                for y in r..r + h {
                    for x in c..c + w {
                        mask |= 1 << (y * self.cols + x);
                    }
                }
                if busy & mask != 0 {
                    continue;
                }
                self.left[g] -= 1;
                let code = (g as u128 + 1) << (cell as u32 * self.bits);
                let ok = self.go(cell + 1, busy | mask, empties, key | code);
                self.left[g] += 1;
                if !ok {
                    return false;
                }
            }
            true
        }
    }
    let busy = wall
        .iter()
        .enumerate()
        .fold(0u128, |m, (i, &w)| if w { m | 1 << i } else { m });
    let area: usize = groups.iter().map(|g| g.h * g.w * g.count).sum();
    let free = wall.iter().filter(|&&w| !w).count();
    let mut walk = Walk {
        rows,
        cols,
        groups,
        bits,
        limit,
        left: groups.iter().map(|g| g.count).collect(),
        out: Vec::new(),
    };
    if !walk.go(0, busy, free.checked_sub(area)?, 0) {
        return None;
    }
    walk.out.sort_unstable();
    Some(walk.out)
}

impl StateSpace for Blocks {
    fn size(&self) -> u64 {
        self.table.len() as u64
    }

    fn goals(&self) -> Vec<u64> {
        self.goals.clone()
    }

    fn neighbors(&self, rank: u64, out: &mut Vec<u64>) {
        let Some(&key) = self.table.get(rank as usize) else {
            return;
        };
        let pieces = self.pieces_of(key);
        let mut busy = self.busy(&pieces);
        let mut targets = Vec::new();
        for &(g, cell) in &pieces {
            self.mark(g, cell, &mut busy, false);
            targets.clear();
            self.targets(g, cell, &busy, &mut targets);
            let code = g as u128 + 1;
            let lifted = key & !(((1u128 << self.bits) - 1) << (cell as u32 * self.bits));
            for &t in &targets {
                // Every target is a placement, so it is in the table.
                if let Some(r) = self.rank_of(lifted | code << (t as u32 * self.bits)) {
                    out.push(r);
                }
            }
            self.mark(g, cell, &mut busy, true);
        }
    }
}

impl GraphPuzzle for Blocks {
    fn name(&self) -> &str {
        &self.name
    }

    fn storage_asked(&self) -> puzzlebase_core::format::GraphAsk {
        self.storage
    }

    fn family(&self) -> &str {
        "blocks"
    }

    fn definition(&self) -> serde_json::Value {
        let groups: Vec<_> = self
            .groups
            .iter()
            .map(|g| {
                json!({"letter": g.letter.to_string(), "h": g.h, "w": g.w,
                       "moves": g.moves.as_str(), "count": g.count})
            })
            .collect();
        let walls: Vec<[usize; 2]> = (0..self.cells())
            .filter(|&c| self.wall[c])
            .map(|c| [c / self.cols, c % self.cols])
            .collect();
        let mut d = json!({
            "name": self.name,
            "rows": self.rows,
            "cols": self.cols,
            "walls": walls,
            "groups": groups,
            "metric": self.metric.as_str(),
            "move": self.metric.describe(),
            "start": self.format(self.start),
            "goal": self.goal_text,
            "notation": self.notation(),
            "ranking": "placements-sorted-by-packed-top-left-corners",
            "size": self.size(),
        });
        self.source.annotate(&mut d);
        d
    }

    fn notation(&self) -> String {
        format!(
            "{} rows of {} cells joined by '/', top row first: a piece's letter on each cell it covers, '.' empty, '#' a wall; a move: {}",
            self.rows,
            self.cols,
            self.metric.describe()
        )
    }

    fn format(&self, rank: u64) -> String {
        let Some(&key) = self.table.get(rank as usize) else {
            return String::new();
        };
        let chars = self.chars(&self.pieces_of(key));
        chars
            .chunks(self.cols)
            .map(|row| row.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("/")
    }

    fn parse(&self, text: &str) -> Result<u64, StateError> {
        let pieces = self.read(text)?;
        self.rank_of(self.key_of(&pieces))
            .ok_or_else(|| StateError::malformed(text, "not a placement of the pieces"))
    }

    fn start(&self) -> Option<u64> {
        Some(self.start)
    }
}
