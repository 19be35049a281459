//! Turns each solver's output into the rows the store writes: one function per kind of
//! puzzle, each producing a [`PuzzleRecord`]. Rows are produced lazily where they are
//! many, so a table is never held twice in memory.

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use thiserror::Error;

use crate::core::format;
use crate::core::packed::{ChunkLayout, RunLayout};
use crate::core::progress::Progress;
use crate::core::rank::FACT;
use crate::core::space::GraphPuzzle;
use crate::families::Puzzle;
use crate::generate::backend::{Backend, BackendError, PackedGraph};
use crate::solvers::bfs::{COUNT_OVERFLOW, NO_NEXT};
use crate::solvers::enumerate;
use crate::solvers::pattern::Pattern;
use crate::solvers::peg::layers::table::{self as layer_table, PegLayout};
use crate::solvers::peg::{Board, LayerStats};
use crate::store::{
    FarthestRow, HistogramRow, PackedTable, PegLayerRow, PositionRow, PuzzleRecord, SolutionRow,
    Storage,
};

/// Position rows made at a time, in parallel, before they are written.
const ROW_BATCH: usize = 1 << 14;

/// Why a puzzle's record could not be computed.
#[derive(Debug, Error)]
pub enum SolveFailure {
    /// The backend could not compute one of its tables.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The puzzle's packed layout does not cover its rank space.
    #[error("packed layout covers {covers} ranks, the puzzle has {ranks}")]
    Layout {
        /// Ranks the layout covers.
        covers: u64,
        /// Ranks of the puzzle.
        ranks: u64,
    },
}

/// Computes one puzzle's complete record on `backend`. `seconds` is the time spent
/// solving.
pub fn compute<'a>(
    p: &'a Puzzle,
    hash: String,
    backend: &'a dyn Backend,
    scratch: &Path,
    progress: &dyn Progress,
) -> Result<PuzzleRecord<'a>, SolveFailure> {
    let started = Instant::now();
    let base = PuzzleRecord {
        name: p.name().to_string(),
        family: p.family().to_string(),
        definition: p.definition().to_string(),
        definition_hash: hash,
        storage: Storage::Positions,
        counts: false,
        states: 0,
        solvable: 0,
        max_distance: None,
        seconds: 0.0,
        positions: Box::new(std::iter::empty()),
        position_rows: 0,
        histogram: Vec::new(),
        peg_layers: Vec::new(),
        peg_matrix: Vec::new(),
        solutions: Vec::new(),
        packed: Vec::new(),
        farthest: Vec::new(),
    };
    let rec = match p {
        Puzzle::Graph(g) => graph(g.as_ref(), base, backend, progress)?,
        Puzzle::Peg(board) => match board.storage() {
            Storage::PegLayers => peg_layers(board, base, backend, scratch, progress)?,
            _ => peg_board(board, base, backend, progress)?,
        },
        Puzzle::Magic(m) => solutions(FACT[m.positions()], backend.magic(m, progress), base),
        Puzzle::Tour(board) => {
            let found = backend.tours(board, progress);
            solutions(found.len() as u64, found, base)
        }
        Puzzle::Patterns(f) => {
            let table = |p: &Pattern| backend.pattern_table(p, progress);
            crate::families::fifteen::record(f, base, &table, progress)?
        }
        // Only the definition: each board is searched when asked.
        Puzzle::Clusters(_) => PuzzleRecord {
            storage: Storage::Search,
            ..base
        },
    };
    Ok(PuzzleRecord {
        seconds: started.elapsed().as_secs_f64(),
        ..rec
    })
}

fn levels_histogram(levels: &[u64]) -> Vec<HistogramRow> {
    (levels.iter().enumerate())
        .map(|(d, &n)| HistogramRow {
            distance: d as u32,
            positions: n,
            classes: n,
        })
        .collect()
}

