//! Digests beside the data (the `digests` table, schema 5): a SHA-256 per group of a
//! puzzle's stored rows, so that a reader checks every value it answers from even on a
//! plain SQLite host, which reads pages without puzzlebase's page checksums (the SQLite
//! extension in `sqlite3`, Datasette or pysqlite). A page swapped, copied or taken from
//! another file, an `UPDATE` of a stored value or a deleted row changes the rows of a
//! group, and so its digest; a deleted digest row leaves keys that no group covers.
//!
//! The groups: 64 `positions` rows (by rank), one packed chunk (by kind and number),
//! and every other table of a puzzle whole (`puzzles`' own row, `histogram`,
//! `peg_layers`, `peg_matrix`, `solutions`, `packed_tables`, `farthest`). A group's
//! digest is fed exactly what the puzzle's checksum is fed for those rows (the table's
//! name, then each row's values, as `store::hash_row` feeds them), so the checksum itself is
//! unchanged. `generate` writes them from the rows it wrote, `verify` recomputes them
//! all, and the readers (`puzzlebase::Database`) check the group of each value
//! they read, once per reader. docs/file-format.md documents the table.

use std::collections::HashMap;

use rusqlite::ToSql;
use rusqlite::types::ValueRef;
use sha2::{Digest, Sha256};

use super::{Reader, Sql, Writer, hash_row};

/// How one table is cut into groups.
#[derive(Clone, Copy, Debug)]
struct Cut {
    table: &'static str,
    /// The column that names the puzzle.
    puzzle_column: &'static str,
    /// The integer key the groups are ranges of; `None`: the whole table is one group.
    key: Option<&'static str>,
    /// The rows' order (their primary key after the puzzle and kind).
    order: &'static str,
    /// Rows per group, for a table cut by `key`.
    per_group: i64,
    /// Whether the table's groups are per `kind` (the packed chunks).
    by_kind: bool,
    /// The place of `key` among the table's columns (`SELECT *`).
    key_at: usize,
}

/// The place of `kind` among the columns of `packed_tables` and `packed_chunks`.
const KIND_AT: usize = 1;

/// `positions` rows per group: 64 rows (about 3 KB) are read and hashed to check one,
/// the same size as a packed chunk.
pub const POSITIONS_PER_GROUP: i64 = 64;

const fn whole(table: &'static str, order: &'static str) -> Cut {
    Cut {
        table,
        puzzle_column: "puzzle",
        key: None,
        order,
        per_group: i64::MAX,
        by_kind: false,
        key_at: 0,
    }
}

/// Every table with a puzzle's rows, and how it is cut.
const CUTS: [Cut; 9] = [
    Cut {
        puzzle_column: "name",
        ..whole("puzzles", "name")
    },
    Cut {
        key: Some("rank"),
        key_at: 1,
        per_group: POSITIONS_PER_GROUP,
        ..whole("positions", "rank")
    },
    whole("histogram", "distance"),
    whole("peg_layers", "pegs"),
    whole("peg_matrix", "start, finish"),
    whole("solutions", "rank"),
    whole("packed_tables", "kind"),
    Cut {
        key: Some("chunk"),
        key_at: 2,
        per_group: 1,
        by_kind: true,
        ..whole("packed_chunks", "chunk")
    },
    whole("farthest", "rank"),
];

fn cut(table: &str) -> Cut {
    *CUTS
        .iter()
        .find(|c| c.table == table)
        .expect("digests are kept for the data tables only")
}

/// One group of rows and its digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The table.
    pub table: &'static str,
    /// The packed chunks' kind; empty for the other tables.
    pub kind: String,
    /// The group's rows are those with `first <= key < next`.
    pub first: i64,
    /// The next group's first key (`i64::MAX` for the last).
    pub next: i64,
    /// How many rows it holds.
    pub rows: i64,
    /// SHA-256 of its rows.
    pub digest: Vec<u8>,
}

