//! A file shipped among other tools and people: pages moved, copied over one another or
//! taken from another file (refused, or answered as before, by the library `query` uses
//! and by a running server, the file changed in place under it), another SQLite
//! program's writes (named as such, and rebuilt by `generate`), a flipped header byte,
//! and values `generate` wrote edited on their own (refused by `verify` and `list`).

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use puzzlebase::json;

use crate::flips::{Tally, ask_all, no_silent_answer};
use crate::serve::{raw_at, start_server};
use crate::util::{
    LIGHT, Seeded, assert_clean_failure, damaged_copy, generate_into, run, shared_db,
};

/// Another valid file whose pages hold other rows at the same numbers: the light
/// puzzles but `six`, whose rows come first in the shared file.
fn foreign() -> &'static Path {
    static DB: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("foreign.sqlite");
        let light: Vec<&str> = LIGHT.iter().copied().filter(|n| *n != "six").collect();
        generate_into(&path, &light, false);
        (dir, path)
    });
    path
}

fn page_size(bytes: &[u8]) -> usize {
    match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65536,
        n => n as usize,
    }
}

/// The pages of each table and index of the file at `db` (numbered from 1), from
/// SQLite's `dbstat`: a page moved within its own b-tree keeps the file's structure
/// sound, the change only a checksum bound to the page's place can see.
fn trees(db: &Path) -> Vec<Vec<usize>> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn
        .prepare("SELECT name, pageno FROM dbstat ORDER BY name, pageno")
        .unwrap();
    let rows: Vec<(String, i64)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    for (name, page) in rows {
        match out.last_mut() {
            Some((n, pages)) if *n == name => pages.push(page as usize),
            _ => out.push((name, vec![page as usize])),
        }
    }
    out.into_iter()
        .map(|(_, p)| p)
        .filter(|p| p.len() > 1)
        .collect()
}

/// One page-level change to a file, as `(offset, new bytes)`, and what it was: two
/// pages of one b-tree swapped, one copied over another of its b-tree, or a page of
/// the other file put in the place it has there.
fn page_change(
    rng: &mut Seeded,
    trial: usize,
    file: &[u8],
    trees: &[Vec<usize>],
    other: &[u8],
) -> (Vec<(usize, Vec<u8>)>, String) {
    let page = page_size(file);
    let at = |n: usize| (n - 1) * page..n * page;
    let tree = &trees[rng.below(trees.len())];
    let a = tree[rng.below(tree.len())];
    let mut b = tree[rng.below(tree.len())];
    if b == a {
        b = tree[(tree.iter().position(|&p| p == a).unwrap() + 1) % tree.len()];
    }
    match trial % 3 {
        0 => (
            vec![
                ((a - 1) * page, file[at(b)].to_vec()),
                ((b - 1) * page, file[at(a)].to_vec()),
            ],
            format!("pages {a} and {b} swapped"),
        ),
        1 => (
            vec![((b - 1) * page, file[at(a)].to_vec())],
            format!("page {a} copied over page {b}"),
        ),
        _ => {
            let from = if b <= other.len() / page {
                b
            } else {
                1 + rng.below(other.len() / page)
            };
            (
                vec![((b - 1) * page, other[at(from)].to_vec())],
                format!("page {from} of another file over page {b}"),
            )
        }
    }
}

/// Every question asked of the shared file, as JSON; `Err` is a refusal.
fn shared_answers(db: &Path) -> Vec<Result<Value, String>> {
    ask_all(
        db,
        &[
            |db| Ok(Value::Array(db.listing()?.iter().map(json::info).collect())),
            |db| Ok(json::state(&db.state("six", "1234560")?)),
            |db| Ok(json::longest(&db.longest("six")?)),
            |db| Ok(json::state(&db.state("seven", "07214365")?)),
            |db| Ok(json::state(&db.state("seven", "12345607")?)),
            |db| Ok(json::longest(&db.longest("seven")?)),
            |db| Ok(json::histogram("seven", &db.histogram("seven")?)),
            |db| Ok(json::state(&db.state("eight", "867254301")?)),
            |db| Ok(json::longest(&db.longest("eight")?)),
            |db| Ok(json::state(&db.state("nine", "0532194876")?)),
            |db| Ok(json::histogram("nine", &db.histogram("nine")?)),
            |db| Ok(json::longest(&db.longest("knight-swap")?)),
            |db| Ok(json::longest(&db.longest("oshidori")?)),
            |db| Ok(json::state(&db.start("hoppers")?)),
            |db| Ok(json::layers("hoppers", &db.layers("hoppers")?)),
            |db| Ok(json::state(&db.start("triangle21")?)),
            |db| Ok(json::layers("triangle21", &db.layers("triangle21")?)),
            |db| {
                Ok(json::matrix(
                    "chinese-checkers",
                    &db.matrix("chinese-checkers")?,
                ))
            },
            |db| Ok(json::list(&db.sum("magic-triangle", 20)?)),
            |db| Ok(json::list(&db.all("knight-tour")?)),
            |db| Ok(json::list(&db.all("knight-tour-6x6")?)),
        ],
    )
}

