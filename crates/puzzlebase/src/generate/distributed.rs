//! The backend that runs across processes ([`Processes`]): process 0 runs the build as
//! usual and, for each breadth-first unit (a move graph's table or packed chunks, one
//! pattern table), tells the other processes what to solve; all of them then run the
//! distributed search ([`crate::solvers::distributed`]) together, each on its share, and
//! send their part of the result, already packed, to process 0, which alone writes the
//! file. A two-bit table (the 2x7) is too large to gather: process 0 writes its own
//! share's chunks first and receives the others' a piece at a time as it writes
//! (`ShareStream`), so no process holds more than its share. Everything else (peg
//! boards, enumerations) process 0 computes on its own cores.
//!
//! The other processes run [`work`]: they wait for a unit, rebuild its state space from
//! the definition process 0 sends (the same rule as a stored definition, so users'
//! puzzles work too), solve their share, and stop when process 0 says the build is over.
//! The messages between them are [`Job`]s, serialised with postcard.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::catalog;
use crate::core::digest::hex;
use crate::core::packed::{CODE_RANKS_PER_CHUNK, ChunkLayout, CodeLayout, CountLayout, RunLayout};
use crate::core::progress::{Progress, Silent};
use crate::core::records::Chunks;
use crate::core::space::GraphPuzzle;
use crate::families::Puzzle;
use crate::generate::backend::{Backend, BackendError, Local, PackedGraph, TwoBitGraph};
use crate::solvers::bfs::{self, DistanceTable, Outputs, Solved, UNREACHED, WIDE_UNREACHED};
use crate::solvers::distributed::{self, Checkpoint, Comm, Distances, Reduce, Share};
use crate::solvers::pattern::{self, Entry, Grid, Pattern, PatternSpace};

mod stream;
use stream::ShareStream;

/// What process 0 asks of the others.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub enum Job {
    /// Solve a move graph: its table (`packed` false: distances, next ranks and counts)
    /// or its packed chunks (with counts when `counts`).
    Graph {
        name: String,
        definition: String,
        packed: bool,
        counts: bool,
    },
    /// Solve a move graph two bits per rank (distance mod 4), each process keeping its
    /// share of the table.
    TwoBit { name: String, definition: String },
    /// Solve one pattern table.
    Pattern { rows: u8, cols: u8, tiles: Vec<u8> },
    /// The build is over; `stored` when the file was written (checkpoints go).
    Finish { stored: bool },
}

/// Where units keep their checkpoints, and whether a run continues them.
#[derive(Debug, Clone)]
pub struct Checkpoints {
    /// The directory of every unit's checkpoints (`<db>.checkpoints` by default).
    pub dir: PathBuf,
    /// Continue from the checkpoints there (`--resume`) rather than start afresh.
    pub resume: bool,
}

/// The backend over a group of processes (this one is process 0).
pub struct Processes<'c> {
    comm: &'c dyn Comm,
    checkpoints: Option<Checkpoints>,
    /// Checkpoint directories of the units solved so far (removed once stored).
    units: Mutex<Vec<PathBuf>>,
    /// One CSV line per level: the exchange figures (`--exchange-log`).
    log: Option<Mutex<std::fs::File>>,
    finished: Mutex<bool>,
}

