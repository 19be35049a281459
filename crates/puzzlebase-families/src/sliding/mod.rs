//! Sliding-tile puzzles defined by a cell graph and a goal: `six` (hexagonal),
//! `seven` (2x4), `eight` (3x3), `nine` (2x5), `eleven` (3x4) and `twelve` (2x6), and any
//! other graph. The graphs themselves are data (`data/puzzles/*.toml`, read by
//! the catalog).
//!
//! # Ranking
//! A position is the tile value in each cell, 0 for the blank. Its rank is
//! `t * n + blank_cell` (`n` cells), where `t` ranks the tiles read in cell order with
//! the blank skipped (values `1..n` taken as `0..n-1`) by lexicographic permutation rank:
//!
//! * When the cell graph is bipartite (every rectangle), each move is a transposition
//!   that also moves the blank to the other colour class, so only half of the
//!   arrangements can reach the goal. Then `t = perm_rank(tiles) / 2` runs over
//!   `(n-1)!/2` values: swapping the last two tiles pairs each solvable arrangement with
//!   an unsolvable one of the same blank cell, and the two have permutation ranks `2t`
//!   and `2t + 1`. An arrangement is solvable exactly when
//!   `inversions(cells) + colour(blank)` has the parity of the goal's (`inversions`
//!   counts pairs out of order among all `n` values, blank included as 0).
//! * Otherwise (the hexagonal `six`, which has triangles) `t = perm_rank(tiles)` runs
//!   over `(n-1)!` values; the search itself finds which arrangements are solvable.
//!
//! The blank cell is the low digit because a move between cells `c` and `c + 1` leaves
//! the tiles in cell order, and so `t`, unchanged: such a move changes the rank by
//! exactly one. The cells joined this way form [`Sliding::runs`] (the rows of a
//! rectangle), the unit of the packed distance tables ([`puzzlebase_core::packed`]).
//!
//! # Rank order
//! "Cell order" above is the **rank order**: the notation's own cell order unless the
//! definition gives another (`rank_order`, [`Sliding::with_rank_order`]), a list of the
//! notation's cells in the order the rank reads them. The notation, the goal, the
//! adjacency and the drawing stay in the notation's order; only the rank changes. It
//! decides which moves are far in rank: a move between cells `i < j` of the rank order
//! rotates the tiles between them, which changes Lehmer digits `i..j` only, so the
//! tiles' rank moves by less than `(n - 1 - i)!`. Row-major, the 2x7's vertical moves
//! jump six tiles, and those of 8 of its 14 blank cells (columns 0 to 3) start at one of
//! the first four digits: the neighbour may be anywhere in 6.3 MB of a two-bit table,
//! 70 MB, 760 MB or all of it. Read down and up the columns in turn, consecutive cells
//! are adjacent (a move between them changes the rank by one), the other moves are the
//! horizontal ones, which jump two tiles, and only those of 4 of the 14 blank cells
//! start that early (at digit 0 or 2; the next start at digit 4, within 0.6 MB). The
//! two-bit search claims a neighbour that far with a miss to memory, so this halves
//! those misses
//! (`cargo bench -p puzzlebase-families --bench twobit -- fourteen`, against `-- fourteen row-major`;
//! `docs/performance.md`).

mod far;
mod low;
mod moves;
pub mod spec;

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;
use strength_reduce::StrengthReducedU64;

use self::far::Far;
use self::low::{LOW_DIGITS, LOW_TILES};
use puzzlebase_core::definition::Source;
use puzzlebase_core::format::GraphAsk;
use puzzlebase_core::packed::RunLayout;
use puzzlebase_core::rank::{
    ALL_VALUES, FACT, lehmer_digits, parity, perm_from_digits_in, perm_rank, perm_unrank,
};
use puzzlebase_core::space::{GraphPuzzle, StateError, StateSpace};

