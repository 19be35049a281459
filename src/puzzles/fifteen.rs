//! `fifteen`, the 4x4 sliding puzzle: 16!/2 (about 1.05e13) solvable arrangements, too
//! many for a table of every position. The file holds additive pattern databases instead
//! ([`crate::pattern`]), and a query finds an optimal solution by IDA* over them
//! ([`crate::search`]).
//!
//! Notation, ranking and parity are those of every sliding grid
//! ([`super::sliding::Sliding`]): 16 numbers in cell order, 0 the blank, goal
//! `1,2,...,15,0`. The partitions of the 15 tiles into disjoint patterns are data in the
//! definition; `build` names those whose tables `generate` stores.

use std::time::Instant;

use serde_json::json;

use super::sliding::Sliding;
use crate::packed::ByteLayout;
use crate::pattern::{self, Grid, Pattern};
use crate::progress::Progress;
use crate::search::{Heuristic, HeuristicError};
use crate::space::StateError;
use crate::space::StateSpace;
use crate::store::{PackedTable, PuzzleRecord, Storage};

pub const NAME: &str = "fifteen";

/// The partition `generate` builds unless told otherwise (see the README for why).
pub const DEFAULT_BUILD: &str = "6-6-3";

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

/// A partition of the tiles into disjoint patterns, by name (`7-8`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    pub name: String,
    pub patterns: Vec<Vec<u8>>,
}

/// The partitions known to the definition, both Korf and Felner's turned to this goal:
/// 7-8 splits the board into its top two rows and the rest; 6-6-3 into the left and the
/// right halves of the top three rows and the bottom row.
pub fn partitions() -> Vec<Partition> {
    vec![
        Partition {
            name: "6-6-3".into(),
            patterns: vec![
                vec![1, 2, 5, 6, 9, 10],
                vec![3, 4, 7, 8, 11, 12],
                vec![13, 14, 15],
            ],
        },
        Partition {
            name: "7-8".into(),
            patterns: vec![
                vec![1, 2, 3, 4, 5, 6, 7, 8],
                vec![9, 10, 11, 12, 13, 14, 15],
            ],
        },
    ]
}

pub struct Fifteen {
    grid: Sliding,
    partitions: Vec<Partition>,
    /// Names of the partitions whose tables are built and stored.
    build: Vec<String>,
}

impl Fifteen {
    /// The puzzle with the default partition built.
    pub fn new() -> Fifteen {
        Fifteen::building(&[DEFAULT_BUILD.to_string()]).expect("the default partition exists")
    }

