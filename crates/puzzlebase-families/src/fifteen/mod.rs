//! `fifteen`, the 4x4 sliding puzzle: 16!/2 (about 1.05e13) solvable arrangements, too
//! many for a table of every position. The file holds additive pattern databases instead
//! ([`puzzlebase_solvers::pattern`]), and a query finds an optimal solution by IDA* over them
//! ([`puzzlebase_solvers::search`]).
//!
//! Notation, ranking and parity are those of every sliding grid
//! ([`super::sliding::Sliding`]): 16 numbers in cell order, 0 the blank, goal
//! `1,2,...,15,0`. The partitions of the 15 tiles into disjoint patterns are data in the
//! definition; `build` names those whose tables `generate` stores.

pub mod spec;

use serde_json::json;
use thiserror::Error;

use super::sliding::Sliding;
use puzzlebase_core::definition::Source;
use puzzlebase_core::packed::{ByteLayout, ChunkLayout};
use puzzlebase_core::progress::Progress;
use puzzlebase_core::records::{PackedTable, PuzzleRecord, Storage};
use puzzlebase_core::space::StateError;
use puzzlebase_core::space::StateSpace;
use puzzlebase_solvers::pattern::{self, Grid, Pattern};
use puzzlebase_solvers::search::{Heuristic, HeuristicError};

/// `packed_tables.kind` of the stored pattern tables, in the order of the built
/// partitions' patterns (the layout of each names its partition and tiles).
pub const TABLE_KINDS: [&str; 8] = [
    "pattern-0",
    "pattern-1",
    "pattern-2",
    "pattern-3",
    "pattern-4",
    "pattern-5",
    "pattern-6",
    "pattern-7",
];

/// Korf's 100 random instances (Korf 1985) with their published optimal lengths, in
/// Korf's orientation: read them with [`korf_instances`]. The page offers them as
/// examples; the tests and the bench solve them.
pub const KORF100: &str = include_str!("../../../../data/fifteen/korf100.txt");

/// The 17 positions that need 80 moves, the most any position needs: read them with
/// [`Fifteen::positions`].
pub const HARDEST80: &str = include_str!("../../../../data/fifteen/hardest80.txt");

/// A partition of the tiles into disjoint patterns, by name (`7-8`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    pub name: String,
    pub patterns: Vec<Vec<u8>>,
}

/// Why a puzzle cannot store the tables of the partitions asked for
/// ([`Fifteen::building`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PartitionError {
    /// A partition the definition does not have.
    #[error("unknown partition {name:?} of {puzzle}; known partitions: {known}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The puzzle.
        puzzle: &'static str,
        /// The definition's partitions, as a list for the message.
        known: String,
    },
    /// No partition, or more tables than the file has kinds for.
    #[error("{puzzle} needs one to {most} pattern tables")]
    Tables {
        /// The puzzle.
        puzzle: &'static str,
        /// The most tables a file stores ([`TABLE_KINDS`]).
        most: usize,
    },
}

/// A line of a list of positions ([`HARDEST80`], [`KORF100`]) that does not read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LineError {
    /// Not an arrangement of this puzzle, or one that cannot be solved.
    #[error("line {line}: {source}")]
    Position {
        /// The line, counted from 1.
        line: usize,
        /// Why it is no position.
        source: StateError,
    },
    /// A field of a Korf instance that is not a number.
    #[error("line {line}: {source}")]
    Number {
        /// The line, counted from 1.
        line: usize,
        /// The number that does not parse.
        source: std::num::ParseIntError,
    },
    /// A Korf instance with fields missing, too many, or cells out of range.
    #[error("line {line}: expected a number, a length and 16 cells 0..15")]
    Shape {
        /// The line, counted from 1.
        line: usize,
    },
}

/// A square sliding grid answered by search over pattern databases, as its definition
/// file describes it (checked by its spec.rs).
pub struct Fifteen {
    name: &'static str,
    side: usize,
    grid: Sliding,
    partitions: Vec<Partition>,
    /// Names of the partitions whose tables are built and stored.
    build: Vec<String>,
    /// The definition file's contents and drawing layout.
    source: Source,
}

