//! Every Rush Hour layout without walls, counted, ranked and unranked by a transfer matrix
//! over the rows.
//!
//! **What is counted.** On a board of `rows` x `cols` cells (6x6 for Rush Hour), a
//! layout is a set of non-overlapping pieces: horizontal and vertical cars (2 cells) and
//! trucks (3 cells), and exactly one red car, a horizontal car on row `red_row` (0-based;
//! 2, the third row, for Rush Hour). Pieces are unlabelled except the red car: two
//! layouts differ when some cell is covered differently. Other horizontal cars may lie
//! on the red car's row, on either side of it. No walls.
//!
//! **The transfer matrix.** A row is filled knowing, for each column, how many more
//! cells a vertical piece that started above still covers (0, 1 or 2): `3^cols` states.
//! [`Layouts::new`] lists every way to fill a row from each state (the same for every
//! row but the red car's, which holds the red car exactly once) and counts, for each row
//! and state, the ways to fill the rows below; vertical pieces running past the bottom
//! reach a state with no completion and count nothing.
//!
//! **The rank.** Each cell of a layout is a digit ([`Cell`]): 0 empty, 1 covered by a
//! piece that starts earlier in reading order, 2 a horizontal car's left end, 3 a
//! horizontal truck's, 4 a vertical car's top, 5 a vertical truck's, 6 the red car's
//! left end. The rank of a layout is the number of layouts whose digit string, read row
//! by row, is lexicographically smaller: ranks are dense, `0..count`, and
//! [`Layouts::unrank`] is the inverse of [`Layouts::rank`]. Both walk the rows once,
//! adding the counts of the row fillings before the layout's (a binary search per row).
//! [`Layouts::rank`] refuses a layout that is not one of those counted.
//!
//! **Notation.** On the 6x6 board a layout is a [`Board`] in Fogleman's notation:
//! [`Layout::to_board`] gives the red car `A` and the other pieces `B`, `C`, ... in
//! reading order of their first cells; [`Layout::from_board`] forgets the letters.

use super::rush::{Board, Piece, RED_ROW, SIDE};

/// The most columns a board may have (`3^8` states).
pub const MAX_COLS: usize = 8;
/// The most rows a board may have.
pub const MAX_ROWS: usize = 16;

/// Why a board shape, a layout or a rank is refused: one line each.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// Rows or columns outside `1..=MAX_ROWS`, `2..=MAX_COLS`, or the red row outside.
    #[error(
        "a {rows}x{cols} board with the red car on row {red_row} is not supported (rows 1 to 16, columns 2 to 8, the red row on the board)"
    )]
    Shape {
        rows: usize,
        cols: usize,
        red_row: usize,
    },
    /// More layouts than a `u64` rank holds.
    #[error("the {rows}x{cols} board has more layouts than a 64-bit rank holds")]
    TooMany { rows: usize, cols: usize },
    /// A rank at or past the count.
    #[error("rank {rank} is outside the layouts: they run from 0 to {last}")]
    RankOutside { rank: u64, last: u64 },
    /// A layout of another shape, or no valid layout (overlaps, a piece past the edge,
    /// no red car, two, or one off its row).
    #[error("not a layout of this board: {0}")]
    Invalid(&'static str),
    /// A board with walls (the layouts have none).
    #[error("a board with walls is no layout: the layouts have no walls")]
    Walls,
}

/// A cell of a layout: its digit in the rank order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Cell {
    Empty = 0,
    /// Covered by a piece whose first cell comes earlier in reading order.
    Covered = 1,
    HCar = 2,
    HTruck = 3,
    VCar = 4,
    VTruck = 5,
    /// The red car's left end.
    Red = 6,
}

impl Cell {
    fn from_digit(d: u64) -> Cell {
        match d {
            1 => Cell::Covered,
            2 => Cell::HCar,
            3 => Cell::HTruck,
            4 => Cell::VCar,
            5 => Cell::VTruck,
            6 => Cell::Red,
            _ => Cell::Empty,
        }
    }

    /// The piece starting at this cell: (horizontal, length), if one does.
    fn piece(self) -> Option<(bool, usize)> {
        match self {
            Cell::HCar | Cell::Red => Some((true, 2)),
            Cell::HTruck => Some((true, 3)),
            Cell::VCar => Some((false, 2)),
            Cell::VTruck => Some((false, 3)),
            Cell::Empty | Cell::Covered => None,
        }
    }
}

/// A layout: its shape and one [`Cell`] per cell, row by row.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    pub rows: usize,
    pub cols: usize,
    pub cells: Vec<Cell>,
}