    /// The puzzle storing the tables of these partitions (in this order).
    pub fn building(names: &[String]) -> Result<Fifteen, String> {
        let all = partitions();
        let mut build: Vec<String> = Vec::new();
        for n in names {
            if !all.iter().any(|p| &p.name == n) {
                return Err(format!(
                    "unknown partition {n:?} of {NAME}; known partitions: {}",
                    all.iter()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if !build.contains(n) {
                build.push(n.clone());
            }
        }
        let tables: usize = (all.iter())
            .filter(|p| build.contains(&p.name))
            .map(|p| p.patterns.len())
            .sum();
        if build.is_empty() || tables > TABLE_KINDS.len() {
            return Err(format!(
                "{NAME} needs one to {} pattern tables",
                TABLE_KINDS.len()
            ));
        }
        Ok(Fifteen {
            grid: Sliding::grid(NAME, 4, 4),
            partitions: all,
            build,
        })
    }

    /// The puzzle a stored definition describes (which partitions it built), if it is
    /// one of this build's.
    pub fn from_definition(text: &str) -> Option<Fifteen> {
        let v: serde_json::Value = serde_json::from_str(text).ok()?;
        let names: Vec<String> = (v["build"].as_array()?.iter())
            .map(|n| n.as_str().map(str::to_string))
            .collect::<Option<_>>()?;
        let f = Fifteen::building(&names).ok()?;
        (f.definition() == v).then_some(f)
    }

    pub fn definition(&self) -> serde_json::Value {
        let partitions: serde_json::Map<String, serde_json::Value> = (self.partitions.iter())
            .map(|p| (p.name.clone(), json!(p.patterns)))
            .collect();
        json!({
            "cells": 16,
            "rows": 4,
            "cols": 4,
            "goal": self.grid.format_cells(&goal()),
            "notation": "tile in each cell in cell order, 0 for the blank; comma- or space-separated numbers",
            "partitions": partitions,
            "build": self.build,
            "tables": "one per pattern of each built partition: for every placement of its tiles (ranked as k-permutations of the 16 cells), the minimum number of moves of those tiles to bring them home, other tiles indistinguishable and their moves free",
            "search": "IDA* over the sum of a partition's tables, maximised with the same sum for the board reflected about its main diagonal",
        })
    }

    /// The partitions whose tables are built, in order.
    pub fn built(&self) -> Vec<&Partition> {
        (self.build.iter())
            .filter_map(|n| self.partitions.iter().find(|p| &p.name == n))
            .collect()
    }

    /// The patterns of a partition on the 4x4 grid.
    pub fn patterns(partition: &Partition) -> Vec<Pattern> {
        (partition.patterns.iter())
            .map(|t| Pattern::new(Grid::new(4, 4), t).expect("partitions are valid patterns"))
            .collect()
    }

    /// Parses a position; wrong-parity arrangements are [`StateError::Unsolvable`].
    pub fn parse(&self, text: &str) -> Result<Vec<u8>, StateError> {
        use crate::space::GraphPuzzle;
        self.grid.parse(text)?;
        self.grid.parse_cells(text)
    }

    pub fn format(&self, cells: &[u8]) -> String {
        self.grid.format_cells(cells)
    }

    /// The sliding grid that ranks and parses 4x4 arrangements.
    pub fn grid(&self) -> &Sliding {
        &self.grid
    }
}

impl Default for Fifteen {
    fn default() -> Self {
        Fifteen::new()
    }
}

/// The registry with `fifteen` building these partitions' tables (`generate
/// --partition`).
pub fn registry_building(names: &[String]) -> Result<Vec<super::Puzzle>, String> {
    let f = Fifteen::building(names)?;
    let mut all = super::registry();
    for p in &mut all {
        if let super::Puzzle::Patterns(old) = p {
            *old = Fifteen::building(&f.build)?;
        }
    }
    Ok(all)
}

/// `1, 2, ..., 15, 0`.
pub fn goal() -> Vec<u8> {
    (1..16).chain([0]).collect()
}

/// Converts one of Korf's instances (goal: the blank top-left, tile t in cell t) to this
/// puzzle's goal: the board turned 180 degrees, tile t relabelled 16 - t.
pub fn from_korf(cells: &[u8]) -> Vec<u8> {
    (0..16)
        .map(|c| match cells[15 - c] {
            0 => 0,
            t => 16 - t,
        })
        .collect()
}

/// Every table of the built partitions, computed by the shared BFS, as packed `u8` tables.
pub fn record<'a>(
    f: &Fifteen,
    base: PuzzleRecord<'a>,
    progress: &dyn Progress,
) -> Result<PuzzleRecord<'a>, String> {
    let mut packed = Vec::new();
    for part in f.built() {
        for (i, p) in Fifteen::patterns(part).iter().enumerate() {
            let started = Instant::now();
            let table = pattern::build(p, progress).map_err(|e| e.to_string())?;
            let l = ByteLayout::new(p.placements());
            let mut layout = l.describe();
            layout["partition"] = json!(part.name);
            layout["pattern"] = json!(i);
            layout["tiles"] = json!(p.tiles());
            layout["ranking"] = json!(
                "tiles in increasing order; rank = sum_i d_i * P(15 - i, k - 1 - i), d_i = cell of tile i minus the number of earlier tiles in lower cells"
            );
            layout["seconds"] = json!(started.elapsed().as_secs_f64());
            progress.phase("packing", l.chunks());
            packed.push(PackedTable {
                kind: TABLE_KINDS[packed.len()],
                encoding: "u8",
                ranks_per_chunk: l.ranks_per_chunk(),
                layout: layout.to_string(),
                chunks: (0..l.chunks()).map(|c| l.encode_chunk(c, &table)).collect(),
            });
        }
    }
    // `states` counts the ranks the breadth-first searches examined (placements times
    // regions of every pattern), so that generate's rate means what it does elsewhere.
    let examined = (f.built().iter())
        .flat_map(|part| Fifteen::patterns(part))
        .map(|p| pattern::PatternSpace::new(&p).size())
        .sum();
    Ok(PuzzleRecord {
        storage: Storage::Patterns,
        counts: false,
        states: examined,
        solvable: crate::rank::FACT[16] / 2,
        packed,
        ..base
    })
}

/// The heuristic of one stored partition from its tables (in pattern order).
pub fn heuristic(
    partition: &Partition,
    tables: Vec<Vec<u8>>,
    reflect: bool,
) -> Result<Heuristic, HeuristicError> {
    Heuristic::new(Fifteen::patterns(partition), tables, reflect)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_cover_the_tiles_once() {
        for p in partitions() {
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
        let f = Fifteen::new();
        assert_eq!(f.built()[0].name, "6-6-3");
        let text = f.definition().to_string();
        let back = Fifteen::from_definition(&text).unwrap();
        assert_eq!(back.definition(), f.definition());
        let both = Fifteen::building(&["7-8".into(), "6-6-3".into()]).unwrap();
        assert_eq!(
            Fifteen::from_definition(&both.definition().to_string())
                .unwrap()
                .build,
            ["7-8", "6-6-3"]
        );
        assert!(Fifteen::building(&["5-5-5".into()]).is_err());
        assert!(Fifteen::building(&[]).is_err());
        assert!(Fifteen::from_definition("{}").is_none());
    }

    #[test]
    fn korf_instances_convert_to_this_goal() {
        let korf_goal: Vec<u8> = (0..16).collect();
        assert_eq!(from_korf(&korf_goal), goal());
        // Korf's instance 1 is solvable in our orientation too.
        let one = [14, 13, 15, 7, 11, 12, 9, 5, 6, 0, 2, 1, 4, 8, 10, 3];
        let f = Fifteen::new();
        let text = f.format(&from_korf(&one));
        assert_eq!(text, "13,6,8,12,15,14,0,10,11,7,4,5,9,1,3,2");
        assert_eq!(f.parse(&text).unwrap(), from_korf(&one));
    }
}
