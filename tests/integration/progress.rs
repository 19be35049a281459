//! Every phase of `generate` and `verify` ends at its total: the work a phase announces
//! is the work it reports done, so no bar stops short and jumps (or is closed "ended
//! after") on a run that succeeded. Recorded through the library's observer, phase by
//! phase, for a puzzle of each solver and storage.

use std::sync::Mutex;

use puzzlebase::Progress;
use puzzlebase::{Definition, Observer, Options, Summary};

use crate::util::fixtures;

/// One phase as reported: the puzzle, its name, its total and the units reported done.
#[derive(Debug, Clone)]
struct Phase {
    puzzle: String,
    name: String,
    total: u64,
    done: u64,
}

/// Keeps every phase of every puzzle.
#[derive(Default)]
struct Recorder(Mutex<Vec<Phase>>);

struct Sink<'a> {
    puzzle: String,
    phases: &'a Mutex<Vec<Phase>>,
}

impl Progress for Sink<'_> {
    fn phase(&self, name: &str, total: u64) {
        self.phases.lock().unwrap().push(Phase {
            puzzle: self.puzzle.clone(),
            name: name.to_string(),
            total,
            done: 0,
        });
    }
    fn advance(&self, n: u64) {
        let mut phases = self.phases.lock().unwrap();
        let phase = (phases.iter_mut().rev())
            .find(|p| p.puzzle == self.puzzle)
            .expect("work is reported within a phase");
        phase.done += n;
    }
}

impl Observer for Recorder {
    fn progress(&self, puzzle: &str) -> Box<dyn Progress + '_> {
        Box::new(Sink {
            puzzle: puzzle.to_string(),
            phases: &self.0,
        })
    }
    fn done(&self, _: &Summary) {}
}

/// Generates and verifies `only` (the built-in puzzles, the fixtures and `defs`),
/// returning every phase, after checking that each ended at its total. A total of 0 is
/// a phase that does not know its work: it may report none.
fn phases_of(only: &[&str], defs: &[(&str, &str)]) -> Vec<Phase> {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options {
        db: dir.path().join("p.sqlite"),
        only: only.iter().map(|s| s.to_string()).collect(),
        force: false,
    };
    let mut extra = fixtures();
    let defs_dir = dir.path().join("definitions");
    std::fs::create_dir(&defs_dir).unwrap();
    for (name, toml) in defs {
        std::fs::write(defs_dir.join(format!("{name}.toml")), toml).unwrap();
    }
    extra.extend(Definition::read_dir(&defs_dir).expect("the definitions load"));
    let recorder = Recorder::default();
    puzzlebase::generate_job(&opts, crate::util::job(extra, true), &recorder).expect("generate");
    let phases = recorder.0.into_inner().unwrap();
    for only in only {
        assert!(
            phases.iter().any(|p| p.puzzle == *only),
            "{only}: {phases:#?}"
        );
    }
    // A push's rare double claims (two threads claiming one rank at once, recounted by the
    // next level's scan) may report a rank twice: a phase may pass its total by those
    // (the terminal shows no more than the total), never fall short of it.
    let short: Vec<&Phase> = (phases.iter())
        .filter(|p| p.total > 0 && (p.done < p.total || p.done > p.total + p.total / 1000))
        .collect();
    assert!(
        short.is_empty(),
        "phases not ending at their totals: {short:#?}"
    );
    phases
}

#[test]
fn every_phase_of_generate_and_verify_ends_at_its_total() {
    // Rows, packed, peg solitaire, a magic shape, a tour, two-bit codes by residue
    // (a tower: not bipartite) and by parity with unreachable ranks (a grid of tiles:
    // half the ranks are of the other parity), a bound past a byte.
    let defs = [
        (
            "tower-two-bit",
            "name = \"tower-two-bit\"\nfamily = \"hanoi\"\npegs = 3\ndiscs = 7\nstorage = \"two-bit\"\n",
        ),
        (
            "tiles-two-bit",
            "name = \"tiles-two-bit\"\nfamily = \"sliding\"\nrows = 2\ncols = 4\nstorage = \"two-bit\"\n",
        ),
    ];
    let phases = phases_of(
        &[
            "six",
            "eight-packed",
            "hoppers",
            "magic-triangle",
            "knight-tour",
            "lights-out-3",
            "tiles8",
            "tower-two-bit",
            "tiles-two-bit",
        ],
        &defs,
    );
    for name in ["distances (two bits, mod 3)", "distances (two bits, mod 4)"] {
        assert!(phases.iter().any(|p| p.name == name), "{name}: {phases:#?}");
    }
}

/// `fifteen`'s pattern searches (and their checks) end at the states they settle, with
/// the other large searches: minutes, so run by `.ci/run`.
#[test]
#[ignore]
fn the_pattern_searches_end_at_their_totals() {
    let phases = phases_of(&["fifteen", "lights-out-5", "pancake-9"], &[]);
    let searches: Vec<&Phase> = (phases.iter())
        .filter(|p| p.puzzle == "fifteen" && p.name == "distances")
        .collect();
    assert_eq!(searches.len(), 3, "{phases:#?}");
}
