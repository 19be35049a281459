//! Puzzles as data: the definition files (`data/puzzles/*.toml`, compiled in, and users'
//! own files), their checking, and the construction of the engines from them.
//!
//! A file is read into a [`Spec`] (one flat set of keys, the `family` saying which apply),
//! then [`build`] checks it against its family's rules and constructs the engine
//! ([`Sliding`], [`KnightSwap`], [`Oshidori`], [`Board`], [`TourBoard`], [`Magic`]). Every
//! problem is reported as a [`DefinitionError`] naming the file, the line and the problem;
//! nothing here panics on a user's file. The spec and a drawing layout (cell coordinates
//! and connections) go into the stored definition JSON (keys `spec` and `layout`), so a
//! database rebuilds any of its puzzles without the file ([`crate::puzzles::Puzzle::from_definition`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::enumerate::magic::{self, Magic};
use crate::enumerate::tour::TourBoard;
use crate::packed::RunLayout;
use crate::peg::Board;
use crate::peg::board::MATRIX_MAX_HOLES;
use crate::puzzles::Puzzle;
use crate::puzzles::fifteen::{Fifteen, Partition, TABLE_KINDS};
use crate::puzzles::knights::{self, KnightSwap};
use crate::puzzles::oshidori::{self, Oshidori};
use crate::puzzles::sliding::{self, Sliding};
use crate::space::{GraphPuzzle, StateSpace};

/// The built-in definition files, in the order `generate` builds them.
const BUILTIN: &[(&str, &str)] = &[
    ("six", include_str!("../data/puzzles/six.toml")),
    ("seven", include_str!("../data/puzzles/seven.toml")),
    ("eight", include_str!("../data/puzzles/eight.toml")),
    ("nine", include_str!("../data/puzzles/nine.toml")),
    ("eleven", include_str!("../data/puzzles/eleven.toml")),
    ("twelve", include_str!("../data/puzzles/twelve.toml")),
    (
        "knight-swap",
        include_str!("../data/puzzles/knight-swap.toml"),
    ),
    ("oshidori", include_str!("../data/puzzles/oshidori.toml")),
    (
        "chinese-checkers",
        include_str!("../data/puzzles/chinese-checkers.toml"),
    ),
    ("hoppers", include_str!("../data/puzzles/hoppers.toml")),
    (
        "triangle21",
        include_str!("../data/puzzles/triangle21.toml"),
    ),
    ("english33", include_str!("../data/puzzles/english33.toml")),
    ("french37", include_str!("../data/puzzles/french37.toml")),
    ("board41", include_str!("../data/puzzles/board41.toml")),
    (
        "magic-triangle",
        include_str!("../data/puzzles/magic-triangle.toml"),
    ),
    (
        "knight-tour",
        include_str!("../data/puzzles/knight-tour.toml"),
    ),
    (
        "knight-tour-6x6",
        include_str!("../data/puzzles/knight-tour-6x6.toml"),
    ),
    ("fifteen", include_str!("../data/puzzles/fifteen.toml")),
];

/// Move graphs with at most this many ranks may be stored a row per position (the solver
/// holds 13 bytes per rank; the rows take some 50 bytes each on disk).
pub const MAX_POSITION_RANKS: u64 = 1 << 26;
/// Move graphs stored packed may have at most this many ranks (a byte per rank while
/// solving; `eleven` has 239,500,800).
pub const MAX_PACKED_RANKS: u64 = 1 << 31;
/// Most holes of a board that is tabulated: `english33` (187,636,299 reachable positions,
/// 1.2 GB while solving) is the largest this machine builds; `french37`'s reachable set
/// runs into billions.
pub const MAX_TABULATED_HOLES: usize = 33;
/// Most squares of a tour board: the number of tours grows too fast beyond (an 8x8
/// board has about 1.3 x 10^13 closed tours).
pub const MAX_TOUR_SQUARES: usize = 40;

/// The families a file can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Sliding,
    Tokens,
    Oshidori,
    Peg,
    Tour,
    Magic,
}

const FAMILIES: &str = "sliding, tokens, oshidori, peg, tour, magic";

/// How pieces move between cells with integer coordinates `[x, y]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveRule {
    /// Two cells along one axis and one along the other.
    Knight,
    /// One cell in any of the eight directions.
    King,
    /// One cell along one axis.
    Orthogonal,
}

impl MoveRule {
    fn joins(self, a: [f64; 2], b: [f64; 2]) -> bool {
        let (dx, dy) = ((a[0] - b[0]).abs(), (a[1] - b[1]).abs());
        match self {
            MoveRule::Knight => (dx == 1.0 && dy == 2.0) || (dx == 2.0 && dy == 1.0),
            MoveRule::King => dx.max(dy) == 1.0 && dx.fract() == 0.0 && dy.fract() == 0.0,
            MoveRule::Orthogonal => dx + dy == 1.0 && dx.fract() == 0.0,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            MoveRule::Knight => "knight's moves",
            MoveRule::King => "king's moves",
            MoveRule::Orthogonal => "orthogonal steps",
        }
    }
}

/// A definition file: every key any family uses; [`build`] checks which apply. Serialised
/// (without absent keys) into the stored definition as `spec`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Identifier on the command line and in the database: lower-case letters, digits, `-`.
    pub name: String,
    pub family: Family,
    /// Grid size (sliding, tokens, tour): cells row-major, at `[column, row]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cols: Option<usize>,
    /// Coordinates `[x, y]` of each cell, hole or position, in index order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cells: Option<Vec<[f64; 2]>>,
    /// For each cell, the cells one move away.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjacency: Option<Vec<Vec<usize>>>,
    /// The connections as pairs of cells, instead of `adjacency`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edges: Option<Vec<[usize; 2]>>,
    /// A move rule deriving the adjacency from integer coordinates, or a tour's piece.
    #[serde(default, rename = "move", skip_serializing_if = "Option::is_none")]
    pub rule: Option<MoveRule>,
    /// Tour boards: cells `[row, column]` of the rectangle that are not squares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<Vec<[usize; 2]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// Oshidori: the number of cells (checked against the start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<usize>,
    /// Peg: per hole, its jumps as `[over, to]`, as the seeds print them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jumps: Option<Vec<Vec<[usize; 2]>>>,
    /// Peg: the board drawn row by row, `o` a hole, `.` none; holes numbered row-major.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask: Option<Vec<String>>,
    /// Peg with a mask: jump directions `[row step, column step]` (default orthogonal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directions: Option<Vec<[i64; 2]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_hole: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_hole: Option<usize>,
    /// Peg: whether `generate` builds the table (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tabulate: Option<bool>,
    /// Peg: whether the start x finish matrix is built (default: up to 21 holes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<bool>,
    /// Magic: the numbers placed (distinct digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numbers: Option<Vec<u8>>,
    /// Magic: the lines whose sums must be equal, as positions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<Vec<usize>>>,
    /// Sliding, answered by search: partitions of the tiles into disjoint patterns, by
    /// name; a pattern database is stored per pattern of the built partitions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitions: Option<BTreeMap<String, Vec<Vec<u8>>>>,
    /// Sliding with partitions: the one `generate` builds unless told otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_partition: Option<String>,
}