/// Most cells a sliding puzzle may have (ranks of the tiles must fit the factorial table).
pub const MAX_CELLS: usize = 16;

pub struct Sliding {
    name: String,
    /// The cells one move from each cell, in rank order (see the module docs).
    adjacency: Vec<Vec<u8>>,
    /// The goal's tile in each cell, in rank order.
    goal: Vec<u8>,
    /// Colour of each cell when the cell graph is bipartite.
    colour: Option<Vec<u8>>,
    /// Parity (inversions + blank colour) shared by every solvable arrangement.
    solvable_parity: u8,
    /// The goal's blank cell.
    goal_blank: usize,
    /// Whether the definition asks for two-bit distances.
    storage_asked: GraphAsk,
    /// Number of values `t` takes (see the module docs).
    tile_ranks: u64,
    /// The definition file's contents and drawing layout, when built from one.
    source: Source,
    /// Distinguishes this puzzle's entries in the per-thread [`BlockCache`].
    id: u64,
    /// The notation's cells and adjacency when the rank reads the cells in another
    /// order ([`Sliding::with_rank_order`]); every field above is in rank order.
    notation: Option<Box<Notation>>,
    /// What the solvers' inner loops use (boxed: a `Sliding` is part of every
    /// `fifteen`, and the divisor's 128-bit multiplier would double its size).
    fast: Box<Fast>,
}

/// A rank order other than the notation's ([`Sliding::with_rank_order`]).
struct Notation {
    /// `order[i]`: the notation's cell that the rank reads `i`-th.
    order: Vec<u8>,
    /// The adjacency in the notation's cell order, as the definition gives it.
    adjacency: Vec<Vec<u8>>,
}

/// Per-rank arithmetic of a [`Sliding`], precomputed.
struct Fast {
    /// The number of cells as a divisor by multiplication: a rank is split into its
    /// block and blank cell once per rank the solvers visit, and a 64-bit division
    /// (every rank of `fourteen`) costs several times more.
    cells: StrengthReducedU64,
    /// With a colouring, `odd_from[c]`: bit `i` set when the rank `i` places after one
    /// with the blank in cell `c` has parity 1 ([`StateSpace::odd_ranks`]).
    odd_from: Vec<u32>,
    /// `link_from[c]`: bit `i` set when the rank `i` places after one with the blank in
    /// cell `c` and the rank after it are one move apart ([`StateSpace::run_links`]).
    link_from: Vec<u32>,
    /// The moves of the blank other than to `c - 1` and `c + 1`, with what makes their
    /// neighbours quick to find; `None` when it cannot (fewer than [`LOW_DIGITS`] + 1
    /// tiles, or a move across more than 8 of them).
    far: Option<Far>,
    /// With a colouring, `swap_at[c]`: whether the ranks of blank cell `c` swap the last
    /// two tiles when the digit sum is even ([`Sliding::block_tiles`] and
    /// [`StateSpace::far_neighbors_of`] both decide by it).
    swap_at: Vec<u8>,
}

/// The tiles of the block (value of `t`) a thread last generated neighbours for. The
/// solver visits ranks in order, so the ranks of one block share a single unrank.
struct BlockCache {
    puzzle: u64,
    t: u64,
    /// `lehmer / LOW_DIGITS!`: the ranks sharing it share every tile but the last
    /// [`LOW_DIGITS`], so a new block with the same prefix unranks only those.
    prefix: u64,
    /// The values left for the last [`LOW_DIGITS`] tiles (see [`perm_from_digits_in`]).
    pool: u64,
    /// The digit sum of the prefix, modulo 2.
    prefix_parity: u8,
    /// `perm_unrank` of the block's permutation rank, before any parity swap.
    tiles: [u8; MAX_CELLS],
    /// Its Lehmer digits: `digits[i]` = how many later tiles are smaller than `tiles[i]`.
    digits: [u8; MAX_CELLS],
    /// Its parity, as `perm_unrank` returns it.
    parity: u8,
}

