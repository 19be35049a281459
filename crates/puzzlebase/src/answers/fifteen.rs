//! Answers for puzzles stored as pattern databases (`fifteen`): the tables are read from
//! the file, checked against the stored definition, and an optimal solution is found by
//! search ([`crate::solvers::search`]). This is the one place where `query` searches.

use std::sync::Arc;
use std::time::Instant;

use super::{Database, QueryError, Result};
use crate::catalog::identity;
use crate::core::packed::{ByteLayout, ChunkLayout, ChunkRun};
use crate::families::Puzzle;
use crate::families::fifteen::{self, Fifteen, Partition};
use crate::solvers::pattern::{Entry, PatternTable};
use crate::solvers::search::{self, Heuristic, Stop};
use crate::store;

/// An optimal solution found by search over the stored pattern databases.
#[derive(Debug, Clone, PartialEq)]
#[warn(missing_docs)]
#[non_exhaustive]
pub struct SearchAnswer {
    /// The puzzle.
    pub puzzle: String,
    /// The position, in the puzzle's notation.
    pub state: String,
    /// Its distance to the goal, proved optimal by the search.
    pub distance: u32,
    /// Every position from `state` to the goal, both included.
    pub path: Vec<String>,
    /// The partition whose tables bounded the search.
    pub partition: String,
    /// Whether the reflected lookup was used (always, from `query`).
    pub reflected: bool,
    /// Nodes expanded over every IDA* iteration.
    pub expanded: u64,
    /// Nodes generated over every IDA* iteration.
    pub generated: u64,
    /// Seconds of search.
    pub seconds: f64,
    /// Seconds of reading the tables from the file.
    pub load_seconds: f64,
}

/// A stored partition's tables, loaded and ready to search with
/// ([`Database::pattern_tables`]): [`solve_loaded`] answers positions from them without
/// reading the file again (a program solving many positions loads them once).
pub struct LoadedTables {
    /// The puzzle the tables are for.
    pub puzzle: Fifteen,
    /// The partition of the tiles whose tables these are.
    pub partition: Partition,
    /// The tables, as the search's heuristic.
    pub heuristic: Heuristic,
    /// Seconds of reading the tables from the file.
    pub load_seconds: f64,
}