/// A definition that cannot be used: the file, the line (when known) and the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinitionError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for DefinitionError {}

/// A problem with one key of a spec; [`load`] turns it into a line of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub key: &'static str,
    pub message: String,
}

fn problem(key: &'static str, message: impl Into<String>) -> Problem {
    Problem {
        key,
        message: message.into(),
    }
}

/// The definition file's contents and the drawing layout, carried by an engine built
/// from a file and added to its definition JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Source {
    spec: Value,
    layout: Value,
}

impl Source {
    /// Adds `layout` and `spec` to a definition (nothing for an engine built in code).
    pub fn annotate(&self, definition: &mut Value) {
        if let Value::Object(map) = definition
            && !self.spec.is_null()
        {
            map.insert("layout".into(), self.layout.clone());
            map.insert("spec".into(), self.spec.clone());
        }
    }
}

/// The drawing layout: `{"cells": [[x, y], ...], "edges": [[a, b], ...]}`, edges once
/// each with `a < b`, sorted.
pub fn layout<T: Copy>(cells: impl IntoIterator<Item = [f64; 2]>, adjacency: &[Vec<T>]) -> Value
where
    usize: From<T>,
{
    let mut edges = BTreeSet::new();
    for (a, list) in adjacency.iter().enumerate() {
        for &b in list {
            let b = usize::from(b);
            edges.insert([a.min(b), a.max(b)]);
        }
    }
    let cells: Vec<[f64; 2]> = cells.into_iter().collect();
    json!({ "cells": cells, "edges": edges.into_iter().collect::<Vec<_>>() })
}

/// Names live as long as the process (engines hold `&'static str`); each distinct name
/// is allocated once however often its definition is read.
pub fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&n) = names.get(name) {
        return n;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    leaked
}

/// The first line of `text` that sets top-level `key` (or opens it as a table,
/// `[key]`), counted from 1.
fn line_of(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let l = l.trim_start();
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
                || l.trim_end() == format!("[{key}]")
        })
        .map(|i| i + 1)
}

fn line_at(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Reads a definition file's text into a [`Spec`] without checking the family's rules.
pub fn parse(file: &str, text: &str) -> Result<Spec, DefinitionError> {
    let err = |line: Option<usize>, message: String| DefinitionError {
        file: file.to_string(),
        line,
        message,
    };
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        err(
            e.span().map(|s| line_at(text, s.start)),
            e.message().trim().to_string(),
        )
    })?;
    match table.get("family") {
        None => return Err(err(None, "missing key `family`".into())),
        Some(toml::Value::String(f)) => {
            if toml::Value::String(f.clone()).try_into::<Family>().is_err() {
                return Err(err(
                    line_of(text, "family"),
                    format!("unknown family {f:?}; known families: {FAMILIES}"),
                ));
            }
        }
        Some(_) => {
            return Err(err(
                line_of(text, "family"),
                "`family` must be a string".into(),
            ));
        }
    }
    toml::from_str::<Spec>(text).map_err(|e| {
        err(
            e.span().map(|s| line_at(text, s.start)),
            e.message().trim().to_string(),
        )
    })
}

/// Reads and checks a definition file, building its puzzle.
pub fn load(file: &str, text: &str) -> Result<(Spec, Puzzle), DefinitionError> {
    let spec = parse(file, text)?;
    let puzzle = build(&spec).map_err(|p| DefinitionError {
        file: file.to_string(),
        line: line_of(text, p.key),
        message: p.message,
    })?;
    Ok((spec, puzzle))
}

/// Reads and checks the file at `path`.
pub fn load_file(path: &Path) -> Result<(Spec, Puzzle), DefinitionError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| DefinitionError {
        file: file.clone(),
        line: None,
        message: e.to_string(),
    })?;
    load(&file, &text)
}

/// Every `*.toml` file in `dir`, in file-name order, read and checked; a name that is
/// built in or appears in two files is an error.
pub fn load_dir(dir: &Path) -> Result<Vec<Puzzle>, DefinitionError> {
    let file = dir.display().to_string();
    let io = |e: std::io::Error| DefinitionError {
        file: file.clone(),
        line: None,
        message: e.to_string(),
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    paths.retain(|p| p.extension().is_some_and(|e| e == "toml") && p.is_file());
    paths.sort();
    let mut out: Vec<Puzzle> = Vec::new();
    let mut seen: Vec<(String, PathBuf)> = Vec::new();
    for path in paths {
        let (spec, puzzle) = load_file(&path)?;
        if crate::puzzles::definitions_builtin(&spec.name) {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            return Err(DefinitionError {
                file: path.display().to_string(),
                line: line_of(&text, "name"),
                message: format!(
                    "puzzle {:?} is a built-in puzzle; choose another name",
                    spec.name
                ),
            });
        }
        if let Some((_, other)) = seen.iter().find(|(n, _)| *n == spec.name) {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            return Err(DefinitionError {
                file: path.display().to_string(),
                line: line_of(&text, "name"),
                message: format!(
                    "puzzle {:?} is also defined in {}",
                    spec.name,
                    other.display()
                ),
            });
        }
        seen.push((spec.name.clone(), path));
        out.push(puzzle);
    }
    Ok(out)
}

/// The built-in files' names, in build order (including boards not tabulated).
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().map(|(n, _)| *n)
}

