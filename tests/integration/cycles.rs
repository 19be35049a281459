//! In no crate does a file reach, through the files it names (`crate::x`, `super::y`),
//! back to itself: no import cycle. The layers themselves are crates (`crates/`, then
//! the command's package at the root), held in order by Cargo's dependency graph. Test
//! modules are left out item by item (a test may reach anywhere); every other line of
//! every file is read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `text` without comments, string literals and the items marked `#[cfg(test)]` (a
/// `mod tests { ... }` body, a test-only function or `use`), each replaced by spaces so
/// that what is left keeps its place.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            out.extend(std::iter::repeat_n(b' ', end - i));
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            out.extend(std::iter::repeat_n(b' ', end - i));
            i = end;
        } else if b[i] == b'\'' && b.get(i + 2) == Some(&b'\'') {
            // A character literal such as '{' (lifetimes have no closing quote).
            out.extend_from_slice(b"   ");
            i += 3;
        } else if b[i..].starts_with(b"'\\") {
            let end = text[i + 2..].find('\'').map_or(b.len(), |e| i + 2 + e + 1);
            out.extend(std::iter::repeat_n(b' ', end - i));
            i = end;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    let code = String::from_utf8(out).unwrap();
    without_test_items(&code)
}

/// Blanks every item that follows `#[cfg(test)]`: up to its matching closing brace, or
/// to its `;` when it has no body.
fn without_test_items(code: &str) -> String {
    let mut b = code.as_bytes().to_vec();
    let mut from = 0;
    while let Some(at) = code[from..].find("#[cfg(test)]").map(|i| from + i) {
        let mut i = at + "#[cfg(test)]".len();
        let mut depth = 0usize;
        while i < b.len() {
            match b[i] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                b';' if depth == 0 => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        for c in &mut b[at..i.min(code.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
        from = i.min(code.len());
    }
    String::from_utf8(b).unwrap()
}

/// Every path a piece of code names from `start` (`crate`, `super` or `self`), with
/// groups expanded: `crate::{a::b, c::{d, e}}` names `a::b`, `c::d` and `c::e`.
fn paths_at(code: &str, start: usize, out: &mut Vec<Vec<String>>) {
    fn ident(s: &[u8], i: &mut usize) -> Option<String> {
        let st = *i;
        while *i < s.len() && (s[*i].is_ascii_alphanumeric() || s[*i] == b'_') {
            *i += 1;
        }
        (st < *i).then(|| String::from_utf8_lossy(&s[st..*i]).to_string())
    }
    fn skip_ws(s: &[u8], i: &mut usize) {
        while *i < s.len() && s[*i].is_ascii_whitespace() {
            *i += 1;
        }
    }
    fn tree(s: &[u8], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut path = prefix;
        loop {
            skip_ws(s, i);
            if *i < s.len() && s[*i] == b'{' {
                *i += 1;
                loop {
                    tree(s, i, path.clone(), out);
                    skip_ws(s, i);
                    match s.get(*i) {
                        Some(b',') => *i += 1,
                        Some(b'}') => {
                            *i += 1;
                            return;
                        }
                        _ => return,
                    }
                    skip_ws(s, i);
                    if s.get(*i) == Some(&b'}') {
                        *i += 1;
                        return;
                    }
                }
            }
            match ident(s, i) {
                Some(name) => path.push(name),
                None => {
                    out.push(path);
                    return;
                }
            }
            skip_ws(s, i);
            if s[*i..].starts_with(b"::") {
                *i += 2;
            } else {
                out.push(path);
                return;
            }
        }
    }
    let s = code.as_bytes();
    let mut i = start;
    tree(s, &mut i, Vec::new(), out);
}

/// Every crate's source folder: each `crates/NAME/src/`, the command's `src/`, and the
/// SQLite extension's and the Python package's.
fn crate_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    crates.sort();
    assert!(
        crates.len() >= 5,
        "the layers' crates are found: {crates:?}"
    );
    // The command's package, and the readers for other tools.
    crates.extend(["src", "sqlite/src", "python/src"].map(|d| root.join(d)));
    crates
}

/// The files of the crate whose source folder is `src`, by module path (`src/a/b.rs`
/// and `src/a/b/mod.rs` are `a::b`), `lib.rs` and the binary's `main.rs` and `cli/`
/// left out.
fn modules_in(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    for f in crate::util::files_under(src, "rs") {
        let rel = f.strip_prefix(src).unwrap().with_extension("");
        let mut path: Vec<String> = rel
            .iter()
            .map(|c| c.to_str().unwrap().to_string())
            .collect();
        if path.last().is_some_and(|l| l == "mod") {
            path.pop();
        }
        // The binary's own files (`main.rs`, `cli/`) are another crate.
        if path == ["lib"] || path == ["main"] || path.first().is_some_and(|p| p == "cli") {
            continue;
        }
        out.insert(path, f);
    }
    // Files that are test modules (`#[cfg(test)] mod tests;`), and all below them.
    let mut tests = Vec::new();
    for (module, file) in &out {
        let text = std::fs::read_to_string(file).unwrap();
        for (at, _) in text.match_indices("#[cfg(test)]") {
            let rest = text[at + "#[cfg(test)]".len()..].trim_start();
            // Any visibility: `pub`, `pub(crate)`, `pub(super)`.
            let rest = match rest.strip_prefix("pub") {
                Some(r) if r.starts_with('(') => r.split_once(')').map_or(r, |(_, r)| r),
                Some(r) => r,
                None => rest,
            }
            .trim_start();
            if let Some(decl) = rest.strip_prefix("mod ")
                && let Some((name, _)) = decl.split_once(';').filter(|(n, _)| !n.contains('{'))
            {
                let mut child = module.clone();
                child.push(name.trim().to_string());
                tests.push(child);
            }
        }
    }
    out.retain(|m, _| !tests.iter().any(|t| m.starts_with(t)));
    out
}

/// The full module path `p` names from `module` (`crate::`, `super::`, `self::`), or
/// `None` for any other path.
fn absolute(module: &[String], p: &[String]) -> Option<Vec<String>> {
    let mut full: Vec<String> = Vec::new();
    let mut rest = p;
    match rest.first().map(String::as_str) {
        Some("crate") => rest = &rest[1..],
        Some("self") => {
            full = module.to_vec();
            rest = &rest[1..];
        }
        Some("super") => {
            full = module.to_vec();
            while rest.first().is_some_and(|s| s == "super") {
                full.pop();
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    full.extend(rest.iter().cloned());
    Some(full)
}

/// The deepest file of `files` that `full` reaches, and whether `full` is that file's
/// module itself (a module brought in by name, whose name then stands for it).
fn deepest(
    files: &BTreeMap<Vec<String>, PathBuf>,
    mut full: Vec<String>,
) -> Option<(Vec<String>, bool)> {
    let mut whole = true;
    while !full.is_empty() && !files.contains_key(&full) {
        full.pop();
        whole = false;
    }
    (!full.is_empty()).then_some((full, whole))
}

/// Each path `code` names from `root` (a word such as `crate`, or a module's alias).
fn rooted(code: &str, root: &str) -> Vec<Vec<String>> {
    let b = code.as_bytes();
    let mut paths = Vec::new();
    for (at, _) in code.match_indices(&format!("{root}::")) {
        let before = at.checked_sub(1).map(|i| b[i]);
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b':') {
            continue;
        }
        paths_at(code, at, &mut paths);
    }
    paths
}

/// The files each file names, through every `crate::`, `super::` and `self::` path in
/// its code (test items left out), and every path through a module such a path brought
/// in by name (`use crate::families::sliding;` then `sliding::spec::FAMILY`), each
/// resolved to the deepest file it reaches.
fn imports(files: &BTreeMap<Vec<String>, PathBuf>) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut graph = BTreeMap::new();
    for (module, file) in files {
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        let mut named = BTreeSet::new();
        let mut aliases: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for root in ["crate", "super", "self"] {
            for p in rooted(&code, root) {
                let Some((target, whole)) = absolute(module, &p).and_then(|f| deepest(files, f))
                else {
                    continue;
                };
                if whole && p.len() > 1 {
                    aliases.insert(p.last().unwrap().clone(), target.clone());
                }
                if target != *module {
                    named.insert(target);
                }
            }
        }
        for (alias, target) in &aliases {
            for p in rooted(&code, alias) {
                let mut full = target.clone();
                full.extend(p[1..].iter().cloned());
                if let Some((t, _)) = deepest(files, full)
                    && t != *module
                {
                    named.insert(t);
                }
            }
        }
        graph.insert(module.clone(), named);
    }
    graph
}

/// The strongly connected groups of more than one file (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct State<'a> {
        graph: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on_stack: BTreeSet<&'a Vec<String>>,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Vec<String>) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let Some((w, _)) = s.graph.get_key_value(w) else {
                continue;
            };
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                group.push(w.clone());
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                s.out.push(group);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_file_reaches_back_to_itself() {
    for src in crate_sources() {
        let found: Vec<String> = cycles(&imports(&modules_in(&src)))
            .iter()
            .map(|c| {
                c.iter()
                    .map(|m| m.join("::"))
                    .collect::<Vec<_>>()
                    .join(" <-> ")
            })
            .collect();
        assert!(
            found.is_empty(),
            "import cycles between files of {}: {found:#?}",
            src.display()
        );
    }
}

/// The reader of paths sees through groups, comments, strings and test modules.
#[test]
fn grouped_paths_are_expanded_and_tests_left_out() {
    let text = "use crate::{a::b, c::{d, e}};\n// crate::x\nlet s = \"crate::y\";\n#[cfg(test)]\nmod tests { use crate::z; }\nfn f() { crate::w::f() }\n";
    let code = code_only(text);
    let mut paths = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        paths_at(&code, at, &mut paths);
    }
    let joined: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        joined,
        ["crate::a::b", "crate::c::d", "crate::c::e", "crate::w::f"]
    );
}