/// The tiles of one rank (cell order, blank skipped) with their Lehmer digits and
/// lexicographic rank, from which a neighbour's rank follows by a local update.
#[derive(Clone, Copy)]
struct Arrangement {
    tiles: [u8; MAX_CELLS],
    digits: [u8; MAX_CELLS],
    lehmer: u64,
}

thread_local! {
    static LAST_BLOCK: RefCell<BlockCache> = const {
        RefCell::new(BlockCache {
            puzzle: u64::MAX,
            t: 0,
            prefix: 0,
            pool: 0,
            prefix_parity: 0,
            tiles: [0; MAX_CELLS],
            digits: [0; MAX_CELLS],
            parity: 0,
        })
    };
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

impl Sliding {
    /// A puzzle on an arbitrary cell graph. `goal[i]` is the tile in cell `i` (0 = blank).
    pub fn new(name: &str, adjacency: Vec<Vec<u8>>, goal: Vec<u8>) -> Self {
        let n = adjacency.len();
        assert!(
            (2..=MAX_CELLS).contains(&n),
            "a sliding puzzle has 2..=16 cells"
        );
        assert_eq!(goal.len(), n);
        for (c, nbs) in adjacency.iter().enumerate() {
            for &d in nbs {
                assert!(
                    adjacency[d as usize].contains(&(c as u8)),
                    "adjacency must be symmetric"
                );
            }
        }
        let colour = two_colouring(&adjacency);
        let blank = goal.iter().position(|&v| v == 0).expect("goal has a blank");
        let solvable_parity = parity(&goal) ^ colour.as_ref().map_or(0, |c| c[blank]);
        let tiles = FACT[n - 1];
        let tile_ranks = if colour.is_some() { tiles / 2 } else { tiles };
        // Ranks run through the blank cells in order, so the parities of 32 consecutive
        // ranks depend only on the first one's blank cell.
        let odd_from: Vec<u32> = match &colour {
            Some(c) => (0..n)
                .map(|first| {
                    (0..32).fold(0u32, |m, i| {
                        m | ((c[(first + i) % n] ^ c[blank]) as u32) << i
                    })
                })
                .collect(),
            None => Vec::new(),
        };
        // Rank r and r + 1 are one move apart when they share the tiles (r + 1 is not the
        // next block's first) and the blank's cells, c and c + 1, are adjacent.
        let link_from: Vec<u32> = (0..n)
            .map(|first| {
                (0..32).fold(0u32, |m, i| {
                    let c = (first + i) % n;
                    let linked = c + 1 < n && adjacency[c].contains(&(c as u8 + 1));
                    m | (linked as u32) << i
                })
            })
            .collect();
        let far = Far::new(&adjacency);
        let swap_at = match &colour {
            Some(k) => (0..n)
                .map(|c| (c & 1) as u8 ^ k[c] ^ solvable_parity)
                .collect(),
            None => Vec::new(),
        };
        Sliding {
            name: name.to_string(),
            adjacency,
            goal,
            colour,
            solvable_parity,
            goal_blank: blank,
            storage_asked: GraphAsk::BySize,
            tile_ranks,
            source: Source::default(),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            notation: None,
            fast: Box::new(Fast {
                cells: StrengthReducedU64::new(n as u64),
                odd_from,
                link_from,
                far,
                swap_at,
            }),
        }
    }

    /// A puzzle on `adjacency` with `goal` (both in the notation's cell order, as in
    /// [`Sliding::new`]) whose rank reads the cells in `order` (a permutation of the
    /// cells: `order[i]` is the notation's cell read `i`-th; see the module docs). The
    /// notation, [`Sliding::rank_of`], [`Sliding::unrank_into`] and
    /// [`Sliding::adjacency`] stay in the notation's order; the ranks, the runs and the
    /// parities are those of the puzzle renumbered in `order`. Panics unless `order` is
    /// a permutation of the cells (the definition checks it first).
    pub fn with_rank_order(
        name: &str,
        adjacency: Vec<Vec<u8>>,
        goal: Vec<u8>,
        order: Vec<u8>,
    ) -> Self {
        let n = adjacency.len();
        let mut at = vec![u8::MAX; n];
        for (i, &c) in order.iter().enumerate() {
            assert!(
                (c as usize) < n && at[c as usize] == u8::MAX,
                "a rank order is a permutation of the cells"
            );
            at[c as usize] = i as u8;
        }
        assert_eq!(order.len(), n, "a rank order is a permutation of the cells");
        let ranked: Vec<Vec<u8>> = order
            .iter()
            .map(|&c| {
                let mut nbs: Vec<u8> = (adjacency[c as usize].iter())
                    .map(|&d| at[d as usize])
                    .collect();
                nbs.sort_unstable();
                nbs
            })
            .collect();
        let goal = order.iter().map(|&c| goal[c as usize]).collect();
        let mut p = Self::new(name, ranked, goal);
        if order.iter().enumerate().any(|(i, &c)| i != c as usize) {
            p.notation = Some(Box::new(Notation { order, adjacency }));
        }
        p
    }

    /// Asks for a storage below the size that gets it (the definition's `storage`:
    /// `"packed"` or `"two-bit"`).
    pub fn with_storage(mut self, asked: GraphAsk) -> Self {
        self.storage_asked = asked;
        self
    }

    /// Attaches the definition file's contents and layout (stored in the definition).
    pub fn with_source(mut self, source: Source) -> Self {
        self.source = source;
        self
    }

    /// A `rows` x `cols` rectangle, cells row-major, goal `1 2 .. n-1` with the blank last.
    pub fn grid(name: &str, rows: usize, cols: usize) -> Self {
        let mut adjacency = vec![Vec::new(); rows * cols];
        for r in 0..rows {
            for c in 0..cols {
                let i = r * cols + c;
                let mut push = |rr: usize, cc: usize| adjacency[i].push((rr * cols + cc) as u8);
                if r > 0 {
                    push(r - 1, c);
                }
                if c > 0 {
                    push(r, c - 1);
                }
                if c + 1 < cols {
                    push(r, c + 1);
                }
                if r + 1 < rows {
                    push(r + 1, c);
                }
            }
        }
        let n = rows * cols;
        let goal = (1..n as u8).chain([0]).collect();
        Self::new(name, adjacency, goal)
    }

    pub fn cells(&self) -> usize {
        self.adjacency.len()
    }

    /// The cells one move from each cell, in the notation's cell order.
    pub fn adjacency(&self) -> &[Vec<u8>] {
        match &self.notation {
            Some(n) => &n.adjacency,
            None => &self.adjacency,
        }
    }

    /// `cells` (in the notation's order) in rank order.
    fn ranked(&self, cells: &[u8]) -> [u8; MAX_CELLS] {
        let mut out = [0u8; MAX_CELLS];
        match &self.notation {
            Some(n) => {
                for (o, &c) in out.iter_mut().zip(&n.order) {
                    *o = cells[c as usize];
                }
            }
            None => out[..cells.len()].copy_from_slice(cells),
        }
        out
    }

    /// `ranked` (in rank order) in the notation's order.
    fn notated(&self, ranked: &[u8], cells: &mut [u8]) {
        match &self.notation {
            Some(n) => {
                for (&v, &c) in ranked.iter().zip(&n.order) {
                    cells[c as usize] = v;
                }
            }
            None => cells.copy_from_slice(ranked),
        }
    }

    pub fn is_bipartite(&self) -> bool {
        self.colour.is_some()
    }

    /// Number of values of `t`, the tiles' part of the rank: `size() / cells()`.
    pub fn tile_ranks(&self) -> u64 {
        self.tile_ranks
    }

    /// The runs of cells: maximal ranges `first..first + len` of consecutive cells (in
    /// rank order) each adjacent to the next. Moving the blank within a run changes only
    /// the low digit of the rank. Every cell is in exactly one run; runs are in rank
    /// order.
    pub fn runs(&self) -> Vec<(u8, u8)> {
        let mut runs: Vec<(u8, u8)> = Vec::new();
        for c in 0..self.cells() {
            match runs.last_mut() {
                Some((first, len)) if self.adjacency[c - 1].contains(&(c as u8)) => {
                    debug_assert_eq!(*first as usize + *len as usize, c);
                    *len += 1;
                }
                _ => runs.push((c as u8, 1)),
            }
        }
        runs
    }

    /// Whether this arrangement (in the notation's order) is in the rank space (always
    /// true without a parity split).
    fn in_space(&self, cells: &[u8]) -> bool {
        let cells = &self.ranked(cells)[..cells.len()];
        match &self.colour {
            None => true,
            Some(colour) => {
                let blank = cells.iter().position(|&v| v == 0).unwrap();
                parity(cells) ^ colour[blank] == self.solvable_parity
            }
        }
    }

    /// Rank of an arrangement (the tile in each cell, in the notation's order) in the
    /// rank space (see the module docs).
    pub fn rank_of(&self, cells: &[u8]) -> u64 {
        let n = cells.len();
        let ranked = self.ranked(cells);
        let mut tiles = [0u8; MAX_CELLS];
        let mut k = 0;
        let mut blank = 0;
        for (i, &v) in ranked[..n].iter().enumerate() {
            if v == 0 {
                blank = i;
            } else {
                tiles[k] = v - 1;
                k += 1;
            }
        }
        let t = perm_rank(&tiles[..n - 1]);
        let t = if self.colour.is_some() { t / 2 } else { t };
        t * n as u64 + blank as u64
    }

    /// The arrangement with this rank, written into `cells` (in the notation's order).
    pub fn unrank_into(&self, rank: u64, cells: &mut [u8]) {
        if self.notation.is_some() {
            let mut ranked = [0u8; MAX_CELLS];
            self.unrank_ranked(rank, &mut ranked[..cells.len()]);
            self.notated(&ranked[..cells.len()], cells);
        } else {
            self.unrank_ranked(rank, cells);
        }
    }

    /// [`Sliding::unrank_into`] in rank order.
    fn unrank_ranked(&self, rank: u64, cells: &mut [u8]) {
        let n = self.cells();
        let blank = (rank % n as u64) as usize;
        let t = rank / n as u64;
        let mut tiles = [0u8; MAX_CELLS];
        match &self.colour {
            None => {
                perm_unrank(t, &mut tiles[..n - 1]);
            }
            Some(colour) => {
                // The blank (value 0) at cell b is out of order with the b values before it.
                let p = perm_unrank(2 * t, &mut tiles[..n - 1]) ^ (blank & 1) as u8;
                if p ^ colour[blank] != self.solvable_parity {
                    tiles.swap(n - 3, n - 2);
                }
            }
        }
        let mut k = 0;
        for (i, c) in cells.iter_mut().enumerate() {
            if i == blank {
                *c = 0;
            } else {
                *c = tiles[k] + 1;
                k += 1;
            }
        }
    }

    /// The goal, in the notation's order.
    fn goal_cells(&self) -> Vec<u8> {
        let mut cells = vec![0; self.cells()];
        self.notated(&self.goal, &mut cells);
        cells
    }

    pub fn unrank(&self, rank: u64) -> Vec<u8> {
        let mut cells = vec![0; self.cells()];
        self.unrank_into(rank, &mut cells);
        cells
    }

    /// Parses cell values: digits (`867254301`) or numbers separated by spaces/commas.
    pub fn parse_cells(&self, text: &str) -> Result<Vec<u8>, StateError> {
        parse_values(text, self.cells())
    }

    pub fn format_cells(&self, cells: &[u8]) -> String {
        if cells.len() <= 10 {
            cells.iter().map(|&v| char::from(b'0' + v)).collect()
        } else {
            // Written digit by digit: a string per cell was most of the cost of the
            // server's answers for the 3x4 puzzles, which format a few hundred positions.
            let mut out = String::with_capacity(3 * cells.len());
            for (i, &v) in cells.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if v >= 100 {
                    out.push(char::from(b'0' + v / 100));
                }
                if v >= 10 {
                    out.push(char::from(b'0' + v / 10 % 10));
                }
                out.push(char::from(b'0' + v % 10));
            }
            out
        }
    }
}