/// The spec of a built-in puzzle.
pub fn builtin_spec(name: &str) -> Option<Spec> {
    let (n, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
    parse(&format!("data/puzzles/{n}.toml"), text).ok()
}

/// Every built-in spec, in build order.
pub fn builtin_specs() -> Vec<Spec> {
    builtin_names().filter_map(builtin_spec).collect()
}

/// Builds a built-in puzzle. The files are part of the program and checked by its tests.
pub fn builtin_puzzle(spec: &Spec) -> Puzzle {
    build(spec).unwrap_or_else(|p| {
        panic!(
            "built-in definition {} is invalid: {}: {}",
            spec.name, p.key, p.message
        )
    })
}

/// The built-in peg boards, in build order.
pub fn builtin_boards() -> Vec<Board> {
    builtin_specs()
        .iter()
        .filter(|s| s.family == Family::Peg)
        .filter_map(|s| board(s).ok())
        .collect()
}

/// One built-in peg board by name.
pub fn builtin_board(name: &str) -> Option<Board> {
    builtin_spec(name)
        .filter(|s| s.family == Family::Peg)
        .and_then(|s| board(&s).ok())
}

/// The built-in tour boards, in build order.
pub fn builtin_tours() -> Vec<TourBoard> {
    builtin_specs()
        .iter()
        .filter(|s| s.family == Family::Tour)
        .filter_map(|s| tour(s).ok())
        .collect()
}

/// The spec of a tour board (its definition holds nothing else).
pub fn tour_spec(b: &TourBoard) -> Value {
    let spec = Spec {
        rows: Some(b.rows),
        cols: Some(b.cols),
        missing: (!b.missing.is_empty()).then(|| b.missing.iter().map(|&(r, c)| [r, c]).collect()),
        rule: Some(MoveRule::Knight),
        ..empty(b.name, Family::Tour)
    };
    serde_json::to_value(spec).unwrap_or(Value::Null)
}

fn empty(name: &str, family: Family) -> Spec {
    Spec {
        name: name.to_string(),
        family,
        rows: None,
        cols: None,
        cells: None,
        adjacency: None,
        edges: None,
        rule: None,
        missing: None,
        start: None,
        goal: None,
        length: None,
        jumps: None,
        mask: None,
        directions: None,
        start_hole: None,
        finish_hole: None,
        tabulate: None,
        matrix: None,
        numbers: None,
        lines: None,
        partitions: None,
        default_partition: None,
    }
}

/// Checks a spec against its family's rules and builds the puzzle. A peg board that is
/// not tabulated is built too (it is a definition of its own).
pub fn build(spec: &Spec) -> Result<Puzzle, Problem> {
    Ok(match spec.family {
        Family::Sliding if spec.partitions.is_some() => Puzzle::Patterns(patterns(spec)?),
        Family::Sliding => Puzzle::Graph(Box::new(sliding(spec)?)),
        Family::Tokens => Puzzle::Graph(Box::new(tokens(spec)?)),
        Family::Oshidori => Puzzle::Graph(Box::new(oshidori(spec)?)),
        Family::Peg => Puzzle::Peg(board(spec)?),
        Family::Tour => Puzzle::Tour(tour(spec)?),
        Family::Magic => Puzzle::Magic(magic(spec)?),
    })
}

/// Keys a family reads besides `name` and `family`.
fn allowed(family: Family) -> &'static [&'static str] {
    match family {
        Family::Sliding => &[
            "rows",
            "cols",
            "cells",
            "adjacency",
            "edges",
            "move",
            "goal",
            "partitions",
            "default_partition",
        ],
        Family::Tokens => &[
            "rows",
            "cols",
            "cells",
            "adjacency",
            "edges",
            "move",
            "start",
            "goal",
        ],
        Family::Oshidori => &["length", "start", "goal"],
        Family::Peg => &[
            "cells",
            "jumps",
            "mask",
            "directions",
            "start_hole",
            "finish_hole",
            "tabulate",
            "matrix",
        ],
        Family::Tour => &["rows", "cols", "missing", "move"],
        Family::Magic => &["cells", "numbers", "lines"],
    }
}

fn family_name(f: Family) -> &'static str {
    match f {
        Family::Sliding => "sliding",
        Family::Tokens => "tokens",
        Family::Oshidori => "oshidori",
        Family::Peg => "peg",
        Family::Tour => "tour",
        Family::Magic => "magic",
    }
}

/// The name's form, and no key that the family does not read.
fn common(spec: &Spec) -> Result<(), Problem> {
    let n = &spec.name;
    if n.is_empty()
        || n.len() > 64
        || !n
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(problem(
            "name",
            format!("name {n:?} must be 1 to 64 lower-case letters, digits or '-'"),
        ));
    }
    let present: [(&'static str, bool); 21] = [
        ("rows", spec.rows.is_some()),
        ("cols", spec.cols.is_some()),
        ("cells", spec.cells.is_some()),
        ("adjacency", spec.adjacency.is_some()),
        ("edges", spec.edges.is_some()),
        ("move", spec.rule.is_some()),
        ("missing", spec.missing.is_some()),
        ("start", spec.start.is_some()),
        ("goal", spec.goal.is_some()),
        ("length", spec.length.is_some()),
        ("jumps", spec.jumps.is_some()),
        ("mask", spec.mask.is_some()),
        ("directions", spec.directions.is_some()),
        ("start_hole", spec.start_hole.is_some()),
        ("finish_hole", spec.finish_hole.is_some()),
        ("tabulate", spec.tabulate.is_some()),
        ("matrix", spec.matrix.is_some()),
        ("numbers", spec.numbers.is_some()),
        ("lines", spec.lines.is_some()),
        ("partitions", spec.partitions.is_some()),
        ("default_partition", spec.default_partition.is_some()),
    ];
    if let Some(cells) = &spec.cells
        && let Some(i) = cells
            .iter()
            .position(|c| !c[0].is_finite() || !c[1].is_finite())
    {
        return Err(problem(
            "cells",
            format!("the coordinates of cell {i} are not finite numbers"),
        ));
    }
    let ok = allowed(spec.family);
    if let Some((key, _)) = present.iter().find(|(k, p)| *p && !ok.contains(k)) {
        return Err(problem(
            key,
            format!(
                "key `{key}` does not apply to the {} family (it reads: {})",
                family_name(spec.family),
                ok.join(", ")
            ),
        ));
    }
    Ok(())
}

