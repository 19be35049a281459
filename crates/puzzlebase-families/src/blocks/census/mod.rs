//! Every Rush Hour layout without walls searched for its distance to the exit, a group
//! of layouts at a time, in memory the group alone needs: the census behind the complete
//! table's histogram (the layouts themselves are counted and ranked by [`super::layouts`];
//! `order` ranks them group by group too: [`Census::rank`]).
//!
//! **Why groups.** A piece never leaves its line (a horizontal piece its row, a vertical
//! one its column) nor passes another piece of that line, so the sequence of piece
//! lengths along each row is the same for every layout a move reaches. A *group* fixes
//! those sequences for every row (the red car among its row's pieces); each column is
//! then free to hold any vertical pieces its cells allow. Every move stays in its group,
//! so a breadth-first search from the group's solved layouts (the red car against the
//! right edge) finds every distance in it without looking at any other group: the
//! search holds a byte per layout of one group (a few hundred megabytes at most; 1.14 GB
//! peak for the 6x6 on two threads) instead of the whole 6x6 table (12.4 GB at two
//! bits), and each layout is expanded once. A group whose red car has a piece to its
//! right is never solved, and is only counted.
//!
//! **Inside a group.** A layout is its rows' placements `h` (mixed radix over each row's
//! placements of its sequence) and each column's filling, chosen among the fillings that
//! miss the cells `h` covers in that column: the layouts of `h` are numbered by a mixed
//! radix over those lists, after the layouts of every earlier `h`. So the numbers are
//! dense, a vertical move changes one digit, and a horizontal move changes `h` and
//! renumbers the columns' digits by a table lookup each.
//!
//! What it gives ([`Histogram`]): the layouts of each distance, split by their number of
//! pieces; how many are never solved; the deepest layouts found. Its sum over every
//! group is checked against the transfer matrix's count ([`super::layouts::Layouts`]).

use rayon::prelude::*;
use strength_reduce::StrengthReducedU32;

use super::layouts::{Cell, Layout, Layouts};
use super::rush::{RED_ROW, SIDE};
use puzzlebase_core::progress::Progress;

mod lines;
mod order;
#[cfg(test)]
mod tests;

use lines::{Columns, Line, sequences};

/// The most rows and columns a census board may have (a column's cells are a `u8`
/// mask, a row's too).
pub const MAX_SIDE: usize = 8;
/// How many of the deepest layouts a census keeps as examples.
pub const DEEPEST_KEPT: usize = 16;
/// Never reached (yet), in a group's distances.
const UNSEEN: u8 = u8::MAX;
/// The mark of a layout already in a cluster (the high bit of its byte), when clusters
/// are counted; a layout never reached is marked too, as it is never in one.
const CLUSTERED: u8 = 0x80;

/// Why a census cannot be taken: one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CensusError {
    /// Rows or columns outside `2..=MAX_SIDE`, or the red row outside the board.
    #[error(
        "a census of a {rows}x{cols} board with the red car on row {red_row} is not supported (2 to 8 rows and columns)"
    )]
    Shape {
        rows: usize,
        cols: usize,
        red_row: usize,
    },
    /// A group with more layouts than its 32-bit numbers hold.
    #[error("a group of {0} layouts is more than a census numbers (4,294,967,295)")]
    GroupTooLarge(u64),
    /// A distance past what a group's byte per layout holds: 254, or 126 when clusters
    /// are counted (their mark takes the high bit).
    #[error(
        "a layout deeper than a group's byte per layout holds (254 moves; 126 when clusters are counted)"
    )]
    TooDeep,
    /// Not a layout of the census's board.
    #[error("not a layout of this board")]
    NotALayout,
    /// A rank at or past the census's count.
    #[error("rank {rank} is outside the layouts: there are {count}")]
    RankOutside { rank: u64, count: u64 },
}

/// What a census found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram {
    /// Every layout, solved or not: the transfer matrix's count.
    pub layouts: u64,
    /// `by_distance[d][n]`: the layouts `d` moves from the exit with `n` pieces (the red
    /// car included).
    pub by_distance: Vec<Vec<u64>>,
    /// The deepest layouts found (at most [`DEEPEST_KEPT`]), in no particular order.
    pub deepest: Vec<Layout>,
    /// The deepest distance and how many layouts are at it (0 before any is found).
    pub deepest_distance: usize,
    pub deepest_count: u64,
    /// When counted ([`Census::with_clusters`]): `clusters[d]`, the solvable clusters
    /// (layouts joined by moves, a solved one among them) whose deepest layout is `d`
    /// moves from the exit. Empty when not counted.
    pub clusters: Vec<u64>,
}

