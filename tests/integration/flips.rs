//! Random damage, counted: bit flips anywhere in a file that holds every storage kind
//! (rows, packed tables, pattern tables, peg rows and matrix, enumeration rows, the
//! catalog). After each flip every question is asked again of a fresh connection; each
//! answer must be the undamaged one or a refusal, never a different answer. The default
//! run makes a few hundred flips; `PUZZLEBASE_FLIPS=3000` makes thousands.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use puzzlebase::{Database, QueryError, json};
use serde_json::Value;

use crate::util::{Quiet, assert_clean_failure, generate_into, run};

/// Every storage kind: rows (`seven`), packed distances and counts (`eight-packed`), pattern
/// tables (`fifteen`), peg rows, layers and matrix (`hoppers`, `chinese-checkers`), and
/// enumeration rows (`magic-triangle`, `knight-tour`).
const PUZZLES: &[&str] = &[
    "seven",
    "eight-packed",
    "fifteen",
    "hoppers",
    "chinese-checkers",
    "magic-triangle",
    "knight-tour",
];

/// Peg layers (the French boards' storage) on a small board: `hoppers` asked to be
/// stored so.
const HOPPERS_LAYERS: &str = "hoppers-layers";

/// A file with every storage kind, built once for the flip tests.
pub fn every_kind() -> &'static Path {
    static DB: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kinds.sqlite");
        generate_into(&path, PUZZLES, false);
        let text = include_str!("../../data/puzzles/hoppers.toml").replace(
            "name = \"hoppers\"",
            "name = \"hoppers-layers\"\nstorage = \"layers\"",
        );
        let layers = puzzlebase::Definition::from_toml("hoppers-layers.toml", &text).unwrap();
        let opts = puzzlebase::Options {
            db: path.clone(),
            only: vec![HOPPERS_LAYERS.to_string()],
            force: false,
        };
        puzzlebase::generate_job(&opts, crate::util::job(vec![layers], false), &Quiet).unwrap();
        (dir, path)
    });
    path
}

/// Forty random moves from the goal: searched in milliseconds on the 6-6-3 tables, and
/// the search reads every table.
const FIFTEEN: &str = "8,5,7,3,1,15,2,4,6,9,14,11,13,0,10,12";

/// One question asked of a file: its answer, as JSON.
pub type Question = fn(&Database) -> Result<Value, QueryError>;

/// Each question asked of a fresh connection to the file at `db`, in order; `Err` is a
/// refusal (a file that does not open is one refusal).
pub fn ask_all(db: &Path, questions: &[Question]) -> Vec<Result<Value, String>> {
    ask_of(Database::open(db).map_err(|e| e.to_string()), questions)
}

/// Each question asked of `db` (a file that did not open: one refusal).
pub fn ask_of(db: Result<Database, String>, questions: &[Question]) -> Vec<Result<Value, String>> {
    let db = match db {
        Ok(db) => db,
        Err(e) => return vec![Err(e)],
    };
    questions
        .iter()
        .map(|q| q(&db).map_err(|e| e.to_string()))
        .collect()
}

/// Every question asked of the file, as JSON; `Err` is a refusal.
pub fn answers(db: &Path) -> Vec<Result<Value, String>> {
    answers_of(Database::open(db).map_err(|e| e.to_string()))
}

/// [`answers`], asked of an open reader.
pub fn answers_of(db: Result<Database, String>) -> Vec<Result<Value, String>> {
    ask_of(
        db,
        &[
            |db| Ok(Value::Array(db.puzzles()?.iter().map(json::info).collect())),
            |db| Ok(json::state(&db.state("seven", "07214365")?)),
            |db| Ok(json::longest(&db.longest("seven")?)),
            |db| Ok(json::histogram("seven", &db.histogram("seven")?)),
            |db| Ok(json::state(&db.state("eight-packed", "867254301")?)),
            |db| Ok(json::longest(&db.longest("eight-packed")?)),
            |db| Ok(json::state(&db.state("eight-packed", "123456708")?)),
            |db| {
                let mut a = json::search(&db.search("fifteen", FIFTEEN)?);
                // What the search cost is not part of the answer.
                for k in ["nodes", "generated", "seconds", "load_seconds"] {
                    a[k] = Value::Null;
                }
                Ok(a)
            },
            |db| Ok(json::state(&db.start("hoppers")?)),
            |db| Ok(json::layers("hoppers", &db.layers("hoppers")?)),
            |db| Ok(json::state(&db.start(HOPPERS_LAYERS)?)),
            |db| Ok(json::state(&db.state(HOPPERS_LAYERS, "0100110000011")?)),
            |db| Ok(json::longest(&db.longest(HOPPERS_LAYERS)?)),
            |db| Ok(json::layers(HOPPERS_LAYERS, &db.layers(HOPPERS_LAYERS)?)),
            |db| {
                Ok(json::matrix(
                    "chinese-checkers",
                    &db.matrix("chinese-checkers")?,
                ))
            },
            |db| Ok(json::state(&db.start("chinese-checkers")?)),
            |db| Ok(json::list(&db.all("magic-triangle")?)),
            |db| Ok(json::list(&db.sum("magic-triangle", 20)?)),
            |db| Ok(json::list(&db.all("knight-tour")?)),
        ],
    )
}

