//! Shared helpers: one generated database per test run, and running the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use puzzlebase::{
    Definition, GraphPuzzle, Job, Observer, Options, PegBoard as Board, Progress, Silent, Summary,
};

/// Puzzles cheap enough to build for every test run.
pub const LIGHT: &[&str] = &[
    "six",
    "seven",
    "eight",
    "nine",
    "knight-swap",
    "oshidori",
    "chinese-checkers",
    "hoppers",
    "triangle21",
    "magic-triangle",
    "knight-tour",
    "knight-tour-6x6",
    "lights-out-3",
];

/// The tests' small packed tables with solution counts: `eight` and `nine` asked for
/// `storage = "packed"` (`tests/fixtures/definitions/`), as puzzles above a few million
/// positions are stored; `eight` and `nine` themselves are rows.
pub const PACKED: &[&str] = &["eight-packed", "nine-packed"];

/// The test fixtures' definitions (`tests/fixtures/definitions/`): built when named.
pub fn fixtures() -> Vec<Definition> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/definitions");
    Definition::read_dir(&dir).expect("the fixture definitions load")
}

/// A run building the test partition ([`TEST_PARTITION`]) and the puzzles `extra`,
/// verified when `verify`.
pub fn job(extra: Vec<Definition>, verify: bool) -> Job<'static> {
    Job {
        partitions: vec![TEST_PARTITION.to_string()],
        definitions: extra,
        verify,
        ..Job::default()
    }
}

/// The catalog's puzzle `name`, or the fixture of that name.
pub fn find(name: &str) -> Option<Definition> {
    Definition::builtin(name).or_else(|| fixtures().into_iter().find(|p| p.name() == name))
}

/// The move graph of the built-in puzzle or fixture `name`.
pub fn graph(name: &str) -> Box<dyn GraphPuzzle> {
    find(name)
        .and_then(Definition::into_graph)
        .unwrap_or_else(|| panic!("{name} is a move puzzle"))
}

/// The board of the built-in peg puzzle or fixture `name`.
pub fn peg_board(name: &str) -> Board {
    find(name)
        .and_then(Definition::into_peg_board)
        .unwrap_or_else(|| panic!("{name} is a peg board"))
}

/// A copy of the database `from` in a fresh directory, changed by `damage` on its own
/// connection (closed before returning). Keep the directory as long as the copy is used.
pub fn damaged_copy(
    from: &Path,
    damage: impl FnOnce(&rusqlite::Connection),
) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged.sqlite");
    std::fs::copy(from, &path).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    damage(&conn);
    drop(conn);
    (dir, path)
}

/// The rank of the `positions` row of `puzzle` that holds `state`.
pub fn rank_of(conn: &rusqlite::Connection, puzzle: &str, state: &str) -> i64 {
    conn.query_row(
        "SELECT rank FROM positions WHERE puzzle = ?1 AND state = ?2",
        rusqlite::params![puzzle, state],
        |r| r.get(0),
    )
    .unwrap()
}

/// Every puzzle the nightly job builds except `eleven` and `twelve`, whose 239,500,800
/// states each (about 25 s and half a gigabyte) are left to `cargo bench` and the
/// ignored tests, and `hanoi-4` (67,108,864 positions, about 10 s), which an ignored
/// test of its own builds (`lights_hanoi`).
pub fn all_but_eleven() -> Vec<&'static str> {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            (Definition::builtins().iter())
                .filter(|p| p.in_default_run())
                .map(|p| p.name().to_string())
                .filter(|n| !["eleven", "twelve", "hanoi-4"].contains(&n.as_str()))
                .collect()
        })
        .iter()
        .map(String::as_str)
        .collect()
}

/// An observer that reports nothing.
pub struct Quiet;
impl Observer for Quiet {
    fn progress(&self, _: &str) -> Box<dyn Progress + '_> {
        Box::new(Silent)
    }
    fn done(&self, _: &Summary) {}
}

/// The partition of `fifteen` the tests build: the default 7-8 takes four minutes and
/// 4.4 GiB, 6-6-3 seven seconds; `query` answers from whichever is stored. The default
/// itself is built by the bench and the ignored tests (`fifteen::hardest_*`).
pub const TEST_PARTITION: &str = "6-6-3";

/// Generates `only` into `db` through the library (fifteen with [`TEST_PARTITION`]; the
/// [`fixtures`] by name too).
pub fn generate_into(db: &Path, only: &[&str], force: bool) -> Vec<Summary> {
    let opts = Options {
        db: db.to_path_buf(),
        only: only.iter().map(|s| s.to_string()).collect(),
        force,
    };
    puzzlebase::generate_job(&opts, job(fixtures(), false), &Quiet).expect("generate")
}