impl Histogram {
    /// The layouts at each distance.
    pub fn levels(&self) -> Vec<u64> {
        self.by_distance.iter().map(|n| n.iter().sum()).collect()
    }
    /// The layouts the red car can leave from.
    pub fn solvable(&self) -> u64 {
        self.levels().iter().sum()
    }

    fn add_level(&mut self, d: usize, n: usize, count: u64) {
        if self.by_distance.len() <= d {
            self.by_distance.resize(d + 1, Vec::new());
        }
        let row = &mut self.by_distance[d];
        if row.len() <= n {
            row.resize(n + 1, 0);
        }
        row[n] += count;
    }

    fn merge(mut self, other: Histogram) -> Histogram {
        self.layouts += other.layouts;
        if self.clusters.len() < other.clusters.len() {
            self.clusters.resize(other.clusters.len(), 0);
        }
        for (d, &n) in other.clusters.iter().enumerate() {
            self.clusters[d] += n;
        }
        for (d, row) in other.by_distance.iter().enumerate() {
            for (n, &c) in row.iter().enumerate() {
                if c > 0 {
                    self.add_level(d, n, c);
                }
            }
        }
        let key = |h: &Histogram| (h.deepest_count > 0).then_some(h.deepest_distance);
        let (da, db) = (key(&self), key(&other));
        if db > da {
            self.deepest = other.deepest;
            self.deepest_distance = other.deepest_distance;
            self.deepest_count = other.deepest_count;
        } else if db == da {
            self.deepest_count += other.deepest_count;
            let room = DEEPEST_KEPT.saturating_sub(self.deepest.len());
            self.deepest.extend(other.deepest.into_iter().take(room));
        }
        self
    }
}

/// A census of one board shape.
pub struct Census {
    rows: usize,
    cols: usize,
    red_row: usize,
    columns: Columns,
    /// The sequences a row other than the red car's may hold, and the red car's row's.
    plain: Vec<Line>,
    red: Vec<Line>,
    /// Whether clusters are counted.
    clusters: bool,
}

impl Census {
    /// Rush Hour's 6x6 board, the red car on the third row.
    pub fn rush_hour() -> Census {
        Census::new(SIDE, SIDE, RED_ROW).expect("the 6x6 board is supported")
    }

    /// The census of a `rows` x `cols` board with the red car on row `red_row` (0-based),
    /// refused outside 2 to [`MAX_SIDE`] rows and columns.
    pub fn new(rows: usize, cols: usize, red_row: usize) -> Result<Census, CensusError> {
        if !(2..=MAX_SIDE).contains(&rows) || !(2..=MAX_SIDE).contains(&cols) || red_row >= rows {
            return Err(CensusError::Shape {
                rows,
                cols,
                red_row,
            });
        }
        let plain = sequences(cols)
            .iter()
            .map(|s| Line::new(s, None, cols))
            .collect();
        // The red car (a car) at each place among the other pieces of a row that leave
        // it room.
        let mut red = Vec::new();
        for s in sequences(cols - 2) {
            for k in 0..=s.len() {
                let mut t = s.clone();
                t.insert(k, 2);
                red.push(Line::new(&t, Some(k), cols));
            }
        }
        Ok(Census {
            rows,
            cols,
            red_row,
            columns: Columns::new(rows),
            plain,
            red,
            clusters: false,
        })
    }

    /// The number of groups: every choice of a sequence per row.
    pub fn groups(&self) -> u64 {
        (self.plain.len() as u64).pow(self.rows as u32 - 1) * self.red.len() as u64
    }

    /// The lines row `r` may hold: the red car's row's, or the others'.
    fn pool(&self, r: usize) -> &[Line] {
        if r == self.red_row {
            &self.red
        } else {
            &self.plain
        }
    }

    /// The rows' lines of group `g` (row 0 its most significant digit).
    fn lines(&self, g: u64) -> Vec<&Line> {
        let mut rest = g;
        let mut out: Vec<&Line> = (0..self.rows)
            .rev()
            .map(|r| {
                let pool = self.pool(r);
                let line = &pool[(rest % pool.len() as u64) as usize];
                rest /= pool.len() as u64;
                line
            })
            .collect();
        out.reverse();
        out
    }

    /// Searches every group (in parallel), reporting the layouts of each group done to
    /// `progress` (the phase's total is the transfer matrix's count, when it has one).
    pub fn run(&self, progress: &dyn Progress) -> Result<Histogram, CensusError> {
        progress.phase("layouts", layouts_of(self).unwrap_or(0));
        self.run_every(1, progress)
    }

