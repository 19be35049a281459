//! The command line's arguments: every subcommand and option, with the help text clap
//! prints.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Precomputes complete solution databases for classic puzzles into one SQLite file,
/// and answers lookups from it without searching.
#[derive(Parser)]
#[command(name = "puzzlebase", version, about, long_about = None)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// `query`'s examples, which both helps end with.
pub(crate) const QUERY_EXAMPLES: &str = "\
Examples:
  puzzlebase query --puzzle eight --state 867254301
  puzzlebase query --puzzle cube2 --random --seed 7
  puzzlebase query --puzzle fifteen --scramble 30
  puzzlebase query --puzzle seven --longest --json
  puzzlebase query --puzzle hoppers --start
  puzzlebase query --puzzle triangle21 --matrix
  puzzlebase query --puzzle magic-triangle --sum 20";

/// `query -h`'s closing lines: the examples, and where the notation is.
pub(crate) const QUERY_SHORT_HELP: &str = concat!(
    "Examples:\n",
    "  puzzlebase query --puzzle eight --state 867254301\n",
    "  puzzlebase query --puzzle cube2 --random --seed 7\n",
    "  puzzlebase query --puzzle seven --longest --json\n\n",
    "Every puzzle's notation: puzzlebase query --help (also docs/notation.md)"
);

/// `query --help`'s closing lines: every built-in puzzle's notation, generated from the
/// definitions, then the examples.
pub(crate) fn query_long_help() -> String {
    let mut lines = puzzlebase::notations();
    lines.push(String::new());
    lines.push(QUERY_EXAMPLES.to_string());
    lines.join("\n")
}

/// The command line's definition, with `query --help`'s notation when `notation` (built
/// from every built-in puzzle, so only when it may be shown: help, man pages).
pub(crate) fn command(notation: bool) -> clap::Command {
    use clap::CommandFactory;
    let cmd = Cli::command();
    if notation {
        cmd.mut_subcommand("query", |q| q.after_long_help(query_long_help()))
    } else {
        cmd
    }
}

#[derive(Args)]
pub(crate) struct DbArg {
    /// Database file. Without --db or PUZZLEBASE_DB: data/puzzles.sqlite in a checkout of
    /// the repository (where it exists, or beside data/puzzles/), else
    /// $XDG_DATA_HOME/puzzlebase/puzzles.sqlite (~/.local/share/puzzlebase/puzzles.sqlite)
    #[arg(
        long,
        env = "PUZZLEBASE_DB",
        default_value_os_t = default_db(),
        value_name = "PATH"
    )]
    pub(crate) db: PathBuf,
}

/// `--key` and `--signature` of the readers (`query`, `serve`): answer only from a file
/// signed with the key.
#[derive(Args)]
pub(crate) struct KeyArgs {
    /// Answer only if the file's signature (PATH.minisig) is one of its bytes made with
    /// this minisign public key (checked once per state of the file: the whole file is
    /// read once)
    #[arg(long, value_name = "PUBLIC_KEY")]
    pub(crate) key: Option<PathBuf>,
    /// The signature to check with --key, instead of PATH.minisig
    #[arg(long, value_name = "FILE", requires = "key")]
    pub(crate) signature: Option<PathBuf>,
}

impl KeyArgs {
    /// The key and the signature, as the library takes them.
    pub(crate) fn pair(&self) -> Option<(PathBuf, Option<PathBuf>)> {
        self.key.clone().map(|k| (k, self.signature.clone()))
    }
}

/// The database in a checkout of the repository, relative to its root.
const IN_CHECKOUT: &str = "data/puzzles.sqlite";

/// The database file when neither `--db` nor `PUZZLEBASE_DB` names one:
/// `data/puzzles.sqlite` where it exists or the current directory is a checkout of the
/// repository (it holds the definitions, `data/puzzles/`), else the user's data
/// directory ([`user_db`]), so that an installed binary finds its file from anywhere.
pub(crate) fn default_db() -> PathBuf {
    let here = PathBuf::from(IN_CHECKOUT);
    let checkout = std::path::Path::new("data/puzzles/build-order.txt").is_file();
    if here.exists() || checkout {
        return here;
    }
    user_db().unwrap_or(here)
}

/// `$XDG_DATA_HOME/puzzlebase/puzzles.sqlite`, or `$HOME/.local/share/...` where
/// `XDG_DATA_HOME` is unset or not absolute (the XDG Base Directory rule); `None`
/// without either.
pub(crate) fn user_db() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            let home = PathBuf::from(std::env::var_os("HOME")?);
            home.is_absolute().then(|| home.join(".local/share"))
        })?;
    Some(data.join("puzzlebase").join("puzzles.sqlite"))
}

