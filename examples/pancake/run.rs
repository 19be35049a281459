//! What the example program does with the pancake family, through puzzlebase's public
//! API alone: a definition made in code, the file generated, questions answered, the
//! file verified. The integration test `external` runs it too.

use std::error::Error;
use std::io::Write;
use std::path::Path;

use puzzlebase::{Database, Definition, Histogram, Observer, Options, Solutions, Summary};

/// Reports each puzzle as `generate` finishes it.
struct Lines<'a>(std::sync::Mutex<&'a mut (dyn Write + Send)>);

impl Observer for Lines<'_> {
    fn done(&self, s: &Summary) {
        let mut out = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // A failed write to the report is no reason to stop the run.
        let _ = writeln!(
            out,
            "{} {}: {} positions, {} solvable, max distance {:?}",
            if s.reused {
                "carried over"
            } else {
                "generated"
            },
            s.name,
            s.states,
            s.solvable,
            s.max_distance
        );
    }
}

/// The definition of the puzzle `pancakes-N`, as a definition file would give it.
pub fn definition_text(pancakes: usize) -> String {
    format!("name = \"pancakes-{pancakes}\"\nfamily = \"pancake\"\npancakes = {pancakes}\n")
}

/// Generates `db` holding the stack of `pancakes` (a file there already keeps its other
/// puzzles), then answers from it and verifies it, writing what it finds to `out`. The
/// pancake family must be registered first.
pub fn run(db: &Path, pancakes: usize, out: &mut (dyn Write + Send)) -> Result<(), Box<dyn Error>> {
    let name = format!("pancakes-{pancakes}");
    let definition = Definition::from_toml(&format!("{name}.toml"), &definition_text(pancakes))?;
    // Only this puzzle is built; one already in the file is carried over when current.
    let opts = Options {
        db: db.to_path_buf(),
        only: vec![name.clone()],
        force: false,
    };
    let observer = Lines(std::sync::Mutex::new(&mut *out));
    puzzlebase::generate_definitions(&opts, vec![definition], true, &observer)?;

    let database = Database::open(db)?;
    if let Histogram::ByDistance(rows) = database.histogram(&name)? {
        for row in rows {
            writeln!(
                out,
                "{name}: {} stacks {} flips from sorted",
                row.positions, row.distance
            )?;
        }
    }
    let longest = database.longest(&name)?;
    writeln!(
        out,
        "{name}: the longest, {} flips: {}",
        longest.distance,
        longest.states.join(" ")
    )?;
    let hardest = &longest.states[0];
    let answer = database.state(&name, hardest)?;
    let ways = match answer.solutions {
        Solutions::Exactly(n) => n.to_string(),
        _ => "uncounted".to_string(),
    };
    writeln!(
        out,
        "{name}: {hardest} is {} flips from sorted, in {ways} ways, one: {}",
        answer.distance,
        answer.path.join(" -> ")
    )?;

    for report in puzzlebase::verify_file(db, &[name], &mut |_| {})? {
        writeln!(
            out,
            "verified {}: {} positions, max distance {:?}",
            report.puzzle, report.solvable, report.max_distance
        )?;
    }
    Ok(())
}
