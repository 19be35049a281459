//! The `puzzlebase` command: a thin layer over the library that parses arguments, draws
//! progress and prints answers as text or one-line JSON.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use puzzlebase::answers::json;
use puzzlebase::answers::{Database, QueryError, Stop};
use puzzlebase::catalog::{self, DefinitionError};
use puzzlebase::core::progress::{Progress, Silent};
use puzzlebase::generate::{self, GenerateError, Observer, Options, Summary};
use puzzlebase::render::text;
use puzzlebase::server::ServeOptions;
use puzzlebase::store::signature::{self, SignatureError, SigningKey};
use puzzlebase::verify::{self, Report, VerifyError};

/// Precomputes complete solution databases for classic puzzles into one SQLite file,
/// and answers lookups from it without searching.
#[derive(Parser)]
#[command(name = "puzzlebase", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

const QUERY_EXAMPLES: &str = "\
Puzzles and notation:
  six seven eight nine     tiles in cell order, 0 = blank: 867254301 (or 8,6,7,2,5,4,3,0,1)
  eleven                   the 3x4, comma-separated: 0,3,2,1,8,7,6,5,4,11,10,9
  twelve                   the 2x6, comma-separated, like eleven
  fifteen                  the 4x4, 16 numbers: --state only, solved by IDA* over the
                           stored pattern databases (prints nodes expanded and seconds)
  knight-swap oshidori     B, W and - per square: BBB------WWW, BWBWBW--
  chinese-checkers hoppers triangle21 english33
                           1 = peg, 0 = empty, one character per hole: 1111110111111
  magic-triangle           --sum N, --all, --histogram
  knight-tour knight-tour-6x6
                           --all
  your own puzzles         built with `generate --definitions DIR`: queried by name from
                           the database alone (README, \"Adding a puzzle\")

Examples:
  puzzlebase query --puzzle eight --state 867254301
  puzzlebase query --puzzle seven --longest --json
  puzzlebase query --puzzle hoppers --start
  puzzlebase query --puzzle triangle21 --matrix
  puzzlebase query --puzzle magic-triangle --sum 20";

#[derive(Args)]
struct DbArg {
    /// Database file
    #[arg(
        long,
        env = "PUZZLEBASE_DB",
        default_value = "data/puzzles.sqlite",
        value_name = "PATH"
    )]
    db: PathBuf,
}

