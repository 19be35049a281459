//! The digests beside the data (`digests`, schema 5), attacked as a user of a plain
//! SQLite host would: pages swapped, copied or taken from another file, a single
//! `UPDATE` of any stored value, a deleted row. After each change every question of
//! [`flips::answers`] (every storage kind), and the position the change touched, is
//! asked through two readers: a plain host's connection (SQLite's own VFS, no page
//! checksums: what the SQLite extension reads through in `sqlite3`, Datasette or
//! pysqlite) and `Database::open` (what `query`, the server and the Python package
//! read through). The SQL edits are written through puzzlebase's checksum VFS, so
//! their pages carry fresh page sums: only the digests tell. Each answer must be the
//! undamaged one or a refusal. The default run makes 250 changes;
//! `cargo test --release --test integration many_attacks -- --ignored --nocapture`
//! makes 1,250.

use std::path::Path;

use puzzlebase::{Database, json};
use rusqlite::OpenFlags;
use serde_json::Value;

use crate::flips::{Tally, answers_of, every_kind, no_silent_answer};
use crate::util::{Seeded, assert_clean_failure, generate_into, run};

/// The file's reader as a plain SQLite host has it: SQLite's own VFS (`unix`), which
/// reads pages without puzzlebase's checksums, immutable as docs/readers.md says.
fn plain(db: &Path) -> Result<Database, String> {
    let conn = rusqlite::Connection::open_with_flags_and_vfs(
        format!("file:{}?immutable=1", db.display()),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
        "unix",
    )
    .map_err(|e| e.to_string())?;
    let reader = puzzlebase::borrowing(conn).map_err(|e| e.to_string())?;
    Ok(Database::over(reader))
}

fn checked(db: &Path) -> Result<Database, String> {
    Database::open(db).map_err(|e| e.to_string())
}

/// The position a change touched, as (puzzle, rank), when it is one a question can
/// name: a row of `positions`, or a rank of `eight-packed`'s chunk.
type Target = Option<(String, u64)>;

/// Every table a change may hit, with its primary key.
const TABLES: &[(&str, &str)] = &[
    ("positions", "puzzle, rank"),
    ("packed_chunks", "puzzle, kind, chunk"),
    ("histogram", "puzzle, distance"),
    ("peg_layers", "puzzle, pegs"),
    ("peg_matrix", "puzzle, start, finish"),
    ("solutions", "puzzle, rank"),
    ("packed_tables", "puzzle, kind"),
    ("farthest", "puzzle, rank"),
    ("puzzles", "name"),
    ("digests", "puzzle, tbl, kind, first"),
];

/// A random row of a random table: the table, its key columns and their values.
fn pick_row(
    conn: &rusqlite::Connection,
    r: &mut Seeded,
) -> (&'static str, Vec<String>, Vec<rusqlite::types::Value>) {
    loop {
        let (table, key) = TABLES[r.below(TABLES.len())];
        let n: i64 = conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |x| x.get(0))
            .unwrap();
        if n == 0 {
            continue;
        }
        let at = r.below(n as usize) as i64;
        let cols: Vec<String> = key.split(", ").map(str::to_string).collect();
        let values = conn
            .query_row(
                &format!("SELECT {key} FROM {table} LIMIT 1 OFFSET {at}"),
                [],
                |x| {
                    (0..cols.len())
                        .map(|i| x.get::<_, rusqlite::types::Value>(i))
                        .collect()
                },
            )
            .unwrap();
        return (table, cols, values);
    }
}

fn target_of(
    table: &str,
    cols: &[String],
    key: &[rusqlite::types::Value],
    conn: &rusqlite::Connection,
) -> Target {
    use rusqlite::types::Value::{Integer, Text};
    let get = |c: &str| cols.iter().position(|k| k == c).map(|i| key[i].clone());
    match (table, get("puzzle")) {
        ("positions", Some(Text(p))) => match get("rank") {
            Some(Integer(rank)) => Some((p, rank as u64)),
            _ => None,
        },
        ("packed_chunks", Some(Text(p))) if p == "eight-packed" => {
            let (Some(Text(kind)), Some(Integer(chunk))) = (get("kind"), get("chunk")) else {
                return None;
            };
            let per: i64 = conn
                .query_row(
                    "SELECT ranks_per_chunk FROM packed_tables WHERE puzzle = ?1 AND kind = ?2",
                    [&p, &kind],
                    |x| x.get(0),
                )
                .ok()?;
            Some((p, (chunk * per + per / 2).min(181_439) as u64))
        }
        _ => None,
    }
}