impl<'c> Processes<'c> {
    /// The backend of process 0 of `comm`. `log`, when given, receives a CSV line per
    /// level of every unit: `unit,processes,level,states,bytes,entries,seconds,exchange_seconds`.
    pub fn new(
        comm: &'c dyn Comm,
        checkpoints: Option<Checkpoints>,
        log: Option<&Path>,
    ) -> std::io::Result<Processes<'c>> {
        let log = match log {
            None => None,
            Some(path) => {
                let mut f = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)?;
                if f.metadata()?.len() == 0 {
                    writeln!(
                        f,
                        "unit,processes,level,states,bytes,entries,seconds,exchange_seconds"
                    )?;
                }
                Some(Mutex::new(f))
            }
        };
        Ok(Processes {
            comm,
            checkpoints,
            units: Mutex::new(Vec::new()),
            log,
            finished: Mutex::new(false),
        })
    }

    /// Tells the other processes the build is over (`stored`: the file was written, so
    /// every unit's checkpoint is removed). Called once; dropping the backend without
    /// it says the build failed.
    pub fn finish(&self, stored: bool) {
        let mut finished = self.finished.lock().unwrap();
        if std::mem::replace(&mut *finished, true) {
            return;
        }
        self.send(&Job::Finish { stored });
        let units: Vec<PathBuf> = self.units.lock().unwrap().drain(..).collect();
        if stored {
            for dir in &units {
                let _ = distributed::remove_checkpoint(dir, self.comm);
            }
        }
        // Once every process has removed its files, the directories are empty.
        self.comm.any(false);
        if stored {
            for dir in &units {
                let _ = std::fs::remove_dir(dir);
            }
            if let Some(c) = &self.checkpoints {
                let _ = std::fs::remove_dir(&c.dir);
            }
        }
    }

    fn send(&self, job: &Job) {
        let bytes = postcard::to_stdvec(job).expect("a job serialises");
        self.comm.broadcast(bytes);
    }

    fn record(&self, stats: &Stats) {
        if let Some(log) = &self.log {
            let mut f = log.lock().unwrap();
            let unit = &stats.key;
            for (d, e) in stats.exchanges.iter().enumerate() {
                let level = stats.resumed as usize + d;
                let states = stats.levels.get(level + 1).copied().unwrap_or(0);
                let _ = writeln!(
                    f,
                    "{unit},{},{},{states},{},{},{:.6},{:.6}",
                    self.comm.size(),
                    level + 1,
                    e.bytes,
                    e.entries,
                    e.seconds,
                    e.exchange_seconds
                );
            }
        }
    }
}

impl Drop for Processes<'_> {
    fn drop(&mut self) {
        self.finish(false);
    }
}

/// The loop of every process but 0: solves the units process 0 sends until it says the
/// build is over. Returns whether the file was stored.
pub fn work(comm: &dyn Comm, checkpoints: Option<Checkpoints>) -> Result<bool, BackendError> {
    let mut units: Vec<PathBuf> = Vec::new();
    loop {
        let job: Job =
            postcard::from_bytes(&comm.broadcast(Vec::new())).map_err(BackendError::Message)?;
        if let Job::Finish { stored } = job {
            if stored {
                for dir in units {
                    let _ = distributed::remove_checkpoint(&dir, comm);
                }
            }
            comm.any(false);
            return Ok(stored);
        }
        // A unit this process cannot even start fails on every process (see `agree`);
        // process 0 reports it and goes on to `Finish`.
        let _ = run(comm, checkpoints.as_ref(), &job, &mut units, &Silent);
    }
}

/// What a unit's search did, for the exchange log.
struct Stats {
    key: String,
    levels: Vec<u64>,
    resumed: u32,
    exchanges: Vec<distributed::Exchange>,
}

impl Stats {
    fn of(share: &Share) -> Stats {
        Stats {
            key: String::new(),
            levels: share.levels.clone(),
            resumed: share.resumed,
            exchanges: share.exchanges.clone(),
        }
    }
}

/// The result of a unit, on process 0.
enum Output<'c> {
    Table(Solved),
    Packed(PackedGraph),
    Pattern(pattern::PatternTable),
    /// `None` when the graph needs the one-process search (see [`two_bit_graph`]).
    TwoBit(Option<TwoBitGraph<'c>>),
}