/// `generate`'s options.
#[derive(Args)]
struct GenerateArgs {
    #[command(flatten)]
    db: DbArg,
    /// Build only this puzzle (repeatable); others are kept from the previous file
    #[arg(long = "puzzle", value_name = "NAME")]
    puzzles: Vec<String>,
    /// Recompute even puzzles whose definition is unchanged
    #[arg(long)]
    force: bool,
    /// Print only errors
    #[arg(long, short)]
    quiet: bool,
    /// One JSON object per puzzle built or kept (and per puzzle verified), one per line,
    /// instead of the text lines; no progress bars
    #[arg(long)]
    json: bool,
    /// Also build every definition file (*.toml) in DIR; see `check-definition`
    #[arg(long, env = "PUZZLEBASE_DEFINITIONS", value_name = "DIR")]
    definitions: Option<PathBuf>,
    /// Before replacing the file, re-derive every fact in the new one (as `verify`)
    #[arg(long)]
    verify: bool,
    /// Puzzles answered by search (fifteen): build the pattern databases of this
    /// partition of the tiles (repeatable; the definition file names the partitions
    /// and the default: `check-definition data/puzzles/fifteen.toml` lists them). The
    /// choice is part of the stored definition: a later run without it rebuilds the
    /// default
    #[arg(long = "partition", value_name = "NAME")]
    partitions: Vec<String>,
    /// Continue a killed run: every breadth-first search starts from the last level its
    /// checkpoint holds (under mpirun, with the same number of processes). Implies
    /// checkpoints (docs/distributed.md)
    #[arg(long)]
    resume: bool,
    /// Checkpoint every level of the breadth-first searches into DIR (each process its
    /// own share), removed once the file is written. Under mpirun (the `mpi` build) or
    /// with --resume the default is PATH.checkpoints beside the database
    #[arg(long, value_name = "DIR")]
    checkpoints: Option<PathBuf>,
    /// Append each level's exchange figures (bytes and neighbours sent between
    /// processes, seconds) to FILE as CSV; for runs with checkpoints or under mpirun
    #[arg(long, value_name = "FILE")]
    exchange_log: Option<PathBuf>,
    /// Sign the new file with this minisign secret key: PATH.minisig is written beside
    /// it, which `minisign -Vm PATH -p KEY.pub` and `verify --key KEY.pub` check. The key
    /// is read before anything is built; an encrypted key's password comes from
    /// PUZZLEBASE_KEY_PASSWORD. When nothing needs building, the file is signed again
    /// only if its signature is missing or is not this key's
    #[arg(long, value_name = "SECRET_KEY")]
    sign: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Build every puzzle (or those named) into the database file.
    ///
    /// The file is built beside the target and renamed into place only when complete
    /// and verified; puzzles whose definition is unchanged are copied from the previous
    /// file instead of recomputed. Prints one summary line per puzzle.
    Generate(GenerateArgs),
    /// Answer from the database without searching: a position's distance and optimal
    /// path, the longest positions, histograms, peg matrices, enumerated solutions.
    #[command(after_help = QUERY_EXAMPLES)]
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
        #[arg(long, default_value_t = 10.0, value_name = "SECONDS", value_parser = seconds)]
        search_timeout: f64,
        /// Searches running at once (default: the number of cores); more are refused at
        /// once with 503 and Retry-After
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        max_searches: Option<u32>,
        /// Which web pages may read the API from a browser: `*` (any), `off`, or
        /// origins such as https://example.org, comma-separated
        #[arg(long, default_value = "*", value_name = "ORIGINS")]
        cors: puzzlebase::server::Cors,
    },
    /// Check a puzzle definition file and print what `generate` would build from it
    /// (family, state count, storage, an estimate of time and memory), without building.
    ///
    /// The file format is described in README.md, "Adding a puzzle"; the built-in
    /// puzzles' files are in data/puzzles/.
    CheckDefinition {
        /// The definition file (TOML)
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
    /// bad entry (puzzle, rank and state, which fact) on stderr and exits 1.
    Verify {
        #[command(flatten)]
        db: DbArg,
        /// Verify only this puzzle (repeatable)
        #[arg(long = "puzzle", value_name = "NAME")]
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
    /// Write every stored position of a puzzle with its distance (and number of
    /// shortest solutions where stored) as CSV on standard output, in rank order.
    ///
    /// Columns: rank,state,distance,solutions (an empty distance: the position cannot
    /// reach the goal); enumeration puzzles: rank,state,value,canonical. Packed tables
    /// are written rank by rank (eleven: 239,500,800 lines); boards stored as layers
    /// give the positions that can finish, one per symmetry class. fifteen has no table
    /// of positions (it is answered by search).
    Export {
        #[command(flatten)]
        db: DbArg,
        /// Puzzle name (see `puzzlebase list`)
        #[arg(long, value_name = "NAME")]
        puzzle: String,
        /// Output format
        #[arg(long, default_value = "csv", value_parser = ["csv"])]
        format: String,
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
#[command(group(clap::ArgGroup::new("what").required(true).args(["state", "start", "longest", "histogram", "matrix", "layers", "all", "sum"])))]
struct QueryArgs {
    #[command(flatten)]
    db: DbArg,
    /// Puzzle name (see `puzzlebase list`)
    #[arg(long, value_name = "NAME")]
    puzzle: String,
    /// Distance, number of shortest solutions and one optimal path from this position
    #[arg(long, value_name = "STATE", allow_hyphen_values = true)]
    state: Option<String>,
    /// The same for the puzzle's starting position
    #[arg(long)]
    start: bool,
    /// The maximum distance and every position at it
    #[arg(long)]
    longest: bool,
    /// How many positions lie at each distance (magic triangle: solutions per side sum)
    #[arg(long)]
    histogram: bool,
    /// Peg boards: minimum moves from every single-vacancy start to every single-peg finish
    #[arg(long)]
    matrix: bool,
    /// Peg boards: positions reachable from the start and able to finish, per peg count
    #[arg(long)]
    layers: bool,
    /// Every solution of an enumeration puzzle, one per equivalence class
    #[arg(long)]
    all: bool,
    /// The magic triangles whose sides sum to N, one per equivalence class
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    sum: Option<i64>,
    /// Print one JSON object on one line
    #[arg(long)]
    json: bool,
    /// Positions as one-line strings only, without drawn boards or bars
    #[arg(long, conflicts_with = "json")]
    plain: bool,
    /// Seconds a search (fifteen) may run before it gives up (exit 1)
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS", value_parser = seconds)]
    timeout: f64,
}

/// A positive, finite number of seconds.
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 1e6 => Ok(s),
        _ => Err(format!(
            "{text:?} is not a number of seconds (more than 0, at most 1e6)"
        )),
    }
}

/// A failure, and whether it was the user's input (exit code 2) or not (exit code 1).
struct Failure {
    usage: bool,
    message: String,
}

impl From<QueryError> for Failure {
    fn from(e: QueryError) -> Self {
        Failure {
            usage: e.is_usage(),
            message: e.to_string(),
        }
    }
}

impl From<GenerateError> for Failure {
    fn from(e: GenerateError) -> Self {
        let usage = matches!(e, GenerateError::UnknownPuzzle { .. });
        let mut message = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            // Most messages already end with their cause; say each cause once.
            let cause = s.to_string();
            if !message.contains(&cause) {
                message = format!("{message}: {cause}");
            }
            source = s.source();
        }
        Failure { usage, message }
    }
}