/// A piece of a layout: the red car or not, its line, top-left cell and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    pub red: bool,
    pub horizontal: bool,
    pub row: usize,
    pub col: usize,
    pub len: usize,
}

impl Layout {
    /// The pieces, in reading order of their first cells.
    pub fn pieces(&self) -> Vec<Placed> {
        let mut out = Vec::new();
        for (i, &c) in self.cells.iter().enumerate() {
            if let Some((horizontal, len)) = c.piece() {
                let (row, col) = (i / self.cols, i % self.cols);
                out.push(Placed {
                    red: c == Cell::Red,
                    horizontal,
                    row,
                    col,
                    len,
                });
            }
        }
        out
    }

    /// The layout of `pieces` on a `rows` x `cols` board, refused when two overlap or
    /// one runs past the edge (the red car is not checked here: [`Layouts::rank`] does).
    pub fn from_pieces(rows: usize, cols: usize, pieces: &[Placed]) -> Result<Layout, LayoutError> {
        let mut cells = vec![None; rows * cols];
        for p in pieces {
            let (dr, dc) = if p.horizontal { (0, 1) } else { (1, 0) };
            for k in 0..p.len {
                let (r, c) = (p.row + k * dr, p.col + k * dc);
                if r >= rows || c >= cols {
                    return Err(LayoutError::Invalid("a piece runs past the edge"));
                }
                if cells[r * cols + c].is_some() {
                    return Err(LayoutError::Invalid("two pieces overlap"));
                }
                cells[r * cols + c] = Some(if k > 0 {
                    Cell::Covered
                } else {
                    match (p.red, p.horizontal, p.len) {
                        (true, _, _) => Cell::Red,
                        (false, true, 2) => Cell::HCar,
                        (false, true, _) => Cell::HTruck,
                        (false, false, 2) => Cell::VCar,
                        (false, false, _) => Cell::VTruck,
                    }
                });
            }
        }
        let cells = cells
            .into_iter()
            .map(|c| c.unwrap_or(Cell::Empty))
            .collect();
        Ok(Layout { rows, cols, cells })
    }

    /// The 6x6 layout as a board: `A` the red car, `B`, `C`, ... the others in reading
    /// order of their first cells.
    pub fn to_board(&self) -> Result<Board, LayoutError> {
        if (self.rows, self.cols) != (SIDE, SIDE) {
            return Err(LayoutError::Invalid("only 6x6 layouts are boards"));
        }
        let mut next = b'B';
        let pieces = self
            .pieces()
            .into_iter()
            .map(|p| {
                let letter = if p.red {
                    'A'
                } else {
                    next += 1;
                    (next - 1) as char
                };
                Piece {
                    letter,
                    horizontal: p.horizontal,
                    row: p.row,
                    col: p.col,
                    len: p.len,
                }
            })
            .collect();
        Ok(Board { walls: 0, pieces })
    }

    /// The layout of a 6x6 board without walls, its letters forgotten but `A`'s.
    pub fn from_board(board: &Board) -> Result<Layout, LayoutError> {
        if board.walls != 0 {
            return Err(LayoutError::Walls);
        }
        let pieces: Vec<Placed> = board
            .pieces
            .iter()
            .map(|p| Placed {
                red: p.letter == 'A',
                horizontal: p.horizontal,
                row: p.row,
                col: p.col,
                len: p.len,
            })
            .collect();
        Layout::from_pieces(SIDE, SIDE, &pieces)
    }
}

/// The row fillings from each state, flattened: state `s`'s are `start[s]..start[s+1]`,
/// ascending by code (a row's digits, the first column most significant, 3 bits each).
struct Fillings {
    start: Vec<usize>,
    code: Vec<u64>,
    out: Vec<u32>,
}

impl Fillings {
    /// Every filling of a row of `cols` cells from each state; with the red car once
    /// when `red`, else never.
    fn new(cols: usize, red: bool) -> Fillings {
        let states = 3usize.pow(cols as u32);
        let mut f = Fillings {
            start: vec![0],
            code: Vec::new(),
            out: Vec::new(),
        };
        for s in 0..states {
            let need: Vec<u8> = (0..cols)
                .map(|c| (s / 3usize.pow(c as u32) % 3) as u8)
                .collect();
            fill(&need, 0, red, 0, 0, &mut f);
            f.start.push(f.code.len());
        }
        f
    }
}

