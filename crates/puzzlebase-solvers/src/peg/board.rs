//! Peg-solitaire boards as data: holes, jump lines, start and finish, the symmetries
//! computed from the jump structure, and the text notation of positions and moves.
//!
//! A position is a bitboard (`u64`, bit `i` set = hole `i` holds a peg), so every board
//! has at most 64 holes. A move is a chain of jumps by one peg, written
//! `[from, to1, to2, ...]`.

use puzzlebase_core::definition::Source;
use puzzlebase_core::format;
use puzzlebase_core::records::Storage;
use puzzlebase_core::space::StateError;

/// Boards up to this many holes get the start x finish matrix unless their definition
/// says otherwise (one solve per start hole).
pub const MATRIX_MAX_HOLES: usize = 21;
use serde_json::json;

/// One jump line: a peg in `from` jumps over the peg in `over` into the empty `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Jump {
    pub from: u8,
    pub over: u8,
    pub to: u8,
}

impl Jump {
    /// The jump's three holes as a mask: the position after it is the one before xor
    /// this.
    #[inline]
    pub fn holes(&self) -> u64 {
        (1u64 << self.from) | (1u64 << self.over) | (1u64 << self.to)
    }
}

/// A board definition plus the tables derived from it (symmetries, lookup tables).
#[derive(Debug, Clone)]
pub struct Board {
    pub name: &'static str,
    pub holes: usize,
    /// All jumps, ordered by `from` and then by the order of the source table.
    pub jumps: Vec<Jump>,
    pub start: u64,
    pub finish: u64,
    /// Whether a complete table is meant to be computed (false: definition only).
    pub tabulate: bool,
    /// Whether the start x finish matrix is computed with the table.
    pub matrix: bool,
    /// Stored as layers (see [`Board::storage`]) though small enough for rows: asked for
    /// by the definition (`storage = "layers"`).
    pub layers: bool,
    /// Grid coordinates `(row, col)` of each hole, for boards given by geometry.
    pub coordinates: Option<Vec<(u8, u8)>>,
    /// `(over, to)` pairs per `from` hole, in jump order.
    jumps_from: Vec<Vec<(u8, u8)>>,
    /// Symmetries fixing start and finish; index 0 is the identity.
    symmetries: Vec<Vec<u8>>,
    /// `byte_images[(s * bytes + k) * 256 + v]` = image under symmetry `s` of the
    /// bitboard whose byte `k` is `v` (and all other bytes 0). Canonicalisation runs
    /// hundreds of millions of times on english33, so it must be a handful of lookups.
    byte_images: Vec<u64>,
    bytes: usize,
    /// The definition file's contents and drawing layout, when built from one.
    source: Source,
}

impl Board {
    /// A board from a jump table as the seeds print it: per hole, its `(over, to)` pairs.
    /// The caller (the catalog) has checked that every hole is on the board.
    pub fn from_table(
        name: &'static str,
        table: &[Vec<(u8, u8)>],
        start: usize,
        finish: usize,
        tabulate: bool,
    ) -> Board {
        let mut jumps = Vec::new();
        for (from, row) in table.iter().enumerate() {
            for &(over, to) in row.iter() {
                jumps.push(Jump {
                    from: from as u8,
                    over,
                    to,
                });
            }
        }
        Board::new(name, table.len(), jumps, start, finish, tabulate, None)
    }

    /// A board on a square grid: `coords` are the holes' `(row, col)`, in hole order;
    /// jumps run along three consecutive holes in each of `directions` (row, col steps),
    /// from each hole in turn, directions in the order given.
    pub fn from_grid(
        name: &'static str,
        coords: Vec<(u8, u8)>,
        directions: &[(i8, i8)],
        start: usize,
        finish: usize,
        tabulate: bool,
    ) -> Board {
        let index = |r: i32, c: i32| {
            coords
                .iter()
                .position(|&(rr, cc)| rr as i32 == r && cc as i32 == c)
        };
        let mut jumps = Vec::new();
        for (from, &(r, c)) in coords.iter().enumerate() {
            for &(dr, dc) in directions {
                let (r, c, dr, dc) = (r as i32, c as i32, dr as i32, dc as i32);
                if let (Some(over), Some(to)) =
                    (index(r + dr, c + dc), index(r + 2 * dr, c + 2 * dc))
                {
                    jumps.push(Jump {
                        from: from as u8,
                        over: over as u8,
                        to: to as u8,
                    });
                }
            }
        }
        let holes = coords.len();
        Board::new(name, holes, jumps, start, finish, tabulate, Some(coords))
    }

