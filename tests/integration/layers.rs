//! The layers point one way: a file of `src/` names (`crate::x`) only its own layer or
//! the layers below it, test modules aside. `module-cycles` (run by CI) finds cycles;
//! this finds a lower layer reaching up even where no cycle closes yet.

use std::path::{Path, PathBuf};

/// The layers, lowest first; modules on one line are peers.
const LAYERS: &[&[&str]] = &[
    &["core"],
    &["solvers"],
    &["families"],
    &["catalog"],
    &["store"],
    &["build", "verify", "answers"],
    &["render", "server"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The text before the file's test module, if it has one.
fn without_tests(text: &str) -> &str {
    text.find("#[cfg(test)]").map_or(text, |i| &text[..i])
}

#[test]
fn no_layer_names_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut upward = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel.iter().next().unwrap().to_str().unwrap();
        let top = top.strip_suffix(".rs").unwrap_or(top);
        let (Some(own), false) = (layer(top), rel.ends_with("tests.rs")) else {
            continue;
        };
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, _) in without_tests(&text).match_indices("crate::") {
            let name: String = text[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if layer(&name).is_some_and(|l| l > own) {
                upward.push(format!("{} -> {name}", rel.display()));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "lower layers name higher ones: {upward:#?}"
    );
}
