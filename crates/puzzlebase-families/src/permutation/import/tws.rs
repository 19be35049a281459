//! ksolve/twsearch `.tws` text: `Name`, `Set NAME N M` (N pieces, orientations mod M),
//! a `Solved` (1-based) or `StartState` (0-based) block, `Move NAME` (1-based,
//! orientation changes listed by the position a piece leaves) and
//! `MoveTransformation NAME` (0-based, listed by the position it reaches) blocks, each
//! closed by `End`, `#` comments. In a block, a set's name is followed by a line of
//! its positions and an optional line of orientations; a set not named is left as it
//! is (solved: home). The rest of the format (`Illegal`, `MoveAlias`, `MoveSequence`,
//! `ForbiddenPairs`, `?` wildcards...) is refused with the line that uses it.

use super::{Imported, ImportedMove, ReadError, Set, SetLines, refuse};

/// The lines that say something: (line number from 1, tokens).
fn lines(text: &str) -> Vec<(usize, Vec<&str>)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let l = l.trim();
            if l.is_empty() || l.starts_with('#') {
                None
            } else {
                Some((i + 1, l.split_whitespace().collect()))
            }
        })
        .collect()
}

/// What a block is for: the solved state (labels may repeat) or a move (a
/// permutation); and whether numbers count from 0.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    State { zero_based: bool },
    Move { zero_based: bool },
}

/// Reads a `.tws` file's text.
pub fn read(text: &str) -> Result<Imported, ReadError> {
    let all = lines(text);
    let mut sets: Vec<Set> = Vec::new();
    let mut solved: Option<Vec<SetLines>> = None;
    let mut moves: Vec<ImportedMove> = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let (line, toks) = &all[i];
        let (line, at) = (*line, Some(*line));
        i += 1;
        match toks[0] {
            "Name" => {}
            "Set" => {
                if solved.is_some() || !moves.is_empty() {
                    return Err(refuse(at, "`Set` after a state or a move: sets come first"));
                }
                if toks.len() != 4 {
                    return Err(refuse(at, "`Set NAME PIECES ORIENTATIONS`: four words"));
                }
                let num = |t: &str, what: &str| {
                    t.parse::<usize>()
                        .ok()
                        .filter(|&x| (1..=255).contains(&x))
                        .ok_or_else(|| refuse(at, format!("{what} {t:?}: a number, 1 to 255")))
                };
                let (size, modulus) = (num(toks[2], "pieces")?, num(toks[3], "orientations")?);
                if sets.iter().any(|s| s.name == toks[1]) {
                    return Err(refuse(at, format!("set {:?} is defined twice", toks[1])));
                }
                sets.push(Set {
                    name: toks[1].to_string(),
                    size,
                    modulus,
                });
            }
            "Solved" | "StartState" => {
                if solved.is_some() {
                    return Err(refuse(at, "a second solved state"));
                }
                let zero_based = toks[0] == "StartState";
                let (got, next) = block(&all, i, &sets, Block::State { zero_based })?;
                solved = Some(got);
                i = next;
            }
            "Move" | "MoveTransformation" => {
                if toks.len() != 2 {
                    return Err(refuse(at, format!("`{} NAME`: two words", toks[0])));
                }
                if moves.iter().any(|m| m.name == toks[1]) {
                    return Err(refuse(at, format!("move {:?} is defined twice", toks[1])));
                }
                let zero_based = toks[0] == "MoveTransformation";
                let (got, next) = block(&all, i, &sets, Block::Move { zero_based })?;
                moves.push(ImportedMove {
                    name: toks[1].to_string(),
                    sets: got,
                });
                i = next;
            }
            other => {
                return Err(refuse(
                    Some(line),
                    format!(
                        "`{other}` is not supported (this reader takes Name, Set, Solved, StartState, Move, MoveTransformation)"
                    ),
                ));
            }
        }
    }
    if sets.is_empty() {
        return Err(refuse(
            None,
            "no `Set`: a puzzle has at least one set of pieces",
        ));
    }
    if moves.is_empty() {
        return Err(refuse(None, "no `Move`: a puzzle has at least one move"));
    }
    Ok(Imported {
        solved: solved.unwrap_or_else(|| vec![None; sets.len()]),
        sets,
        moves,
    })
}