    pub(super) fn new(
        name: &'static str,
        holes: usize,
        jumps: Vec<Jump>,
        start: usize,
        finish: usize,
        tabulate: bool,
        coordinates: Option<Vec<(u8, u8)>>,
    ) -> Board {
        assert!(holes <= 64, "bitboards hold at most 64 holes");
        let full = if holes == 64 {
            u64::MAX
        } else {
            (1u64 << holes) - 1
        };
        let mut jumps_from = vec![Vec::new(); holes];
        for j in &jumps {
            jumps_from[j.from as usize].push((j.over, j.to));
        }
        let start = full & !(1u64 << start);
        let finish = 1u64 << finish;
        let symmetries: Vec<Vec<u8>> = automorphisms(holes, &jumps)
            .into_iter()
            .filter(|p| permute(p, start) == start && permute(p, finish) == finish)
            .collect();
        let bytes = holes.div_ceil(8);
        let mut byte_images = vec![0u64; symmetries.len() * bytes * 256];
        for (s, p) in symmetries.iter().enumerate() {
            for k in 0..bytes {
                for v in 0..256u64 {
                    let bits = (v << (8 * k)) & full;
                    byte_images[(s * bytes + k) * 256 + v as usize] = permute(p, bits);
                }
            }
        }
        Board {
            name,
            holes,
            jumps,
            start,
            finish,
            tabulate,
            matrix: holes <= MATRIX_MAX_HOLES,
            layers: false,
            coordinates,
            jumps_from,
            symmetries,
            byte_images,
            bytes,
            source: Source::default(),
        }
    }

    /// How the board's table is stored: the one rule, [`format::peg_storage`].
    pub fn storage(&self) -> Storage {
        format::peg_storage(self.holes, self.layers)
    }

    /// Attaches the definition file's contents and layout (stored in the definition).
    pub fn with_source(mut self, source: Source) -> Self {
        self.source = source;
        self
    }

    /// The `(over, to)` pairs of jumps starting at `from`, in jump order.
    #[inline]
    pub fn jumps_from(&self, from: u8) -> &[(u8, u8)] {
        &self.jumps_from[from as usize]
    }

    /// Stable JSON description: everything that determines the table's contents.
    pub fn definition(&self) -> serde_json::Value {
        let mut d = json!({
            "name": self.name,
            "holes": self.holes,
            "jumps": self.jumps.iter().map(|j| [j.from, j.over, j.to]).collect::<Vec<_>>(),
            "start": self.format(self.start),
            "finish": self.format(self.finish),
            "symmetries": self.symmetries,
            "coordinates": self.coordinates,
            "notation": "position: one char per hole in hole order, 1 = peg, 0 = empty; \
                         move: [from,to1,to2,...], a chain of jumps by one peg",
            "matrix": self.matrix,
        });
        if self.layers {
            d["storage"] = json!("layers");
        }
        self.source.annotate(&mut d);
        d
    }

    /// Hole permutations (`p[i]` = image of hole `i`) that map the jump set onto itself
    /// and fix the start and finish positions; index 0 is the identity.
    pub fn symmetries(&self) -> &[Vec<u8>] {
        &self.symmetries
    }

    /// All automorphisms of the jump structure, ignoring start and finish.
    pub fn automorphisms(&self) -> Vec<Vec<u8>> {
        automorphisms(self.holes, &self.jumps)
    }

    /// The image of `bits` under symmetry `sym`.
    #[inline]
    pub fn apply_symmetry(&self, bits: u64, sym: usize) -> u64 {
        let base = sym * self.bytes * 256;
        let mut out = 0;
        for k in 0..self.bytes {
            out |= self.byte_images[base + k * 256 + ((bits >> (8 * k)) & 0xff) as usize];
        }
        out
    }

    /// The minimum image of `bits` over [`Board::symmetries`], and the index of the
    /// first symmetry producing it.
    #[inline]
    pub fn canonical(&self, bits: u64) -> (u64, usize) {
        let mut best = bits;
        let mut which = 0;
        for s in 1..self.symmetries.len() {
            let image = self.apply_symmetry(bits, s);
            if image < best {
                best = image;
                which = s;
            }
        }
        (best, which)
    }

