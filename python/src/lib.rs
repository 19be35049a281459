//! The Python module `puzzlebase`: a thin layer over the library's reading API
//! (`puzzlebase::Database` and its one-question answers), so that a Python program gets
//! the answers and the refusals of `puzzlebase query`. The module's own documentation,
//! for Python, is the doc comment of [`puzzlebase_module`] (its `__doc__`) and
//! docs/python.md.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use ::puzzlebase::{Database, Histogram, QueryError, Stop, default_stop};
use pyo3::exceptions::{PyException, PyLookupError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple, PyType};
use serde_json::Value;

pyo3::create_exception!(
    puzzlebase,
    Error,
    PyException,
    "Every refusal of puzzlebase: the message is the one `puzzlebase query` prints."
);

/// The exceptions below [`Error`], one per kind of refusal.
#[derive(Clone, Copy)]
enum Kind {
    UnknownPuzzle,
    BadPosition,
    NotApplicable,
    FileError,
    SearchStopped,
}

impl Kind {
    const ALL: [Kind; 5] = [
        Kind::UnknownPuzzle,
        Kind::BadPosition,
        Kind::NotApplicable,
        Kind::FileError,
        Kind::SearchStopped,
    ];

    /// The class's name and docstring.
    fn name_and_doc(self) -> (&'static str, &'static str) {
        match self {
            Kind::UnknownPuzzle => (
                "UnknownPuzzle",
                "No puzzle of that name, built in or stored in the file (also a LookupError).",
            ),
            Kind::BadPosition => (
                "BadPosition",
                "The text is not a position of the puzzle: its length, its pieces, its parity, \
                 or a rank outside the puzzle (also a ValueError).",
            ),
            Kind::NotApplicable => (
                "NotApplicable",
                "The question does not apply to the puzzle (a distance of the magic triangle, \
                 the longest positions of a puzzle answered by search).",
            ),
            Kind::FileError => (
                "FileError",
                "The file cannot answer: it cannot be read, fails its checksums, contradicts \
                 itself, does not hold the puzzle, or holds it from another definition.",
            ),
            Kind::SearchStopped => (
                "SearchStopped",
                "A search (a puzzle answered by search, such as fifteen) gave up: its time \
                 ran out.",
            ),
        }
    }

    /// Its bases: [`Error`], and the Python exception a caller may already catch.
    fn bases(self, py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
        let error = py.get_type::<Error>().into_any();
        match self {
            Kind::UnknownPuzzle => {
                PyTuple::new(py, [error, py.get_type::<PyLookupError>().into_any()])
            }
            Kind::BadPosition => {
                PyTuple::new(py, [error, py.get_type::<PyValueError>().into_any()])
            }
            _ => PyTuple::new(py, [error]),
        }
    }

    /// The kind of a refusal; `None` for a legal position without a distance, which the
    /// answers that can have one give as None (anywhere else it is a plain [`Error`]).
    fn of(e: &QueryError) -> Option<Kind> {
        Some(match e {
            QueryError::UnknownPuzzle(_) => Kind::UnknownPuzzle,
            QueryError::State(_) => Kind::BadPosition,
            QueryError::NotApplicable { .. } | QueryError::NoFullTable { .. } => {
                Kind::NotApplicable
            }
            QueryError::NotGenerated(_)
            | QueryError::Stale(_)
            | QueryError::Store(_)
            | QueryError::Signature(_)
            | QueryError::Inconsistent { .. }
            | QueryError::NotStored(_)
            | QueryError::NoPartition { .. }
            | QueryError::Contradicted { .. } => Kind::FileError,
            QueryError::Stopped { .. } => Kind::SearchStopped,
            QueryError::Unreachable(_) => return None,
            // A refusal of a kind this package does not know yet: still the file's.
            _ => Kind::FileError,
        })
    }

    /// Its class, made once per interpreter (`type(name, bases, ...)`: two bases, which
    /// `create_exception!` cannot give).
    fn class(self, py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
        static CLASSES: PyOnceLock<Vec<Py<PyType>>> = PyOnceLock::new();
        let classes = CLASSES.get_or_try_init(py, || {
            (Kind::ALL.iter())
                .map(|&kind| {
                    let (name, doc) = kind.name_and_doc();
                    let dict = PyDict::new(py);
                    dict.set_item("__module__", "puzzlebase")?;
                    dict.set_item("__doc__", doc)?;
                    let made = (py.import("builtins")?.getattr("type")?).call1((
                        name,
                        kind.bases(py)?,
                        dict,
                    ))?;
                    Ok(made.cast_into::<PyType>()?.unbind())
                })
                .collect::<PyResult<Vec<_>>>()
        })?;
        Ok(classes[self as usize].bind(py).clone())
    }
}