impl From<DefinitionError> for Failure {
    fn from(e: DefinitionError) -> Self {
        Failure {
            usage: false,
            message: e.to_string(),
        }
    }
}

impl From<VerifyError> for Failure {
    fn from(e: VerifyError) -> Self {
        Failure {
            usage: e.is_usage(),
            message: e.to_string(),
        }
    }
}

impl From<SignatureError> for Failure {
    fn from(e: SignatureError) -> Self {
        Failure {
            usage: false,
            message: e.to_string(),
        }
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure {
            usage: false,
            message: e.to_string(),
        }
    }
}

/// Longest stretch of one message printed: an argument of 100 KB is not echoed whole.
const MESSAGE_MAX: usize = 800;

/// One line, at most [`MESSAGE_MAX`] characters: the middle of a longer message (where
/// a long argument sits, between the error's start and its reason) is left out.
fn one_line(message: &str) -> String {
    let flat: String = message
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let n = flat.chars().count();
    if n <= MESSAGE_MAX {
        return flat;
    }
    let keep = MESSAGE_MAX / 2;
    let head: String = flat.chars().take(keep).collect();
    let tail: String = flat.chars().skip(n - keep).collect();
    format!(
        "{head} ... ({} characters left out) ... {tail}",
        n - 2 * keep
    )
}

/// Parses the command line. Help and version print as clap renders them; every other
/// clap error becomes one line and a hint, exit 2, like the tool's own usage errors.
/// Every subcommand, as the messages name them.
const SUBCOMMANDS: [&str; 10] = [
    "generate",
    "query",
    "list",
    "serve",
    "verify",
    "keygen",
    "check-definition",
    "export",
    "completions",
    "man",
];

fn parse() -> Result<Cli, ExitCode> {
    use clap::error::ErrorKind;
    let e = match Cli::try_parse() {
        Ok(cli) => return Ok(cli),
        Err(e) => e,
    };
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            return Err(ExitCode::SUCCESS);
        }
        _ => {}
    }
    // The first paragraph is the error itself (a list of missing arguments spans
    // several lines); usage and tips follow after a blank line.
    let rendered = e.render().to_string();
    let paragraph: Vec<&str> = (rendered.lines().map(str::trim))
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    let first = paragraph.join(" ");
    let first = first.strip_prefix("error: ").unwrap_or(&first);
    let message = match e.kind() {
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            format!("a command is required: {}", SUBCOMMANDS.join(", "))
        }
        _ if first.is_empty() => "invalid command line".to_string(),
        _ => first.to_string(),
    };
    // The subcommand named on the command line, for a hint at its own help.
    let sub = std::env::args()
        .skip(1)
        .find(|a| SUBCOMMANDS.contains(&a.as_str()));
    eprintln!("puzzlebase: {}", one_line(&message));
    eprintln!(
        "see `puzzlebase {}--help`",
        sub.map_or(String::new(), |s| format!("{s} "))
    );
    Err(ExitCode::from(2))
}

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let result = match cli.command {
        Command::Generate(g) => run_generate(g),
        Command::CheckDefinition { file, json } => run_check(&file, json),
        Command::Verify {
            db,
            puzzles,
            json,
            key,
            signature,
        } => run_verify(db.db, puzzles, json, key, signature),
        Command::Keygen { public, secret } => run_keygen(&public, &secret),
        Command::Query(q) => run_query(q),
        Command::List { db, json } => run_list(db.db, json),
        Command::Export { db, puzzle, .. } => run_export(db.db, &puzzle),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "puzzlebase", &mut std::io::stdout());
            Ok(())
        }
        Command::Man { dir } => run_man(dir),
        Command::Serve {
            db,
            addr,
            search_timeout,
            max_searches,
            cors,
        } => {
            let mut opts = ServeOptions {
                search_timeout: Duration::from_secs_f64(search_timeout),
                cors,
                ..ServeOptions::default()
            };
            if let Some(n) = max_searches {
                opts.max_searches = n as usize;
            }
            run_serve(db.db, addr, opts)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("puzzlebase: {}", one_line(&f.message));
            ExitCode::from(if f.usage { 2 } else { 1 })
        }
    }
}