    /// The canonical forms of positions with one of `masks` flipped ([`Flips`]).
    pub fn flips(&self, masks: impl IntoIterator<Item = u64>) -> Flips<'_> {
        let masks: Vec<u64> = masks.into_iter().collect();
        let n = self.symmetries.len();
        let images = if n <= FLIP_SYMMETRIES {
            (masks.iter())
                .flat_map(|&m| (0..n).map(move |s| self.apply_symmetry(m, s)))
                .collect()
        } else {
            Vec::new()
        };
        Flips {
            board: self,
            n,
            masks,
            images,
        }
    }

    /// Number of distinct images of `bits` (the size of its symmetry class): the order of
    /// the symmetry group over that of the subgroup fixing `bits` (orbit-stabiliser), so
    /// no image is collected or sorted.
    #[inline]
    pub fn class_size(&self, bits: u64) -> u32 {
        let fixing = (0..self.symmetries.len())
            .filter(|&s| self.apply_symmetry(bits, s) == bits)
            .count();
        (self.symmetries.len() / fixing) as u32
    }

    /// Relabels the holes of a move by symmetry `sym` (or by its inverse).
    pub fn map_move(&self, mv: &[u8], sym: usize, inverse: bool) -> Vec<u8> {
        let p = &self.symmetries[sym];
        if inverse {
            mv.iter()
                .map(|&h| p.iter().position(|&x| x == h).expect("hole on board") as u8)
                .collect()
        } else {
            mv.iter().map(|&h| p[h as usize]).collect()
        }
    }

    /// Plays a move `[from, to1, to2, ...]`; `None` if it is not a legal chain of jumps
    /// by one peg in `bits`.
    pub fn apply_move(&self, bits: u64, mv: &[u8]) -> Option<u64> {
        if mv.len() < 2 {
            return None;
        }
        let mut bits = bits;
        for step in mv.windows(2) {
            let (from, to) = (step[0], step[1]);
            if from as usize >= self.holes {
                return None;
            }
            let &(over, _) = self.jumps_from(from).iter().find(|&&(_, t)| t == to)?;
            let (f, o, t) = (1u64 << from, 1u64 << over, 1u64 << to);
            if bits & f == 0 || bits & o == 0 || bits & t != 0 {
                return None;
            }
            bits ^= f | o | t;
        }
        Some(bits)
    }

    /// All moves from `bits` with the positions they lead to (not canonicalised), in the
    /// fixed enumeration order: pegs by ascending hole, then depth-first over the jump
    /// table, every prefix of a chain before its extensions.
    pub fn moves(&self, bits: u64) -> Vec<(Vec<u8>, u64)> {
        let mut out = Vec::new();
        self.for_each_move(bits, |mv, after| out.push((mv.to_vec(), after)));
        out
    }

    /// Calls `f(move, position after)` for every move from `bits`, in [`Board::moves`]
    /// order, without allocating per move.
    #[inline]
    pub fn for_each_move(&self, bits: u64, mut f: impl FnMut(&[u8], u64)) {
        let mut path = Vec::with_capacity(16);
        let mut pegs = bits;
        while pegs != 0 {
            let h = pegs.trailing_zeros() as u8;
            pegs &= pegs - 1;
            path.clear();
            path.push(h);
            self.chain(bits, h, &mut path, &mut f);
        }
    }

    fn chain(&self, bits: u64, at: u8, path: &mut Vec<u8>, f: &mut impl FnMut(&[u8], u64)) {
        for &(over, to) in self.jumps_from(at) {
            let (o, t) = (1u64 << over, 1u64 << to);
            if bits & o != 0 && bits & t == 0 {
                let after = bits ^ (1u64 << at) ^ o ^ t;
                path.push(to);
                f(path, after);
                self.chain(after, to, path, f);
                path.pop();
            }
        }
    }

    /// One character per hole, in hole order: `1` = peg, `0` = empty.
    pub fn format(&self, bits: u64) -> String {
        (0..self.holes)
            .map(|i| if bits >> i & 1 == 1 { '1' } else { '0' })
            .collect()
    }

    /// Parses [`Board::format`]'s notation (surrounding whitespace is ignored).
    pub fn parse(&self, text: &str) -> Result<u64, StateError> {
        let t = text.trim();
        if let Some(c) = t.chars().find(|&c| c != '0' && c != '1') {
            return Err(StateError::malformed(
                text,
                format!("only '0' (empty) and '1' (peg) are allowed, found {c:?}"),
            ));
        }
        if t.len() != self.holes {
            return Err(StateError::malformed(
                text,
                format!(
                    "{} has {} holes, the text has {} characters",
                    self.name,
                    self.holes,
                    t.len()
                ),
            ));
        }
        Ok(t.bytes()
            .enumerate()
            .fold(0u64, |acc, (i, b)| acc | (((b - b'0') as u64) << i)))
    }

    /// The seeds' notation: `[10,12][13,11][3,10,12,3]`.
    pub fn format_moves(moves: &[Vec<u8>]) -> String {
        moves
            .iter()
            .map(|m| {
                let inner: Vec<String> = m.iter().map(|h| h.to_string()).collect();
                format!("[{}]", inner.join(","))
            })
            .collect()
    }

    /// One move in the notation [`Board::format_moves`] writes, `[3,10,12,3]`: the holes
    /// the peg visits, each a hole of this board. Nothing else is a move (no spaces, no
    /// empty list); this is the one parser of stored moves.
    pub fn parse_move(&self, text: &str) -> Option<Vec<u8>> {
        let inner = text.strip_prefix('[')?.strip_suffix(']')?;
        inner
            .split(',')
            .map(|h| {
                (h.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| h.parse().ok())
                    .flatten()
                    .filter(|&h: &u8| (h as usize) < self.holes)
            })
            .collect()
    }
}