/// A move graph: one row per rank that reaches the goal, or packed tables when large.
fn graph<'a>(
    g: &'a dyn GraphPuzzle,
    base: PuzzleRecord<'a>,
    backend: &'a dyn Backend,
    progress: &dyn Progress,
) -> Result<PuzzleRecord<'a>, SolveFailure> {
    let (storage, two_bit, counts) = crate::core::space::graph_tables(g);
    if storage == Storage::Packed && two_bit && counts {
        let done = backend.coded_graph(g, progress)?;
        return Ok(packed_record(g, done, base));
    }
    if storage == Storage::Packed && two_bit {
        return two_bit_graph(g, base, backend, progress);
    }
    if storage == Storage::Packed
        && let Some(layout) = g.packing()
    {
        return packed_graph(g, layout, base, backend, progress);
    }
    let table = backend.graph_table(g, progress)?;
    let histogram = levels_histogram(table.levels());
    let (states, solvable, max_distance) = (g.size(), table.reached(), Some(table.max_distance()));
    // One closure owns the table; unreached ranks (unsolvable arrangements) are skipped.
    // Rows are made in parallel a batch at a time (formatting a state costs about as
    // much as storing it) and handed to the single writer in rank order.
    let len = table.len();
    let positions = (0..len).step_by(ROW_BATCH).flat_map(move |lo| {
        (lo..(lo + ROW_BATCH).min(len))
            .into_par_iter()
            .filter_map(|r| {
                let distance = table.distance(r)?;
                let (next, count) = (table.next()[r], table.count()[r]);
                Some(PositionRow {
                    rank: r as u64,
                    state: g.format(r as u64),
                    distance: Some(distance),
                    next_rank: (next != NO_NEXT).then_some(next as u64),
                    solutions: (count != COUNT_OVERFLOW).then_some(count),
                    mv: None,
                })
            })
            .collect::<Vec<_>>()
    });
    Ok(PuzzleRecord {
        counts: true,
        states,
        solvable,
        max_distance,
        positions: Box::new(positions),
        position_rows: solvable,
        histogram,
        ..base
    })
}

/// A move graph whose distances are two-bit codes (above a byte per rank, or asked):
/// the `mod4`/`mod3` table, the histogram, and the positions at the maximum distance
/// when the search kept them (at most [`crate::solvers::twobit::FARTHEST_KEPT`]).
fn two_bit_graph<'a>(
    g: &'a dyn GraphPuzzle,
    base: PuzzleRecord<'a>,
    backend: &'a dyn Backend,
    progress: &dyn Progress,
) -> Result<PuzzleRecord<'a>, SolveFailure> {
    let table = backend.two_bit_graph(g, progress)?;
    let (layout, levels, farthest) = (table.layout, table.levels, table.farthest);
    // Two-bit codes hold a distance of any length (the answers walk to the goal).
    let max = (levels.len() - 1) as u32;
    Ok(PuzzleRecord {
        storage: Storage::Packed,
        counts: false,
        states: g.size(),
        solvable: levels.iter().sum(),
        max_distance: Some(max),
        histogram: levels_histogram(&levels),
        farthest: farthest_rows(g, farthest, max),
        packed: vec![PackedTable::of("distance", &layout, table.chunks)],
        ..base
    })
}

/// The `farthest` rows of a packed move graph: `ranks` (sorted), all at distance `max`.
fn farthest_rows(g: &dyn GraphPuzzle, ranks: Vec<u64>, max: u32) -> Vec<FarthestRow> {
    (ranks.into_iter())
        .map(|rank| FarthestRow {
            rank,
            state: g.format(rank),
            distance: max,
        })
        .collect()
}

/// A large move graph: distances (and, up to [`COUNTS_MAX_STATES`], solution counts) as
/// packed tables, the histogram, and the positions at the maximum distance.
fn packed_graph<'a>(
    g: &'a dyn GraphPuzzle,
    layout: RunLayout,
    base: PuzzleRecord<'a>,
    backend: &dyn Backend,
    progress: &dyn Progress,
) -> Result<PuzzleRecord<'a>, SolveFailure> {
    if layout.ranks() != g.size() {
        return Err(SolveFailure::Layout {
            covers: layout.ranks(),
            ranks: g.size(),
        });
    }
    let counts = format::packed_counts(g.size(), g.storage_asked());
    let done = backend.packed_graph(g, &layout, counts, progress)?;
    Ok(packed_record(g, done, base))
}

/// The record of a packed move graph: its distance table (`run-steps` or two-bit codes),
/// its count table when it has one, the histogram and the farthest positions.
fn packed_record<'a>(
    g: &dyn GraphPuzzle,
    done: PackedGraph,
    base: PuzzleRecord<'a>,
) -> PuzzleRecord<'a> {
    let max = done.max_distance();
    let counts = done.counts.is_some();
    let mut packed = vec![PackedTable::of(
        "distance",
        &done.layout,
        done.distance.into(),
    )];
    if let Some((l, chunks)) = done.counts {
        packed.push(PackedTable::of("solutions", &l, chunks.into()));
    }
    PuzzleRecord {
        storage: Storage::Packed,
        counts,
        states: g.size(),
        solvable: done.levels.iter().sum(),
        max_distance: Some(max),
        histogram: levels_histogram(&done.levels),
        farthest: farthest_rows(g, done.farthest, max),
        packed,
        ..base
    }
}

