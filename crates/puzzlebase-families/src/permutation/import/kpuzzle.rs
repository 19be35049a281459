//! cubing.js KPuzzle JSON (`NAME.kpuzzle.json`): `orbits` (a list of `{orbitName,
//! numPieces, numOrientations}`, or the older map `{NAME: {numPieces,
//! numOrientations}}`), `defaultPattern` (per orbit `pieces` and `orientation`; equal
//! pieces are alike), `moves` (per orbit `permutation` and `orientationDelta`, or the
//! older `orientation`), `derivedMoves` (algs; not read). As cubing.js applies a
//! transformation (`applyTransformationDataToKPatternData`), position `j` receives
//! the piece at `permutation[j]` and adds `orientationDelta[j]`: listed by the
//! position reached. The generators are the moves a small TOML beside the file names
//! (as twips's `--generator-moves`), or every move in `moves`.

use serde_json::Value;

use super::{Imported, ImportedMove, ReadError, Set, refuse};

fn numbers(v: Option<&Value>, what: &str, len: usize) -> Result<Vec<usize>, ReadError> {
    let list = v
        .and_then(Value::as_array)
        .ok_or_else(|| refuse(None, format!("{what}: missing, or not a list")))?;
    if list.len() != len {
        return Err(refuse(
            None,
            format!("{what}: {} numbers for {len} pieces", list.len()),
        ));
    }
    list.iter()
        .map(|x| {
            x.as_u64()
                .map(|x| x as usize)
                .ok_or_else(|| refuse(None, format!("{what}: {x} is not a number from 0")))
        })
        .collect()
}

/// Reads the JSON text; `generators` names the moves (every move of `moves` if none).
pub fn read(text: &str, generators: Option<&[String]>) -> Result<Imported, ReadError> {
    let doc: Value =
        serde_json::from_str(text).map_err(|e| refuse(Some(e.line()), format!("not JSON: {e}")))?;
    let mut sets = Vec::new();
    let size_of = |name: &str, o: &Value| -> Result<Set, ReadError> {
        let get = |k: &str| {
            o.get(k)
                .and_then(Value::as_u64)
                .filter(|&x| (1..=255).contains(&x))
                .map(|x| x as usize)
                .ok_or_else(|| refuse(None, format!("orbit {name:?}: `{k}` 1 to 255")))
        };
        Ok(Set {
            name: name.to_string(),
            size: get("numPieces")?,
            modulus: get("numOrientations")?,
        })
    };
    match doc.get("orbits") {
        Some(Value::Array(list)) => {
            for o in list {
                let name = o
                    .get("orbitName")
                    .and_then(Value::as_str)
                    .ok_or_else(|| refuse(None, "an entry of `orbits` has no `orbitName`"))?;
                sets.push(size_of(name, o)?);
            }
        }
        Some(Value::Object(map)) => {
            for (name, o) in map {
                sets.push(size_of(name, o)?);
            }
        }
        _ => return Err(refuse(None, "`orbits`: missing, or not a list or a map")),
    }
    if sets.is_empty() {
        return Err(refuse(None, "`orbits` is empty"));
    }
    let pattern = doc
        .get("defaultPattern")
        .or_else(|| doc.get("startPieces"))
        .and_then(Value::as_object)
        .ok_or_else(|| refuse(None, "`defaultPattern`: missing, or not a map"))?;
    let mut solved = Vec::new();
    for set in &sets {
        let Some(o) = pattern.get(&set.name) else {
            solved.push(None);
            continue;
        };
        let what = format!("defaultPattern {:?}", set.name);
        let pieces = numbers(o.get("pieces"), &format!("{what} pieces"), set.size)?;
        let ori = numbers(
            o.get("orientation"),
            &format!("{what} orientation"),
            set.size,
        )?;
        if o.get("orientationMod")
            .and_then(Value::as_array)
            .is_some_and(|m| m.iter().any(|x| x.as_u64() != Some(0)))
        {
            return Err(refuse(
                None,
                format!("{what}: `orientationMod` is not supported"),
            ));
        }
        if pieces.iter().any(|&x| x >= set.size) || ori.iter().any(|&x| x >= set.modulus) {
            return Err(refuse(
                None,
                format!("{what}: a piece or orientation out of range"),
            ));
        }
        solved.push(Some((pieces, ori)));
    }
    let all = doc
        .get("moves")
        .and_then(Value::as_object)
        .ok_or_else(|| refuse(None, "`moves`: missing, or not a map"))?;
    let names: Vec<String> = match generators {
        Some(g) => g.to_vec(),
        None => all.keys().cloned().collect(),
    };
    if names.is_empty() {
        return Err(refuse(None, "no generator moves"));
    }
    let mut moves = Vec::new();
    for name in &names {
        let Some(mv) = all.get(name) else {
            let derived = doc.get("derivedMoves").and_then(|d| d.get(name)).is_some();
            return Err(refuse(
                None,
                if derived {
                    format!("generator {name:?} is a derived move (an alg); only `moves` are read")
                } else {
                    format!("generator {name:?} is not one of `moves`")
                },
            ));
        };
        let mut per_set = Vec::new();
        for set in &sets {
            let Some(o) = mv.get(&set.name) else {
                per_set.push(None);
                continue;
            };
            let what = format!("move {name:?} orbit {:?}", set.name);
            let src = numbers(
                o.get("permutation"),
                &format!("{what} permutation"),
                set.size,
            )?;
            let mut seen = vec![false; set.size];
            for &x in &src {
                if x >= set.size || std::mem::replace(&mut seen[x], true) {
                    return Err(refuse(
                        None,
                        format!(
                            "{what}: the permutation is not one of 0 to {}",
                            set.size - 1
                        ),
                    ));
                }
            }
            let delta_key = if o.get("orientationDelta").is_some() {
                "orientationDelta"
            } else {
                "orientation"
            };
            let delta = numbers(o.get(delta_key), &format!("{what} {delta_key}"), set.size)?;
            if delta.iter().any(|&x| x >= set.modulus) {
                return Err(refuse(
                    None,
                    format!("{what}: an orientation change of {} or more", set.modulus),
                ));
            }
            per_set.push(Some((src, delta)));
        }
        moves.push(ImportedMove {
            name: name.clone(),
            sets: per_set,
        });
    }
    Ok(Imported {
        sets,
        solved,
        moves,
    })
}