/// Page moves, copies and foreign pages over a copy of the shared file, one at a time;
/// after each, every question is asked of a fresh connection.
fn moved(n: usize, seed: u64) -> Tally {
    let good = shared_answers(shared_db());
    assert!(good.iter().all(Result::is_ok), "{good:?}");
    let original = std::fs::read(shared_db()).unwrap();
    let other = std::fs::read(foreign()).unwrap();
    let trees = trees(shared_db());
    assert_eq!(page_size(&original), page_size(&other));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("moved.sqlite");
    let mut rng = Seeded(seed | 1);
    let mut t = Tally::default();
    for trial in 0..n {
        let (writes, what) = page_change(&mut rng, trial, &original, &trees, &other);
        let mut bytes = original.clone();
        for (off, b) in &writes {
            bytes[*off..off + b.len()].copy_from_slice(b);
        }
        std::fs::write(&path, &bytes).unwrap();
        t.record(&what, shared_answers(&path), &good);
    }
    t
}

/// 300 changes; the long run sets `PUZZLEBASE_PAGE_MOVES` (3,000:
/// `PUZZLEBASE_PAGE_MOVES=3000 cargo test --release --test integration moved_copied --
/// --ignored`, docs/contributing.md).
#[test]
#[ignore = "heavy: about 1 minute of damaged copies; .ci/run runs it"]
fn moved_copied_and_foreign_pages_give_the_undamaged_answer_or_a_refusal() {
    let t = moved(
        crate::util::count_from_env("PUZZLEBASE_PAGE_MOVES", 300),
        0x9A6E_5EED,
    );
    no_silent_answer(&t, "page moves");
    assert!(
        t.refused > 0,
        "some changes land on pages the questions read"
    );
}

/// What the server answers to every question: status and body, with what a search cost
/// (not part of the answer) left out.
fn served(addr: std::net::SocketAddr) -> Vec<(u16, Value)> {
    const QUESTIONS: &[&str] = &[
        "/api/puzzles",
        "/api/puzzles/seven",
        "/api/puzzles/seven/positions/07214365",
        "/api/puzzles/eight",
        "/api/puzzles/eight/positions/867254301",
        "/api/puzzles/nine/positions/0532194876",
        "/api/puzzles/hoppers",
        "/api/puzzles/triangle21",
        "/api/puzzles/chinese-checkers",
        "/api/puzzles/magic-triangle",
        "/api/puzzles/knight-tour-6x6",
        "/api/puzzles/knight-swap",
    ];
    QUESTIONS
        .iter()
        .map(|q| {
            let (status, _, body) = raw_at(addr, q.as_bytes(), "GET");
            let mut v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            for k in ["nodes", "generated", "seconds", "load_seconds"] {
                if let Some(o) = v.as_object_mut() {
                    o.remove(k);
                }
            }
            (status, v)
        })
        .collect()
}

/// The file changed in place under a running server (bits flipped, pages moved,
/// copied or taken from another file, each put back before the next): every answer is
/// the one the unchanged file gives, or a refusal; never another answer with 200.
/// Each change makes the server read its puzzles again (nine's 1.8 M rows), about two
/// seconds a change on two cores: 40 changes here, 300 in the long run.
#[test]
fn a_file_changed_under_a_running_server_is_never_answered_from() {
    changes_under_a_running_server(40, 0x5E4F_ED17);
}

/// The long run of the test above: 300 changes (`.ci/run` runs it).
#[test]
#[ignore]
fn many_changes_under_a_running_server_are_never_answered_from() {
    changes_under_a_running_server(300, 0x5E4F_ED17);
}

