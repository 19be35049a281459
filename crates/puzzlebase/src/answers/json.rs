//! The JSON form of every answer, shared by `query --json`, `list --json` and the HTTP
//! API so that both give the same answers from one code path.

use serde_json::{Value, json};

use super::kind::{self, Asked};
use crate::answers::{
    ArrangementAnswer, Database, Histogram, ListAnswer, LongestAnswer, Move, MoveOption,
    QueryError, Result, SearchAnswer, Solutions, StateAnswer, Stop,
};
use crate::catalog::plan::Plan;
use crate::families::Puzzle;
use crate::families::layout;
use crate::solvers::peg::Board;
use crate::store::{PegLayerRow, PuzzleInfo};
use crate::verify::Report;

/// `list --json`: one object per puzzle.
pub fn info(i: &PuzzleInfo) -> Value {
    json!({
        "puzzle": i.name, "family": i.family, "states": i.states, "solvable": i.solvable,
        "max_distance": i.max_distance, "generated_at": i.generated_at, "checksum": i.checksum,
        "storage": i.storage.as_str(), "counts": i.counts,
    })
}

/// `query --state` / `--start`. `moves`: on a peg board each step's jumps
/// `[from, to1, ...]`; for a puzzle whose moves have names, each step's name (`"R"`).
pub fn state(a: &StateAnswer) -> Value {
    let count = match a.solutions {
        Solutions::Exactly(n) => Some(n),
        Solutions::Overflow | Solutions::NotStored => None,
    };
    let mut obj = json!({
        "puzzle": a.puzzle, "state": a.state, "distance": a.distance,
        "solutions": count, "solutions_stored": a.solutions != Solutions::NotStored,
        "path": a.path,
    });
    if let Some(moves) = &a.moves {
        obj["moves"] = json!(moves);
    }
    if let Some(names) = &a.move_names {
        obj["moves"] = json!(names);
    }
    if let Some(cluster) = a.cluster {
        obj["cluster"] = json!(cluster);
    }
    obj
}

/// `query --longest`.
pub fn longest(a: &LongestAnswer) -> Value {
    json!({
        "puzzle": a.puzzle, "distance": a.distance, "count": a.count, "states": a.states,
    })
}

/// `query --histogram`: a list indexed by distance, or an object keyed by side sum.
pub fn histogram(name: &str, h: &Histogram) -> Value {
    json!({ "puzzle": name, "histogram": histogram_values(h) })
}

fn histogram_values(h: &Histogram) -> Value {
    match h {
        Histogram::ByDistance(h) => {
            let len = h.last().map_or(0, |r| r.distance as usize + 1);
            let mut counts = vec![0u64; len];
            for r in h {
                counts[r.distance as usize] = r.positions;
            }
            json!(counts)
        }
        Histogram::ByValue(h) => {
            let map: serde_json::Map<String, Value> =
                h.iter().map(|&(v, n)| (v.to_string(), n.into())).collect();
            Value::Object(map)
        }
    }
}

/// `query --matrix`.
pub fn matrix(name: &str, m: &[Vec<Option<u8>>]) -> Value {
    json!({ "puzzle": name, "matrix": m })
}

/// `query --layers`.
pub fn layers(name: &str, rows: &[PegLayerRow]) -> Value {
    let layers: Vec<_> = rows
        .iter()
        .map(|l| {
            json!({"pegs": l.pegs, "reachable": l.reachable, "can_finish": l.can_finish,
                   "reachable_classes": l.reachable_classes, "can_finish_classes": l.can_finish_classes,
                   "reachable_pairs": l.reachable_pairs})
        })
        .collect();
    json!({ "puzzle": name, "layers": layers })
}

/// `query --all` / `--sum`.
pub fn list(a: &ListAnswer) -> Value {
    json!({ "puzzle": a.puzzle, "count": a.states.len(), "states": a.states })
}

/// One legal move, in its family's terms.
pub fn move_option(m: &MoveOption) -> Value {
    let mv = match &m.mv {
        Move::Cells { from, to } => json!({ "from": from, "to": to }),
        Move::Jumps(j) => json!({ "jumps": j, "from": [j[0]], "to": [j[j.len() - 1]] }),
        Move::Named(n) => json!({ "name": n, "from": [], "to": [] }),
    };
    json!({ "move": mv, "state": m.state, "distance": m.distance })
}

/// An enumeration puzzle's view of one arrangement.
pub fn arrangement(name: &str, a: &ArrangementAnswer) -> Value {
    match a {
        ArrangementAnswer::Magic {
            state,
            sums,
            solution,
            canonical,
        } => json!({
            "puzzle": name, "state": state, "sums": sums, "solution": solution,
            "canonical": canonical,
        }),
        ArrangementAnswer::Tour {
            state,
            canonical,
            stored,
        } => json!({
            "puzzle": name, "state": state, "solution": stored, "canonical": canonical,
        }),
    }
}

