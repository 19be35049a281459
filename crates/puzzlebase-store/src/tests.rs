//! Unit tests of the store's writing and checksums.

use super::*;

/// The counts of [`Reader::checksum_with_rows`] are in the order of [`audit::Table::ALL`].
#[test]
fn the_data_tables_are_every_table_in_order() {
    let names: Vec<&str> = DATA_TABLES.iter().map(|(t, _)| *t).collect();
    let all: Vec<&str> = audit::Table::ALL.iter().map(|t| t.name()).collect();
    assert_eq!(names, all);
}

fn record<'a>(name: &str, streamed: Chunks<'a>) -> PuzzleRecord<'a> {
    let table = |kind, chunks| PackedTable {
        kind,
        encoding: "u8",
        ranks_per_chunk: 4000,
        layout: "{}".to_string(),
        chunks,
    };
    PuzzleRecord {
        name: name.to_string(),
        family: "sliding".to_string(),
        definition: "{}".to_string(),
        definition_hash: "h".to_string(),
        storage: Storage::Packed,
        counts: false,
        states: 3,
        solvable: 3,
        max_distance: Some(2),
        seconds: 0.0,
        positions: Box::new(std::iter::empty()),
        position_rows: 0,
        histogram: vec![HistogramRow {
            distance: 0,
            positions: 1,
            classes: 1,
        }],
        peg_layers: Vec::new(),
        peg_matrix: Vec::new(),
        solutions: Vec::new(),
        // Given out of kind order: chunks are written (and hashed) by kind.
        packed: vec![
            table("solutions", streamed),
            table("distance", Chunks::Held(vec![vec![1, 2], vec![3]])),
        ],
        farthest: vec![FarthestRow {
            rank: 2,
            state: "x".to_string(),
            distance: 2,
        }],
    }
}

/// The digest groups cut from the rows as they are written, and those a checksum
/// pass cuts as it reads them, are those [`Reader::expected_digests`] reads from the file:
/// a positions table of several groups, a packed kind without chunks, small tables.
#[test]
fn groups_cut_in_passing_are_the_groups_read_back() {
    let path = Path::new(":memory:");
    let mut conn = Writer::new(Connection::open_in_memory().unwrap(), path);
    conn.migrate().unwrap();
    let mut rec = record("a", Chunks::Held(vec![vec![5], vec![6, 7]]));
    let rows = 3 * digests::POSITIONS_PER_GROUP as u64 + 5;
    rec.positions = Box::new((0..rows).map(|r| puzzlebase_core::records::PositionRow {
        rank: r * 3,
        state: format!("s{r}"),
        distance: (r % 5 != 0).then_some(r as u32),
        next_rank: (r > 0).then(|| r - 1),
        solutions: (r % 7 != 0).then_some(r * r),
        mv: (r % 2 == 0).then(|| "m".to_string()),
    }));
    rec.position_rows = rows;
    rec.packed.push(PackedTable {
        kind: "empty",
        encoding: "u8",
        ranks_per_chunk: 4000,
        layout: "{}".to_string(),
        chunks: Chunks::Held(Vec::new()),
    });
    conn.write_puzzle(rec, &|| ()).unwrap();
    let sorted = |mut g: Vec<digests::Group>| {
        g.sort_by(|a, b| (a.table, &a.kind, a.first).cmp(&(b.table, &b.kind, b.first)));
        g
    };
    let read = sorted(conn.expected_digests("a").unwrap());
    assert!(read.iter().filter(|g| g.table == "positions").count() == 4);
    assert!(read.iter().any(|g| g.kind == "empty" && g.rows == 0));
    let written = conn.take_digests("a").expect("the write kept its groups");
    let sum = conn.checksum("a").unwrap();
    assert_eq!(written.checksum.as_deref(), Some(sum.as_str()));
    let summed = conn
        .take_digests("a")
        .expect("the checksum pass kept its groups");
    for seen in [written, summed] {
        let mut groups = seen.groups;
        groups.extend(read.iter().filter(|g| g.table == "puzzles").cloned());
        assert_eq!(sorted(groups), read);
    }
    // What the writer kept is used, and gives what a full reading gives.
    conn.checksum("a").unwrap();
    conn.write_digests("a").unwrap();
    assert_eq!(conn.digest_difference("a").unwrap(), None);
}