fn changes_under_a_running_server(trials: usize, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("served.sqlite");
    std::fs::copy(shared_db(), &path).unwrap();
    let original = std::fs::read(&path).unwrap();
    let other = std::fs::read(foreign()).unwrap();
    let trees = trees(&path);
    let addr = start_server(&path);
    let good = served(addr);
    assert!(good.iter().all(|(s, _)| *s == 200), "{good:?}");
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    let mut rng = Seeded(seed);
    let (mut same, mut refused, mut silent) = (0, 0, Vec::new());
    for trial in 0..trials {
        let (writes, what) = if trial % 4 == 3 {
            let at = rng.below(original.len());
            let bit = 1u8 << rng.below(8);
            (
                vec![(at, vec![original[at] ^ bit])],
                format!("byte {at} bit {bit:#04x}"),
            )
        } else {
            page_change(&mut rng, trial, &original, &trees, &other)
        };
        for (off, b) in &writes {
            file.write_all_at(b, *off as u64).unwrap();
        }
        for (i, (now, was)) in served(addr).into_iter().zip(&good).enumerate() {
            if now.0 != 200 {
                refused += 1;
            } else if now == *was {
                same += 1;
            } else {
                silent.push(format!("{what}, question {i}: {}", now.1));
            }
        }
        for (off, b) in &writes {
            file.write_all_at(&original[*off..off + b.len()], *off as u64)
                .unwrap();
        }
    }
    eprintln!(
        "{trials} changes under a running server: {same} answers unchanged, {refused} refused, {} silently different",
        silent.len()
    );
    assert!(silent.is_empty(), "{silent:#?}");
    assert!(refused > 0, "some changes land on pages the questions read");
    // Put back, the file is answered from again.
    assert_eq!(served(addr), good);
}