/// Everything about one position: for move and peg puzzles the `query --state` answer
/// plus every legal move, best first; for enumerations the arrangement's own answer.
/// A position that cannot reach the goal is still answered, with `distance` null and
/// its moves, so that a client can walk back from a dead end.
pub fn position(db: &Database, name: &str, text: &str) -> Result<Value> {
    position_until(db, name, text, &Stop::default())
}

/// [`position`], where a search (`fifteen`) gives up when `stop` says so.
pub fn position_until(db: &Database, name: &str, text: &str, stop: &Stop) -> Result<Value> {
    let (p, _) = db.puzzle(name)?;
    kind::of(&p).position_json(&Asked { db, p: &p }, text, stop)
}

/// [`position`] of a puzzle answered position by position (from a table, as a move
/// puzzle or a peg board is, or by searching the position's cluster, as Rush Hour is):
/// its `--state` answer and every legal move.
pub(super) fn stored_position(db: &Database, p: &Puzzle, text: &str) -> Result<Value> {
    let name = p.name();
    let moves = db.moves(name, text)?;
    let mut obj = match db.state(name, text) {
        Ok(a) => state(&a),
        Err(QueryError::Unreachable(why)) => {
            json!({ "puzzle": name, "state": canonical_text(p, text), "distance": null,
                    "solutions": null, "path": [], "unsolvable": why })
        }
        Err(e) => return Err(e),
    };
    obj["legal_moves"] = moves.iter().map(move_option).collect();
    Ok(obj)
}

/// A position of a puzzle answered by search (`fifteen`): the optimal length and path
/// from IDA* over the stored pattern tables, with what the search cost, and every legal
/// move with its distance. A move changes a sliding puzzle's distance by exactly one, so
/// the path's next move is `d - 1` and each other move a search limited to `d - 1`
/// moves tells apart: `d - 1` if it finds a solution, else `d + 1`. That search stops
/// with the same `stop` as the first.
pub(super) fn searched_position(
    db: &Database,
    f: &crate::families::fifteen::Fifteen,
    name: &str,
    text: &str,
    stop: &Stop,
) -> Result<Value> {
    use crate::core::space::{GraphPuzzle, StateSpace};
    let cells = f.parse(text)?;
    let loaded = db.search_tables(name)?;
    let a = crate::answers::solve_loaded_until(&loaded, name, &cells, stop)?;
    let grid = f.grid();
    let rank = grid.parse(text)?;
    let before = grid.format(rank);
    let next = a.path.get(1);
    let mut nbs = Vec::new();
    grid.neighbors(rank, &mut nbs);
    let mut moves = Vec::with_capacity(nbs.len());
    for nb in nbs {
        let state = grid.format(nb);
        let closer = Some(&state) == next
            || (a.distance > 0
                && crate::answers::solvable_within(
                    &loaded,
                    name,
                    &grid.unrank(nb),
                    a.distance - 1,
                    stop,
                )?);
        let distance = if closer {
            a.distance - 1
        } else {
            a.distance + 1
        };
        moves.push(MoveOption {
            mv: crate::answers::cells_move(&before, &state),
            distance: Some(distance),
            state,
        });
    }
    moves.sort_by(|x, y| (x.distance, &x.state).cmp(&(y.distance, &y.state)));
    let mut obj = search(&a);
    obj["legal_moves"] = moves.iter().map(move_option).collect();
    Ok(obj)
}

/// The position in the puzzle's own notation (the user may have typed spaces or
/// lower case).
fn canonical_text(p: &Puzzle, text: &str) -> String {
    match p.normalized(text) {
        Some(normalized) => normalized.unwrap_or_default(),
        None => text.to_string(),
    }
}

/// Most tours listed for a tour board (the 6x6 board has 9,862 classes).
const TOURS_LISTED: usize = 60;

/// A puzzle's page: its definition, the geometry to draw it, its figures, the
/// histogram and longest positions, and per family the peg matrix, the magic triangle's
/// solutions per sum or the tours.
pub fn puzzle(db: &Database, name: &str) -> Result<Value> {
    let (p, i) = db.puzzle(name)?;
    let p = &*p;
    let definition: Value = serde_json::from_str(&i.definition).unwrap_or(Value::Null);
    let mut obj = info(&i);
    obj["definition"] = definition;
    obj["layout"] = json!(layout::layout(p));
    if let Some((start, goals)) = p.start_and_goals() {
        obj["start"] = json!(start);
        obj["goals"] = json!(goals);
    }
    kind::of(p).page_json(&Asked { db, p }, &mut obj)?;
    Ok(obj)
}