/// Runs one unit on this process (any rank): resolves the job to a state space, solves
/// its share, and brings the parts to process 0 (`Some` there, `None` elsewhere).
fn run<'c>(
    comm: &'c dyn Comm,
    checkpoints: Option<&Checkpoints>,
    job: &Job,
    units: &mut Vec<PathBuf>,
    progress: &dyn Progress,
) -> Result<(Option<Output<'c>>, Stats), BackendError> {
    match job {
        Job::TwoBit { name, definition } => {
            let resolved = resolve_graph(name, definition);
            let puzzle = agree(comm, resolved, "rebuilding the puzzle from its definition")?;
            let g = puzzle.as_ref();
            let key = format!("{name}-two-bit-{}", short_hash(definition));
            let dir = checkpoints.map(|c| c.dir.join(&key));
            two_bit_graph(comm, g, checkpoint(&dir, checkpoints), progress).map(|(out, stats)| {
                units.extend(dir);
                (out, Stats { key, ..stats })
            })
        }
        Job::Graph {
            name,
            definition,
            packed,
            counts,
        } => {
            let resolved = resolve_graph(name, definition);
            let puzzle = agree(comm, resolved, "rebuilding the puzzle from its definition")?;
            let g = puzzle.as_ref();
            let kind = if *packed { "packed" } else { "table" };
            let key = format!("{name}-{kind}-{}", short_hash(definition));
            let dir = checkpoints.map(|c| c.dir.join(&key));
            if *packed {
                packed_graph(comm, g, *counts, checkpoint(&dir, checkpoints), progress)
            } else {
                graph_table(comm, g, checkpoint(&dir, checkpoints), progress)
            }
            .map(|(out, stats)| {
                units.extend(dir);
                (out, Stats { key, ..stats })
            })
        }
        Job::Pattern { rows, cols, tiles } => {
            let p = Pattern::new(Grid::new(*rows as usize, *cols as usize), tiles)
                .map_err(BackendError::from);
            let p = agree(comm, p, "rebuilding the pattern")?;
            let tiles: Vec<String> = tiles.iter().map(|t| t.to_string()).collect();
            let key = format!("pattern-{rows}x{cols}-{}", tiles.join("."));
            let dir = checkpoints.map(|c| c.dir.join(&key));
            pattern_table(comm, &p, checkpoint(&dir, checkpoints), progress).map(|(out, stats)| {
                units.extend(dir);
                (out, Stats { key, ..stats })
            })
        }
        Job::Finish { .. } => unreachable!("the loop stops at Finish"),
    }
}

fn checkpoint<'a>(dir: &'a Option<PathBuf>, c: Option<&Checkpoints>) -> Option<Checkpoint<'a>> {
    Some(Checkpoint {
        dir: dir.as_deref()?,
        resume: c?.resume,
    })
}

fn short_hash(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes())[..6])
}

/// The move graph a job names, rebuilt from the definition it carries: a job of the
/// move-graph searches is refused for a puzzle of any other kind.
fn resolve_graph(name: &str, definition: &str) -> Result<Box<dyn GraphPuzzle>, BackendError> {
    let p = catalog::lookup(name, Some(definition)).map_err(BackendError::Lookup)?;
    let want: serde_json::Value =
        serde_json::from_str(definition).map_err(BackendError::Definition)?;
    match p {
        Puzzle::Graph(g) if g.definition() == want => Ok(g),
        Puzzle::Graph(_) => Err(BackendError::OtherDefinition {
            name: name.to_string(),
        }),
        Puzzle::Peg(_)
        | Puzzle::Magic(_)
        | Puzzle::Tour(_)
        | Puzzle::Patterns(_)
        | Puzzle::Clusters(_) => Err(BackendError::NotGraph {
            name: name.to_string(),
        }),
    }
}

/// A local result every process must agree on before going further: if any process
/// failed, every one returns an error (the failing one its own error).
fn agree<T>(
    comm: &dyn Comm,
    r: Result<T, BackendError>,
    what: &'static str,
) -> Result<T, BackendError> {
    let failed = comm.any(r.is_err());
    match r {
        Ok(_) if failed => Err(BackendError::Elsewhere { what }),
        r => r,
    }
}

/// Serialises `part`, gathers every process's at process 0 and decodes them there.
fn gather<T: Serialize + for<'de> Deserialize<'de>>(comm: &dyn Comm, part: &T) -> Option<Vec<T>> {
    let bytes = postcard::to_stdvec(part).expect("a share serialises");
    let all = comm.gather(&bytes)?;
    Some(
        all.iter()
            .map(|b| postcard::from_bytes(b).expect("a share from another process decodes"))
            .collect(),
    )
}

fn solve_share<S: crate::core::space::StateSpace + ?Sized>(
    comm: &dyn Comm,
    space: &S,
    outputs: Outputs,
    granule: u64,
    checkpoint: Option<Checkpoint>,
    progress: &dyn Progress,
) -> Result<Share, BackendError> {
    distributed::solve(space, outputs, granule, comm, checkpoint, progress)
        .map_err(BackendError::from)
}

/// Chunks of a share sent to process 0 at a time (16 MB of two-bit codes).
const PIECE_CHUNKS: u64 = 4096;