/// Another SQLite program writes to the file (`ANALYZE` through SQLite's own VFS):
/// every reader says so, naming the pages, rather than calling the file damaged.
#[test]
fn a_file_another_program_wrote_to_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    std::fs::copy(shared_db(), &db).unwrap();
    let conn = rusqlite::Connection::open_with_flags_and_vfs(
        &db,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE,
        c"unix",
    )
    .unwrap();
    conn.execute_batch("CREATE VIEW mine AS SELECT name FROM puzzles")
        .unwrap();
    drop(conn);
    let d = db.to_str().unwrap();
    for args in [
        &["query", "--db", d, "--puzzle", "seven", "--longest"][..],
        &["list", "--db", d],
        &["verify", "--db", d],
    ] {
        let err = assert_clean_failure(&run(args), 1);
        assert!(
            err.contains("was changed by another program"),
            "{args:?}: {err}"
        );
        let pages = err.split("no longer hold on ").nth(1).unwrap_or("");
        assert!(
            pages.starts_with("page 1 ")
                || pages.starts_with("pages 1,")
                || pages.starts_with("pages 1 and"),
            "page 1, which SQLite rewrites on every change, is named first: {err}"
        );
        assert!(!err.contains("damaged"), "{args:?}: {err}");
    }
    let o = run(&["generate", "--db", d, "--puzzle", "six", "--force"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["verify", "--db", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A bit flipped in the header byte that says how many bytes each page keeps for its
/// checksum is damage to page 1, not a file of an older build: the readers refuse
/// (exit 1), and `generate` rebuilds the file.
#[test]
fn a_flip_in_header_byte_20_is_damage_and_generate_rebuilds() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six"], false);
    let good = std::fs::read(&db).unwrap();
    let d = db.to_str().unwrap();
    for bit in 0..8 {
        let mut b = good.clone();
        b[20] ^= 1 << bit;
        std::fs::write(&db, &b).unwrap();
        let err = assert_clean_failure(
            &run(&["query", "--db", d, "--puzzle", "six", "--longest"]),
            1,
        );
        assert!(!err.contains("older puzzlebase"), "bit {bit}: {err}");
        let o = run(&["generate", "--db", d, "--puzzle", "six"]);
        assert!(
            o.status.success(),
            "bit {bit}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let o = run(&["verify", "--db", d]);
        assert!(
            o.status.success(),
            "bit {bit}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// Values `generate` wrote besides the puzzles' figures, edited on their own (page
/// checksums kept): `verify` refuses each, naming the seal, or for a `puzzles` row the
/// digest beside it (checked first, puzzle by puzzle).
#[test]
fn meta_puzzles_and_statistics_edited_are_refused_by_verify() {
    let edits = [
        (
            "UPDATE meta SET value = '9.9.9' WHERE key = 'generator_version'",
            "seal",
        ),
        (
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('git_commit', '0123456789abcdef0123456789abcdef01234567')",
            "seal",
        ),
        (
            "UPDATE meta SET value = '2020-01-01T00:00:00Z' WHERE key = 'created_at'",
            "seal",
        ),
        (
            "UPDATE puzzles SET generated_at = '2020-01-01T00:00:00Z' WHERE name = 'seven'",
            "seven: digests: its puzzles rows do not match",
        ),
        (
            "UPDATE puzzles SET seconds = seconds + 1 WHERE name = 'six'",
            "six: digests: its puzzles rows do not match",
        ),
        (
            "UPDATE sqlite_stat1 SET stat = '1 1' WHERE rowid = (SELECT min(rowid) FROM sqlite_stat1)",
            "seal",
        ),
        (
            "DELETE FROM sqlite_stat1 WHERE rowid = (SELECT max(rowid) FROM sqlite_stat1)",
            "seal",
        ),
    ];
    for (edit, words) in edits {
        let (_dir, db) = damaged_copy(shared_db(), |c| {
            assert_eq!(c.execute(edit, []).unwrap(), 1, "{edit}");
        });
        // verify prints each puzzle it passed, then the fact about the file.
        let o = run(&["verify", "--db", db.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{edit}: {err}");
        assert!(
            err.contains(words) && err.lines().count() == 1,
            "{edit}: {err}"
        );
    }
}

/// `list` reads the puzzles through the checks `query` makes: an edited figure or
/// checksum is refused, not shown.
#[test]
fn list_refuses_edited_figures() {
    for edit in [
        "UPDATE puzzles SET solvable = solvable - 1 WHERE name = 'seven'",
        "UPDATE puzzles SET max_distance = max_distance + 1 WHERE name = 'eight'",
        "UPDATE puzzles SET checksum = 'ab' || substr(checksum, 3) WHERE name = 'six'",
        "UPDATE puzzles SET solvable = solvable + 1 WHERE name = 'knight-tour'",
    ] {
        let (_dir, db) = damaged_copy(shared_db(), |c| {
            assert_eq!(c.execute(edit, []).unwrap(), 1, "{edit}");
        });
        for json in [false, true] {
            let mut args = vec!["list", "--db", db.to_str().unwrap()];
            if json {
                args.push("--json");
            }
            let err = assert_clean_failure(&run(&args), 1);
            assert!(err.contains("inconsistent file"), "{edit}: {err}");
        }
    }
    let o = run(&["list", "--db", shared_db().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A file of the previous page rule (8 reserved bytes, sums bound to nothing: what the
/// previous release wrote): the readers ask for a rebuild, and `generate` rewrites it
/// in this rule, copying its puzzles (their pages checked by the old rule) rather than
/// computing them again.
#[test]
fn a_file_of_the_previous_page_rule_is_rewritten_by_generate() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["six", "seven"], false);
    let mut b = std::fs::read(&db).unwrap();
    let page = page_size(&b);
    b[20] = 8;
    for p in b.chunks_mut(page) {
        // The old rule: SQLite's write-ahead-log sums over all but the last 8 bytes.
        let n = page - 8;
        let (mut s1, mut s2) = (0u32, 0u32);
        for pair in p[..n].chunks_exact(8) {
            s1 = s1
                .wrapping_add(u32::from_le_bytes(pair[..4].try_into().unwrap()))
                .wrapping_add(s2);
            s2 = s2
                .wrapping_add(u32::from_le_bytes(pair[4..].try_into().unwrap()))
                .wrapping_add(s1);
        }
        p[n..n + 4].copy_from_slice(&s1.to_le_bytes());
        p[n + 4..].copy_from_slice(&s2.to_le_bytes());
    }
    std::fs::write(&db, &b).unwrap();
    let d = db.to_str().unwrap();
    let err = assert_clean_failure(
        &run(&["query", "--db", d, "--puzzle", "six", "--longest"]),
        1,
    );
    assert!(err.contains("older puzzlebase"), "{err}");
    let o = run(&["generate", "--db", d, "--puzzle", "six"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    for name in ["six", "seven"] {
        let line = out.lines().find(|l| l.starts_with(name)).unwrap();
        assert!(line.contains("reused"), "{name} copied: {out}");
    }
    assert_eq!(std::fs::read(&db).unwrap()[20], 16);
    let o = run(&["verify", "--db", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let a = crate::util::query_json_in(&db, &["--puzzle", "seven", "--longest"]);
    assert_eq!(a["distance"], 36);
}