fn required<'a, T>(v: &'a Option<T>, key: &'static str, what: &str) -> Result<&'a T, Problem> {
    v.as_ref()
        .ok_or_else(|| problem(key, format!("missing key `{key}` ({what})")))
}

/// The cells (coordinates) and adjacency of a sliding or tokens puzzle: a grid or
/// explicit cells, and an explicit adjacency or a move rule; the adjacency is checked.
fn cell_graph(
    spec: &Spec,
    default_rule: Option<MoveRule>,
) -> Result<(Vec<[f64; 2]>, Vec<Vec<usize>>), Problem> {
    let coords: Vec<[f64; 2]> = match (spec.rows, spec.cols, &spec.cells) {
        (Some(_), Some(_), Some(_)) => {
            return Err(problem("cells", "give either `rows` and `cols` or `cells`"));
        }
        (Some(r), Some(c), None) => {
            if r == 0 || c == 0 || r.checked_mul(c).is_none_or(|n| n > 64) {
                return Err(problem(
                    "rows",
                    format!("a {r}x{c} grid is not 1 to 64 cells"),
                ));
            }
            (0..r * c)
                .map(|i| [(i % c) as f64, (i / c) as f64])
                .collect()
        }
        (Some(_), None, _) => return Err(problem("rows", "`rows` needs `cols`")),
        (None, Some(_), _) => return Err(problem("cols", "`cols` needs `rows`")),
        (None, None, Some(cells)) => cells.clone(),
        (None, None, None) => {
            return Err(problem(
                "name",
                "missing key `cells` (or `rows` and `cols`): the cells' coordinates",
            ));
        }
    };
    let n = coords.len();
    if n > 64 {
        return Err(problem("cells", format!("{n} cells; at most 64")));
    }
    let given = [
        ("adjacency", spec.adjacency.is_some()),
        ("edges", spec.edges.is_some()),
        ("move", spec.rule.is_some()),
    ];
    if given.iter().filter(|(_, g)| *g).count() > 1 {
        let key = given
            .iter()
            .rev()
            .find(|(_, g)| *g)
            .map_or("move", |(k, _)| *k);
        return Err(problem(key, "give one of `adjacency`, `edges` or `move`"));
    }
    let adjacency = if let Some(adj) = &spec.adjacency {
        adj.clone()
    } else if let Some(edges) = &spec.edges {
        let mut adj = vec![Vec::new(); n];
        for &[a, b] in edges {
            if a >= n || b >= n {
                return Err(problem(
                    "edges",
                    format!(
                        "edge {a}-{b} names a cell that does not exist (cells are 0..={})",
                        n - 1
                    ),
                ));
            }
            if a == b {
                return Err(problem("edges", format!("cell {a} is adjacent to itself")));
            }
            if adj[a].contains(&b) {
                return Err(problem("edges", format!("edge {a}-{b} is listed twice")));
            }
            adj[a].push(b);
            adj[b].push(a);
        }
        adj.iter_mut().for_each(|l| l.sort_unstable());
        adj
    } else if let Some(rule) = spec.rule.or(default_rule) {
        (0..n)
            .map(|a| {
                (0..n)
                    .filter(|&b| b != a && rule.joins(coords[a], coords[b]))
                    .collect()
            })
            .collect()
    } else {
        return Err(problem(
            "cells",
            "missing key `adjacency`, `edges` or `move` (knight, king or orthogonal)",
        ));
    };
    check_adjacency(&adjacency, n)?;
    Ok((coords, adjacency))
}

