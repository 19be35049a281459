//! A permutation puzzle's definition: points, moves in cycle notation with their
//! twists, the metric, and the notation (numbers or stickers), checked and built into a
//! [`Permutation`] engine. Every key is described in docs/definitions.md#permutation.

use serde::Deserialize;

use super::{MAX_ORBIT, MAX_POINTS, Move, Notation, Permutation};
use crate::spec::{Problem, Spec, common, graph_ask, graph_storage, problem};
use crate::{Family, Puzzle};
use puzzlebase_core::definition::{Source, layout};
use puzzlebase_core::format::GraphAsk;
use puzzlebase_core::space::GraphPuzzle;

/// The `permutation` family in the registry.
pub const FAMILY: Family = Family {
    name: "permutation",
    keys: &[
        "cells",
        "start",
        "goal",
        "storage",
        "points",
        "orientation",
        "moves",
        "metric",
        "stickers",
        "faces",
        "drawing",
    ],
    build: |spec| Ok(Puzzle::Graph(Box::new(permutation(spec)?))),
};

/// A move as written: its name, its cycles and (on points whose pieces turn) the twist
/// of the piece arriving at each point.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveSpec {
    name: String,
    cycles: Cycles,
    #[serde(default)]
    twist: Option<Vec<i64>>,
}

/// Cycles as text, `"(0,1,3,2)(4,5,7,6)"`, or as lists, `[[0, 1, 3, 2], [4, 5, 7, 6]]`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Cycles {
    Text(String),
    Lists(Vec<Vec<i64>>),
}

/// One modulus for every point, or one per point.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Orientation {
    All(i64),
    Each(Vec<i64>),
}

/// The family's own keys.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Own {
    points: Option<i64>,
    orientation: Option<Orientation>,
    moves: Option<Vec<MoveSpec>>,
    metric: Option<String>,
    stickers: Option<Vec<[i64; 2]>>,
    faces: Option<String>,
    drawing: Option<String>,
}

/// The drawings the page knows for this family.
pub const DRAWINGS: &[&str] = &["cells", "stickers", "stack", "ring"];

/// Reads move `name`'s cycle text such as `(0,1,3,2)(4,5)` into lists of points.
fn cycle_text(name: &str, text: &str) -> Result<Vec<Vec<i64>>, Problem> {
    let bad = |why: String| problem("moves", format!("move {name:?}: cycles {text:?}: {why}"));
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let Some(inner) = rest.strip_prefix('(') else {
            return Err(bad(format!("expected '(' at {rest:?}")));
        };
        let Some(close) = inner.find(')') else {
            return Err(bad("a '(' is not closed".to_string()));
        };
        let body = &inner[..close];
        let cycle = body
            .split([',', ' '])
            .filter(|t| !t.is_empty())
            .map(|t| {
                t.trim()
                    .parse::<i64>()
                    .map_err(|_| bad(format!("{t:?} is not a point number")))
            })
            .collect::<Result<Vec<i64>, Problem>>()?;
        out.push(cycle);
        rest = inner[close + 1..].trim_start();
    }
    Ok(out)
}

/// The move's permutation (`perm[a]`: where the piece at `a` goes) from its cycles.
fn move_perm(name: &str, cycles: &Cycles, n: usize) -> Result<Vec<u8>, Problem> {
    let lists = match cycles {
        Cycles::Text(t) => cycle_text(name, t)?,
        Cycles::Lists(l) => l.clone(),
    };
    let mut perm: Vec<u8> = (0..n as u8).collect();
    let mut seen = vec![false; n];
    for cycle in &lists {
        for (i, &a) in cycle.iter().enumerate() {
            if a < 0 || a as usize >= n {
                return Err(problem(
                    "moves",
                    format!(
                        "move {name:?} names point {a}, which does not exist (points are 0 to {})",
                        n - 1
                    ),
                ));
            }
            let a = a as usize;
            if seen[a] {
                return Err(problem(
                    "moves",
                    format!("move {name:?} names point {a} twice"),
                ));
            }
            seen[a] = true;
            perm[a] = cycle[(i + 1) % cycle.len()] as u8;
        }
    }
    Ok(perm)
}

