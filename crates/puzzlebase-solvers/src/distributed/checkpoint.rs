//! Checkpoints of the distributed search: after each level every process writes the
//! ranks of its share found at that level (a [`super::wire`] batch, with parents and
//! counts when kept) to a file of its own, so that a killed run resumes from the last
//! level that every process finished. MPI has no fault tolerance; this is what stands
//! in for it.
//!
//! A unit's checkpoint is a directory; each process writes under `p<rank>of<size>/`:
//! `meta` and `level-<d>` for each finished level `d >= 1`. `meta` is two lines of
//! text: the format ([`FORMAT`], `puzzlebase checkpoint format 2`) and what was being
//! solved, with the width of its distance cells. A checkpoint whose `meta` has no
//! format line (written before the format had a version), another format or another
//! problem is refused on resume, never read. A level file is `PBLEVEL2`, the level
//! (u32 LE), the bytes per distance cell the search kept at that level (u8: 1 up to
//! level 254, 4 beyond), the number of entries (u64 LE), the batch, then the SHA-256 of
//! everything before it. It is written as `level-<d>.part`, synced and renamed, so a
//! file with the final name is whole; the checksum catches anything that damaged it
//! since.
//!
//! The two-bit search ([`super::twobit`]) keeps snapshots instead: `snapshot-<d>` holds
//! the whole share's cells at the end of level `d` (a level's ranks alone could not be
//! told apart in two bits). It is `PBSNAP01`, the level (u32 LE), a header of the
//! search's own, then the cells, then the SHA-256 of everything before it; written the
//! same way, streamed (a share of gigabytes is never copied in memory).

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

const MAGIC: &[u8; 8] = b"PBLEVEL2";
/// The first line of every checkpoint's `meta`: the version of the files' layout.
pub const FORMAT: &str = "puzzlebase checkpoint format 2";
/// Bytes of a level file around its batch: magic, level, width, entries, checksum.
const LEVEL_FRAME: usize = 8 + 4 + 1 + 8 + 32;
const SNAPSHOT: &[u8; 8] = b"PBSNAP01";

/// A snapshot being written: [`Write`] it, then [`SnapshotWriter::finish`]. Dropped
/// unfinished, it leaves only a `.part` file, which a resume ignores.
pub struct SnapshotWriter {
    file: io::BufWriter<File>,
    hash: Sha256,
    part: PathBuf,
    path: PathBuf,
}

impl Write for SnapshotWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl SnapshotWriter {
    /// Appends the checksum, syncs and gives the file its final name.
    pub fn finish(mut self) -> io::Result<()> {
        let sum = self.hash.finalize_reset();
        self.file.write_all(&sum)?;
        let file = self.file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        fs::rename(&self.part, &self.path)?;
        if let Some(dir) = self.path.parent() {
            File::open(dir)?.sync_all()?;
        }
        Ok(())
    }
}

/// A snapshot being read: [`io::Read`] its body (after the magic and the level), then
/// [`SnapshotReader::finish`] to learn whether it was whole.
pub struct SnapshotReader {
    file: io::Take<io::BufReader<File>>,
    hash: Sha256,
}

impl io::Read for SnapshotReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
}

impl SnapshotReader {
    /// Whether the body read (all of it) matches the stored checksum.
    pub fn finish(mut self) -> io::Result<bool> {
        use io::Read;
        if self.file.limit() != 0 {
            return Ok(false);
        }
        let mut sum = [0u8; 32];
        self.file.get_mut().read_exact(&mut sum)?;
        Ok(self.hash.finalize().as_slice() == sum)
    }
}

/// One process's checkpoint files for one unit of work.
pub struct Store {
    dir: PathBuf,
}

/// What a process found when it opened its checkpoint to resume.
#[derive(Debug, PartialEq, Eq)]
pub enum Found {
    /// Levels `1..=n` are whole (0: nothing to resume).
    Levels(u32),
    /// The checkpoint is of another problem or was written by another number of
    /// processes: the message says which.
    Mismatch(String),
}

