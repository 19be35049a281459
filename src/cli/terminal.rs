//! What `generate` and `verify` show: a line per puzzle, progress bars with the time left
//! on a terminal (plain progress lines in a log), and warnings, through the library's
//! [`Observer`] and [`Progress`].

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use puzzlebase::{Checked, Observer, Progress, Report, Silent, Summary, json, text};

use crate::one_line;

/// Draws a bar per phase on stderr when it is a terminal, or writes a progress line at
/// most every [`log_every`] when it is not; prints the summary lines (one JSON object
/// each with `json`).
pub(crate) struct Terminal {
    pub(crate) quiet: bool,
    pub(crate) json: bool,
}

/// The environment variable that sets how often, in seconds, a log gets a progress line.
const LOG_EVERY_VAR: &str = "PUZZLEBASE_PROGRESS_SECONDS";

/// How long a phase runs between two progress lines in a log (stderr not a terminal):
/// [`LOG_EVERY_VAR`] seconds, 60 when unset or not a number. Short phases write nothing,
/// so a nightly log gets lines only from the searches that take minutes.
fn log_every() -> Duration {
    std::env::var(LOG_EVERY_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map_or(Duration::from_secs(60), Duration::from_secs_f64)
}

pub(crate) struct Bar {
    puzzle: String,
    bar: Mutex<Option<Phase>>,
    /// `Some` when stderr is not a terminal: progress goes to plain lines, at most one
    /// per this long.
    log_every: Option<Duration>,
}

/// The phase under way: its bar (drawn on a terminal; in a log it only keeps the count
/// and the estimate) and when it last wrote a line to the log, if it did.
struct Phase {
    bar: ProgressBar,
    last_line: Option<Instant>,
}

/// When [`Bar::log_line`] is asked for a line.
#[derive(Clone, Copy, PartialEq)]
enum Moment {
    /// Work was done: a progress line, if its time has come.
    Running,
    /// The next phase began, so this one is done.
    Replaced,
    /// The bar went away: the puzzle is done, or the run failed or stopped on the way.
    Dropped,
}

impl Bar {
    /// In a log, a progress line for `phase` if the interval has passed since its last
    /// line (or its start); at its end a closing line instead, written only if the phase
    /// wrote a line or ran at least that long.
    fn log_line(&self, phase: &mut Phase, moment: Moment) {
        let Some(every) = self.log_every else { return };
        let bar = &phase.bar;
        let since = phase.last_line.map_or(bar.elapsed(), |t| t.elapsed());
        // (Asked before anything else: this runs at every `advance`.)
        if since < every && (moment == Moment::Running || phase.last_line.is_none()) {
            return;
        }
        let (name, total) = (bar.message(), bar.length().unwrap_or(0));
        let done = shown(bar.position(), total);
        let line = if moment == Moment::Running {
            if total > 0 {
                let pct = (done as f64 * 100.0 / total as f64).min(100.0);
                format!(
                    "{name} {pct:.0}% ({done} of {total}), {} so far, {}",
                    clock(bar.elapsed()),
                    time_left(done, total, bar.elapsed())
                )
            } else {
                format!("{name} {done} so far, {}", clock(bar.elapsed()))
            }
        } else {
            format!("{name} {} {}", closing(done, total), clock(bar.elapsed()))
        };
        phase.last_line = Some(Instant::now());
        eprintln!("puzzlebase: {}: {}", self.puzzle, line);
    }
}

/// The words that close a phase in a log: "done in" when it reached its total (or never
/// knew one), "ended after" when it stopped short of it, whether the next phase began or
/// the bar went away: a run that failed (its error comes next), or a phase whose count
/// of its work was wrong, which is not to be called done.
fn closing(done: u64, total: u64) -> &'static str {
    if done < total {
        "ended after"
    } else {
        "done in"
    }
}

/// The units of a phase shown as done: at most its total (a search may count a rare
/// rank twice, two threads claiming it at once).
fn shown(done: u64, total: u64) -> u64 {
    if total > 0 { done.min(total) } else { done }
}

/// The share of a phase done before its rate counts as measured: until then an
/// estimate could be any multiple of the time so far (a search's first levels are tiny,
/// its middle ones most of the work), and none is shown. From it on, the time left is at
/// most 19 times the time so far.
const MEASURED_FROM: f64 = 0.05;

/// The time a phase needs before its rate counts as measured, whatever its share done.
const MEASURED_AFTER: Duration = Duration::from_secs(2);

/// "about 2m03s left" at the rate measured over the phase (`done` of `total` units in
/// `elapsed`), or "estimating..." before that rate is known ([`MEASURED_FROM`]).
fn time_left(done: u64, total: u64, elapsed: Duration) -> String {
    if total > 0 && done >= total {
        return "finishing".to_string();
    }
    let share = if total == 0 {
        0.0
    } else {
        done as f64 / total as f64
    };
    if share < MEASURED_FROM || elapsed < MEASURED_AFTER {
        return "estimating...".to_string();
    }
    let left = elapsed.as_secs_f64() * (total - done) as f64 / done as f64;
    format!("about {} left", clock(Duration::from_secs_f64(left)))
}

