//! The read-only queries the answers make: a puzzle's row, positions by rank, packed
//! tables and chunks, the longest positions, histogram, peg layers and matrix, and
//! enumerated solutions. Every one is an indexed read; none judges what it reads.

use rusqlite::{OptionalExtension, params};

use super::owner::{Reader, Sql, SqlError};

use puzzlebase_core::records::{
    FarthestRow, HistogramRow, PegLayerRow, PositionRow, PuzzleInfo, SolutionRow, Storage,
};

// Reads

fn info_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<PuzzleInfo> {
    let storage: String = r.get(10)?;
    Ok(PuzzleInfo {
        name: r.get(0)?,
        family: r.get(1)?,
        definition: r.get(2)?,
        storage: Storage::parse(&storage).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                10,
                rusqlite::types::Type::Text,
                format!("unknown storage {storage:?}").into(),
            )
        })?,
        counts: r.get(11)?,
        states: r.get::<_, i64>(3)? as u64,
        solvable: r.get::<_, i64>(4)? as u64,
        max_distance: r.get(5)?,
        generated_at: r.get(6)?,
        definition_hash: r.get(7)?,
        checksum: r.get(8)?,
        seconds: r.get(9)?,
    })
}

const INFO_COLUMNS: &str = "name, family, definition, states, solvable, max_distance, generated_at, definition_hash, checksum, seconds, storage, counts";

impl Reader {
    /// Every stored puzzle, by name.
    pub fn puzzles(&self) -> Sql<Vec<PuzzleInfo>> {
        let mut st = self.prepare(&format!("SELECT {INFO_COLUMNS} FROM puzzles ORDER BY name"))?;
        st.query_map([], info_from_row)?
            .collect::<rusqlite::Result<_>>()
            .map_err(SqlError::from)
    }

    pub fn puzzle(&self, name: &str) -> Sql<Option<PuzzleInfo>> {
        self.prepare_cached(&format!(
            "SELECT {INFO_COLUMNS} FROM puzzles WHERE name = ?1"
        ))?
        .query_row([name], info_from_row)
        .optional()
        .map_err(SqlError::from)
    }

    pub fn position(&self, puzzle: &str, rank: u64) -> Sql<Option<PositionRow>> {
        self.prepare_cached(
            "SELECT rank, state, distance, next_rank, solutions, move FROM positions WHERE puzzle = ?1 AND rank = ?2",
        )?
        .query_row(params![puzzle, rank as i64], position_from_row)
        .optional()
        .map_err(SqlError::from)
    }

    /// Calls `each` with every stored position row of `puzzle`, by rank (one range read of
    /// the primary key): what a reader that keeps a puzzle's rows in memory loads. The
    /// rows' digest groups are cut on the way and kept on the connection, so that checking
    /// them ([`Reader::digest_difference`]) does not read the rows again.
    pub fn for_each_position(&self, puzzle: &str, mut each: impl FnMut(PositionRow)) -> Sql<()> {
        // Every column, in the table's order, for the digests; the row from the second on.
        let mut st = self.prepare("SELECT * FROM positions WHERE puzzle = ?1 ORDER BY rank")?;
        let cols = st.column_count();
        let mut groups = super::digests::Grouper::default();
        groups.start("positions");
        let mut rows = st.query([puzzle])?;
        while let Some(r) = rows.next()? {
            let values = (0..cols)
                .map(|i| r.get_ref(i))
                .collect::<rusqlite::Result<Vec<_>>>()?;
            groups.row(&values);
            each(position_at(r, 1)?);
        }
        super::digests::remember(self, puzzle, None, groups);
        Ok(())
    }

    /// The layout (JSON) and chunk count of a packed table, if the puzzle has one of `kind`.
    pub fn packed_table(&self, puzzle: &str, kind: &str) -> Sql<Option<(String, u64)>> {
        self.prepare_cached(
            "SELECT layout, chunks FROM packed_tables WHERE puzzle = ?1 AND kind = ?2",
        )?
        .query_row(params![puzzle, kind], |r| {
            Ok((r.get(0)?, r.get::<_, i64>(1)? as u64))
        })
        .optional()
        .map_err(SqlError::from)
    }

