//! The definition of a sliding-block puzzle: the board (`rows`, `cols`, `walls`), the
//! pieces (rectangles with a start cell, a way of moving and an optional letter that
//! groups interchangeable pieces), the `metric` and the `goal`, checked and built into a
//! [`Blocks`] engine. Every refusal is one [`Problem`] naming its key.

use serde::Deserialize;

use super::{Blocks, Group, MAX_CELLS, MAX_PLACEMENTS, Metric, Moves, Pieces, placements};
use crate::spec::{Problem, Spec, common, graph_ask, graph_storage, problem, required};
use crate::{Family, Puzzle};
use puzzlebase_core::definition::{Source, layout};

/// The `blocks` family in the registry.
pub const FAMILY: Family = Family {
    name: "blocks",
    keys: &[
        "rows", "cols", "walls", "pieces", "metric", "goal", "storage",
    ],
    build: |spec| Ok(Puzzle::Graph(Box::new(blocks(spec)?))),
};

/// The family's own keys (`rows`, `cols` and `goal` are shared ones, fields of [`Spec`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    pieces: Vec<PieceKey>,
    #[serde(default)]
    walls: Vec<[usize; 2]>,
    metric: String,
}

/// One `[[pieces]]` entry.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PieceKey {
    /// Height in rows.
    h: usize,
    /// Width in columns.
    w: usize,
    /// The start: `[row, column]` of the top-left cell, from 0.
    at: [usize; 2],
    /// `free` (default), `row` or `column`.
    #[serde(default)]
    moves: Option<String>,
    /// The notation's letter; pieces with one letter are interchangeable.
    #[serde(default)]
    letter: Option<String>,
}

/// The letters a group may take, in the order the unlettered groups get them.
const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

pub fn blocks(spec: &Spec) -> Result<Blocks, Problem> {
    common(spec, FAMILY.keys)?;
    let keys: Keys = spec.own_keys(FAMILY.keys)?;
    let rows = *required(&spec.rows, "rows", "the board's rows")?;
    let cols = *required(&spec.cols, "cols", "the board's columns")?;
    if rows == 0 || cols == 0 || rows.checked_mul(cols).is_none_or(|n| n > MAX_CELLS) {
        return Err(problem(
            "rows",
            format!("a {rows}x{cols} board is not 1 to {MAX_CELLS} cells"),
        ));
    }
    let metric = match keys.metric.as_str() {
        "step" => Metric::Step,
        "straight" => Metric::Straight,
        "path" => Metric::Path,
        other => {
            return Err(problem(
                "metric",
                format!("unknown metric {other:?}: use step, straight or path"),
            ));
        }
    };
    let mut wall = vec![false; rows * cols];
    for &[r, c] in &keys.walls {
        if r >= rows || c >= cols {
            return Err(problem(
                "walls",
                format!("wall [{r}, {c}] is off the {rows}x{cols} board (rows and columns from 0)"),
            ));
        }
        if std::mem::replace(&mut wall[r * cols + c], true) {
            return Err(problem("walls", format!("wall [{r}, {c}] is listed twice")));
        }
    }
    let (groups, start) = groups(&keys.pieces, rows, cols, &wall)?;
    // Codes 1..=groups, and 0 for a cell that is no piece's corner.
    let bits = usize::BITS - groups.len().leading_zeros();
    if (rows * cols) as u32 * bits > 128 {
        return Err(problem(
            "pieces",
            format!(
                "{} groups of pieces on {} cells: a placement takes {} bits, more than the 128 the table packs",
                groups.len(),
                rows * cols,
                (rows * cols) as u32 * bits
            ),
        ));
    }
    let table = placements(rows, cols, &wall, &groups, bits, MAX_PLACEMENTS).ok_or_else(|| {
        problem(
            "pieces",
            format!("more than {MAX_PLACEMENTS} placements of the pieces; too many for the table"),
        )
    })?;
    let storage = graph_ask(spec, "a sliding-block puzzle")?;
    graph_storage(Some(table.len() as u64), storage, "pieces")?;
    let goal_text = required(
        &spec.goal,
        "goal",
        "where a piece must be, `LETTER at ROW,COL`",
    )?;
    let goal_at = goal(goal_text, rows, cols, &wall, &groups)?;
    let source = Source::new(
        serde_json::to_value(spec).unwrap_or(serde_json::Value::Null),
        grid_layout(rows, cols, &wall),
    );
    let mut b = Blocks {
        name: spec.name.clone(),
        rows,
        cols,
        wall,
        groups,
        metric,
        bits,
        table,
        start: 0,
        goals: Vec::new(),
        goal_text: goal_text.clone(),
        storage,
        source,
    };
    let key = b.key_of(&start);
    b.start = b
        .rank_of(key)
        .ok_or_else(|| problem("pieces", "the start is not a placement of the pieces"))?;
    b.goals = (0..b.table.len())
        .filter(|&r| {
            let pieces = b.pieces_of(b.table[r]);
            goal_at.iter().all(|want| pieces.contains(want))
        })
        .map(|r| r as u64)
        .collect();
    if b.goals.is_empty() {
        return Err(problem(
            "goal",
            format!("goal {goal_text:?}: no placement of the pieces meets it"),
        ));
    }
    Ok(b)
}