/// Power names: `X`, `X2`, ..., `X'` for the inverse.
fn power_name(name: &str, k: usize, order: usize) -> String {
    if k == 1 {
        name.to_string()
    } else if k + 1 == order {
        format!("{name}'")
    } else {
        format!("{name}{k}")
    }
}

pub fn permutation(spec: &Spec) -> Result<Permutation, Problem> {
    common(spec, FAMILY.keys)?;
    let own: Own = spec.own_keys(FAMILY.keys)?;
    let n = own
        .points
        .ok_or_else(|| problem("points", "missing key `points` (the number of points)"))?;
    if !(1..=MAX_POINTS as i64).contains(&n) {
        return Err(problem(
            "points",
            format!("{n} points; a permutation puzzle has 1 to {MAX_POINTS}"),
        ));
    }
    let n = n as usize;
    let modulus: Vec<u8> = match &own.orientation {
        None => vec![1; n],
        Some(Orientation::All(m)) => vec![check_modulus(*m)?; n],
        Some(Orientation::Each(list)) => {
            if list.len() != n {
                return Err(problem(
                    "orientation",
                    format!("orientation lists {} moduli for {n} points", list.len()),
                ));
            }
            list.iter()
                .map(|&m| check_modulus(m))
                .collect::<Result<_, _>>()?
        }
    };
    let specs = own
        .moves
        .as_ref()
        .filter(|m| !m.is_empty())
        .ok_or_else(|| {
            problem(
                "moves",
                "missing key `moves` (at least one move: name and cycles)",
            )
        })?;
    let mut generators: Vec<Move> = Vec::new();
    for m in specs {
        if m.name.trim().is_empty() || generators.iter().any(|g| g.name == m.name) {
            return Err(problem(
                "moves",
                format!("move name {:?} is empty or used twice", m.name),
            ));
        }
        let perm = move_perm(&m.name, &m.cycles, n)?;
        let twist: Vec<u8> = match &m.twist {
            None => vec![0; n],
            Some(t) => {
                if t.len() != n {
                    return Err(problem(
                        "moves",
                        format!(
                            "move {:?}: twist lists {} values for {n} points",
                            m.name,
                            t.len()
                        ),
                    ));
                }
                t.iter()
                    .enumerate()
                    .map(|(a, &x)| {
                        if x < 0 || x >= modulus[a] as i64 {
                            Err(problem(
                                "moves",
                                format!(
                                    "move {:?}: twist {x} at point {a}, whose pieces turn mod {} (twists 0 to {})",
                                    m.name,
                                    modulus[a],
                                    modulus[a] - 1
                                ),
                            ))
                        } else {
                            Ok(x as u8)
                        }
                    })
                    .collect::<Result<_, _>>()?
            }
        };
        for a in 0..n {
            let b = perm[a] as usize;
            if modulus[a] != modulus[b] {
                return Err(problem(
                    "moves",
                    format!(
                        "move {:?} takes a piece from point {a} (mod {}) to point {b} (mod {})",
                        m.name, modulus[a], modulus[b]
                    ),
                ));
            }
        }
        let mv = Move {
            name: m.name.clone(),
            perm,
            twist,
        };
        if mv.is_identity() {
            return Err(problem("moves", format!("move {:?} moves nothing", m.name)));
        }
        generators.push(mv);
    }
    let metric = own.metric.as_deref().unwrap_or("quarter");
    let mut moves: Vec<Move> = Vec::new();
    for g in &generators {
        // The powers of the move, up to its order.
        let mut powers = vec![g.clone()];
        loop {
            let last = powers.last().unwrap_or(g);
            let next = last.then(g, &modulus, String::new());
            if next.is_identity() {
                break;
            }
            powers.push(next);
        }
        let order = powers.len() + 1;
        let chosen: Vec<usize> = match metric {
            "quarter" => {
                if order == 2 {
                    vec![1]
                } else {
                    vec![1, order - 1]
                }
            }
            "face" | "half" => (1..order).collect(),
            other => {
                return Err(problem(
                    "metric",
                    format!(
                        "metric {other:?}: \"quarter\" (each move and its inverse) or \"face\" (each move with all its powers; \"half\" is the same)"
                    ),
                ));
            }
        };
        for k in chosen {
            let mut mv = powers[k - 1].clone();
            mv.name = power_name(&g.name, k, order);
            if !moves
                .iter()
                .any(|x| x.perm == mv.perm && x.twist == mv.twist)
            {
                moves.push(mv);
            }
        }
    }
    let notation = notation(&own, n, &modulus)?;
    let drawing = own.drawing.as_deref().unwrap_or(match notation {
        Notation::Stickers { .. } => "stickers",
        Notation::Numbers => "cells",
    });
    if !DRAWINGS.contains(&drawing) {
        return Err(problem(
            "drawing",
            format!("drawing {drawing:?}: one of {}", DRAWINGS.join(", ")),
        ));
    }
    let cells_wanted = match &notation {
        Notation::Stickers { stickers, .. } => stickers.len(),
        Notation::Numbers => n,
    };
    let coords: Vec<[f64; 2]> = match &spec.cells {
        Some(c) if c.len() != cells_wanted => {
            return Err(problem(
                "cells",
                format!(
                    "cells lists {} coordinates; the notation has {cells_wanted} cells",
                    c.len()
                ),
            ));
        }
        Some(c) => c.clone(),
        None => (0..cells_wanted).map(|i| [i as f64, 0.0]).collect(),
    };
    // A ring is drawn as a closed track through its cells.
    let edges: Vec<Vec<usize>> = (0..cells_wanted)
        .map(|i| {
            if drawing == "ring" && cells_wanted > 2 {
                vec![(i + 1) % cells_wanted]
            } else {
                Vec::new()
            }
        })
        .collect();
    let source = Source::new(
        serde_json::to_value(spec).unwrap_or(serde_json::Value::Null),
        layout(coords, &edges),
    );
    // Refused before the analysis if it names no storage.
    let storage = graph_ask(spec, "a permutation puzzle")?;
    // Before the group's order is computed (Schreier-Sims, seconds to minutes on large
    // orbits): the orbits and the count of positions alone refuse what cannot be
    // ranked or stored, at once.
    let labels = goal_labels(spec.goal.as_deref(), &notation, n);
    let analysis = super::analyse(n, &modulus, &generators, &labels);
    for orbit in &analysis.orbits {
        if orbit.points.len() > MAX_ORBIT {
            return Err(problem(
                "moves",
                format!(
                    "the moves carry pieces around an orbit of {} points; at most {MAX_ORBIT}",
                    orbit.points.len()
                ),
            ));
        }
    }
    graph_storage(analysis.size, storage, "points")?;
    let mut p = Permutation::new(
        &spec.name,
        modulus,
        moves,
        &generators,
        &labels,
        notation,
        metric,
        GraphAsk::BySize,
        source,
    );
    p.storage = storage;
    let p = p
        .with_goal(spec.goal.as_deref())
        .map_err(|e| problem("goal", e.to_string()))?;
    check_goal(&p, spec)?;
    p.with_start(spec.start.as_deref())
        .map_err(|e| problem("start", e.to_string()))
}

