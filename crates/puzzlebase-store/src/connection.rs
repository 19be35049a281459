//! What the layers above ask of a connection besides the rows the parent module reads
//! and writes: how it is tuned (a long-lived reader, a bulk reader, a scratch file being
//! built), read snapshots, the previous file attached for copying, SQLite's own
//! structure check, and two existence probes. Callers pass values, never SQL.

use super::owner::{Reader, Sql};

impl Reader {
    /// Lets SQLite memory-map up to `bytes` of the file, so that page reads are memory reads
    /// rather than a system call each. SQLite maps no more than the file's size, so a
    /// generous limit costs only address space.
    pub fn memory_map(&self, bytes: u64) -> Sql<()> {
        self.execute_batch(&format!("PRAGMA mmap_size = {bytes};"))
    }

    /// Sets this connection's page cache to `kib` KiB.
    pub fn page_cache(&self, kib: u32) -> Sql<()> {
        self.execute_batch(&format!("PRAGMA cache_size = -{kib};"))
    }

    /// Turns off the rollback journal and syncing, for a file that is discarded rather than
    /// rolled back when its writer fails.
    pub fn without_journal(&self) -> Sql<()> {
        self.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
    }

    /// Restores SQLite's default rollback journal, the mode a finished file is left in.
    pub fn with_journal(&self) -> Sql<()> {
        self.execute_batch("PRAGMA journal_mode = DELETE;")
    }

    /// Attaches the file named by the SQLite URI `uri` as `prev`, the schema that
    /// [`super::Writer::copy_puzzle`] copies from (an `immutable` URI keeps that file out of reach of
    /// any write).
    pub fn attach_previous(&self, uri: &str) -> Sql<()> {
        self.execute("ATTACH DATABASE ?1 AS prev", [uri])?;
        Ok(())
    }

    /// Detaches what [`Reader::attach_previous`] attached.
    pub fn detach_previous(&self) -> Sql<()> {
        self.execute("DETACH DATABASE prev", [])?;
        Ok(())
    }

    /// Whether any stored position of `puzzle` has no distance (one probe of the
    /// `(puzzle, distance)` index).
    pub fn has_positions_without_distance(&self, puzzle: &str) -> Sql<bool> {
        self.query_row(
            "SELECT EXISTS (SELECT 1 FROM positions WHERE puzzle = ?1 AND distance IS NULL)",
            [puzzle],
            |r| r.get(0),
        )
    }

    /// Whether `state` is a stored solution of `puzzle`, canonical or not.
    pub fn solution_stored(&self, puzzle: &str, state: &str) -> Sql<bool> {
        self.query_row(
            "SELECT EXISTS (SELECT 1 FROM solutions WHERE puzzle = ?1 AND state = ?2)",
            [puzzle, state],
            |r| r.get(0),
        )
    }
}
