//! The backend seam: the build asks a [`Backend`] for a puzzle's tables in the units the
//! engines already have (a move graph's table or its packed chunks, one pattern table, a
//! peg board's layers and matrix, the solutions of an enumeration), and turns what comes
//! back into records itself. Only the build writes SQLite; a backend computes.
//!
//! [`Local`] is this machine's backend: the rayon-parallel solvers. A backend that runs
//! across processes implements the same trait in its own module and is chosen by a
//! command-line switch; nothing else changes.

use rayon::prelude::*;
use thiserror::Error;

use crate::catalog::LookupError;
use crate::core::packed::{
    ChunkLayout, CodeLayout, CountLayout, DistanceLayout, PackError, RunLayout,
};
use crate::core::progress::Progress;
use crate::core::records::Chunks;
use crate::core::space::GraphPuzzle;
use crate::families::magic::Magic;
use crate::families::tour::{TourBoard, closed_tours};
use crate::solvers::bfs::{self, Outputs, SolveError, Solved, UNREACHED};
use crate::solvers::distributed::DistError;
use crate::solvers::enumerate::Solution;
use crate::solvers::pattern::{self, Pattern, PatternError};
use crate::solvers::peg::layers::{self, LayerTable};
use crate::solvers::peg::{self, Board, PegError, PegTable};
use crate::solvers::twobit;
use std::path::Path;

