//! Move puzzles, in row storage (one `positions` row per position that can reach the goal)
//! and in packed tables (the `run-steps` distance table, counts when stored, `farthest`;
//! or two-bit distances, checked by [`two_bit_graph`]).
//!
//! Both are checked by local conditions over every rank, which together prove the table
//! exact: goals are present at distance 0 and no other position is at 0; a present
//! position's distance is one more than the minimum over its present neighbours; an
//! absent position has no present neighbour (so the present set is exactly the goals'
//! components); the next rank is the smallest neighbour one step closer; a count is the
//! sum over the neighbours one step closer. A packed chunk must also be exactly the
//! encoding of the entries it decodes to, and counts stored in the narrowest encoding
//! that holds them.

use crate::store::Reader;
use crate::store::Value;
use rayon::prelude::*;

use super::check::{
    Check, Derived, bad, counts_in_narrowest, decode_count_chunk, first_failure, same, show_count,
    show_dist, show_opt,
};
use super::stored::{
    ChunkOrder, UNUSED_WHEN_PACKED, farthest_rows_are, int, int_in, int_rows, must_be_empty,
    packed_table_rows, read_chunks, same_rows, table_columns_are, text,
};
use crate::core::format::{COUNT_OVERFLOW, UNREACHED, add_counts};
use crate::core::packed::{CODE_RANKS_PER_CHUNK, ChunkLayout, CodeLayout, CountLayout, RunLayout};
use crate::core::progress::Progress;
use crate::core::space::GraphPuzzle;
use crate::solvers::{twobit, twobit_led};
use crate::store::audit::{PackedTableRow, Table};

/// A move puzzle's tables as read from the file, indexed by rank: distances of a byte
/// (a one-byte `run-steps` table) or of four (rows, which hold any distance, and the
/// wider `run-steps` tables).
struct GraphTables<D> {
    /// [`Dist::ABSENT`] where absent.
    dist: Vec<D>,
    /// [`NO_NEXT`] where NULL; empty when the storage has no next ranks.
    next: Vec<u64>,
    /// [`COUNT_OVERFLOW`] where the overflow marker is stored; empty without counts.
    count: Vec<u64>,
}

const NO_NEXT: u64 = u64::MAX;

/// A distance entry of [`GraphTables`]: its type's largest value marks an absent rank.
trait Dist: Copy + Ord + Send + Sync + std::fmt::Display {
    const ABSENT: Self;
    fn get(self) -> Option<u32>;
    /// The entry of a distance (`None`: absent) that the type holds.
    fn of(d: Option<u32>) -> Self;
}

impl Dist for u8 {
    const ABSENT: u8 = UNREACHED;
    fn get(self) -> Option<u32> {
        (self != UNREACHED).then_some(self as u32)
    }
    /// Only ever given what a one-byte `run-steps` entry decodes to (at most 254).
    fn of(d: Option<u32>) -> u8 {
        d.map_or(UNREACHED, |d| d as u8)
    }
}

impl Dist for u32 {
    const ABSENT: u32 = u32::MAX;
    fn get(self) -> Option<u32> {
        (self != u32::MAX).then_some(self)
    }
    fn of(d: Option<u32>) -> u32 {
        d.unwrap_or(u32::MAX)
    }
}

