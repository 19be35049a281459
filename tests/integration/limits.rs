//! Limits the code keeps, as tests: no Rust file of the workspace over 800 lines, and no
//! `Result<_, String>` in the crates' code (an error is a type that says what failed,
//! not a sentence). The import circles are `cycles.rs`'s, per crate.

use std::path::{Path, PathBuf};

/// The most lines a Rust file may have.
const MAX_LINES: usize = 800;

/// Every Rust file of the repository but the build output: the crates (`src/`,
/// `crates/`), the readers (`sqlite/`, `python/`), tests, benchmarks and examples.
fn rust_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [
        "src", "crates", "sqlite", "python", "tests", "benches", "examples",
    ] {
        let dir = root.join(dir);
        if dir.is_dir() {
            out.extend(
                crate::util::files_under(&dir, "rs")
                    .into_iter()
                    .filter(|f| !f.components().any(|c| c.as_os_str() == "target")),
            );
        }
    }
    out.sort();
    assert!(
        out.len() > 100,
        "the sources are found: {} files",
        out.len()
    );
    out
}

#[test]
fn no_rust_file_is_over_800_lines() {
    let over: Vec<String> = rust_files()
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", f.display()))
        })
        .collect();
    assert!(over.is_empty(), "files over {MAX_LINES} lines: {over:#?}");
}

/// Whether `code` names a `Result` whose error type is `String`, however spaced.
fn string_error(code: &str) -> bool {
    let flat: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let mut from = 0;
    while let Some(at) = flat[from..].find("Result<").map(|i| from + i) {
        // The generic arguments, up to the `>` that closes this `Result<`.
        let mut depth = 0usize;
        let mut first_comma = None;
        for (i, ch) in flat[at + "Result".len()..].char_indices() {
            let i = at + "Result".len() + i;
            match ch {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' => {
                    depth -= 1;
                    if depth == 0 {
                        if let Some(c) = first_comma
                            && flat[c + 1..i].trim_end_matches(',') == "String"
                        {
                            return true;
                        }
                        break;
                    }
                }
                ',' if depth == 1 && first_comma.is_none() => first_comma = Some(i),
                _ => {}
            }
        }
        from = at + 1;
    }
    false
}

#[test]
fn no_crate_code_returns_a_string_error() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found: Vec<String> = rust_files()
        .iter()
        .filter(|f| {
            let rel = f.strip_prefix(root).unwrap();
            !(rel.starts_with("tests") || rel.starts_with("benches") || rel.starts_with("examples"))
        })
        .filter(|f| string_error(&std::fs::read_to_string(f).unwrap()))
        .map(|f| f.display().to_string())
        .collect();
    assert!(found.is_empty(), "Result<_, String> in: {found:#?}");
}

#[test]
fn the_string_error_reader_sees_through_spacing_and_nesting() {
    assert!(string_error("fn f() -> Result<u8, String> {}"));
    assert!(string_error(
        "fn f() -> Result<\n    Vec<(u8, u16)>,\n    String,\n> {}"
    ));
    assert!(!string_error("fn f() -> Result<String, Error> {}"));
    assert!(!string_error("fn f() -> Result<Vec<String>, E> {}"));
    assert!(!string_error("fn f() -> Result<(), StringError> {}"));
    assert!(!string_error("fn f() -> io::Result<String> {}"));
}