/// The page's histogram and longest positions, for a puzzle with a table of positions.
pub(super) fn page_tables(db: &Database, name: &str, obj: &mut Value) -> Result<()> {
    obj["histogram"] = histogram_values(&db.histogram(name)?);
    let l = db.longest(name)?;
    obj["longest"] = json!({ "distance": l.distance, "states": l.states });
    Ok(())
}

/// The page of a magic figure: its histogram and its solutions per side sum.
pub(super) fn page_magic(
    db: &Database,
    m: &crate::families::magic::Magic,
    name: &str,
    obj: &mut Value,
) -> Result<()> {
    obj["histogram"] = histogram_values(&db.histogram(name)?);
    let all = db.all(name)?;
    let mut by_sum = serde_json::Map::new();
    for s in &all.states {
        let digits = m.parse(s)?;
        let v = m.side_sum(&digits).unwrap_or_default();
        if let Value::Array(a) = by_sum.entry(v.to_string()).or_insert_with(|| json!([])) {
            a.push(json!(s));
        }
    }
    obj["solutions"] = Value::Object(by_sum);
    Ok(())
}

/// The page of a puzzle answered by search: no table, Korf's instances as examples.
pub(super) fn page_search(f: &crate::families::fifteen::Fifteen, obj: &mut Value) {
    // No table of every position: each position is answered by an exact search.
    obj["answered_by"] = json!("search");
    // Korf's instances are positions of any 4x4 (the goal is the same).
    if let Ok(korf) = crate::families::fifteen::korf_instances(crate::families::fifteen::KORF100)
        && f.cells() == 16
    {
        obj["examples"] = korf
            .iter()
            .map(|k| {
                json!({
                    "name": format!("Korf #{}", k.number),
                    "state": f.format(&k.cells),
                    "distance": k.length,
                })
            })
            .collect();
    }
}

/// The page of a tour board: how many tours, the first ones.
pub(super) fn page_tours(db: &Database, name: &str, obj: &mut Value) -> Result<()> {
    let all = db.all(name)?;
    obj["tours"] = json!({
        "count": all.states.len(),
        "listed": all.states.iter().take(TOURS_LISTED).collect::<Vec<_>>(),
    });
    Ok(())
}

/// The page of a peg board: its matrix, where it has one, and its layers.
pub(super) fn page_peg(db: &Database, b: &Board, name: &str, obj: &mut Value) -> Result<()> {
    if b.matrix {
        obj["matrix"] = json!(db.matrix(name)?);
    }
    obj["layers"] = layers(name, &db.layers(name)?)["layers"].take();
    Ok(())
}

/// A position answered by search (`fifteen`): the optimal length and path, and what the
/// search cost. The one JSON form of a search answer, for `query --json` and the server.
pub fn search(a: &SearchAnswer) -> Value {
    json!({
        "puzzle": a.puzzle, "state": a.state, "distance": a.distance, "solutions": null,
        "path": a.path, "partition": a.partition, "reflected": a.reflected,
        "nodes": a.expanded, "generated": a.generated, "seconds": a.seconds,
        "load_seconds": a.load_seconds,
    })
}

/// What `check-definition --json` says of a definition file that builds.
pub fn plan(file: &str, plan: &Plan) -> Value {
    json!({
        "file": file, "puzzle": plan.name, "family": plan.family,
        "states": plan.states, "states_exact": plan.states_exact, "storage": plan.storage,
        "seconds": plan.seconds, "memory_bytes": plan.memory_bytes, "built": plan.tabulate, "nightly": plan.nightly,
        "tables": plan.tables,
    })
}

/// `verify --json`'s object for one puzzle that passed.
pub fn verified(r: &Report) -> Value {
    json!({
        "puzzle": r.puzzle, "ok": true, "storage": r.storage.as_str(),
        "states": r.stored, "entries": r.entries, "solvable": r.solvable,
        "max_distance": r.max_distance, "seconds": r.seconds,
    })
}

/// `verify --key --json`'s object for a good signature (printed before the puzzles').
pub fn signature(path: &str, key_id: &str, trusted_comment: &str) -> Value {
    json!({
        "signature": path, "ok": true, "key_id": key_id, "trusted_comment": trusted_comment,
    })
}

/// `verify --key --json`'s object for a signature that does not hold.
pub fn signature_failure(path: &str, error: &str) -> Value {
    json!({ "signature": path, "ok": false, "error": error })
}

/// `verify --json`'s object for the failure that stopped it.
pub fn verify_failure(puzzle: Option<&str>, error: &str) -> Value {
    json!({ "puzzle": puzzle, "ok": false, "error": error })
}
