//! Rebuilding some puzzles of an existing file at a cost proportional to them, not to
//! the file: the previous file is copied page by page into the temporary
//! ([`store::pagesum::copy_rekeyed`]: one sequential read and write, each page checked
//! and given the copy's own file value), the puzzles rebuilt or dropped have their rows
//! deleted and the rebuilt ones written, inside one transaction on the copy, and the
//! copy is then finished, checked and renamed into place as a new file is. The puzzles
//! kept are neither read row by row nor written; their pages and checksums are the
//! previous file's. The bytes copied are hashed on the way and held to the previous
//! file's sidecar: equal, the file is the one a run wrote and checked, so the kept
//! puzzles match their checksums without being hashed again. Used when the previous
//! file is of this build's schema and page rule, is what its sidecar says, and at least
//! one of its puzzles is kept; otherwise [`super::write_new_file`] writes a new file,
//! copying the kept puzzles row by row and hashing them again.

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::time::Instant;

use super::backend::Backend;
use super::{
    Carried, Observer, Options, Result, Summary, asked, build_one, io, reused, seal_and_check, sql,
};
use crate::catalog::identity::definition_hash;
use crate::families::Puzzle;
use crate::store::pagesum::{self, Copied};
use crate::store::{self, PuzzleInfo, integrity, rebuild};

/// Whether the file at `db` can be rebuilt in a copy: of this build's schema (read
/// through the page checks) and page rule.
fn copyable(db: &Path) -> bool {
    store::open_read(db).is_ok() && pagesum::file_rule(db).is_ok_and(|r| r == pagesum::Rule::Bound)
}

/// The puzzles of the registry, in its order, that a run keeps from the previous file:
/// current and not forced.
fn kept<'a>(
    registry: &'a [Puzzle],
    previous: &HashMap<String, PuzzleInfo>,
    opts: &Options,
) -> Vec<&'a Puzzle> {
    (registry.iter())
        .filter(|p| {
            previous
                .get(p.name())
                .is_some_and(|i| i.definition_hash == definition_hash(p))
                && (!asked(p, &opts.only) || !opts.force)
        })
        .collect()
}

/// Writes at `tmp` the file the run makes, from a copy of the previous file at `db`,
/// as [`super::write_new_file`] does from nothing, and returns the same. `None` (and
/// nothing at `tmp`) when it does not apply: no puzzle is kept, the previous file is of
/// another schema or page rule, one of its pages fails its checksum, or its bytes are
/// not those its sidecar names (the new file is then written from nothing, which reports
/// such a file as it always did).
#[allow(clippy::too_many_arguments)]
pub(super) fn in_copy(
    backend: &dyn Backend,
    tmp: &Path,
    db: &Path,
    base: &str,
    registry: &[Puzzle],
    previous: &HashMap<String, PuzzleInfo>,
    carried: &[String],
    opts: &Options,
    full_check: bool,
    observer: &dyn Observer,
) -> Result<Option<(Vec<Summary>, String, integrity::Sealed)>> {
    let kept = kept(registry, previous, opts);
    // Without a sidecar the copy could not be held to anything: not made at all.
    if kept.is_empty() || !integrity::sidecar(db).is_file() || !copyable(db) {
        return Ok(None);
    }
    let started = Instant::now();
    {
        let progress = observer.progress("the file");
        progress.phase("copying", 1);
        match pagesum::copy_rekeyed(db, tmp).map_err(io(tmp))? {
            // Byte for byte the file a run wrote, checked and hashed: its puzzles still
            // match the checksums that run held them to.
            Copied::Whole { sha256, .. } if integrity::sidecar_says(db, base, &sha256) => {
                progress.advance(1)
            }
            // Changed since (even with its page checksums kept), damaged, or without
            // its sidecar: written from nothing, each kept puzzle's rows hashed again.
            _ => {
                fs::remove_file(tmp).map_err(io(tmp))?;
                return Ok(None);
            }
        }
    }
    // The copy's time is the kept puzzles' share of the run, split evenly.
    let copy_seconds = started.elapsed().as_secs_f64() / kept.len() as f64;

    let conn = rebuild::open_copy(tmp)?;
    // Nothing needs rolling back in a file that is discarded on failure.
    conn.without_journal().map_err(sql(tmp))?;
    conn.page_cache(65536).map_err(sql(tmp))?;
    let written = conn.begin().map_err(sql(tmp))?;
    // Every puzzle of the copy not kept goes first (rebuilt, dropped, or unknown to this
    // build), so that the rows written next reuse its pages.
    let gone: Vec<String> = (conn.puzzles().map_err(sql(tmp))?.into_iter())
        .map(|info| info.name)
        .filter(|name| !kept.iter().any(|p| p.name() == name))
        .collect();
    // What they added to the planner statistics, with `meta` as the previous run
    // analysed it.
    let shape_before = conn.key_shape(&gone)?;
    conn.clear_meta()?;
    conn.write_meta(&opts.only).map_err(sql(tmp))?;
    for name in &gone {
        conn.delete_puzzle(name)?;
    }
    let mut summaries = Vec::new();
    for p in registry {
        let name = p.name();
        let started = Instant::now();
        let summary = if kept.iter().any(|k| k.name() == name) {
            // `kept` holds only puzzles in `previous`.
            reused(&previous[name], copy_seconds)
        } else if asked(p, &opts.only) || carried.iter().any(|c| c == name) {
            build_one(
                backend,
                &conn,
                tmp,
                p,
                definition_hash(p),
                started,
                observer,
            )?
        } else {
            continue;
        };
        observer.done(&summary);
        summaries.push(summary);
    }
    conn.write_contents().map_err(sql(tmp))?;
    let built: Vec<String> = (summaries.iter())
        .filter(|s| !s.reused)
        .map(|s| s.name.clone())
        .collect();
    // Read back from the copy, as a new file's are; the kept puzzles keep theirs.
    for name in &built {
        conn.write_digests(name).map_err(sql(tmp))?;
    }
    // The same shape (a puzzle rebuilt as it was): the statistics the file holds are
    // those ANALYZE would write, and it need not read every index of the file again.
    let shape_after = conn.key_shape(&built)?;
    let analyze = shape_before.is_none() || shape_after != shape_before;
    written.commit().map_err(sql(tmp))?;
    let progress = observer.progress("the file");
    progress.phase("compacting", 1);
    conn.finish_rebuilt(analyze).map_err(sql(tmp))?;
    let (created, sealed) = seal_and_check(
        conn,
        tmp,
        &summaries,
        Carried::AsSealed,
        full_check,
        observer,
        progress,
    )?;
    Ok(Some((summaries, created, sealed)))
}