/// Why a backend could not compute a unit: a solver's refusal, or (across processes) a
/// unit the processes could not agree on or exchange.
#[derive(Debug, Error)]
pub enum BackendError {
    /// The breadth-first search of a move graph failed.
    #[error(transparent)]
    Search(#[from] SolveError),
    /// A table does not fit its packed or two-bit layout.
    #[error(transparent)]
    Pack(#[from] PackError),
    /// The two-bit search was given a goal outside the rank space.
    #[error("goal rank {0} is outside the space")]
    GoalOutside(u64),
    /// A pattern, or its table, is not one the solver builds.
    #[error(transparent)]
    Pattern(#[from] PatternError),
    /// A peg board's table or layers cannot be computed.
    #[error(transparent)]
    Peg(#[from] PegError),
    /// The search across processes failed.
    #[error(transparent)]
    Distributed(#[from] DistError),
    /// A message from process 0 does not decode.
    #[error("a message from process 0 is damaged: {0}")]
    Message(#[source] postcard::Error),
    /// The puzzle process 0 sent is not one this process can rebuild (shown in its
    /// debug form: a lookup's failure has no text of its own).
    #[error("{0:?}")]
    Lookup(LookupError),
    /// The definition process 0 sent is not JSON.
    #[error(transparent)]
    Definition(serde_json::Error),
    /// This process's puzzle of that name has another definition than process 0's.
    #[error("this process's {name} has another definition")]
    OtherDefinition {
        /// The puzzle.
        name: String,
    },
    /// The puzzle process 0 sent is not a move graph.
    #[error("{name} is not a move graph")]
    NotGraph {
        /// The puzzle.
        name: String,
    },
    /// A move graph to be stored packed has no packed layout.
    #[error("{name} has no packed layout")]
    NoPacking {
        /// The puzzle.
        name: String,
    },
    /// The packed layout asked for is not the puzzle's own.
    #[error("{name}: the packed layout is not the puzzle's own")]
    ForeignLayout {
        /// The puzzle.
        name: String,
    },
    /// Another process failed a step every process must pass (its own message says
    /// why).
    #[error("another process failed {what}")]
    Elsewhere {
        /// The step, as the message names it (`packing its share`).
        what: &'static str,
    },
}

/// A move graph stored packed, as its backend hands it over: the layout of its distance
/// table (the puzzle's runs, in the narrowest `run-steps` width that holds its largest
/// distance; or two-bit codes for a graph without runs) and every chunk of it (and of
/// the count table when counts were asked for), in chunk order, with the level sizes and
/// the ranks at the maximum distance (sorted; for codes, empty when that level has more
/// than [`twobit::FARTHEST_KEPT`], as the two-bit search keeps them).
pub struct PackedGraph {
    pub layout: DistanceLayout,
    pub distance: Vec<Vec<u8>>,
    pub counts: Option<(CountLayout, Vec<Vec<u8>>)>,
    /// Positions per distance, from 0 to the maximum.
    pub levels: Vec<u64>,
    pub farthest: Vec<u64>,
}

impl PackedGraph {
    pub fn max_distance(&self) -> u32 {
        (self.levels.len() - 1) as u32
    }
}

/// A move graph's two-bit table as its backend hands it over: the layout, every chunk
/// in order (made as the store writes them, so the table is never held twice), the
/// level sizes and the ranks at the maximum distance (sorted; empty when that level has
/// more than [`twobit::FARTHEST_KEPT`]).
pub struct TwoBitGraph<'a> {
    pub layout: CodeLayout,
    pub chunks: Chunks<'a>,
    pub levels: Vec<u64>,
    pub farthest: Vec<u64>,
}

impl TwoBitGraph<'_> {
    /// The whole table of one process's search.
    pub fn from_table(table: twobit::TwoBitTable) -> Result<TwoBitGraph<'static>, BackendError> {
        let layout = CodeLayout::new(table.ranks, table.modulus)?;
        let chunks = layout.chunks_from_blocks(0, table.blocks).map(Ok);
        Ok(TwoBitGraph {
            layout,
            chunks: Chunks::Streamed {
                count: layout.chunks(),
                chunks: Box::new(chunks),
            },
            levels: table.levels,
            farthest: table.farthest,
        })
    }
}

/// What computes a puzzle's tables. Each method is one unit of work; the results are
/// the same whatever the backend (the build's checksums do not depend on it).
pub trait Backend: Sync {
    /// A move graph stored a row per position: distances, next ranks and counts.
    fn graph_table(
        &self,
        g: &dyn GraphPuzzle,
        progress: &dyn Progress,
    ) -> Result<Solved, BackendError>;
    /// A move graph stored packed with `layout`'s runs (widened where its distances
    /// need it), with solution counts when `counts`.
    fn packed_graph(
        &self,
        g: &dyn GraphPuzzle,
        layout: &RunLayout,
        counts: bool,
        progress: &dyn Progress,
    ) -> Result<PackedGraph, BackendError>;
    /// A move graph without runs stored packed with its solution counts: the search of
    /// a byte per rank, its distances written as two-bit codes (modulo 4 or 3, as the
    /// two-bit search writes them) beside the counts. By default on this machine's cores:
    /// these graphs fit one machine (at most [`crate::core::format::COUNTS_MAX_STATES`]
    /// ranks).
    fn coded_graph(
        &self,
        g: &dyn GraphPuzzle,
        progress: &dyn Progress,
    ) -> Result<PackedGraph, BackendError> {
        let outputs = Outputs {
            next: false,
            counts: true,
        };
        match bfs::solve_any(g, outputs, progress)? {
            Solved::Narrow(t) => pack(g, None, t, UNREACHED, progress),
            Solved::Wide(t) => pack(g, None, t, bfs::WIDE_UNREACHED, progress),
        }
    }
    /// A move graph whose distances are stored as two-bit codes: every rank's distance
    /// modulo 4 or 3 ([`twobit`]). Its chunks may be made as they are read, by this
    /// backend.
    fn two_bit_graph<'s>(
        &'s self,
        g: &dyn GraphPuzzle,
        progress: &dyn Progress,
    ) -> Result<TwoBitGraph<'s>, BackendError>;
    /// One pattern database (one byte per placement of its tiles).
    fn pattern_table(
        &self,
        p: &Pattern,
        progress: &dyn Progress,
    ) -> Result<pattern::PatternTable, BackendError>;
    /// A peg board's positions, by peg count, that are reachable and can finish. By
    /// default (and for every unit below), on this machine's cores: the units a backend
    /// does not split across machines need not be written again.
    fn peg_table(&self, board: &Board, progress: &dyn Progress) -> Result<PegTable, BackendError> {
        Ok(peg::solve(board, progress)?)
    }
    /// A large peg board's layers (positions that can finish, with distances), with
    /// scratch files in `scratch`.
    fn peg_layers(
        &self,
        board: &Board,
        scratch: &Path,
        progress: &dyn Progress,
    ) -> Result<LayerTable, BackendError> {
        Ok(layers::solve(board, scratch, progress)?)
    }
    /// A peg board's start-by-finish matrix.
    fn peg_matrix(&self, board: &Board, progress: &dyn Progress) -> Vec<Vec<Option<u8>>> {
        peg::matrix(board, progress)
    }
    /// Every arrangement of a magic figure with equal line sums.
    fn magic(&self, m: &Magic, progress: &dyn Progress) -> Vec<Solution> {
        m.solve(progress)
    }
    /// Every closed tour of a tour board, one per class.
    fn tours(&self, board: &TourBoard, progress: &dyn Progress) -> Vec<Solution> {
        closed_tours(board, progress)
    }
}

/// A solved table packed: its distances (`D`, `unreached` where the goal is out of
/// reach) in the narrowest `run-steps` width of `runs` that holds them, or, for a graph
/// without runs, as two-bit codes modulo 4 or 3 by the two-bit search's rule
/// ([`twobit::modulus_of`]); its counts where they were computed; and the ranks at the
/// maximum distance (beside codes only when there are at most
/// [`twobit::FARTHEST_KEPT`], the two-bit search's rule, which `verify` applies to both).
fn pack<D: Copy + Into<u32> + Eq + Send + Sync>(
    g: &dyn GraphPuzzle,
    runs: Option<&RunLayout>,
    table: bfs::DistanceTable<D>,
    unreached: D,
    progress: &dyn Progress,
) -> Result<PackedGraph, BackendError> {
    let dist = &table.dist;
    let max = (table.levels.len() - 1) as u32;
    let layout = match runs {
        Some(l) => DistanceLayout::Runs(l.fitting(max)),
        None => DistanceLayout::Codes(CodeLayout::new(
            g.size(),
            twobit::modulus_of(g, table.levels.iter().sum()),
        )?),
    };
    let mut farthest = Vec::new();
    if runs.is_some() || table.levels[max as usize] <= twobit::FARTHEST_KEPT {
        farthest = (dist.par_iter().enumerate())
            .filter(|&(_, &d)| d != unreached && d.into() == max)
            .map(|(r, _)| r as u64)
            .collect();
        farthest.sort_unstable();
    }
    let distance_of = |r: u64| {
        Some(dist[r as usize])
            .filter(|&d| d != unreached)
            .map(Into::into)
    };
    progress.phase("packing", layout.chunks());
    let distance = (0..layout.chunks())
        .into_par_iter()
        .map(|c| {
            let blob = match &layout {
                DistanceLayout::Runs(l) => l.encode_chunk_with(c, distance_of),
                DistanceLayout::Codes(l) => l.encode_chunk_with(c, distance_of),
            };
            progress.advance(1);
            blob
        })
        .collect::<Result<Vec<_>, _>>()?;
    let counts = (!table.count.is_empty()).then(|| {
        let most = table.count.par_iter().copied().max().unwrap_or(0);
        let l = CountLayout::for_counts(g.size(), most);
        let chunks = (0..l.chunks())
            .into_par_iter()
            .map(|c| l.encode_chunk(c, &table.count))
            .collect();
        (l, chunks)
    });
    Ok(PackedGraph {
        layout,
        distance,
        counts,
        levels: table.levels,
        farthest,
    })
}

/// This machine: the solvers, parallel over its cores with rayon.
pub struct Local;

impl Backend for Local {
    fn graph_table(
        &self,
        g: &dyn GraphPuzzle,
        progress: &dyn Progress,
    ) -> Result<Solved, BackendError> {
        Ok(bfs::solve_any(g, Outputs::ALL, progress)?)
    }

    fn packed_graph(
        &self,
        g: &dyn GraphPuzzle,
        layout: &RunLayout,
        counts: bool,
        progress: &dyn Progress,
    ) -> Result<PackedGraph, BackendError> {
        let outputs = Outputs {
            next: false,
            counts,
        };
        // A search past distance 254 goes on over four bytes a rank, and its entries
        // widen to match; one within a byte keeps the byte table and layout.
        match bfs::solve_any(g, outputs, progress)? {
            Solved::Narrow(t) => pack(g, Some(layout), t, UNREACHED, progress),
            Solved::Wide(t) => pack(g, Some(layout), t, bfs::WIDE_UNREACHED, progress),
        }
    }

    fn two_bit_graph<'s>(
        &'s self,
        g: &dyn GraphPuzzle,
        progress: &dyn Progress,
    ) -> Result<TwoBitGraph<'s>, BackendError> {
        let table = twobit::solve(g, progress).map_err(BackendError::GoalOutside)?;
        TwoBitGraph::from_table(table)
    }

    fn pattern_table(
        &self,
        p: &Pattern,
        progress: &dyn Progress,
    ) -> Result<pattern::PatternTable, BackendError> {
        Ok(pattern::build(p, progress)?)
    }
}