/// Reads a block from line index `i` to its `End`: per set, positions and
/// orientations as given; returns them and the index after `End`.
fn block(
    all: &[(usize, Vec<&str>)],
    mut i: usize,
    sets: &[Set],
    kind: Block,
) -> Result<(Vec<SetLines>, usize), ReadError> {
    let mut out: Vec<SetLines> = vec![None; sets.len()];
    let zero_based = match kind {
        Block::State { zero_based } | Block::Move { zero_based } => zero_based,
    };
    loop {
        let Some((line, toks)) = all.get(i) else {
            return Err(refuse(None, "the file ends inside a block (no `End`)"));
        };
        let at = Some(*line);
        i += 1;
        if toks[0] == "End" {
            return Ok((out, i));
        }
        let Some(s) = sets.iter().position(|x| x.name == toks[0]) else {
            return Err(refuse(
                at,
                format!(
                    "{:?}: not a set name (a block lists sets, each with its numbers)",
                    toks[0]
                ),
            ));
        };
        if toks.len() != 1 {
            return Err(refuse(
                at,
                format!("set name {:?} stands alone on its line", toks[0]),
            ));
        }
        if out[s].is_some() {
            return Err(refuse(
                at,
                format!("set {:?} is given twice in this block", toks[0]),
            ));
        }
        let set = &sets[s];
        let numbers = |i: usize| -> Result<Vec<usize>, ReadError> {
            let (line, toks) = &all[i];
            let at = Some(*line);
            if toks.len() != set.size {
                return Err(refuse(
                    at,
                    format!(
                        "{} numbers for set {:?} of {} pieces",
                        toks.len(),
                        set.name,
                        set.size
                    ),
                ));
            }
            toks.iter()
                .map(|t| {
                    t.parse::<usize>().map_err(|_| {
                        refuse(
                            at,
                            format!(
                                "{t:?} is not a number (wildcards such as `?` are not supported)"
                            ),
                        )
                    })
                })
                .collect()
        };
        let is_numbers = |i: usize| {
            all.get(i)
                .is_some_and(|(_, t)| t[0].parse::<usize>().is_ok() || t[0] == "?")
        };
        if !is_numbers(i) {
            return Err(refuse(
                at,
                format!("set {:?} has no line of positions", set.name),
            ));
        }
        let perm_line = all[i].0;
        let raw = numbers(i)?;
        i += 1;
        let base = if zero_based { 0 } else { 1 };
        let src: Vec<usize> = raw
            .iter()
            .map(|&x| {
                x.checked_sub(base)
                    .filter(|&x| x < set.size)
                    .ok_or_else(|| {
                        refuse(
                            Some(perm_line),
                            format!(
                                "{x} in set {:?}: numbers are {base} to {}",
                                set.name,
                                set.size - 1 + base
                            ),
                        )
                    })
            })
            .collect::<Result<_, _>>()?;
        if let Block::Move { .. } = kind {
            let mut seen = vec![false; set.size];
            for &x in &src {
                if std::mem::replace(&mut seen[x], true) {
                    return Err(refuse(
                        Some(perm_line),
                        format!(
                            "move's positions for set {:?} are not a permutation ({} twice)",
                            set.name,
                            x + base
                        ),
                    ));
                }
            }
        }
        let ori = if is_numbers(i) {
            let ori_line = all[i].0;
            let o = numbers(i)?;
            i += 1;
            if let Some(&bad) = o.iter().find(|&&x| x >= set.modulus) {
                return Err(refuse(
                    Some(ori_line),
                    format!(
                        "orientation {bad} in set {:?}, whose pieces turn mod {}",
                        set.name, set.modulus
                    ),
                ));
            }
            o
        } else {
            vec![0; set.size]
        };
        let ori = match kind {
            // ksolve's moves list the change by the position the piece leaves;
            // re-indexed by the position it reaches (twsearch does the same).
            Block::Move { zero_based: false } => src.iter().map(|&s| ori[s]).collect(),
            _ => ori,
        };
        out[s] = Some((src, ori));
    }
}
