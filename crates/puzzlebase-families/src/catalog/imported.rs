//! Definition files in the cubing community's formats, read for the catalog: a
//! `NAME.tws` (ksolve/twsearch), a `NAME.kpuzzle.json` (cubing.js, every move a
//! generator), or a TOML file with a `kpuzzle` key naming the JSON beside it and its
//! generator moves (as twips's `--generator-moves`). Each becomes a permutation
//! [`Spec`] (`crate::permutation::import`), named by the file's stem.

use std::path::Path;

use super::{DefinitionError, line_at, line_of, read_definition};
use crate::spec::Spec;

/// The keys of a TOML file that points at a KPuzzle file.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct KPuzzleToml {
    name: Option<String>,
    family: Option<String>,
    kpuzzle: String,
    generators: Option<Vec<String>>,
    storage: Option<String>,
}

/// The permutation spec of a file in one of the community's formats
/// (`crate::permutation::import`), named by its file's stem; `None` for our own TOML.
pub(super) fn spec(path: &Path, text: &str) -> Result<Option<Spec>, DefinitionError> {
    use crate::permutation::import::{ReadError, kpuzzle, name_from_stem, tws};
    let file = path.display().to_string();
    let err = |e: ReadError| DefinitionError {
        file: file.clone(),
        line: e.line,
        message: e.message,
    };
    let base = path
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or_default();
    if let Some(stem) = base.strip_suffix(".tws") {
        let def = tws::read(text).map_err(err)?;
        return def
            .to_spec(&name_from_stem(stem), &[])
            .map(Some)
            .map_err(err);
    }
    if let Some(stem) = base.strip_suffix(".kpuzzle.json") {
        let def = kpuzzle::read(text, None).map_err(err)?;
        return def
            .to_spec(&name_from_stem(stem), &[])
            .map(Some)
            .map_err(err);
    }
    // A TOML file naming a KPuzzle file: recognised by its `kpuzzle` key.
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return Ok(None);
    };
    if !table.contains_key("kpuzzle") {
        return Ok(None);
    }
    let keys: KPuzzleToml = toml::from_str(text).map_err(|e| DefinitionError {
        file: file.clone(),
        line: e.span().map(|s| line_at(text, s.start)),
        message: format!(
            "{} (a KPuzzle pointer takes name, family, kpuzzle, generators, storage)",
            e.message().trim()
        ),
    })?;
    if keys.family.as_deref().is_some_and(|f| f != "permutation") {
        return Err(DefinitionError {
            file: file.clone(),
            line: line_of(text, "family"),
            message: "a KPuzzle file is a permutation puzzle: family = \"permutation\"".into(),
        });
    }
    let json_path = path
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join(&keys.kpuzzle);
    let json = read_definition(&json_path)?;
    let def = kpuzzle::read(&json, keys.generators.as_deref()).map_err(|e| DefinitionError {
        file: json_path.display().to_string(),
        line: e.line,
        message: e.message,
    })?;
    let name = keys.name.unwrap_or_else(|| {
        name_from_stem(
            path.file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default(),
        )
    });
    let extra: Vec<(&str, serde_json::Value)> = (keys.storage.iter())
        .map(|s| ("storage", serde_json::json!(s)))
        .collect();
    def.to_spec(&name, &extra).map(Some).map_err(err)
}