    /// Searches one group in `every` (those whose number is a multiple of it): a sample
    /// of the census, to time it (`every` times the sample's time is about the whole
    /// census's). `every` 1 is [`Census::run`] without the progress's total.
    pub fn run_every(&self, every: u64, progress: &dyn Progress) -> Result<Histogram, CensusError> {
        (0..self.groups())
            .into_par_iter()
            .filter(|g| g % every.max(1) == 0)
            .map(|g| {
                let h = self.group(g)?;
                progress.advance(h.layouts);
                Ok(h)
            })
            .try_reduce(Histogram::default, |a, b| Ok(a.merge(b)))
    }

    /// The group of a layout of this board: the sequence of its horizontal pieces along
    /// each row. `None` for a layout of another shape.
    pub fn group_of(&self, layout: &Layout) -> Option<u64> {
        if (layout.rows, layout.cols) != (self.rows, self.cols) {
            return None;
        }
        let mut g = 0u64;
        for r in 0..self.rows {
            let mut lens = Vec::new();
            let mut red = None;
            for c in 0..self.cols {
                match layout.cells[r * self.cols + c] {
                    Cell::HCar => lens.push(2),
                    Cell::HTruck => lens.push(3),
                    Cell::Red => {
                        red = Some(lens.len());
                        lens.push(2)
                    }
                    _ => {}
                }
            }
            let pool = self.pool(r);
            let k = pool.iter().position(|l| l.lens == lens && l.red == red)?;
            g = g * pool.len() as u64 + k as u64;
        }
        Some(g)
    }

    /// Every group's layouts added up, without searching: the transfer matrix's count
    /// when the groups miss no layout and count none twice.
    pub fn count(&self) -> Result<u64, CensusError> {
        Ok(*self.offsets()?.last().expect("one entry at least"))
    }

    /// Searches group `g` alone.
    pub fn group(&self, g: u64) -> Result<Histogram, CensusError> {
        Group::new(self, g)?.search(self.clusters)
    }

    /// Counts the solvable clusters too ([`Histogram::clusters`]): a second walk over
    /// every solvable layout, about as long as the search.
    pub fn with_clusters(mut self) -> Census {
        self.clusters = true;
        self
    }
}

/// One group being searched.
struct Group<'a> {
    census: &'a Census,
    lines: Vec<&'a Line>,
    /// Row `r`'s stride in the numbering of `h`.
    hstride: Vec<u32>,
    /// Per `h`: each column's covered cells (`cols` entries from `h * cols`).
    colmask: Vec<u8>,
    /// Per `h`: its first layout's number (`base[h]`; one more entry, the total).
    base: Vec<u32>,
    /// Per `h`: each column's stride in the numbering of `h`'s layouts, and its radix
    /// (the fillings that fit), `MAX_SIDE` entries from `h * MAX_SIDE`.
    stride: Vec<u32>,
    radix: Vec<StrengthReducedU32>,
    /// Per `h`: each row's placement, `MAX_SIDE` entries from `h * MAX_SIDE`.
    places: Vec<u16>,
    /// The pieces of the rows.
    row_pieces: u32,
}

