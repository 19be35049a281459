//! Packed `run-steps` tables past distance 254, end to end: generated, answered
//! (distance and path), verified and exported through the public API.
//!
//! No sliding puzzle that `run-steps` stores (at most 2^31 ranks: twelve cells) was found
//! deeper than 254 moves. The deepest tried, a ring of twelve cells with a chord closing
//! a square (cells 0-3), reaches 221; the 2x6 `twelve` 80, the ring of ten with that chord
//! 127. So the puzzle here is a family registered by the test, as a program registers
//! one ([`puzzlebase::register_family`]): a token on a grid of `reach` rows of `lanes`
//! cells, a move to a neighbouring cell, the goal the corner cell 0. Its move graph is bipartite, its runs
//! are the grid's rows (a move along a row changes the rank by one), and a cell `(x, y)`
//! is `x + y` moves from the corner: distances as deep as the grid is long, known without
//! a search, and the number of shortest paths `C(x + y, x)`.

use std::sync::OnceLock;

use puzzlebase::{
    Database, Definition, ExportRow, GraphAsk, GraphFamily, GraphPuzzle, Options, Problem,
    RunLayout, Spec, StateError, StateSpace,
};
use serde::Deserialize;
use serde_json::json;

const FAMILY: GraphFamily = GraphFamily {
    name: "corridor",
    keys: &["lanes", "reach"],
    build,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    /// Rows of the grid.
    reach: u64,
    /// Columns (a block of ranks, at most 200).
    lanes: u64,
}

fn build(spec: &Spec) -> Result<Box<dyn GraphPuzzle>, Problem> {
    let keys: Keys = spec.own_keys(FAMILY.keys)?;
    if !(1..=200).contains(&keys.lanes) || keys.reach == 0 {
        return Err(Problem::new("lanes", "1 to 200 columns, at least one row"));
    }
    Ok(Box::new(Corridor {
        name: spec.name.clone(),
        rows: keys.reach,
        cols: keys.lanes,
        spec: serde_json::to_value(spec).map_err(|e| Problem::new("name", e.to_string()))?,
    }))
}

/// A token on a `rows` x `cols` grid; rank `y * cols + x` is the token at `(x, y)`.
struct Corridor {
    name: String,
    rows: u64,
    cols: u64,
    spec: serde_json::Value,
}

impl StateSpace for Corridor {
    fn size(&self) -> u64 {
        self.rows * self.cols
    }
    fn goals(&self) -> Vec<u64> {
        vec![0]
    }
    fn neighbors(&self, rank: u64, out: &mut Vec<u64>) {
        let (x, y) = (rank % self.cols, rank / self.cols);
        if x > 0 {
            out.push(rank - 1);
        }
        if x + 1 < self.cols {
            out.push(rank + 1);
        }
        if y > 0 {
            out.push(rank - self.cols);
        }
        if y + 1 < self.rows {
            out.push(rank + self.cols);
        }
    }
}

impl GraphPuzzle for Corridor {
    fn name(&self) -> &str {
        &self.name
    }
    fn family(&self) -> &str {
        FAMILY.name
    }
    fn definition(&self) -> serde_json::Value {
        json!({"family": FAMILY.name, "reach": self.rows, "lanes": self.cols, "spec": self.spec})
    }
    fn format(&self, rank: u64) -> String {
        format!("{},{}", rank % self.cols, rank / self.cols)
    }
    fn parse(&self, text: &str) -> Result<u64, StateError> {
        let bad = || StateError::malformed(text, "x,y within the grid");
        let (x, y) = text.split_once(',').ok_or_else(bad)?;
        let (x, y): (u64, u64) = (x.parse().map_err(|_| bad())?, y.parse().map_err(|_| bad())?);
        if x >= self.cols || y >= self.rows {
            return Err(bad());
        }
        Ok(y * self.cols + x)
    }
    fn packing(&self) -> Option<RunLayout> {
        RunLayout::new(self.cols, self.rows, &[(0, self.cols as u8)]).ok()
    }
    fn storage_asked(&self) -> GraphAsk {
        GraphAsk::Packed
    }
}

/// The grids, their encodings and entry sizes: one within a byte (198 moves), one past
/// it (448), one past two bytes (70,000).
const GRIDS: [(&str, u64, u64, &str, u64); 3] = [
    ("corridor-byte", 100, 100, "run-steps", 2),
    ("corridor-wide", 250, 200, "run-steps-16", 3),
    ("corridor-long", 69_999, 3, "run-steps-32", 5),
];

/// The file holding the three grids, generated once.
fn shared() -> &'static std::path::PathBuf {
    static FILE: OnceLock<(tempfile::TempDir, std::path::PathBuf)> = OnceLock::new();
    &FILE
        .get_or_init(|| {
            puzzlebase::register_family(FAMILY).expect("registers");
            let dir = tempfile::tempdir().unwrap();
            let db = dir.path().join("corridors.sqlite");
            let definitions = (GRIDS.iter())
                .map(|&(name, rows, cols, ..)| {
                    let text = format!(
                        "name = \"{name}\"\nfamily = \"corridor\"\nreach = {rows}\nlanes = {cols}\n"
                    );
                    Definition::from_toml(&format!("{name}.toml"), &text).unwrap()
                })
                .collect();
            let opts = Options {
                db: db.clone(),
                only: GRIDS.iter().map(|g| g.0.to_string()).collect(),
                force: false,
            };
            struct Quiet;
            impl puzzlebase::Observer for Quiet {
                fn done(&self, _: &puzzlebase::Summary) {}
            }
            puzzlebase::generate_definitions(&opts, definitions, true, &Quiet).unwrap();
            (dir, db)
        })
        .1
}

