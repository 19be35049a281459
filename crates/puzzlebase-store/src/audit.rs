//! The reads of an audit of the file (the `verify` command): a puzzle's rows as SQLite
//! stored them, untyped ([`Value`]), so that the caller can report a value of the
//! wrong type as a fact about the file, where it is, rather than fail on it; and the
//! counts that show rows where there should be none. Nothing here judges a value.
//!
//! Rows come in the order of their table's primary key, so that the first bad row is the
//! same on every run.

use super::owner::{Reader, Sql, SqlError, Value};

/// A table holding per-puzzle rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// rank, state, distance, next_rank, solutions, move
    Positions,
    /// distance, positions, classes
    Histogram,
    /// pegs, reachable, can_finish, reachable_classes, can_finish_classes, reachable_pairs
    PegLayers,
    /// start, finish, distance
    PegMatrix,
    /// rank, state, value, canonical
    Solutions,
    /// kind, encoding, ranks_per_chunk, chunks, layout
    PackedTables,
    /// kind, chunk, data
    PackedChunks,
    /// rank, state, distance
    Farthest,
}

/// The most columns a [`Table`] row is read with.
const MAX_COLUMNS: usize = 6;

impl Table {
    /// Every per-puzzle table.
    pub const ALL: [Table; 8] = [
        Table::Positions,
        Table::Histogram,
        Table::PegLayers,
        Table::PegMatrix,
        Table::Solutions,
        Table::PackedTables,
        Table::PackedChunks,
        Table::Farthest,
    ];

    /// The table's name in the schema.
    pub fn name(self) -> &'static str {
        match self {
            Table::Positions => "positions",
            Table::Histogram => "histogram",
            Table::PegLayers => "peg_layers",
            Table::PegMatrix => "peg_matrix",
            Table::Solutions => "solutions",
            Table::PackedTables => "packed_tables",
            Table::PackedChunks => "packed_chunks",
            Table::Farthest => "farthest",
        }
    }

    /// The statement that reads every row of one puzzle, in key order, with the columns
    /// named in the variant's docs. SQLite quotes the statement in some errors (a column
    /// missing from a damaged schema, say) and those reach the user, so each text is kept
    /// exactly as it has always been, line breaks included.
    fn select(self) -> &'static str {
        match self {
            Table::Positions => concat!(
                "SELECT rank, state, distance, next_rank, solutions, move FROM positions\n",
                "         WHERE puzzle = ?1 ORDER BY rank"
            ),
            Table::Histogram => {
                "SELECT distance, positions, classes FROM histogram WHERE puzzle = ?1 ORDER BY distance"
            }
            Table::PegLayers => concat!(
                "SELECT pegs, reachable, can_finish, reachable_classes, can_finish_classes, reachable_pairs FROM peg_layers\n",
                "         WHERE puzzle = ?1 ORDER BY pegs"
            ),
            Table::PegMatrix => {
                "SELECT start, finish, distance FROM peg_matrix WHERE puzzle = ?1 ORDER BY start, finish"
            }
            Table::Solutions => {
                "SELECT rank, state, value, canonical FROM solutions WHERE puzzle = ?1 ORDER BY rank"
            }
            Table::PackedTables => PACKED_TABLES,
            Table::PackedChunks => {
                "SELECT kind, chunk, data FROM packed_chunks WHERE puzzle = ?1 ORDER BY kind, chunk"
            }
            Table::Farthest => {
                "SELECT rank, state, distance FROM farthest WHERE puzzle = ?1 ORDER BY rank"
            }
        }
    }
}

/// A puzzle's `packed_tables` rows (see [`Table::select`] on the text).
const PACKED_TABLES: &str = concat!(
    "SELECT kind, encoding, ranks_per_chunk, chunks, layout FROM packed_tables\n",
    "         WHERE puzzle = ?1 ORDER BY kind"
);

impl Reader {
    /// The first line of `PRAGMA quick_check`: `ok` when SQLite finds the file's structure
    /// sound, else its first complaint.
    pub fn quick_check(&self) -> Sql<String> {
        self.query_row("PRAGMA quick_check", [], |r| r.get(0))
    }