impl<'a> Group<'a> {
    fn new(census: &'a Census, g: u64) -> Result<Group<'a>, CensusError> {
        let lines = census.lines(g);
        let (rows, cols) = (census.rows, census.cols);
        let mut hstride = vec![1u32; rows];
        for r in (0..rows - 1).rev() {
            hstride[r] = hstride[r + 1] * lines[r + 1].starts.len() as u32;
        }
        let nh = hstride[0] as usize * lines[0].starts.len();
        let mut places = vec![0u16; nh * MAX_SIDE];
        let mut colmask = vec![0u8; nh * cols];
        let one = StrengthReducedU32::new(1);
        let (mut stride, mut radix) = (vec![0u32; nh * MAX_SIDE], vec![one; nh * MAX_SIDE]);
        let mut base = Vec::with_capacity(nh + 1);
        let mut total = 0u64;
        for h in 0..nh {
            let cm = &mut colmask[h * cols..(h + 1) * cols];
            for r in 0..rows {
                let p = h / hstride[r] as usize % lines[r].starts.len();
                places[h * MAX_SIDE + r] = p as u16;
                let m = lines[r].masks[p];
                for (c, x) in cm.iter_mut().enumerate() {
                    *x |= ((m >> c & 1) as u8) << r;
                }
            }
            // The columns' digits, the last the least significant.
            let mut size = 1u64;
            for c in (0..cols).rev() {
                let n = census.columns.fits[cm[c] as usize].len() as u64;
                stride[h * MAX_SIDE + c] = size as u32;
                radix[h * MAX_SIDE + c] = StrengthReducedU32::new(n.max(1) as u32);
                size *= n;
            }
            base.push(total as u32);
            total += size;
            if total > u32::MAX as u64 {
                return Err(CensusError::GroupTooLarge(total));
            }
        }
        base.push(total as u32);
        Ok(Group {
            places,
            stride,
            radix,
            census,
            row_pieces: lines.iter().map(|l| l.pieces).sum(),
            lines,
            hstride,
            colmask,
            base,
        })
    }

    fn total(&self) -> u64 {
        *self.base.last().expect("one entry at least") as u64
    }

    /// Whether the group holds solved layouts: its red car is last on its row.
    fn solvable(&self) -> bool {
        let l = self.lines[self.census.red_row];
        l.red == Some(l.lens.len() - 1)
    }

    /// The row placement of row `r` in `h`.
    fn place(&self, h: usize, r: usize) -> usize {
        self.places[h * MAX_SIDE + r] as usize
    }

    /// Calls `visit(h2, n)` for every layout one move from layout `i` (of rows `h`),
    /// and returns its number of pieces.
    #[inline]
    fn expand(&self, h: usize, i: u32, mut visit: impl FnMut(usize, u32)) -> u32 {
        let cols = self.census.cols;
        let col = &self.census.columns;
        let nf = col.masks.len();
        let mut fill = [0usize; MAX_SIDE];
        let mut digit = [0u32; MAX_SIDE];
        let cm = &self.colmask[h * cols..(h + 1) * cols];
        let stride = &self.stride[h * MAX_SIDE..h * MAX_SIDE + cols];
        let radix = &self.radix[h * MAX_SIDE..h * MAX_SIDE + cols];
        let mut off = i - self.base[h];
        let mut pieces = self.row_pieces;
        // The cells the vertical pieces cover, bit `r * MAX_SIDE + c`.
        let mut vert = 0u64;
        for c in (0..cols).rev() {
            let (q, rem) = StrengthReducedU32::div_rem(off, radix[c]);
            digit[c] = rem;
            off = q;
            let f = col.fits[cm[c] as usize][rem as usize] as usize;
            fill[c] = f;
            pieces += col.pieces[f];
            vert |= col.spread[f * MAX_SIDE + c];
        }
        for c in 0..cols {
            let k = col.first[cm[c] as usize] + digit[c] as usize;
            for &j in &col.moves[col.ends[k]..col.ends[k + 1]] {
                let n = i as i64 + (j as i64 - digit[c] as i64) * stride[c] as i64;
                visit(h, n as u32);
            }
        }
        for r in 0..self.census.rows {
            let p = self.place(h, r);
            let busy = (vert >> (r * MAX_SIDE)) as u16 & 0xff;
            for &(to, swept) in &self.lines[r].moves[p] {
                if swept & busy != 0 {
                    continue;
                }
                let h2 = (h as i64 + (to as i64 - p as i64) * self.hstride[r] as i64) as usize;
                let cm2 = &self.colmask[h2 * cols..(h2 + 1) * cols];
                let stride2 = &self.stride[h2 * MAX_SIDE..h2 * MAX_SIDE + cols];
                let mut n = self.base[h2];
                for c in 0..cols {
                    let k = col.pos[cm2[c] as usize * nf + fill[c]];
                    debug_assert!(k != u8::MAX, "a slide over free cells fits");
                    n += k as u32 * stride2[c];
                }
                visit(h2, n);
            }
        }
        pieces
    }

    fn search(&self, clusters: bool) -> Result<Histogram, CensusError> {
        let mut out = Histogram {
            layouts: self.total(),
            ..Histogram::default()
        };
        if !self.solvable() || self.total() == 0 {
            return Ok(out);
        }
        let (cols, rr) = (self.census.cols, self.census.red_row);
        let exit = (cols - 2) as u8;
        let mut dist = vec![UNSEEN; self.total() as usize];
        // A layout in the frontier: its `h` (high half) and its number (low half).
        let mut front: Vec<u64> = Vec::new();
        for h in 0..self.base.len() - 1 {
            if self.lines[rr].red_at(self.place(h, rr)) == Some(exit) {
                for i in self.base[h]..self.base[h + 1] {
                    dist[i as usize] = 0;
                    front.push((h as u64) << 32 | i as u64);
                }
            }
        }
        let mut next = Vec::new();
        let mut d = 0u8;
        let mut per_pieces = [0u64; MAX_SIDE * MAX_SIDE];
        // Counting clusters marks a layout's byte with the high bit: distances stay below.
        let deepest = if clusters { CLUSTERED - 1 } else { UNSEEN - 1 };
        loop {
            if d == deepest {
                return Err(CensusError::TooDeep);
            }
            per_pieces.fill(0);
            for &e in &front {
                let (h, i) = ((e >> 32) as usize, e as u32);
                let pieces = self.expand(h, i, |h2, n| {
                    let x = &mut dist[n as usize];
                    if *x == UNSEEN {
                        *x = d + 1;
                        next.push((h2 as u64) << 32 | n as u64);
                    }
                });
                per_pieces[pieces as usize] += 1;
            }
            for (n, &c) in per_pieces.iter().enumerate().filter(|(_, c)| **c > 0) {
                out.add_level(d as usize, n, c);
            }
            if next.is_empty() {
                out.deepest_distance = d as usize;
                out.deepest_count = front.len() as u64;
                out.deepest = front
                    .iter()
                    .take(DEEPEST_KEPT)
                    .map(|&e| self.layout(e as u32))
                    .collect();
                break;
            }
            std::mem::swap(&mut front, &mut next);
            next.clear();
            d += 1;
        }
        if clusters {
            out.clusters = self.clusters(&mut dist);
        }
        Ok(out)
    }

    /// The solvable clusters (layouts joined by moves, a solved one among them) by their
    /// deepest layout's distance: each reached layout not yet in a cluster starts one,
    /// filled from it (a depth-first walk), its bytes marked with [`CLUSTERED`].
    fn clusters(&self, dist: &mut [u8]) -> Vec<u64> {
        let mut by_depth = Vec::new();
        let mut stack: Vec<u64> = Vec::new();
        for h in 0..self.base.len() - 1 {
            for i in self.base[h]..self.base[h + 1] {
                if dist[i as usize] >= CLUSTERED {
                    continue;
                }
                let mut deepest = dist[i as usize];
                dist[i as usize] |= CLUSTERED;
                stack.push((h as u64) << 32 | i as u64);
                while let Some(e) = stack.pop() {
                    let (h, i) = ((e >> 32) as usize, e as u32);
                    self.expand(h, i, |h2, n| {
                        let x = &mut dist[n as usize];
                        if *x < CLUSTERED {
                            deepest = deepest.max(*x);
                            *x |= CLUSTERED;
                            stack.push((h2 as u64) << 32 | n as u64);
                        }
                    });
                }
                let d = deepest as usize;
                if by_depth.len() <= d {
                    by_depth.resize(d + 1, 0);
                }
                by_depth[d] += 1;
            }
        }
        by_depth
    }

    /// The layout numbered `i` in the group.
    fn layout(&self, i: u32) -> Layout {
        let (rows, cols) = (self.census.rows, self.census.cols);
        let h = self.base.partition_point(|&b| b <= i) - 1;
        let mut cells = vec![Cell::Empty; rows * cols];
        let off = i - self.base[h];
        let col = &self.census.columns;
        for c in 0..cols {
            let m = self.colmask[h * cols + c] as usize;
            let k = off / self.stride[h * MAX_SIDE + c] % self.radix[h * MAX_SIDE + c].get();
            let f = col.fits[m][k as usize] as usize;
            for r in 0..rows {
                if col.cells[f][r] != Cell::Empty {
                    cells[r * cols + c] = col.cells[f][r];
                }
            }
        }
        for r in 0..rows {
            let line = self.lines[r];
            let p = self.place(h, r);
            for (k, (&s, &l)) in line.starts[p].iter().zip(&line.lens).enumerate() {
                let first = if line.red == Some(k) {
                    Cell::Red
                } else if l == 2 {
                    Cell::HCar
                } else {
                    Cell::HTruck
                };
                cells[r * cols + s as usize] = first;
                for x in 1..l as usize {
                    cells[r * cols + s as usize + x] = Cell::Covered;
                }
            }
        }
        Layout { rows, cols, cells }
    }
}

/// The number of layouts of the census's board by the transfer matrix, to check a
/// census's sum against.
pub fn layouts_of(census: &Census) -> Option<u64> {
    Layouts::new(census.rows, census.cols, census.red_row)
        .ok()
        .map(|l| l.count())
}