#[warn(missing_docs)]
impl Database {
    /// Loads the tables of one stored partition of `name` (`None`: the strongest stored
    /// one, the one with the most placements), after checking that the stored definition
    /// is one this build knows and that every table matches it.
    pub fn pattern_tables(
        &self,
        name: &str,
        partition: Option<&str>,
        reflect: bool,
    ) -> Result<LoadedTables> {
        let started = Instant::now();
        let info = self
            .conn
            .puzzle(name)
            .map_err(self.sql())?
            .ok_or_else(|| QueryError::NotGenerated(name.into()))?;
        let stale = || QueryError::Stale(name.to_string());
        let stored = identity::stored_fifteen(&info.definition).map(Puzzle::Patterns);
        let Some(Puzzle::Patterns(puzzle)) = stored.filter(|p| identity::built_from(p, &info))
        else {
            return Err(stale());
        };
        let built: Vec<Partition> = puzzle.built().into_iter().cloned().collect();
        let chosen = match partition {
            Some(p) => built.iter().find(|b| b.name == p).cloned().ok_or_else(|| {
                QueryError::NoPartition {
                    puzzle: name.to_string(),
                    partition: p.to_string(),
                    built: built.iter().map(|b| b.name.clone()).collect(),
                }
            })?,
            None => (built.iter())
                .max_by_key(|b| {
                    puzzle
                        .patterns(b)
                        .iter()
                        .map(|p| p.placements())
                        .sum::<u64>()
                })
                .cloned()
                .ok_or_else(|| inconsistent(name, "its list of partitions"))?,
        };
        let stored = self.conn.packed_tables(name).map_err(self.sql())?;
        let patterns = puzzle.patterns(&chosen);
        let mut tables = Vec::with_capacity(patterns.len());
        for (i, p) in patterns.iter().enumerate() {
            let what = format!("the table of pattern {i} of partition {}", chosen.name);
            let (kind, layout_text, _) = (stored.iter())
                .find(|(_, layout, _)| {
                    serde_json::from_str::<serde_json::Value>(layout).is_ok_and(|v| {
                        v["partition"] == chosen.name.as_str()
                            && v["pattern"] == i
                            && v["tiles"] == serde_json::json!(p.tiles())
                            && ByteLayout::from_description(&v)
                                .is_ok_and(|l| l.ranks() == p.placements())
                    })
                })
                .ok_or_else(|| inconsistent(name, &what))?;
            let layout: serde_json::Value =
                serde_json::from_str(layout_text).map_err(|_| inconsistent(name, &what))?;
            let l = ByteLayout::from_description(&layout).map_err(|_| inconsistent(name, &what))?;
            let entry = (layout["entry"].as_str())
                .and_then(Entry::from_name)
                .ok_or_else(|| inconsistent(name, &what))?;
            let bytes = self
                .read_byte_table(name, kind, layout_text, &l)?
                .ok_or_else(|| inconsistent(name, &what))?;
            // The whole table against its digests: the chunks this reader's own
            // connection read may come through a host that checks no page sums.
            let per = l.ranks_per_chunk();
            if let Some(fact) = self
                .conn
                .chunks_differ(name, kind, &bytes, per)
                .map_err(self.sql())?
            {
                return Err(inconsistent(name, &fact));
            }
            tables.push(PatternTable { entry, bytes });
        }
        let heuristic = fifteen::heuristic(&puzzle, &chosen, tables, reflect)
            .map_err(|e| inconsistent(name, &e.to_string()))?;
        Ok(LoadedTables {
            puzzle,
            partition: chosen,
            heuristic,
            load_seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// The bytes of one packed `u8` table, read by as many threads as the rayon pool
    /// has at once, each its own part of the chunks over its own connection (this one's
    /// for the first part): most of the time goes to copying and to the kernel providing
    /// fresh pages, which two cores do about twice as fast. `None` if a chunk is missing,
    /// out of place or of the wrong size. A connection opened by path could meet a file
    /// that `generate` has just put in place of this one, so each checks that the table's
    /// stored layout, which carries its build time, is the `layout` read here.
    fn read_byte_table(
        &self,
        name: &str,
        kind: &str,
        layout: &str,
        l: &ByteLayout,
    ) -> Result<Option<Vec<u8>>> {
        let per = l.ranks_per_chunk();
        let workers = rayon::current_num_threads().max(1) as u64;
        let part_bytes = (l.chunks().div_ceil(workers).max(1) * per) as usize;
        // Huge pages: fewer page faults while reading (a `query` of Korf's first
        // instance from the 7-8 file took 0.33 s in ordinary pages, 0.14 s in these),
        // though the kernel may first have to compact memory to find them.
        let mut bytes = crate::core::memory::huge_vec(l.ranks() as usize);
        bytes.resize(l.ranks() as usize, 0);
        let mut parts = bytes.chunks_mut(part_bytes).enumerate();
        let first = parts.next();
        let path = &self.path;
        let sql = |source: store::SqlError| {
            QueryError::Store(store::StoreError::from_sqlite(path, source))
        };
        let results: Vec<Result<bool>> = std::thread::scope(|scope| {
            let others: Vec<_> = parts
                .map(|(i, part)| {
                    scope.spawn(move || {
                        let conn = store::open_checked(path)?;
                        let same = (conn.packed_tables(name).map_err(sql)?)
                            .iter()
                            .any(|(k, text, _)| k == kind && text == layout);
                        if !same {
                            return Err(QueryError::NotStored(format!(
                                "{} changed while its tables were read; try again",
                                path.display()
                            )));
                        }
                        read_part(
                            &conn,
                            name,
                            kind,
                            l,
                            i as u64 * part_bytes as u64 / per,
                            part,
                        )
                        .map_err(sql)
                    })
                })
                .collect();
            let mut results = Vec::new();
            if let Some((_, part)) = first {
                results.push(read_part(&self.conn, name, kind, l, 0, part).map_err(sql));
            }
            for h in others {
                results.push(h.join().unwrap_or_else(|_| {
                    Err(QueryError::NotStored(
                        "a thread reading the tables failed".into(),
                    ))
                }));
            }
            results
        });
        for r in results {
            if !r? {
                return Ok(None);
            }
        }
        Ok(Some(bytes))
    }

    /// [`Database::search_until`] of a puzzle answered by search.
    pub(super) fn search_in(
        &self,
        f: &crate::families::fifteen::Fifteen,
        name: &str,
        text: &str,
        stop: &Stop,
    ) -> Result<SearchAnswer> {
        let cells = f.parse(text)?;
        let loaded = self.search_tables(name)?;
        solve_loaded_until(&loaded, name, &cells, stop)
    }

    /// The tables a search of `name` reads: the strongest stored partition with the
    /// reflected lookup, from the server's memory when it holds them
    /// ([`Database::load_resident`]), else read from the file now.
    pub fn search_tables(&self, name: &str) -> Result<Arc<LoadedTables>> {
        if let Some(t) = self.resident_patterns(name) {
            return Ok(t);
        }
        Ok(Arc::new(self.pattern_tables(name, None, true)?))
    }
}

/// Whether `cells` can be solved in at most `limit` moves, by the search [`solve_loaded`]
/// runs (which gives up when `stop` says so). On a sliding puzzle a neighbour of a
/// position `d` moves from the goal is `d - 1` or `d + 1` moves away: asked with
/// `limit = d - 1`, this tells which.
pub fn solvable_within(
    loaded: &LoadedTables,
    name: &str,
    cells: &[u8],
    limit: u32,
    stop: &Stop,
) -> Result<bool> {
    let started = Instant::now();
    search::solve_within(
        &loaded.heuristic,
        cells,
        search::Options::QUERY,
        limit,
        stop,
    )
    .map(|s| s.is_some())
    .map_err(|why| QueryError::Stopped {
        puzzle: name.to_string(),
        why,
        after: stop.seconds_since_start(started),
    })
}

/// Searches `cells` (a position of puzzle `name`, one tile number per cell, 0 the blank)
/// with tables already loaded: the answer [`Database::search`] gives, without the file.
pub fn solve_loaded(loaded: &LoadedTables, name: &str, cells: &[u8]) -> Result<SearchAnswer> {
    solve_loaded_until(loaded, name, cells, &Stop::default())
}

/// [`solve_loaded`] that gives up when `stop` says so.
pub fn solve_loaded_until(
    loaded: &LoadedTables,
    name: &str,
    cells: &[u8],
    stop: &Stop,
) -> Result<SearchAnswer> {
    let f = &loaded.puzzle;
    let started = Instant::now();
    let s = search::solve_until(&loaded.heuristic, cells, search::Options::QUERY, stop)
        .map_err(|why| QueryError::Stopped {
            puzzle: name.to_string(),
            why,
            after: stop.seconds_since_start(started),
        })?
        .ok_or_else(|| inconsistent(name, "its pattern tables (no solution within them)"))?;
    let seconds = started.elapsed().as_secs_f64();
    let path = search::replay(&loaded.heuristic, cells, &s.blanks)
        .filter(|p| p.last().is_some_and(|g| *g == f.goal()))
        .ok_or_else(|| inconsistent(name, "its pattern tables (a path that is not one)"))?;
    Ok(SearchAnswer {
        puzzle: name.to_string(),
        state: f.format(cells),
        distance: s.length,
        path: path.iter().map(|c| f.format(c)).collect(),
        partition: loaded.partition.name.clone(),
        reflected: loaded.heuristic.reflects(),
        expanded: s.expanded,
        generated: s.generated,
        seconds,
        load_seconds: loaded.load_seconds,
    })
}

/// Fills `part` with the chunks of table `kind` (laid out as `l`) from chunk `first` on,
/// memory-mapped (SQLite then reads its pages from the file's cache without copying each
/// first); whether every chunk came, in order and of its size.
fn read_part(
    conn: &store::Reader,
    name: &str,
    kind: &str,
    l: &ByteLayout,
    first: u64,
    part: &mut [u8],
) -> store::Sql<bool> {
    conn.memory_map(1 << 32)?;
    let per = l.ranks_per_chunk();
    let count = (part.len() as u64).div_ceil(per);
    let mut run = ChunkRun::new(first..first + count);
    let chunks = first as i64..=(first + count) as i64 - 1;
    conn.for_each_packed_chunk_in(name, kind, chunks, |c, blob| {
        if run.accept(c, blob, l.chunk_bytes(c)) {
            let at = ((c - first) * per) as usize;
            part[at..at + blob.len()].copy_from_slice(blob);
        }
    })?;
    Ok(run.complete())
}

/// Tables that contradict the search: the file is not what `generate` wrote.
fn inconsistent(puzzle: &str, at: &str) -> QueryError {
    QueryError::Contradicted {
        puzzle: puzzle.to_string(),
        at: at.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::generate::{Job, Observer, Options, Summary, generate_job};
    use crate::solvers::pattern;

    struct Quiet;
    impl Observer for Quiet {
        fn done(&self, _: &Summary) {}
    }

    /// The 6-6-3 tables as `generate` writes them and [`Database::pattern_tables`] reads
    /// them back: every table keeps the rules checked on the table alone, and the 3-tile
    /// table holds the breadth-first relation that defines it (`verify` re-derives all of
    /// them, in an ignored test: tens of seconds).
    #[test]
    fn stored_tables_are_consistent() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("fifteen.sqlite");
        let opts = Options {
            db: db.clone(),
            only: vec!["fifteen".to_string()],
            force: false,
        };
        let job = Job {
            partitions: vec!["6-6-3".to_string()],
            ..Job::default()
        };
        generate_job(&opts, job, &Quiet).unwrap();
        let loaded = super::Database::open(&db)
            .unwrap()
            .pattern_tables("fifteen", Some("6-6-3"), true)
            .unwrap();
        for (p, t) in loaded.heuristic.tables() {
            pattern::check_local(p, t).unwrap();
        }
        let (p, t) = (loaded.heuristic.tables())
            .find(|(p, _)| p.tiles().len() == 3)
            .unwrap();
        pattern::check(p, t).unwrap();
    }
}