/// Chunks made while they are written get the checksum the file gives back; a
/// stream that fails, stops short or runs on fails the write.
#[test]
fn streamed_chunks_are_written_and_hashed_in_place() {
    let path = Path::new(":memory:");
    let mut conn = Writer::new(Connection::open_in_memory().unwrap(), path);
    conn.migrate().unwrap();
    let stream = |items: Vec<std::result::Result<Vec<u8>, ChunkError>>, count| Chunks::Streamed {
        count,
        chunks: Box::new(items.into_iter()),
    };
    conn.write_puzzle(
        record("a", stream(vec![Ok(vec![9]), Ok(vec![8, 7])], 2)),
        &|| (),
    )
    .unwrap();
    let stored: String = (conn.conn())
        .query_row("SELECT checksum FROM puzzles WHERE name = 'a'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(stored, conn.checksum("a").unwrap());
    let chunks: i64 = (conn.conn())
        .query_row(
            "SELECT count(*) FROM packed_chunks WHERE puzzle = 'a'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(chunks, 4);

    for (name, items, count, says) in [
        (
            "b",
            vec![Ok(vec![9]), Err("process 1 sent a short piece".into())],
            2,
            "short piece",
        ),
        ("c", vec![Ok(vec![9])], 2, "1 chunks of the 2 announced"),
        (
            "d",
            vec![Ok(vec![9]), Ok(vec![9])],
            1,
            "more than the 1 chunks announced",
        ),
    ] {
        let e = conn
            .write_puzzle(record(name, stream(items, count)), &|| ())
            .unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains(name) && e.contains("solutions") && e.contains(says),
            "{e}"
        );
    }
}

/// A scratch file for one test, removed (with any journal) when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir();
        let path = dir.join(format!("pb-store-{}-{name}.sqlite", std::process::id()));
        let _ = std::fs::remove_file(&path);
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        let _ = std::fs::remove_file(self.0.with_extension("sqlite-journal"));
    }
}

/// The `meta` rows of the file at `path`, read by a connection of its own (what another
/// process would find in the file).
fn meta_keys(path: &Path) -> Vec<String> {
    let conn = Connection::open(path).unwrap();
    let mut st = conn.prepare("SELECT key FROM meta ORDER BY key").unwrap();
    st.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// A transaction dropped without `commit` (an early return, a panic) leaves nothing it
/// wrote in the file, and ends: the next one begins; one committed keeps its rows.
#[test]
fn a_transaction_dropped_uncommitted_leaves_nothing_written() {
    let file = Scratch::new("rollback");
    let mut writer = create(&file.0).unwrap();
    writer.migrate().unwrap();
    let put = |w: &Writer, key: &str| {
        w.execute("INSERT INTO meta (key, value) VALUES (?1, 'v')", [key])
            .map(|_| ())
    };
    let failed = || -> Sql<()> {
        let tx = writer.begin()?;
        put(&writer, "dropped")?;
        // Seen inside the transaction...
        assert_eq!(writer.meta()?, vec![("dropped".into(), "v".into())]);
        // ... and gone when an error returns before the commit.
        put(&writer, "dropped")?;
        tx.commit()
    };
    assert!(failed().is_err(), "the second insert breaks the key");
    assert_eq!(writer.meta().unwrap(), Vec::new());
    assert!(meta_keys(&file.0).is_empty());

    let tx = writer.begin().unwrap();
    put(&writer, "kept").unwrap();
    tx.commit().unwrap();
    assert_eq!(meta_keys(&file.0), ["kept"]);

    // A panic inside the transaction unwinds through the guard's drop.
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _tx = writer.begin().unwrap();
        put(&writer, "panicked").unwrap();
        panic!("a failure mid-transaction");
    }));
    assert!(panicked.is_err());
    assert_eq!(meta_keys(&file.0), ["kept"]);
    writer.close().unwrap();
}

/// A read transaction holds one snapshot until its guard is dropped; a second one begun
/// while it is open is refused rather than nested.
#[test]
fn a_read_transaction_ends_when_its_guard_is_dropped() {
    let file = Scratch::new("read");
    let mut writer = create(&file.0).unwrap();
    writer.migrate().unwrap();
    writer.close().unwrap();
    let reader = open_unchecked(&file.0).unwrap();
    let read = reader.begin_read().unwrap();
    assert!(reader.begin_read().is_err(), "no nested transaction");
    assert_eq!(reader.meta().unwrap(), Vec::new());
    drop(read);
    let again = reader.begin_read().unwrap();
    drop(again);
    assert_eq!(reader.quick_check().unwrap(), "ok");
}