/// Fills cells `c..` of a row whose column `c` still needs `need[c]` cells of a vertical
/// piece from above; `code` and `out` (base 3, column `c` digit `3^c`) so far.
fn fill(need: &[u8], c: usize, red: bool, code: u64, out: u32, f: &mut Fillings) {
    let cols = need.len();
    if c == cols {
        if !red {
            f.code.push(code);
            f.out.push(out);
        }
        return;
    }
    let digit = |code: u64, d: u64| code << 3 | d;
    let p3 = |k: usize| 3u32.pow(k as u32);
    if need[c] > 0 {
        let o = out + (need[c] as u32 - 1) * p3(c);
        return fill(need, c + 1, red, digit(code, 1), o, f);
    }
    let free = |k: usize| (c..c + k).all(|x| x < cols && need[x] == 0);
    // Ascending by digit: the lexicographic order of the rank.
    fill(need, c + 1, red, digit(code, 0), out, f);
    if free(2) {
        fill(need, c + 2, red, digit(digit(code, 2), 1), out, f);
    }
    if free(3) {
        fill(need, c + 3, red, digit(digit(digit(code, 3), 1), 1), out, f);
    }
    fill(need, c + 1, red, digit(code, 4), out + p3(c), f);
    fill(need, c + 1, red, digit(code, 5), out + 2 * p3(c), f);
    if red && free(2) {
        fill(need, c + 2, false, digit(digit(code, 6), 1), out, f);
    }
}

/// The layouts of one board shape, with their counts per row and state.
pub struct Layouts {
    rows: usize,
    cols: usize,
    red_row: usize,
    plain: Fillings,
    red: Fillings,
    /// `below[r][s]`: the ways to fill rows `r..` from state `s` (`below[rows]` is 1 at
    /// state 0 only).
    below: Vec<Vec<u64>>,
    /// `upto[r][k]`: for filling `k` of row `r`'s list, the completions of the fillings
    /// of its state up to and including it.
    upto: Vec<Vec<u64>>,
}

impl Layouts {
    /// Rush Hour's 6x6 board, the red car on the third row.
    pub fn rush_hour() -> Layouts {
        Layouts::new(SIDE, SIDE, RED_ROW).expect("the 6x6 board is supported")
    }

    /// The layouts of a `rows` x `cols` board with the red car on row `red_row` (0-based).
    pub fn new(rows: usize, cols: usize, red_row: usize) -> Result<Layouts, LayoutError> {
        if !(1..=MAX_ROWS).contains(&rows) || !(2..=MAX_COLS).contains(&cols) || red_row >= rows {
            return Err(LayoutError::Shape {
                rows,
                cols,
                red_row,
            });
        }
        let too_many = || LayoutError::TooMany { rows, cols };
        let (plain, red) = (Fillings::new(cols, false), Fillings::new(cols, true));
        let states = 3usize.pow(cols as u32);
        let mut below = vec![vec![0u64; states]; rows + 1];
        below[rows][0] = 1;
        let mut upto = vec![Vec::new(); rows];
        for r in (0..rows).rev() {
            let f = if r == red_row { &red } else { &plain };
            let mut incl = vec![0u64; f.code.len()];
            for s in 0..states {
                let mut sum = 0u64;
                for k in f.start[s]..f.start[s + 1] {
                    sum = sum
                        .checked_add(below[r + 1][f.out[k] as usize])
                        .ok_or_else(too_many)?;
                    incl[k] = sum;
                }
                below[r][s] = sum;
            }
            upto[r] = incl;
        }
        Ok(Layouts {
            rows,
            cols,
            red_row,
            plain,
            red,
            below,
            upto,
        })
    }

    fn fillings(&self, r: usize) -> &Fillings {
        if r == self.red_row {
            &self.red
        } else {
            &self.plain
        }
    }

    /// The number of layouts.
    pub fn count(&self) -> u64 {
        self.below[0][0]
    }

    /// The layout's rank, refused when it is not one of the layouts counted.
    pub fn rank(&self, layout: &Layout) -> Result<u64, LayoutError> {
        if (layout.rows, layout.cols) != (self.rows, self.cols)
            || layout.cells.len() != self.rows * self.cols
        {
            return Err(LayoutError::Invalid("another board shape"));
        }
        let (mut s, mut rank) = (0usize, 0u64);
        for r in 0..self.rows {
            let row = &layout.cells[r * self.cols..(r + 1) * self.cols];
            let code = row.iter().fold(0u64, |k, &c| k << 3 | c as u64);
            let f = self.fillings(r);
            let list = &f.code[f.start[s]..f.start[s + 1]];
            let i = list
                .binary_search(&code)
                .map_err(|_| LayoutError::Invalid("a row that no layout has there"))?;
            let k = f.start[s] + i;
            let out = f.out[k] as usize;
            rank += self.upto[r][k] - self.below[r + 1][out];
            s = out;
        }
        if s != 0 {
            return Err(LayoutError::Invalid(
                "a vertical piece runs past the bottom",
            ));
        }
        Ok(rank)
    }