/// A move graph's two-bit search, split across the processes
/// ([`distributed::twobit`]). Process 0 gets the table as a stream of chunks: its own
/// share's, then each other process's, a piece at a time, as the store writes them, so
/// no process ever holds more than its share. `Output::TwoBit(None)` (on every process
/// alike) when the graph needs the one-process search: not bipartite, or some rank out
/// of reach (the mod-3 code).
fn two_bit_graph<'c>(
    comm: &'c dyn Comm,
    g: &dyn GraphPuzzle,
    checkpoint: Option<Checkpoint>,
    progress: &dyn Progress,
) -> Result<(Option<Output<'c>>, Stats), BackendError> {
    let layout = CodeLayout::new(g.size(), 4).map_err(BackendError::from);
    let layout = agree(comm, layout, "laying out the two-bit table")?;
    let share =
        distributed::twobit::solve_share(g, CODE_RANKS_PER_CHUNK, comm, checkpoint, progress)?;
    let out = |o: Output<'c>| (comm.rank() == 0).then_some(o);
    let Some(share) = share else {
        let stats = Stats {
            key: String::new(),
            levels: Vec::new(),
            resumed: 0,
            exchanges: Vec::new(),
        };
        return Ok((out(Output::TwoBit(None)), stats));
    };
    let stats = Stats {
        key: String::new(),
        levels: share.levels.clone(),
        resumed: share.resumed,
        exchanges: share.exchanges.clone(),
    };
    let mut stream = ShareStream::new(comm, layout, share.partition, share.blocks, PIECE_CHUNKS);
    if comm.rank() != 0 {
        stream.send();
        return Ok((None, stats));
    }
    let table = TwoBitGraph {
        layout,
        chunks: Chunks::Streamed {
            count: layout.chunks(),
            chunks: Box::new(stream),
        },
        levels: share.levels,
        farthest: share.farthest,
    };
    Ok((out(Output::TwoBit(Some(table))), stats))
}

#[derive(Serialize, Deserialize)]
struct TablePart {
    dist: Vec<u8>,
    /// The distances at four bytes a rank, in place of `dist`, when the search went
    /// past distance 254 (on every process alike).
    wide: Vec<u32>,
    next: Vec<u32>,
    count: Vec<u64>,
}

fn graph_table(
    comm: &dyn Comm,
    g: &dyn GraphPuzzle,
    checkpoint: Option<Checkpoint>,
    progress: &dyn Progress,
) -> Result<(Option<Output<'static>>, Stats), BackendError> {
    let share = solve_share(comm, g, Outputs::ALL, 1, checkpoint, progress)?;
    let stats = Stats::of(&share);
    let overflowed = share
        .count
        .iter()
        .filter(|&&c| c == crate::core::format::COUNT_OVERFLOW)
        .count() as u64;
    let overflowed = comm.reduce(Reduce::Sum, &[overflowed])[0];
    let levels = share.levels.clone();
    let is_wide = matches!(share.dist, Distances::Wide(_));
    let (dist, wide) = match share.dist {
        Distances::Narrow(d) => (d, Vec::new()),
        Distances::Wide(w) => (Vec::new(), w),
    };
    let part = TablePart {
        dist,
        wide,
        next: share.next,
        count: share.count,
    };
    let Some(parts) = gather(comm, &part) else {
        return Ok((None, stats));
    };
    drop(part);
    let (mut dist, mut wide, mut next, mut count) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for p in parts {
        dist.extend(p.dist);
        wide.extend(p.wide);
        next.extend(p.next);
        count.extend(p.count);
    }
    let solved = if is_wide {
        Solved::Wide(DistanceTable {
            dist: wide,
            next,
            count,
            levels,
            overflowed,
            expansions: Vec::new(),
        })
    } else {
        Solved::Narrow(DistanceTable {
            dist,
            next,
            count,
            levels,
            overflowed,
            expansions: Vec::new(),
        })
    };
    Ok((Some(Output::Table(solved)), stats))
}

#[derive(Serialize, Deserialize)]
struct PackedPart {
    distance: Vec<Vec<u8>>,
    counts: Vec<Vec<u8>>,
    farthest: Vec<u64>,
}