/// Image of a bitboard under a hole permutation (slow path, used to build tables).
fn permute(p: &[u8], bits: u64) -> u64 {
    (0..p.len())
        .filter(|&i| bits >> i & 1 == 1)
        .fold(0, |acc, i| acc | 1u64 << p[i])
}

/// Every permutation of the holes that maps the set of jump triples onto itself, by
/// backtracking: holes are assigned in breadth-first order along jump lines, so each
/// new hole shares a jump with assigned ones and a wrong choice fails at once. The
/// result is sorted with the identity first.
/// Appends to `order`, breadth first from `root` (which must not be `seen` yet), every
/// hole not yet `seen` that is linked to `root` by holes sharing a jump line, marking
/// each as seen: the holes of `root`'s part of the board.
pub fn linked_by_jumps(jumps: &[Jump], root: usize, seen: &mut [bool], order: &mut Vec<usize>) {
    seen[root] = true;
    let mut head = order.len();
    order.push(root);
    while head < order.len() {
        let h = order[head];
        head += 1;
        for j in jumps {
            let line = [j.from as usize, j.over as usize, j.to as usize];
            if line.contains(&h) {
                for x in line {
                    if !seen[x] {
                        seen[x] = true;
                        order.push(x);
                    }
                }
            }
        }
    }
}

fn automorphisms(holes: usize, jumps: &[Jump]) -> Vec<Vec<u8>> {
    let n = holes;
    let mut is_jump = vec![false; n * n * n];
    for j in jumps {
        is_jump[(j.from as usize * n + j.over as usize) * n + j.to as usize] = true;
    }
    // Invariant used to prune candidates: how often a hole is `from`, `over`, `to`.
    let mut sig = vec![(0u32, 0u32, 0u32); n];
    for j in jumps {
        sig[j.from as usize].0 += 1;
        sig[j.over as usize].1 += 1;
        sig[j.to as usize].2 += 1;
    }
    // Breadth-first order over "shares a jump", starting from hole 0.
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for root in 0..n {
        if !seen[root] {
            linked_by_jumps(jumps, root, &mut seen, &mut order);
        }
    }
    let mut pos = vec![0; n];
    for (i, &h) in order.iter().enumerate() {
        pos[h] = i;
    }
    // Jumps to check when the hole at order position i is assigned: those whose last
    // assigned hole it is.
    let mut check: Vec<Vec<Jump>> = vec![Vec::new(); n];
    for j in jumps {
        let last = pos[j.from as usize]
            .max(pos[j.over as usize])
            .max(pos[j.to as usize]);
        check[last].push(*j);
    }

    struct Search<'a> {
        n: usize,
        order: &'a [usize],
        sig: &'a [(u32, u32, u32)],
        is_jump: &'a [bool],
        check: &'a [Vec<Jump>],
        perm: Vec<u8>,
        used: Vec<bool>,
        out: Vec<Vec<u8>>,
    }
    impl Search<'_> {
        fn go(&mut self, i: usize) {
            if i == self.n {
                self.out.push(self.perm.clone());
                return;
            }
            let h = self.order[i];
            for c in 0..self.n {
                if self.used[c] || self.sig[c] != self.sig[h] {
                    continue;
                }
                self.perm[h] = c as u8;
                let n = self.n;
                let ok = self.check[i].iter().all(|j| {
                    let (f, o, t) = (
                        self.perm[j.from as usize] as usize,
                        self.perm[j.over as usize] as usize,
                        self.perm[j.to as usize] as usize,
                    );
                    self.is_jump[(f * n + o) * n + t]
                });
                if ok {
                    self.used[c] = true;
                    self.go(i + 1);
                    self.used[c] = false;
                }
            }
        }
    }
    let mut s = Search {
        n,
        order: &order,
        sig: &sig,
        is_jump: &is_jump,
        check: &check,
        perm: vec![0; n],
        used: vec![false; n],
        out: Vec::new(),
    };
    s.go(0);
    // An injective map sending every jump to a jump is onto the (finite) jump set.
    let mut out = s.out;
    out.sort();
    // The identity is the lexicographically smallest permutation, so it comes first.
    debug_assert!(
        out.first()
            .is_none_or(|p| p.iter().enumerate().all(|(i, &x)| i == x as usize))
    );
    out
}

