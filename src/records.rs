//! Turns each solver's output into the rows the store writes: one function per kind of
//! puzzle, each producing a [`PuzzleRecord`]. Rows are produced lazily where they are
//! many, so a table is never held twice in memory.

use std::time::Instant;

use thiserror::Error;

use crate::bfs::{self, COUNT_OVERFLOW, NO_NEXT, UNREACHED};
use crate::enumerate;
use crate::peg::{self, Board};
use crate::progress::Progress;
use crate::puzzles::Puzzle;
use crate::rank::FACT;
use crate::space::GraphPuzzle;
use crate::store::{HistogramRow, PegLayerRow, PositionRow, PuzzleRecord, SolutionRow};

/// Peg boards up to this many holes also get the start x finish matrix.
pub const MATRIX_MAX_HOLES: usize = 21;

/// A solver refused or failed; the message says why.
#[derive(Debug, Error)]
#[error("{0}")]
pub struct SolveFailure(pub String);

/// Computes one puzzle's complete record. `seconds` is the time spent solving.
pub fn compute<'a>(
    p: &'a Puzzle,
    hash: String,
    progress: &dyn Progress,
) -> Result<PuzzleRecord<'a>, SolveFailure> {
    let started = Instant::now();
    let base = PuzzleRecord {
        name: p.name().to_string(),
        family: p.family().to_string(),
        definition: p.definition().to_string(),
        definition_hash: hash,
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
    };
    let rec = match p {
        Puzzle::Graph(g) => graph(g.as_ref(), base, progress)?,
        Puzzle::Peg(board) => peg_board(board, base, progress)?,
        Puzzle::Magic => solutions(FACT[9], enumerate::magic_triangle(progress), base),
        Puzzle::Tour(board) => {
            let found = enumerate::closed_tours(board, progress);
            solutions(found.len() as u64, found, base)
        }
    };
    Ok(PuzzleRecord {
        seconds: started.elapsed().as_secs_f64(),
        ..rec
    })
}

/// A move graph: one row per rank that reaches the goal.
fn graph<'a>(
    g: &'a dyn GraphPuzzle,
    base: PuzzleRecord<'a>,
    progress: &dyn Progress,
) -> Result<PuzzleRecord<'a>, SolveFailure> {
    let table = bfs::solve(g, progress).map_err(|e| SolveFailure(e.to_string()))?;
    let histogram = (table.levels.iter().enumerate())
        .map(|(d, &n)| HistogramRow {
            distance: d as u32,
            positions: n,
            classes: n,
        })
        .collect();
    let (states, solvable, max_distance) = (g.size(), table.reached(), Some(table.max_distance()));
    // One closure owns the table; unreached ranks (unsolvable arrangements) are skipped.
    let positions = (0..table.dist.len()).filter_map(move |r| {
        if table.dist[r] == UNREACHED {
            return None;
        }
        Some(PositionRow {
            rank: r as u64,
            state: g.format(r as u64),
            distance: Some(table.dist[r]),
            next_rank: (table.next[r] != NO_NEXT).then_some(table.next[r] as u64),
            solutions: (table.count[r] != COUNT_OVERFLOW).then_some(table.count[r]),
            mv: None,
        })
    });
    Ok(PuzzleRecord {
        states,
        solvable,
        max_distance,
        positions: Box::new(positions),
        position_rows: solvable,
        histogram,
        ..base
    })
}

/// A peg board: canonical rows, per-layer figures and (small boards) the matrix.
fn peg_board<'a>(
    board: &'a Board,
    base: PuzzleRecord<'a>,
    progress: &dyn Progress,
) -> Result<PuzzleRecord<'a>, SolveFailure> {
    let table = peg::solve(board, progress).map_err(|e| SolveFailure(e.to_string()))?;
    let matrix = if board.holes <= MATRIX_MAX_HOLES {
        peg::matrix(board, progress)
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
    let peg_layers = (table.layers.iter())
        .map(|l| PegLayerRow {
            pegs: l.pegs,
            reachable: l.reachable,
            can_finish: l.can_finish,
            reachable_classes: l.reachable_classes,
            can_finish_classes: l.can_finish_classes,
        })
        .collect();
    let peg_matrix = (matrix.iter().enumerate())
        .flat_map(|(s, row)| {
            row.iter()
                .enumerate()
                .map(move |(f, &d)| (s as u8, f as u8, d))
        })
        .collect();
    let states = table.layers.iter().map(|l| l.reachable).sum();
    let solvable = table.layers.iter().map(|l| l.can_finish).sum();
    let max_distance = table.rows.iter().filter_map(|r| r.distance).max();
    let position_rows = table.rows.len() as u64;
    let positions = table.rows.into_iter().map(move |r| PositionRow {
        rank: r.bits,
        state: board.format(r.bits),
        distance: r.distance,
        next_rank: r.next_bits,
        solutions: r.solutions,
        mv: r.next_move.map(|m| Board::format_moves(&[m])),
    });
    Ok(PuzzleRecord {
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

/// An enumeration puzzle: its solutions, nothing in the move tables.
fn solutions(
    examined: u64,
    found: Vec<enumerate::Solution>,
    base: PuzzleRecord<'_>,
) -> PuzzleRecord<'_> {
    PuzzleRecord {
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