/// A database holding the light puzzles and the [`PACKED`] ones, built once and shared
/// by every test.
pub fn shared_db() -> &'static Path {
    static DB: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared.sqlite");
        generate_into(&path, &[LIGHT, PACKED].concat(), false);
        (dir, path)
    });
    path
}

/// Generates the example definition `name` (`data/puzzles/examples/`) into `db` with
/// `generate --definitions`, which must succeed.
pub fn generate_example(db: &Path, name: &str) {
    let defs = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/puzzles/examples");
    let out = run(&[
        "generate",
        "-q",
        "--db",
        db.to_str().unwrap(),
        "--definitions",
        defs.to_str().unwrap(),
        "--puzzle",
        name,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs the binary with `args`, with no PUZZLEBASE_DB (or progress interval) from the
/// environment.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
        .args(args)
        .env_remove("PUZZLEBASE_DB")
        .env_remove("PUZZLEBASE_PROGRESS_SECONDS")
        .output()
        .unwrap()
}

/// `verify` of the whole file `db` passes, with an ` ok ` line for each of `names`.
pub fn assert_verifies(db: &Path, names: &[&str]) {
    let o = run(&["verify", "--db", db.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for name in names {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("{name} ")) && l.contains(" ok ")),
            "{name}: {text}"
        );
    }
}

/// Runs a query against the shared database and parses its one-line JSON answer.
pub fn query_json(args: &[&str]) -> serde_json::Value {
    query_json_in(shared_db(), args)
}

/// Runs a query against `db` and parses its one-line JSON answer.
pub fn query_json_in(db: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["query", "--db", db.to_str().unwrap(), "--json"];
    all.extend_from_slice(args);
    let o = run(&all);
    assert!(
        o.status.success(),
        "query {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "JSON answers are one line: {text}");
    serde_json::from_str(&text).unwrap()
}

/// Total number of positions in a move puzzle's `--histogram` from the shared database.
pub fn histogram_total(puzzle: &str) -> u64 {
    let h = query_json(&["--puzzle", puzzle, "--histogram"]);
    h["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum()
}

/// Asserts that a command failed with exactly one line on stderr, no panic, and `code`;
/// returns that line.
pub fn assert_clean_failure(o: &Output, code: i32) -> String {
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(code), "exit code; stderr: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line on stderr: {err}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
    assert!(
        o.stdout.is_empty(),
        "nothing on stdout: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    err
}

/// Checks that `path` (a JSON array of states) is a chain of legal single moves of the
/// move puzzle `name` ending at a goal.
pub fn assert_legal_path(name: &str, path: &[serde_json::Value]) {
    let g = graph(name);
    let ranks: Vec<u64> = path
        .iter()
        .map(|s| g.parse(s.as_str().unwrap()).unwrap())
        .collect();
    for w in ranks.windows(2) {
        let mut nbs = Vec::new();
        g.neighbors(w[0], &mut nbs);
        assert!(
            nbs.contains(&w[1]),
            "{name}: {} -> {} is not a move",
            g.format(w[0]),
            g.format(w[1])
        );
    }
    assert!(
        g.goals().contains(ranks.last().unwrap()),
        "{name}: the path ends at the goal"
    );
}

/// Replays a peg answer's moves jump by jump and checks they visit its path to the finish.
pub fn assert_replays(b: &Board, a: &serde_json::Value) {
    let path: Vec<u64> = a["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| b.parse(s.as_str().unwrap()).unwrap())
        .collect();
    let moves: Vec<Vec<u8>> = serde_json::from_value(a["moves"].clone()).unwrap();
    assert_eq!(moves.len(), a["distance"].as_u64().unwrap() as usize);
    assert_eq!(path.len(), moves.len() + 1);
    let mut cur = path[0];
    for (i, mv) in moves.iter().enumerate() {
        for jump in mv.windows(2) {
            cur = b
                .apply_move(cur, jump)
                .unwrap_or_else(|| panic!("{}: jump {jump:?} is illegal", b.name));
        }
        assert_eq!(cur, path[i + 1]);
    }
    assert_eq!(cur, b.finish, "{}", Board::format_moves(&moves));
}

/// Asserts that no temporary file of an interrupted or finished run is left in `dir`.
pub fn assert_no_temporaries(dir: &Path) {
    let names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        names.iter().all(|n| !n.to_string_lossy().contains(".tmp-")),
        "{names:?}"
    );
}

/// `nine` and the hexagonal `six` asked for two bits per position (`nine-codes`, mod 4;
/// `six-codes`, not bipartite, mod 3), and `nine` at two bits with its rank reading down
/// and up the columns as `fourteen`'s does (`nine-columns`), as definition files: file
/// name and text.
pub fn two_bit_definitions() -> [(&'static str, String); 3] {
    let nine =
        "name = \"nine-codes\"\nfamily = \"sliding\"\nrows = 2\ncols = 5\nstorage = \"two-bit\"\n";
    let six = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/puzzles/six.toml"),
    )
    .unwrap()
    .replace(
        "name = \"six\"",
        "name = \"six-codes\"\nstorage = \"two-bit\"",
    );
    [
        ("nine-codes.toml", nine.to_string()),
        ("six-codes.toml", six),
        (
            "nine-columns.toml",
            nine.replace("nine-codes", "nine-columns")
                + "rank_order = [0, 5, 6, 1, 2, 7, 8, 3, 4, 9]\n",
        ),
    ]
}

/// Every file under `dir`, at any depth, whose name ends in `.{ext}`.
pub fn files_under(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    out
}

/// xorshift64*: a generator reproducible from its seed, for the seeded attack tests.
pub struct Seeded(pub u64);

impl Seeded {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % (n as u64).max(1)) as usize
    }
}

/// The number in the environment variable `var` (a long run's count, such as 3,000
/// flips), or `default` when it is unset; a value that is not a number is a mistake.
pub fn count_from_env(var: &str, default: usize) -> usize {
    match std::env::var(var) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{var}={v:?} is not a count")),
        Err(_) => default,
    }
}

/// A move graph solved here, apart from the library's solvers: for every rank, its
/// distance to the nearest goal ([`UNREACHED`] where none is reachable) and its number
/// of shortest paths to a goal (saturating at [`COUNT_OVERFLOW`]).
pub struct Solved {
    pub dist: Vec<u8>,
    pub count: Vec<u64>,
}

impl Solved {
    /// Positions per distance, 0 to the largest reached.
    pub fn levels(&self) -> Vec<u64> {
        let mut out = Vec::new();
        for &d in self.dist.iter().filter(|&&d| d != UNREACHED) {
            if out.len() <= d as usize {
                out.resize(d as usize + 1, 0);
            }
            out[d as usize] += 1;
        }
        out
    }
}

/// The file format's "not reachable" distance byte (`docs/file-format.md`).
pub const UNREACHED: u8 = u8::MAX;
/// The file format's solution count that stands for "more than fits" (`docs/file-format.md`).
pub const COUNT_OVERFLOW: u64 = u64::MAX;

/// [`Solved`] by a plain breadth-first search from the goals, level by level: a rank's
/// count is the sum of the counts of its neighbours one move closer (the moves of the
/// built-in graphs are reversible, so their distances from the goals are distances to
/// them). For graphs whose distances fit a byte.
pub fn solve_apart(g: &dyn GraphPuzzle) -> Solved {
    let n = g.size() as usize;
    let mut dist = vec![UNREACHED; n];
    let mut count = vec![0u64; n];
    let mut frontier = g.goals();
    for &r in &frontier {
        dist[r as usize] = 0;
        count[r as usize] = 1;
    }
    let mut nbs = Vec::new();
    let mut d = 0u8;
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &r in &frontier {
            nbs.clear();
            g.neighbors(r, &mut nbs);
            for &s in &nbs {
                let s = s as usize;
                if dist[s] == UNREACHED {
                    dist[s] = d + 1;
                    next.push(s as u64);
                }
                if dist[s] == d + 1 {
                    count[s] = count[s].saturating_add(count[r as usize]);
                }
            }
        }
        frontier = next;
        d += 1;
    }
    Solved { dist, count }
}