fn packed_graph(
    comm: &dyn Comm,
    g: &dyn GraphPuzzle,
    counts: bool,
    checkpoint: Option<Checkpoint>,
    progress: &dyn Progress,
) -> Result<(Option<Output<'static>>, Stats), BackendError> {
    let layout = agree(
        comm,
        g.packing().ok_or_else(|| BackendError::NoPacking {
            name: g.name().to_string(),
        }),
        "finding the packed layout",
    )?;
    // Shares hold whole chunks of both tables (count chunks are 4000 bytes of 1, 2, 4
    // or 8-byte counts, so a multiple of 4000 ranks is whole at every width).
    let granule = if counts {
        lcm(
            layout.ranks_per_chunk(),
            crate::core::packed::CHUNK_BYTES as u64,
        )
    } else {
        layout.ranks_per_chunk()
    };
    let outputs = Outputs {
        next: false,
        counts,
    };
    let share = solve_share(comm, g, outputs, granule, checkpoint, progress)?;
    let stats = Stats::of(&share);
    let max = share.max_distance();
    // The entries widen past distance 254 as one process's table does
    // (`run-steps-16`, `-32`); the same on every process, as the levels are.
    let layout = layout.fitting(max);
    let most = share.count.iter().copied().max().unwrap_or(0);
    let count_layout = CountLayout::for_counts(g.size(), comm.reduce(Reduce::Max, &[most])[0]);
    let part = pack_share(
        comm.rank(),
        &layout,
        counts.then_some(&count_layout),
        &share,
        max,
    );
    let part = agree(comm, part, "packing its share")?;
    let Some(parts) = gather(comm, &part) else {
        return Ok((None, stats));
    };
    let mut done = PackedGraph {
        layout: crate::core::packed::DistanceLayout::Runs(layout),
        distance: Vec::new(),
        counts: None,
        levels: share.levels,
        farthest: Vec::new(),
    };
    let mut count_chunks = Vec::new();
    for p in parts {
        done.distance.extend(p.distance);
        count_chunks.extend(p.counts);
        done.farthest.extend(p.farthest);
    }
    if counts {
        done.counts = Some((count_layout, count_chunks));
    }
    Ok((Some(Output::Packed(done)), stats))
}

/// The share of process `me`: its chunks of the distance table (and of the count table
/// in `counts`) and its ranks at distance `max`.
fn pack_share(
    me: usize,
    layout: &RunLayout,
    counts: Option<&CountLayout>,
    share: &Share,
    max: u32,
) -> Result<PackedPart, BackendError> {
    use rayon::prelude::*;
    let base = share.range.start;
    let chunks_of = |per: u64| share.partition.chunks(me, per);
    let chunks = chunks_of(layout.ranks_per_chunk());
    let (distance, farthest) = match &share.dist {
        Distances::Narrow(d) => pack_distances(layout, chunks, base, d, UNREACHED, max),
        Distances::Wide(d) => pack_distances(layout, chunks, base, d, WIDE_UNREACHED, max),
    };
    let count_chunks = if let Some(l) = counts {
        chunks_of(l.ranks_per_chunk())
            .into_par_iter()
            .map(|c| l.encode_chunk_from(c, &share.count, base))
            .collect()
    } else {
        Vec::new()
    };
    Ok(PackedPart {
        distance: distance?,
        counts: count_chunks,
        farthest,
    })
}

/// A share's distance chunks `chunks` (its ranks from `base` in `dist`, `unreached`
/// where the goal is out of reach), and its ranks at distance `max`.
fn pack_distances<D: Copy + Into<u32> + Eq + Send + Sync>(
    layout: &RunLayout,
    chunks: std::ops::Range<u64>,
    base: u64,
    dist: &[D],
    unreached: D,
    max: u32,
) -> (
    Result<Vec<Vec<u8>>, crate::core::packed::PackError>,
    Vec<u64>,
) {
    use rayon::prelude::*;
    let distance = chunks
        .into_par_iter()
        .map(|c| {
            layout.encode_chunk_with(c, |r| {
                Some(dist[(r - base) as usize])
                    .filter(|&d| d != unreached)
                    .map(Into::into)
            })
        })
        .collect();
    let farthest = (dist.iter().enumerate())
        .filter(|&(_, &d)| d != unreached && d.into() == max)
        .map(|(i, _)| base + i as u64)
        .collect();
    (distance, farthest)
}