/// The labels of the goal's pieces: the goal's own where it repeats one (alike
/// pieces, written in numbers: `0,0,0,1,1`), else the identity (a goal that is a
/// permutation is read and checked as a position, relative to it). A goal that does
/// not read is refused later, by the notation's own reader.
fn goal_labels(goal: Option<&str>, notation: &Notation, n: usize) -> Vec<u8> {
    let identity: Vec<u8> = (0..n as u8).collect();
    let (Some(text), Notation::Numbers) = (goal, notation) else {
        return identity;
    };
    let pieces: Option<Vec<u8>> = text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| {
            let piece = t.split_once(':').map_or(t, |(x, _)| x);
            piece.parse::<u8>().ok().filter(|&x| (x as usize) < n)
        })
        .collect();
    match pieces {
        Some(p) if p.len() == n => {
            let mut seen = vec![false; n];
            let repeats = p
                .iter()
                .any(|&x| std::mem::replace(&mut seen[x as usize], true));
            if repeats { p } else { identity }
        }
        _ => identity,
    }
}

fn check_modulus(m: i64) -> Result<u8, Problem> {
    if (1..=12).contains(&m) {
        Ok(m as u8)
    } else {
        Err(problem(
            "orientation",
            format!("orientation modulus {m}: 1 (no orientation) to 12"),
        ))
    }
}