/// The Python exception for a refusal, carrying the message `query` prints.
fn raise(py: Python<'_>, e: QueryError) -> PyErr {
    let message = puzzlebase::one_line(&e.to_string());
    match Kind::of(&e).map(|kind| kind.class(py)) {
        Some(Ok(class)) => PyErr::from_type(class, (message,)),
        Some(Err(failed)) => failed,
        None => Error::new_err(message),
    }
}

/// A Python value for a JSON value (objects keep their order).
fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i)) => i.into_pyobject(py)?.into_any(),
            (None, None) => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_python(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// A search's bound: `query`'s default (10 s) or `timeout` seconds from now.
fn stop_after(timeout: Option<f64>) -> PyResult<Stop> {
    match timeout {
        None => Ok(default_stop()),
        Some(s) => {
            let after = Duration::try_from_secs_f64(s).map_err(|_| {
                PyValueError::new_err(format!("timeout {s} is not a number of seconds"))
            })?;
            Ok(Stop::new(Instant::now().checked_add(after)))
        }
    }
}

/// An open puzzlebase file, read-only. Made by `puzzlebase.open(path)`; usable as a
/// context manager (`with puzzlebase.open(path) as db:`), which closes it at the end.
///
/// Positions are written as `puzzlebase query --state` accepts them. A question about
/// a position answered by search (the `fifteen` family) gives up after `timeout`
/// seconds (10 by default, as `query`). The file is read under a lock: one answer at a
/// time per Database, with the GIL released meanwhile.
#[pyclass(name = "Database", module = "puzzlebase", frozen)]
struct PyDatabase {
    db: Mutex<Option<Database>>,
    path: PathBuf,
    /// The minisign public key (and signature) the file must be signed with.
    key: Option<(PathBuf, Option<PathBuf>)>,
}

/// Opens `path`, checked as `query` checks it, and with `key` only if it is the file
/// its signature signed.
fn open_database(
    path: &Path,
    key: &Option<(PathBuf, Option<PathBuf>)>,
) -> Result<Database, QueryError> {
    match key {
        Some((key, sig)) => Database::open_signed(path, key, sig.as_deref()),
        None => Database::open(path),
    }
}

impl PyDatabase {
    /// Runs `f` on the open file without the GIL; its refusal becomes the exception.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Database) -> Result<T, QueryError> + Send,
    ) -> PyResult<T> {
        let result = py.detach(|| {
            let mut guard: MutexGuard<'_, Option<Database>> = self
                .db
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            // A file changed on disk since it was opened (and checked) is opened and
            // checked again, its signature too, before anything is answered from it.
            if guard.as_ref().is_some_and(Database::changed) {
                match open_database(&self.path, &self.key) {
                    Ok(db) => *guard = Some(db),
                    Err(e) => return Some(Err(e)),
                }
            }
            guard.as_ref().map(f)
        });
        match result {
            None => Err(Error::new_err(format!(
                "the database {} is closed",
                self.path.display()
            ))),
            Some(r) => r.map_err(|e| raise(py, e)),
        }
    }
}