/// `C(n, k)`, or `None` past `2^63 - 1` (the counts' overflow marker).
fn binomial(n: u64, k: u64) -> Option<u64> {
    let mut c: u128 = 1;
    for i in 0..k.min(n - k) {
        c = c * u128::from(n - i) / u128::from(i + 1);
        if c > i64::MAX as u128 {
            return None;
        }
    }
    Some(c as u64)
}

#[test]
fn packed_distances_past_a_byte_are_generated_answered_verified_and_exported() {
    let path = shared();
    let conn = rusqlite::Connection::open(path).unwrap();
    for &(name, rows, cols, encoding, entry) in &GRIDS {
        let (stored, layout): (String, String) = conn
            .query_row(
                "SELECT encoding, layout FROM packed_tables WHERE puzzle = ?1 AND kind = 'distance'",
                [name],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        let layout: serde_json::Value = serde_json::from_str(&layout).unwrap();
        assert_eq!(
            (stored.as_str(), &layout["entry_bytes"]),
            (encoding, &entry.into()),
            "{name}"
        );
        let max = rows - 1 + cols - 1;
        let max_distance: i64 = conn
            .query_row(
                "SELECT max_distance FROM puzzles WHERE name = ?1",
                [name],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(max_distance as u64, max, "{name}");
    }
    // Answers: the far corner's distance and an optimal path to the goal, a step at a time.
    let db = Database::open(path).unwrap();
    let stop = puzzlebase::default_stop();
    for &(name, rows, cols, ..) in &GRIDS {
        let far = format!("{},{}", cols - 1, rows - 1);
        let max = rows - 1 + cols - 1;
        assert_eq!(
            db.distance(name, &far, &stop).unwrap(),
            Some(max as u32),
            "{name}"
        );
        let path = db.path(name, &far, &stop).unwrap().unwrap();
        assert_eq!(path.len() as u64, max + 1, "{name}");
        assert_eq!(
            (path[0].as_str(), path[max as usize].as_str()),
            (far.as_str(), "0,0")
        );
        let xy = |s: &str| -> (u64, u64) {
            let (x, y) = s.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        };
        for w in path.windows(2) {
            let ((a, b), (c, d)) = (xy(&w[0]), xy(&w[1]));
            assert_eq!(a + b, c + d + 1, "{name}: {} to {}", w[0], w[1]);
        }
        assert_eq!(db.distance(name, "1,0", &stop).unwrap(), Some(1));
    }
    // verify re-derives every distance from the rules, and the widths with them.
    let reports = puzzlebase::verify_file(path, &[], &mut |_| {}).unwrap();
    let verified: Vec<(&str, Option<u32>)> = (reports.iter())
        .map(|r| (r.puzzle.as_str(), r.max_distance))
        .collect();
    assert_eq!(
        verified,
        [
            ("corridor-byte", Some(198)),
            ("corridor-long", Some(70_000)),
            ("corridor-wide", Some(448))
        ]
    );
    // export: every cell, in rank order, at distance x + y with C(x + y, x) shortest
    // solutions and a next cell one move closer.
    let (name, rows, cols, ..) = GRIDS[1];
    let mut rows_seen = 0u64;
    db.export(name, &mut |row| {
        let ExportRow::Position {
            rank,
            state,
            distance,
            solutions,
            next,
        } = row
        else {
            panic!("{row:?}")
        };
        let (x, y) = (rank % cols, rank / cols);
        assert_eq!(rank, rows_seen);
        assert_eq!(state, format!("{x},{y}"));
        assert_eq!(distance, Some((x + y) as u32), "{state}");
        assert_eq!(solutions, binomial(x + y, x), "{state}");
        // The smallest-ranked neighbour one move closer: the one above, else the one
        // to the left.
        let want_next = match (x, y) {
            (0, 0) => None,
            (x, 0) => Some(format!("{},0", x - 1)),
            (x, y) => Some(format!("{x},{}", y - 1)),
        };
        assert_eq!(next, want_next, "{state}");
        rows_seen += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(rows_seen, rows * cols);
}

/// A table whose stored encoding is not the width of its entries (a wide table labelled
/// `run-steps`, a byte table labelled `run-steps-16`) is damage `verify` names in the
/// distance table's row.
#[test]
fn verify_refuses_a_run_steps_width_that_is_not_the_tables() {
    let dir = tempfile::tempdir().unwrap();
    for (name, encoding) in [
        ("corridor-wide", "run-steps"),
        ("corridor-byte", "run-steps-16"),
    ] {
        let copy = dir.path().join(format!("{name}.sqlite"));
        std::fs::copy(shared(), &copy).unwrap();
        let conn = rusqlite::Connection::open(&copy).unwrap();
        conn.execute(
            "UPDATE packed_tables SET encoding = ?2 WHERE puzzle = ?1 AND kind = 'distance'",
            [name, encoding],
        )
        .unwrap();
        drop(conn);
        let refused = puzzlebase::verify_file(&copy, &[name.to_string()], &mut |_| {});
        let why = refused.expect_err(name).to_string();
        assert!(
            why.contains(name) && why.contains("packed_tables distance"),
            "{why}"
        );
    }
}
