//! Peg boards stored as layers: every chunk decodes, every stored position is canonical
//! and reachable (the forward pass is run again, as long as the build's), its distance
//! is 1 + the minimum over its moves within the table (0 for the finish alone), every
//! reachable position one jump before a stored one is stored too (so none that can
//! finish is missing), and the layers, histogram, start and farthest positions are
//! recounted.

use std::path::Path;

use crate::store::Reader;
use rayon::prelude::*;
use thiserror::Error;

use super::check::{Check, Derived, bad};
use super::stored::{farthest_rows_are, must_be_empty, packed_table_rows, read_chunks};
use crate::core::progress::Progress;
use crate::solvers::peg::Board;
use crate::solvers::peg::layers::table::{self, ENCODING, Layer, PegLayout, SPAN_RANKS};
use crate::solvers::peg::layers::{self, Layout};
use crate::store::audit::Table;

pub(super) fn peg_layers(
    conn: &Reader,
    path: &Path,
    name: &str,
    board: &Board,
    progress: &dyn Progress,
) -> Check<Derived> {
    must_be_empty(
        conn,
        name,
        &[Table::Positions, Table::Solutions, Table::PegMatrix],
    )?;
    let rows = packed_table_rows(conn, name)?;
    let [row] = &rows[..] else {
        return bad(format!(
            "{} packed tables, but a board stored as layers has one",
            rows.len()
        ));
    };
    if row.kind != "distance"
        || row.encoding != ENCODING
        || row.ranks_per_chunk != SPAN_RANKS as i64
    {
        return bad(format!(
            "packed_tables: kind {:?}, encoding {:?}, {} ranks per chunk; layers are distance, {ENCODING:?}, {SPAN_RANKS}",
            row.kind, row.encoding, row.ranks_per_chunk
        ));
    }
    let Ok(layout) = serde_json::from_str::<PegLayout>(&row.layout) else {
        return bad("packed_tables.layout does not parse as a peg-layers layout");
    };
    if let Err(why) = layout.check(board.holes, row.chunks.max(0) as u64) {
        return bad(format!("packed_tables.layout: {why}"));
    }
    let layout_of = Layout::new(board);
    let colex = &layout_of.colex;
    let mut chunks = read_chunks(conn, name, "distance", row.chunks.max(0) as u64)?.into_iter();
    let n = board.holes;
    let mut tables: Vec<Layer> = (0..=n).map(|_| Layer::default()).collect();
    for l in &layout.layers {
        let k = l.pegs as usize;
        let mine: Vec<Vec<u8>> = chunks.by_ref().take(l.chunks as usize).collect();
        let mut positions = 0;
        for (c, blob) in mine.iter().enumerate() {
            if !blob.is_empty() {
                match table::check(blob) {
                    Ok(e) => positions += e as u64,
                    Err(e) => return bad(format!("layer of {k} pegs, chunk {c}: {}", e.0)),
                }
            }
        }
        if positions != l.positions {
            return bad(format!(
                "packed_tables.layout: {} positions of {k} pegs, but its chunks hold {positions}",
                l.positions
            ));
        }
        tables[k] = Layer {
            base: l.base,
            chunks: mine,
        };
    }

    let scratch = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let (mut forward, reach, _) = layers::forward(&layout_of, scratch, progress).or_else(|e| {
        bad(format!(
            "the forward pass needs scratch space in {}: {e}",
            scratch.display()
        ))
    })?;
    let finish = layout_of.canonical(board.finish);
    let fpegs = finish.count_ones() as usize;
    let mut histogram: Vec<[u64; 2]> = Vec::new();
    let mut finishing = vec![[0u64; 2]; n + 1];
    let mut farthest: Vec<(u8, u64)> = Vec::new();
    progress.phase("checking layers", n as u64 + 1);
    let mut above = match forward.get_mut(0).and_then(Option::take) {
        Some(mut s) => Some(s.load().or_else(|e| bad(format!("scratch: {e}")))?),
        None => None,
    };
    for k in 0..=n {
        let here = above.take();
        above = match forward.get_mut(k + 1).and_then(Option::take) {
            Some(mut s) => Some(s.load().or_else(|e| bad(format!("scratch: {e}")))?),
            None => None,
        };
        let t = &tables[k];
        progress.advance(1);
        if t.chunks.is_empty() {
            continue;
        }
        let at = |b: u64| format!("{k} pegs, state {}", board.format(b));
        let tables = &tables[..];
        let found = (0..t.chunks.len())
            .into_par_iter()
            .map(|c| -> Check<ChunkFigures> {
                let mut hist: Vec<[u64; 2]> = Vec::new();
                let mut far: Vec<(u8, u64)> = Vec::new();
                let blob = &t.chunks[c];
                if blob.is_empty() {
                    return Ok((hist, far));
                }
                let mut err = None;
                table::entries(blob, t.base, |r, d| {
                    if err.is_some() {
                        return;
                    }
                    let rank = c as u64 * SPAN_RANKS + r as u64;
                    if rank >= colex.layer_size(k) {
                        err = Some(format!("{k} pegs: rank {rank} is beyond the layer"));
                        return;
                    }
                    let b = colex.unrank(k, rank);
                    if let Err(e) = check_one(
                        &layout_of,
                        tables,
                        here.as_ref(),
                        above.as_ref(),
                        b,
                        d,
                        finish,
                    ) {
                        err = Some(format!("{}: {e}", at(b)));
                        return;
                    }
                    if hist.len() <= d as usize {
                        hist.resize(d as usize + 1, [0, 0]);
                    }
                    hist[d as usize][0] += layout_of.class_size(b);
                    hist[d as usize][1] += 1;
                    match far.first() {
                        Some(&(m, _)) if d < m => {}
                        Some(&(m, _)) if d > m => far = vec![(d, b)],
                        _ => far.push((d, b)),
                    }
                });
                match err {
                    Some(e) => bad(e),
                    None => Ok((hist, far)),
                }
            })
            .collect::<Check<Vec<_>>>()?;
        for (hist, far) in found {
            for (d, h) in hist.iter().enumerate() {
                if histogram.len() <= d {
                    histogram.resize(d + 1, [0, 0]);
                }
                histogram[d][0] += h[0];
                histogram[d][1] += h[1];
                finishing[k][0] += h[0];
                finishing[k][1] += h[1];
            }
            match (farthest.first(), far.first()) {
                (_, None) => {}
                (Some(&(m, _)), Some(&(d, _))) if d < m => {}
                (Some(&(m, _)), Some(&(d, _))) if d > m => farthest = far,
                _ => farthest.extend(far),
            }
        }
    }
    if tables[fpegs].get(layout_of.rank(finish)) != Some(0) {
        return bad("the finish is not stored at distance 0");
    }
    let start = layout_of.canonical(board.start);
    let top = start.count_ones() as usize;
    if tables[top].get(layout_of.rank(start)).is_none() {
        return bad("the start is not stored");
    }

    super::peg::histogram_is(conn, name, &histogram)?;
    let layers: Vec<[u64; 6]> = (0..=n)
        .filter(|&k| reach[k].classes > 0)
        .map(|k| {
            [
                k as u64,
                reach[k].positions,
                finishing[k][0],
                reach[k].classes,
                finishing[k][1],
                reach[k].pairs,
            ]
        })
        .collect();
    super::peg::layers_are(conn, name, &layers)?;

    let max = (histogram.len() as u8).checked_sub(1);
    let mut far: Vec<u64> = farthest.into_iter().map(|(_, b)| b).collect();
    far.sort_unstable();
    farthest_rows_are(conn, name, &far, max.map(u32::from), &|b| board.format(b))?;

    let entries = layout.layers.iter().map(|l| l.positions).sum();
    Ok(Derived {
        entries,
        states: reach.iter().map(|r| r.positions).sum(),
        solvable: finishing.iter().map(|f| f[0]).sum(),
        max_distance: max.map(u32::from),
    })
}