impl Fifteen {
    /// The puzzle on a `side` x `side` grid with these partitions, building `build`'s
    /// tables. The definition checks its arguments (spec.rs).
    pub fn new(
        name: &'static str,
        side: usize,
        partitions: Vec<Partition>,
        build: Vec<String>,
        source: Source,
    ) -> Fifteen {
        Fifteen {
            name,
            side,
            grid: Sliding::grid(name, side, side),
            partitions,
            build,
            source,
        }
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The same puzzle storing the tables of these partitions (in this order).
    pub fn building(&self, names: &[String]) -> Result<Fifteen, PartitionError> {
        let mut build: Vec<String> = Vec::new();
        for n in names {
            if !self.partitions.iter().any(|p| &p.name == n) {
                return Err(PartitionError::Unknown {
                    name: n.clone(),
                    puzzle: self.name,
                    known: (self.partitions.iter())
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
            if !build.contains(n) {
                build.push(n.clone());
            }
        }
        let tables: usize = (self.partitions.iter())
            .filter(|p| build.contains(&p.name))
            .map(|p| p.patterns.len())
            .sum();
        if build.is_empty() || tables > TABLE_KINDS.len() {
            return Err(PartitionError::Tables {
                puzzle: self.name,
                most: TABLE_KINDS.len(),
            });
        }
        Ok(Fifteen::new(
            self.name,
            self.side,
            self.partitions.clone(),
            build,
            self.source.clone(),
        ))
    }

    pub fn definition(&self) -> serde_json::Value {
        let partitions: serde_json::Map<String, serde_json::Value> = (self.partitions.iter())
            .map(|p| (p.name.clone(), json!(p.patterns)))
            .collect();
        let n = self.cells();
        let mut d = json!({
            "cells": n,
            "rows": self.side,
            "cols": self.side,
            "goal": self.grid.format_cells(&self.goal()),
            "notation": "tile in each cell in cell order, 0 for the blank; comma- or space-separated numbers",
            "partitions": partitions,
            "build": self.build,
            "tables": format!("one per pattern of each built partition: for every placement of its tiles (ranked as k-permutations of the {n} cells), the minimum number of moves of those tiles to bring them home, other tiles indistinguishable and their moves free, over the blank's regions (the connected sets of cells free of the pattern's tiles); one byte per placement, where the minimum fits in six bits the two high bits saying whether the blank in the largest region (bit 6) or in any other (bit 7) needs two moves more"),
            "search": "IDA* over the sum of a partition's tables, maximised with the same sum for the board reflected about its main diagonal",
        });
        self.source.annotate(&mut d);
        d
    }

    /// Every partition of the definition, in its order.
    pub fn partitions(&self) -> &[Partition] {
        &self.partitions
    }

    /// The partitions whose tables are built, in order.
    pub fn built(&self) -> Vec<&Partition> {
        (self.build.iter())
            .filter_map(|n| self.partitions.iter().find(|p| &p.name == n))
            .collect()
    }

    /// The patterns of a partition on this grid.
    pub fn patterns(&self, partition: &Partition) -> Vec<Pattern> {
        (partition.patterns.iter())
            .map(|t| {
                Pattern::new(Grid::new(self.side, self.side), t)
                    .expect("the definition checked its partitions")
            })
            .collect()
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.side * self.side
    }

    /// `1, 2, ..., n - 1, 0`.
    pub fn goal(&self) -> Vec<u8> {
        (1..self.cells() as u8).chain([0]).collect()
    }

    /// Parses a position; wrong-parity arrangements are [`StateError::Unsolvable`].
    pub fn parse(&self, text: &str) -> Result<Vec<u8>, StateError> {
        use puzzlebase_core::space::GraphPuzzle;
        self.grid.parse(text)?;
        self.grid.parse_cells(text)
    }

    pub fn format(&self, cells: &[u8]) -> String {
        self.grid.format_cells(cells)
    }

    /// Positions written one per line in this puzzle's notation (`#` starts a comment
    /// line), each read as [`Fifteen::parse`] reads a position (so checked to be a
    /// solvable arrangement): the format of [`HARDEST80`].
    pub fn positions(&self, text: &str) -> Result<Vec<Vec<u8>>, LineError> {
        data_lines(text)
            .map(|(i, l)| {
                self.parse(l).map_err(|source| LineError::Position {
                    line: i + 1,
                    source,
                })
            })
            .collect()
    }

    /// The sliding grid that ranks and parses arrangements.
    pub fn grid(&self) -> &Sliding {
        &self.grid
    }
}

/// Converts one of Korf's instances (goal: the blank top-left, tile t in cell t) to this
/// goal (the blank last): the board turned 180 degrees, tile t relabelled n - t.
pub fn from_korf(cells: &[u8]) -> Vec<u8> {
    let n = cells.len();
    (0..n)
        .map(|c| match cells[n - 1 - c] {
            0 => 0,
            t => n as u8 - t,
        })
        .collect()
}

/// One of Korf's instances: its number in his list, its published optimal length, and
/// the arrangement turned to this goal by [`from_korf`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KorfInstance {
    pub number: u32,
    pub length: u32,
    pub cells: Vec<u8>,
}

/// Reads a list of Korf's instances, one per line as `number length` followed by the 16
/// cells in his orientation (`#` starts a comment line; blank lines are skipped). An
/// error names the first line that is not of that form.
pub fn korf_instances(text: &str) -> Result<Vec<KorfInstance>, LineError> {
    data_lines(text)
        .map(|(i, l)| {
            let v: Vec<u32> = l
                .split_whitespace()
                .map(str::parse)
                .collect::<Result<_, _>>()
                .map_err(|source| LineError::Number {
                    line: i + 1,
                    source,
                })?;
            if v.len() != 18 || v[2..].iter().any(|&x| x > 15) {
                return Err(LineError::Shape { line: i + 1 });
            }
            let cells: Vec<u8> = v[2..].iter().map(|&x| x as u8).collect();
            Ok(KorfInstance {
                number: v[0],
                length: v[1],
                cells: from_korf(&cells),
            })
        })
        .collect()
}

/// The lines of a data file that hold data, with their index: not blank, not a `#`
/// comment.
fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    (text.lines().enumerate()).filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
}

/// Every table of the built partitions, computed by the shared BFS, as packed `u8` tables
/// (their layout's `entry` naming what a byte holds, [`pattern::Entry`]).
///
/// `table` computes one pattern's table (the build's backend); its failure, whatever
/// the backend's error type, is the record's.
pub fn record<'a, E>(
    f: &Fifteen,
    base: PuzzleRecord<'a>,
    table: &dyn Fn(&Pattern) -> Result<pattern::PatternTable, E>,
    progress: &dyn Progress,
) -> Result<PuzzleRecord<'a>, E> {
    let mut packed = Vec::new();
    for part in f.built() {
        for (i, p) in f.patterns(part).iter().enumerate() {
            let table = table(p)?;
            let l = ByteLayout::new(p.placements());
            let mut layout = l.describe();
            layout["partition"] = json!(part.name);
            layout["pattern"] = json!(i);
            layout["tiles"] = json!(p.tiles());
            layout["ranking"] = json!(format!(
                "tiles in increasing order; rank = sum_i d_i * P({} - i, k - 1 - i), d_i = cell of tile i minus the number of earlier tiles in lower cells",
                f.cells() - 1
            ));
            layout["entry"] = json!(table.entry.name());
            progress.phase("packing", l.chunks());
            let chunks: Vec<Vec<u8>> = (0..l.chunks())
                .map(|c| {
                    let chunk = l.encode_chunk(c, &table.bytes);
                    progress.advance(1);
                    chunk
                })
                .collect();
            // The row names its table, beyond what the layout says of itself.
            packed.push(PackedTable {
                layout: layout.to_string(),
                ..PackedTable::of(TABLE_KINDS[packed.len()], &l, chunks.into())
            });
        }
    }
    // `states` counts the ranks the breadth-first searches examined (placements times
    // regions of every pattern), so that generate's rate means what it does elsewhere.
    let examined = (f.built().iter())
        .flat_map(|part| f.patterns(part))
        .map(|p| pattern::PatternSpace::new(&p).size())
        .sum();
    Ok(PuzzleRecord {
        storage: Storage::Patterns,
        counts: false,
        states: examined,
        solvable: puzzlebase_core::rank::FACT[f.cells()] / 2,
        packed,
        ..base
    })
}

