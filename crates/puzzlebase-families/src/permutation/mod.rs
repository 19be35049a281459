//! Permutation puzzles defined as data: points that hold pieces, and moves that are
//! permutations of the points in cycle notation, each with an optional orientation
//! change per point (a cube's corners twist mod 3). The pocket cube, the pancake stacks
//! and TopSpin are definition files of this family (`data/puzzles/`); the engine knows
//! nothing of them.
//!
//! # Model
//!
//! `n` points; in the goal, piece `p` sits at point `p` with orientation 0 (or as the
//! definition's `goal` says). A move sends the piece at point `a` to point `perm[a]`
//! and adds `twist[perm[a]]` (mod the point's modulus) to its orientation: the twist is
//! listed by the point a piece arrives at. The moves generate a group; every position
//! is the goal acted on by an element of it.
//!
//! # What the generators imply ([`Analysis`])
//!
//! Nothing about the group is declared; the engine finds from the moves:
//!
//! * **Orbits**: the points a piece can visit (connected components of the moves'
//!   cycles). A piece never leaves its orbit, a point no move moves keeps its piece.
//! * **Parities**: each move's permutation parity on each orbit, a vector over GF(2).
//!   The parity vectors that can occur are the span of the moves' vectors (relative to
//!   the goal's); in its reduced echelon form the orbits without a pivot have a parity
//!   fixed by the others, and only half their arrangements are ranked (the pocket cube's
//!   face turns are odd: no halving; TopSpin's reversals of four are even: half).
//! * **Orientation sums**: on an orbit of modulus `m`, each move changes the sum of the
//!   orientations by its twists' sum; the sums that occur step by `g` = gcd(m, every
//!   move's sum), so the last point's orientation has `m / g` values, not `m` (the cube's
//!   corner twists keep the sum mod 3: `g = 3`, one value).
//!
//! * **Alike pieces**: a goal written in numbers that repeats a piece (`0,0,0,3,3`)
//!   makes the pieces with one label alike (a `.tws` `Solved` line with repeated
//!   numbers). An orbit holding alike pieces ranks its arrangements as a multiset's
//!   (`k! / (c_1! c_2! ...)`, [`multinomial`]), and its parity is no constraint (a swap
//!   of two alike pieces changes it and not the position), so it takes no part in the
//!   parity rows; the orientation sums are as above.
//!
//! If the group is smaller still, the ranks it does not reach are never reached by the
//! breadth-first search; the definition carries the group's order
//! ([`group_order`], Schreier-Sims) so that the count of positions is honest. With
//! alike pieces the group's order is the positions times the goal's stabiliser, which
//! is not computed: no order is claimed (`null`), and the search's count is the one.
//!
//! # Ranking scheme (`orbits-lex`)
//!
//! Mixed radix over the orbits in order of their smallest point: for each orbit of `k`
//! points, the arrangement of its pieces (as indices within the orbit) by lexicographic
//! rank ([`puzzlebase_core::rank::perm_rank`]; with alike pieces, the multiset's
//! lexicographic rank of the pieces' labels), halved when its parity is fixed (ranks `2j`
//! and `2j + 1` differ by swapping the last two pieces, so `j` names the pair and the
//! parity picks one); then, for an orbit with orientations, the first `k - 1`
//! orientations in base `m` and the last as `(sum - goal's sum) / g` in base `m / g`.
//! `rank = (((arrangement_0 * orientations_0 + digits_0) * arrangements_1 + ...)`.
//!
//! # Notation
//!
//! Without stickers: the piece at each point, comma-separated (`2,0,1,3`), each followed
//! by `:o` on orbits with orientations (`3:1`). With `stickers`, one character per
//! sticker: the colour the sticker shows (the pocket cube's 24 faces, `UUUURRRR...`).

mod group;
pub mod import;
mod names;
pub mod spec;
mod tables;

pub use group::{Analysis, NONE, Orbit, analyse, group_order, multinomial};
use group::{multiset_rank, multiset_unrank};