/// Row storage: one row of `positions` per position that can reach the goal.
pub(super) fn row_graph(
    conn: &Reader,
    name: &str,
    g: &dyn GraphPuzzle,
    progress: &dyn Progress,
) -> Check<Derived> {
    must_be_empty(
        conn,
        name,
        &[
            Table::PegLayers,
            Table::PegMatrix,
            Table::Solutions,
            Table::PackedTables,
            Table::PackedChunks,
            Table::Farthest,
        ],
    )?;
    let n = g.size();
    let mut t = GraphTables::<u32> {
        dist: vec![u32::ABSENT; n as usize],
        next: vec![NO_NEXT; n as usize],
        count: vec![0; n as usize],
    };
    conn.for_each_row(Table::Positions, name, |row| -> Check<()> {
        let rank = int_in(row[0], 0, n as i64 - 1, &|| "positions.rank".to_string())? as u64;
        let at = || format!("rank {rank} (state {})", g.format(rank));
        let state = text(row[1], &|| format!("{}: state", at()))?;
        if state.as_deref() != Some(g.format(rank).as_str()) {
            return bad(format!(
                "{}: state text {:?} is not the notation of the rank",
                at(),
                state.unwrap_or_default()
            ));
        }
        let d = int_in(row[2], 0, u32::ABSENT as i64 - 1, &|| {
            format!("{}: distance", at())
        })?;
        t.dist[rank as usize] = d as u32;
        if let Some(next) = int(row[3], &|| format!("{}: next_rank", at()))? {
            if !(0..n as i64).contains(&next) {
                return bad(format!(
                    "{}: next rank {next} is outside the rank space",
                    at()
                ));
            }
            t.next[rank as usize] = next as u64;
        }
        t.count[rank as usize] = match int(row[4], &|| format!("{}: solutions", at()))? {
            None => COUNT_OVERFLOW,
            Some(c) if c >= 0 => c as u64,
            Some(c) => return bad(format!("{}: {c} shortest solutions", at())),
        };
        if !matches!(row[5], Value::Null) {
            return bad(format!(
                "{}: a move is stored, but moves are for peg boards",
                at()
            ));
        }
        Ok(())
    })?;
    let (levels, max) = check_graph(g, &t, None, progress)?;
    histogram_is(conn, name, &levels)?;
    Ok(Derived {
        entries: n,
        states: n,
        solvable: levels.iter().sum(),
        max_distance: max,
    })
}