/// Parses the tiles of `n` cells: digits (`867254301`) or numbers separated by
/// spaces/commas, each of `0..n` exactly once.
pub fn parse_values(text: &str, n: usize) -> Result<Vec<u8>, StateError> {
    let trimmed = text.trim();
    // Sized for a well-formed position up front: growing it value by value was a third
    // of the server's time answering `eight`, which parses every state on a path back.
    let mut values: Vec<u32> = Vec::with_capacity(n);
    if trimmed.contains([',', ' ', '\t']) {
        for s in trimmed.split([',', ' ', '\t']).filter(|s| !s.is_empty()) {
            values.push(
                s.parse::<u32>()
                    .map_err(|_| StateError::malformed(text, format!("{s:?} is not a number")))?,
            );
        }
    } else {
        for c in trimmed.chars() {
            values.push(c.to_digit(10).ok_or_else(|| {
                StateError::malformed(text, format!("unexpected character {c:?}"))
            })?);
        }
    }
    if values.len() != n {
        // Digits run together are one cell each: a puzzle with numbers above 9 needs
        // separators.
        let hint = if n > 10 && !trimmed.contains([',', ' ', '\t']) {
            format!(
                "; cells above 9 need commas: write the {n} numbers as 0,1,2,...,{}",
                n - 1
            )
        } else {
            String::new()
        };
        return Err(StateError::malformed(
            text,
            format!("expected {n} cells, found {}{hint}", values.len()),
        ));
    }
    let mut seen = 0u32;
    for &v in &values {
        if v as usize >= n {
            return Err(StateError::malformed(
                text,
                format!("value {v} is out of range 0..={}", n - 1),
            ));
        }
        if seen & (1 << v) != 0 {
            return Err(StateError::malformed(
                text,
                format!("value {v} appears twice"),
            ));
        }
        seen |= 1 << v;
    }
    Ok(values.into_iter().map(|v| v as u8).collect())
}

