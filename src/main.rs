//! The `puzzlebase` command: a thin layer over the library that parses arguments, draws
//! progress and prints answers as text or one-line JSON.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use puzzlebase::VerifyError;
use puzzlebase::distributed;
use puzzlebase::json;
use puzzlebase::signature::{self, SignatureError, SigningKey};
use puzzlebase::text;
use puzzlebase::{Database, QueryError, Stop, one_line};
use puzzlebase::{Definition, DefinitionError};
use puzzlebase::{GenerateError, Job, Observer, Options};
use puzzlebase_cli::hints;
use puzzlebase_cli::server::{self, ServeOptions};

mod cli;
use cli::args::*;
use cli::terminal::*;

/// A failure, and whether it was the user's input (exit code 2) or not (exit code 1).
struct Failure {
    usage: bool,
    message: String,
}

impl From<QueryError> for Failure {
    fn from(e: QueryError) -> Self {
        Failure {
            usage: e.is_usage(),
            message: hints::query(&e),
        }
    }
}

impl From<GenerateError> for Failure {
    fn from(e: GenerateError) -> Self {
        let usage = matches!(
            e,
            GenerateError::UnknownPuzzle(_) | GenerateError::Partition(_)
        );
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
        message += &hints::generate(&e).unwrap_or_default();
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
            message: hints::verify(&e),
        }
    }
}