use serde_json::json;

use puzzlebase_core::definition::Source;
use puzzlebase_core::format::GraphAsk;
use puzzlebase_core::rank::{parity, perm_rank, perm_unrank};
use puzzlebase_core::space::{GraphPuzzle, StateError, StateSpace};

/// At most this many points (a position is held in fixed arrays on the stack).
pub const MAX_POINTS: usize = 64;
/// At most this many points in one orbit (permutation ranks of up to 20 elements fit).
pub const MAX_ORBIT: usize = 20;

/// One move: where each point's piece goes and the twist of the piece arriving at each
/// point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    pub name: String,
    pub perm: Vec<u8>,
    pub twist: Vec<u8>,
}

impl Move {
    /// This move followed by `other`.
    pub fn then(&self, other: &Move, modulus: &[u8], name: String) -> Move {
        let n = self.perm.len();
        let mut twist = vec![0u8; n];
        let perm = (self.perm.iter())
            .map(|&b| {
                let c = other.perm[b as usize] as usize;
                twist[c] = (self.twist[b as usize] + other.twist[c]) % modulus[c].max(1);
                c as u8
            })
            .collect();
        Move { name, perm, twist }
    }

    pub fn is_identity(&self) -> bool {
        self.perm.iter().enumerate().all(|(a, &b)| a == b as usize)
            && self.twist.iter().all(|&t| t == 0)
    }
}

/// How positions are written.
#[derive(Debug, Clone)]
pub enum Notation {
    /// The piece at each point, comma-separated, `:o` after it on oriented orbits.
    Numbers,
    /// One colour per sticker; sticker `i` is facet `stickers[i].1` of point
    /// `stickers[i].0`, and shows `faces[i]` in the identity.
    Stickers {
        stickers: Vec<(u8, u8)>,
        /// The colour of facet `f` of piece `p` (`colours[p][f]`).
        colours: Vec<Vec<char>>,
    },
}

/// A permutation puzzle. See the module documentation.
pub struct Permutation {
    name: String,
    n: usize,
    modulus: Vec<u8>,
    moves: Vec<Move>,
    analysis: Analysis,
    notation: Notation,
    size: u64,
    goal_pieces: Vec<u8>,
    goal_orient: Vec<u8>,
    /// The goal's parity bit per orbit and orientation sum per orbit.
    goal_parity: u64,
    goal_sums: Vec<u8>,
    goal: u64,
    start: Option<u64>,
    group: Option<u64>,
    /// Whether some orbit holds alike pieces (the goal repeats a label).
    alike: bool,
    metric: String,
    storage: GraphAsk,
    source: Source,
    /// The move tables ([`tables`]), built at the first neighbours asked for (after the
    /// goal, which they depend on, is set); `None` inside when too large.
    tables: std::sync::OnceLock<Option<tables::MoveTables>>,
}

/// A position: the piece at each point and its orientation.
#[derive(Clone, Copy)]
struct Position {
    piece: [u8; MAX_POINTS],
    orient: [u8; MAX_POINTS],
}