/// One chunk's figures: positions and classes per distance, and its farthest positions
/// (distance, rank).
type ChunkFigures = (Vec<[u64; 2]>, Vec<(u8, u64)>);

/// Why one stored position breaks the rules ([`check_one`]); the caller names the
/// position.
#[derive(Debug, Error)]
enum PositionFault {
    #[error("stored, but not in canonical form")]
    NotCanonical,
    #[error("stored, but not reachable from the start")]
    Unreachable,
    /// The finish, at a distance other than 0.
    #[error("the finish at distance {0}")]
    Finish(u8),
    #[error("distance 0 but it is not the finish")]
    ZeroElsewhere,
    /// A distance, with no move into the table.
    #[error("distance {0} but no move leads to a stored position")]
    NoMove(u8),
    #[error("distance {distance} but its moves' minimum is {minimum}")]
    NotMinimum { distance: u8, minimum: u8 },
    /// A reachable position (in the board's notation) one jump before this one is not
    /// stored, though it can finish through it.
    #[error("{0} is reachable and can finish through it, but it is not stored")]
    Missing(String),
}

/// One stored position `b` at distance `d`: canonical, reachable, 0 only as the finish,
/// otherwise 1 + the minimum over its moves within the table, and every reachable
/// position one jump before it stored as well.
fn check_one(
    layout: &Layout,
    tables: &[Layer],
    here: Option<&layers::bits::Bitmap>,
    above: Option<&layers::bits::Bitmap>,
    b: u64,
    d: u8,
    finish: u64,
) -> Result<(), PositionFault> {
    let board = layout.board;
    if layout.canonical(b) != b {
        return Err(PositionFault::NotCanonical);
    }
    if !here.is_some_and(|f| f.get(layout.rank(b))) {
        return Err(PositionFault::Unreachable);
    }
    if b == finish {
        return if d == 0 {
            Ok(())
        } else {
            Err(PositionFault::Finish(d))
        };
    }
    if d == 0 {
        return Err(PositionFault::ZeroElsewhere);
    }
    let mut min = None::<u8>;
    board.for_each_move(b, |_, after| {
        if let Ok(Some(e)) = layers::distance_of(layout, tables, after) {
            min = Some(min.map_or(e, |m| m.min(e)));
        }
    });
    match min {
        None => return Err(PositionFault::NoMove(d)),
        Some(m) if m + 1 != d => {
            return Err(PositionFault::NotMinimum {
                distance: d,
                minimum: m,
            });
        }
        _ => {}
    }
    let mut missing = None;
    layout.unjumps(b, |p| {
        let c = layout.canonical(p);
        let r = layout.rank(c);
        let k = c.count_ones() as usize;
        if missing.is_none()
            && above.is_some_and(|f| f.get(r))
            && tables.get(k).is_none_or(|t| t.get(r).is_none())
        {
            missing = Some(c);
        }
    });
    match missing {
        Some(c) => Err(PositionFault::Missing(board.format(c))),
        None => Ok(()),
    }
}
