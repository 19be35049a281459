//! What an engine built from a definition carries back into its stored definition: the
//! file's contents and the drawing layout ([`Source`]), and the interned names engines
//! hold. The definition files themselves are read by the catalog.

use std::collections::BTreeSet;
use std::sync::Mutex;

use serde_json::{Value, json};

/// The definition file's contents and the drawing layout, carried by an engine built
/// from a file and added to its definition JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Source {
    spec: Value,
    layout: Value,
}

impl Source {
    /// A definition's contents (`spec`) and its drawing layout.
    pub fn new(spec: Value, layout: Value) -> Source {
        Source { spec, layout }
    }

    /// Adds `layout` and `spec` to a definition (nothing for an engine built in code).
    pub fn annotate(&self, definition: &mut Value) {
        if let Value::Object(map) = definition
            && !self.spec.is_null()
        {
            map.insert("layout".into(), self.layout.clone());
            map.insert("spec".into(), self.spec.clone());
        }
    }
}

/// The drawing layout: `{"cells": [[x, y], ...], "edges": [[a, b], ...]}`, edges once
/// each with `a < b`, sorted.
pub fn layout<T: Copy>(cells: impl IntoIterator<Item = [f64; 2]>, adjacency: &[Vec<T>]) -> Value
where
    usize: From<T>,
{
    let mut edges = BTreeSet::new();
    for (a, list) in adjacency.iter().enumerate() {
        for &b in list {
            let b = usize::from(b);
            edges.insert([a.min(b), a.max(b)]);
        }
    }
    let cells: Vec<[f64; 2]> = cells.into_iter().collect();
    json!({ "cells": cells, "edges": edges.into_iter().collect::<Vec<_>>() })
}

/// Names live as long as the process (engines hold `&'static str`); each distinct name
/// is allocated once however often its definition is read.
pub fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&n) = names.get(name) {
        return n;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    leaked
}