/// Draws a bar per phase on stderr when it is a terminal; prints the summary lines
/// (one JSON object each with `json`).
struct Terminal {
    quiet: bool,
    json: bool,
}

struct Bar {
    puzzle: String,
    bar: std::sync::Mutex<Option<ProgressBar>>,
    quiet: bool,
}

impl Progress for Bar {
    fn phase(&self, name: &str, total: u64) {
        if self.quiet {
            return;
        }
        let mut slot = self.bar.lock().unwrap();
        if let Some(old) = slot.take() {
            old.finish_and_clear();
        }
        // indicatif draws nothing when stderr is not a terminal.
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>16} {msg:<18} [{bar:30}] {percent:>3}% {elapsed} (about {eta} left)",
            )
            .unwrap()
            .progress_chars("=> "),
        );
        bar.set_prefix(self.puzzle.clone());
        bar.set_message(name.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        *slot = Some(bar);
    }

    fn advance(&self, n: u64) {
        if let Some(bar) = self.bar.lock().unwrap().as_ref() {
            bar.inc(n);
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.lock().unwrap().take() {
            bar.finish_and_clear();
        }
    }
}

impl Observer for Terminal {
    fn progress(&self, puzzle: &str) -> Box<dyn Progress + '_> {
        if self.quiet || self.json {
            return Box::new(Silent);
        }
        Box::new(Bar {
            puzzle: puzzle.to_string(),
            bar: std::sync::Mutex::new(None),
            quiet: self.quiet,
        })
    }

    fn done(&self, s: &Summary) {
        // A closed pipe (`| head`) must not abort the run that is building the file.
        if self.json {
            let line = serde_json::json!({
                "puzzle": s.name, "states": s.states, "solvable": s.solvable,
                "max_distance": s.max_distance, "seconds": s.seconds, "reused": s.reused,
                "peak_memory_bytes": s.peak_memory,
            });
            let _ = writeln!(std::io::stdout(), "{line}");
        } else if !self.quiet {
            let _ = writeln!(std::io::stdout(), "{}", text::summary(s));
        }
    }

    fn warn(&self, message: &str) {
        eprintln!("puzzlebase: {}", one_line(message));
    }

    fn signed(&self, path: &std::path::Path, key_id: &str) {
        if self.json {
            let line =
                serde_json::json!({ "signed": path.display().to_string(), "key_id": key_id });
            let _ = writeln!(std::io::stdout(), "{line}");
        } else if !self.quiet {
            let _ = writeln!(
                std::io::stdout(),
                "signed {} with key {key_id}",
                path.display()
            );
        }
    }

    fn verified(&self, r: &Report) {
        if self.json {
            let mut v = json::verified(r);
            v["verified"] = true.into();
            let _ = writeln!(std::io::stdout(), "{v}");
        } else if !self.quiet {
            let _ = writeln!(std::io::stdout(), "verified {}", text::verified(r));
        }
    }
}