/// A value other than `v`, of the same type where it can be.
fn changed(v: &rusqlite::types::Value, r: &mut Seeded) -> rusqlite::types::Value {
    use rusqlite::types::Value::*;
    match v {
        Null => Integer(1),
        Integer(i) => Integer(if r.below(2) == 0 { i + 1 } else { i - 1 }),
        Real(f) => Real(f + 1.0),
        Text(t) => {
            let mut b = t.clone().into_bytes();
            if b.is_empty() {
                return Text("0".into());
            }
            let at = r.below(b.len());
            // Another digit or letter, so that the text stays as plausible as may be.
            b[at] = match b[at] {
                b'0'..=b'8' => b[at] + 1,
                b'9' => b'0',
                c if c.is_ascii_lowercase() && c != b'z' => c + 1,
                _ => b'1',
            };
            Text(String::from_utf8_lossy(&b).into_owned())
        }
        Blob(b) => {
            let mut b = b.clone();
            if b.is_empty() {
                return Blob(vec![1]);
            }
            let at = r.below(b.len());
            b[at] ^= 1 << r.below(8);
            Blob(b)
        }
    }
}

/// One SQL change to a copy (an `UPDATE` of one value, or a `DELETE` of one row),
/// written through puzzlebase's checksum VFS so that its pages carry fresh sums.
fn sql_change(path: &Path, r: &mut Seeded, delete: bool) -> Option<(String, Target)> {
    puzzlebase::install_page_checksums().unwrap();
    let conn = rusqlite::Connection::open(path).unwrap();
    let (table, cols, key) = pick_row(&conn, r);
    let target = target_of(table, &cols, &key, &conn);
    let cond: Vec<String> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{c} = ?{}", i + 1))
        .collect();
    let cond = cond.join(" AND ");
    let params = rusqlite::params_from_iter(key.iter());
    if delete {
        // A row others refer to (foreign keys) is refused by SQLite: not a case.
        conn.execute(&format!("DELETE FROM {table} WHERE {cond}"), params)
            .ok()?;
        return Some((format!("DELETE of a {table} row {key:?}"), target));
    }
    let columns: Vec<String> = {
        let st = conn.prepare(&format!("SELECT * FROM {table}")).unwrap();
        st.column_names().map(str::to_string).collect()
    };
    let column = &columns[r.below(columns.len())];
    let now: rusqlite::types::Value = conn
        .query_row(
            &format!("SELECT {column} FROM {table} WHERE {cond}"),
            params,
            |x| x.get(0),
        )
        .unwrap();
    let new = changed(&now, r);
    let mut all: Vec<rusqlite::types::Value> = key.clone();
    all.push(new.clone());
    let sql = format!(
        "UPDATE {table} SET {column} = ?{} WHERE {cond}",
        key.len() + 1
    );
    // A key changed onto another row's is refused by SQLite: not a case.
    conn.execute(&sql, rusqlite::params_from_iter(all.iter()))
        .ok()?;
    Some((
        format!("UPDATE {table} SET {column} {now:?} -> {new:?} at {key:?}"),
        target,
    ))
}

/// Page `p` (from 1) of `bytes`.
fn page(size: usize, p: usize) -> std::ops::Range<usize> {
    (p - 1) * size..p * size
}

fn page_size(bytes: &[u8]) -> usize {
    match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65536,
        n => n as usize,
    }
}

/// The answers of both readers, with the targeted position's state when there is one.
fn ask(path: &Path, target: &Target, text: &Option<String>) -> Vec<Result<Value, String>> {
    let mut out = Vec::new();
    for open in [plain, checked] {
        out.extend(answers_of(open(path)));
        if let (Some((puzzle, _)), Some(text)) = (target, text) {
            out.push(match open(path) {
                Ok(db) => db
                    .state(puzzle, text)
                    .map(|a| json::state(&a))
                    .map_err(|e| e.to_string()),
                Err(e) => Err(e),
            });
        }
    }
    out
}

