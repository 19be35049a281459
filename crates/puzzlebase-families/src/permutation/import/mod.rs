//! The cubing community's two definition formats, read into this family's own
//! definition: ksolve/twsearch `.tws` text ([`tws`]) and cubing.js KPuzzle JSON
//! ([`kpuzzle`]). Both describe sets of pieces (orbits) with an orientation modulus,
//! a solved state (pieces alike where a label repeats) and moves as permutations with
//! orientation changes; both readers fill an [`Imported`], which [`Imported::to_spec`]
//! writes as a permutation [`Spec`] (points, cycles, twists, `metric = "face"`, a goal
//! with repeated labels for alike pieces). The spec is what is checked, built and
//! stored, so an imported puzzle is rebuilt from its stored definition like any other.
//!
//! # Conventions (checked against the formats' own code, proved by tests)
//!
//! A move given as a "destination" array `src` (twsearch's `MoveTransformation` and
//! KPuzzle's `permutation`, 0-based) puts at position `j` the piece from `src[j]`, and
//! adds `delta[j]` to its orientation: the orientation change is listed by the
//! position the piece arrives at, as in this family (`twist[j]`). ksolve's `Move` is
//! 1-based and lists the orientation change by the position the piece comes *from*
//! (twsearch's `readposition` turns it into the other form, `o'[j] = o[src[j]]`).

pub mod kpuzzle;
pub mod tws;

use serde_json::{Value, json};

use crate::spec::Spec;

/// Why an imported file is refused: the line (counted from 1, where the format has
/// lines and one is at fault) and what is wrong, one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ReadError {
    pub line: Option<usize>,
    pub message: String,
}

pub(crate) fn refuse(line: Option<usize>, message: impl Into<String>) -> ReadError {
    ReadError {
        line,
        message: message.into(),
    }
}

/// A set's part of a state or a move: for each position, where its piece comes from
/// (a move) or its label (a state), and the orientation; `None`: left as it is.
pub type SetLines = Option<(Vec<usize>, Vec<usize>)>;

/// One set of pieces (an orbit in both formats' words).
#[derive(Debug, Clone)]
pub struct Set {
    pub name: String,
    pub size: usize,
    pub modulus: usize,
}

/// A move: per set, where each position's piece comes from and the orientation added
/// to the piece arriving there (`None`: the set does not move).
#[derive(Debug, Clone)]
pub struct ImportedMove {
    pub name: String,
    pub sets: Vec<SetLines>,
}

/// A puzzle read from either format, before it is written as a spec.
#[derive(Debug, Clone)]
pub struct Imported {
    pub sets: Vec<Set>,
    /// Per set: the solved state's label at each position (equal labels: alike
    /// pieces) and orientations; `None`: every piece home, orientation 0.
    pub solved: Vec<SetLines>,
    pub moves: Vec<ImportedMove>,
}

/// The puzzle name a file's stem gives: lower-case, every character other than a
/// letter, a digit or `-` made `-` (`Jing_pyraminx` is `jing-pyraminx`), as the
/// project's names are.
pub fn name_from_stem(stem: &str) -> String {
    stem.chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

impl Imported {
    /// The permutation spec of this puzzle named `name`: the sets' positions numbered
    /// one after the other (drawn as one row of pieces per set), every move with its powers (`metric = "face"`: each power
    /// counts one move, as twsearch counts them), `extra` keys (such as `storage`)
    /// added. The spec is checked when it is built, as any definition is.
    pub fn to_spec(&self, name: &str, extra: &[(&str, Value)]) -> Result<Spec, ReadError> {
        let offsets: Vec<usize> = self
            .sets
            .iter()
            .scan(0, |at, s| {
                let o = *at;
                *at += s.size;
                Some(o)
            })
            .collect();
        let n: usize = self.sets.iter().map(|s| s.size).sum();
        let modulus: Vec<usize> = (self.sets.iter())
            .flat_map(|s| std::iter::repeat_n(s.modulus, s.size))
            .collect();
        // Labels: each position's label is the first position of its set with the same
        // solved label; distinct pieces are then the identity.
        let mut labels: Vec<usize> = (0..n).collect();
        let mut orient = vec![0usize; n];
        for (s, solved) in self.solved.iter().enumerate() {
            let Some((pieces, ori)) = solved else {
                continue;
            };
            for j in 0..pieces.len() {
                let first = pieces.iter().position(|&x| x == pieces[j]).unwrap_or(j);
                labels[offsets[s] + j] = offsets[s] + first;
                orient[offsets[s] + j] = ori[j];
            }
        }
        let alike = labels.iter().enumerate().any(|(a, &l)| a != l);
        let oriented = modulus.iter().any(|&m| m > 1);
        let mut moves = Vec::new();
        for mv in &self.moves {
            let mut perm: Vec<usize> = (0..n).collect();
            let mut twist = vec![0usize; n];
            for (s, set) in mv.sets.iter().enumerate() {
                let Some((src, delta)) = set else { continue };
                for j in 0..src.len() {
                    // The piece at `src[j]` goes to `j` and turns by `delta[j]`.
                    perm[offsets[s] + src[j]] = offsets[s] + j;
                    twist[offsets[s] + j] = delta[j] % self.sets[s].modulus;
                }
            }
            let mut m = json!({"name": mv.name, "cycles": cycles(&perm)});
            if oriented {
                m["twist"] = json!(twist);
            }
            moves.push(m);
        }
        // The drawing: each set a row of its pieces, in the order the file gives them.
        let cells: Vec<[f64; 2]> = (self.sets.iter().enumerate())
            .flat_map(|(row, s)| (0..s.size).map(move |j| [j as f64, row as f64]))
            .collect();
        let mut spec = json!({
            "name": name,
            "family": "permutation",
            "points": n,
            "cells": cells,
            "metric": "face",
            "moves": moves,
        });
        if oriented {
            spec["orientation"] = json!(modulus);
        }
        if alike || orient.iter().any(|&o| o != 0) {
            let goal: Vec<String> = (0..n)
                .map(|a| {
                    if modulus[a] > 1 {
                        format!("{}:{}", labels[a], orient[a])
                    } else {
                        labels[a].to_string()
                    }
                })
                .collect();
            spec["goal"] = json!(goal.join(","));
        }
        for (k, v) in extra {
            spec[*k] = v.clone();
        }
        serde_json::from_value(spec).map_err(|e| refuse(None, e.to_string()))
    }
}

/// The cycles (of two points or more) of `perm`, where `perm[a]` is the point the
/// piece at `a` goes to.
fn cycles(perm: &[usize]) -> Vec<Vec<usize>> {
    let mut seen = vec![false; perm.len()];
    let mut out = Vec::new();
    for a in 0..perm.len() {
        if seen[a] || perm[a] == a {
            continue;
        }
        let mut cycle = Vec::new();
        let mut b = a;
        while !seen[b] {
            seen[b] = true;
            cycle.push(b);
            b = perm[b];
        }
        out.push(cycle);
    }
    out
}

#[cfg(test)]
mod tests;