/// Two-colours the cell graph, or `None` if it has an odd cycle.
fn two_colouring(adjacency: &[Vec<u8>]) -> Option<Vec<u8>> {
    let n = adjacency.len();
    let mut colour = vec![u8::MAX; n];
    for s in 0..n {
        if colour[s] != u8::MAX {
            continue;
        }
        colour[s] = 0;
        let mut stack = vec![s];
        while let Some(c) = stack.pop() {
            for &d in &adjacency[c] {
                let d = d as usize;
                if colour[d] == u8::MAX {
                    colour[d] = colour[c] ^ 1;
                    stack.push(d);
                } else if colour[d] == colour[c] {
                    return None;
                }
            }
        }
    }
    Some(colour)
}

impl StateSpace for Sliding {
    fn size(&self) -> u64 {
        self.cells() as u64 * self.tile_ranks
    }

    fn goals(&self) -> Vec<u64> {
        vec![self.rank_of(&self.goal_cells())]
    }

    fn neighbors(&self, rank: u64, out: &mut Vec<u64>) {
        self.push_neighbors(rank, &mut None, false, out);
    }

    fn neighbors_of(&self, ranks: &[u64], out: &mut Vec<u64>, ends: &mut Vec<usize>) {
        // The ranks come in order, and those of one block share its arrangement.
        let mut here = None;
        for &rank in ranks {
            self.push_neighbors(rank, &mut here, false, out);
            ends.push(out.len());
        }
    }