fn lcm(a: u64, b: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    a / gcd(a, b) * b
}

fn pattern_table(
    comm: &dyn Comm,
    p: &Pattern,
    checkpoint: Option<Checkpoint>,
    progress: &dyn Progress,
) -> Result<(Option<Output<'static>>, Stats), BackendError> {
    let space = PatternSpace::new(p);
    let share = solve_share(
        comm,
        &space,
        Outputs::DISTANCES,
        space.slots(),
        checkpoint,
        progress,
    )?;
    let stats = Stats::of(&share);
    // A pattern table holds a byte per placement, as one process's does.
    let Distances::Narrow(dist) = &share.dist else {
        return Err(bfs::SolveError::TooDeep {
            max: UNREACHED as u32 - 1,
        }
        .into());
    };
    let minimum = comm.any(pattern::needs_minimum(p, dist));
    let entry = if minimum {
        Entry::Minimum
    } else {
        Entry::LargestRegion
    };
    let first = share.range.start / space.slots();
    let bytes = pattern::encode_placements(p, entry, first, dist);
    drop(share);
    let Some(parts) = gather(comm, &bytes) else {
        return Ok((None, stats));
    };
    let table = pattern::PatternTable {
        entry,
        bytes: parts.concat(),
    };
    Ok((Some(Output::Pattern(table)), stats))
}

impl<'c> Processes<'c> {
    fn unit(&self, job: Job, progress: &dyn Progress) -> Result<Output<'c>, BackendError> {
        self.send(&job);
        let mut units = Vec::new();
        let (out, stats) = run(
            self.comm,
            self.checkpoints.as_ref(),
            &job,
            &mut units,
            progress,
        )?;
        self.units.lock().unwrap().extend(units);
        self.record(&stats);
        Ok(out.expect("process 0 receives the result"))
    }

    fn graph_job(g: &dyn GraphPuzzle, packed: bool, counts: bool) -> Job {
        Job::Graph {
            name: g.name().to_string(),
            definition: g.definition().to_string(),
            packed,
            counts,
        }
    }
}

impl Backend for Processes<'_> {
    fn graph_table(
        &self,
        g: &dyn GraphPuzzle,
        progress: &dyn Progress,
    ) -> Result<Solved, BackendError> {
        match self.unit(Self::graph_job(g, false, true), progress)? {
            Output::Table(t) => Ok(t),
            _ => unreachable!("a graph job gives a table"),
        }
    }

    fn packed_graph(
        &self,
        g: &dyn GraphPuzzle,
        layout: &RunLayout,
        counts: bool,
        progress: &dyn Progress,
    ) -> Result<PackedGraph, BackendError> {
        if g.packing().map(|l| l.describe()) != Some(layout.describe()) {
            return Err(BackendError::ForeignLayout {
                name: g.name().to_string(),
            });
        }
        match self.unit(Self::graph_job(g, true, counts), progress)? {
            Output::Packed(p) => Ok(p),
            _ => unreachable!("a packed job gives chunks"),
        }
    }

    /// Split across the processes when the distance mod 4 applies; otherwise (the
    /// mod-3 code) process 0 alone, with the same file either way.
    fn two_bit_graph<'s>(
        &'s self,
        g: &dyn GraphPuzzle,
        progress: &dyn Progress,
    ) -> Result<TwoBitGraph<'s>, BackendError> {
        let job = Job::TwoBit {
            name: g.name().to_string(),
            definition: g.definition().to_string(),
        };
        match self.unit(job, progress)? {
            Output::TwoBit(Some(t)) => Ok(t),
            Output::TwoBit(None) => Local.two_bit_graph(g, progress),
            _ => unreachable!("a two-bit job gives codes"),
        }
    }

    fn pattern_table(
        &self,
        p: &Pattern,
        progress: &dyn Progress,
    ) -> Result<pattern::PatternTable, BackendError> {
        let job = Job::Pattern {
            rows: p.grid().rows as u8,
            cols: p.grid().cols as u8,
            tiles: p.tiles().to_vec(),
        };
        match self.unit(job, progress)? {
            Output::Pattern(t) => Ok(t),
            _ => unreachable!("a pattern job gives a table"),
        }
    }
}

#[cfg(test)]
mod tests;
