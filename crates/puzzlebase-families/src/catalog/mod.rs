//! The catalog: which puzzles exist and what each one is. It reads the definition files
//! (`data/puzzles/*.toml`, compiled in, and users' own files) into a [`Spec`], has the
//! family's checks build the puzzle ([`crate::registry`]), and answers the one
//! lookup every command uses: a puzzle by name, built in or from the definition a file
//! stores ([`lookup`]). A puzzle's identity (generator version, definition hash,
//! staleness) is in [`identity`], the cost plan in [`plan`].
//!
//! Every problem with a file is a [`DefinitionError`] naming the file, the line and the
//! problem; nothing here panics on a user's file.

pub mod identity;
mod imported;
pub mod plan;
mod unknown;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::Puzzle;
use crate::fifteen::PartitionError;
use crate::registry::{self, family_names, is_family};
use crate::tour::TourBoard;
use puzzlebase_solvers::peg::Board;

pub use crate::registry::build;
pub use crate::spec::{Problem, Spec};
pub use unknown::{UnknownPuzzle, nearest, one_of, unknown_hint};

// The built-in definition files (`BUILTIN`, `(name, text)`), in the order `generate`
// builds them: every `data/puzzles/*.toml`, listed by build.rs in the order of
// `data/puzzles/build-order.txt`, then by file name.
include!(concat!(env!("OUT_DIR"), "/builtin.rs"));

/// A definition that cannot be used: the file, the line (when known) and the problem.
/// Displayed as one line, `FILE:LINE: MESSAGE`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[warn(missing_docs)]
pub struct DefinitionError {
    /// The file (or the name a definition given as text was read under).
    pub file: String,
    /// The line of the key at fault, counted from 1, when the problem is with one key.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for DefinitionError {}

/// The first line of `text` that sets top-level `key` (or opens it as a table,
/// `[key]`), counted from 1.
fn line_of(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let l = l.trim_start();
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
                || l.trim_end() == format!("[{key}]")
        })
        .map(|i| i + 1)
}

fn line_at(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Reads a definition file's text into a [`Spec`] without checking the family's rules.
pub fn parse(file: &str, text: &str) -> Result<Spec, DefinitionError> {
    let err = |line: Option<usize>, message: String| DefinitionError {
        file: file.to_string(),
        line,
        message,
    };
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        err(
            e.span().map(|s| line_at(text, s.start)),
            e.message().trim().to_string(),
        )
    })?;
    match table.get("family") {
        None => return Err(err(None, "missing key `family`".into())),
        Some(toml::Value::String(f)) => {
            if !is_family(f) {
                return Err(err(
                    line_of(text, "family"),
                    format!("unknown family {f:?}; known families: {}", family_names()),
                ));
            }
        }
        Some(_) => {
            return Err(err(
                line_of(text, "family"),
                "`family` must be a string".into(),
            ));
        }
    }
    toml::from_str::<Spec>(text).map_err(|e| {
        err(
            e.span().map(|s| line_at(text, s.start)),
            e.message().trim().to_string(),
        )
    })
}

/// Reads and checks a definition file, building its puzzle.
pub fn load(file: &str, text: &str) -> Result<(Spec, Puzzle), DefinitionError> {
    let spec = parse(file, text)?;
    let puzzle = build(&spec).map_err(|p| DefinitionError {
        file: file.to_string(),
        line: line_of(text, &p.key),
        message: p.message,
    })?;
    Ok((spec, puzzle))
}

/// The largest definition file read: the built-in ones are under 4 KB, a board or a
/// graph written out by hand well under this.
pub const MAX_DEFINITION_BYTES: u64 = 1 << 20;

