//! A puzzle family defined outside puzzlebase: pancake flipping (`pancake.rs`), through
//! the library's public API. The program registers the family, generates a file holding
//! one stack, answers from it and verifies it (`run.rs`):
//!
//! ```sh
//! cargo run --release --example pancake -- 7 pancakes.sqlite
//! ```
//!
//! The `puzzlebase` command does not know the family: `puzzlebase query --db
//! pancakes.sqlite --puzzle pancakes-7 --start` refuses with one line naming it, while
//! plain SQL still reads the rows (`SELECT distance FROM positions WHERE puzzle =
//! 'pancakes-7' AND state = '4627513'`). See docs/library.md.

mod pancake;
mod run;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let pancakes: usize = match args.next().map(|a| a.parse()) {
        None => 7,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!(
                "usage: pancake [PANCAKES (2 to 9, default 7)] [DB (default pancakes.sqlite)]"
            );
            return ExitCode::from(2);
        }
    };
    let db = args
        .next()
        .map_or_else(|| PathBuf::from("pancakes.sqlite"), PathBuf::from);
    if let Err(e) = puzzlebase::register_family(pancake::FAMILY) {
        eprintln!("pancake: {e}");
        return ExitCode::FAILURE;
    }
    match run::run(&db, pancakes, &mut std::io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pancake: {e}");
            ExitCode::FAILURE
        }
    }
}