/// `n` changes of each kind (page swap, page copy, foreign page, `UPDATE`, `DELETE`),
/// seeded, each to a fresh copy of the every-kind file.
fn attack(n: usize, seed: u64) -> Tally {
    let good_file = every_kind();
    let dir = tempfile::tempdir().unwrap();
    let foreign_path = dir.path().join("foreign.sqlite");
    generate_into(
        &foreign_path,
        &["six", "knight-swap", "oshidori", "triangle21"],
        false,
    );
    let foreign = std::fs::read(&foreign_path).unwrap();
    let original = std::fs::read(good_file).unwrap();
    let size = page_size(&original);
    let pages = original.len() / size;
    let good_db = Database::open(good_file).unwrap();
    let path = dir.path().join("attacked.sqlite");
    let mut r = Seeded(seed | 1);
    let mut t = Tally::default();
    let mut cases = 0;
    while cases < 5 * n {
        let kind = cases % 5;
        let mut bytes = original.clone();
        let (what, target) = match kind {
            0..=2 => {
                let a = 1 + r.below(pages);
                let b = 1 + r.below(pages);
                if a == b && kind != 2 {
                    continue;
                }
                match kind {
                    0 => {
                        let pa = bytes[page(size, a)].to_vec();
                        let pb = bytes[page(size, b)].to_vec();
                        bytes[page(size, a)].copy_from_slice(&pb);
                        bytes[page(size, b)].copy_from_slice(&pa);
                        std::fs::write(&path, &bytes).unwrap();
                        (format!("pages {a} and {b} swapped"), None)
                    }
                    1 => {
                        let pa = bytes[page(size, a)].to_vec();
                        bytes[page(size, b)].copy_from_slice(&pa);
                        std::fs::write(&path, &bytes).unwrap();
                        (format!("page {a} copied over page {b}"), None)
                    }
                    _ => {
                        let f = 1 + r.below(foreign.len() / size);
                        bytes[page(size, b)].copy_from_slice(&foreign[page(size, f)]);
                        std::fs::write(&path, &bytes).unwrap();
                        (
                            format!("page {b} replaced by page {f} of another file"),
                            None,
                        )
                    }
                }
            }
            _ => {
                std::fs::write(&path, &original).unwrap();
                match sql_change(&path, &mut r, kind == 4) {
                    Some(change) => change,
                    None => continue,
                }
            }
        };
        cases += 1;
        let text = target
            .as_ref()
            .and_then(|(p, rank)| good_db.unrank(p, *rank).ok());
        let good = ask(good_file, &target, &text);
        // The targeted position may be one that cannot reach the goal: a refusal
        // then is its undamaged answer, and any value a silent one.
        assert!(good.iter().filter(|a| a.is_err()).count() <= 2, "{good:?}");
        t.record(&what, ask(&path, &target, &text), &good);
    }
    t
}

#[test]
fn attacks_on_a_plain_host_are_answered_rightly_or_refused() {
    let t = attack(50, 0xD16E_5757);
    no_silent_answer(
        &t,
        "changes (pages swapped, copied, foreign; UPDATEs; DELETEs)",
    );
    assert!(
        t.refused > 0,
        "some changes land on what the questions read"
    );
}

/// The long run: 1,250 changes.
#[test]
#[ignore]
fn many_attacks_on_a_plain_host_are_answered_rightly_or_refused() {
    no_silent_answer(
        &attack(250, 0x5757_D16E),
        "changes (pages swapped, copied, foreign; UPDATEs; DELETEs)",
    );
}

/// A stored value changed with every page sum recomputed: `query` refuses the position
/// with the damage message (its group no longer matches its digest), as a plain
/// host's reader does, and `verify` refuses it.
#[test]
fn an_update_with_fresh_page_sums_is_refused_by_query_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.sqlite");
    generate_into(&path, &["eight"], false);
    puzzlebase::install_page_checksums().unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE positions SET distance = 33 WHERE puzzle = 'eight' AND state = '867254301'",
        [],
    )
    .unwrap();
    drop(conn);
    let db = path.to_str().unwrap();
    let err = assert_clean_failure(
        &run(&[
            "query",
            "--db",
            db,
            "--puzzle",
            "eight",
            "--state",
            "867254301",
        ]),
        1,
    );
    assert!(err.contains("do not match their digest"), "{err}");
    // verify re-derives the rows first, and names the value itself.
    let err = assert_clean_failure(&run(&["verify", "--db", db]), 1);
    assert!(err.contains("distance 33"), "{err}");
    let plain = plain(&path).unwrap();
    let e = plain
        .distance("eight", "867254301", &puzzlebase::default_stop())
        .unwrap_err();
    assert!(e.to_string().contains("digest"), "{e}");
}
