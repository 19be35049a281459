//! `export` in every format (issue 75): CSV, JSON Lines and Parquet give the same rows,
//! typed in Parquet, with the puzzle's definition and checksum in its metadata; two-bit
//! tables export the distances and next positions of the same puzzle stored as rows; a
//! damaged puzzle writes nothing; `--output` is written whole or not at all; a closed
//! pipe ends an export quietly.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, UInt32Type};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Value, json};

use crate::flips::every_kind;
use crate::util::{assert_clean_failure, damaged_copy, run, shared_db};

/// `export` of `name` in `format` onto standard output, which must succeed.
fn export(db: &Path, name: &str, format: &str) -> Vec<u8> {
    let o = run(&[
        "export",
        "--db",
        db.to_str().unwrap(),
        "--puzzle",
        name,
        "--format",
        format,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o.stdout
}

/// The rows of a JSON Lines export.
fn jsonl(bytes: &[u8]) -> Vec<Value> {
    (String::from_utf8(bytes.to_vec()).unwrap().lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The rows of a CSV export as JSON objects: the columns typed as JSON Lines types them.
fn csv_rows(bytes: &[u8]) -> Vec<Value> {
    let mut r = csv::Reader::from_reader(bytes);
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            let mut obj = serde_json::Map::new();
            for (k, v) in header.iter().zip(rec.iter()) {
                let value = match (k.as_str(), v) {
                    (_, "") => Value::Null,
                    ("state" | "next", s) => json!(s),
                    ("canonical", s) => json!(s == "1"),
                    (_, n) => serde_json::from_str(n).unwrap(),
                };
                obj.insert(k.clone(), value);
            }
            Value::Object(obj)
        })
        .collect()
}

/// The rows of a Parquet export as JSON objects, and its key-value metadata.
fn parquet_rows(bytes: Vec<u8>) -> (Vec<Value>, Vec<(String, String)>) {
    let mut file = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut file, &bytes).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let meta = (builder.metadata().file_metadata().key_value_metadata())
        .map(|kv| {
            kv.iter()
                .map(|e| (e.key.clone(), e.value.clone().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    let mut rows = Vec::new();
    for batch in builder.build().unwrap() {
        let batch = batch.unwrap();
        let schema = batch.schema();
        for i in 0..batch.num_rows() {
            let mut obj = serde_json::Map::new();
            for (f, col) in schema.fields().iter().zip(batch.columns()) {
                let v = if col.is_null(i) {
                    Value::Null
                } else {
                    match f.name().as_str() {
                        "rank" | "solutions" | "value" => {
                            json!(col.as_primitive::<Int64Type>().value(i))
                        }
                        "distance" => json!(col.as_primitive::<UInt32Type>().value(i)),
                        "canonical" => json!(col.as_boolean().value(i)),
                        _ => json!(col.as_string::<i32>().value(i)),
                    }
                };
                obj.insert(f.name().clone(), v);
            }
            rows.push(Value::Object(obj));
        }
    }
    (rows, meta)
}

#[test]
fn every_format_gives_the_same_rows_and_parquet_carries_the_puzzle() {
    // Rows, packed with counts, a peg board's rows and its layers twin, an enumeration.
    for (db, name) in [
        (shared_db(), "seven"),
        (shared_db(), "eight-packed"),
        (every_kind(), "hoppers"),
        (every_kind(), "hoppers-layers"),
        (shared_db(), "magic-triangle"),
    ] {
        let csv = csv_rows(&export(db, name, "csv"));
        let lines = jsonl(&export(db, name, "jsonl"));
        let (parquet, meta) = parquet_rows(export(db, name, "parquet"));
        assert!(!csv.is_empty(), "{name}");
        assert_eq!(csv, lines, "{name}: CSV and JSON Lines");
        assert_eq!(parquet, lines, "{name}: Parquet and JSON Lines");
        let info = crate::util::query_json_in(db, &["--puzzle", name, "--histogram"]);
        assert_eq!(info["puzzle"], name);
        let listed: Vec<Value> =
            (String::from_utf8(run(&["list", "--db", db.to_str().unwrap(), "--json"]).stdout)
                .unwrap()
                .lines())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let row = listed.iter().find(|p| p["puzzle"] == name).unwrap();
        let get = |k: &str| {
            meta.iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(get("puzzlebase.puzzle").as_deref(), Some(name));
        assert_eq!(
            get("puzzlebase.checksum"),
            row["checksum"].as_str().map(String::from)
        );
        assert_eq!(
            get("puzzlebase.generated_at"),
            row["generated_at"].as_str().map(String::from)
        );
        let definition: Value =
            serde_json::from_str(&get("puzzlebase.definition").unwrap()).unwrap();
        assert!(definition.is_object(), "{name}: {definition}");
        assert_eq!(get("puzzlebase.rows"), Some(lines.len().to_string()));
    }
}

#[test]
fn the_next_position_is_the_second_of_query_s_path() {
    for (db, name) in [
        (shared_db(), "seven"),
        (shared_db(), "nine-packed"),
        (every_kind(), "hoppers"),
        (every_kind(), "hoppers-layers"),
    ] {
        let rows = jsonl(&export(db, name, "jsonl"));
        let mut checked = 0;
        let solvable: Vec<&Value> = rows.iter().filter(|r| !r["distance"].is_null()).collect();
        for r in solvable.iter().step_by((solvable.len() / 60).max(1)) {
            let a = crate::util::query_json_in(
                db,
                &["--puzzle", name, "--state", r["state"].as_str().unwrap()],
            );
            assert_eq!(a["distance"], r["distance"], "{name}: {r}");
            // A board stored as layers keeps no counts: `query` derives one position's
            // count by a search of its own, which an export of every position does not
            // make (the column holds stored counts only).
            let layers = name.ends_with("-layers");
            let wanted = if a["solutions_stored"] == true && !layers {
                a["solutions"].clone()
            } else {
                Value::Null
            };
            assert_eq!(r["solutions"], wanted, "{name}: {r}");
            let next = a["path"].get(1).cloned().unwrap_or(Value::Null);
            assert_eq!(r["next"], next, "{name}: {r}");
            checked += 1;
        }
        assert!(checked >= solvable.len().min(50), "{name}: {checked}");
    }
}

/// A file with `six` as rows and its two-bit twin `six-codes` (mod 3: the hexagonal
/// puzzle is not bipartite), built through the command line.
fn six_and_its_codes(dir: &Path) -> PathBuf {
    let defs = dir.join("defs");
    std::fs::create_dir(&defs).unwrap();
    for (file, text) in crate::util::two_bit_definitions() {
        std::fs::write(defs.join(file), text).unwrap();
    }
    let db = dir.join("codes.sqlite");
    let o = run(&[
        "generate",
        "-q",
        "--db",
        db.to_str().unwrap(),
        "--definitions",
        defs.to_str().unwrap(),
        "--puzzle",
        "six",
        "--puzzle",
        "six-codes",
        "--puzzle",
        "nine-codes",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    db
}

#[test]
fn a_two_bit_table_exports_the_distances_and_next_positions_of_its_rows_twin() {
    let dir = tempfile::tempdir().unwrap();
    let db = six_and_its_codes(dir.path());
    let rows = jsonl(&export(&db, "six", "jsonl"));
    let codes = jsonl(&export(&db, "six-codes", "jsonl"));
    // Every rank of the two-bit table, those out of reach without a distance.
    let by_state: std::collections::HashMap<&str, &Value> = codes
        .iter()
        .map(|r| (r["state"].as_str().unwrap(), r))
        .collect();
    assert_eq!(
        codes.len() as u64,
        codes.last().unwrap()["rank"].as_u64().unwrap() + 1
    );
    for r in &rows {
        let c = by_state[r["state"].as_str().unwrap()];
        assert_eq!(c["distance"], r["distance"], "{r} {c}");
        assert_eq!(c["solutions"], Value::Null, "two bits keep no counts");
        // Both the smallest-ranked neighbour one move closer: the same position.
        assert_eq!(c["next"], r["next"], "{r} {c}");
    }
    let reachable = codes.iter().filter(|r| !r["distance"].is_null()).count();
    assert_eq!(reachable, rows.len());
    // A mod-4 table (nine, 1,814,400 ranks), against `query` on a sample.
    let nine = jsonl(&export(&db, "nine-codes", "jsonl"));
    assert_eq!(nine.len(), 1_814_400);
    for r in nine.iter().step_by(90_001) {
        let a = crate::util::query_json_in(
            &db,
            &[
                "--puzzle",
                "nine-codes",
                "--state",
                r["state"].as_str().unwrap(),
            ],
        );
        assert_eq!(a["distance"], r["distance"], "{r}");
        assert_eq!(
            a["path"].get(1).cloned().unwrap_or(Value::Null),
            r["next"],
            "{r}"
        );
    }
}

#[test]
fn a_damaged_puzzle_writes_nothing_and_exits_1() {
    // A distance edited in a row, and a byte of a packed chunk: the pages' checksums are
    // redone by SQLite, so only the puzzle's own checksum tells.
    for (name, sql) in [
        (
            "seven",
            "UPDATE positions SET distance = distance + 2 WHERE puzzle = 'seven' AND rank = (SELECT max(rank) FROM positions WHERE puzzle = 'seven')",
        ),
        (
            "nine-packed",
            "UPDATE packed_chunks SET data = zeroblob(length(data)) WHERE puzzle = 'nine-packed' AND kind = 'distance' AND chunk = (SELECT max(chunk) FROM packed_chunks WHERE puzzle = 'nine-packed' AND kind = 'distance')",
        ),
    ] {
        let (dir, db) = damaged_copy(shared_db(), |conn| {
            assert!(conn.execute(sql, []).unwrap() > 0);
        });
        for format in ["csv", "jsonl", "parquet"] {
            let o = run(&[
                "export",
                "--db",
                db.to_str().unwrap(),
                "--puzzle",
                name,
                "--format",
                format,
            ]);
            let err = assert_clean_failure(&o, 1);
            assert!(
                o.stdout.is_empty(),
                "{name} {format}: {} bytes",
                o.stdout.len()
            );
            assert!(err.contains(name), "{err}");
            let out = dir.path().join(format!("out.{format}"));
            let o = run(&[
                "export",
                "--db",
                db.to_str().unwrap(),
                "--puzzle",
                name,
                "--format",
                format,
                "--output",
                out.to_str().unwrap(),
            ]);
            assert_clean_failure(&o, 1);
            let names: Vec<_> = (std::fs::read_dir(dir.path()).unwrap())
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(names, ["damaged.sqlite"], "{name} {format}");
        }
    }
}

#[test]
fn output_is_renamed_into_place_whole() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("seven.parquet");
    let db = shared_db().to_str().unwrap();
    let o = run(&[
        "export",
        "--db",
        db,
        "--puzzle",
        "seven",
        "--format",
        "parquet",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty());
    let (rows, _) = parquet_rows(std::fs::read(&out).unwrap());
    assert_eq!(rows.len() as u64, crate::util::histogram_total("seven"));
    let names: Vec<_> = (std::fs::read_dir(dir.path()).unwrap())
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["seven.parquet"]);
    // A directory that does not exist: one line, exit 1, nothing written.
    let missing = dir.path().join("no/such/dir/x.csv");
    let o = run(&[
        "export",
        "--db",
        db,
        "--puzzle",
        "seven",
        "-o",
        missing.to_str().unwrap(),
    ]);
    let err = assert_clean_failure(&o, 1);
    assert!(err.contains("no/such/dir"), "{err}");
}

#[test]
fn a_closed_pipe_ends_export_quietly() {
    // `export --puzzle eight-packed | head -2`, in every format: the reader goes away
    // after two lines, with most of the 181,440 rows still to write.
    for format in ["csv", "jsonl", "parquet"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
            .args([
                "export",
                "--db",
                shared_db().to_str().unwrap(),
                "--puzzle",
                "eight-packed",
            ])
            .args(["--format", format])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = Vec::new();
        for _ in 0..2 {
            line.clear();
            out.read_until(b'\n', &mut line).unwrap();
        }
        drop(out);
        let o = child.wait_with_output().unwrap();
        assert!(
            o.status.success(),
            "{format}: {:?} {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            o.stderr.is_empty(),
            "{format}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