/// The local conditions at every rank (see the module docs). Returns the number of
/// positions at each distance and the maximum distance.
/// `packed`: the layout the distances were decoded from, so that a failure also names
/// the chunk that holds the entry.
fn check_graph<D: Dist>(
    g: &dyn GraphPuzzle,
    t: &GraphTables<D>,
    packed: Option<&RunLayout>,
    progress: &dyn Progress,
) -> Check<(Vec<u64>, Option<u32>)> {
    let mut goals = g.goals();
    goals.sort_unstable();
    let is_goal = |r: u64| goals.binary_search(&r).is_ok();
    let at = |r: u64| match packed {
        Some(l) => format!(
            "rank {r} (state {}, distance chunk {})",
            g.format(r),
            l.locate(r).chunk
        ),
        None => format!("rank {r} (state {})", g.format(r)),
    };
    let (next, count) = (!t.next.is_empty(), !t.count.is_empty());
    progress.phase("checking", g.size());
    first_failure(g.size(), progress, |r, nbs| {
        let d = t.dist[r as usize];
        nbs.clear();
        g.neighbors(r, nbs);
        let Some(d) = d.get() else {
            if is_goal(r) {
                return bad(format!("{}: a goal, but it is missing", at(r)));
            }
            if let Some(&nb) = nbs.iter().find(|&&nb| t.dist[nb as usize] != D::ABSENT) {
                return bad(format!(
                    "{} is missing, but its neighbour rank {nb} is stored at distance {}, so it can reach the goal",
                    at(r),
                    t.dist[nb as usize]
                ));
            }
            if count && t.count[r as usize] != 0 {
                return bad(format!(
                    "{}: cannot reach the goal, but {} shortest solutions are stored",
                    at(r),
                    show_count(t.count[r as usize])
                ));
            }
            return Ok(());
        };
        let stored_next = if next { t.next[r as usize] } else { NO_NEXT };
        let stored_count = if count { t.count[r as usize] } else { 1 };
        if is_goal(r) {
            if d != 0 {
                return bad(format!("{}: a goal, but its distance is {d}", at(r)));
            }
            if stored_next != NO_NEXT {
                return bad(format!(
                    "{}: a goal, but it has next rank {stored_next}",
                    at(r)
                ));
            }
            if stored_count != 1 {
                return bad(format!(
                    "{}: a goal, but {} shortest solutions are stored (1 expected)",
                    at(r),
                    show_count(stored_count)
                ));
            }
            return Ok(());
        }
        if d == 0 {
            return bad(format!("{}: distance 0 but it is not a goal", at(r)));
        }
        let Some(min) = nbs.iter().filter_map(|&nb| t.dist[nb as usize].get()).min() else {
            return bad(format!(
                "{}: distance {d} but no neighbour is stored, so it cannot reach the goal",
                at(r)
            ));
        };
        if d != min + 1 {
            return bad(format!(
                "{}: distance {d} but its successors' minimum is {min}",
                at(r)
            ));
        }
        let closer = || (nbs.iter().copied()).filter(|&nb| t.dist[nb as usize].get() == Some(min));
        if next {
            let smallest = closer().min().expect("the minimum is attained");
            if stored_next == NO_NEXT {
                return bad(format!("{}: no next rank stored", at(r)));
            }
            if !nbs.contains(&stored_next) {
                return bad(format!(
                    "{}: next rank {stored_next} is not one legal move away",
                    at(r)
                ));
            }
            if t.dist[stored_next as usize].get() != Some(min) {
                return bad(format!(
                    "{}: next rank {stored_next} is not one step closer (its distance is {})",
                    at(r),
                    show_dist(t.dist[stored_next as usize].get())
                ));
            }
            if stored_next != smallest {
                return bad(format!(
                    "{}: next rank {stored_next} is not the smallest rank one step closer ({smallest} is)",
                    at(r)
                ));
            }
        }
        if count {
            let sum = closer().fold(0, |s, nb| add_counts(s, t.count[nb as usize]));
            if stored_count != sum {
                return bad(format!(
                    "{}: {} shortest solutions stored but its closer successors' counts add up to {}",
                    at(r),
                    show_count(stored_count),
                    show_count(sum)
                ));
            }
        }
        Ok(())
    })?;
    let levels = t
        .dist
        .par_chunks(1 << 16)
        .fold(Vec::new, |mut acc: Vec<u64>, chunk| {
            for d in chunk.iter().filter_map(|d| d.get()) {
                {
                    if acc.len() <= d as usize {
                        acc.resize(d as usize + 1, 0);
                    }
                    acc[d as usize] += 1;
                }
            }
            acc
        })
        .reduce(Vec::new, |mut a, b| {
            if a.len() < b.len() {
                a.resize(b.len(), 0);
            }
            a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
            a
        });
    let max = (!levels.is_empty()).then(|| (levels.len() - 1) as u32);
    Ok((levels, max))
}