fn run_generate(g: GenerateArgs) -> Result<(), Failure> {
    // Ctrl-C, SIGTERM or SIGHUP: no destructor runs, so the temporary file is removed
    // here; the previous file was never touched.
    let _ = ctrlc::set_handler(|| {
        let removed = generate::remove_temporaries();
        eprintln!(
            "puzzlebase: interrupted; {removed} temporary file(s) removed, the previous file is as it was"
        );
        std::process::exit(130);
    });
    let launched = launched_processes();
    #[cfg(feature = "mpi")]
    if launched.is_some() {
        let Some(mpi) = puzzlebase::generate::mpi::Mpi::init() else {
            return Err(failure("MPI could not be initialised"));
        };
        let checkpoints = Some(checkpoints_of(&g));
        return in_processes(g, &mpi, checkpoints);
    }
    if let Some(n) = launched.filter(|&n| n > 1) {
        return Err(Failure {
            usage: true,
            message: format!(
                "started by an MPI launcher as one of {n} processes, but this build has no MPI: build with `cargo build --release --features mpi` (docs/distributed.md)"
            ),
        });
    }
    if g.resume || g.checkpoints.is_some() {
        let checkpoints = Some(checkpoints_of(&g));
        return in_processes(g, &puzzlebase::solvers::distributed::Solo, checkpoints);
    }
    let log = g.exchange_log.is_some();
    if log {
        return Err(Failure {
            usage: true,
            message: "--exchange-log needs --checkpoints, --resume or mpirun (one machine's search exchanges nothing)".into(),
        });
    }
    let (opts, registry, extra, key) = generate_inputs(&g)?;
    generate::generate_signed(
        &generate::backend::Local,
        &opts,
        registry,
        extra,
        g.verify,
        &Terminal {
            quiet: g.quiet,
            json: g.json,
        },
        key.as_ref(),
    )?;
    Ok(())
}

/// The options, the built-in puzzles (with `--partition`), the users' puzzles and the
/// signing key (`--sign`): the key is loaded and every user file is checked before the
/// database is touched.
#[allow(clippy::type_complexity)]
fn generate_inputs(
    g: &GenerateArgs,
) -> Result<
    (
        Options,
        Vec<puzzlebase::families::Puzzle>,
        Vec<puzzlebase::families::Puzzle>,
        Option<SigningKey>,
    ),
    Failure,
> {
    let key = match &g.sign {
        Some(path) => Some(signature::load_secret_key(
            path,
            signature::password_from_env()?,
        )?),
        None => None,
    };
    let extra = match &g.definitions {
        Some(dir) => catalog::load_dir(dir)?,
        None => Vec::new(),
    };
    let opts = Options {
        db: g.db.db.clone(),
        only: g.puzzles.clone(),
        force: g.force,
    };
    let registry = if g.partitions.is_empty() {
        catalog::registry()
    } else {
        catalog::registry_building(&g.partitions).map_err(|message| Failure {
            usage: true,
            message,
        })?
    };
    Ok((opts, registry, extra, key))
}

fn checkpoints_of(g: &GenerateArgs) -> generate::distributed::Checkpoints {
    let dir = g.checkpoints.clone().unwrap_or_else(|| {
        let mut name = g.db.db.clone().into_os_string();
        name.push(".checkpoints");
        PathBuf::from(name)
    });
    generate::distributed::Checkpoints {
        dir,
        resume: g.resume,
    }
}

/// `generate` on every process of `comm`: process 0 builds the file, the others solve
/// their shares of its breadth-first searches.
fn in_processes(
    g: GenerateArgs,
    comm: &dyn puzzlebase::solvers::distributed::Comm,
    checkpoints: Option<generate::distributed::Checkpoints>,
) -> Result<(), Failure> {
    if comm.rank() != 0 {
        return generate::distributed::work(comm, checkpoints)
            .map(|_| ())
            .map_err(failure);
    }
    let backend =
        generate::distributed::Processes::new(comm, checkpoints, g.exchange_log.as_deref())
            .map_err(|e| failure(format!("--exchange-log: {e}")))?;
    let result = generate_inputs(&g).and_then(|(opts, registry, extra, key)| {
        let observer = Terminal {
            quiet: g.quiet,
            json: g.json,
        };
        generate::generate_signed(
            &backend,
            &opts,
            registry,
            extra,
            g.verify,
            &observer,
            key.as_ref(),
        )
        .map_err(Failure::from)
    });
    backend.finish(result.is_ok());
    result.map(|_| ())
}

