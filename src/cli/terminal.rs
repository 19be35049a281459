//! What `generate` shows on a terminal: a line per puzzle, progress bars with the time
//! left, and warnings, through the library's [`Observer`] and [`Progress`].

use std::io::Write;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use puzzlebase::internals::answers::json;
use puzzlebase::internals::core::progress::{Progress, Silent};
use puzzlebase::internals::generate::{Observer, Summary};
use puzzlebase::internals::render::text;
use puzzlebase::internals::verify::{Checked, Report};

use crate::one_line;

/// Draws a bar per phase on stderr when it is a terminal; prints the summary lines
/// (one JSON object each with `json`).
pub(crate) struct Terminal {
    pub(crate) quiet: bool,
    pub(crate) json: bool,
}

pub(crate) struct Bar {
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

    fn checked(&self, c: &Checked) {
        if self.json {
            let line = serde_json::json!({
                "verify": {
                    "rederived": c.reports.iter().map(|r| r.puzzle.as_str()).collect::<Vec<_>>(),
                    "by_checksum": c.by_checksum,
                }
            });
            let _ = writeln!(std::io::stdout(), "{line}");
        } else if !self.quiet {
            let _ = writeln!(std::io::stdout(), "{}", text::verify_scope(c));
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
