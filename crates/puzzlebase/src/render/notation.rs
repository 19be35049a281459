//! Every built-in puzzle's notation as the lines `query --help` ends with and
//! docs/notation.md holds: generated from the puzzles themselves (their family's
//! [`Puzzle::notation`], an example position, the questions that apply), so that a new
//! definition file brings its own entry.

use crate::families::Puzzle;

/// Width the entries are wrapped to (a terminal of 100 columns keeps them whole).
const WIDTH: usize = 92;
/// Where an entry's text starts, after the puzzle's name.
const INDENT: usize = 20;

/// The heading, one entry per puzzle, and what applies to puzzles of one's own.
pub fn lines(puzzles: &[Puzzle]) -> Vec<String> {
    let mut out = vec![
        "Puzzles and notation (every built-in puzzle; --state takes a position so written):"
            .to_string(),
    ];
    for p in puzzles {
        out.extend(entry(p));
    }
    let own = "built with `generate --definitions DIR`: queried by name from the database \
               alone, in their family's notation (README, \"Adding a puzzle\")";
    out.extend(wrap(
        "your own puzzles",
        own.split(' ').map(String::from).collect(),
    ));
    out
}

/// One puzzle: its notation, an example, and the questions that apply (each option
/// kept whole on a line: `--scramble N`).
fn entry(p: &Puzzle) -> Vec<String> {
    let mut text = p.notation();
    if let Some(example) = p.example() {
        text.push_str(&format!(". Example: {example}"));
    }
    text.push_str(". Asks:");
    let mut units: Vec<String> = text.split(' ').map(String::from).collect();
    let options: Vec<&str> = (crate::answers::kind_questions(p).into_iter())
        .filter_map(|q| q.option())
        .collect();
    for (i, o) in options.iter().enumerate() {
        let comma = if i + 1 < options.len() { "," } else { "" };
        units.push(format!("{o}{comma}"));
    }
    wrap(p.name(), units)
}

/// `name` in the first column and the units (words, or options kept whole) wrapped
/// after it, never split (a unit longer than the line, such as a long position, gets a
/// line of its own).
fn wrap(name: &str, units: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = format!("  {name:<w$}", w = INDENT - 2);
    if line.len() > INDENT {
        out.push(line);
        line = " ".repeat(INDENT);
    }
    let mut empty = true;
    for word in &units {
        if !empty && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push(line);
            line = " ".repeat(INDENT);
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push(line);
    out
}

/// docs/notation.md as generated: a heading, where it comes from, and the lines.
#[cfg(test)]
pub fn markdown(puzzles: &[Puzzle]) -> String {
    let mut out = String::from(
        "# Puzzles and notation\n\n\
         How each built-in puzzle's positions are written, as `puzzlebase query --help` \
         lists them.\nGenerated from the definitions (data/puzzles/*.toml and their \
         families); a test holds\nthis page to the generated text (`cargo test --lib \
         render::notation`; to rewrite it:\n`PUZZLEBASE_WRITE_DOCS=1 cargo test --lib \
         render::notation`).\n\n```text\n",
    );
    for l in lines(puzzles) {
        out.push_str(&l);
        out.push('\n');
    }
    out.push_str("```\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_puzzle_has_an_entry() {
        let puzzles = crate::catalog::registry();
        let text = lines(&puzzles).join("\n");
        for name in crate::catalog::names() {
            assert!(
                text.contains(&format!("\n  {name} ")),
                "{name} has no entry:\n{text}"
            );
        }
    }

    /// docs/notation.md is the generated text, so the docs cannot fall behind a new
    /// puzzle; `PUZZLEBASE_WRITE_DOCS=1` rewrites it.
    #[test]
    fn the_docs_page_is_the_generated_text() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/notation.md");
        let want = markdown(&crate::catalog::registry());
        if std::env::var_os("PUZZLEBASE_WRITE_DOCS").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "docs/notation.md differs from the generated text: run \
             `PUZZLEBASE_WRITE_DOCS=1 cargo test --lib render::notation`"
        );
    }
}
