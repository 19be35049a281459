//! A copy of a whole file of this build's rule, page by page, under a new file value:
//! what `generate` rebuilds some puzzles of an existing file in, rather than copying the
//! others row by row into a new file. Every page is checked as it is read, so nothing
//! damaged is carried into the copy, and every page is written with the copy's own value
//! and checksum, so that no page of the previous file (or of a backup of it) passes
//! inside the new one: the copy is as much its own file as one written from nothing.
//! The bytes read are hashed on the way (SHA-256, on a second thread), so that the
//! caller can hold the previous file to its sidecar without reading it again.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::{Rule, checksum, file_value, is_lock_page, open_pages, page_ok, vfs};
use puzzlebase_core::digest::sha256_hex;

/// What [`copy_rekeyed`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Copied {
    /// Every page passed its check and was copied.
    Whole {
        /// The number of pages.
        pages: u64,
        /// The SHA-256 (lower-case hex) of the file copied, as it was read.
        sha256: String,
    },
    /// These pages (numbered from 1) failed their checks, or the file ends inside a
    /// page (its last page number then): the copy is incomplete and must be discarded.
    Failing(Vec<u64>),
    /// The file does not follow this build's rule (older files are rewritten row by
    /// row): nothing was copied.
    OtherRule,
}

/// Bytes read and written at a time (a whole number of pages of any size).
const BUFFER: usize = 4 << 20;

/// Copies the file at `from` to `to` (created, or truncated), page by page: each page
/// is checked against `from`'s value and its page number, then given a new file value
/// (the same on every page) and its checksum under it. The copy is not flushed to disk:
/// the caller writes to it and flushes it once.
pub fn copy_rekeyed(from: &Path, to: &Path) -> std::io::Result<Copied> {
    let (mut src, page) = open_pages(from)?;
    let mut first = vec![0u8; page];
    src.read_exact(&mut first)?;
    if Rule::of(first[20]) != Rule::Bound {
        return Ok(Copied::OtherRule);
    }
    let old = file_value(&first);
    let new = vfs::fresh_value();
    let mut out = File::create(to)?;
    let mut failing = Vec::new();
    let mut number = 0u64;
    // The hash of what is read goes on beside the copy, fed a copy of each buffer.
    let (feed, fed) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
    let hasher = std::thread::spawn(move || {
        let mut h = Sha256::new();
        fed.iter().for_each(|b| h.update(&b));
        sha256_hex(h)
    });
    let mut buf = vec![0u8; BUFFER];
    buf[..page].copy_from_slice(&first);
    let mut got = page;
    let copied = loop {
        while got < buf.len() {
            match src.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        // The hashing thread ends only when `feed` is dropped; it never fails first.
        let _ = feed.send(buf[..got].to_vec());
        let whole = got - got % page;
        for p in buf[..whole].chunks_exact_mut(page) {
            number += 1;
            if is_lock_page(number, page) {
                // Never written by SQLite: copied as it is.
                continue;
            }
            if !page_ok(p, number as u32, old) {
                failing.push(number);
            }
            let n = p.len();
            p[n - 16..n - 8].copy_from_slice(&new);
            let sums = checksum(number as u32, &p[..n - 8]);
            p[n - 8..].copy_from_slice(&sums);
        }
        if let Err(e) = out.write_all(&buf[..whole]) {
            break Err(e);
        }
        if got < buf.len() {
            if whole < got {
                failing.push(number + 1);
            }
            break Ok(());
        }
        got = 0;
    };
    drop(feed);
    let sha256 = hasher
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    copied?;
    Ok(if failing.is_empty() {
        Copied::Whole {
            pages: number,
            sha256,
        }
    } else {
        Copied::Failing(failing)
    })
}
