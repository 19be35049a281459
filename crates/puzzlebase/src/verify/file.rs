//! What holds for the file as a whole, beyond each puzzle's rows: SQLite's full
//! structure check (every index against its table), the schema's tables and indexes,
//! `meta` (what wrote the file, and its record of the puzzles it holds), and no rows of a
//! puzzle the file does not list.

use crate::store::{Reader, SqlError};

use super::VerifyError;
use crate::catalog::identity::GENERATOR_VERSION;
use crate::store::{APPLICATION_ID, SCHEMA_VERSION, integrity};

type Sql<'a> = &'a dyn Fn(SqlError) -> VerifyError;

fn bad(fact: impl Into<String>) -> VerifyError {
    VerifyError::File(fact.into())
}

/// SQLite's `integrity_check`: the pages, every table and every index against its table.
pub(super) fn structure(conn: &Reader, sql: Sql<'_>) -> Result<(), VerifyError> {
    let lines = conn.integrity_check().map_err(sql)?;
    if lines != ["ok"] {
        let shown: Vec<&str> = lines.iter().take(3).map(String::as_str).collect();
        return Err(VerifyError::Structure(shown.join("; ")));
    }
    Ok(())
}

/// The file is exactly its pages: bytes appended after the last page, or a file cut
/// short of it, are not what `generate` wrote (SQLite itself reads past neither).
pub(super) fn size(conn: &Reader, path: &std::path::Path, sql: Sql<'_>) -> Result<(), VerifyError> {
    let pages = conn.pages_bytes().map_err(sql)?;
    let len = std::fs::metadata(path)
        .map_err(|e| bad(format!("{}: {e}", path.display())))?
        .len();
    match len.cmp(&pages) {
        std::cmp::Ordering::Greater => Err(bad(format!(
            "{} bytes follow the last of its pages ({len} bytes for {pages} bytes of pages)",
            len - pages
        ))),
        std::cmp::Ordering::Less => Err(bad(format!(
            "it is cut short: {len} bytes for {pages} bytes of pages"
        ))),
        std::cmp::Ordering::Equal => Ok(()),
    }
}

/// The schema, `meta`, the contents record and orphan rows.
pub(super) fn whole(conn: &Reader, sql: Sql<'_>) -> Result<(), VerifyError> {
    let want = integrity::expected_schema_objects().map_err(sql)?;
    let have = conn.schema_objects().map_err(sql)?;
    if let Some((kind, name)) = want.iter().find(|o| !have.contains(o)) {
        return Err(bad(format!("the {kind} {name} is missing")));
    }
    if let Some((kind, name)) = have.iter().find(|o| !want.contains(o)) {
        return Err(bad(format!("the {kind} {name} is not part of the schema")));
    }
    let (user_version, application_id) = conn.header_versions().map_err(sql)?;
    if application_id != APPLICATION_ID as i64 || user_version != SCHEMA_VERSION as i64 {
        return Err(bad(format!(
            "the header says application {application_id:#x}, schema {user_version}"
        )));
    }

    let meta = conn.meta().map_err(sql)?;
    let value = |k: &str| {
        meta.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let expect = |k: &str, want: &str| match value(k) {
        Some(v) if v == want => Ok(()),
        Some(v) => Err(bad(format!("meta {k} is {v:?}, not {want:?}"))),
        None => Err(bad(format!("meta {k} is missing"))),
    };
    expect("generator", "puzzlebase")?;
    expect("tables_version", GENERATOR_VERSION)?;
    expect("schema_version", &SCHEMA_VERSION.to_string())?;
    for k in ["generator_version", "created_at", "puzzles"] {
        if value(k).is_none_or(str::is_empty) {
            return Err(bad(format!("meta {k} is missing")));
        }
    }
    if !value("created_at").is_some_and(is_utc_time) {
        return Err(bad(
            "meta created_at is not a UTC time (YYYY-MM-DDTHH:MM:SSZ)",
        ));
    }
    let known = [
        "generator",
        "generator_version",
        "tables_version",
        "schema_version",
        "created_at",
        "puzzles",
        "git_commit",
        "contents",
        "seal",
    ];
    if let Some((k, _)) = meta.iter().find(|(k, _)| !known.contains(&k.as_str())) {
        return Err(bad(format!("meta has an unknown key {k:?}")));
    }

    let Some(recorded) = integrity::contents(&meta) else {
        return Err(bad(
            "meta has no record of the puzzles the file holds (contents): regenerate the file",
        ));
    };
    let rows = conn.puzzle_checksums().map_err(sql)?;
    for (name, checksum) in &recorded {
        match rows.iter().find(|(n, _)| n == name) {
            None => {
                return Err(bad(format!(
                    "puzzle {name} is recorded in meta but has no puzzles row"
                )));
            }
            Some((_, c)) if c != checksum => {
                return Err(bad(format!(
                    "puzzle {name}: its puzzles row's checksum is not the one meta records"
                )));
            }
            Some(_) => {}
        }
    }
    if let Some((name, _)) = rows
        .iter()
        .find(|(n, _)| !recorded.iter().any(|(r, _)| r == n))
    {
        return Err(bad(format!(
            "puzzle {name} has a puzzles row but meta does not record it"
        )));
    }
    if let Some((table, puzzle)) = conn.orphan_rows().map_err(sql)?.first() {
        return Err(bad(format!(
            "{table} holds rows of puzzle {puzzle:?}, which the file does not list"
        )));
    }
    if let Some(puzzle) = conn.digest_orphans().map_err(sql)?.first() {
        return Err(bad(format!(
            "digests holds rows of puzzle {puzzle:?}, which the file does not list"
        )));
    }
    match value("seal") {
        None => {
            return Err(bad(
                "meta has no seal over what generate wrote: regenerate the file",
            ));
        }
        Some(v) if v != conn.seal().map_err(sql)? => {
            return Err(bad(
                "meta, the puzzles rows or the planner statistics (sqlite_stat1) are not as generate wrote them: the file's seal does not match",
            ));
        }
        Some(_) => {}
    }
    Ok(())
}

/// `YYYY-MM-DDTHH:MM:SSZ`.
fn is_utc_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'-',
            10 => c == b'T',
            13 | 16 => c == b':',
            19 => c == b'Z',
            _ => c.is_ascii_digit(),
        })
}