fn check_adjacency(adj: &[Vec<usize>], n: usize) -> Result<(), Problem> {
    if adj.len() != n {
        return Err(problem(
            "adjacency",
            format!("adjacency has {} entries for {n} cells", adj.len()),
        ));
    }
    for (a, list) in adj.iter().enumerate() {
        for (i, &b) in list.iter().enumerate() {
            if b == a {
                return Err(problem(
                    "adjacency",
                    format!("cell {a} is adjacent to itself"),
                ));
            }
            if b >= n {
                return Err(problem(
                    "adjacency",
                    format!(
                        "cell {a} is adjacent to {b}, which is not a cell (cells are 0..={})",
                        n - 1
                    ),
                ));
            }
            if list[..i].contains(&b) {
                return Err(problem("adjacency", format!("cell {a} lists {b} twice")));
            }
            if !adj[b].contains(&a) {
                return Err(problem(
                    "adjacency",
                    format!(
                        "edge {a}-{b} is not symmetric: cell {a} lists {b} but cell {b} does not list {a}"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// How a move graph is stored, and whether its size allows it.
fn graph_storage(
    size: Option<u64>,
    packing: Option<&RunLayout>,
    key: &'static str,
) -> Result<&'static str, Problem> {
    let Some(size) = size else {
        return Err(problem(
            key,
            "the state space has more than 2^64 ranks; too large for any storage",
        ));
    };
    let packed = size > crate::records::PACK_ABOVE && packing.is_some();
    let (storage, limit) = if packed {
        ("packed", MAX_PACKED_RANKS)
    } else {
        ("positions", MAX_POSITION_RANKS)
    };
    if size > limit {
        return Err(problem(
            key,
            format!(
                "the state space has {size} ranks, too large for {storage} storage (at most {limit})"
            ),
        ));
    }
    Ok(storage)
}

pub fn sliding(spec: &Spec) -> Result<Sliding, Problem> {
    common(spec)?;
    if spec.default_partition.is_some() {
        return Err(problem(
            "default_partition",
            "`default_partition` needs `partitions` (the patterns of a puzzle answered by search)",
        ));
    }
    let (coords, adjacency) = cell_graph(spec, Some(MoveRule::Orthogonal))?;
    let n = coords.len();
    if !(2..=sliding::MAX_CELLS).contains(&n) {
        return Err(problem(
            if spec.cells.is_some() {
                "cells"
            } else {
                "rows"
            },
            format!(
                "a sliding puzzle has 2 to {} cells; this one has {n}",
                sliding::MAX_CELLS
            ),
        ));
    }
    let goal: Vec<u8> = match &spec.goal {
        None => (1..n as u8).chain([0]).collect(),
        Some(text) => sliding::parse_values(text, n).map_err(|e| {
            problem(
                "goal",
                format!(
                    "the goal is not a permutation of the tiles 0..={}: {e}",
                    n - 1
                ),
            )
        })?,
    };
    // The rank space: (n-1)! arrangements of the tiles (half of them on a bipartite
    // graph) times n blank cells.
    let adj8: Vec<Vec<u8>> = adjacency
        .iter()
        .map(|l| l.iter().map(|&c| c as u8).collect())
        .collect();
    let p = Sliding::new(&spec.name, adj8, goal);
    graph_storage(
        Some(p.size()),
        p.packing().as_ref(),
        if spec.cells.is_some() {
            "cells"
        } else {
            "rows"
        },
    )?;
    let source = source(spec, coords, &adjacency);
    Ok(p.with_source(source))
}

/// Most tiles of one pattern: a table of 8 tiles of 16 cells has 518,918,400 entries and
/// its breadth-first search 4,151,347,200 ranks (a byte each while building).
pub const MAX_PATTERN_TILES: usize = 8;

/// A square sliding grid too large to tabulate, answered by IDA* over additive pattern
/// databases: each partition must split the tiles into disjoint patterns covering every
/// tile once (so the tables' sum is admissible), and the grid must be square (the search
/// also looks the board up reflected about its main diagonal).
pub fn patterns(spec: &Spec) -> Result<Fifteen, Problem> {
    common(spec)?;
    for (key, given) in [
        ("cells", spec.cells.is_some()),
        ("adjacency", spec.adjacency.is_some()),
        ("edges", spec.edges.is_some()),
        ("goal", spec.goal.is_some()),
    ] {
        if given {
            return Err(problem(
                key,
                format!(
                    "a puzzle with `partitions` is a square grid given by `rows` and `cols` with the default goal; `{key}` does not apply"
                ),
            ));
        }
    }
    if spec.rule.is_some_and(|r| r != MoveRule::Orthogonal) {
        return Err(problem(
            "move",
            "a puzzle with `partitions` moves tiles by orthogonal steps",
        ));
    }
    let rows = *required(&spec.rows, "rows", "the side of the square grid")?;
    let cols = *required(&spec.cols, "cols", "the side of the square grid")?;
    if rows != cols || !(2..=4).contains(&rows) {
        return Err(problem(
            "rows",
            format!(
                "a puzzle with `partitions` is a square grid of 2x2 to 4x4 cells (pattern ranks need at most {} cells); this one is {rows}x{cols}",
                crate::pattern::MAX_CELLS
            ),
        ));
    }
    let n = rows * cols;
    let parts = required(
        &spec.partitions,
        "partitions",
        "the patterns, by partition name",
    )?;
    if parts.is_empty() {
        return Err(problem("partitions", "`partitions` names no partition"));
    }
    let mut partitions = Vec::new();
    for (name, pats) in parts {
        let bad = |m: String| problem("partitions", format!("partition {name:?}: {m}"));
        if name.is_empty() {
            return Err(problem("partitions", "a partition's name is empty"));
        }
        if pats.is_empty() || pats.len() > TABLE_KINDS.len() {
            return Err(bad(format!(
                "{} patterns; a partition has 1 to {}",
                pats.len(),
                TABLE_KINDS.len()
            )));
        }
        let mut seen = vec![false; n];
        for (i, tiles) in pats.iter().enumerate() {
            if tiles.is_empty() || tiles.len() > MAX_PATTERN_TILES {
                return Err(bad(format!(
                    "pattern {i} has {} tiles; a pattern has 1 to {MAX_PATTERN_TILES}",
                    tiles.len()
                )));
            }
            for &t in tiles {
                if t == 0 || t as usize >= n {
                    return Err(bad(format!(
                        "pattern {i} names tile {t}; the tiles are 1..={}",
                        n - 1
                    )));
                }
                if std::mem::replace(&mut seen[t as usize], true) {
                    return Err(bad(format!(
                        "tile {t} is in more than one pattern (or twice in one); the patterns must be disjoint"
                    )));
                }
            }
            crate::pattern::Pattern::new(crate::pattern::Grid::new(rows, cols), tiles)
                .map_err(|e| bad(format!("pattern {i}: {e}")))?;
        }
        if let Some(t) = (1..n).find(|&t| !seen[t]) {
            return Err(bad(format!(
                "tile {t} is in no pattern; every tile must be in exactly one"
            )));
        }
        partitions.push(Partition {
            name: name.clone(),
            patterns: pats.clone(),
        });
    }
    let default = required(
        &spec.default_partition,
        "default_partition",
        "the partition `generate` builds",
    )?;
    if !parts.contains_key(default) {
        return Err(problem(
            "default_partition",
            format!(
                "default_partition {default:?} is not one of `partitions` ({})",
                parts.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let (coords, adjacency) = cell_graph(spec, Some(MoveRule::Orthogonal))?;
    Ok(Fifteen::new(
        intern(&spec.name),
        rows,
        partitions,
        vec![default.clone()],
        source(spec, coords, &adjacency),
    ))
}

fn source<T: Copy>(spec: &Spec, coords: Vec<[f64; 2]>, adjacency: &[Vec<T>]) -> Source
where
    usize: From<T>,
{
    Source {
        spec: serde_json::to_value(spec).unwrap_or(Value::Null),
        layout: layout(coords, adjacency),
    }
}

/// Numbers of `B`, `W` and `-` in a position, or the problem with it.
fn pieces(text: &str, key: &'static str) -> Result<(usize, usize, usize), Problem> {
    let mut counts = (0, 0, 0);
    for c in text.trim().chars() {
        match c.to_ascii_uppercase() {
            'B' => counts.0 += 1,
            'W' => counts.1 += 1,
            '-' => counts.2 += 1,
            other => {
                return Err(problem(
                    key,
                    format!("{key} {text:?} has {other:?}; use B, W and -"),
                ));
            }
        }
    }
    Ok(counts)
}

/// The start's and goal's pieces: the goal must be a permutation of the start.
fn start_and_goal<'a>(
    spec: &'a Spec,
    cells: usize,
) -> Result<(&'a str, &'a str, usize, usize), Problem> {
    let start = required(&spec.start, "start", "the start position, B/W/- per cell")?;
    let goal = required(&spec.goal, "goal", "the goal position, B/W/- per cell")?;
    let s = pieces(start, "start")?;
    let g = pieces(goal, "goal")?;
    for (key, text, c) in [("start", start, s), ("goal", goal, g)] {
        let len = c.0 + c.1 + c.2;
        if len != cells {
            return Err(problem(
                key,
                format!("{key} {text:?} has {len} cells; the puzzle has {cells}"),
            ));
        }
    }
    if (s.0, s.1) != (g.0, g.1) {
        return Err(problem(
            "goal",
            format!(
                "the goal is not a permutation of the pieces: the start has {} B and {} W, the goal {} B and {} W",
                s.0, s.1, g.0, g.1
            ),
        ));
    }
    Ok((start, goal, s.0, s.1))
}

pub fn tokens(spec: &Spec) -> Result<KnightSwap, Problem> {
    common(spec)?;
    let (coords, adjacency) = cell_graph(spec, None)?;
    let n = coords.len();
    let (start, goal, black, white) = start_and_goal(spec, n)?;
    graph_storage(knights::rank_space(n, black, white), None, "start")?;
    let rule = spec
        .rule
        .map_or("the listed connections", MoveRule::describe);
    let source = source(spec, coords, &adjacency);
    KnightSwap::from_parts(&spec.name, adjacency, start, goal, rule, source)
        .map_err(|e| problem("start", e.to_string()))
}

pub fn oshidori(spec: &Spec) -> Result<Oshidori, Problem> {
    common(spec)?;
    let start = required(&spec.start, "start", "the start row, B/W/- per cell")?;
    let n = start.trim().chars().count();
    if let Some(len) = spec.length
        && len != n
    {
        return Err(problem(
            "length",
            format!("length is {len} but the start has {n} cells"),
        ));
    }
    if !(3..=oshidori::MAX_CELLS).contains(&n) {
        return Err(problem(
            "start",
            format!(
                "a row has 3 to {} cells; this one has {n}",
                oshidori::MAX_CELLS
            ),
        ));
    }
    let (start, goal, black, _) = start_and_goal(spec, n)?;
    for (key, text) in [("start", start), ("goal", goal)] {
        let t = text.trim();
        if t.matches('-').count() != 2 || !t.contains("--") {
            return Err(problem(
                key,
                format!("{key} {text:?} must have exactly two empty cells, side by side"),
            ));
        }
    }
    graph_storage(oshidori::rank_space(n, black), None, "start")?;
    let adjacency: Vec<Vec<usize>> = (0..n)
        .map(|i| {
            [i.checked_sub(1), (i + 1 < n).then_some(i + 1)]
                .into_iter()
                .flatten()
                .collect()
        })
        .collect();
    let source = source(spec, (0..n).map(|i| [i as f64, 0.0]).collect(), &adjacency);
    Oshidori::from_parts(&spec.name, start, goal, source)
        .map_err(|e| problem("start", e.to_string()))
}

pub fn board(spec: &Spec) -> Result<Board, Problem> {
    common(spec)?;
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
    crate::peg::board::linked_by_jumps(&board.jumps, 0, &mut seen, &mut Vec::new());
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

pub fn tour(spec: &Spec) -> Result<TourBoard, Problem> {
    common(spec)?;
    if spec.rule.is_some_and(|r| r != MoveRule::Knight) {
        return Err(problem("move", "tours are enumerated for the knight only"));
    }
    let rows = *required(&spec.rows, "rows", "the board's rows")?;
    let cols = *required(&spec.cols, "cols", "the board's columns")?;
    let mut missing = Vec::new();
    for &[r, c] in spec.missing.iter().flatten() {
        if r >= rows || c >= cols {
            return Err(problem(
                "missing",
                format!("missing square [{r}, {c}] is not on the {rows}x{cols} board"),
            ));
        }
        if !missing.contains(&(r, c)) {
            missing.push((r, c));
        }
    }
    let squares = (rows * cols).saturating_sub(missing.len());
    if squares == 0 || squares > MAX_TOUR_SQUARES {
        return Err(problem(
            "rows",
            format!(
                "the board has {squares} squares; tour boards have 1 to {MAX_TOUR_SQUARES} (the number of tours grows too fast beyond)"
            ),
        ));
    }
    Ok(TourBoard {
        name: intern(&spec.name),
        rows,
        cols,
        missing,
    })
}

pub fn magic(spec: &Spec) -> Result<Magic, Problem> {
    common(spec)?;
    let numbers = required(&spec.numbers, "numbers", "the numbers to place")?;
    let n = numbers.len();
    if !(3..=magic::MAX_POSITIONS).contains(&n) {
        return Err(problem(
            "numbers",
            format!(
                "{n} numbers; a magic figure has 3 to {} positions",
                magic::MAX_POSITIONS
            ),
        ));
    }
    for (i, &d) in numbers.iter().enumerate() {
        if d > 9 || numbers[..i].contains(&d) {
            return Err(problem(
                "numbers",
                format!("the numbers must be distinct digits 0-9; {d} is not"),
            ));
        }
    }
    let lines = required(&spec.lines, "lines", "the lines with equal sums")?;
    if lines.len() < 2 {
        return Err(problem("lines", "a magic figure needs at least two lines"));
    }
    for line in lines {
        if line.iter().any(|&p| p >= n) || line.len() < 2 {
            return Err(problem(
                "lines",
                format!(
                    "line {line:?} must name at least two of the positions 0..={}",
                    n - 1
                ),
            ));
        }
        if (1..line.len()).any(|i| line[..i].contains(&line[i])) {
            return Err(problem(
                "lines",
                format!("line {line:?} names a position twice"),
            ));
        }
    }
    let cells = required(&spec.cells, "cells", "the positions' coordinates [x, y]")?;
    if cells.len() != n {
        return Err(problem(
            "cells",
            format!("{} coordinates for {n} positions", cells.len()),
        ));
    }
    let mut adjacency = vec![Vec::new(); n];
    for line in lines {
        for w in line.windows(2) {
            adjacency[w[0]].push(w[1]);
        }
    }
    let source = source(spec, cells.clone(), &adjacency);
    Ok(Magic::new(
        intern(&spec.name),
        numbers,
        lines.clone(),
        source,
    ))
}

/// What `generate` would build for a puzzle, without building it.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub name: String,
    pub family: String,
    /// Size of the rank space (move graphs, magic) or an upper bound (peg: `2^holes`);
    /// `None` when only the search finds it (tours).
    pub states: Option<u64>,
    /// Whether `states` (and so the estimates) is exact or an upper bound.
    pub states_exact: bool,
    pub storage: &'static str,
    /// Rough estimates from the rates measured on the development machine (README).
    pub seconds: Option<f64>,
    pub memory_bytes: Option<u64>,
    pub tabulate: bool,
    /// Pattern tables `generate` stores (partition, pattern, tiles, entries), when the
    /// puzzle is answered by search over them.
    pub tables: Vec<PlannedTable>,
}

/// One pattern table a [`Plan`] stores: a byte per placement of its tiles.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedTable {
    pub partition: String,
    pub pattern: usize,
    pub tiles: Vec<u8>,
    pub entries: u64,
    /// Whether `generate` builds it by default (the other partitions on request).
    pub default: bool,
}

/// Estimates the cost of building `p`: the rank space, the storage `generate` chooses,
/// and time and memory from the rates the README reports (a row per position: about
/// 0.6 M ranks/s and 13 bytes per rank; packed: about 11 M ranks/s and 3 bytes per rank;
/// magic: about 30 M arrangements/s).
pub fn plan(p: &Puzzle) -> Plan {
    let base = Plan {
        name: p.name().to_string(),
        family: p.family().to_string(),
        states: None,
        states_exact: true,
        storage: "positions",
        seconds: None,
        memory_bytes: None,
        tabulate: true,
        tables: Vec::new(),
    };
    match p {
        Puzzle::Graph(g) => {
            let size = g.size();
            let packed = size > crate::records::PACK_ABOVE && g.packing().is_some();
            let (storage, rate, bytes) = if packed {
                ("packed", 11e6, 3)
            } else {
                ("positions", 0.6e6, 13)
            };
            Plan {
                states: Some(size),
                storage,
                seconds: Some(size as f64 / rate),
                memory_bytes: Some(size * bytes),
                ..base
            }
        }
        Puzzle::Peg(b) => {
            // Bounds: every bitboard reachable, at english33's rate of about 14 M
            // positions/s and 8 bytes per position kept.
            let bound = if b.holes >= 64 {
                u64::MAX
            } else {
                1u64 << b.holes
            };
            Plan {
                states: Some(bound),
                states_exact: false,
                seconds: Some(bound as f64 / 14e6),
                memory_bytes: Some(bound.saturating_mul(8)),
                tabulate: b.tabulate,
                ..base
            }
        }
        Puzzle::Magic(m) => {
            let n = crate::rank::FACT[m.positions()];
            Plan {
                states: Some(n),
                storage: "solutions",
                seconds: Some(n as f64 / 30e6),
                memory_bytes: None,
                ..base
            }
        }
        Puzzle::Tour(_) => Plan {
            storage: "solutions",
            ..base
        },
        Puzzle::Patterns(f) => {
            // The ranks the breadth-first searches of the default tables examine, at the
            // 6-6-3 build's measured rate of about 10 M ranks/s and a byte per rank.
            let built: Vec<&str> = f.built().iter().map(|p| p.name.as_str()).collect();
            let mut tables = Vec::new();
            let (mut ranks, mut largest) = (0u64, 0u64);
            for part in f.partitions() {
                let default = built.contains(&part.name.as_str());
                for (i, p) in f.patterns(part).iter().enumerate() {
                    if default {
                        let size = crate::pattern::PatternSpace::new(p).size();
                        ranks += size;
                        largest = largest.max(size);
                    }
                    tables.push(PlannedTable {
                        partition: part.name.clone(),
                        pattern: i,
                        tiles: p.tiles().to_vec(),
                        entries: p.placements(),
                        default,
                    });
                }
            }
            Plan {
                states: Some(ranks),
                storage: "patterns",
                seconds: Some(ranks as f64 / 10e6),
                memory_bytes: Some(largest),
                tables,
                ..base
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_file_loads_under_its_listed_name() {
        for (name, text) in BUILTIN {
            let (spec, p) = load(name, text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(spec.name, *name);
            assert_eq!(p.name(), *name);
        }
    }

    #[test]
    fn stored_definitions_rebuild_the_same_puzzle() {
        for spec in builtin_specs() {
            let p = builtin_puzzle(&spec);
            let d = p.definition();
            let again = Puzzle::from_definition(&d).unwrap();
            assert_eq!(again.definition(), d, "{}", spec.name);
            let layout = &d["layout"];
            let cells = layout["cells"].as_array().unwrap();
            assert!(!cells.is_empty(), "{}", spec.name);
            for e in layout["edges"].as_array().unwrap() {
                let (a, b) = (e[0].as_u64().unwrap(), e[1].as_u64().unwrap());
                assert!(a < b && (b as usize) < cells.len(), "{}", spec.name);
            }
        }
    }

    #[test]
    fn layouts_have_one_cell_per_index() {
        let count = |name: &str| {
            let p = builtin_puzzle(&builtin_spec(name).unwrap());
            p.definition()["layout"]["cells"].as_array().unwrap().len()
        };
        assert_eq!(count("six"), 7);
        assert_eq!(count("eleven"), 12);
        assert_eq!(count("knight-swap"), 12);
        assert_eq!(count("oshidori"), 8);
        assert_eq!(count("hoppers"), 13);
        assert_eq!(count("english33"), 33);
        assert_eq!(count("magic-triangle"), 9);
        assert_eq!(count("knight-tour"), 14);
    }

    #[test]
    fn peg_layout_points_are_collinear_along_every_jump() {
        // The coordinates in the jump-table files must draw each jump as a straight line
        // with the jumped hole in the middle.
        for b in builtin_boards() {
            let d = b.definition();
            let cells = d["layout"]["cells"].as_array().unwrap();
            let at = |h: u8| {
                let c = &cells[h as usize];
                (c[0].as_f64().unwrap(), c[1].as_f64().unwrap())
            };
            for j in &b.jumps {
                let (f, o, t) = (at(j.from), at(j.over), at(j.to));
                assert_eq!((f.0 + t.0) / 2.0, o.0, "{} {j:?}", b.name);
                assert_eq!((f.1 + t.1) / 2.0, o.1, "{} {j:?}", b.name);
            }
        }
    }

    #[test]
    fn edges_adjacency_and_rules_build_the_same_graph() {
        let star = |graph: &str| {
            let text = format!(
                "name = \"star\"\nfamily = \"sliding\"\n\
                 cells = [[1, 1], [1, 0], [2, 1], [1, 2], [0, 1]]\n{graph}\n"
            );
            let (_, p) = load("star.toml", &text).unwrap();
            let d = p.definition();
            (
                d["adjacency"].clone(),
                d["layout"]["edges"].clone(),
                d["cells"].clone(),
            )
        };
        let by_edges = star("edges = [[0, 1], [0, 2], [0, 3], [0, 4]]");
        assert_eq!(
            by_edges,
            star("adjacency = [[1, 2, 3, 4], [0], [0], [0], [0]]")
        );
        assert_eq!(by_edges, star("move = \"orthogonal\""));
        let e = load(
            "star.toml",
            "name = \"s\"\nfamily = \"tokens\"\ncells = [[0, 0], [1, 0]]\n\
             edges = [[0, 1]]\nmove = \"king\"\nstart = \"B-\"\ngoal = \"-B\"\n",
        )
        .err()
        .unwrap();
        assert_eq!(e.line, Some(5), "{e}");
    }

    /// Every rank of a graph puzzle formats to a distinct position that parses back.
    fn dense(p: &Puzzle) -> u64 {
        let Puzzle::Graph(g) = p else {
            panic!("not a move graph")
        };
        let mut seen = std::collections::HashSet::new();
        for r in 0..g.size() {
            let s = g.format(r);
            assert_eq!(g.parse(&s), Ok(r), "{s}");
            assert!(seen.insert(s));
        }
        g.size()
    }

    #[test]
    fn unequal_pieces_and_other_lengths_rank_densely() {
        let (_, p) = load(
            "t.toml",
            "name = \"t\"\nfamily = \"tokens\"\nrows = 1\ncols = 5\nmove = \"orthogonal\"\n\
             start = \"BBW--\"\ngoal = \"--WBB\"\n",
        )
        .unwrap();
        // C(5,3) occupied sets x C(3,2) colourings.
        assert_eq!(dense(&p), 30);
        let (_, p) = load(
            "o.toml",
            "name = \"o\"\nfamily = \"oshidori\"\nstart = \"BWBB--\"\ngoal = \"BBBW--\"\n",
        )
        .unwrap();
        // 5 places of the empty pair x C(4,3) colourings.
        assert_eq!(dense(&p), 20);
    }

    #[test]
    fn errors_name_the_line() {
        let text = "name = \"x\"\nfamily = \"sliding\"\nrows = 2\ncols = 2\ngoal = \"1123\"\n";
        let e = load("x.toml", text).err().unwrap();
        assert_eq!(e.line, Some(5));
        assert!(e.message.contains("not a permutation"), "{e}");
        let e = load("x.toml", "name = \"x\"\n\nfamily = \"hexagon\"\n")
            .err()
            .unwrap();
        assert_eq!(e.to_string().lines().count(), 1);
        assert!(e.to_string().starts_with("x.toml:3: unknown family"), "{e}");
    }

    #[test]
    fn pattern_partitions_are_checked() {
        let head = "name = \"p\"\nfamily = \"sliding\"\nrows = 3\ncols = 3\n";
        let ok =
            "default_partition = \"4-4\"\n[partitions]\n\"4-4\" = [[1, 2, 4, 5], [3, 6, 7, 8]]\n";
        let (_, p) = load("p.toml", &format!("{head}{ok}")).unwrap();
        assert!(matches!(p, Puzzle::Patterns(_)));
        assert!(p.definition()["layout"]["cells"].as_array().unwrap().len() == 9);
        for (body, line, says) in [
            (
                "default_partition = \"4-4\"\n[partitions]\n\"4-4\" = [[1, 2, 4, 5], [3, 5, 7, 8]]\n",
                Some(6),
                "tile 5 is in more than one pattern",
            ),
            (
                "default_partition = \"4-4\"\n[partitions]\n\"4-4\" = [[1, 2, 4, 5], [3, 6, 7]]\n",
                Some(6),
                "tile 8 is in no pattern",
            ),
            (
                "default_partition = \"4-4\"\n[partitions]\n\"4-4\" = [[1, 2, 4, 5], [3, 6, 7, 9]]\n",
                Some(6),
                "names tile 9",
            ),
            (
                "default_partition = \"5-3\"\n[partitions]\n\"4-4\" = [[1, 2, 4, 5], [3, 6, 7, 8]]\n",
                Some(5),
                "is not one of `partitions`",
            ),
            (
                "[partitions]\n\"4-4\" = [[1, 2, 4, 5], [3, 6, 7, 8]]\n",
                None,
                "missing key `default_partition`",
            ),
        ] {
            let e = load("p.toml", &format!("{head}{body}")).err().unwrap();
            assert!(e.message.contains(says), "{e}");
            assert_eq!(e.line, line, "{e}");
        }
        let e = load(
            "p.toml",
            "name = \"p\"\nfamily = \"sliding\"\nrows = 2\ncols = 3\ndefault_partition = \"a\"\n[partitions]\na = [[1, 2, 3, 4, 5]]\n",
        )
        .err()
        .unwrap();
        assert!(e.message.contains("square grid"), "{e}");
        let e = load("p.toml", &format!("{head}default_partition = \"a\"\n"))
            .err()
            .unwrap();
        assert!(e.message.contains("needs `partitions`"), "{e}");
    }
}