    /// Every line of `PRAGMA integrity_check` (SQLite's full structure check, which also
    /// compares every index with its table): `["ok"]` when it finds nothing wrong.
    pub fn integrity_check(&self) -> Sql<Vec<String>> {
        let mut st = self.prepare("PRAGMA integrity_check")?;
        st.query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()
            .map_err(SqlError::from)
    }

    /// The `meta` table's rows, by key.
    pub fn meta(&self) -> Sql<Vec<(String, String)>> {
        let mut st = self.prepare("SELECT key, value FROM meta ORDER BY key")?;
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()
            .map_err(SqlError::from)
    }

    /// `PRAGMA user_version` and `PRAGMA application_id`.
    pub fn header_versions(&self) -> Sql<(i64, i64)> {
        Ok((
            self.query_row("PRAGMA user_version", [], |r| r.get(0))?,
            self.query_row("PRAGMA application_id", [], |r| r.get(0))?,
        ))
    }

    /// The bytes SQLite's pages take: `PRAGMA page_count` times `PRAGMA page_size`.
    pub fn pages_bytes(&self) -> Sql<u64> {
        let count: i64 = self.query_row("PRAGMA page_count", [], |r| r.get(0))?;
        let size: i64 = self.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        Ok(count as u64 * size as u64)
    }

    /// Each `(table, puzzle)` with rows of a puzzle that `puzzles` does not list.
    pub fn orphan_rows(&self) -> Sql<Vec<(&'static str, String)>> {
        let mut out = Vec::new();
        for t in Table::ALL {
            let sql = format!(
                "SELECT DISTINCT puzzle FROM {} WHERE puzzle NOT IN (SELECT name FROM puzzles) ORDER BY puzzle",
                t.name()
            );
            let mut st = self.prepare(&sql)?;
            for p in st.query_map([], |r| r.get::<_, String>(0))? {
                out.push((t.name(), p?));
            }
        }
        Ok(out)
    }

    /// The file's own tables and indexes, `(type, name)`, sorted (SQLite's internal
    /// `sqlite_*` objects aside).
    pub fn schema_objects(&self) -> Sql<Vec<(String, String)>> {
        let mut st = self.prepare(
            "SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
        )?;
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()
            .map_err(SqlError::from)
    }

    /// `(name, checksum)` of every `puzzles` row, sorted by name.
    pub fn puzzle_checksums(&self) -> Sql<Vec<(String, String)>> {
        let mut st = self.prepare("SELECT name, checksum FROM puzzles ORDER BY name")?;
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()
            .map_err(SqlError::from)
    }

    /// The names in `puzzles`, sorted, read alone: a damaged column elsewhere in a row does
    /// not stop them being listed.
    pub fn puzzle_names(&self) -> Sql<Vec<String>> {
        let mut st = self.prepare("SELECT name FROM puzzles ORDER BY name")?;
        st.query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()
            .map_err(SqlError::from)
    }

    /// How many rows of `puzzle` each of `tables` holds, in their order, asked in one
    /// statement (cached): `verify` asks it of every puzzle, and on a small one a statement
    /// per table costs more than the checks.
    pub fn rows_of_each(&self, tables: &[Table], puzzle: &str) -> Sql<Vec<i64>> {
        if tables.is_empty() {
            return Ok(Vec::new());
        }
        let counts: Vec<String> = (tables.iter())
            .map(|t| format!("(SELECT count(*) FROM {} WHERE puzzle = ?1)", t.name()))
            .collect();
        let sql = format!("SELECT {}", counts.join(", "));
        Ok(self
            .prepare_cached(&sql)?
            .query_row([puzzle], |r| (0..tables.len()).map(|i| r.get(i)).collect())?)
    }

