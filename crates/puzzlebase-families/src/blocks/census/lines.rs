//! The pieces of a census: a line's placements of its pieces and their moves, and a
//! column's fillings by vertical pieces, listed once per board shape.

use super::MAX_SIDE;
use crate::blocks::layouts::Cell;

/// A line's pieces: one sequence of lengths, each placement of it along a line of
/// `span` cells, and its moves.
pub(super) struct Line {
    /// The number of pieces (the red car included).
    pub(super) pieces: u32,
    /// Which piece is the red car, if the line holds it.
    pub(super) red: Option<usize>,
    /// Each placement's first cells, piece by piece.
    pub(super) starts: Vec<Vec<u8>>,
    pub(super) lens: Vec<u8>,
    /// Each placement's covered cells, bit `i` for cell `i` of the line.
    pub(super) masks: Vec<u16>,
    /// Each placement's moves: (the placement reached, the cells the piece crosses or
    /// lands on).
    pub(super) moves: Vec<Vec<(u32, u16)>>,
}

impl Line {
    /// Every placement of pieces of lengths `lens` in order along `span` cells.
    pub(super) fn new(lens: &[u8], red: Option<usize>, span: usize) -> Line {
        let mut starts = Vec::new();
        fn go(
            lens: &[u8],
            k: usize,
            from: usize,
            span: usize,
            cur: &mut Vec<u8>,
            out: &mut Vec<Vec<u8>>,
        ) {
            if k == lens.len() {
                out.push(cur.clone());
                return;
            }
            let rest: usize = lens[k..].iter().map(|&l| l as usize).sum();
            if from + rest > span {
                return;
            }
            for s in from..=span - rest {
                cur.push(s as u8);
                go(lens, k + 1, s + lens[k] as usize, span, cur, out);
                cur.pop();
            }
        }
        go(lens, 0, 0, span, &mut Vec::new(), &mut starts);
        let mask = |st: &[u8]| {
            st.iter()
                .zip(lens)
                .fold(0u16, |m, (&s, &l)| m | (((1u16 << l) - 1) << s))
        };
        let masks: Vec<u16> = starts.iter().map(|s| mask(s)).collect();
        let index = |st: &[u8]| starts.binary_search_by(|x| x.as_slice().cmp(st)).ok();
        let mut moves = Vec::with_capacity(starts.len());
        for st in &starts {
            let mut out = Vec::new();
            for k in 0..lens.len() {
                let lo = if k == 0 { 0 } else { st[k - 1] + lens[k - 1] };
                let hi = if k + 1 == lens.len() {
                    span as u8
                } else {
                    st[k + 1]
                };
                let l = lens[k];
                for to in lo..=hi - l {
                    if to == st[k] {
                        continue;
                    }
                    let mut next = st.clone();
                    next[k] = to;
                    let (a, b) = (to.min(st[k]), to.max(st[k]) + l);
                    let swept = ((1u16 << (b - a)) - 1) << a;
                    let j = index(&next).expect("a slide keeps the placement valid");
                    out.push((j as u32, swept));
                }
            }
            moves.push(out);
        }
        Line {
            pieces: lens.len() as u32,
            red,
            starts,
            lens: lens.to_vec(),
            masks,
            moves,
        }
    }

    /// The red car's first cell in placement `p`.
    pub(super) fn red_at(&self, p: usize) -> Option<u8> {
        self.red.map(|k| self.starts[p][k])
    }
}

/// Every sequence of piece lengths (2 and 3) that fits `span` cells.
pub(super) fn sequences(span: usize) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    let mut i = 0;
    while i < out.len() {
        let s = out[i].clone();
        let used: usize = s.iter().map(|&l| l as usize).sum();
        for l in [2u8, 3] {
            if used + l as usize <= span {
                let mut t = s.clone();
                t.push(l);
                out.push(t);
            }
        }
        i += 1;
    }
    out
}

/// A column's possible fillings by vertical pieces, and for each set of cells a row's
/// pieces cover there, the fillings that miss them and the moves between those.
pub(super) struct Columns {
    /// Each filling's covered cells (bit `r` for row `r`) and its number of pieces.
    pub(super) masks: Vec<u16>,
    pub(super) pieces: Vec<u32>,
    /// Each filling's cells as layout digits, top to bottom.
    pub(super) cells: Vec<Vec<Cell>>,
    /// `fits[m]`: the fillings that miss the cells `m`, ascending.
    pub(super) fits: Vec<Vec<u8>>,
    /// `pos[m * F + f]`: filling `f`'s index in `fits[m]`, or `u8::MAX`.
    pub(super) pos: Vec<u8>,
    /// The indices in `fits[m]` one vertical slide from `fits[m][i]`:
    /// `moves[ends[first[m] + i]..ends[first[m] + i + 1]]`.
    pub(super) moves: Vec<u8>,
    pub(super) first: Vec<usize>,
    pub(super) ends: Vec<usize>,
    /// `spread[f * MAX_SIDE + c]`: filling `f`'s cells in column `c` of the board, bit
    /// `r * MAX_SIDE + c` for row `r`.
    pub(super) spread: Vec<u64>,
}

impl Columns {
    pub(super) fn new(rows: usize) -> Columns {
        let mut lines = Vec::new();
        for lens in sequences(rows) {
            let line = Line::new(&lens, None, rows);
            lines.push(line);
        }
        let (mut masks, mut pieces, mut cells, mut of) = (vec![], vec![], vec![], vec![]);
        // The fillings are numbered line by line: line `li`'s placement `p` is
        // `first_id[li] + p`.
        let mut first_id = Vec::with_capacity(lines.len());
        for (li, line) in lines.iter().enumerate() {
            first_id.push(masks.len());
            for (p, st) in line.starts.iter().enumerate() {
                let mut c = vec![Cell::Empty; rows];
                for (&s, &l) in st.iter().zip(&line.lens) {
                    c[s as usize] = if l == 2 { Cell::VCar } else { Cell::VTruck };
                    for x in 1..l as usize {
                        c[s as usize + x] = Cell::Covered;
                    }
                }
                masks.push(line.masks[p]);
                pieces.push(line.pieces);
                cells.push(c);
                of.push((li, p));
            }
        }
        let count = masks.len();
        assert!(count < u8::MAX as usize, "at most 8 rows: 81 fillings");
        let all = 1usize << rows;
        let mut fits = vec![Vec::new(); all];
        let mut pos = vec![u8::MAX; all * count];
        let (mut moves, mut first, mut ends) = (Vec::new(), Vec::new(), vec![0]);
        for m in 0..all {
            for f in 0..count {
                if masks[f] as usize & m == 0 {
                    pos[m * count + f] = fits[m].len() as u8;
                    fits[m].push(f as u8);
                }
            }
            first.push(ends.len() - 1);
            for &f in &fits[m] {
                let (li, p) = of[f as usize];
                for &(j, swept) in &lines[li].moves[p] {
                    if swept as usize & m == 0 {
                        moves.push(pos[m * count + first_id[li] + j as usize]);
                    }
                }
                ends.push(moves.len());
            }
        }
        let spread = (0..count * MAX_SIDE)
            .map(|k| {
                let (f, c) = (k / MAX_SIDE, k % MAX_SIDE);
                (0..rows)
                    .filter(|&r| masks[f] >> r & 1 == 1)
                    .fold(0u64, |v, r| v | 1 << (r * MAX_SIDE + c))
            })
            .collect();
        Columns {
            first,
            ends,
            spread,
            masks,
            pieces,
            cells,
            fits,
            pos,
            moves,
        }
    }
}
