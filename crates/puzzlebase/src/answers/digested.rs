//! The check of every stored value a reader answers from against the digests beside
//! the data ([`crate::store::digests`]): the group of rows (or the packed chunk) that
//! holds it is read whole and hashed the first time this reader needs it, and then
//! remembered for the reader's life (a statement, in the SQLite extension; a
//! connection, in `query`, the server and the Python package, whose connections are
//! dropped when the file changes). This is what holds on a plain SQLite host, where
//! pages are read without puzzlebase's page checksums.

use std::collections::BTreeMap;

use super::{Database, Result};
use crate::store::digests::Checked;

/// A table of one puzzle: (puzzle, table, kind).
type TableOf = (String, &'static str, String);

/// The groups already found sound, by puzzle, table and kind: first key -> next.
#[derive(Default)]
pub(super) struct Digested {
    groups: Vec<(TableOf, BTreeMap<i64, i64>)>,
}

impl Digested {
    fn holds(&self, puzzle: &str, table: &str, kind: &str, key: i64) -> bool {
        self.groups
            .iter()
            .find(|((p, t, k), _)| p == puzzle && *t == table && k == kind)
            .and_then(|(_, m)| m.range(..=key).next_back())
            .is_some_and(|(_, &next)| key < next)
    }

    fn insert(&mut self, puzzle: &str, table: &'static str, kind: &str, first: i64, next: i64) {
        let at = self
            .groups
            .iter()
            .position(|((p, t, k), _)| p == puzzle && *t == table && k == kind);
        let at = at.unwrap_or_else(|| {
            let id = (puzzle.to_string(), table, kind.to_string());
            self.groups.push((id, BTreeMap::new()));
            self.groups.len() - 1
        });
        self.groups[at].1.insert(first, next);
    }
}

impl Database {
    /// Refuses, as damage, a value of `table` (of `kind`, for packed chunks) at `key`
    /// whose group does not match its digest or has none; `key` is any for a table
    /// kept whole. A group is checked once per reader.
    pub(super) fn digested(
        &self,
        puzzle: &str,
        table: &'static str,
        kind: &str,
        key: i64,
    ) -> Result<()> {
        if self.digested.borrow().holds(puzzle, table, kind, key) {
            return Ok(());
        }
        let checked = self
            .conn
            .check_digest(puzzle, table, kind, key)
            .map_err(self.sql())?;
        self.remember(puzzle, table, kind, checked)
    }

    /// Keeps a sound group for the reader's life; a damaged one is refused.
    fn remember(&self, puzzle: &str, table: &'static str, kind: &str, c: Checked) -> Result<()> {
        match c {
            Checked::Sound { first, next } => {
                (self.digested.borrow_mut()).insert(puzzle, table, kind, first, next);
                Ok(())
            }
            Checked::Damaged(what) => Err(self.inconsistent(format!("{puzzle}: {what}"))),
        }
    }

    /// [`Database::digested`] for packed chunk `chunk` of table `kind`, whose bytes
    /// were just read (`data`): hashed as they are, not read again.
    pub(super) fn digested_chunk(
        &self,
        puzzle: &str,
        kind: &str,
        chunk: i64,
        data: &[u8],
    ) -> Result<()> {
        let table = "packed_chunks";
        if self.digested.borrow().holds(puzzle, table, kind, chunk) {
            return Ok(());
        }
        let checked = self
            .conn
            .check_chunk(puzzle, kind, chunk, data)
            .map_err(self.sql())?;
        self.remember(puzzle, table, kind, checked)
    }

    /// [`Database::digested`] for the tables of `puzzle` kept whole that every answer
    /// may read: its `puzzles` row, histogram, layers, peg matrix and packed layouts.
    pub(super) fn digested_small(&self, puzzle: &str) -> Result<()> {
        for table in [
            "puzzles",
            "histogram",
            "peg_layers",
            "peg_matrix",
            "packed_tables",
        ] {
            self.digested(puzzle, table, "", 0)?;
        }
        Ok(())
    }
}
