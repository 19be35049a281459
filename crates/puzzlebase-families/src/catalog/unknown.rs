//! Names that lead somewhere: the one type of an unknown puzzle name
//! ([`UnknownPuzzle`]), the hint it carries to a name that works, the nearest known name
//! to a slip of the keys, and the "a, b or c" of a message.

use super::on_request;

/// `a`, `a or b`, `a, b or c`: the options or names a message offers.
pub fn one_of(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The known name nearest to `name`, when one is near enough to be a slip of the keys
/// (at most two edits, and fewer than half its letters).
pub fn nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    let limit = 2.min(name.chars().count().div_ceil(2));
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(name, k), *k))
        .filter(|&(d, _)| d <= limit)
        .min()
        .map(|(_, k)| k)
}

/// A puzzle name that no definition gives: not built in, not in the file, not given. Its
/// line names the nearest known name and the puzzles there are ([`unknown_hint`]). The one
/// type for it: asking (`QueryError`), building (`GenerateError`) and checking
/// (`VerifyError`) each carry it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown puzzle {name:?}{hint}")]
#[non_exhaustive]
pub struct UnknownPuzzle {
    /// The name asked for.
    pub name: String,
    /// The nearest known names and the puzzles there are (empty, or `"; did you mean
    /// …"` and what follows).
    pub hint: String,
}

impl UnknownPuzzle {
    /// `name`, unknown, with the hint [`unknown_hint`] gives from what the file `holds`
    /// (`None` where no file is read) and what could be built (`buildable`).
    pub fn new(name: &str, holds: Option<&[String]>, buildable: &[String]) -> UnknownPuzzle {
        UnknownPuzzle {
            name: name.to_string(),
            hint: unknown_hint(name, holds, buildable),
        }
    }
}

/// The rest of an "unknown puzzle" message, leading to a name that works: the nearest
/// known name ("did you mean"), then the puzzles there are. `holds` is what the file
/// holds, for commands that read one (`query`, `verify`, the server), and `None` for
/// `generate`, which offers everything it can build (`buildable`: the built-in puzzles
/// and the user's). Built-in puzzles left out of the default run are marked.
pub fn unknown_hint(name: &str, holds: Option<&[String]>, buildable: &[String]) -> String {
    let mut candidates: Vec<&str> = buildable.iter().map(String::as_str).collect();
    candidates.extend(holds.unwrap_or_default().iter().map(String::as_str));
    let mut out = String::new();
    if let Some(near) = nearest(name, &candidates) {
        out += &format!("; did you mean {near:?}?");
    }
    let marked = |names: &mut dyn Iterator<Item = &String>| -> String {
        names
            .map(|n| {
                if on_request(n) {
                    format!("{n} (on request)")
                } else {
                    n.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match holds {
        Some(held) => {
            // In build order, as `generate` and `list --json` give them; a user's puzzles
            // after the built-in ones.
            let mut held = held.to_vec();
            held.sort_by_key(|h| {
                let at = buildable.iter().position(|b| b == h);
                (at.is_none(), at, h.clone())
            });
            out += &format!(
                "; this file holds {}",
                if held.is_empty() {
                    "no puzzle".to_string()
                } else {
                    held.join(", ")
                }
            );
            let mut more = (buildable.iter()).filter(|b| !held.contains(b)).peekable();
            if more.peek().is_some() {
                out += &format!("; not in it but can be generated: {}", marked(&mut more));
            }
        }
        None => out += &format!("; known puzzles: {}", marked(&mut buildable.iter())),
    }
    out
}