impl From<SignatureError> for Failure {
    fn from(e: SignatureError) -> Self {
        Failure {
            usage: false,
            message: hints::signature(&e),
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
    use clap::FromArgMatches;
    use clap::error::ErrorKind;
    // The notation of every puzzle is built only where it may be shown.
    let notation = std::env::args()
        .skip(1)
        .any(|a| a == "--help" || a == "help");
    let e = match command(notation)
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
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
        Command::Export {
            db,
            puzzle,
            format,
            output,
            quiet,
        } => cli::export::run(db.db, &puzzle, &format, output, quiet),
        Command::Completions { shell } => {
            let mut cmd = command(false);
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
            key,
        } => {
            let mut opts = ServeOptions {
                search_timeout: Duration::from_secs_f64(search_timeout),
                cors,
                key: key.pair(),
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

/// On Ctrl-C, SIGTERM or SIGHUP: the line `say` makes (after what is to be undone is
/// undone) on stderr, then exit 130, what a shell reports for a Ctrl-C.
fn on_interrupt(say: impl Fn() -> String + Send + 'static) {
    let _ = ctrlc::set_handler(move || {
        let message = say();
        // Held until the process ends: a progress line another thread starts after this
        // one would otherwise be cut off by the exit and be the log's last line.
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "puzzlebase: {message}");
        std::process::exit(130);
    });
}

fn run_generate(g: GenerateArgs) -> Result<(), Failure> {
    // Ctrl-C, SIGTERM or SIGHUP: no destructor runs, so the temporary file is removed
    // here; the previous file was never touched.
    on_interrupt(|| {
        let removed = puzzlebase::remove_temporaries();
        format!("interrupted; {removed} temporary file(s) removed, the previous file is as it was")
    });
    let launched = launched_processes();
    #[cfg(feature = "mpi")]
    if launched.is_some() {
        let Some(mpi) = distributed::Mpi::init() else {
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
        return in_processes(g, &distributed::Solo, checkpoints);
    }
    let log = g.exchange_log.is_some();
    if log {
        return Err(Failure {
            usage: true,
            message: "--exchange-log needs --checkpoints, --resume or mpirun (one machine's search exchanges nothing)".into(),
        });
    }
    let started = Instant::now();
    let (opts, definitions, key) = generate_inputs(&g)?;
    let terminal = Terminal {
        quiet: g.quiet,
        json: g.json,
    };
    let job = Job {
        partitions: g.partitions.clone(),
        definitions,
        verify: g.verify,
        sign: key.as_ref(),
        processes: None,
    };
    let summaries = puzzlebase::generate_job(&opts, job, &terminal)?;
    terminal.closing(&opts.db, &summaries, started.elapsed());
    Ok(())
}

/// The options, the users' puzzles and the signing key (`--sign`): the key is loaded and
/// every user file is checked before the database is touched (the partitions that
/// `--partition` names are checked by the run before it touches anything).
fn generate_inputs(
    g: &GenerateArgs,
) -> Result<(Options, Vec<Definition>, Option<SigningKey>), Failure> {
    let key = match &g.sign {
        Some(path) => Some(signature::load_secret_key(
            path,
            signature::password_from_env()?,
        )?),
        None => None,
    };
    let definitions = match &g.definitions {
        Some(dir) => Definition::read_dir(dir)?,
        None => Vec::new(),
    };
    // The user's data directory is made on the first build into it.
    if Some(&g.db.db) == user_db().as_ref()
        && let Some(dir) = g.db.db.parent()
    {
        std::fs::create_dir_all(dir).map_err(|e| failure(format!("{}: {e}", dir.display())))?;
    }
    let opts = Options {
        db: g.db.db.clone(),
        only: g.puzzles.clone(),
        force: g.force,
    };
    Ok((opts, definitions, key))
}

fn checkpoints_of(g: &GenerateArgs) -> distributed::Checkpoints {
    let dir = g.checkpoints.clone().unwrap_or_else(|| {
        let mut name = g.db.db.clone().into_os_string();
        name.push(".checkpoints");
        PathBuf::from(name)
    });
    distributed::Checkpoints {
        dir,
        resume: g.resume,
    }
}

/// `generate` on every process of `comm`: process 0 builds the file, the others solve
/// their shares of its breadth-first searches.
fn in_processes(
    g: GenerateArgs,
    comm: &dyn distributed::Comm,
    checkpoints: Option<distributed::Checkpoints>,
) -> Result<(), Failure> {
    if comm.rank() != 0 {
        return distributed::work(comm, checkpoints)
            .map(|_| ())
            .map_err(|e| failure(e.to_string()));
    }
    let backend = distributed::Processes::new(comm, checkpoints, g.exchange_log.as_deref())
        .map_err(|e| failure(format!("--exchange-log: {e}")))?;
    let result = generate_inputs(&g).and_then(|(opts, definitions, key)| {
        let observer = Terminal {
            quiet: g.quiet,
            json: g.json,
        };
        let job = Job {
            partitions: g.partitions.clone(),
            definitions,
            verify: g.verify,
            sign: key.as_ref(),
            processes: Some(&backend),
        };
        puzzlebase::generate_job(&opts, job, &observer).map_err(Failure::from)
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
    let plan = puzzlebase::check_definition(file)?;
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
    // Ctrl-C, SIGTERM or SIGHUP: said, as `generate` says it, so that a log does not end
    // at a progress line with no reason given. Nothing to undo: the file is opened
    // read-only.
    on_interrupt(|| "verify interrupted; the file was only read, nothing changed".to_string());
    // The signature first: it covers every byte, and needs no reading of the file as a
    // database. A file that is not there, or not a file, is left to the checks below to
    // name as they do without --key. Through a symbolic link, the signature is looked
    // for beside the target, where `generate --sign` writes it.
    if let Some(key) = key.filter(|_| db.is_file()) {
        let sig = signature_file.unwrap_or_else(|| signature::signature_of(&db));
        let shown = sig.display().to_string();
        match signature::verify_file(&db, &sig, &key) {
            Ok(v) => out(&if json_out {
                json::signature(&shown, &v.key_id, &v.trusted_comment).to_string()
            } else {
                text::signature(&v.key_id, &v.trusted_comment)
            })?,
            Err(e) => {
                let message = format!("verify: signature: {}", hints::signature(&e));
                if json_out {
                    out(&json::signature_failure(&shown, &message).to_string())?;
                }
                return Err(failure(message));
            }
        }
    }
    let mut printed: Result<(), Failure> = Ok(());
    // A bar per puzzle on a terminal while it is re-derived (none with --json).
    let terminal = Terminal {
        quiet: false,
        json: json_out,
    };
    let bars = |name: &str| terminal.progress(name);
    let result = puzzlebase::verify_file_with(&db, &only, &bars, &mut |r| {
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
            out(&json::verify_failure(e.puzzle(), &hints::verify(&e)).to_string())?;
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
    let db = match q.key.pair() {
        Some((key, sig)) => Database::open_signed(&q.db.db, &key, sig.as_deref())?,
        None => Database::open(&q.db.db)?,
    };
    let name = q.puzzle.as_str();
    // A drawn position is answered as --state answers it, with the seed that drew it.
    let seed = match q.seed {
        Some(seed) => seed,
        None if q.random || q.scramble.is_some() => puzzlebase::fresh_seed(),
        None => 0,
    };
    let drawn = if q.random {
        Some((
            db.random_position(name, seed)?,
            "random position".to_string(),
        ))
    } else if let Some(n) = q.scramble {
        let s = db.scrambled(name, n, seed)?;
        Some((s, format!("the goal after {n} random moves")))
    } else {
        None
    };
    let q = QueryArgs {
        state: drawn.as_ref().map(|(s, _)| s.clone()).or(q.state),
        ..q
    };
    let (mut lines, mut json) = query_answer(&db, &q)?;
    if let Some((_, what)) = &drawn {
        json["seed"] = seed.into();
        lines.insert(
            0,
            format!("drawn:     {what}, seed {seed} (the same again: --seed {seed})"),
        );
    }
    if q.json {
        return out(&json.to_string());
    }
    lines.iter().try_for_each(|l| out(l))
}

/// The answer to a query as text lines and as JSON.
fn query_answer(db: &Database, q: &QueryArgs) -> Result<(Vec<String>, serde_json::Value), Failure> {
    let name = q.puzzle.as_str();
    Ok(
        if let Some(s) = q.state.as_deref().filter(|_| db.answers_by_search(name)) {
            let stop = Stop::new(Some(Instant::now() + Duration::from_secs_f64(q.timeout)));
            let a = db.search_until(name, s, &stop)?;
            (text::search(db, &a, q.plain), json::search(&a))
        } else if q.state.is_some() || q.start {
            // A board answered by searching its cluster (Rush Hour) is bounded as
            // fifteen's search is.
            let stop = Stop::new(Some(Instant::now() + Duration::from_secs_f64(q.timeout)));
            let a = match &q.state {
                Some(s) => db.state_until(name, s, &stop)?,
                None => db.start(name)?,
            };
            (text::state(db, &a, q.plain), json::state(&a))
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
            // clap requires one question: nothing else is asked.
            (Vec::new(), serde_json::Value::Null)
        },
    )
}

fn run_serve(db: PathBuf, addr: std::net::SocketAddr, opts: ServeOptions) -> Result<(), Failure> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime
        .block_on(server::run(&db, addr, opts, |at| {
            eprintln!(
                "puzzlebase: serving {} on http://{at}/ (Ctrl-C stops)",
                db.display()
            );
        }))
        .map_err(|e| Failure {
            usage: false,
            message: e.to_string(),
        })
}

/// `man`: the page of `puzzlebase` on standard output, or every page into `dir`.
fn run_man(dir: Option<PathBuf>) -> Result<(), Failure> {
    let cmd = command(true);
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