/// The drawing of a `rows` x `cols` board, row by row: a cell a unit square, the edges
/// joining neighbouring cells that are not walls (`wall`, a flag per cell).
pub(super) fn grid_layout(rows: usize, cols: usize, wall: &[bool]) -> serde_json::Value {
    let coords = (0..rows * cols).map(|i| [(i % cols) as f64, (i / cols) as f64]);
    let adjacency: Vec<Vec<usize>> = (0..rows * cols)
        .map(|i| {
            let (r, c) = (i / cols, i % cols);
            let mut v = Vec::new();
            if c + 1 < cols && !wall[i] && !wall[i + 1] {
                v.push(i + 1);
            }
            if r + 1 < rows && !wall[i] && !wall[i + cols] {
                v.push(i + cols);
            }
            v
        })
        .collect();
    layout(coords, &adjacency)
}

/// The groups of interchangeable pieces and the start (each piece's group and top-left
/// cell), checked on the board: no piece off it, on a wall or over another.
fn groups(
    pieces: &[PieceKey],
    rows: usize,
    cols: usize,
    wall: &[bool],
) -> Result<(Vec<Group>, Pieces), Problem> {
    if pieces.is_empty() {
        return Err(problem("pieces", "no pieces: give at least one [[pieces]]"));
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut of_piece = Vec::new();
    let explicit: Vec<char> = pieces
        .iter()
        .filter_map(|p| p.letter.as_ref()?.chars().next())
        .collect();
    let mut spare = LETTERS.chars().filter(|l| !explicit.contains(l));
    let mut owner = vec![usize::MAX; rows * cols];
    for (i, p) in pieces.iter().enumerate() {
        let n = i + 1;
        let moves = match p.moves.as_deref() {
            None | Some("free") => Moves::Free,
            Some("row") => Moves::Row,
            Some("column") => Moves::Column,
            Some(other) => {
                return Err(problem(
                    "pieces",
                    format!("piece {n}: moves {other:?}; use free, row or column"),
                ));
            }
        };
        if p.h == 0 || p.w == 0 {
            return Err(problem(
                "pieces",
                format!("piece {n} is {}x{}: no cells", p.h, p.w),
            ));
        }
        let [r, c] = p.at;
        if r + p.h > rows || c + p.w > cols {
            return Err(problem(
                "pieces",
                format!(
                    "piece {n} ({}x{} at [{r}, {c}]) is off the {rows}x{cols} board",
                    p.h, p.w
                ),
            ));
        }
        for y in r..r + p.h {
            for x in c..c + p.w {
                if wall[y * cols + x] {
                    return Err(problem(
                        "pieces",
                        format!("piece {n} covers the wall at [{y}, {x}]"),
                    ));
                }
                if owner[y * cols + x] != usize::MAX {
                    return Err(problem(
                        "pieces",
                        format!(
                            "piece {n} overlaps piece {} at [{y}, {x}]",
                            owner[y * cols + x] + 1
                        ),
                    ));
                }
                owner[y * cols + x] = i;
            }
        }
        // A new group of this piece's shape and moves, under `letter`: its index.
        let new_group = |groups: &mut Vec<Group>, letter| {
            groups.push(Group {
                letter,
                h: p.h,
                w: p.w,
                moves,
                count: 0,
            });
            groups.len() - 1
        };
        let g = match &p.letter {
            Some(text) => {
                let mut chars = text.chars();
                let letter = match (chars.next(), chars.next()) {
                    (Some(l), None) if l.is_ascii_alphanumeric() => l,
                    _ => {
                        return Err(problem(
                            "pieces",
                            format!("piece {n}: letter {text:?} must be one letter or digit"),
                        ));
                    }
                };
                match groups.iter().position(|g| g.letter == letter) {
                    Some(g) if (groups[g].h, groups[g].w, groups[g].moves) != (p.h, p.w, moves) => {
                        return Err(problem(
                            "pieces",
                            format!(
                                "piece {n} has letter {letter:?} but not the shape and moves of the others with it ({}x{} {})",
                                groups[g].h,
                                groups[g].w,
                                groups[g].moves.as_str()
                            ),
                        ));
                    }
                    Some(g) => g,
                    None => new_group(&mut groups, letter),
                }
            }
            // Unlettered pieces of one shape and way of moving are interchangeable;
            // their group takes the first letter no piece names.
            None => {
                let same = |g: &Group| {
                    (g.h, g.w, g.moves) == (p.h, p.w, moves) && !explicit.contains(&g.letter)
                };
                match groups.iter().position(same) {
                    Some(g) => g,
                    None => {
                        let letter = spare.next().ok_or_else(|| {
                            problem("pieces", format!("piece {n}: no letter left for its group"))
                        })?;
                        new_group(&mut groups, letter)
                    }
                }
            }
        };
        groups[g].count += 1;
        of_piece.push((g, r * cols + c));
    }
    Ok((groups, of_piece))
}

/// The goal `LETTER at ROW,COL` (clauses joined by `and`): a piece of that group with
/// its top-left cell there, as (group, cell) pairs.
fn goal(
    text: &str,
    rows: usize,
    cols: usize,
    wall: &[bool],
    groups: &[Group],
) -> Result<Vec<(usize, usize)>, Problem> {
    let mut out = Vec::new();
    for clause in text.split(" and ") {
        let bad = || {
            problem(
                "goal",
                format!(
                    "goal {text:?}: write `LETTER at ROW,COL` (the top-left cell, from 0), clauses joined by `and`"
                ),
            )
        };
        let (letter, place) = clause.trim().split_once(" at ").ok_or_else(bad)?;
        let (r, c) = place.split_once(',').ok_or_else(bad)?;
        let r: usize = r.trim().parse().map_err(|_| bad())?;
        let c: usize = c.trim().parse().map_err(|_| bad())?;
        let letter = letter.trim();
        let Some(g) = groups.iter().position(|g| g.letter.to_string() == letter) else {
            let letters: String = groups.iter().map(|g| g.letter).collect();
            return Err(problem(
                "goal",
                format!(
                    "goal {text:?}: {letter:?} is no piece's letter (the pieces are {letters})"
                ),
            ));
        };
        let Group { h, w, .. } = groups[g];
        if r + h > rows
            || c + w > cols
            || (r..r + h).any(|y| (c..c + w).any(|x| wall[y * cols + x]))
        {
            return Err(problem(
                "goal",
                format!(
                    "goal {text:?}: a {h}x{w} piece at [{r}, {c}] is off the board or on a wall"
                ),
            ));
        }
        out.push((g, r * cols + c));
    }
    Ok(out)
}