    /// The layout of rank `rank`.
    pub fn unrank(&self, rank: u64) -> Result<Layout, LayoutError> {
        if rank >= self.count() {
            return Err(LayoutError::RankOutside {
                rank,
                last: self.count().wrapping_sub(1),
            });
        }
        let (mut s, mut rest) = (0usize, rank);
        let mut cells = Vec::with_capacity(self.rows * self.cols);
        for r in 0..self.rows {
            let f = self.fillings(r);
            let (a, b) = (f.start[s], f.start[s + 1]);
            let k = a + self.upto[r][a..b].partition_point(|&x| x <= rest);
            let out = f.out[k] as usize;
            rest -= self.upto[r][k] - self.below[r + 1][out];
            for c in (0..self.cols).rev() {
                cells.push(Cell::from_digit(f.code[k] >> (3 * c) & 7));
            }
            s = out;
        }
        Ok(Layout {
            rows: self.rows,
            cols: self.cols,
            cells,
        })
    }

    /// The layouts in which no horizontal piece lies right of the red car on its row
    /// (those whose red car can still reach the exit in some position of its cluster).
    pub fn count_unblocked(&self) -> u64 {
        let states = self.below[0].len();
        // above[s]: the ways to fill rows 0..red_row ending in state s.
        let mut above = vec![0u128; states];
        above[0] = 1;
        for _ in 0..self.red_row {
            let mut next = vec![0u128; states];
            for (s, &n) in above.iter().enumerate().filter(|(_, n)| **n > 0) {
                for k in self.plain.start[s]..self.plain.start[s + 1] {
                    next[self.plain.out[k] as usize] += n;
                }
            }
            above = next;
        }
        let f = &self.red;
        let mut total = 0u128;
        for (s, &n) in above.iter().enumerate().filter(|(_, n)| **n > 0) {
            for k in f.start[s]..f.start[s + 1] {
                if !blocked(f.code[k], self.cols) {
                    total += n * self.below[self.red_row + 1][f.out[k] as usize] as u128;
                }
            }
        }
        total as u64
    }

    /// The ranks of the layouts one move from the layout of `rank`: one piece slid any
    /// distance along its line, in the order of the pieces (reading order), then of the
    /// distance (left or up first, nearest first).
    pub fn neighbors(&self, rank: u64) -> Result<Vec<u64>, LayoutError> {
        let layout = self.unrank(rank)?;
        let mut pieces = layout.pieces();
        let mut out = Vec::new();
        for i in 0..pieces.len() {
            let p = pieces[i];
            let mut occupied = vec![false; self.rows * self.cols];
            for (_, q) in pieces.iter().enumerate().filter(|&(j, _)| j != i) {
                let (dr, dc) = if q.horizontal { (0, 1) } else { (1, 0) };
                for k in 0..q.len {
                    occupied[(q.row + k * dr) * self.cols + q.col + k * dc] = true;
                }
            }
            let free = |r: usize, c: usize| !occupied[r * self.cols + c];
            let (pos, span) = if p.horizontal {
                (p.col, self.cols)
            } else {
                (p.row, self.rows)
            };
            let cell = |x: usize| {
                if p.horizontal {
                    free(p.row, x)
                } else {
                    free(x, p.col)
                }
            };
            let mut places = Vec::new();
            let mut x = pos;
            while x > 0 && cell(x - 1) {
                x -= 1;
                places.push(x);
            }
            let mut x = pos;
            while x + p.len < span && cell(x + p.len) {
                x += 1;
                places.push(x);
            }
            for to in places {
                let mut moved = p;
                if p.horizontal {
                    moved.col = to
                } else {
                    moved.row = to
                }
                pieces[i] = moved;
                let next = Layout::from_pieces(self.rows, self.cols, &pieces)?;
                out.push(self.rank(&next)?);
            }
            pieces[i] = p;
        }
        Ok(out)
    }
}

/// Whether a red-row filling's code has a horizontal piece right of the red car.
fn blocked(code: u64, cols: usize) -> bool {
    let digits: Vec<u64> = (0..cols).rev().map(|c| code >> (3 * c) & 7).collect();
    let red = digits.iter().position(|&d| d == 6).unwrap_or(cols);
    digits[red..].iter().any(|&d| d == 2 || d == 3)
}