/// The goal keeps every piece in the orbit of its point (else no rank describes it).
fn check_goal(p: &Permutation, spec: &Spec) -> Result<(), Problem> {
    if let Some(goal) = &spec.goal {
        // Parsing the goal as a position checks the orbits; the constraints are
        // relative to the goal, so they hold.
        p.parse(goal)
            .map_err(|e| problem("goal", format!("goal: {e}")))?;
    }
    Ok(())
}

fn notation(own: &Own, n: usize, modulus: &[u8]) -> Result<Notation, Problem> {
    match (&own.stickers, &own.faces) {
        (None, None) => Ok(Notation::Numbers),
        (Some(_), None) => Err(problem(
            "stickers",
            "`stickers` needs `faces` (the colour of each sticker when solved)",
        )),
        (None, Some(_)) => Err(problem(
            "faces",
            "`faces` needs `stickers` (the point and facet of each sticker)",
        )),
        (Some(stickers), Some(faces)) => {
            let faces: Vec<char> = faces.chars().collect();
            if faces.len() != stickers.len() {
                return Err(problem(
                    "faces",
                    format!(
                        "faces has {} colours for {} stickers",
                        faces.len(),
                        stickers.len()
                    ),
                ));
            }
            if let Some(c) = faces
                .iter()
                .find(|c| c.is_whitespace() || c.is_ascii_lowercase() || **c == ',')
            {
                return Err(problem(
                    "faces",
                    format!("faces: colour {c:?}; use upper-case letters or other marks"),
                ));
            }
            let mut colours: Vec<Vec<Option<char>>> =
                (0..n).map(|a| vec![None; modulus[a] as usize]).collect();
            let mut list = Vec::new();
            for (i, &[a, f]) in stickers.iter().enumerate() {
                if a < 0 || a as usize >= n || f < 0 || f >= modulus[a as usize] as i64 {
                    return Err(problem(
                        "stickers",
                        format!("sticker {i} is [{a}, {f}]: no such point and facet"),
                    ));
                }
                let slot = &mut colours[a as usize][f as usize];
                if slot.is_some() {
                    return Err(problem(
                        "stickers",
                        format!("sticker {i} is [{a}, {f}], listed twice"),
                    ));
                }
                *slot = Some(faces[i]);
                list.push((a as u8, f as u8));
            }
            let colours: Vec<Vec<char>> = colours
                .into_iter()
                .enumerate()
                .map(|(a, c)| {
                    c.into_iter()
                        .enumerate()
                        .map(|(f, x)| {
                            x.ok_or_else(|| {
                                problem(
                                    "stickers",
                                    format!("no sticker shows facet {f} of point {a}"),
                                )
                            })
                        })
                        .collect::<Result<Vec<char>, Problem>>()
                })
                .collect::<Result<_, _>>()?;
            // Every piece in every orientation must read differently, or a sticker
            // string would not say which piece is where.
            let mut seen: Vec<(usize, String)> = Vec::new();
            for (q, c) in colours.iter().enumerate() {
                let m = c.len();
                for o in 0..m {
                    let read: String = (0..m).map(|f| c[(f + m - o) % m]).collect();
                    if let Some((other, _)) = seen.iter().find(|(_, r)| *r == read) {
                        return Err(problem(
                            "faces",
                            format!(
                                "pieces {other} and {q} show the same colours {read:?}: a sticker string would not tell them apart"
                            ),
                        ));
                    }
                    seen.push((q, read));
                }
            }
            Ok(Notation::Stickers {
                stickers: list,
                colours,
            })
        }
    }
}
