//! A peg board's definition: its holes and jumps (a table or a mask), start and finish
//! holes, and what `generate` builds for it (the table, the start-by-finish matrix).

use crate::spec::{Problem, Spec, common, problem, required, source};
use crate::{Family, Puzzle};
use puzzlebase_core::definition::intern;
use puzzlebase_solvers::peg::Board;
use puzzlebase_solvers::peg::board::{MATRIX_MAX_HOLES, linked_by_jumps};

/// The `peg` family in the registry.
pub const FAMILY: Family = Family {
    name: "peg",
    keys: &[
        "cells",
        "jumps",
        "mask",
        "directions",
        "start_hole",
        "finish_hole",
        "tabulate",
        "storage",
        "matrix",
    ],
    build: |spec| Ok(Puzzle::Peg(board(spec)?)),
};

/// Most holes of a board that is tabulated: the layer solver's bound (2^37 bits of layer
/// bitmaps, 17.2 GB of scratch disk for `french37`).
pub const MAX_TABULATED_HOLES: usize = puzzlebase_solvers::peg::layers::MAX_HOLES;

/// Most holes of a board stored a row per position.
const MAX_TABULATED_ROWS: usize = puzzlebase_core::format::PEG_ROWS_MAX_HOLES;

pub fn board(spec: &Spec) -> Result<Board, Problem> {
    common(spec, FAMILY.keys)?;
    let name = intern(&spec.name);
    let (holes, coords, grid) = match (&spec.jumps, &spec.mask) {
        (Some(_), Some(_)) => {
            return Err(problem("mask", "give either `jumps` or `mask`, not both"));
        }
        (None, None) => {
            return Err(problem(
                "name",
                "missing key `jumps` (a jump table) or `mask` (a grid of holes)",
            ));
        }
        (Some(table), None) => {
            let cells = required(&spec.cells, "cells", "the holes' coordinates [x, y]")?;
            if cells.len() != table.len() {
                return Err(problem(
                    "cells",
                    format!(
                        "{} coordinates for {} holes in the jump table",
                        cells.len(),
                        table.len()
                    ),
                ));
            }
            (table.len(), cells.clone(), None)
        }
        (None, Some(mask)) => {
            if spec.cells.is_some() {
                return Err(problem(
                    "cells",
                    "a mask board takes its coordinates from the mask",
                ));
            }
            let mut grid = Vec::new();
            for (r, row) in mask.iter().enumerate() {
                for (c, ch) in row.chars().enumerate() {
                    match ch {
                        'o' => grid.push((r, c)),
                        '.' | ' ' => {}
                        other => {
                            return Err(problem(
                                "mask",
                                format!(
                                    "mask row {r} has {other:?}; use o for a hole and . for none"
                                ),
                            ));
                        }
                    }
                }
            }
            let coords = grid.iter().map(|&(r, c)| [c as f64, r as f64]).collect();
            (grid.len(), coords, Some(grid))
        }
    };
    if holes > 64 {
        return Err(problem(
            if grid.is_some() { "mask" } else { "jumps" },
            format!("the board has {holes} holes; a bitboard holds at most 64"),
        ));
    }
    if holes == 0 {
        return Err(problem("name", "the board has no holes"));
    }
    let hole = |key: &'static str, v: &Option<usize>, what: &str| -> Result<usize, Problem> {
        let h = *required(v, key, what)?;
        if h >= holes {
            return Err(problem(
                key,
                format!("{key} {h} is not a hole (holes are 0..={})", holes - 1),
            ));
        }
        Ok(h)
    };
    let start = hole(
        "start_hole",
        &spec.start_hole,
        "the hole empty at the start",
    )?;
    let finish = hole("finish_hole", &spec.finish_hole, "the hole of the last peg")?;
    let tabulate = spec.tabulate.unwrap_or(true);
    if tabulate && holes > MAX_TABULATED_HOLES {
        return Err(problem(
            if spec.tabulate.is_some() {
                "tabulate"
            } else {
                "name"
            },
            format!(
                "a board of {holes} holes has up to 2^{holes} positions, too large to tabulate \
                 (at most {MAX_TABULATED_HOLES} holes); set tabulate = false"
            ),
        ));
    }
    let matrix = spec.matrix.unwrap_or(holes <= MATRIX_MAX_HOLES);
    if matrix && holes > MATRIX_MAX_HOLES {
        return Err(problem(
            "matrix",
            format!(
                "the matrix solves every start hole; at most {MATRIX_MAX_HOLES} holes, this board has {holes}"
            ),
        ));
    }
    let mut board = match grid {
        None => {
            let table = spec.jumps.as_ref().expect("checked above");
            let mut rows = Vec::with_capacity(holes);
            for (from, list) in table.iter().enumerate() {
                let mut row = Vec::with_capacity(list.len());
                for &[over, to] in list {
                    if over >= holes || to >= holes {
                        return Err(problem(
                            "jumps",
                            format!(
                                "hole {from}: the jump over {over} to {to} leaves the board (holes are 0..={})",
                                holes - 1
                            ),
                        ));
                    }
                    if over == from || to == from || over == to {
                        return Err(problem(
                            "jumps",
                            format!(
                                "hole {from}: the jump over {over} to {to} needs three different holes"
                            ),
                        ));
                    }
                    row.push((over as u8, to as u8));
                }
                rows.push(row);
            }
            Board::from_table(name, &rows, start, finish, tabulate)
        }
        Some(grid) => {
            let dirs: Vec<(i8, i8)> = match &spec.directions {
                None => vec![(-1, 0), (1, 0), (0, -1), (0, 1)],
                Some(d) => d
                    .iter()
                    .map(|&[dr, dc]| {
                        if (dr, dc) == (0, 0) || dr.abs() > 8 || dc.abs() > 8 {
                            Err(problem(
                                "directions",
                                format!("direction [{dr}, {dc}] is not a step between holes"),
                            ))
                        } else {
                            Ok((dr as i8, dc as i8))
                        }
                    })
                    .collect::<Result<_, _>>()?,
            };
            if grid.iter().any(|&(r, c)| r > 255 || c > 255) {
                return Err(problem("mask", "the mask is wider or taller than 256"));
            }
            let coords = grid.iter().map(|&(r, c)| (r as u8, c as u8)).collect();
            Board::from_grid(name, coords, &dirs, start, finish, tabulate)
        }
    };
    board.matrix = matrix;
    board.layers = match spec.storage.as_deref() {
        None | Some("rows") if holes <= MAX_TABULATED_ROWS => false,
        None => true,
        Some("layers") => true,
        Some("rows") => {
            return Err(problem(
                "storage",
                format!(
                    "a board of {holes} holes is stored as layers (rows up to {MAX_TABULATED_ROWS} holes)"
                ),
            ));
        }
        Some(other) => {
            return Err(problem(
                "storage",
                format!("storage {other:?}: use \"rows\" or \"layers\""),
            ));
        }
    };
    check_jump_structure(&board)?;
    let mut adjacency = vec![Vec::new(); holes];
    for j in &board.jumps {
        adjacency[j.from as usize].push(j.over as usize);
        adjacency[j.over as usize].push(j.to as usize);
    }
    Ok(board.with_source(source(spec, coords, &adjacency)))
}

/// Every hole lies on a jump line and the lines connect all holes. A hole on no line
/// could never change, and the symmetry search of a board in separate pieces grows with
/// the factorial of the number of pieces.
fn check_jump_structure(board: &Board) -> Result<(), Problem> {
    let mut seen = vec![false; board.holes];
    linked_by_jumps(&board.jumps, 0, &mut seen, &mut Vec::new());
    let key = if board.coordinates.is_some() {
        "mask"
    } else {
        "jumps"
    };
    match seen.iter().position(|&s| !s) {
        None => Ok(()),
        Some(h) => Err(problem(
            key,
            format!("hole {h} is not connected to hole 0 by jump lines"),
        )),
    }
}