/// Packed storage: the `run-steps` distance table (with the puzzle's runs, in the
/// narrowest width that holds its distances), the counts when stored (in the narrowest
/// encoding that holds them), and the `farthest` rows.
pub(super) fn packed_graph(
    conn: &Reader,
    name: &str,
    g: &dyn GraphPuzzle,
    runs: RunLayout,
    counts: bool,
    progress: &dyn Progress,
) -> Check<Derived> {
    must_be_empty(conn, name, UNUSED_WHEN_PACKED)?;
    let n = g.size();
    let stored = packed_table_rows(conn, name)?;
    // So is the distances' width: taken from the stored encoding here, checked against
    // the distances once they are known to be right.
    let layout = match stored.iter().find(|s| s.kind == "distance") {
        Some(s) => match runs.with_encoding(&s.encoding) {
            Some(l) => l,
            None => {
                return bad(format!(
                    "packed_tables distance encoding: {} is not a run-steps encoding",
                    s.encoding
                ));
            }
        },
        None => runs,
    };
    // The counts' width depends on the counts: the stored encoding is taken here and
    // checked against the counts once they are known to be right.
    let count_layout = match stored.iter().find(|s| s.kind == "solutions") {
        Some(s) if counts => match CountLayout::with_encoding(n, &s.encoding) {
            Some(l) => l,
            None => {
                return bad(format!(
                    "packed_tables solutions encoding: {} is not a count encoding",
                    s.encoding
                ));
            }
        },
        _ => CountLayout::for_counts(n, 0),
    };
    let mut want_tables: Vec<(&str, &dyn ChunkLayout)> = vec![("distance", &layout)];
    if counts {
        want_tables.push(("solutions", &count_layout));
    }
    for (i, &(kind, l)) in want_tables.iter().enumerate() {
        let Some(s) = stored.get(i).filter(|s| s.kind == kind) else {
            return bad(format!("packed_tables: the {kind} table is missing"));
        };
        table_is(s, l)?;
    }
    if let Some(s) = stored.get(want_tables.len()) {
        return bad(format!(
            "packed_tables: a {} table the rules do not give",
            s.kind
        ));
    }
    let extra = conn.chunks_outside_move_tables(name, counts)?;
    if extra != 0 {
        return bad(format!("packed_chunks: {extra} chunks of no table"));
    }

    if layout.entry_bytes() == 2 {
        packed_distances::<u8>(
            conn,
            name,
            g,
            &layout,
            counts.then_some(&count_layout),
            progress,
        )
    } else {
        packed_distances::<u32>(
            conn,
            name,
            g,
            &layout,
            counts.then_some(&count_layout),
            progress,
        )
    }
}

/// [`packed_graph`] once its tables' rows are checked: the distances decoded into a
/// table of `D` (the entries' width or wider), the counts, the local conditions, the
/// widths, the histogram and the farthest positions.
fn packed_distances<D: Dist>(
    conn: &Reader,
    name: &str,
    g: &dyn GraphPuzzle,
    layout: &RunLayout,
    count_layout: Option<&CountLayout>,
    progress: &dyn Progress,
) -> Check<Derived> {
    let n = g.size();
    let mut t = GraphTables::<D> {
        dist: vec![D::ABSENT; n as usize],
        next: Vec::new(),
        count: Vec::new(),
    };
    let blobs = read_chunks(conn, name, "distance", layout.chunks())?;
    let per = layout.ranks_per_chunk() as usize;
    let failure = (t.dist.par_chunks_mut(per).zip(&blobs).enumerate())
        .find_map_first(|(c, (dist, blob))| {
            let lo = (c * per) as u64;
            for (i, slot) in dist.iter_mut().enumerate() {
                let r = lo + i as u64;
                *slot = match layout.distance(blob, r) {
                    Ok(d) => D::of(d),
                    Err(_) => {
                        return Some(format!(
                            "distance chunk {c}: the entry of rank {r} (state {}) is impossible or missing",
                            g.format(r)
                        ));
                    }
                };
            }
            // Bits no reader looks at (past a run's end, or in an unreachable run) must be
            // what the encoder writes, so the blob is exactly the encoding of its entries.
            match layout.encode_chunk_with(c as u64, |r| dist[(r - lo) as usize].get()) {
                Ok(canonical) if canonical == *blob => None,
                Ok(canonical) => {
                    let byte = (0..blob.len().max(canonical.len()))
                        .find(|&i| blob.get(i) != canonical.get(i))
                        .unwrap_or(0);
                    Some(format!(
                        "distance chunk {c} byte {byte}: not the encoding of the distances it decodes to"
                    ))
                }
                Err(e) => Some(format!("distance chunk {c}: {e}")),
            }
        });
    if let Some(fact) = failure {
        return bad(fact);
    }
    drop(blobs);
    if let Some(count_layout) = count_layout {
        t.count = vec![0; n as usize];
        let blobs = read_chunks(conn, name, "solutions", count_layout.chunks())?;
        let per = count_layout.ranks_per_chunk() as usize;
        let failure = (t.count.par_chunks_mut(per).zip(&blobs).enumerate()).find_map_first(
            |(c, (count, blob))| decode_count_chunk(count_layout, c as u64, blob, count).err(),
        );
        if let Some(fail) = failure {
            return Err(fail);
        }
    }
    let (levels, max) = check_graph(g, &t, Some(layout), progress)?;
    let narrowest = layout.fitting(max.unwrap_or(0));
    if narrowest != *layout {
        return bad(format!(
            "packed_tables distance encoding: {}, but distances up to {} take {}",
            layout.encoding(),
            max.unwrap_or(0),
            narrowest.encoding()
        ));
    }
    if let Some(count_layout) = count_layout {
        counts_in_narrowest(count_layout, &t.count)?;
    }

    histogram_is(conn, name, &levels)?;

    // The farthest positions: every rank at the maximum distance, with its notation.
    let far: Vec<u64> = match max {
        Some(m) => {
            let mut v: Vec<u64> = (t.dist.par_iter().enumerate())
                .filter(|&(_, &d)| d.get() == Some(m))
                .map(|(r, _)| r as u64)
                .collect();
            v.sort_unstable();
            v
        }
        None => Vec::new(),
    };
    farthest_rows_are(conn, name, &far, max, &|r| g.format(r))?;
    Ok(Derived {
        entries: n,
        states: n,
        solvable: levels.iter().sum(),
        max_distance: max,
    })
}