/// The heuristic of one stored partition from its tables (in pattern order).
pub fn heuristic(
    f: &Fifteen,
    partition: &Partition,
    tables: Vec<pattern::PatternTable>,
    reflect: bool,
) -> Result<Heuristic, HeuristicError> {
    Heuristic::new(f.patterns(partition), tables, reflect)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fifteen() -> Fifteen {
        (crate::catalog::find("fifteen").and_then(crate::Puzzle::into_patterns))
            .expect("fifteen is a built-in pattern-database puzzle")
    }

    #[test]
    fn partitions_cover_the_tiles_once() {
        for p in fifteen().partitions() {
            let mut all: Vec<u8> = p.patterns.concat();
            all.sort_unstable();
            assert_eq!(all, (1..16).collect::<Vec<u8>>(), "{}", p.name);
            let mut sizes: Vec<usize> = p.patterns.iter().map(Vec::len).collect();
            let mut named: Vec<usize> = p.name.split('-').map(|n| n.parse().unwrap()).collect();
            sizes.sort_unstable();
            named.sort_unstable();
            assert_eq!(sizes, named, "{}", p.name);
        }
    }

    #[test]
    fn definitions_round_trip_and_unknown_partitions_are_refused() {
        let f = fifteen();
        // The nightly file holds the 7-8 tables (issue 21: every position within a second).
        assert_eq!(f.built()[0].name, "7-8");
        assert!(f.definition()["layout"]["cells"].as_array().unwrap().len() == 16);
        let text = f.definition().to_string();
        let back = crate::catalog::identity::stored_fifteen(&text).unwrap();
        assert_eq!(back.definition(), f.definition());
        let both = f.building(&["7-8".into(), "6-6-3".into()]).unwrap();
        assert_eq!(
            crate::catalog::identity::stored_fifteen(&both.definition().to_string())
                .unwrap()
                .build,
            ["7-8", "6-6-3"]
        );
        assert!(f.building(&["5-5-5".into()]).is_err());
        assert!(f.building(&[]).is_err());
        assert!(crate::catalog::identity::stored_fifteen("{}").is_none());
    }

    #[test]
    fn korf_lists_are_read_and_bad_lines_named() {
        let text = "# Korf 1985\n\n1 57 14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3\n";
        let list = korf_instances(text).unwrap();
        assert_eq!(list.len(), 1);
        assert_eq!((list[0].number, list[0].length), (1, 57));
        assert_eq!(
            list[0].cells,
            from_korf(&[14, 13, 15, 7, 11, 12, 9, 5, 6, 0, 2, 1, 4, 8, 10, 3])
        );
        let short = korf_instances("1 57 14 13\n").unwrap_err().to_string();
        assert!(short.starts_with("line 1:"), "{short}");
        let word = korf_instances("# x\n2 x 1\n").unwrap_err().to_string();
        assert!(word.starts_with("line 2:"), "{word}");
    }

    /// The list of the 17 positions that need 80 moves reads, holds 17 distinct
    /// solvable arrangements (their lengths are checked by search in
    /// `tests/integration/fifteen.rs`), and bad lines are named.
    #[test]
    fn the_hardest_positions_are_17_distinct_solvable_arrangements() {
        let f = fifteen();
        let all = f.positions(HARDEST80).unwrap();
        assert_eq!(all.len(), 17);
        let mut texts: Vec<String> = all.iter().map(|c| f.format(c)).collect();
        for t in &texts {
            assert_eq!(f.parse(t).map(|c| f.format(&c)).as_ref(), Ok(t), "{t}");
        }
        texts.sort();
        texts.dedup();
        assert_eq!(texts.len(), 17);
        assert!(
            f.positions("0,1,2\n")
                .unwrap_err()
                .to_string()
                .starts_with("line 1:")
        );
        let twice = f.positions("# x\n0,1,1,3,4,5,6,7,8,9,10,11,12,13,14,15\n");
        assert!(twice.unwrap_err().to_string().starts_with("line 2:"));
    }

    #[test]
    fn korf_instances_convert_to_this_goal() {
        let f = fifteen();
        let korf_goal: Vec<u8> = (0..16).collect();
        assert_eq!(from_korf(&korf_goal), f.goal());
        // Korf's instance 1 is solvable in our orientation too.
        let one = [14, 13, 15, 7, 11, 12, 9, 5, 6, 0, 2, 1, 4, 8, 10, 3];
        let text = f.format(&from_korf(&one));
        assert_eq!(text, "13,6,8,12,15,14,0,10,11,7,4,5,9,1,3,2");
        assert_eq!(f.parse(&text).unwrap(), from_korf(&one));
    }
}