/// `1h02m03s`, `2m03s` or `3.4s`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{:.1}s", d.as_secs_f64()),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60),
    }
}

impl Progress for Bar {
    fn phase(&self, name: &str, total: u64) {
        let mut slot = self.bar.lock().unwrap();
        if let Some(mut old) = slot.take() {
            self.log_line(&mut old, Moment::Replaced);
            old.bar.finish_and_clear();
        }
        let target = match self.log_every {
            Some(_) => ProgressDrawTarget::hidden(),
            None => ProgressDrawTarget::stderr(),
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        // A phase of one unit (compacting, checking the file) has no share to show, only
        // that it runs and for how long.
        let style = if total <= 1 {
            ProgressStyle::with_template("{prefix:>16} {msg:<18} {spinner} {elapsed}").unwrap()
        } else {
            ProgressStyle::with_template(
                "{prefix:>16} {msg:<18} [{bar:30}] {percent:>3}% {elapsed} ({left})",
            )
            .unwrap()
            .progress_chars("=> ")
            .with_key("left", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&time_left(s.pos(), s.len().unwrap_or(0), s.elapsed()));
            })
        };
        bar.set_style(style);
        bar.set_prefix(self.puzzle.clone());
        bar.set_message(name.to_string());
        if self.log_every.is_none() {
            bar.enable_steady_tick(Duration::from_millis(200));
        }
        *slot = Some(Phase {
            bar,
            last_line: None,
        });
    }

    fn advance(&self, n: u64) {
        if let Some(phase) = self.bar.lock().unwrap().as_mut() {
            let bar = &phase.bar;
            bar.set_position(shown(bar.position() + n, bar.length().unwrap_or(0)));
            self.log_line(phase, Moment::Running);
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        if let Some(mut phase) = self.bar.lock().unwrap().take() {
            self.log_line(&mut phase, Moment::Dropped);
            phase.bar.finish_and_clear();
        }
    }
}

impl Terminal {
    /// The closing line of a `generate` that wrote or kept `db`: the file, its size, the
    /// puzzles built and reused, and the whole run's time (not with `--quiet`; `--json`
    /// has each puzzle's line and no closing one).
    pub(crate) fn closing(&self, db: &std::path::Path, summaries: &[Summary], took: Duration) {
        if self.quiet || self.json {
            return;
        }
        let built = summaries.iter().filter(|s| !s.reused).count();
        let size = std::fs::metadata(db).map_or("size unknown".to_string(), |m| bytes(m.len()));
        let _ = writeln!(
            std::io::stdout(),
            "{}: {size}, {} puzzles ({built} built, {} reused) in {}",
            db.display(),
            summaries.len(),
            summaries.len() - built,
            clock(took)
        );
    }
}

/// `1.6 GB`, `12.3 MB`, `4.1 kB` or `512 bytes` (decimal units, as `du --si` and the
/// README's figures).
fn bytes(n: u64) -> String {
    match n {
        0..1_000 => format!("{n} bytes"),
        1_000..1_000_000 => format!("{:.1} kB", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}

impl Observer for Terminal {
    fn progress(&self, puzzle: &str) -> Box<dyn Progress + '_> {
        if self.quiet || self.json {
            return Box::new(Silent);
        }
        Box::new(Bar {
            puzzle: puzzle.to_string(),
            bar: Mutex::new(None),
            log_every: (!std::io::stderr().is_terminal()).then(log_every),
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

    fn unsigned(&self, signature: &std::path::Path) {
        self.warn(&format!(
            "removed {}: it signed the previous file; sign the new one with `generate --sign KEY`",
            signature.display()
        ));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_estimate_before_the_rate_is_measured_and_none_past_a_multiple_after() {
        let secs = Duration::from_secs;
        assert_eq!(time_left(0, 100, secs(5)), "estimating...");
        assert_eq!(time_left(4, 100, secs(60)), "estimating...");
        assert_eq!(time_left(50, 100, secs(1)), "estimating...");
        assert_eq!(time_left(50, 100, secs(10)), "about 10.0s left");
        assert_eq!(time_left(100, 100, secs(10)), "finishing");
        assert_eq!(bytes(1_600_000_000), "1.6 GB");
        assert_eq!(bytes(999), "999 bytes");
        assert_eq!(time_left(120, 100, secs(10)), "finishing");
        // From the measured share on, at most 19 times the time so far.
        for done in 5..100 {
            let left = time_left(done, 100, secs(2));
            let s: f64 = left
                .trim_start_matches("about ")
                .trim_end_matches(" left")
                .trim_end_matches('s')
                .parse()
                .unwrap_or(1000.0);
            assert!(s <= 38.0, "{done}: {left}");
        }
    }

    /// A phase is called done only when it reached its total, however it ended; a count
    /// past the total (a rank claimed twice) shows as the total.
    #[test]
    fn a_phase_short_of_its_total_is_not_called_done() {
        assert_eq!(closing(100, 100), "done in");
        assert_eq!(closing(0, 0), "done in");
        assert_eq!(closing(34, 100), "ended after");
        assert_eq!(closing(99, 100), "ended after");
        assert_eq!(shown(101, 100), 100);
        assert_eq!(shown(7, 0), 7);
        assert_eq!(shown(34, 100), 34);
    }
}