    fn run_links(&self, base: u64) -> u32 {
        self.fast.link_from[(base % self.fast.cells) as usize]
    }

    fn far_neighbors_of(&self, ranks: &[u64], out: &mut Vec<u64>, ends: &mut Vec<usize>) {
        match &self.fast.far {
            Some(far) => {
                let swap_at = self.colour.is_some().then_some(&self.fast.swap_at[..]);
                far.neighbors_of(&self.fast.cells, swap_at, ranks, out, ends)
            }
            None => {
                let mut here = None;
                for &rank in ranks {
                    self.push_neighbors(rank, &mut here, true, out);
                    ends.push(out.len());
                }
            }
        }
    }

    /// Every move takes the blank to the other colour, so the parity of any path to the
    /// goal is whether the blank's colour differs from the goal blank's.
    fn parity(&self, rank: u64) -> Option<u8> {
        let colour = self.colour.as_ref()?;
        let blank = (rank % self.fast.cells) as usize;
        Some(colour[blank] ^ colour[self.goal_blank])
    }

    /// Both depend on the blank cell of the word's first rank, `base mod n`, which
    /// repeats every `n / gcd(n, 32)` words.
    fn word_period(&self) -> Option<u64> {
        let n = self.cells() as u64;
        Some(n >> n.trailing_zeros().min(5))
    }

