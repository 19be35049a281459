//! Lists the built-in definition files for the catalog: every `data/puzzles/*.toml` of
//! the workspace (not `data/puzzles/examples/`), in the order
//! `data/puzzles/build-order.txt` gives and then by file name, so a new built-in puzzle
//! is one TOML file and no Rust.

use std::path::Path;

/// Writes `$OUT_DIR/builtin.rs`: the catalog's `BUILTIN` list of `(name, text)`, each
/// text an `include_str!` of `data/puzzles/NAME.toml`. A file name that is no puzzle name,
/// or an order line naming no file, stops the build with a message: both are mistakes
/// in the source tree, not in a user's input.
fn builtin_list() {
    let dir = Path::new("../../data/puzzles");
    println!("cargo:rerun-if-changed=../../data/puzzles");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("data/puzzles is readable")
        .map(|e| e.expect("data/puzzles is readable").path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            let valid = !stem.is_empty()
                && stem
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            assert!(
                valid,
                "{}: a built-in definition's file name is its puzzle's name (lower-case letters, digits, '-')",
                p.display()
            );
            stem.to_string()
        })
        .collect();
    names.sort();
    let order_file = dir.join("build-order.txt");
    let order = std::fs::read_to_string(&order_file).unwrap_or_default();
    let mut ordered: Vec<String> = Vec::new();
    for line in order.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        assert!(
            names.iter().any(|n| n == line),
            "{}: {line:?} names no data/puzzles/{line}.toml",
            order_file.display()
        );
        assert!(
            !ordered.iter().any(|n| n == line),
            "{}: {line:?} is listed twice",
            order_file.display()
        );
        ordered.push(line.to_string());
    }
    let rest: Vec<String> = names.into_iter().filter(|n| !ordered.contains(n)).collect();
    ordered.extend(rest);
    let mut out = String::from(
        "/// The built-in definition files, in the order `generate` builds them (written by\n\
         /// build.rs from `data/puzzles/`).\n\
         const BUILTIN: &[(&str, &str)] = &[\n",
    );
    for name in &ordered {
        out += &format!(
            "    ({name:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/../../data/puzzles/{name}.toml\"))),\n"
        );
    }
    out += "];\n";
    let path = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("builtin.rs");
    std::fs::write(&path, out).expect("OUT_DIR is writable");
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    builtin_list();
}
