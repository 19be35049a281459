//! The vocabulary of a definition file shared by every family: the [`Spec`] (one flat
//! set of keys, `family` saying which apply), the [`Problem`] a check reports, and the
//! checks more than one family makes (the name, keys that do not apply, cell graphs,
//! storage limits). Each family's own checks live in its folder (`spec.rs`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use puzzlebase_core::definition::{Source, layout};
use puzzlebase_core::format;

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
    pub fn joins(self, a: [f64; 2], b: [f64; 2]) -> bool {
        let (dx, dy) = ((a[0] - b[0]).abs(), (a[1] - b[1]).abs());
        match self {
            MoveRule::Knight => (dx == 1.0 && dy == 2.0) || (dx == 2.0 && dy == 1.0),
            MoveRule::King => dx.max(dy) == 1.0 && dx.fract() == 0.0 && dy.fract() == 0.0,
            MoveRule::Orthogonal => dx + dy == 1.0 && dx.fract() == 0.0,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            MoveRule::Knight => "knight's moves",
            MoveRule::King => "king's moves",
            MoveRule::Orthogonal => "orthogonal steps",
        }
    }
}

/// A definition file: the keys the built-in families share, each a field, and any other
/// key in [`Spec::own`], which the family that reads it deserialises ([`Spec::own_keys`]).
/// Before a family builds a puzzle, the keys that apply to it are checked (its list of
/// keys), so a key no family reads is refused with the keys the family does read.
/// Serialised (without absent keys) into the stored definition as `spec`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[warn(missing_docs)]
pub struct Spec {
    /// Identifier on the command line and in the database: lower-case letters, digits, `-`.
    pub name: String,
    /// The family: a built-in one's name or one a program registered.
    pub family: String,
    /// Grid size (sliding, tokens, tour): cells row-major, at `[column, row]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<usize>,
    /// Grid size: the number of columns (see `rows`).
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
    /// The start position, in the puzzle's notation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// The goal position, in the puzzle's notation.
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
    /// Peg: the hole empty at the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_hole: Option<usize>,
    /// Peg: the hole of the last peg.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_hole: Option<usize>,
    /// Peg: whether `generate` builds the table (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tabulate: Option<bool>,
    /// Peg: `"layers"` stores a board of up to 33 holes as the large boards are (above
    /// 33 holes they always are); `"rows"` is the default below. Sliding: `"packed"`
    /// stores chunks of runs as puzzles above a few million positions are; `"two-bit"`
    /// keeps the distances as two-bit codes as the largest puzzles do (above 2^31 ranks
    /// they always are).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<String>,
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
    /// Every other key, for the family that reads it: a family of its own keys
    /// (permutation puzzles, Lights Out, Hanoi, a family defined outside this crate)
    /// declares them in its list of keys and reads them with [`Spec::own_keys`]. (A
    /// flattened map: serde cannot combine `flatten` with `deny_unknown_fields`, so the
    /// common checks refuse what no family reads.)
    #[serde(flatten)]
    pub own: BTreeMap<String, Value>,
}

#[warn(missing_docs)]
impl Spec {
    /// The family's own keys ([`Spec::own`]) as its type `T`, which should deny unknown
    /// fields; a key of the wrong type is a [`Problem`] naming the key where serde says
    /// which, else the first own key. `keys` is the family's list of keys.
    pub fn own_keys<T: serde::de::DeserializeOwned>(
        &self,
        keys: &'static [&'static str],
    ) -> Result<T, Problem> {
        let map: serde_json::Map<String, Value> = self
            .own
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        serde_json::from_value(Value::Object(map)).map_err(|e| {
            let text = e.to_string();
            let key = keys
                .iter()
                .find(|k| text.contains(&format!("`{k}`")))
                .or_else(|| keys.iter().find(|k| self.own.contains_key(**k)))
                .copied()
                .unwrap_or("name");
            problem(key, text)
        })
    }
}

/// A problem with one key of a spec: a definition file's refusal names the file and that
/// key's line (`FILE:LINE: MESSAGE`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
#[warn(missing_docs)]
pub struct Problem {
    /// The key at fault (`name` for the definition as a whole).
    pub key: std::borrow::Cow<'static, str>,
    /// What is wrong, one line.
    pub message: String,
}

