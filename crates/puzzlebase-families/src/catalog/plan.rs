//! What `generate` would build for a puzzle, without building it: the rank space, the
//! storage chosen and rough costs (`check-definition`).

use serde::Serialize;

use crate::Puzzle;
use puzzlebase_core::records::Storage;
use puzzlebase_core::space::StateSpace;

/// Where `generate` stores a puzzle's answers and whether it keeps shortest-solution
/// counts: the one rule the build, `verify` and the answers apply (move graphs by
/// [`puzzlebase_core::space::graph_tables`]).
pub fn storage(p: &Puzzle) -> (Storage, bool) {
    match p {
        Puzzle::Graph(g) => match puzzlebase_core::space::graph_tables(g.as_ref()) {
            (Storage::Packed, _, counts) => (Storage::Packed, counts),
            (s, _, _) => (s, true),
        },
        Puzzle::Peg(b) => match b.storage() {
            // Counts are derived from the distances by `query`, not stored.
            Storage::PegLayers => (Storage::PegLayers, false),
            s => (s, true),
        },
        Puzzle::Magic(_) | Puzzle::Tour(_) => (Storage::Solutions, false),
        Puzzle::Patterns(_) => (Storage::Patterns, false),
        Puzzle::Clusters(_) => (Storage::Search, false),
    }
}

/// Whether the default `generate` (no `--puzzle`) builds `p` ([`crate::catalog::nightly`]).
pub(super) fn nightly(p: &Puzzle) -> bool {
    match p {
        Puzzle::Peg(b) => b.storage() != Storage::PegLayers,
        Puzzle::Graph(g) => {
            use puzzlebase_core::format::{GraphAsk, two_bit_search};
            !two_bit_search(g.size(), GraphAsk::BySize)
        }
        _ => true,
    }
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
    /// Whether the default `generate` builds it ([`crate::catalog::nightly`]); the others
    /// are built when named.
    pub nightly: bool,
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
        nightly: crate::catalog::nightly(p),
        tables: Vec::new(),
    };
    match p {
        Puzzle::Graph(g) => {
            let size = g.size();
            let (storage, codes, counts) = puzzlebase_core::space::graph_tables(g.as_ref());
            // Codes without counts come from the two-bit search (asked, above 2^31
            // ranks, or a graph without runs above the counts' limit).
            let two_bit = codes && !counts;
            // Two bits: fourteen's 43.6 G ranks in about 15 min (docs/performance.md).
            let (rate, bytes) = match storage {
                Storage::Packed if two_bit => (48e6, 0.26),
                // A byte per rank and the counts (8 bytes each) while solving.
                Storage::Packed if counts => (11e6, 11.0),
                Storage::Packed => (11e6, 3.0),
                _ => (0.6e6, 13.0),
            };
            let storage = storage.as_str();
            Plan {
                states: Some(size),
                states_exact: g.reachable().is_none_or(|r| r == size),
                storage,
                seconds: Some(size as f64 / rate),
                memory_bytes: Some((size as f64 * bytes) as u64),
                ..base
            }
        }
        Puzzle::Peg(b) => {
            let bound = if b.holes >= 64 {
                u64::MAX
            } else {
                1u64 << b.holes
            };
            let storage = b.storage();
            let (seconds, memory) = match storage {
                // The layer solver scans every rank: french37-c1's 2^37 took 757 s, at
                // about 5.9 GiB, three bitmaps of the widest layer.
                Storage::PegLayers => {
                    let widest = puzzlebase_solvers::peg::layers::colex::Colex::new(b.holes)
                        .layer_size(b.holes / 2);
                    (bound as f64 / 180e6, widest.div_ceil(8).saturating_mul(3))
                }
                // Bounds: every bitboard reachable, at english33's rate of about 14 M
                // positions/s and 8 bytes per position kept.
                _ => (bound as f64 / 14e6, bound.saturating_mul(8)),
            };
            Plan {
                states: Some(bound),
                states_exact: false,
                storage: storage.as_str(),
                seconds: Some(seconds),
                memory_bytes: Some(memory),
                tabulate: b.tabulate,
                ..base
            }
        }
        Puzzle::Magic(m) => {
            let n = puzzlebase_core::rank::FACT[m.positions()];
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
        // Nothing is built: each board is searched when asked.
        Puzzle::Clusters(_) => Plan {
            storage: "search",
            seconds: Some(0.0),
            memory_bytes: Some(0),
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
                        let size = puzzlebase_solvers::pattern::PatternSpace::new(p).size();
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