impl Permutation {
    /// The puzzle on `n` points with these moduli and moves (checked by the
    /// definition: see `spec.rs`), the goal's pieces labelled `labels` (the identity,
    /// or the goal's pieces when it repeats one: alike pieces).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: &str,
        modulus: Vec<u8>,
        moves: Vec<Move>,
        generators: &[Move],
        labels: &[u8],
        notation: Notation,
        metric: &str,
        storage: GraphAsk,
        source: Source,
    ) -> Permutation {
        let n = modulus.len();
        let analysis = analyse(n, &modulus, generators, labels);
        let alike = analysis.orbits.iter().any(|o| o.alike);
        // With alike pieces the group's order counts arrangements the goal cannot tell
        // apart (it is the positions times the goal's stabiliser, not computed here):
        // not the number of positions, so none is claimed; the search counts them.
        let group = if alike {
            None
        } else {
            group_order(n, &modulus, generators)
        };
        let size = analysis.size.unwrap_or(u64::MAX);
        Permutation {
            name: name.to_string(),
            n,
            goal_pieces: labels.to_vec(),
            goal_orient: vec![0; n],
            goal_parity: 0,
            goal_sums: vec![0; analysis.orbits.len()],
            modulus,
            moves,
            analysis,
            notation,
            size,
            goal: 0,
            start: None,
            group,
            alike,
            metric: metric.to_string(),
            storage,
            source,
            tables: std::sync::OnceLock::new(),
        }
    }

    /// Sets the goal (pieces and orientations at each point, as parsed from the notation
    /// without the constraints, which are relative to the goal).
    pub fn with_goal(mut self, goal: Option<&str>) -> Result<Self, StateError> {
        if let Some(text) = goal {
            let p = self.read(text)?;
            // Checked before it is ranked: a piece outside its orbit has no rank.
            self.check_orbits(text, &p)?;
            self.goal_pieces = p.piece[..self.n].to_vec();
            self.goal_orient = p.orient[..self.n].to_vec();
            self.goal_parity = self.parities(&p);
            self.goal_sums = self.sums(&p);
        }
        let mut p = Position {
            piece: [0; MAX_POINTS],
            orient: [0; MAX_POINTS],
        };
        p.piece[..self.n].copy_from_slice(&self.goal_pieces);
        p.orient[..self.n].copy_from_slice(&self.goal_orient);
        self.goal = self.rank(&p);
        self.tables = std::sync::OnceLock::new();
        Ok(self)
    }

    pub fn with_start(mut self, start: Option<&str>) -> Result<Self, StateError> {
        if let Some(text) = start {
            self.start = Some(self.parse(text)?);
        }
        Ok(self)
    }

    /// The orbits and constraints the moves imply.
    pub fn analysis(&self) -> &Analysis {
        &self.analysis
    }

    /// The order of the group the moves generate: the number of positions reachable.
    /// `None` beyond `u64`, and with alike pieces (the group's order is then larger than
    /// the count of positions, which only the search finds).
    pub fn group_order(&self) -> Option<u64> {
        self.group
    }

    /// The moves, with their names.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    fn parities(&self, p: &Position) -> u64 {
        let mut v = 0u64;
        for (o, orbit) in self.analysis.orbits.iter().enumerate() {
            // Alike pieces: a swap of two changes the parity and not the position.
            if orbit.points.len() < 2 || orbit.alike {
                continue;
            }
            let images: Vec<u8> = orbit
                .points
                .iter()
                .map(|&q| orbit.local_of[p.piece[q as usize] as usize])
                .collect();
            v |= (parity(&images) as u64) << o;
        }
        v
    }

    fn sums(&self, p: &Position) -> Vec<u8> {
        self.analysis
            .orbits
            .iter()
            .map(|o| {
                let s: u64 = o.points.iter().map(|&q| p.orient[q as usize] as u64).sum();
                (s % o.modulus as u64) as u8
            })
            .collect()
    }

    /// The parity (1: odd) that the parity-fixed orbit `o` must have in a position whose
    /// free orbits have the parities `free` (a bit per orbit), `fixed` being
    /// [`Permutation::fixed_mask`]: the bit a fixed orbit's rank leaves out, which
    /// [`Permutation::unrank`] and the move tables (`tables.rs`) both recover this way.
    pub(super) fn fixed_parity(&self, free: u64, fixed: u64, o: usize) -> u64 {
        (self.goal_parity ^ self.completed_parity(free ^ (self.goal_parity & !fixed))) >> o & 1
    }

    /// The parity each parity-fixed orbit must have, given the free orbits' parities in
    /// `v` (relative to the goal's, in and out).
    fn completed_parity(&self, v: u64) -> u64 {
        let mut out = 0u64;
        for &(pivot, row) in &self.analysis.parity_rows {
            if v >> pivot & 1 == 1 {
                out ^= row;
            }
        }
        out
    }

    fn rank(&self, p: &Position) -> u64 {
        let mut rank = 0u64;
        let mut local = [0u8; MAX_ORBIT];
        for orbit in &self.analysis.orbits {
            let k = orbit.points.len();
            for (i, &q) in orbit.points.iter().enumerate() {
                local[i] = orbit.local_of[p.piece[q as usize] as usize];
            }
            let mut r = if orbit.alike {
                multiset_rank(&local[..k], &orbit.counts)
            } else {
                perm_rank(&local[..k])
            };
            if orbit.parity_fixed {
                r /= 2;
            }
            rank = rank * orbit.arrangements + r;
            if orbit.modulus > 1 {
                let m = orbit.modulus as u64;
                let mut digits = 0u64;
                let mut sum = 0u64;
                for &q in &orbit.points[..k - 1] {
                    let o = p.orient[q as usize] as u64;
                    digits = digits * m + o;
                    sum += o;
                }
                sum += p.orient[orbit.points[k - 1] as usize] as u64;
                let o_index = orbit.orientations / m.pow(k as u32 - 1);
                let g = orbit.sum_step as u64;
                let goal_sum = self.goal_sums[self.orbit_index(orbit)] as u64;
                let last = ((sum + m - goal_sum) % m) / g;
                rank = rank * orbit.orientations + digits * o_index + last;
            }
        }
        rank
    }

    fn orbit_index(&self, orbit: &Orbit) -> usize {
        self.analysis.orbit_of[orbit.points[0] as usize] as usize
    }

    fn unrank(&self, mut rank: u64, p: &mut Position) {
        // Digits from the last orbit back.
        let count = self.analysis.orbits.len();
        let mut arr = [0u64; MAX_POINTS];
        let mut ori = [0u64; MAX_POINTS];
        for (o, orbit) in self.analysis.orbits.iter().enumerate().rev() {
            if orbit.modulus > 1 {
                ori[o] = rank % orbit.orientations;
                rank /= orbit.orientations;
            }
            arr[o] = rank % orbit.arrangements;
            rank /= orbit.arrangements;
        }
        let mut local = [0u8; MAX_ORBIT];
        // Free orbits first: their parities decide the fixed ones'.
        let mut free = 0u64;
        for pass in 0..2 {
            for o in 0..count {
                let orbit = &self.analysis.orbits[o];
                if orbit.parity_fixed != (pass == 1) {
                    continue;
                }
                let k = orbit.points.len();
                let par = if orbit.alike {
                    multiset_unrank(arr[o], &orbit.counts, &mut local[..k]);
                    0
                } else if orbit.parity_fixed {
                    let want = self.fixed_parity(free, self.fixed_mask(), o);
                    let got = perm_unrank(2 * arr[o], &mut local[..k]) as u64;
                    if got != want {
                        perm_unrank(2 * arr[o] + 1, &mut local[..k]);
                    }
                    want
                } else {
                    perm_unrank(arr[o], &mut local[..k]) as u64
                };
                if k >= 2 {
                    free |= par << o;
                }
                for (i, &q) in orbit.points.iter().enumerate() {
                    p.piece[q as usize] = orbit.labels[local[i] as usize];
                }
                if orbit.modulus > 1 {
                    let m = orbit.modulus as u64;
                    let o_index = orbit.orientations / m.pow(k as u32 - 1);
                    let mut digits = ori[o] / o_index;
                    let last = ori[o] % o_index;
                    let mut sum = 0u64;
                    for &q in orbit.points[..k - 1].iter().rev() {
                        let d = digits % m;
                        digits /= m;
                        p.orient[q as usize] = d as u8;
                        sum += d;
                    }
                    let target = self.goal_sums[o] as u64 + last * orbit.sum_step as u64;
                    p.orient[orbit.points[k - 1] as usize] =
                        ((target + m * (k as u64) - sum % m) % m) as u8;
                } else {
                    for &q in &orbit.points {
                        p.orient[q as usize] = 0;
                    }
                }
            }
        }
    }

    /// Every piece is one its orbit holds in the goal, as many of each label as the goal
    /// has (without alike pieces, each piece once: `read` checks that).
    fn check_orbits(&self, text: &str, p: &Position) -> Result<(), StateError> {
        for a in 0..self.n {
            let q = p.piece[a] as usize;
            let orbit = &self.analysis.orbits[self.analysis.orbit_of[a] as usize];
            if orbit.local_of[q] == NONE {
                return Err(StateError::unsolvable(text, self.wrong_orbit(q, a)));
            }
        }
        if !self.alike {
            return Ok(());
        }
        for orbit in &self.analysis.orbits {
            let mut counts = vec![0u8; orbit.labels.len()];
            for &a in &orbit.points {
                counts[orbit.local_of[p.piece[a as usize] as usize] as usize] += 1;
            }
            if counts != orbit.counts {
                return Err(StateError::unsolvable(
                    text,
                    format!(
                        "points {:?} hold pieces {:?} {:?} times; the goal has them {:?} times",
                        orbit.points, orbit.labels, counts, orbit.counts
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The orbits whose parity is fixed, as a mask.
    fn fixed_mask(&self) -> u64 {
        self.analysis
            .orbits
            .iter()
            .enumerate()
            .filter(|(_, o)| o.parity_fixed)
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    fn apply(&self, mv: &Move, from: &Position, to: &mut Position) {
        let n = self.n;
        let (perm, twist, modulus) = (&mv.perm[..n], &mv.twist[..n], &self.modulus[..n]);
        for (a, &b) in perm.iter().enumerate() {
            let b = b as usize;
            to.piece[b] = from.piece[a];
            // An orientation and a twist are each below the point's modulus (the spec
            // refuses larger twists, `Move::then` reduces them): one subtraction reduces
            // their sum, where `%` cost a division per point and move.
            let (s, m) = (from.orient[a] + twist[b], modulus[b].max(1));
            to.orient[b] = if s >= m { s - m } else { s };
        }
    }

    fn empty() -> Position {
        Position {
            piece: [0; MAX_POINTS],
            orient: [0; MAX_POINTS],
        }
    }

    /// Reads the notation into a position, checking only its form (each piece once,
    /// orientations in range), not whether the moves reach it.
    fn read(&self, text: &str) -> Result<Position, StateError> {
        let mut p = Self::empty();
        let n = self.n;
        match &self.notation {
            Notation::Numbers => {
                let toks: Vec<&str> = text
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .filter(|t| !t.is_empty())
                    .collect();
                if toks.len() != n {
                    return Err(StateError::malformed(
                        text,
                        format!("{} pieces; the puzzle has {n} points", toks.len()),
                    ));
                }
                let mut seen = [false; MAX_POINTS];
                for (a, t) in toks.iter().enumerate() {
                    let (piece, orient) = match t.split_once(':') {
                        Some((x, y)) => (x, Some(y)),
                        None => (*t, None),
                    };
                    let piece: usize = piece.parse().ok().filter(|&x| x < n).ok_or_else(|| {
                        StateError::malformed(
                            text,
                            format!("{t:?} is not a piece (pieces are 0 to {})", n - 1),
                        )
                    })?;
                    // Alike pieces share a label; the counts are checked by orbit.
                    if seen[piece] && !self.alike {
                        return Err(StateError::malformed(
                            text,
                            format!("piece {piece} is listed twice"),
                        ));
                    }
                    seen[piece] = true;
                    let m = self.modulus[a].max(1);
                    let o: u8 = match orient {
                        None => 0,
                        Some(y) => y.parse().ok().filter(|&x: &u8| x < m).ok_or_else(|| {
                            StateError::malformed(
                                text,
                                format!("{t:?}: the orientation at point {a} is 0 to {}", m - 1),
                            )
                        })?,
                    };
                    p.piece[a] = piece as u8;
                    p.orient[a] = o;
                }
            }
            Notation::Stickers { stickers, colours } => {
                let chars: Vec<char> = text.trim().chars().collect();
                if chars.len() != stickers.len() {
                    return Err(StateError::malformed(
                        text,
                        format!(
                            "{} stickers; the puzzle has {}",
                            chars.len(),
                            stickers.len()
                        ),
                    ));
                }
                let mut seen = [false; MAX_POINTS];
                for a in 0..n {
                    let m = self.modulus[a].max(1) as usize;
                    // The colours at point a, by facet.
                    let mut here = vec![' '; m];
                    for (i, &(q, f)) in stickers.iter().enumerate() {
                        if q as usize == a {
                            here[f as usize] = chars[i].to_ascii_uppercase();
                        }
                    }
                    // Piece q with orientation o shows its facet (f - o) at facet f.
                    let found = (0..n)
                        .filter(|&q| self.modulus[q].max(1) as usize == m)
                        .flat_map(|q| (0..m).map(move |o| (q, o)))
                        .find(|&(q, o)| (0..m).all(|f| colours[q][(f + m - o) % m] == here[f]));
                    let Some((q, o)) = found else {
                        return Err(StateError::malformed(
                            text,
                            format!(
                                "the stickers at {} read {:?}, which no piece shows",
                                self.point(a),
                                here.iter().collect::<String>()
                            ),
                        ));
                    };
                    if seen[q] {
                        return Err(StateError::malformed(
                            text,
                            format!(
                                "the piece {:?} appears twice",
                                colours[q].iter().collect::<String>()
                            ),
                        ));
                    }
                    seen[q] = true;
                    p.piece[a] = q as u8;
                    p.orient[a] = o as u8;
                }
            }
        }
        Ok(p)
    }

    fn write(&self, p: &Position) -> String {
        match &self.notation {
            Notation::Numbers => (0..self.n)
                .map(|a| {
                    if self.modulus[a] > 1 {
                        format!("{}:{}", p.piece[a], p.orient[a])
                    } else {
                        p.piece[a].to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(","),
            Notation::Stickers { stickers, colours } => stickers
                .iter()
                .map(|&(a, f)| {
                    let a = a as usize;
                    let m = self.modulus[a].max(1) as usize;
                    let q = p.piece[a] as usize;
                    colours[q][(f as usize + m - p.orient[a] as usize) % m]
                })
                .collect(),
        }
    }
}

impl StateSpace for Permutation {
    fn size(&self) -> u64 {
        self.size
    }
    fn goals(&self) -> Vec<u64> {
        vec![self.goal]
    }
    fn neighbors(&self, rank: u64, out: &mut Vec<u64>) {
        match self.tables.get_or_init(|| tables::MoveTables::of(self)) {
            Some(t) => t.neighbors(self, rank, out),
            None => self.neighbors_direct(rank, out),
        }
    }
}

impl Permutation {
    /// [`StateSpace::neighbors`] without the move tables: unrank, move, rank.
    fn neighbors_direct(&self, rank: u64, out: &mut Vec<u64>) {
        let mut p = Self::empty();
        self.unrank(rank, &mut p);
        let mut q = p;
        for mv in &self.moves {
            self.apply(mv, &p, &mut q);
            out.push(self.rank(&q));
        }
    }
}

impl GraphPuzzle for Permutation {
    fn name(&self) -> &str {
        &self.name
    }
    fn family(&self) -> &str {
        "permutation"
    }
    fn definition(&self) -> serde_json::Value {
        let orbits: Vec<serde_json::Value> = self
            .analysis
            .orbits
            .iter()
            .map(|o| {
                let mut d = json!({
                    "points": o.points,
                    "modulus": o.modulus,
                    "parity": if o.points.len() < 2 { "fixed point" } else if o.alike { "none: alike pieces" } else if o.parity_fixed { "fixed by the others" } else { "free" },
                    "orientation_sum_step": o.sum_step,
                    "arrangements": o.arrangements,
                    "orientations": o.orientations,
                });
                // Only where there are alike pieces: every other definition (and its
                // hash) stays as it was.
                if o.alike {
                    d["alike"] = json!({"labels": o.labels, "counts": o.counts});
                }
                d
            })
            .collect();
        let notation = match &self.notation {
            Notation::Numbers => format!(
                "the piece at each point 0..{}, comma-separated; `piece:orientation` on points whose pieces turn",
                self.n - 1
            ),
            Notation::Stickers { stickers, .. } => format!(
                "{} characters: the colour each sticker shows, in the definition's sticker order",
                stickers.len()
            ),
        };
        let mut d = json!({
            "name": self.name(),
            "points": self.n,
            "orbits": orbits,
            "moves": self.moves.iter().map(|m| m.name.clone()).collect::<Vec<_>>(),
            "metric": self.metric,
            "goal": self.format(self.goal),
            "notation": notation,
            "ranking": "orbits-lex",
            "size": self.size,
            "group_order": self.group,
        });
        if let Some(s) = self.start {
            d["start"] = json!(self.format(s));
        }
        self.source.annotate(&mut d);
        d
    }
    fn notation(&self) -> String {
        let how = match &self.notation {
            Notation::Numbers if self.modulus.iter().any(|&m| m > 1) => {
                "the piece at each point, comma-separated, PIECE:TWIST where pieces turn"
                    .to_string()
            }
            Notation::Numbers => "the piece at each point, comma-separated".to_string(),
            Notation::Stickers { stickers, .. } => format!(
                "the {} stickers' colours, face by face, each row by row as the net draws them",
                stickers.len()
            ),
        };
        let names: Vec<&str> = self.moves.iter().map(|m| m.name.as_str()).collect();
        // `U R F` as a cuber writes them; names with spaces (`flip 2`) by commas.
        let sep = if names.iter().any(|n| n.contains(' ')) {
            ", "
        } else {
            " "
        };
        format!("{how}; moves: {}", names.join(sep))
    }
    fn format(&self, rank: u64) -> String {
        let mut p = Self::empty();
        self.unrank(rank, &mut p);
        self.write(&p)
    }
    fn parse(&self, text: &str) -> Result<u64, StateError> {
        let p = self.read(text)?;
        self.check_orbits(text, &p)?;
        let v = self.parities(&p) ^ self.goal_parity;
        let free = v & !self.fixed_mask();
        if self.completed_parity(free) != v {
            return Err(StateError::unsolvable(text, self.wrong_parity()));
        }
        let sums = self.sums(&p);
        for (o, orbit) in self.analysis.orbits.iter().enumerate() {
            let m = orbit.modulus;
            if !((sums[o] + m - self.goal_sums[o]) % m).is_multiple_of(orbit.sum_step) {
                return Err(StateError::unsolvable(
                    text,
                    self.wrong_twist(
                        &p,
                        o,
                        sums[o],
                        self.goal_sums[o] % orbit.sum_step,
                        orbit.sum_step,
                    ),
                ));
            }
        }
        Ok(self.rank(&p))
    }
    fn start(&self) -> Option<u64> {
        self.start
    }
    fn names_moves(&self) -> bool {
        true
    }
    fn move_name(&self, from: u64, to: u64) -> Option<String> {
        let mut p = Self::empty();
        self.unrank(from, &mut p);
        let mut q = p;
        self.moves.iter().find_map(|mv| {
            self.apply(mv, &p, &mut q);
            (self.rank(&q) == to).then(|| mv.name.clone())
        })
    }
    fn storage_asked(&self) -> GraphAsk {
        self.storage
    }
}

#[cfg(test)]
mod tests;