fn failure(message: impl Into<String>) -> Failure {
    Failure {
        usage: false,
        message: message.into(),
    }
}

/// The number of processes an MPI launcher (`mpirun`, Slurm's `srun`) started, read
/// from the variables it sets; `None` when started otherwise.
fn launched_processes() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
}

fn run_check(file: &std::path::Path, json_out: bool) -> Result<(), Failure> {
    let (_, puzzle) = catalog::check_file(file)?;
    let plan = catalog::plan::plan(&puzzle);
    let file = file.display().to_string();
    if json_out {
        return out(&json::plan(&file, &plan).to_string());
    }
    text::plan(&file, &plan).iter().try_for_each(|l| out(l))
}

fn run_verify(
    db: PathBuf,
    only: Vec<String>,
    json_out: bool,
    key: Option<PathBuf>,
    signature_file: Option<PathBuf>,
) -> Result<(), Failure> {
    // The signature first: it covers every byte, and needs no reading of the file as a
    // database. A file that is not there, or not a file, is left to the checks below to
    // name as they do without --key. Through a symbolic link, the signature is looked
    // for beside the target, where `generate --sign` writes it.
    if let Some(key) = key.filter(|_| db.is_file()) {
        let sig = signature_file.unwrap_or_else(|| {
            let target = puzzlebase::store::integrity::resolve(&db).unwrap_or(db.clone());
            signature::signature_path(&target)
        });
        let shown = sig.display().to_string();
        match signature::verify_file(&db, &sig, &key) {
            Ok(v) => out(&if json_out {
                json::signature(&shown, &v.key_id, &v.trusted_comment).to_string()
            } else {
                text::signature(&v.key_id, &v.trusted_comment)
            })?,
            Err(e) => {
                let message = format!("verify: signature: {e}");
                if json_out {
                    out(&json::signature_failure(&shown, &message).to_string())?;
                }
                return Err(failure(message));
            }
        }
    }
    let mut printed: Result<(), Failure> = Ok(());
    let result = verify::verify_file(&db, &only, &mut |r| {
        if printed.is_ok() {
            printed = out(&if json_out {
                json::verified(r).to_string()
            } else {
                text::verified(r)
            });
        }
    });
    printed?;
    match result {
        Err(e) if json_out && !e.is_usage() => {
            // The failure as a result object too, so that a JSON reader sees it.
            out(&json::verify_failure(e.puzzle(), &e.to_string()).to_string())?;
            Err(e.into())
        }
        r => r.map(|_| ()).map_err(Failure::from),
    }
}

/// `keygen`: a new key pair, encrypted when PUZZLEBASE_KEY_PASSWORD is set.
fn run_keygen(public: &std::path::Path, secret: &std::path::Path) -> Result<(), Failure> {
    let password = signature::password_from_env()?;
    let encrypted = password.is_some();
    let id = signature::generate_keypair(public, secret, password)?;
    out(&format!(
        "key {id}: public key {}, secret key {} ({})",
        public.display(),
        secret.display(),
        if encrypted {
            "encrypted with PUZZLEBASE_KEY_PASSWORD"
        } else {
            "not encrypted: keep it private"
        }
    ))?;
    out(&format!(
        "sign with `puzzlebase generate --sign {}`; check with `puzzlebase verify --key {}` or `minisign -Vm FILE -p {}`",
        secret.display(),
        public.display(),
        public.display()
    ))
}

fn out(line: &str) -> Result<(), Failure> {
    out_bytes(format!("{line}\n").as_bytes())
}

