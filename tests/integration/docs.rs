//! The documentation's links: every relative link in the Markdown files reaches a file of
//! the tree, and every `#anchor` a heading of its page, as GitHub names headings. Pages
//! are split and sections moved between them (current figures and their history), so a
//! link left pointing at a section that moved is caught here rather than by a reader.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The Markdown files a reader follows links through: the front door, the changelog,
/// `docs/` (with its notes) and the Python package's README.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![
        root.join("README.md"),
        root.join("CHANGELOG.md"),
        root.join("python/README.md"),
    ];
    out.extend(crate::util::files_under(&root.join("docs"), "md"));
    out.sort();
    out
}

/// The page's lines outside fenced code blocks: a `#` in a shell example is a comment,
/// and a `](` in a code block is not a link.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push(line);
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, spaces to hyphens, every character but
/// letters, digits, `-` and `_` dropped; a repeated heading gets `-1`, `-2`, ...
fn anchors(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    for line in prose(text) {
        let Some(title) = line.strip_prefix('#') else {
            continue;
        };
        let title = title.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut name = slug.clone();
        let mut n = 0;
        while !out.insert(name.clone()) {
            n += 1;
            name = format!("{slug}-{n}");
        }
    }
    out
}

/// The targets of the inline links `[text](target)` of a line.
fn links(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        match after.find(')') {
            Some(j) => {
                out.push(&after[..j]);
                rest = &after[j + 1..];
            }
            None => break,
        }
    }
    out
}

#[test]
fn every_relative_link_in_the_docs_reaches_its_file_and_heading() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    let mut broken = Vec::new();
    // Each linked page's headings, read and named once however many links reach it.
    let mut headings: HashMap<PathBuf, HashSet<String>> = HashMap::new();
    for page in pages(root) {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.strip_prefix(root).unwrap().display().to_string();
        for line in prose(&text) {
            for target in links(line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
                let path = if file.is_empty() {
                    page.clone()
                } else {
                    page.parent().unwrap().join(file)
                };
                if !path.exists() {
                    broken.push(format!("{name}: {target}: no such file"));
                    continue;
                }
                if anchor.is_empty() || path.extension().is_none_or(|e| e != "md") {
                    continue;
                }
                let names = headings
                    .entry(path)
                    .or_insert_with_key(|p| anchors(&std::fs::read_to_string(p).unwrap()));
                if !names.contains(anchor) {
                    broken.push(format!("{name}: {target}: no such heading"));
                }
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} links found: the scan is broken"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_are_named_as_github_names_them() {
    let page = "# Performance\n## The AMD host: the code or the host? (2026-11-28, night)\n\
                ### `peg-layers` (the French boards)\n```sh\n# not a heading\n```\n## Notes\n## Notes\n";
    let got = anchors(page);
    for want in [
        "performance",
        "the-amd-host-the-code-or-the-host-2026-11-28-night",
        "peg-layers-the-french-boards",
        "notes",
        "notes-1",
    ] {
        assert!(got.contains(want), "{want} missing from {got:?}");
    }
    assert!(!got.contains("not-a-heading"));
    assert_eq!(
        links("see [a](b.md#c) and [d](#e), not (f)"),
        ["b.md#c", "#e"]
    );
}