/// The text of the definition file at `path`: a regular file (after links) of at most
/// [`MAX_DEFINITION_BYTES`]. A FIFO, a device such as `/dev/zero` or a directory is
/// refused before it is opened, so nothing blocks or reads without end.
pub fn read_definition(path: &Path) -> Result<String, DefinitionError> {
    use std::io::Read;
    let err = |message: String| DefinitionError {
        file: path.display().to_string(),
        line: None,
        message,
    };
    let meta = std::fs::metadata(path).map_err(|e| err(e.to_string()))?;
    if !meta.is_file() {
        return Err(err(
            "not a regular file (a directory, a FIFO or a device): a definition is a file (TOML or .tws)"
                .into(),
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_DEFINITION_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| err(e.to_string()))?;
    if bytes.len() as u64 > MAX_DEFINITION_BYTES {
        return Err(err(format!(
            "larger than {} KiB: a definition file is a few kilobytes of TOML",
            MAX_DEFINITION_BYTES >> 10
        )));
    }
    String::from_utf8(bytes).map_err(|_| err("not UTF-8 text".into()))
}

/// Reads and checks the file at `path`.
pub fn load_file(path: &Path) -> Result<(Spec, Puzzle), DefinitionError> {
    load_text(path).map(|(spec, puzzle, _)| (spec, puzzle))
}

/// [`load_file`], keeping the text read for the messages that point into it. A
/// `NAME.tws` (ksolve/twsearch), a `NAME.kpuzzle.json` (cubing.js, every move a
/// generator) or a TOML file with a `kpuzzle` key (the JSON beside it and its
/// generator moves) is read by [`imported::spec`]; any other file as our TOML.
fn load_text(path: &Path) -> Result<(Spec, Puzzle, String), DefinitionError> {
    let text = read_definition(path)?;
    if let Some(spec) = imported::spec(path, &text)? {
        let puzzle = build(&spec).map_err(|p| DefinitionError {
            file: path.display().to_string(),
            line: None,
            message: p.to_string(),
        })?;
        return Ok((spec, puzzle, text));
    }
    let (spec, puzzle) = load(&path.display().to_string(), &text)?;
    Ok((spec, puzzle, text))
}

/// The refusal of a user's definition that takes a built-in puzzle's name.
fn builtin_name(path: &Path, text: &str, name: &str) -> DefinitionError {
    DefinitionError {
        file: path.display().to_string(),
        line: line_of(text, "name"),
        message: format!("puzzle {name:?} is a built-in puzzle; choose another name"),
    }
}

/// What `check-definition` checks: the file as `generate --definitions` would take it,
/// so a user's file with a built-in puzzle's name is refused here too. A built-in file
/// itself (`data/puzzles/NAME.toml`, word for word) is accepted, as the built-in it is.
pub fn check_file(path: &Path) -> Result<(Spec, Puzzle), DefinitionError> {
    let (spec, puzzle, text) = load_text(path)?;
    if definitions_builtin(&spec.name) {
        let same = BUILTIN
            .iter()
            .any(|(n, builtin)| *n == spec.name && *builtin == text);
        if !same {
            return Err(builtin_name(path, &text, &spec.name));
        }
    }
    Ok((spec, puzzle))
}

/// Every `*.toml` and `*.tws` file in `dir`, in file-name order, read and checked (a
/// `*.kpuzzle.json` through the TOML file that names it); a name that is built in or
/// appears in two files is an error.
pub fn load_dir(dir: &Path) -> Result<Vec<Puzzle>, DefinitionError> {
    let file = dir.display().to_string();
    let io = |e: std::io::Error| DefinitionError {
        file: file.clone(),
        line: None,
        message: e.to_string(),
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    // Every `*.toml` and `*.tws` entry is read: one that is not a regular file is
    // refused by `load_file` rather than passed over in silence. A `*.kpuzzle.json` is
    // read through the TOML file that names it and its generator moves.
    paths.retain(|p| p.extension().is_some_and(|e| e == "toml" || e == "tws"));
    paths.sort();
    let mut out: Vec<Puzzle> = Vec::new();
    let mut seen: Vec<(String, PathBuf)> = Vec::new();
    for path in paths {
        let (spec, puzzle, text) = load_text(&path)?;
        if crate::catalog::definitions_builtin(&spec.name) {
            return Err(builtin_name(&path, &text, &spec.name));
        }
        if let Some((_, other)) = seen.iter().find(|(n, _)| *n == spec.name) {
            return Err(DefinitionError {
                file: path.display().to_string(),
                line: line_of(&text, "name"),
                message: format!(
                    "puzzle {:?} is also defined in {}",
                    spec.name,
                    other.display()
                ),
            });
        }
        seen.push((spec.name.clone(), path));
        out.push(puzzle);
    }
    Ok(out)
}

mod definition;
pub use definition::Definition;

/// The built-in files' names, in build order (including boards not tabulated).
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().map(|(n, _)| *n)
}

/// The spec of a built-in puzzle.
pub fn builtin_spec(name: &str) -> Option<Spec> {
    let (n, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
    parse(&format!("data/puzzles/{n}.toml"), text).ok()
}

/// Every built-in spec, in build order.
pub fn builtin_specs() -> Vec<Spec> {
    builtin_names().filter_map(builtin_spec).collect()
}

/// Builds a built-in puzzle. The files are part of the program and checked by its tests.
pub fn builtin_puzzle(spec: &Spec) -> Puzzle {
    build(spec).unwrap_or_else(|p| {
        panic!(
            "built-in definition {} is invalid: {}: {}",
            spec.name, p.key, p.message
        )
    })
}

/// The built-in peg boards, in build order.
pub fn builtin_boards() -> Vec<Board> {
    builtin_specs()
        .iter()
        .filter_map(|s| build(s).ok()?.as_peg().cloned())
        .collect()
}

/// One built-in peg board by name.
pub fn builtin_board(name: &str) -> Option<Board> {
    build(&builtin_spec(name)?).ok()?.as_peg().cloned()
}

/// The built-in tour boards, in build order.
pub fn builtin_tours() -> Vec<TourBoard> {
    builtin_specs()
        .iter()
        .filter_map(|s| build(s).ok()?.as_tour().cloned())
        .collect()
}

/// Whether `generate` builds this built-in definition (board41, too large to tabulate,
/// is a definition only).
fn built(spec: &Spec) -> bool {
    spec.family != "peg" || spec.tabulate.unwrap_or(true)
}

/// Whether the default `generate` (no `--puzzle`) builds `p`. Peg boards stored as
/// layers and move graphs too large for a byte per rank (two-bit distances by size)
/// take most of an hour and gigabytes each: they are built when named (`generate
/// --puzzle french37`, `--puzzle fourteen`), and carried over by every later run.
pub fn nightly(p: &Puzzle) -> bool {
    plan::nightly(p)
}

/// Every built-in puzzle, in the order `generate` builds them.
pub fn registry() -> Vec<Puzzle> {
    builtin_specs()
        .iter()
        .filter(|s| built(s))
        .map(builtin_puzzle)
        .collect()
}

/// Looks a built-in puzzle up by name. Only its own file is read and only it is built:
/// the symmetry search of every peg board would be most of a query's time.
pub fn find(name: &str) -> Option<Puzzle> {
    builtin_spec(name).filter(built).map(|s| builtin_puzzle(&s))
}

/// Whether `name` is one of the built-in definition files (tabulated or not): such a
/// name is never taken from a user's file or a stored definition.
pub fn definitions_builtin(name: &str) -> bool {
    builtin_names().any(|n| n == name)
}

/// Whether the built-in puzzle `name` is left out of the default `generate` (built only
/// when named, see [`nightly`]).
pub fn on_request(name: &str) -> bool {
    find(name).is_some_and(|p| !nightly(&p))
}

/// Names of every built-in puzzle, for error messages and help.
pub fn names() -> Vec<String> {
    builtin_specs()
        .into_iter()
        .filter(built)
        .map(|s| s.name)
        .collect()
}

/// The registry with every pattern-database puzzle building these partitions' tables
/// (`generate --partition`).
pub fn registry_building(names: &[String]) -> Result<Vec<Puzzle>, PartitionError> {
    let mut all = registry();
    for p in &mut all {
        if let Some(old) = p.as_patterns_mut() {
            *old = old.building(names)?;
        }
    }
    Ok(all)
}

/// Why [`lookup`] found no puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LookupError {
    /// No built-in puzzle and no stored definition of that name.
    Unknown,
    /// A stored definition that does not build (damaged, or from another version).
    BadDefinition(String),
}

/// The one lookup rule: a built-in name is always the built-in puzzle (a stored
/// definition never overrides it); any other name is rebuilt from the definition the
/// file stores for it, checked as a definition file is.
pub fn lookup(name: &str, stored_definition: Option<&str>) -> Result<Puzzle, LookupError> {
    if let Some(p) = find(name) {
        return Ok(p);
    }
    if definitions_builtin(name) {
        // A built-in definition that is not tabulated (board41).
        return Err(LookupError::Unknown);
    }
    let Some(text) = stored_definition else {
        return Err(LookupError::Unknown);
    };
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| LookupError::BadDefinition(e.to_string()))?;
    let p =
        registry::from_definition(&value).map_err(|e| LookupError::BadDefinition(e.to_string()))?;
    if p.name() != name {
        return Err(LookupError::BadDefinition(format!(
            "the stored definition names {:?}",
            p.name()
        )));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_knows_exactly_the_registry() {
        for p in super::registry() {
            let found = super::find(p.name()).expect("every registered puzzle is found");
            assert_eq!(found.definition(), p.definition());
        }
        assert_eq!(
            super::names(),
            super::registry()
                .iter()
                .map(|p| p.name().to_string())
                .collect::<Vec<_>>()
        );
        for name in ["board41", "twenty-four", ""] {
            assert!(super::find(name).is_none(), "{name}");
        }
        // The French boards and fourteen are built when named, not by the default run.
        let on_request: Vec<String> = (super::registry().iter())
            .filter(|p| !super::nightly(p))
            .map(|p| p.name().to_string())
            .collect();
        assert_eq!(on_request, ["fourteen", "french37", "french37-c1"]);
    }

    /// The one lookup rule: a built-in name is the built-in puzzle whatever the file
    /// stores; another name is rebuilt from its stored definition, which must build and
    /// name it; nothing else is a puzzle.
    #[test]
    fn lookup_prefers_the_built_in_and_rebuilds_only_a_sound_stored_definition() {
        let six = find("six").unwrap();
        let seven = find("seven").unwrap().definition().to_string();
        assert_eq!(
            lookup("six", Some(&seven)).unwrap().definition(),
            six.definition()
        );
        let guarini = load(
            "guarini.toml",
            include_str!("../../../../data/puzzles/examples/guarini.toml"),
        )
        .unwrap()
        .1;
        let stored = guarini.definition().to_string();
        assert_eq!(
            lookup("guarini", Some(&stored)).unwrap().definition(),
            guarini.definition()
        );
        assert!(matches!(lookup("guarini", None), Err(LookupError::Unknown)));
        assert!(matches!(
            lookup("other", Some(&stored)),
            Err(LookupError::BadDefinition(_))
        ));
        assert!(matches!(
            lookup("guarini", Some("{\"spec\": 1}")),
            Err(LookupError::BadDefinition(_))
        ));
        assert!(matches!(
            lookup("board41", Some(&stored)),
            Err(LookupError::Unknown)
        ));
    }

    /// Every `data/puzzles/*.toml` is built in, none of `data/puzzles/examples/`: those
    /// named in `build-order.txt` in its order, then the rest by file name.
    #[test]
    fn every_data_file_is_built_in_in_the_stated_order() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/puzzles");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "toml"))
            .map(|p| p.file_stem().unwrap().to_str().unwrap().to_string())
            .collect();
        files.sort();
        let order = std::fs::read_to_string(dir.join("build-order.txt")).unwrap();
        let mut want: Vec<String> = (order.lines().map(str::trim))
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
        want.extend(
            files
                .iter()
                .filter(|f| !want.contains(f))
                .cloned()
                .collect::<Vec<_>>(),
        );
        assert_eq!(builtin_names().collect::<Vec<_>>(), want);
        let mut built: Vec<&str> = builtin_names().collect();
        built.sort();
        assert_eq!(built, files);
        assert!(!definitions_builtin("guarini"));
        // The order the hand-written list had, kept by build-order.txt (puzzles added
        // since may stand anywhere among them).
        let old = [
            "six",
            "seven",
            "eight",
            "nine",
            "eleven",
            "twelve",
            "fourteen",
            "knight-swap",
            "oshidori",
            "chinese-checkers",
            "hoppers",
            "triangle21",
            "english33",
            "french37",
            "french37-c1",
            "board41",
            "magic-triangle",
            "knight-tour",
            "knight-tour-6x6",
            "fifteen",
        ];
        assert_eq!(
            builtin_names()
                .filter(|n| old.contains(n))
                .collect::<Vec<_>>(),
            old
        );
    }

    #[test]
    fn every_builtin_file_loads_under_its_listed_name() {
        for (name, text) in BUILTIN {
            let (spec, p) = load(name, text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(spec.name, *name);
            assert_eq!(p.name(), *name);
        }
    }

    #[test]
    fn stored_definitions_rebuild_the_same_puzzle() {
        for spec in builtin_specs() {
            let p = builtin_puzzle(&spec);
            let d = p.definition();
            let again = registry::from_definition(&d).unwrap();
            assert_eq!(again.definition(), d, "{}", spec.name);
            let layout = &d["layout"];
            let cells = layout["cells"].as_array().unwrap();
            assert!(!cells.is_empty(), "{}", spec.name);
            for e in layout["edges"].as_array().unwrap() {
                let (a, b) = (e[0].as_u64().unwrap(), e[1].as_u64().unwrap());
                assert!(a < b && (b as usize) < cells.len(), "{}", spec.name);
            }
        }
    }

    #[test]
    fn layouts_have_one_cell_per_index() {
        let count = |name: &str| {
            let p = builtin_puzzle(&builtin_spec(name).unwrap());
            p.definition()["layout"]["cells"].as_array().unwrap().len()
        };
        assert_eq!(count("six"), 7);
        assert_eq!(count("eleven"), 12);
        assert_eq!(count("knight-swap"), 12);
        assert_eq!(count("oshidori"), 8);
        assert_eq!(count("hoppers"), 13);
        assert_eq!(count("english33"), 33);
        assert_eq!(count("magic-triangle"), 9);
        assert_eq!(count("knight-tour"), 14);
    }

    #[test]
    fn peg_layout_points_are_collinear_along_every_jump() {
        // The coordinates in the jump-table files must draw each jump as a straight line
        // with the jumped hole in the middle.
        for b in builtin_boards() {
            let d = b.definition();
            let cells = d["layout"]["cells"].as_array().unwrap();
            let at = |h: u8| {
                let c = &cells[h as usize];
                (c[0].as_f64().unwrap(), c[1].as_f64().unwrap())
            };
            for j in &b.jumps {
                let (f, o, t) = (at(j.from), at(j.over), at(j.to));
                assert_eq!((f.0 + t.0) / 2.0, o.0, "{} {j:?}", b.name);
                assert_eq!((f.1 + t.1) / 2.0, o.1, "{} {j:?}", b.name);
            }
        }
    }

    #[test]
    fn edges_adjacency_and_rules_build_the_same_graph() {
        let star = |graph: &str| {
            let text = format!(
                "name = \"star\"\nfamily = \"sliding\"\n\
                 cells = [[1, 1], [1, 0], [2, 1], [1, 2], [0, 1]]\n{graph}\n"
            );
            let (_, p) = load("star.toml", &text).unwrap();
            let d = p.definition();
            (
                d["adjacency"].clone(),
                d["layout"]["edges"].clone(),
                d["cells"].clone(),
            )
        };
        let by_edges = star("edges = [[0, 1], [0, 2], [0, 3], [0, 4]]");
        assert_eq!(
            by_edges,
            star("adjacency = [[1, 2, 3, 4], [0], [0], [0], [0]]")
        );
        assert_eq!(by_edges, star("move = \"orthogonal\""));
        let e = load(
            "star.toml",
            "name = \"s\"\nfamily = \"tokens\"\ncells = [[0, 0], [1, 0]]\n\
             edges = [[0, 1]]\nmove = \"king\"\nstart = \"B-\"\ngoal = \"-B\"\n",
        )
        .err()
        .unwrap();
        assert_eq!(e.line, Some(5), "{e}");
    }

    /// Every rank of a graph puzzle formats to a distinct position that parses back.
    fn dense(p: &Puzzle) -> u64 {
        let g = p.as_graph().expect("a move graph");
        let mut seen = std::collections::HashSet::new();
        for r in 0..g.size() {
            let s = g.format(r);
            assert_eq!(g.parse(&s), Ok(r), "{s}");
            assert!(seen.insert(s));
        }
        g.size()
    }

    #[test]
    fn unequal_pieces_and_other_lengths_rank_densely() {
        let (_, p) = load(
            "t.toml",
            "name = \"t\"\nfamily = \"tokens\"\nrows = 1\ncols = 5\nmove = \"orthogonal\"\n\
             start = \"BBW--\"\ngoal = \"--WBB\"\n",
        )
        .unwrap();
        // C(5,3) occupied sets x C(3,2) colourings.
        assert_eq!(dense(&p), 30);
        let (_, p) = load(
            "o.toml",
            "name = \"o\"\nfamily = \"oshidori\"\nstart = \"BWBB--\"\ngoal = \"BBBW--\"\n",
        )
        .unwrap();
        // 5 places of the empty pair x C(4,3) colourings.
        assert_eq!(dense(&p), 20);
    }

    #[test]
    fn errors_name_the_line() {
        let text = "name = \"x\"\nfamily = \"sliding\"\nrows = 2\ncols = 2\ngoal = \"1123\"\n";
        let e = load("x.toml", text).err().unwrap();
        assert_eq!(e.line, Some(5));
        assert!(e.message.contains("not a permutation"), "{e}");
        let e = load("x.toml", "name = \"x\"\n\nfamily = \"hexagon\"\n")
            .err()
            .unwrap();
        assert_eq!(e.to_string().lines().count(), 1);
        assert!(e.to_string().starts_with("x.toml:3: unknown family"), "{e}");
    }

    #[test]
    fn pattern_partitions_are_checked() {
        let head = "name = \"p\"\nfamily = \"sliding\"\nrows = 3\ncols = 3\n";
        let ok =
            "default_partition = \"4-4\"\n[partitions]\n\"4-4\" = [[1, 2, 4, 5], [3, 6, 7, 8]]\n";
        let (_, p) = load("p.toml", &format!("{head}{ok}")).unwrap();
        assert!(p.as_patterns().is_some());
        assert!(p.definition()["layout"]["cells"].as_array().unwrap().len() == 9);
        for (body, line, says) in [
            (
                "default_partition = \"4-4\"\n[partitions]\n\"4-4\" = [[1, 2, 4, 5], [3, 5, 7, 8]]\n",
                Some(6),
                "tile 5 is in more than one pattern",
            ),
            (
                "default_partition = \"4-4\"\n[partitions]\n\"4-4\" = [[1, 2, 4, 5], [3, 6, 7]]\n",
                Some(6),
                "tile 8 is in no pattern",
            ),
            (
                "default_partition = \"4-4\"\n[partitions]\n\"4-4\" = [[1, 2, 4, 5], [3, 6, 7, 9]]\n",
                Some(6),
                "names tile 9",
            ),
            (
                "default_partition = \"5-3\"\n[partitions]\n\"4-4\" = [[1, 2, 4, 5], [3, 6, 7, 8]]\n",
                Some(5),
                "is not one of `partitions`",
            ),
            (
                "[partitions]\n\"4-4\" = [[1, 2, 4, 5], [3, 6, 7, 8]]\n",
                None,
                "missing key `default_partition`",
            ),
        ] {
            let e = load("p.toml", &format!("{head}{body}")).err().unwrap();
            assert!(e.message.contains(says), "{e}");
            assert_eq!(e.line, line, "{e}");
        }
        let e = load(
            "p.toml",
            "name = \"p\"\nfamily = \"sliding\"\nrows = 2\ncols = 3\ndefault_partition = \"a\"\n[partitions]\na = [[1, 2, 3, 4, 5]]\n",
        )
        .err()
        .unwrap();
        assert!(e.message.contains("square grid"), "{e}");
        let e = load("p.toml", &format!("{head}default_partition = \"a\"\n"))
            .err()
            .unwrap();
        assert!(e.message.contains("needs `partitions`"), "{e}");
    }
}