/// `generate`'s options.
#[derive(Args)]
pub(crate) struct GenerateArgs {
    #[command(flatten)]
    pub(crate) db: DbArg,
    /// Build only this puzzle (repeatable); others are kept from the previous file
    #[arg(long = "puzzle", value_name = "NAME", value_parser = PuzzleName, hide_possible_values = true)]
    pub(crate) puzzles: Vec<String>,
    /// Recompute even puzzles whose definition is unchanged
    #[arg(long)]
    pub(crate) force: bool,
    /// Print only errors (no progress bars or progress lines)
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// One JSON object per puzzle built or kept (and per puzzle verified), one per line,
    /// instead of the text lines; no progress bars
    #[arg(long)]
    pub(crate) json: bool,
    /// Also build every definition file in DIR (*.toml, and ksolve/twsearch *.tws); see
    /// `check-definition`
    #[arg(long, env = "PUZZLEBASE_DEFINITIONS", value_name = "DIR")]
    pub(crate) definitions: Option<PathBuf>,
    /// Before replacing the file, check the new one: re-derive every fact of the puzzles
    /// this run built (as `verify`), check the puzzles carried over by their checksums and
    /// definitions and the file as a whole (structure, meta, its record of its puzzles),
    /// and print a line saying which was which; `verify` re-derives every puzzle
    #[arg(long)]
    pub(crate) verify: bool,
    /// Puzzles answered by search (fifteen): build the pattern databases of this
    /// partition of the tiles (repeatable; the definition file names the partitions
    /// and the default: `check-definition data/puzzles/fifteen.toml` lists them). The
    /// choice is part of the stored definition: a later run without it rebuilds the
    /// default
    #[arg(long = "partition", value_name = "NAME")]
    pub(crate) partitions: Vec<String>,
    /// Continue a killed run: every breadth-first search starts from the last level its
    /// checkpoint holds (under mpirun, with the same number of processes). Implies
    /// checkpoints (docs/distributed.md)
    #[arg(long)]
    pub(crate) resume: bool,
    /// Checkpoint every level of the breadth-first searches into DIR (each process its
    /// own share), removed once the file is written. Under mpirun (the `mpi` build) or
    /// with --resume the default is PATH.checkpoints beside the database
    #[arg(long, value_name = "DIR")]
    pub(crate) checkpoints: Option<PathBuf>,
    /// Append each level's exchange figures (bytes and neighbours sent between
    /// processes, seconds) to FILE as CSV; for runs with checkpoints or under mpirun
    #[arg(long, value_name = "FILE")]
    pub(crate) exchange_log: Option<PathBuf>,
    /// Sign the new file with this minisign secret key: PATH.minisig is written beside
    /// it, which `minisign -Vm PATH -p KEY.pub` and `verify --key KEY.pub` check. The key
    /// is read before anything is built; an encrypted key's password comes from
    /// PUZZLEBASE_KEY_PASSWORD. When nothing needs building, the file is signed again
    /// only if its signature is missing or is not this key's
    #[arg(long, value_name = "SECRET_KEY")]
    pub(crate) sign: Option<PathBuf>,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Build every puzzle (or those named) into the database file.
    ///
    /// The file is built beside the target and renamed into place only when complete
    /// and verified; puzzles whose definition is unchanged are copied from the previous
    /// file instead of recomputed. Prints one summary line per puzzle. Progress goes to
    /// stderr: bars on a terminal, otherwise a line at most every
    /// PUZZLEBASE_PROGRESS_SECONDS (60) for each phase that runs that long.
    Generate(GenerateArgs),
    /// Answer from the database without searching: a position's distance and optimal
    /// path, the longest positions, histograms, peg matrices, enumerated solutions.
    #[command(after_help = QUERY_SHORT_HELP)]
    Query(QueryArgs),
    /// Serve the database read-only over HTTP: a page that draws the boards and a JSON
    /// API with the same answers as `query --json`, until interrupted (Ctrl-C).
    ///
    /// API: GET /api/puzzles, /api/puzzles/NAME, /api/puzzles/NAME/positions/STATE,
    /// described at /api/openapi.json. Answers carry an ETag (304 on If-None-Match) and
    /// may be cached for five minutes.
    Serve {
        #[command(flatten)]
        db: DbArg,
        /// Address to listen on; loopback only unless this says otherwise
        #[arg(long, default_value = "127.0.0.1:8080", value_name = "IP:PORT")]
        addr: std::net::SocketAddr,
        /// Seconds one search (a fifteen position) may run before it is refused (503)
        #[arg(long, default_value_t = puzzlebase::SEARCH_SECONDS, value_name = "SECONDS", value_parser = seconds)]
        search_timeout: f64,
        /// Searches running at once (default: the number of cores); more are refused at
        /// once with 503 and Retry-After
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        max_searches: Option<u32>,
        /// Which web pages may read the API from a browser: `*` (any), `off`, or
        /// origins such as https://example.org, comma-separated
        #[arg(long, default_value = "*", value_name = "ORIGINS")]
        cors: puzzlebase_cli::server::Cors,
        #[command(flatten)]
        key: KeyArgs,
    },
    /// Check a puzzle definition file and print what `generate` would build from it
    /// (family, state count, storage, an estimate of time and memory), without building.
    ///
    /// The file formats are described in docs/definitions.md (ours, and "The community's
    /// formats"); the built-in puzzles' files are in data/puzzles/.
    CheckDefinition {
        /// The definition file: TOML (ours, or one naming a cubing.js KPuzzle JSON and its
        /// generator moves), or a ksolve/twsearch .tws file
        file: PathBuf,
        /// One JSON object on one line
        #[arg(long)]
        json: bool,
    },
    /// Re-derive every stored fact from the puzzle rules and report the first that does
    /// not hold.
    ///
    /// Trusts nothing in the file but the puzzle names: distances, next moves, solution
    /// counts, state texts, packed blobs, histograms, peg layers and matrices,
    /// enumerated solutions, the summary figures and checksums are all checked. Prints
    /// one line per puzzle and exits 0 when everything holds; otherwise names the first
    /// bad entry (puzzle, rank and state, which fact) on stderr and exits 1. Progress
    /// goes to stderr as `generate`'s does.
    Verify {
        #[command(flatten)]
        db: DbArg,
        /// Verify only this puzzle (repeatable)
        #[arg(long = "puzzle", value_name = "NAME", value_parser = PuzzleName, hide_possible_values = true)]
        puzzles: Vec<String>,
        /// One JSON object per puzzle, one per line
        #[arg(long)]
        json: bool,
        /// First check the file's signature (PATH.minisig) against this minisign public
        /// key: any changed, added or removed byte is refused
        #[arg(long, value_name = "PUBLIC_KEY")]
        key: Option<PathBuf>,
        /// The signature to check with --key, instead of PATH.minisig
        #[arg(long, value_name = "FILE", requires = "key")]
        signature: Option<PathBuf>,
    },
    /// Make a key pair for signing files (`generate --sign`), in minisign's format.
    ///
    /// Writes the public key (publish it: `verify --key` and `minisign -V -p` read it)
    /// and the secret key (readable by its owner only; keep it private). The secret key
    /// is not encrypted unless PUZZLEBASE_KEY_PASSWORD is set, whose value then becomes
    /// its password (`generate --sign` reads it from there too; nothing is prompted).
    /// Existing files are never overwritten. `minisign -G` makes keys that work as well.
    Keygen {
        /// Where to write the public key (e.g. puzzlebase.pub)
        #[arg(long, value_name = "FILE")]
        public: PathBuf,
        /// Where to write the secret key (e.g. puzzlebase.key)
        #[arg(long, value_name = "FILE")]
        secret: PathBuf,
    },
    /// List the puzzles in the database with their figures.
    List {
        #[command(flatten)]
        db: DbArg,
        /// One JSON object per line
        #[arg(long)]
        json: bool,
    },
    /// Write every stored position of a puzzle with its distance, number of shortest
    /// solutions (where stored) and next position on an optimal path, in rank order, as
    /// CSV, JSON Lines or Parquet.
    ///
    /// Columns, the same in every format: rank,state,distance,solutions,next (an empty
    /// distance: the position cannot reach the goal; next: the position `query --state`
    /// shows second, empty at the goal); enumeration puzzles: rank,state,value,canonical.
    /// Packed tables are written rank by rank (eleven: 239,500,800 rows); boards stored
    /// as layers give the positions that can finish, one per symmetry class. fifteen has
    /// no table of positions (it is answered by search).
    ///
    /// The puzzle is checked whole (its rows against its checksum) before the first row:
    /// a damaged puzzle writes nothing and exits 1. With --output the rows go to a
    /// temporary file beside FILE, renamed to FILE at the end (removed on failure).
    /// Progress is shown on stderr for long exports.
    Export {
        #[command(flatten)]
        db: DbArg,
        /// Puzzle name (see `puzzlebase list`)
        #[arg(long, value_name = "NAME", value_parser = PuzzleName, hide_possible_values = true)]
        puzzle: String,
        /// Output format: csv, jsonl (one JSON object per line) or parquet (typed
        /// columns, the puzzle's definition and checksum in the file's metadata)
        #[arg(long, default_value = "csv", value_parser = ["csv", "jsonl", "parquet"])]
        format: String,
        /// Write to FILE instead of standard output (atomically: a temporary file
        /// renamed at the end)
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
        /// No progress on stderr
        #[arg(long, short)]
        quiet: bool,
    },
    /// Print a shell completion script on standard output.
    ///
    /// bash: `puzzlebase completions bash > ~/.local/share/bash-completion/completions/puzzlebase`;
    /// zsh: `puzzlebase completions zsh > ~/.zfunc/_puzzlebase` (with ~/.zfunc in fpath);
    /// fish: `puzzlebase completions fish > ~/.config/fish/completions/puzzlebase.fish`.
    Completions {
        /// The shell
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) on standard output, or write one page per command
    /// into a directory.
    ///
    /// `puzzlebase man | man -l -` reads it; `puzzlebase man --dir ~/.local/share/man/man1`
    /// installs puzzlebase.1 and puzzlebase-COMMAND.1 for `man puzzlebase`.
    Man {
        /// Write puzzlebase.1 and one page per command here instead
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["state", "start", "random", "scramble", "longest", "histogram", "matrix", "layers", "all", "sum"])))]
#[command(group(clap::ArgGroup::new("drawn").args(["random", "scramble"])))]
pub(crate) struct QueryArgs {
    #[command(flatten)]
    pub(crate) db: DbArg,
    /// Puzzle name (see `puzzlebase list`)
    #[arg(long, value_name = "NAME", value_parser = PuzzleName, hide_possible_values = true)]
    pub(crate) puzzle: String,
    /// Distance, number of shortest solutions and one optimal path from this position
    #[arg(long, value_name = "STATE", allow_hyphen_values = true)]
    pub(crate) state: Option<String>,
    /// The same for the puzzle's starting position
    #[arg(long)]
    pub(crate) start: bool,
    /// The same for a position drawn uniformly from those that can reach the goal
    /// (move puzzles and fifteen); the answer shows its seed
    #[arg(long)]
    pub(crate) random: bool,
    /// The same for the goal scrambled by N random moves (it may end closer than N)
    #[arg(long, value_name = "N")]
    pub(crate) scramble: Option<u32>,
    /// Seed of --random or --scramble: the same seed draws the same position
    #[arg(long, value_name = "N", requires = "drawn")]
    pub(crate) seed: Option<u64>,
    /// The maximum distance and every position at it
    #[arg(long)]
    pub(crate) longest: bool,
    /// How many positions lie at each distance (magic triangle: solutions per side sum)
    #[arg(long)]
    pub(crate) histogram: bool,
    /// Peg boards: minimum moves from every single-vacancy start to every single-peg finish
    #[arg(long)]
    pub(crate) matrix: bool,
    /// Peg boards: positions reachable from the start and able to finish, per peg count
    #[arg(long)]
    pub(crate) layers: bool,
    /// Every solution of an enumeration puzzle, one per equivalence class
    #[arg(long)]
    pub(crate) all: bool,
    /// The magic triangles whose sides sum to N, one per equivalence class
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) sum: Option<i64>,
    /// Print one JSON object on one line
    #[arg(long)]
    pub(crate) json: bool,
    /// Positions as one-line strings only, without drawn boards or bars
    #[arg(long, conflicts_with = "json")]
    pub(crate) plain: bool,
    /// Seconds a search (fifteen) may run before it gives up (exit 1)
    #[arg(long, default_value_t = puzzlebase::SEARCH_SECONDS, value_name = "SECONDS", value_parser = seconds)]
    pub(crate) timeout: f64,
    #[command(flatten)]
    pub(crate) key: KeyArgs,
}

/// `--puzzle NAME`: any name (a user's puzzle is found in the file), with the built-in
/// puzzles' names as its possible values, which the shell completions offer
/// (`completions bash`) and help leaves out (there are too many to list there).
#[derive(Clone)]
pub(crate) struct PuzzleName;

impl clap::builder::TypedValueParser for PuzzleName {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let names = puzzlebase::puzzle_names();
        Some(Box::new(
            names.into_iter().map(clap::builder::PossibleValue::new),
        ))
    }
}

/// A value of `--timeout` or `--search-timeout` that [`seconds`] refuses.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not a number of seconds (more than 0, at most 1e6)")]
pub(crate) struct NotSeconds(String);

/// A positive, finite number of seconds.
pub(crate) fn seconds(text: &str) -> Result<f64, NotSeconds> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 1e6 => Ok(s),
        _ => Err(NotSeconds(text.to_string())),
    }
}