/// Writes the digest of one `packed_chunks` row again from its bytes, as
/// `docs/file-format.md#digests-a-check-beside-every-value` describes it: what a tool
/// that edits a chunk and covers its tracks does.
pub fn redigest_chunk(conn: &rusqlite::Connection, puzzle: &str, kind: &str, chunk: i64) {
    use sha2::{Digest, Sha256};
    let data: Vec<u8> = conn
        .query_row(
            "SELECT data FROM packed_chunks WHERE puzzle = ?1 AND kind = ?2 AND chunk = ?3",
            rusqlite::params![puzzle, kind, chunk],
            |r| r.get(0),
        )
        .unwrap();
    let mut h = Sha256::new();
    h.update(b"packed_chunks\n");
    for bytes in [puzzle.as_bytes(), kind.as_bytes()] {
        h.update(b"\0T");
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    h.update(b"\0I");
    h.update(chunk.to_le_bytes());
    h.update(b"\0T");
    h.update((data.len() as u64).to_le_bytes());
    h.update(&data);
    let changed = conn
        .execute(
            "UPDATE digests SET digest = ?4 WHERE puzzle = ?1 AND tbl = 'packed_chunks' AND kind = ?2 \
             AND first <= ?3 AND ?3 < next",
            rusqlite::params![puzzle, kind, chunk, h.finalize().to_vec()],
        )
        .unwrap();
    assert_eq!(changed, 1, "one digest per chunk");
}
