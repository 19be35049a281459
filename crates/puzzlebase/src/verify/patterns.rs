//! fifteen's pattern tables, the only data a fifteen puzzle stores: each table is checked
//! entry by entry ([`pattern::check_with`]: a search led by the table that checks the
//! relation at every state, and the encoding of every byte, which prove each entry; the
//! local check of the table alone names a damaged entry when they fail), and nothing
//! else may be stored for the puzzle.

use super::check::{Check, Derived, bad};
use super::stored::{
    ChunkOrder, UNUSED_WHEN_PACKED, must_be_empty, packed_table_rows, table_columns_are,
};
use crate::core::packed::{ByteLayout, ChunkLayout};
use crate::core::progress::Progress;
use crate::core::rank::FACT;
use crate::core::space::StateSpace;
use crate::families::{self, fifteen::Fifteen};
use crate::solvers::pattern;
use crate::store::{Reader, Value};

/// fifteen's pattern tables: one per pattern of each built partition, in that order, each
/// laid out as `generate` lays it out, and every entry 1 + the minimum over the placements
/// one pattern-tile move away (free blank moves accounted for), as [`pattern::check`]
/// re-derives it. Returns what the rows give, and the checksum of the puzzle's rows: the
/// tables are read once, with the checksum, and each is checked on a second thread while
/// the next is read (one check at a time, in table order, so the first table found wrong
/// is the one reported and at most two tables are held).
pub(super) fn pattern_tables(
    conn: &Reader,
    name: &str,
    f: &Fifteen,
    progress: &dyn Progress,
) -> Check<(Derived, String)> {
    must_be_empty(conn, name, UNUSED_WHEN_PACKED)?;
    let stored = packed_table_rows(conn, name)?;
    let mut derived = Derived {
        entries: 0,
        states: 0,
        solvable: FACT[f.cells()] / 2,
        max_distance: None,
    };
    // What the rules give for each table, checked against its row before any chunk is
    // read.
    let mut tables = Vec::new();
    for part in f.built() {
        for (i, p) in f.patterns(part).iter().enumerate() {
            let kind = families::fifteen::TABLE_KINDS[tables.len()];
            let Some(s) = stored.iter().find(|s| s.kind == kind) else {
                return bad(format!(
                    "packed_tables: the {kind} table (partition {} pattern {i}) is missing",
                    part.name
                ));
            };
            let layout = ByteLayout::new(p.placements());
            table_columns_are(s, &layout)?;
            let what = |col: &str| format!("packed_tables {kind} {col}");
            // The layout names the table; only its build time is not derived.
            let mut want = layout.describe();
            want["partition"] = serde_json::json!(part.name);
            want["pattern"] = serde_json::json!(i);
            want["tiles"] = serde_json::json!(p.tiles());
            let got: serde_json::Value = serde_json::from_str(&s.layout)
                .or_else(|_| bad(what("layout") + " is not JSON"))?;
            let named = ["partition", "pattern", "tiles", "ranks", "ranks_per_chunk"];
            if named.iter().any(|key| got.get(*key) != want.get(*key)) {
                return bad(what("layout") + " does not name its table as the rules give");
            }
            // Which entry the rules give is checked with the table (`pattern::check`).
            let Some(entry) = got["entry"].as_str().and_then(pattern::Entry::from_name) else {
                return bad(what("layout") + " names no known `entry`");
            };
            derived.entries += p.placements();
            derived.states += pattern::PatternSpace::new(p).size();
            tables.push(Table {
                kind,
                partition: part.name.clone(),
                i,
                pattern: p.clone(),
                layout,
                entry,
            });
        }
    }
    let kinds: Vec<&str> = tables.iter().map(|t| t.kind).collect();
    if let Some(s) = stored.iter().find(|s| !kinds.contains(&s.kind.as_str())) {
        return bad(format!(
            "packed_tables: a {} table the rules do not give",
            s.kind
        ));
    }
    let extra = conn.chunks_without_table(name)?;
    if extra != 0 {
        return bad(format!("packed_chunks: {extra} chunks of no table"));
    }

    let count = tables.len();
    let tables = &tables;
    std::thread::scope(|s| {
        // A rendezvous: the reading waits with the next table until the check before it
        // is done, and stops once a check has failed (the checker is then gone).
        let (to_check, read) = std::sync::mpsc::sync_channel::<(usize, Vec<u8>)>(0);
        let checker = s.spawn(move || -> Check<()> {
            for (t, bytes) in read {
                let table = &tables[t];
                let named = Named {
                    progress,
                    table: format!("{}/{count}", t + 1),
                };
                let pt = pattern::PatternTable {
                    entry: table.entry,
                    bytes,
                };
                pattern::check_with(&table.pattern, &pt, &named).or_else(|e| {
                    bad(format!(
                        "{} (partition {} pattern {}): {e}",
                        table.kind, table.partition, table.i
                    ))
                })?;
            }
            Ok(())
        });
        let mut reading = Reading {
            tables,
            now: None,
            next: 0,
            to_check,
        };
        let sum = conn
            .checksum_reading(name, &kinds, |t, chunk, data| reading.chunk(t, chunk, data))
            .and_then(|sum| reading.hand_on(count).map(|()| sum));
        drop(reading);
        // A table found wrong comes before whatever the reading met after it.
        let checked = checker.join().expect("checking a table does not panic");
        checked.and(sum)
    })
    .map(|sum| (derived, sum))
}