    /// One chunk's blob of a packed table (one indexed read).
    pub fn packed_chunk(&self, puzzle: &str, kind: &str, chunk: u64) -> Sql<Option<Vec<u8>>> {
        self.prepare_cached(
            "SELECT data FROM packed_chunks WHERE puzzle = ?1 AND kind = ?2 AND chunk = ?3",
        )?
        .query_row(params![puzzle, kind, chunk as i64], |r| r.get(0))
        .optional()
        .map_err(SqlError::from)
    }

    /// Every packed table of a puzzle: `(kind, layout JSON, chunks)`, by kind.
    pub fn packed_tables(&self, puzzle: &str) -> Sql<Vec<(String, String, u64)>> {
        let mut st = self.prepare(
            "SELECT kind, layout, chunks FROM packed_tables WHERE puzzle = ?1 ORDER BY kind",
        )?;
        st.query_map([puzzle], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u64))
        })?
        .collect::<rusqlite::Result<_>>()
        .map_err(SqlError::from)
    }

    /// Calls `each` with every chunk of one packed table in chunk order, the blob borrowed
    /// from SQLite (one range read of the primary key, no copy per chunk).
    pub fn for_each_packed_chunk(
        &self,
        puzzle: &str,
        kind: &str,
        each: impl FnMut(u64, &[u8]),
    ) -> Sql<()> {
        self.for_each_packed_chunk_in(puzzle, kind, i64::MIN..=i64::MAX, each)
    }

    /// Calls `each` with every chunk of one packed table numbered in `chunks`, in order
    /// (a chunk number is handed on as stored, so a negative one arrives as a huge one).
    pub fn for_each_packed_chunk_in(
        &self,
        puzzle: &str,
        kind: &str,
        chunks: std::ops::RangeInclusive<i64>,
        mut each: impl FnMut(u64, &[u8]),
    ) -> Sql<()> {
        let mut st = self.prepare_cached(
            "SELECT chunk, data FROM packed_chunks
          WHERE puzzle = ?1 AND kind = ?2 AND chunk BETWEEN ?3 AND ?4 ORDER BY chunk",
        )?;
        let mut rows = st.query(params![puzzle, kind, chunks.start(), chunks.end()])?;
        while let Some(r) = rows.next()? {
            each(r.get::<_, i64>(0)? as u64, r.get_ref(1)?.as_blob()?);
        }
        Ok(())
    }

    /// The `farthest` rows of a packed puzzle, by rank.
    pub fn farthest(&self, puzzle: &str) -> Sql<Vec<FarthestRow>> {
        let mut st = self.prepare(
            "SELECT rank, state, distance FROM farthest WHERE puzzle = ?1 ORDER BY rank",
        )?;
        st.query_map([puzzle], |r| {
            Ok(FarthestRow {
                rank: r.get::<_, i64>(0)? as u64,
                state: r.get(1)?,
                distance: r.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()
        .map_err(SqlError::from)
    }

    /// The positions at `distance` or farther, by rank: one read of the puzzle's rows
    /// (there is no index by distance, schema 6), so a row past the puzzle's maximum
    /// distance comes back too, for the caller to refuse.
    pub fn at_or_beyond(&self, puzzle: &str, distance: u32) -> Sql<Vec<PositionRow>> {
        let mut st = self.prepare(
            "SELECT rank, state, distance, next_rank, solutions, move FROM positions
         WHERE puzzle = ?1 AND distance >= ?2 ORDER BY rank",
        )?;
        st.query_map(params![puzzle, distance], position_from_row)?
            .collect::<rusqlite::Result<_>>()
            .map_err(Into::into)
    }

    pub fn histogram(&self, puzzle: &str) -> Sql<Vec<HistogramRow>> {
        let mut st = self.prepare(
            "SELECT distance, positions, classes FROM histogram WHERE puzzle = ?1 ORDER BY distance",
        )?;
        st.query_map([puzzle], |r| {
            Ok(HistogramRow {
                distance: r.get(0)?,
                positions: r.get::<_, i64>(1)? as u64,
                classes: r.get::<_, i64>(2)? as u64,
            })
        })?
        .collect::<rusqlite::Result<_>>()
        .map_err(SqlError::from)
    }

    pub fn peg_layers(&self, puzzle: &str) -> Sql<Vec<PegLayerRow>> {
        let mut st = self.prepare(
            "SELECT pegs, reachable, can_finish, reachable_classes, can_finish_classes, reachable_pairs
         FROM peg_layers WHERE puzzle = ?1 ORDER BY pegs",
        )?;
        st.query_map([puzzle], |r| {
            Ok(PegLayerRow {
                pegs: r.get(0)?,
                reachable: r.get::<_, i64>(1)? as u64,
                can_finish: r.get::<_, i64>(2)? as u64,
                reachable_classes: r.get::<_, i64>(3)? as u64,
                can_finish_classes: r.get::<_, i64>(4)? as u64,
                reachable_pairs: r.get::<_, i64>(5)? as u64,
            })
        })?
        .collect::<rusqlite::Result<_>>()
        .map_err(SqlError::from)
    }

    /// The start x finish matrix, `None` entries where the finish cannot be reached.
    pub fn peg_matrix(&self, puzzle: &str) -> Sql<Vec<Vec<Option<u8>>>> {
        let mut st = self.prepare(
            "SELECT start, finish, distance FROM peg_matrix WHERE puzzle = ?1 ORDER BY start, finish",
        )?;
        let cells: Vec<(usize, usize, Option<u8>)> = st
            .query_map([puzzle], |r| {
                Ok((
                    r.get::<_, u8>(0)? as usize,
                    r.get::<_, u8>(1)? as usize,
                    r.get(2)?,
                ))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let n = cells.iter().map(|c| c.0.max(c.1) + 1).max().unwrap_or(0);
        let mut m = vec![vec![None; n]; n];
        for (s, f, d) in cells {
            m[s][f] = d;
        }
        Ok(m)
    }

    /// Stored solutions of an enumeration puzzle, optionally only canonical ones and only
    /// those with a given value, by rank.
    pub fn solutions(
        &self,
        puzzle: &str,
        canonical_only: bool,
        value: Option<i64>,
    ) -> Sql<Vec<SolutionRow>> {
        let mut st = self.prepare(
            "SELECT rank, state, value, canonical FROM solutions
         WHERE puzzle = ?1 AND (?2 = 0 OR canonical = 1) AND (?3 IS NULL OR value = ?3) ORDER BY rank",
        )?;
        st.query_map(params![puzzle, canonical_only, value], |r| {
            Ok(SolutionRow {
                rank: r.get::<_, i64>(0)? as u64,
                state: r.get(1)?,
                value: r.get(2)?,
                canonical: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()
        .map_err(SqlError::from)
    }

    /// For a peg board (ranks are bitboards): per number of pegs, the stored rows and those
    /// of them with a distance, as `(pegs, rows, with_distance)` for every count present.
    pub fn peg_rows_by_pegs(&self, puzzle: &str) -> Sql<Vec<(u8, u64, u64)>> {
        let mut st = self.prepare(
            "SELECT rank, distance IS NOT NULL FROM positions WHERE puzzle = ?1 ORDER BY rank",
        )?;
        let mut counts = [(0u64, 0u64); 65];
        let mut rows = st.query([puzzle])?;
        while let Some(r) = rows.next()? {
            let pegs = (r.get::<_, i64>(0)? as u64).count_ones() as usize;
            counts[pegs].0 += 1;
            counts[pegs].1 += r.get::<_, bool>(1)? as u64;
        }
        Ok((counts.iter().enumerate())
            .filter(|(_, c)| c.0 > 0)
            .map(|(p, &(n, d))| (p as u8, n, d))
            .collect())
    }

    /// Number of stored solutions of `puzzle`, canonical or not.
    pub fn solution_count(&self, puzzle: &str) -> Sql<u64> {
        self.query_row(
            "SELECT count(*) FROM solutions WHERE puzzle = ?1",
            [puzzle],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n as u64)
    }
}

fn position_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<PositionRow> {
    position_at(r, 0)
}

/// The position row whose `rank` is column `at` of `r`, the other columns after it in
/// the table's order.
fn position_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<PositionRow> {
    Ok(PositionRow {
        rank: r.get::<_, i64>(at)? as u64,
        state: r.get(at + 1)?,
        distance: r.get(at + 2)?,
        next_rank: r.get::<_, Option<i64>>(at + 3)?.map(|v| v as u64),
        solutions: r.get::<_, Option<i64>>(at + 4)?.map(|v| v as u64),
        mv: r.get(at + 5)?,
    })
}