impl Store {
    /// Opens (resume) or starts afresh (not resume) the checkpoint of process `rank` of
    /// `size` in `unit`, for the problem described by `meta`.
    pub fn open(
        unit: &Path,
        rank: usize,
        size: usize,
        meta: &str,
        resume: bool,
    ) -> io::Result<(Store, Found)> {
        let dir = unit.join(format!("p{rank}of{size}"));
        let store = Store { dir };
        if !resume {
            remove_all(&store.dir)?;
        }
        if resume
            && !store.dir.exists()
            && let Some(other) = other_sizes(unit, size)?
        {
            return Ok((
                store,
                Found::Mismatch(format!(
                    "the checkpoint in {} was written by {other} processes, this run has {size}: resume with the same number",
                    unit.display()
                )),
            ));
        }
        fs::create_dir_all(&store.dir)?;
        let meta_path = store.dir.join("meta");
        let meta = format!("{FORMAT}\n{meta}");
        match fs::read_to_string(&meta_path) {
            Ok(stored) if stored == meta => {}
            Ok(stored) if !stored.starts_with(FORMAT.trim_end_matches(char::is_numeric)) => {
                return Ok((
                    store,
                    Found::Mismatch(format!(
                        "the checkpoint in {} was written by an older puzzlebase, in a format \
                         without a version that this one does not read: remove it or start \
                         afresh without resuming",
                        unit.display()
                    )),
                ));
            }
            Ok(stored) if stored.lines().next() != Some(FORMAT) => {
                return Ok((
                    store,
                    Found::Mismatch(format!(
                        "the checkpoint in {} is in another format ({}), this puzzlebase \
                         reads {FORMAT}: remove it or start afresh without resuming",
                        unit.display(),
                        stored.lines().next().unwrap_or_default()
                    )),
                ));
            }
            Ok(stored) => {
                let stored = stored.lines().nth(1).unwrap_or_default().to_string();
                let meta = meta.lines().nth(1).unwrap_or_default();
                return Ok((
                    store,
                    Found::Mismatch(format!(
                        "the checkpoint in {} is of another problem ({}), not of this one ({meta}): remove it or start afresh without resuming",
                        unit.display(),
                        stored.trim()
                    )),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                remove_levels(&store.dir, 0)?;
                store.drop_snapshots_before(u32::MAX)?;
                write_synced(&meta_path, meta.as_bytes())?;
                return Ok((store, Found::Levels(0)));
            }
            Err(e) => return Err(e),
        }
        let mut n = 0;
        while store.read(n + 1)?.is_some() {
            n += 1;
        }
        Ok((store, Found::Levels(n)))
    }

    /// Records level `d`, found with distance cells of `width` bytes, as `entries`
    /// ranks encoded in `batch`.
    pub fn write(&self, d: u32, width: u8, entries: u64, batch: &[u8]) -> io::Result<()> {
        let mut bytes = Vec::with_capacity(batch.len() + LEVEL_FRAME);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&d.to_le_bytes());
        bytes.push(width);
        bytes.extend_from_slice(&entries.to_le_bytes());
        bytes.extend_from_slice(batch);
        let sum = Sha256::digest(&bytes);
        bytes.extend_from_slice(&sum);
        write_synced(&self.level(d), &bytes)
    }

    /// Level `d`'s cell width, entry count and batch, or `None` if it is missing or
    /// damaged.
    pub fn read(&self, d: u32) -> io::Result<Option<(u8, u64, Vec<u8>)>> {
        let mut bytes = match fs::read(self.level(d)) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        if bytes.len() < LEVEL_FRAME || &bytes[..8] != MAGIC {
            return Ok(None);
        }
        let body = bytes.len() - 32;
        if Sha256::digest(&bytes[..body]).as_slice() != &bytes[body..] {
            return Ok(None);
        }
        if u32::from_le_bytes(bytes[8..12].try_into().unwrap()) != d {
            return Ok(None);
        }
        let width = bytes[12];
        let entries = u64::from_le_bytes(bytes[13..21].try_into().unwrap());
        bytes.truncate(body);
        bytes.drain(..21);
        Ok(Some((width, entries, bytes)))
    }

    /// Starts the snapshot of level `d`.
    pub fn snapshot_writer(&self, d: u32) -> io::Result<SnapshotWriter> {
        let path = self.dir.join(format!("snapshot-{d}"));
        let part = path.with_extension("part");
        let mut w = SnapshotWriter {
            file: io::BufWriter::with_capacity(1 << 20, File::create(&part)?),
            hash: Sha256::new(),
            part,
            path,
        };
        w.write_all(SNAPSHOT)?;
        w.write_all(&d.to_le_bytes())?;
        Ok(w)
    }

    /// The levels of the whole snapshots here (by name; their checksums are checked as
    /// they are read), in increasing order.
    pub fn snapshots(&self) -> io::Result<Vec<u32>> {
        let mut found = Vec::new();
        for e in fs::read_dir(&self.dir)? {
            let name = e?.file_name().to_string_lossy().to_string();
            if let Some(d) = name.strip_prefix("snapshot-").and_then(|d| d.parse().ok()) {
                found.push(d);
            }
        }
        found.sort_unstable();
        Ok(found)
    }

    /// Opens the snapshot of level `d`; `None` if it is missing or not a snapshot of `d`.
    pub fn snapshot_reader(&self, d: u32) -> io::Result<Option<SnapshotReader>> {
        use io::Read;
        let path = self.dir.join(format!("snapshot-{d}"));
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let len = file.metadata()?.len();
        if len < 44 {
            return Ok(None);
        }
        let mut r = SnapshotReader {
            file: io::BufReader::with_capacity(1 << 20, file).take(len - 32),
            hash: Sha256::new(),
        };
        let mut head = [0u8; 12];
        r.read_exact(&mut head)?;
        if &head[..8] != SNAPSHOT || u32::from_le_bytes(head[8..].try_into().unwrap()) != d {
            return Ok(None);
        }
        Ok(Some(r))
    }

    /// Removes the snapshots of levels before `d` (every process has `d`), and any
    /// snapshot left half-written.
    pub fn drop_snapshots_before(&self, d: u32) -> io::Result<()> {
        for e in fs::read_dir(&self.dir)? {
            let e = e?;
            let name = e.file_name().to_string_lossy().to_string();
            let Some(rest) = name.strip_prefix("snapshot-") else {
                continue;
            };
            if rest.ends_with(".part") || rest.parse::<u32>().is_ok_and(|l| l < d) {
                fs::remove_file(e.path())?;
            }
        }
        Ok(())
    }

    /// Removes the level files after level `n` (a resume continues from `n`).
    pub fn keep_levels(&self, n: u32) -> io::Result<()> {
        remove_levels(&self.dir, n)
    }

    /// Removes this process's files (the unit is finished and stored).
    pub fn remove(&self) -> io::Result<()> {
        remove_all(&self.dir)?;
        if let Some(unit) = self.dir.parent() {
            // Empty once every process has removed its own.
            let _ = fs::remove_dir(unit);
        }
        Ok(())
    }

    fn level(&self, d: u32) -> PathBuf {
        self.dir.join(format!("level-{d}"))
    }
}

/// Another process count whose files are in `unit` while this one's are not.
fn other_sizes(unit: &Path, size: usize) -> io::Result<Option<usize>> {
    let entries = match fs::read_dir(unit) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    for e in entries {
        let name = e?.file_name().to_string_lossy().to_string();
        if let Some((_, n)) = name.split_once("of")
            && let Ok(n) = n.parse::<usize>()
            && n != size
        {
            return Ok(Some(n));
        }
    }
    Ok(None)
}

fn remove_levels(dir: &Path, after: u32) -> io::Result<()> {
    for e in fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().to_string();
        let Some(rest) = name.strip_prefix("level-") else {
            continue;
        };
        let d = rest
            .trim_end_matches(".part")
            .parse::<u32>()
            .unwrap_or(u32::MAX);
        if d > after || rest.ends_with(".part") {
            fs::remove_file(e.path())?;
        }
    }
    Ok(())
}

fn remove_all(dir: &Path) -> io::Result<()> {
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let part = path.with_extension("part");
    let mut f = File::create(&part)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    fs::rename(&part, path)?;
    if let Some(dir) = path.parent() {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}
