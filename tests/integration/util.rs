//! Shared helpers: one generated database per test run, and running the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use puzzlebase::generate::{self, Observer, Options, Summary};
use puzzlebase::progress::{Progress, Silent};

/// Puzzles cheap enough to build for every test run.
pub const LIGHT: &[&str] = &[
    "six",
    "seven",
    "eight",
    "knight-swap",
    "oshidori",
    "chinese-checkers",
    "hoppers",
    "triangle21",
    "magic-triangle",
    "knight-tour",
    "knight-tour-6x6",
];

struct Quiet;
impl Observer for Quiet {
    fn progress(&self, _: &str) -> Box<dyn Progress + '_> {
        Box::new(Silent)
    }
    fn done(&self, _: &Summary) {}
}

/// Generates `only` into `db` through the library.
pub fn generate_into(db: &Path, only: &[&str], force: bool) -> Vec<Summary> {
    let opts = Options {
        db: db.to_path_buf(),
        only: only.iter().map(|s| s.to_string()).collect(),
        force,
    };
    generate::generate(&opts, &Quiet).expect("generate")
}

/// A database holding the light puzzles, built once and shared by every test.
pub fn shared_db() -> &'static Path {
    static DB: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared.sqlite");
        generate_into(&path, LIGHT, false);
        (dir, path)
    });
    path
}

/// Runs the binary with `args`, with no PUZZLEBASE_DB from the environment.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
        .args(args)
        .env_remove("PUZZLEBASE_DB")
        .output()
        .unwrap()
}

/// Runs a query against the shared database and parses its one-line JSON answer.
pub fn query_json(args: &[&str]) -> serde_json::Value {
    let db = shared_db().to_str().unwrap();
    let mut all = vec!["query", "--db", db, "--json"];
    all.extend_from_slice(args);
    let o = run(&all);
    assert!(
        o.status.success(),
        "query {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "JSON answers are one line: {text}");
    serde_json::from_str(&text).unwrap()
}

/// Asserts that a command failed with exactly one line on stderr, no panic, and `code`;
/// returns that line.
pub fn assert_clean_failure(o: &Output, code: i32) -> String {
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(code), "exit code; stderr: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line on stderr: {err}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
    assert!(
        o.stdout.is_empty(),
        "nothing on stdout: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    err
}