/// A move graph's `packed_tables` row is `layout`'s, its description included.
fn table_is(s: &PackedTableRow, layout: &dyn ChunkLayout) -> Check<()> {
    table_columns_are(s, layout)?;
    same(
        &format!("packed_tables {} layout", s.kind),
        s.layout.as_str(),
        layout.describe().to_string().as_str(),
    )
}

/// The stored `histogram` of a move puzzle is `levels` (positions per distance; its rows
/// are stored without symmetry, so classes equal positions).
fn histogram_is(conn: &Reader, name: &str, levels: &[u64]) -> Check<()> {
    let histogram: Vec<Vec<Option<i64>>> = (levels.iter().enumerate())
        .map(|(d, &c)| vec![Some(d as i64), Some(c as i64), Some(c as i64)])
        .collect();
    let stored = int_rows(conn, Table::Histogram, name)?;
    let key = |r: &[Option<i64>]| format!("distance {}", show_opt(r[0]));
    same_rows("histogram", &key, &stored, &histogram)
}

/// Packed storage with two-bit distances (`mod4`/`mod3`): one distance table (and, for a
/// graph without runs solved a byte per rank, the count table beside it) and the
/// `farthest` rows. Every chunk must be whole, with the bits past the last rank clear;
/// the codes then lead a breadth-first search from the goals
/// ([`twobit_led::Codes::check`]) that proves each is its rank's distance modulo 4 or 3
/// (or, in `mod3`, that the goal is out of reach), and gives the histogram and the
/// farthest positions; the counts must follow the codes
/// ([`super::coded::counts_follow_codes`]). The modulus must be the one the solver's rule
/// gives ([`twobit::modulus_of`]). Returns, beside what the rows give, their checksum,
/// taken in the same read of the file as the tables.
pub(super) fn two_bit_graph(
    conn: &Reader,
    name: &str,
    g: &dyn GraphPuzzle,
    counts: bool,
    progress: &dyn Progress,
) -> Check<(Derived, String)> {
    must_be_empty(conn, name, UNUSED_WHEN_PACKED)?;
    let n = g.size();
    let stored = packed_table_rows(conn, name)?;
    let want = if counts { 2 } else { 1 };
    if stored.len() != want {
        return bad(format!(
            "packed_tables: {} tables, the rules give {want} ({})",
            stored.len(),
            if counts {
                "distance, solutions"
            } else {
                "distance"
            }
        ));
    }
    let s = &stored[0];
    same("packed_tables distance kind", s.kind.as_str(), "distance")?;
    let modulus = match s.encoding.as_str() {
        "mod4" => 4,
        "mod3" => 3,
        other => {
            return bad(format!(
                "packed_tables distance encoding: {other} is not a two-bit encoding (mod4 or mod3)"
            ));
        }
    };
    let layout = CodeLayout::new(n, modulus).or_else(|e| bad(e.to_string()))?;
    table_is(s, &layout)?;
    let count_layout = match stored.get(1) {
        Some(s) => {
            same("packed_tables solutions kind", s.kind.as_str(), "solutions")?;
            let Some(l) = CountLayout::with_encoding(n, &s.encoding) else {
                return bad(format!(
                    "packed_tables solutions encoding: {} is not a count encoding",
                    s.encoding
                ));
            };
            table_is(s, &l)?;
            Some(l)
        }
        None => None,
    };
    let extra = conn.chunks_outside_move_tables(name, counts)?;
    if extra != 0 {
        return bad(format!("packed_chunks: {extra} chunks of no table"));
    }

    // The codes as the solver holds them, 32 to a little-endian word: a chunk is a whole
    // number of words, since its bytes are. They are read with the checksum, in one pass
    // over the file, and made ready for the search as they come.
    const _: () = assert!(CODE_RANKS_PER_CHUNK.is_multiple_of(32));
    progress.phase("reading the codes", layout.chunks());
    let mut codes = twobit_led::Codes::new(g, modulus);
    let mut order = ChunkOrder::new("distance", layout.chunks());
    // With counts (at most a byte-per-rank graph's size): the codes kept as bytes too,
    // for the counts' check, and the counts decoded.
    let mut coded = super::coded::Tables::new(count_layout);
    let mut count_order = ChunkOrder::new("solutions", count_layout.map_or(0, |l| l.chunks()));
    let kinds: &[&str] = if counts {
        &["distance", "solutions"]
    } else {
        &["distance"]
    };
    let sum = conn.checksum_reading(name, kinds, |kind, chunk, data| {
        if kind == 1 {
            let (c, blob) = count_order.next(chunk, data)?;
            return coded.counts_chunk(c, blob);
        }
        let (c, blob) = order.next(chunk, data)?;
        let want = layout.chunk_bytes(c);
        if blob.len() as u64 != want {
            return bad(format!(
                "distance chunk {c}: {} bytes, {want} expected",
                blob.len()
            ));
        }
        if c + 1 == layout.chunks()
            && !n.is_multiple_of(4)
            && blob[blob.len() - 1] >> (2 * (n % 4)) != 0
        {
            return bad(format!(
                "distance chunk {c} byte {}: bits past the last rank are set",
                blob.len() - 1
            ));
        }
        codes.extend(blob);
        coded.codes_chunk(blob);
        progress.advance(1);
        Ok(())
    })?;
    order.end()?;
    count_order.end()?;

    let led = codes.check(progress).or_else(|f| {
        if f.rank >= n {
            return bad(format!("rank {}: {}", f.rank, f.fact));
        }
        let at = layout.locate(f.rank);
        bad(format!(
            "distance chunk {} byte {} (rank {}, state {}): {}",
            at.chunk,
            at.offset,
            f.rank,
            g.format(f.rank),
            f.fact
        ))
    })?;
    let rule = twobit::modulus_of(g, led.levels.iter().sum());
    if rule != modulus {
        return bad(format!(
            "packed_tables distance encoding: mod{modulus}, but the rules give mod{rule} (the goals' parities and the ranks reached decide)"
        ));
    }
    coded.counts_follow_codes(g, &layout, progress)?;
    histogram_is(conn, name, &led.levels)?;
    let max = (led.levels.len() - 1) as u32;
    farthest_rows_are(conn, name, &led.farthest, Some(max), &|r| g.format(r))?;
    let derived = Derived {
        entries: n,
        states: n,
        solvable: led.levels.iter().sum(),
        max_distance: Some(max),
    };
    Ok((derived, sum))
}