/// A peg board: canonical rows, per-layer figures and (small boards) the matrix.
fn peg_board<'a>(
    board: &'a Board,
    base: PuzzleRecord<'a>,
    backend: &dyn Backend,
    progress: &dyn Progress,
) -> Result<PuzzleRecord<'a>, SolveFailure> {
    let table = backend.peg_table(board, progress)?;
    let matrix = if board.matrix {
        backend.peg_matrix(board, progress)
    } else {
        Vec::new()
    };

    // Rows are symmetry classes; the histogram counts every position of each class.
    let mut histogram: Vec<HistogramRow> = Vec::new();
    for row in &table.rows {
        if let Some(d) = row.distance {
            let d = d as usize;
            if histogram.len() <= d {
                histogram.extend((histogram.len()..=d).map(|i| HistogramRow {
                    distance: i as u32,
                    positions: 0,
                    classes: 0,
                }));
            }
            histogram[d].positions += row.class_size as u64;
            histogram[d].classes += 1;
        }
    }
    let peg_layers = peg_layer_rows(&table.layers);
    let peg_matrix = (matrix.iter().enumerate())
        .flat_map(|(s, row)| {
            row.iter()
                .enumerate()
                .map(move |(f, &d)| (s as u8, f as u8, d))
        })
        .collect();
    let states = table.layers.iter().map(|l| l.reachable).sum();
    let solvable = table.layers.iter().map(|l| l.can_finish).sum();
    let max_distance = table
        .rows
        .iter()
        .filter_map(|r| r.distance)
        .max()
        .map(u32::from);
    let position_rows = table.rows.len() as u64;
    let positions = table.rows.into_iter().map(move |r| PositionRow {
        rank: r.bits,
        state: board.format(r.bits),
        distance: r.distance.map(u32::from),
        next_rank: r.next_bits,
        solutions: r.solutions,
        mv: r.next_move.map(|m| Board::format_moves(&[m])),
    });
    Ok(PuzzleRecord {
        counts: true,
        states,
        solvable,
        max_distance,
        positions: Box::new(positions),
        position_rows,
        histogram,
        peg_layers,
        peg_matrix,
        ..base
    })
}

/// A large peg board: its layers as one packed table (encoding `peg-layers`), the
/// per-layer figures, the histogram and the farthest positions. Counts and moves are
/// not stored: `query` derives them from the distances.
fn peg_layers<'a>(
    board: &'a Board,
    base: PuzzleRecord<'a>,
    backend: &dyn Backend,
    scratch: &Path,
    progress: &dyn Progress,
) -> Result<PuzzleRecord<'a>, SolveFailure> {
    let table = backend.peg_layers(board, scratch, progress)?;
    let classes = |k: usize| {
        (table.layers.iter())
            .find(|l| l.pegs as usize == k)
            .map_or(0, |l| l.can_finish_classes)
    };
    let layout = PegLayout::of(&table.tables, classes);
    let histogram = (table.histogram.iter().enumerate())
        .map(|(d, &(positions, classes))| HistogramRow {
            distance: d as u32,
            positions,
            classes,
        })
        .collect();
    let peg_layers = peg_layer_rows(&table.layers);
    let max = u32::from(table.max_distance());
    let farthest = (table.farthest.iter())
        .map(|&b| FarthestRow {
            rank: b,
            state: board.format(b),
            distance: max,
        })
        .collect();
    let states = table.layers.iter().map(|l| l.reachable).sum();
    let solvable = table.layers.iter().map(|l| l.can_finish).sum();
    let chunks: Vec<Vec<u8>> = table.tables.into_iter().flat_map(|l| l.chunks).collect();
    Ok(PuzzleRecord {
        storage: Storage::PegLayers,
        counts: false,
        states,
        solvable,
        max_distance: Some(max),
        histogram,
        peg_layers,
        farthest,
        packed: vec![PackedTable {
            kind: "distance",
            encoding: layer_table::ENCODING,
            ranks_per_chunk: layout.ranks_per_chunk,
            layout: serde_json::to_string(&layout).expect("a layout serialises"),
            chunks: chunks.into(),
        }],
        ..base
    })
}

/// The `peg_layers` rows of a board's layer figures.
fn peg_layer_rows(layers: &[LayerStats]) -> Vec<PegLayerRow> {
    (layers.iter())
        .map(|l| PegLayerRow {
            pegs: l.pegs,
            reachable: l.reachable,
            can_finish: l.can_finish,
            reachable_classes: l.reachable_classes,
            can_finish_classes: l.can_finish_classes,
            reachable_pairs: l.reachable_pairs,
        })
        .collect()
}

/// An enumeration puzzle: its solutions, nothing in the move tables.
fn solutions(
    examined: u64,
    found: Vec<enumerate::Solution>,
    base: PuzzleRecord<'_>,
) -> PuzzleRecord<'_> {
    PuzzleRecord {
        storage: Storage::Solutions,
        states: examined,
        solvable: found.len() as u64,
        solutions: found
            .into_iter()
            .map(|s| SolutionRow {
                rank: s.rank,
                state: s.state,
                value: s.value,
                canonical: s.canonical,
            })
            .collect(),
        ..base
    }
}