fn run_query(q: QueryArgs) -> Result<(), Failure> {
    let db = Database::open(&q.db.db)?;
    let name = q.puzzle.as_str();
    let (lines, json) = if let Some(s) = q.state.as_deref().filter(|_| db.answers_by_search(name)) {
        let stop = Stop::new(Some(Instant::now() + Duration::from_secs_f64(q.timeout)));
        let a = db.search_until(name, s, &stop)?;
        (text::search(&a), json::search(&a))
    } else if q.state.is_some() || q.start {
        let a = match &q.state {
            Some(s) => db.state(name, s)?,
            None => db.start(name)?,
        };
        (text::state(&db, &a, q.plain), json::state(&a))
    } else if q.longest {
        let a = db.longest(name)?;
        (text::longest(&a), json::longest(&a))
    } else if q.histogram {
        let h = db.histogram(name)?;
        (text::histogram(&h, q.plain), json::histogram(name, &h))
    } else if q.matrix {
        let m = db.matrix(name)?;
        (text::matrix(name, &m), json::matrix(name, &m))
    } else if q.layers {
        let rows = db.layers(name)?;
        (text::layers(&rows), json::layers(name, &rows))
    } else if q.all || q.sum.is_some() {
        let a = match q.sum {
            Some(sum) => db.sum(name, sum)?,
            None => db.all(name)?,
        };
        (text::list(&a), json::list(&a))
    } else {
        return Ok(());
    };
    if q.json {
        return out(&json.to_string());
    }
    lines.iter().try_for_each(|l| out(l))
}

fn run_serve(db: PathBuf, addr: std::net::SocketAddr, opts: ServeOptions) -> Result<(), Failure> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime
        .block_on(puzzlebase::server::run(&db, addr, opts, |at| {
            eprintln!(
                "puzzlebase: serving {} on http://{at}/ (Ctrl-C stops)",
                db.display()
            );
        }))
        .map_err(|e| Failure {
            usage: false,
            message: format!("{e:#}"),
        })
}

/// `export`: CSV on standard output, a line at a time (a closed pipe ends it quietly).
fn run_export(db: PathBuf, puzzle: &str) -> Result<(), Failure> {
    let db = Database::open(&db)?;
    let stdout = std::io::stdout().lock();
    let mut w = csv::Writer::from_writer(std::io::BufWriter::new(stdout));
    let mut header = false;
    let mut closed = false;
    let result = db.export(puzzle, &mut |row| {
        let mut write = || -> std::io::Result<()> {
            if !header {
                w.write_record(row.header())?;
                header = true;
            }
            w.write_record(row.fields())?;
            Ok(())
        };
        write().inspect_err(|e| closed = e.kind() == std::io::ErrorKind::BrokenPipe)
    });
    let flushed = w.flush();
    match result {
        // A reader that stopped early (`| head`) is not a failure.
        Err(_) if closed => Ok(()),
        Err(e) => Err(e.into()),
        Ok(()) => match flushed {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            r => Ok(r?),
        },
    }
}

/// `man`: the page of `puzzlebase` on standard output, or every page into `dir`.
fn run_man(dir: Option<PathBuf>) -> Result<(), Failure> {
    use clap::CommandFactory;
    let cmd = Cli::command();
    let Some(dir) = dir else {
        let mut out = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut out)?;
        return out_bytes(&out);
    };
    std::fs::create_dir_all(&dir)?;
    // Each page is named by its command: `puzzlebase.1`, `puzzlebase-query.1`, ...
    let write = |cmd: clap::Command| -> Result<(), Failure> {
        let path = dir.join(format!("{}.1", cmd.get_name()));
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut page)?;
        std::fs::write(&path, page).map_err(|e| failure(format!("{}: {e}", path.display())))
    };
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        // clap names commands by `&'static str`; the process writes a handful and exits.
        let name: &'static str = format!("puzzlebase-{}", sub.get_name()).leak();
        write(sub.clone().name(name))?;
    }
    write(cmd)
}

/// Writes to standard output; a reader that went away (`| head`) is not a failure.
fn out_bytes(bytes: &[u8]) -> Result<(), Failure> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

fn run_list(db: PathBuf, json_out: bool) -> Result<(), Failure> {
    let db = Database::open(&db)?;
    let infos = db.listing()?;
    if json_out {
        return infos
            .iter()
            .try_for_each(|i| out(&json::info(i).to_string()));
    }
    text::puzzles(&infos).iter().try_for_each(|l| out(l))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// The messages name exactly the subcommands clap knows.
    #[test]
    fn the_subcommand_list_is_every_subcommand() {
        let mut known: Vec<String> = (super::Cli::command().get_subcommands())
            .map(|s| s.get_name().to_string())
            .filter(|n| n != "help")
            .collect();
        let mut listed: Vec<String> = super::SUBCOMMANDS.iter().map(|s| s.to_string()).collect();
        known.sort();
        listed.sort();
        assert_eq!(known, listed);
    }
}