    /// Calls `each` with every row of `puzzle` in `table`, in key order, its values (the
    /// columns named in [`Table`]'s docs) as stored. Stops at the first error `each` returns.
    pub fn for_each_row<E: From<SqlError>>(
        &self,
        table: Table,
        puzzle: &str,
        mut each: impl FnMut(&[Value<'_>]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut st = self.prepare_cached(table.select())?;
        let cols = st.column_count();
        let mut rows = st.query([puzzle]).map_err(SqlError::from)?;
        while let Some(row) = rows.next().map_err(SqlError::from)? {
            let mut values = [Value::Null; MAX_COLUMNS];
            for (i, v) in values[..cols].iter_mut().enumerate() {
                *v = row.get_ref(i).map_err(SqlError::from)?.into();
            }
            each(&values[..cols])?;
        }
        Ok(())
    }

    /// Calls `each` with the chunk number and the data of every chunk of one packed table of
    /// `puzzle`, in chunk order, as stored. Stops at the first error `each` returns.
    pub fn for_each_chunk<E: From<SqlError>>(
        &self,
        puzzle: &str,
        kind: &str,
        mut each: impl FnMut(Value<'_>, Value<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut st = self.prepare(
            "SELECT chunk, data FROM packed_chunks WHERE puzzle = ?1 AND kind = ?2 ORDER BY chunk",
        )?;
        let mut rows = st.query([puzzle, kind]).map_err(SqlError::from)?;
        while let Some(row) = rows.next().map_err(SqlError::from)? {
            let chunk = row.get_ref(0).map_err(SqlError::from)?.into();
            each(chunk, row.get_ref(1).map_err(SqlError::from)?.into())?;
        }
        Ok(())
    }

    /// The `packed_tables` rows of `puzzle`, by kind. The outer error is the statement's;
    /// the inner one is the first row that could not be read as a [`PackedTableRow`] (a
    /// malformed row, a fact about the file rather than a failed read).
    pub fn packed_table_rows(&self, puzzle: &str) -> Sql<rusqlite::Result<Vec<PackedTableRow>>> {
        let mut st = self.prepare(PACKED_TABLES)?;
        let rows = st.query_map([puzzle], |r| {
            Ok(PackedTableRow {
                kind: r.get(0)?,
                encoding: r.get(1)?,
                ranks_per_chunk: r.get(2)?,
                chunks: r.get(3)?,
                layout: r.get(4)?,
            })
        })?;
        Ok(rows.collect())
    }

    /// How many `packed_chunks` rows of `puzzle` belong to neither a `distance` table nor,
    /// when `counts`, a `solutions` table: the only tables a packed move puzzle has.
    pub fn chunks_outside_move_tables(&self, puzzle: &str, counts: bool) -> Sql<i64> {
        self.query_row(
            "SELECT count(*) FROM packed_chunks WHERE puzzle = ?1 AND kind NOT IN ('distance', ?2)",
            [puzzle, if counts { "solutions" } else { "distance" }],
            |r| r.get(0),
        )
    }

    /// How many `packed_chunks` rows of `puzzle` belong to no `packed_tables` row of it.
    pub fn chunks_without_table(&self, puzzle: &str) -> Sql<i64> {
        self.query_row(
            "SELECT count(*) FROM packed_chunks WHERE puzzle = ?1 AND kind NOT IN
         (SELECT kind FROM packed_tables WHERE puzzle = ?1)",
            [puzzle],
            |r| r.get(0),
        )
    }
}

/// A `packed_tables` row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedTableRow {
    pub kind: String,
    pub encoding: String,
    pub ranks_per_chunk: i64,
    pub chunks: i64,
    /// The layout's JSON text.
    pub layout: String,
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use rusqlite::Connection;
    use rusqlite::types::Value;

    use super::*;
    use crate::Writer;

    fn schema() -> Writer {
        let path = Path::new(":memory:");
        let mut conn = Writer::new(Connection::open_in_memory().unwrap(), path);
        conn.migrate().unwrap();
        // Rows of no puzzle and chunks of no table, as in a damaged file.
        (conn.conn().pragma_update(None, "foreign_keys", false)).unwrap();
        conn
    }

    /// A value as stored, owned, to compare with what was written.
    fn owned(v: super::Value<'_>) -> Value {
        match v {
            super::Value::Null => Value::Null,
            super::Value::Integer(i) => Value::Integer(i),
            super::Value::Real(f) => Value::Real(f),
            super::Value::Text(t) => Value::Text(String::from_utf8(t.to_vec()).unwrap()),
            super::Value::Blob(b) => Value::Blob(b.to_vec()),
        }
    }

    fn rows(conn: &Reader, table: Table, puzzle: &str) -> Vec<Vec<Value>> {
        let mut out = Vec::new();
        conn.for_each_row(table, puzzle, |row| -> Sql<()> {
            out.push(row.iter().map(|&v| owned(v)).collect());
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn every_table_is_read_with_the_columns_its_docs_name() {
        let conn = schema();
        for (table, columns) in [
            (Table::Positions, 6),
            (Table::Histogram, 3),
            (Table::PegLayers, 6),
            (Table::PegMatrix, 3),
            (Table::Solutions, 4),
            (Table::PackedTables, 5),
            (Table::PackedChunks, 3),
            (Table::Farthest, 3),
        ] {
            let st = conn.prepare(table.select()).unwrap();
            assert_eq!(st.column_count(), columns, "{}", table.name());
            assert!(columns <= MAX_COLUMNS);
            assert!(table.select().contains(&format!("FROM {}", table.name())));
            assert_eq!(conn.rows_of_each(&[table], "p").unwrap(), [0]);
        }
    }

    #[test]
    fn rows_arrive_in_key_order_with_their_values_as_stored() {
        let conn = schema();
        conn.execute_batch(
            "INSERT INTO histogram VALUES ('p', 2, 'two', 1), ('p', 0, 1, 1), ('q', 1, 5, 5);
             INSERT INTO packed_chunks VALUES ('p', 'distance', 1, x'01'), ('p', 'distance', 0, 'a');",
        )
        .unwrap();
        assert_eq!(
            rows(&conn, Table::Histogram, "p"),
            [
                vec![Value::Integer(0), Value::Integer(1), Value::Integer(1)],
                vec![
                    Value::Integer(2),
                    Value::Text("two".into()),
                    Value::Integer(1)
                ],
            ]
        );
        assert_eq!(
            conn.rows_of_each(
                &[Table::PackedChunks, Table::Positions, Table::Histogram],
                "p"
            )
            .unwrap(),
            [2, 0, 2]
        );
        assert_eq!(conn.rows_of_each(&[], "p").unwrap(), Vec::<i64>::new());
        let mut chunks = Vec::new();
        conn.for_each_chunk("p", "distance", |c, d| -> Sql<()> {
            chunks.push((owned(c), owned(d)));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            chunks,
            [
                (Value::Integer(0), Value::Text("a".into())),
                (Value::Integer(1), Value::Blob(vec![1])),
            ]
        );
        // The caller's error stops the read.
        let mut seen = 0;
        let stopped = conn.for_each_row(Table::Histogram, "p", |_| {
            seen += 1;
            Err::<(), _>(SqlError::from(rusqlite::Error::InvalidQuery))
        });
        assert!(stopped.is_err());
        assert_eq!(seen, 1);
    }

    #[test]
    fn chunks_outside_their_tables_are_counted() {
        let conn = schema();
        conn.execute_batch(
            "INSERT INTO packed_tables VALUES ('p', 'distance', 'run-steps', 1, 1, '{}');
             INSERT INTO packed_chunks VALUES
               ('p', 'distance', 0, x'00'), ('p', 'solutions', 0, x'00'), ('p', 'other', 0, x'00');",
        )
        .unwrap();
        assert_eq!(conn.chunks_outside_move_tables("p", true).unwrap(), 1);
        assert_eq!(conn.chunks_outside_move_tables("p", false).unwrap(), 2);
        assert_eq!(conn.chunks_without_table("p").unwrap(), 2);
        assert_eq!(conn.chunks_without_table("q").unwrap(), 0);
    }

    #[test]
    fn a_malformed_packed_tables_row_is_the_inner_error() {
        let conn = schema();
        conn.execute(
            "INSERT INTO packed_tables VALUES ('p', 'distance', 'run-steps', 10, 2, '{}')",
            [],
        )
        .unwrap();
        let read = conn.packed_table_rows("p").unwrap().unwrap();
        assert_eq!(
            read,
            [PackedTableRow {
                kind: "distance".into(),
                encoding: "run-steps".into(),
                ranks_per_chunk: 10,
                chunks: 2,
                layout: "{}".into(),
            }]
        );
        conn.execute("UPDATE packed_tables SET chunks = 'two'", [])
            .unwrap();
        assert!(conn.packed_table_rows("p").unwrap().is_err());
    }

    #[test]
    fn a_sound_file_passes_quick_check_and_lists_its_names() {
        let conn = schema();
        assert_eq!(conn.quick_check().unwrap(), "ok");
        assert!(conn.puzzle_names().unwrap().is_empty());
    }
}