#[pymethods]
impl PyDatabase {
    /// Opens the puzzlebase file at `path` (str or os.PathLike), like `open`.
    #[new]
    #[pyo3(signature = (path, key=None, signature=None))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        key: Option<PathBuf>,
        signature: Option<PathBuf>,
    ) -> PyResult<Self> {
        if signature.is_some() && key.is_none() {
            return Err(PyValueError::new_err("signature= needs key="));
        }
        let key = key.map(|k| (k, signature));
        let db = py
            .detach(|| open_database(&path, &key))
            .map_err(|e| raise(py, e))?;
        Ok(PyDatabase {
            db: Mutex::new(Some(db)),
            path,
            key,
        })
    }

    /// The file's path, as given to `open`.
    #[getter]
    fn file(&self) -> PathBuf {
        self.path.clone()
    }

    /// The position's distance to the goal (moves; jumps on a peg board), or None for
    /// a legal position that cannot reach it (a peg position that cannot finish).
    #[pyo3(signature = (puzzle, state, *, timeout = None))]
    fn distance(
        &self,
        py: Python<'_>,
        puzzle: &str,
        state: &str,
        timeout: Option<f64>,
    ) -> PyResult<Option<u32>> {
        let stop = stop_after(timeout)?;
        self.with(py, |db| db.distance(puzzle, state, &stop))
    }

    /// How many distinct shortest solutions the position has; None when it cannot
    /// reach the goal, when the file keeps no counts for the puzzle (large packed
    /// tables, puzzles answered by search), or past 2**63 - 1.
    #[pyo3(signature = (puzzle, state, *, timeout = None))]
    fn solutions(
        &self,
        py: Python<'_>,
        puzzle: &str,
        state: &str,
        timeout: Option<f64>,
    ) -> PyResult<Option<u64>> {
        let stop = stop_after(timeout)?;
        self.with(py, |db| db.solution_count(puzzle, state, &stop))
    }

    /// One optimal path: every position from `state` to the goal, both included (as
    /// `query --json` gives it); None when the position cannot reach the goal.
    #[pyo3(signature = (puzzle, state, *, timeout = None))]
    fn path(
        &self,
        py: Python<'_>,
        puzzle: &str,
        state: &str,
        timeout: Option<f64>,
    ) -> PyResult<Option<Vec<String>>> {
        let stop = stop_after(timeout)?;
        self.with(py, |db| db.path(puzzle, state, &stop))
    }

    /// The names of the moves along `path`'s optimal path (`["R", "U2", "F'"]`, Lights
    /// Out's `"press 1,2"`, Hanoi's `"1: A→C"`; empty at the goal), for puzzles whose
    /// moves have names; None when the position cannot reach the goal. Other puzzles
    /// (sliding tiles, peg boards) raise NotApplicable: their path tells the moves.
    #[pyo3(signature = (puzzle, state, *, timeout = None))]
    fn path_moves(
        &self,
        py: Python<'_>,
        puzzle: &str,
        state: &str,
        timeout: Option<f64>,
    ) -> PyResult<Option<Vec<String>>> {
        let stop = stop_after(timeout)?;
        self.with(py, |db| db.path_moves(puzzle, state, &stop))
    }

    /// Every legal move from the position, best first: dicts `{"move": ..., "state":
    /// ..., "distance": ...}` as the server's position page lists them (`distance` None
    /// where the goal cannot be reached from there).
    #[pyo3(signature = (puzzle, state, *, timeout = None))]
    fn moves<'py>(
        &self,
        py: Python<'py>,
        puzzle: &str,
        state: &str,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let stop = stop_after(timeout)?;
        let moves = self.with(py, |db| db.legal_moves(puzzle, state, &stop))?;
        let list = PyList::empty(py);
        for m in &moves {
            list.append(to_python(py, m)?)?;
        }
        Ok(list)
    }

    /// The puzzle's start position answered as `query --start --json` answers it: a
    /// dict with `puzzle`, `state`, `distance`, `solutions`, `solutions_stored`, `path`
    /// (and `moves`: on a peg board the jumps of each step, for a puzzle whose moves
    /// have names the name of each, as `path_moves` gives them; and `cluster` for Rush
    /// Hour, the positions reachable from the board).
    fn start<'py>(&self, py: Python<'py>, puzzle: &str) -> PyResult<Bound<'py, PyDict>> {
        let a = self.with(py, |db| db.start(puzzle))?;
        Ok(to_python(py, &a.json())?.cast_into::<PyDict>()?)
    }

    /// The maximum distance and every position at it (one per symmetry class on a peg
    /// board): `{"distance": int, "states": [str, ...]}`.
    fn longest<'py>(&self, py: Python<'py>, puzzle: &str) -> PyResult<Bound<'py, PyDict>> {
        let a = self.with(py, |db| db.longest(puzzle))?;
        let dict = PyDict::new(py);
        dict.set_item("distance", a.distance)?;
        dict.set_item("count", a.count)?;
        dict.set_item("states", a.states)?;
        Ok(dict)
    }

    /// Every stored position of the puzzle as a `pyarrow.Table`, with the columns and
    /// types of `puzzlebase export --format parquet` (`rank`, `state`, `distance`,
    /// `solutions`, `next`; enumerations `rank`, `state`, `value`, `canonical`) and its
    /// metadata (`puzzlebase.checksum`, ...). The puzzle is checked whole first, as
    /// `export` checks it. Needs pyarrow; `.to_pandas()` and `polars.from_arrow(...)`
    /// take the table as it is.
    fn to_arrow<'py>(&self, py: Python<'py>, puzzle: &str) -> PyResult<Bound<'py, PyAny>> {
        let ipc = py.import("pyarrow.ipc").map_err(|e| {
            Error::new_err(format!("to_arrow needs pyarrow (pip install pyarrow): {e}"))
        })?;
        let bytes = self.with(py, |db| db.export_ipc(puzzle))?;
        let bytes = pyo3::types::PyBytes::new(py, &bytes);
        ipc.call_method1("open_stream", (bytes,))?
            .call_method0("read_all")
    }

    /// Positions per distance, `[(distance, positions), ...]` by distance; for the
    /// magic triangle, solutions per side sum, `[(sum, solutions), ...]` by sum.
    fn histogram(&self, py: Python<'_>, puzzle: &str) -> PyResult<Vec<(i64, u64)>> {
        let h = self.with(py, |db| db.histogram(puzzle))?;
        Ok(match h {
            Histogram::ByDistance(rows) => rows
                .iter()
                .map(|r| (i64::from(r.distance), r.positions))
                .collect(),
            Histogram::ByValue(rows) => rows,
            _ => {
                return Err(pyo3::exceptions::PyNotImplementedError::new_err(
                    "a histogram of a kind this package does not know",
                ));
            }
        })
    }

    /// Every puzzle of the file, each checked as `puzzlebase list` checks it: dicts
    /// with `name`, `family`, `storage` (`positions`, `packed`, `solutions`,
    /// `patterns`, `peg-layers`, `search`), `counts` (whether solution counts are stored),
    /// `states`, `solvable`, `max_distance`, `generated_at`, `checksum`, `seconds`.
    fn puzzles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let infos = self.with(py, |db| db.listing())?;
        let list = PyList::empty(py);
        for i in &infos {
            let dict = PyDict::new(py);
            dict.set_item("name", &i.name)?;
            dict.set_item("family", &i.family)?;
            dict.set_item("storage", i.storage.as_str())?;
            dict.set_item("counts", i.counts)?;
            dict.set_item("states", i.states)?;
            dict.set_item("solvable", i.solvable)?;
            dict.set_item("max_distance", i.max_distance)?;
            dict.set_item("generated_at", &i.generated_at)?;
            dict.set_item("checksum", &i.checksum)?;
            dict.set_item("seconds", i.seconds)?;
            list.append(dict)?;
        }
        Ok(list)
    }

    /// The key of the position's stored row: a move puzzle's rank, a peg board's
    /// canonical bitboard (its symmetry class's row).
    fn rank(&self, py: Python<'_>, puzzle: &str, state: &str) -> PyResult<u64> {
        self.with(py, |db| db.rank(puzzle, state))
    }

    /// The position whose stored key is `rank`, in the puzzle's notation.
    fn unrank(&self, py: Python<'_>, puzzle: &str, rank: u64) -> PyResult<String> {
        self.with(py, |db| db.unrank(puzzle, rank))
    }

    /// Closes the file; any later question raises puzzlebase.Error.
    fn close(&self, py: Python<'_>) {
        let db = py.detach(|| {
            (self
                .db
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()))
            .take()
        });
        drop(db);
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, PyTuple>) -> bool {
        self.close(py);
        false
    }

    fn __repr__(&self) -> String {
        format!("puzzlebase.open({:?})", self.path.display().to_string())
    }
}