/// What the flips did: answers unchanged, answers refused, and answers that changed
/// (which must stay 0).
#[derive(Debug, Default)]
pub struct Tally {
    pub flips: usize,
    pub same: usize,
    pub refused: usize,
    pub silent: Vec<String>,
}

impl Tally {
    /// Counts the answers `now` after one change (`what`) against the undamaged `good`.
    pub fn record(
        &mut self,
        what: &str,
        now: Vec<Result<Value, String>>,
        good: &[Result<Value, String>],
    ) {
        self.flips += 1;
        for (i, (now, was)) in now.into_iter().zip(good).enumerate() {
            match now {
                Err(_) => self.refused += 1,
                Ok(v) if Some(&v) == was.as_ref().ok() => self.same += 1,
                Ok(v) => self.silent.push(format!("{what}, question {i}: {v}")),
            }
        }
    }
}

/// Flips `n` random bits (seeded) of a copy of the every-kind file, one at a time, each
/// restored before the next.
fn flip(n: usize, seed: u64) -> Tally {
    let good = answers(every_kind());
    assert!(good.iter().all(Result::is_ok), "{good:?}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flipped.sqlite");
    let original = std::fs::read(every_kind()).unwrap();
    let mut bytes = original.clone();
    let mut x = seed | 1;
    let mut next = || {
        // xorshift64*: reproducible from the seed.
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut t = Tally::default();
    for _ in 0..n {
        let at = (next() % bytes.len() as u64) as usize;
        let bit = 1u8 << (next() % 8);
        bytes[at] ^= bit;
        std::fs::write(&path, &bytes).unwrap();
        t.record(&format!("byte {at} bit {bit:#04x}"), answers(&path), &good);
        bytes[at] = original[at];
    }
    t
}

/// Prints the tally and fails on any silently different answer.
pub fn no_silent_answer(t: &Tally, what: &str) {
    eprintln!(
        "{} {what}: {} answers unchanged, {} refused, {} silently different",
        t.flips,
        t.same,
        t.refused,
        t.silent.len()
    );
    assert!(t.silent.is_empty(), "{:#?}", t.silent);
}

/// 300 flips; the long run sets `PUZZLEBASE_FLIPS` (3,000 flips: `PUZZLEBASE_FLIPS=3000
/// cargo test --test integration random_flips -- --nocapture`, docs/contributing.md).
#[test]
fn random_flips_give_the_undamaged_answer_or_a_refusal() {
    let t = flip(
        crate::util::count_from_env("PUZZLEBASE_FLIPS", 300),
        0x5EED_F11B,
    );
    no_silent_answer(&t, "flips");
    assert!(t.refused > 0, "some flips land on pages the questions read");
}

#[test]
fn a_flip_in_an_index_page_is_refused_by_query_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.sqlite");
    std::fs::copy(every_kind(), &path).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let root: i64 = conn
        .query_row(
            "SELECT rootpage FROM sqlite_schema WHERE name = 'sqlite_autoindex_packed_chunks_1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let page: i64 = conn
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .unwrap();
    drop(conn);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[((root - 1) * page + 200) as usize] ^= 0x04;
    std::fs::write(&path, &bytes).unwrap();
    let db = path.to_str().unwrap();
    let err = assert_clean_failure(
        &run(&[
            "query",
            "--db",
            db,
            "--puzzle",
            "eight-packed",
            "--state",
            "867254301",
        ]),
        1,
    );
    assert!(err.contains("damaged"), "{err}");
    let err = assert_clean_failure(&run(&["verify", "--db", db]), 1);
    assert!(err.contains("damaged"), "{err}");
}