#[warn(missing_docs)]
impl Problem {
    /// The problem `message` with the key `key`.
    pub fn new(key: impl Into<std::borrow::Cow<'static, str>>, message: impl Into<String>) -> Self {
        problem(key, message)
    }
}

pub fn problem(
    key: impl Into<std::borrow::Cow<'static, str>>,
    message: impl Into<String>,
) -> Problem {
    Problem {
        key: key.into(),
        message: message.into(),
    }
}

pub fn empty(name: &str, family: &str) -> Spec {
    Spec {
        name: name.to_string(),
        family: family.to_string(),
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
        storage: None,
        matrix: None,
        numbers: None,
        lines: None,
        partitions: None,
        default_partition: None,
        own: BTreeMap::new(),
    }
}

/// The name's form, and no key that the family does not read.
pub fn common(spec: &Spec, keys: &[&str]) -> Result<(), Problem> {
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
    let present: [(&'static str, bool); 22] = [
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
        ("storage", spec.storage.is_some()),
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
    // Only a family's build calls this (the registry refuses an unknown family first),
    // so `spec.family` names the family whose keys these are; asking the registry here
    // would make the registry and the families' checks import each other.
    if let Some(key) = spec.own.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(problem(
            key.clone(),
            format!(
                "unknown key `{key}`: the {} family reads: {}",
                spec.family,
                keys.join(", ")
            ),
        ));
    }
    if let Some((key, _)) = present.iter().find(|(k, p)| *p && !keys.contains(k)) {
        return Err(problem(
            *key,
            format!(
                "key `{key}` does not apply to the {} family (it reads: {})",
                spec.family,
                keys.join(", ")
            ),
        ));
    }
    Ok(())
}

pub fn required<'a, T>(v: &'a Option<T>, key: &'static str, what: &str) -> Result<&'a T, Problem> {
    v.as_ref()
        .ok_or_else(|| problem(key, format!("missing key `{key}` ({what})")))
}

/// Each cell's coordinates, and each cell's neighbours.
pub type CellGraph = (Vec<[f64; 2]>, Vec<Vec<usize>>);

/// The cells (coordinates) and adjacency of a sliding or tokens puzzle: a grid or
/// explicit cells, and an explicit adjacency or a move rule; the adjacency is checked.
pub fn cell_graph(spec: &Spec, default_rule: Option<MoveRule>) -> Result<CellGraph, Problem> {
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

pub fn check_adjacency(adj: &[Vec<usize>], n: usize) -> Result<(), Problem> {
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

/// The storage a move graph gets ([`format::graph_storage`]), refused when its size is
/// beyond that storage's limit.
pub fn graph_storage(
    size: Option<u64>,
    asked: format::GraphAsk,
    key: &'static str,
) -> Result<&'static str, Problem> {
    let Some(size) = size else {
        return Err(problem(
            key,
            "the state space has more than 2^64 ranks; too large for any storage",
        ));
    };
    let storage = format::graph_storage(size, asked);
    let limit = format::storage_limit(storage);
    if size > limit {
        return Err(problem(
            key,
            format!(
                "the state space has {size} ranks, too large for {} storage (at most {limit})",
                storage.as_str()
            ),
        ));
    }
    Ok(storage.as_str())
}

/// What a move graph's definition asks of the storage (its `storage` key, read by
/// [`format::GraphAsk::parse`]); `what` names the puzzle kind in the refusal of a value
/// that names no storage.
pub fn graph_ask(spec: &Spec, what: &str) -> Result<format::GraphAsk, Problem> {
    format::GraphAsk::parse(spec.storage.as_deref()).ok_or_else(|| {
        problem(
            "storage",
            format!(
                "storage {:?}: {what} may ask for {}; leave it out to let the size decide",
                spec.storage.as_deref().unwrap_or_default(),
                format::GRAPH_STORAGE_VALUES
            ),
        )
    })
}

pub fn source<T: Copy>(spec: &Spec, coords: Vec<[f64; 2]>, adjacency: &[Vec<T>]) -> Source
where
    usize: From<T>,
{
    Source::new(
        serde_json::to_value(spec).unwrap_or(Value::Null),
        layout(coords, adjacency),
    )
}

/// Numbers of `B`, `W` and `-` in a position, or the problem with it.
pub fn pieces(text: &str, key: &'static str) -> Result<(usize, usize, usize), Problem> {
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
pub fn start_and_goal(spec: &Spec, cells: usize) -> Result<(&str, &str, usize, usize), Problem> {
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