/// Opens the puzzlebase file at `path` (str or os.PathLike) for reading: a file that
/// `puzzlebase generate` wrote, checked as `query` checks it. With `key` (a minisign
/// public key file), only if its signature (`signature`, or PATH.minisig) is one of the
/// file's bytes made with that key; checked again whenever the file changes on disk.
#[pyfunction]
#[pyo3(signature = (path, key=None, signature=None))]
fn open(
    py: Python<'_>,
    path: PathBuf,
    key: Option<PathBuf>,
    signature: Option<PathBuf>,
) -> PyResult<PyDatabase> {
    PyDatabase::new(py, path, key, signature)
}

/// The version of puzzlebase this module was built from (`puzzlebase --version`).
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Answers from a puzzlebase file, the same as `puzzlebase query` gives them.
///
///     import puzzlebase
///     db = puzzlebase.open("data/puzzles.sqlite")
///     db.distance("eleven", "0,3,2,1,8,7,6,5,4,11,10,9")
///
/// Database methods: distance, solutions, path, path_moves, moves, start, longest, histogram,
/// puzzles, rank, unrank, close. Positions are written as `query --state` accepts
/// them (a peg position in any orientation). A legal position that cannot reach the
/// goal has distance None. Searches (the fifteen family) give up after `timeout`
/// seconds, 10 by default.
///
/// Every refusal raises a subclass of puzzlebase.Error whose message is the line
/// `query` prints after `puzzlebase: `:
///
///   UnknownPuzzle (also LookupError): no puzzle of that name.
///   BadPosition (also ValueError): not a position of the puzzle (length, pieces,
///       parity), or a rank outside it.
///   NotApplicable: the question does not apply to the puzzle.
///   FileError: the file cannot answer (unreadable, damaged, inconsistent, the
///       puzzle not generated or generated from another definition).
///   SearchStopped: a search gave up (timeout).
///
/// The module reads the file itself (SQLite is built in): Python's sqlite3 module is
/// not needed.
#[pymodule]
#[pyo3(name = "puzzlebase")]
fn puzzlebase_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<PyDatabase>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add("__version__", version())?;
    m.add("Error", py.get_type::<Error>())?;
    for kind in Kind::ALL {
        m.add(kind.name_and_doc().0, kind.class(py)?)?;
    }
    Ok(())
}