/// The rows of `puzzle` in `c` (of `kind`), in order, with keys in `first..next`.
fn select(c: &Cut) -> String {
    let mut sql = format!("SELECT * FROM {} WHERE {} = ?1", c.table, c.puzzle_column);
    if c.by_kind {
        sql.push_str(" AND kind = ?2");
    }
    if let Some(k) = c.key {
        let (lo, hi) = if c.by_kind { (3, 4) } else { (2, 3) };
        sql.push_str(&format!(" AND {k} >= ?{lo} AND {k} < ?{hi}"));
    }
    sql.push_str(&format!(" ORDER BY {}", c.order));
    sql
}

/// Runs [`select`] and calls `each` with every row's values.
fn rows(
    conn: &Reader,
    c: &Cut,
    puzzle: &str,
    kind: &str,
    (first, next): (i64, i64),
    mut each: impl FnMut(&[ValueRef<'_>]),
) -> Sql<()> {
    let mut st = conn.prepare_cached(&select(c))?;
    let cols = st.column_count();
    let mut params: Vec<&dyn ToSql> = vec![&puzzle];
    if c.by_kind {
        params.push(&kind);
    }
    if c.key.is_some() {
        params.push(&first);
        params.push(&next);
    }
    let mut rows = st.query(params.as_slice())?;
    while let Some(r) = rows.next()? {
        let mut values = Vec::with_capacity(cols);
        for i in 0..cols {
            values.push(r.get_ref(i)?);
        }
        each(&values);
    }
    Ok(())
}

/// The kinds `c` is cut by for `puzzle`: those of its packed tables and chunks, or
/// only `""`.
fn kinds(conn: &Reader, c: &Cut, puzzle: &str) -> Sql<Vec<String>> {
    if !c.by_kind {
        return Ok(vec![String::new()]);
    }
    let mut st = conn.prepare_cached(
        "SELECT kind FROM packed_tables WHERE puzzle = ?1
         UNION SELECT kind FROM packed_chunks WHERE puzzle = ?1 ORDER BY 1",
    )?;
    st.query_map([puzzle], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()
        .map_err(Into::into)
}

impl Reader {
    /// The digests `puzzle`'s rows call for, computed from them: what `generate` writes
    /// and `verify` holds the stored ones to.
    pub fn expected_digests(&self, puzzle: &str) -> Sql<Vec<Group>> {
        expected_but(self, puzzle, |_| false)
    }

    /// The digests stored for `puzzle`, by table, kind and first key.
    pub fn stored_digests(&self, puzzle: &str) -> Sql<Vec<(String, Group)>> {
        let mut st = self.prepare_cached(
            "SELECT tbl, kind, first, next, rows, digest FROM digests WHERE puzzle = ?1
         ORDER BY tbl, kind, first",
        )?;
        st.query_map([puzzle], |r| {
            Ok((
                r.get::<_, String>(0)?,
                Group {
                    table: "",
                    kind: r.get(1)?,
                    first: r.get(2)?,
                    next: r.get(3)?,
                    rows: r.get(4)?,
                    digest: r.get(5)?,
                },
            ))
        })?
        .collect::<rusqlite::Result<_>>()
        .map_err(Into::into)
    }

    /// The first way `puzzle`'s stored digests differ from its rows; `None` when they all
    /// match.
    pub fn digest_difference(&self, puzzle: &str) -> Sql<Option<String>> {
        let want = groups_now(self, puzzle)?;
        // Keyed, so that the check stays linear in the groups (a puzzle of 1.8 M rows has
        // 28,350 of them).
        let mut have: HashMap<(String, String, i64), Group> =
            (self.stored_digests(puzzle)?.into_iter())
                .map(|(t, h)| ((t, h.kind.clone(), h.first), h))
                .collect();
        for g in &want {
            match have.remove(&(g.table.to_string(), g.kind.clone(), g.first)) {
                None => return Ok(Some(format!("{} have no stored digest", describe(g)))),
                Some(h) if (h.next, h.rows, &h.digest) != (g.next, g.rows, &g.digest) => {
                    return Ok(Some(format!(
                        "{} do not match their stored digest",
                        describe(g)
                    )));
                }
                Some(_) => {}
            }
        }
        // What is left covers no group of the rows; the first in key order is named.
        if let Some(((t, kind, first), _)) = have.into_iter().min_by(|a, b| a.0.cmp(&b.0)) {
            return Ok(Some(format!(
                "a stored digest of {t}{} from key {first} covers no group of its rows",
                kind_shown(&kind),
            )));
        }
        Ok(None)
    }

    /// Puzzles with digests that the file does not list.
    pub fn digest_orphans(&self) -> Sql<Vec<String>> {
        let mut st = self.prepare(
            "SELECT DISTINCT puzzle FROM digests WHERE puzzle NOT IN (SELECT name FROM puzzles)
         ORDER BY puzzle",
        )?;
        st.query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()
            .map_err(Into::into)
    }

    /// Checks the group of `table` (of `kind`, for packed chunks) that holds `key` (any
    /// key for a table kept whole) against its stored digest, reading the group's rows.
    pub fn check_digest(&self, puzzle: &str, table: &str, kind: &str, key: i64) -> Sql<Checked> {
        let c = cut(table);
        let Some(stored) = stored_group(self, puzzle, table, kind, key)? else {
            return Ok(Checked::Damaged(format!(
                "no stored digest covers {}",
                rows_at(table, kind, key)
            )));
        };
        let mut h = Sha256::new();
        h.update(table.as_bytes());
        let mut n = 0i64;
        rows(self, &c, puzzle, kind, (stored.0, stored.1), |values| {
            hash_row(&mut h, values.iter().copied());
            n += 1;
        })?;
        let got = h.finalize();
        Ok(verdict(|| rows_at(table, kind, key), stored, n, &got))
    }

    /// [`Reader::check_digest`] for packed chunk `chunk` of table `kind`, whose bytes the reader has
    /// already read (`data`): the chunk is its own group, so it is hashed as it is, not
    /// read again.
    pub fn check_chunk(&self, puzzle: &str, kind: &str, chunk: i64, data: &[u8]) -> Sql<Checked> {
        let table = "packed_chunks";
        let Some(stored) = stored_group(self, puzzle, table, kind, chunk)? else {
            return Ok(Checked::Damaged(format!(
                "no stored digest covers {}",
                rows_at(table, kind, chunk)
            )));
        };
        // A group of one chunk starts at it (the first at i64::MIN): any other span holds
        // more rows than this one.
        let alone = stored.0 == chunk || (stored.0 == i64::MIN && chunk == 0);
        let n = if alone { 1 } else { 2 };
        let got = chunk_digest(puzzle, kind, chunk, data);
        Ok(verdict(|| rows_at(table, kind, chunk), stored, n, &got))
    }

    /// The first way the stored digests of `puzzle`'s packed table `kind` differ from its
    /// chunks as already read into `bytes` (chunk `c` is `bytes[c * per ..]`, the last
    /// one cut to the table's end): what a reader that loads a whole table (`fifteen`'s
    /// pattern tables) checks, without reading the chunks again. `None` when all match.
    pub fn chunks_differ(
        &self,
        puzzle: &str,
        kind: &str,
        bytes: &[u8],
        per: u64,
    ) -> Sql<Option<String>> {
        use rayon::prelude::*;
        let stored: Vec<(i64, i64, i64, Vec<u8>)> = {
            let mut st = self.prepare_cached(
                "SELECT first, next, rows, digest FROM digests
             WHERE puzzle = ?1 AND tbl = 'packed_chunks' AND kind = ?2 ORDER BY first",
            )?;
            st.query_map([puzzle, kind], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?
            .collect::<rusqlite::Result<_>>()?
        };
        let chunks: Vec<&[u8]> = bytes.chunks(per.max(1) as usize).collect();
        if stored.len() != chunks.len() {
            return Ok(Some(format!(
                "{kind}: {} chunk digests are stored for {} chunks",
                stored.len(),
                chunks.len()
            )));
        }
        let last = chunks.len() as i64 - 1;
        let bad = (chunks.par_iter().zip(&stored).enumerate()).find_first(
            |(c, (data, (first, next, rows, digest)))| {
                let c = *c as i64;
                let span = (
                    if c == 0 { i64::MIN } else { c },
                    if c == last { i64::MAX } else { c + 1 },
                );
                span != (*first, *next)
                    || *rows != 1
                    || chunk_digest(puzzle, kind, c, data).as_slice() != digest.as_slice()
            },
        );
        Ok(bad.map(|(c, _)| {
            format!("the packed_chunks ({kind}) row of chunk {c} does not match its digest")
        }))
    }
}

/// [`expected`] for every table but those `skip` names.
fn expected_but(conn: &Reader, puzzle: &str, skip: impl Fn(&str) -> bool) -> Sql<Vec<Group>> {
    let mut g = Grouper::default();
    for c in CUTS.iter().filter(|c| !skip(c.table)) {
        g.start(c.table);
        for kind in kinds(conn, c, puzzle)? {
            rows(conn, c, puzzle, &kind, (i64::MIN, i64::MAX), |values| {
                g.row(values)
            })?;
        }
    }
    Ok(g.finish().0)
}

/// Cuts a puzzle's rows into their groups and hashes each, as the rows pass: the one
/// rule for what a group is, followed by [`expected`], by the checksum's pass over a
/// puzzle (`store::checksum_with_rows`), by `generate` as it writes the rows, and by a
/// reader loading a puzzle's positions. Rows come table by table ([`Grouper::start`]),
/// each table's in key order (a packed table's by kind, then chunk), every column as
/// `SELECT *` gives it.
#[derive(Default)]
pub(super) struct Grouper {
    done: Vec<Group>,
    /// The table being fed, and its open group.
    cut: Option<Cut>,
    open: Option<Open>,
    /// The kinds `packed_tables` names, and those `packed_chunks` held rows of: a kind
    /// without chunks still has its (empty) group.
    table_kinds: std::collections::BTreeSet<String>,
    chunk_kinds: std::collections::BTreeSet<String>,
    chunks_started: bool,
    /// A key that is not an integer below `i64::MAX`, or a kind that is not text:
    /// [`expected`]'s reading would skip or refuse such a row, so only it may judge.
    odd: bool,
}

struct Open {
    kind: String,
    first: i64,
    rows: i64,
    h: Sha256,
}

impl Grouper {
    /// Starts the rows of `table` (a table with no rows still has its group).
    pub(super) fn start(&mut self, table: &str) {
        self.close();
        let c = cut(table);
        self.cut = Some(c);
        self.chunks_started |= c.by_kind;
        if !c.by_kind {
            self.open = Some(Open::new(c.table, String::new(), i64::MIN));
        }
    }

    /// One row of the table started, its values in column order.
    pub(super) fn row(&mut self, values: &[ValueRef<'_>]) {
        let Some(c) = self.cut else {
            return;
        };
        let key = match (c.key, values.get(c.key_at)) {
            (None, _) => 0,
            (Some(_), Some(ValueRef::Integer(k))) if *k != i64::MAX => *k,
            _ => {
                self.odd = true;
                i64::MAX
            }
        };
        let kind = || match values.get(KIND_AT) {
            Some(ValueRef::Text(t)) => std::str::from_utf8(t).ok().map(str::to_string),
            _ => None,
        };
        if c.table == "packed_tables" {
            match kind() {
                Some(k) => {
                    self.table_kinds.insert(k);
                }
                None => self.odd = true,
            }
        }
        if c.by_kind {
            let k = kind().unwrap_or_else(|| {
                self.odd = true;
                String::new()
            });
            if self.open.as_ref().is_none_or(|o| o.kind != k) {
                self.close();
                self.chunk_kinds.insert(k.clone());
                self.open = Some(Open::new(c.table, k, i64::MIN));
            }
        }
        let open = self.open.as_mut().expect("a table is started");
        if open.rows == c.per_group {
            let next = Open::new(c.table, open.kind.clone(), key);
            let full = std::mem::replace(open, next);
            self.done.push(full.group(c.table, key));
        }
        let open = self.open.as_mut().expect("a table is started");
        hash_row(&mut open.h, values.iter().copied());
        open.rows += 1;
    }

    fn close(&mut self) {
        if let (Some(c), Some(open)) = (self.cut, self.open.take()) {
            self.done.push(open.group(c.table, i64::MAX));
        }
    }

    /// The groups, and whether every row was one [`expected`] reads the same way.
    pub(super) fn finish(mut self) -> (Vec<Group>, bool) {
        self.close();
        if self.chunks_started {
            for k in self.table_kinds.difference(&self.chunk_kinds) {
                self.done.push(
                    Open::new("packed_chunks", k.clone(), i64::MIN)
                        .group("packed_chunks", i64::MAX),
                );
            }
        }
        (self.done, !self.odd)
    }
}

impl Open {
    fn new(table: &str, kind: String, first: i64) -> Open {
        let mut h = Sha256::new();
        h.update(table.as_bytes());
        Open {
            kind,
            first,
            rows: 0,
            h,
        }
    }

    fn group(self, table: &'static str, next: i64) -> Group {
        Group {
            table,
            kind: self.kind,
            first: self.first,
            next,
            rows: self.rows,
            digest: self.h.finalize().to_vec(),
        }
    }
}

/// The groups of some of a puzzle's tables, computed by a pass that read or wrote all
/// their rows, kept on the connection ([`Reader::remember_digests`]) so that the
/// digests are not read again to be compared or written.
pub(super) struct Seen {
    /// The puzzle's checksum as the same pass computed it, for a pass over every table
    /// but `puzzles`: the groups are used only while the `puzzles` row records that
    /// checksum. `None` for a reader's pass over the positions alone, used only by a
    /// connection that does not write.
    pub(super) checksum: Option<String>,
    pub(super) groups: Vec<Group>,
}

/// Keeps on `conn` the groups `g` computed in a pass over `puzzle`'s rows: of every
/// data table, with the checksum the pass gave, or of its positions alone (`None`).
pub(super) fn remember(conn: &Reader, puzzle: &str, checksum: Option<&str>, g: Grouper) {
    let (groups, sure) = g.finish();
    if !sure || (checksum.is_none() && conn.writes()) {
        return;
    }
    conn.remember_digests(
        puzzle,
        Seen {
            checksum: checksum.map(str::to_string),
            groups,
        },
    );
}

/// The digests `puzzle`'s rows call for, as [`expected`] computes them, taking the
/// groups a pass over the rows kept ([`Seen`]) rather than reading those rows again.
fn groups_now(conn: &Reader, puzzle: &str) -> Sql<Vec<Group>> {
    if let Some(seen) = conn.take_digests(puzzle) {
        let usable = match &seen.checksum {
            // A value that cannot be read is left for the full reading to report.
            Some(sum) => {
                let stored: Option<String> = conn
                    .query_row(
                        "SELECT checksum FROM puzzles WHERE name = ?1",
                        [puzzle],
                        |r| r.get(0),
                    )
                    .ok();
                stored.as_ref() == Some(sum)
            }
            None => !conn.writes(),
        };
        if usable {
            let mut groups = match seen.checksum {
                Some(_) => expected_but(conn, puzzle, |t| t != "puzzles")?,
                None => expected_but(conn, puzzle, |t| t == "positions")?,
            };
            groups.extend(seen.groups);
            return Ok(groups);
        }
    }
    conn.expected_digests(puzzle)
}

impl Writer {
    /// Writes `puzzle`'s digests (replacing any), computed from its rows in the file.
    pub fn write_digests(&self, puzzle: &str) -> Sql<()> {
        let groups = groups_now(self, puzzle)?;
        self.execute("DELETE FROM digests WHERE puzzle = ?1", [puzzle])?;
        let mut st = self.prepare_cached(
            "INSERT INTO digests (puzzle, tbl, kind, first, next, rows, digest)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for g in groups {
            st.execute(rusqlite::params![
                puzzle, g.table, g.kind, g.first, g.next, g.rows, g.digest
            ])?;
        }
        Ok(())
    }

    /// Writes the digests of every puzzle the file lists, and drops any of a puzzle it
    /// does not.
    pub fn write_all_digests(&self) -> Sql<()> {
        self.execute(
            "DELETE FROM digests WHERE puzzle NOT IN (SELECT name FROM puzzles)",
            [],
        )?;
        let names: Vec<String> = {
            let mut st = self.prepare("SELECT name FROM puzzles ORDER BY name")?;
            st.query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?
        };
        for name in names {
            self.write_digests(&name)?;
        }
        Ok(())
    }
}

fn kind_shown(kind: &str) -> String {
    if kind.is_empty() {
        String::new()
    } else {
        format!(" ({kind})")
    }
}

fn describe(g: &Group) -> String {
    let c = cut(g.table);
    match c.key {
        None => format!("its {} rows", g.table),
        Some(k) => format!(
            "the {} rows{} from {k} {}",
            g.table,
            kind_shown(&g.kind),
            g.first.max(0)
        ),
    }
}

/// What a reader's check of one group found.
#[derive(Debug, PartialEq, Eq)]
pub enum Checked {
    /// The group holding the key matches its digest: keys `first..next` are sound.
    Sound {
        /// The group's first key.
        first: i64,
        /// The next group's first key.
        next: i64,
    },
    /// What is wrong: no digest covers the key, or the rows do not match it.
    Damaged(String),
}

/// A stored digest's `(first, next, rows, digest)`.
type Stored = (i64, i64, i64, Vec<u8>);

/// The stored digest of the group of `table` (of `kind`) that holds `key`, or `None`
/// when no stored group covers it.
fn stored_group(
    conn: &Reader,
    puzzle: &str,
    table: &str,
    kind: &str,
    key: i64,
) -> Sql<Option<Stored>> {
    let mut st = conn.prepare_cached(
        "SELECT first, next, rows, digest FROM digests
         WHERE puzzle = ?1 AND tbl = ?2 AND kind = ?3 AND first <= ?4
         ORDER BY first DESC LIMIT 1",
    )?;
    let mut rows = st.query(rusqlite::params![puzzle, table, kind, key])?;
    Ok(match rows.next()? {
        Some(r) => Some((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        None => None,
    }
    .filter(|s| key < s.1))
}

/// What the reader is told of `table`'s rows at `key`, when they fail.
fn rows_at(table: &str, kind: &str, key: i64) -> String {
    match cut(table).key {
        Some(k) => format!("the {table} rows{} at {k} {key}", kind_shown(kind)),
        None => format!("its {table} rows"),
    }
}

/// The verdict on a group whose `n` rows hash to `got`, against its stored
/// `(first, next, rows, digest)`.
fn verdict(
    what: impl FnOnce() -> String,
    (first, next, count, digest): Stored,
    n: i64,
    got: &[u8],
) -> Checked {
    if n == count && got == digest.as_slice() {
        return Checked::Sound { first, next };
    }
    let why = if n != count {
        format!("{n} rows where its digest counts {count}")
    } else {
        "changed since their digest was written".to_string()
    };
    Checked::Damaged(format!("{} do not match their digest ({why})", what()))
}

/// The digest of one `packed_chunks` row: what [`expected`] computes for its group.
fn chunk_digest(puzzle: &str, kind: &str, chunk: i64, data: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"packed_chunks");
    hash_row(
        &mut h,
        [
            ValueRef::Text(puzzle.as_bytes()),
            ValueRef::Text(kind.as_bytes()),
            ValueRef::Integer(chunk),
            ValueRef::Blob(data),
        ],
    );
    h.finalize().into()
}