    fn odd_ranks(&self, base: u64) -> Option<u32> {
        self.colour.as_ref()?;
        Some(self.fast.odd_from[(base % self.fast.cells) as usize])
    }
}

impl GraphPuzzle for Sliding {
    fn name(&self) -> &str {
        &self.name
    }

    fn family(&self) -> &str {
        "sliding"
    }

    fn definition(&self) -> serde_json::Value {
        let (tiles, blank) = match self.notation {
            None => ("the tiles in cell order", "blank_cell"),
            Some(_) => (
                "the tiles read in rank_order",
                "the blank's place in rank_order",
            ),
        };
        let mut d = json!({
            "cells": self.cells(),
            "adjacency": self.adjacency(),
            "goal": self.format_cells(&self.goal_cells()),
            "notation": "tile in each cell in cell order, 0 for the blank; digits, or comma-separated numbers above 10 cells",
            "ranking": if self.is_bipartite() {
                format!("floor(lexicographic rank of {tiles} / 2) * n + {blank}; only the solvable parity class is ranked")
            } else {
                format!("lexicographic rank of {tiles} * n + {blank}")
            },
        });
        if let Some(n) = &self.notation {
            d["rank_order"] = json!(n.order);
        }
        self.source.annotate(&mut d);
        d
    }

    fn notation(&self) -> String {
        format!(
            "{} cells in cell order, each its tile's number, 0 = the blank",
            self.adjacency.len()
        )
    }
    fn format(&self, rank: u64) -> String {
        self.format_cells(&self.unrank(rank))
    }

    fn storage_asked(&self) -> GraphAsk {
        self.storage_asked
    }

    fn packing(&self) -> Option<RunLayout> {
        // Within a run the ranks differ by one per move; on a bipartite graph neighbours'
        // distances differ by exactly one, which is what the run-steps encoding needs.
        self.is_bipartite()
            .then(|| RunLayout::new(self.cells() as u64, self.tile_ranks, &self.runs()).ok())
            .flatten()
    }

    fn parse(&self, text: &str) -> Result<u64, StateError> {
        let cells = self.parse_cells(text)?;
        if !self.in_space(&cells) {
            return Err(StateError::unsolvable(
                text,
                "its permutation parity does not match the goal's, so no sequence of moves reaches the goal",
            ));
        }
        Ok(self.rank_of(&cells))
    }
}

#[cfg(test)]
mod packed_tests;
#[cfg(test)]
mod tests;
