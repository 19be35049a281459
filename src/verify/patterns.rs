//! fifteen's pattern tables, the only data a fifteen puzzle stores: each table is checked
//! entry by entry ([`pattern::check_with`]: a search led by the table that checks the
//! relation at every state, and the encoding of every byte, which prove each entry; the
//! local check of the table alone names a damaged entry when they fail), and nothing
//! else may be stored for the puzzle.

use crate::store::Reader;

use super::check::{Check, Derived, bad};
use super::stored::{
    UNUSED_WHEN_PACKED, must_be_empty, packed_table_rows, read_chunks, table_columns_are,
};
use crate::core::packed::{ByteLayout, ChunkLayout};
use crate::core::progress::Progress;
use crate::core::rank::FACT;
use crate::core::space::StateSpace;
use crate::families::{self, fifteen::Fifteen};
use crate::solvers::pattern;
use crate::store::audit;

/// fifteen's pattern tables: one per pattern of each built partition, in that order, each
/// laid out as `generate` lays it out, and every entry 1 + the minimum over the placements
/// one pattern-tile move away (free blank moves accounted for), as [`pattern::check`]
/// re-derives it.
pub(super) fn pattern_tables(
    conn: &Reader,
    name: &str,
    f: &Fifteen,
    progress: &dyn Progress,
) -> Check<Derived> {
    must_be_empty(conn, name, UNUSED_WHEN_PACKED)?;
    let stored = packed_table_rows(conn, name)?;
    let mut derived = Derived {
        entries: 0,
        states: 0,
        solvable: FACT[16] / 2,
        max_distance: None,
    };
    let mut k = 0;
    let mut loaded = Vec::new();
    for part in f.built() {
        for (i, p) in f.patterns(part).iter().enumerate() {
            let kind = families::fifteen::TABLE_KINDS[k];
            k += 1;
            let Some(s) = stored.iter().find(|s| s.kind == kind) else {
                return bad(format!(
                    "packed_tables: the {kind} table (partition {} pattern {i}) is missing",
                    part.name
                ));
            };
            let l = ByteLayout::new(p.placements());
            table_columns_are(s, &l)?;
            let what = |col: &str| format!("packed_tables {kind} {col}");
            // The layout names the table; only its build time is not derived.
            let mut want = l.describe();
            want["partition"] = serde_json::json!(part.name);
            want["pattern"] = serde_json::json!(i);
            want["tiles"] = serde_json::json!(p.tiles());
            let got: serde_json::Value = serde_json::from_str(&s.layout)
                .or_else(|_| bad(what("layout") + " is not JSON"))?;
            let named = ["partition", "pattern", "tiles", "ranks", "ranks_per_chunk"];
            if named.iter().any(|key| got.get(*key) != want.get(*key)) {
                return bad(what("layout") + " does not name its table as the rules give");
            }
            let blobs = read_chunks(conn, name, kind, l.chunks())?;
            let Some(bytes) = l.decode(&blobs) else {
                return bad(format!("{kind}: its chunks are not {} bytes", l.ranks()));
            };
            // Which entry the rules give is checked with the table (`pattern::check`).
            let Some(entry) = got["entry"].as_str().and_then(pattern::Entry::from_name) else {
                return bad(what("layout") + " names no known `entry`");
            };
            let table = pattern::PatternTable { entry, bytes };
            derived.entries += p.placements();
            derived.states += pattern::PatternSpace::new(p).size();
            loaded.push((kind, part.name.clone(), i, p.clone(), table));
        }
    }
    let count = loaded.len();
    for (t, (kind, partition, i, p, table)) in loaded.iter().enumerate() {
        let named = Named {
            progress,
            table: format!("{}/{count}", t + 1),
        };
        pattern::check_with(p, table, &named)
            .or_else(|e| bad(format!("{kind} (partition {partition} pattern {i}): {e}")))?;
    }
    if let Some(s) = stored
        .iter()
        .find(|s| !families::fifteen::TABLE_KINDS[..k].contains(&s.kind.as_str()))
    {
        return bad(format!(
            "packed_tables: a {} table the rules do not give",
            s.kind
        ));
    }
    let extra = audit::chunks_without_table(conn, name)?;
    if extra != 0 {
        return bad(format!("packed_chunks: {extra} chunks of no table"));
    }
    Ok(derived)
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