/// One of fifteen's tables as the rules give it.
struct Table {
    kind: &'static str,
    partition: String,
    i: usize,
    pattern: pattern::Pattern,
    layout: ByteLayout,
    entry: pattern::Entry,
}

/// The reading of fifteen's tables in [`pattern_tables`], handing each to the checker
/// once it is whole.
struct Reading<'a> {
    tables: &'a [Table],
    /// The table being read: its place, its chunks so far and its bytes.
    now: Option<(usize, ChunkOrder<'a>, Vec<u8>)>,
    /// The first table not yet begun.
    next: usize,
    to_check: std::sync::mpsc::SyncSender<(usize, Vec<u8>)>,
}

impl<'a> Reading<'a> {
    /// Chunk `chunk` of table `t`, as read (the tables come in order, each chunk by chunk).
    fn chunk(&mut self, t: usize, chunk: Value<'_>, data: Value<'_>) -> Check<()> {
        if self.now.as_ref().is_none_or(|(r, _, _)| *r != t) {
            self.hand_on(t)?;
            let table = &self.tables[t];
            let l = &table.layout;
            self.now = Some((
                t,
                ChunkOrder::new(table.kind, l.chunks()),
                Vec::with_capacity(l.ranks() as usize),
            ));
            self.next = t + 1;
        }
        let (t, order, bytes) = self.now.as_mut().expect("a table is being read");
        let (c, blob) = order.next(chunk, data)?;
        let table = &self.tables[*t];
        if blob.len() as u64 != table.layout.chunk_bytes(c) {
            return bad(format!(
                "{}: its chunks are not {} bytes",
                table.kind,
                table.layout.ranks()
            ));
        }
        bytes.extend_from_slice(blob);
        Ok(())
    }

    /// Hands the table being read to the checker, once whole, and fails on any table
    /// before `upto` that had no chunk at all.
    fn hand_on(&mut self, upto: usize) -> Check<()> {
        if upto < self.next {
            return bad("packed_chunks: fifteen's tables are not stored in kind order");
        }
        if let Some((t, order, bytes)) = self.now.take() {
            order.end()?;
            // A send fails only once the checker has stopped, on a table found wrong:
            // that is the failure reported.
            (self.to_check.send((t, bytes))).or_else(|_| bad("a table was found wrong"))?;
        }
        while self.next < upto {
            let table = &self.tables[self.next];
            ChunkOrder::new(table.kind, table.layout.chunks()).end()?;
            self.next += 1;
        }
        Ok(())
    }
}

/// A table's phases, named by the table (`2/3 checking relation`).
struct Named<'a> {
    progress: &'a dyn Progress,
    table: String,
}

impl Progress for Named<'_> {
    fn phase(&self, name: &str, total: u64) {
        self.progress
            .phase(&format!("{} {name}", self.table), total);
    }

    fn advance(&self, n: u64) {
        self.progress.advance(n);
    }
}