/// The most symmetries [`Flips`] keeps images for (a square board has 8, a triangle 6);
/// a board with more is canonicalised by [`Board::canonical`] for each flip.
const FLIP_SYMMETRIES: usize = 16;

/// Canonical forms of positions with one of a fixed list of masks flipped (a jump's three
/// holes), many per position, as the searches over layers ask for them. A symmetry
/// permutes the holes, so the image of `bits ^ mask` is the image of `bits` xor that of
/// `mask`: the masks' images are taken once, a position's once ([`Flips::of`]), and each
/// canonical form is then a minimum of xors ([`Flips::canonical`]), where
/// [`Board::canonical`] looks up every byte under every symmetry again for each.
pub struct Flips<'a> {
    board: &'a Board,
    /// The board's symmetries.
    n: usize,
    masks: Vec<u64>,
    /// Mask `j`'s image under symmetry `s` at `j * n + s` (empty when `n` is more than
    /// [`FLIP_SYMMETRIES`]).
    images: Vec<u64>,
}

/// A position's images under each symmetry, for [`Flips::canonical`].
pub struct Images {
    bits: u64,
    of: [u64; FLIP_SYMMETRIES],
}

impl Flips<'_> {
    /// `bits`'s images.
    #[inline]
    pub fn of(&self, bits: u64) -> Images {
        let mut of = [0; FLIP_SYMMETRIES];
        if self.n <= FLIP_SYMMETRIES {
            for (s, slot) in of[..self.n].iter_mut().enumerate() {
                *slot = self.board.apply_symmetry(bits, s);
            }
        }
        Images { bits, of }
    }

    /// The canonical form of the position of `images` with mask `j` flipped: what
    /// [`Board::canonical`] gives (`.0`) for it.
    #[inline]
    pub fn canonical(&self, images: &Images, j: usize) -> u64 {
        if self.n > FLIP_SYMMETRIES {
            return self.board.canonical(images.bits ^ self.masks[j]).0;
        }
        let mask = &self.images[j * self.n..(j + 1) * self.n];
        (images.of[..self.n].iter().zip(mask))
            .map(|(a, m)| a ^ m)
            .min()
            .expect("the identity is a symmetry")
    }

    /// The canonical form of the position of `images` with masks `j` and `k` both
    /// flipped.
    #[inline]
    pub fn canonical2(&self, images: &Images, j: usize, k: usize) -> u64 {
        if self.n > FLIP_SYMMETRIES {
            return (self.board)
                .canonical(images.bits ^ self.masks[j] ^ self.masks[k])
                .0;
        }
        let a = &self.images[j * self.n..(j + 1) * self.n];
        let b = &self.images[k * self.n..(k + 1) * self.n];
        (images.of[..self.n].iter().zip(a).zip(b))
            .map(|((p, a), b)| p ^ a ^ b)
            .min()
            .expect("the identity is a symmetry")
    }

    /// The size of the class of the position of `images`: what [`Board::class_size`]
    /// gives for it.
    #[inline]
    pub fn class_size(&self, images: &Images) -> u32 {
        if self.n > FLIP_SYMMETRIES {
            return self.board.class_size(images.bits);
        }
        let fixing = images.of[..self.n]
            .iter()
            .filter(|&&x| x == images.bits)
            .count();
        (self.n / fixing) as u32
    }
}
