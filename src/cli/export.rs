//! `export`: the puzzle checked whole, then its rows streamed in the format asked for,
//! onto standard output (a reader that goes away, `| head`, ends it quietly with exit
//! 0) or into a temporary file beside `--output`, renamed to it once complete (removed
//! on failure or interruption, so nothing half-written is left under the name).

use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use puzzlebase::{Database, ExportFormat, Observer};

use crate::cli::terminal::Terminal;
use crate::{Failure, failure, on_interrupt};

/// Rows between two progress updates.
const PROGRESS_ROWS: u64 = 1 << 16;

pub(crate) fn run(
    db: PathBuf,
    puzzle: &str,
    format: &str,
    output: Option<PathBuf>,
    quiet: bool,
) -> Result<(), Failure> {
    let format =
        ExportFormat::parse(format).ok_or_else(|| failure(format!("unknown format {format}")))?;
    let db = Database::open(&db)?;
    let terminal = Terminal { quiet, json: false };
    let progress = terminal.progress(puzzle);
    progress.phase("checking", 0);
    let plan = db.export_plan(puzzle)?;
    // The file is made only once the puzzle has passed its check.
    let temp = match &output {
        Some(path) => Some(Temporary::beside(path)?),
        None => None,
    };
    let out: Box<dyn Write + Send> = match &temp {
        Some(t) => Box::new(t.file.as_file().try_clone()?),
        None => Box::new(std::io::stdout()),
    };
    let mut w = format.writer(&plan, out)?;
    progress.phase("exporting", plan.rows);
    let (mut rows, mut closed) = (0u64, false);
    let result = db.export(puzzle, &mut |row| {
        rows += 1;
        if rows % PROGRESS_ROWS == 0 {
            progress.advance(PROGRESS_ROWS);
        }
        w.write(&row)
            .inspect_err(|e| closed = e.kind() == ErrorKind::BrokenPipe)
    });
    let finished = match result {
        Ok(()) => w.finish(),
        Err(e) => {
            drop(w);
            drop(progress);
            // A reader that stopped early (`| head`) is not a failure.
            return if closed && temp.is_none() {
                Ok(())
            } else {
                Err(e.into())
            };
        }
    };
    progress.advance(rows % PROGRESS_ROWS);
    drop(progress);
    match (finished, temp) {
        (Err(e), None) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        (Err(e), _) => Err(failure(format!("writing the export: {e}"))),
        (Ok(()), None) => Ok(()),
        (Ok(()), Some(t)) => t.keep(output.as_deref().expect("a temporary for --output")),
    }
}

/// The temporary file `--output` is written into, in the same directory (so that the
/// rename is atomic). Dropped unkept, it is removed; on Ctrl-C or SIGTERM too.
struct Temporary {
    file: tempfile::NamedTempFile,
    path: Arc<Mutex<Option<PathBuf>>>,
}

impl Temporary {
    fn beside(path: &Path) -> Result<Temporary, Failure> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let prefix = format!(".{}.", name.unwrap_or_default());
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".part");
        // An export is a file like any other (0666 less the umask), not a private
        // temporary (0600).
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let file = builder
            .tempfile_in(dir)
            .map_err(|e| failure(format!("{}: {e}", path.display())))?;
        let shared = Arc::new(Mutex::new(Some(file.path().to_path_buf())));
        let on_signal = shared.clone();
        on_interrupt(move || {
            if let Some(p) = on_signal.lock().unwrap().take() {
                let _ = std::fs::remove_file(&p);
            }
            "interrupted; the export's temporary file was removed".to_string()
        });
        Ok(Temporary { file, path: shared })
    }

    /// Flushes the file to disk and renames it to `path`.
    fn keep(self, path: &Path) -> Result<(), Failure> {
        let bad = |e: std::io::Error| failure(format!("{}: {e}", path.display()));
        self.file.as_file().sync_all().map_err(bad)?;
        let mut held = self.path.lock().unwrap();
        self.file.persist(path).map_err(|e| bad(e.error))?;
        *held = None;
        Ok(())
    }
}
