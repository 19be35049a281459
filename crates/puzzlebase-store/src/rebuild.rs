//! What `generate` asks of a copy of the previous file in which it rebuilds some
//! puzzles ([`super::pagesum::copy_rekeyed`] makes the copy): a writer over it, and the
//! removal of a puzzle's rows, so that the puzzles kept are never read or written again.

use std::path::Path;

use rusqlite::Connection;

use super::owner::Writer;
use super::{DATA_TABLES, Result, StoreError, check_identity, pagesum, sql};

/// Opens the copy at `path` (this build's schema and page rule) for writing. Its pages
/// are checked as they are read and get their checksums as they are written, as a new
/// file's do ([`super::create`]).
pub fn open_copy(path: &Path) -> Result<Writer> {
    pagesum::install().map_err(StoreError::Checksums)?;
    let conn = Connection::open(path).map_err(sql(path))?;
    check_identity(&conn, path)?;
    if pagesum::reserved(&conn).map_err(sql(path))? != pagesum::RESERVED as i32 {
        return Err(StoreError::NoChecksums(path.display().to_string()));
    }
    Ok(Writer::new(conn, path))
}

impl Writer {
    /// Deletes every row of `puzzle` (its `puzzles` row, its rows in every data table and
    /// their digests), inside the caller's transaction: a probe of each table's `(puzzle, ...)` key, so the
    /// cost is that of the puzzle's rows, not of the file's. The pages freed are reused by
    /// the rows written next.
    pub fn delete_puzzle(&self, puzzle: &str) -> Result<()> {
        let path = self.path();
        let conn = self.conn();
        for (table, _) in DATA_TABLES {
            conn.execute(&format!("DELETE FROM {table} WHERE puzzle = ?1"), [puzzle])
                .map_err(sql(path))?;
        }
        conn.execute("DELETE FROM digests WHERE puzzle = ?1", [puzzle])
            .map_err(sql(path))?;
        conn.execute("DELETE FROM puzzles WHERE name = ?1", [puzzle])
            .map_err(sql(path))?;
        Ok(())
    }

    /// Deletes every `meta` row, which the rebuild then writes again as a new file's
    /// ([`Writer::write_meta`], `contents`, `seal`): a key the previous file's
    /// writer added and this build does not write is not carried over.
    pub fn clear_meta(&self) -> Result<()> {
        let path = self.path();
        self.conn()
            .execute("DELETE FROM meta", [])
            .map_err(sql(path))?;
        Ok(())
    }

    /// The pages on the file's free list and in all, after a rebuild's writes.
    pub fn free_pages(&self) -> Result<(u64, u64)> {
        let path = self.path();
        let conn = self.conn();
        let count = |pragma: &str| -> Result<u64> {
            conn.query_row(&format!("PRAGMA {pragma}"), [], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
                .map_err(sql(path))
        };
        Ok((count("freelist_count")?, count("page_count")?))
    }

    /// The [`KeyShape`] of the rows of `puzzles` (each a probe of the indexes' `puzzle`
    /// range: the cost of those puzzles' rows). `None` when an index does not begin with
    /// `puzzle` (a schema this reckoning does not know; ANALYZE is then run).
    pub fn key_shape(&self, puzzles: &[String]) -> Result<Option<KeyShape>> {
        let path = self.path();
        let conn = self.conn();
        let e = sql(path);
        let mut shape = Vec::new();
        for (table, _) in DATA_TABLES {
            let mut indexes = Vec::new();
            let mut st = conn
                .prepare("SELECT name FROM pragma_index_list(?1) ORDER BY name")
                .map_err(&e)?;
            for name in st
                .query_map([table], |r| r.get::<_, String>(0))
                .map_err(&e)?
            {
                indexes.push(name.map_err(&e)?);
            }
            // The table's key: a run of index columns that holds it has a distinct value
            // per row, so its count is the rows', without grouping them.
            let mut st = conn
                .prepare("SELECT name FROM pragma_table_info(?1) WHERE pk > 0")
                .map_err(&e)?;
            let key = st
                .query_map([table], |r| r.get::<_, String>(0))
                .map_err(&e)?
                .collect::<rusqlite::Result<Vec<String>>>()
                .map_err(&e)?;
            for index in indexes {
                // Every column the index holds, key and appended key alike: counting more
                // runs than SQLite does can only make two shapes differ, never agree wrongly.
                let mut st = conn
                    .prepare(
                        "SELECT name FROM pragma_index_xinfo(?1) WHERE cid >= 0 ORDER BY seqno",
                    )
                    .map_err(&e)?;
                let columns = st
                    .query_map([&index], |r| r.get::<_, String>(0))
                    .map_err(&e)?
                    .collect::<rusqlite::Result<Vec<String>>>()
                    .map_err(&e)?;
                if columns.first().map(String::as_str) != Some("puzzle") {
                    return Ok(None);
                }
                let mut sums = vec![0u64; columns.len() + 1];
                for puzzle in puzzles {
                    let rows: u64 = conn
                        .query_row(
                            &format!("SELECT count(*) FROM {table} WHERE puzzle = ?1"),
                            [puzzle],
                            |r| r.get::<_, i64>(0),
                        )
                        .map_err(&e)? as u64;
                    sums[0] += rows;
                    sums[1] += u64::from(rows > 0);
                    for k in 2..=columns.len() {
                        if !key.is_empty() && key.iter().all(|c| columns[..k].contains(c)) {
                            sums[k] += rows;
                            continue;
                        }
                        let group = columns[1..k]
                            .iter()
                            .map(|c| format!("\"{c}\""))
                            .collect::<Vec<_>>()
                            .join(", ");
                        let distinct: i64 = conn
                            .query_row(
                                &format!(
                                    "SELECT count(*) FROM (SELECT 1 FROM {table} WHERE puzzle = ?1 GROUP BY {group})"
                                ),
                                [puzzle],
                                |r| r.get(0),
                            )
                            .map_err(&e)?;
                        sums[k] += distinct as u64;
                    }
                }
                shape.extend(sums);
            }
        }
        for table in ["puzzles", "meta"] {
            // Whole-table counts, the same for both sides of a comparison unless the
            // rebuild changed them; `meta`'s seal is written after ANALYZE.
            let rows: i64 = conn
                .query_row(
                    &format!(
                        "SELECT count(*) FROM {table} WHERE {}",
                        match table {
                            "meta" => "key <> 'seal'",
                            _ => "1",
                        }
                    ),
                    [],
                    |r| r.get(0),
                )
                .map_err(&e)?;
            shape.push(rows as u64);
        }
        Ok(Some(KeyShape(shape)))
    }
}

/// What the rows of some puzzles add to the planner statistics ANALYZE writes
/// (`sqlite_stat1`): for every index of every data table, the rows and the distinct
/// values of each leading run of its columns. Every index begins with `puzzle`, so
/// these add up over puzzles, and `sqlite_stat1` is a function of their sums (with the
/// number of `puzzles` and `meta` rows): when the rows a rebuild deleted and those it
/// wrote add the same, ANALYZE would write the statistics the file already holds.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct KeyShape(Vec<u64>);
