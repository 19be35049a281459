//! A new user's first hour: each message that used to point the wrong way now leads to
//! the fix, and the conventions of a Rust command-line tool are there (completions, a
//! manual page, `generate --json`, CSV export).

use std::path::Path;
use std::process::Command;

use crate::flips::every_kind;
use crate::util::{assert_clean_failure, generate_example, histogram_total, run, shared_db};

/// The one line of a refused `query --db DB ARGS...`, which must exit with `code`.
fn refused(db: &str, args: &[&str], code: i32) -> String {
    let mut all = vec!["query", "--db", db];
    all.extend_from_slice(args);
    assert_clean_failure(&run(&all), code)
}

fn stdout(o: &std::process::Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The binary run in `dir` with the user's data directory at `xdg` and no
/// PUZZLEBASE_DB.
fn run_in(dir: &std::path::Path, xdg: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
        .args(args)
        .current_dir(dir)
        .env_remove("PUZZLEBASE_DB")
        .env("XDG_DATA_HOME", xdg)
        .output()
        .unwrap()
}

#[test]
fn a_missing_file_names_its_absolute_path_and_the_way_to_another() {
    // Outside a checkout the default is the user's data directory.
    let dir = tempfile::tempdir().unwrap();
    let xdg = dir.path().join("xdg");
    let o = run_in(dir.path(), &xdg, &["query", "--puzzle", "eight", "--start"]);
    let err = assert_clean_failure(&o, 1);
    let wanted = xdg.join("puzzlebase/puzzles.sqlite");
    assert!(
        err.contains(&*wanted.to_string_lossy()),
        "the absolute path: {err}"
    );
    assert!(
        err.contains("--db") && err.contains("PUZZLEBASE_DB"),
        "{err}"
    );
    // In a checkout (the definitions beside it), `data/puzzles.sqlite` there.
    std::fs::create_dir_all(dir.path().join("data/puzzles")).unwrap();
    std::fs::write(dir.path().join("data/puzzles/build-order.txt"), "").unwrap();
    let o = run_in(dir.path(), &xdg, &["query", "--puzzle", "eight", "--start"]);
    let err = assert_clean_failure(&o, 1);
    let wanted = dir
        .path()
        .canonicalize()
        .unwrap()
        .join("data/puzzles.sqlite");
    let shown = dir.path().join("data/puzzles.sqlite");
    assert!(
        err.contains(&*wanted.to_string_lossy()) || err.contains(&*shown.to_string_lossy()),
        "the absolute path: {err}"
    );
}

#[test]
fn the_default_file_is_found_from_anywhere_and_leaves_no_lock() {
    let dir = tempfile::tempdir().unwrap();
    let xdg = dir.path().join("xdg");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    // Built from one directory into the data directory, made on the way ...
    let o = run_in(&a, &xdg, &["generate", "-q", "--puzzle", "six"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = xdg.join("puzzlebase/puzzles.sqlite");
    assert!(file.is_file());
    let beside: Vec<String> = std::fs::read_dir(xdg.join("puzzlebase"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!beside.iter().any(|n| n.ends_with(".lock")), "{beside:?}");
    // ... and answered from another.
    let o = run_in(
        &b,
        &xdg,
        &["query", "--puzzle", "six", "--longest", "--json"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // PUZZLEBASE_DB and --db come first.
    let other = dir.path().join("other.sqlite");
    let o = Command::new(env!("CARGO_BIN_EXE_puzzlebase"))
        .args(["query", "--puzzle", "six", "--longest"])
        .current_dir(&b)
        .env("XDG_DATA_HOME", &xdg)
        .env("PUZZLEBASE_DB", &other)
        .output()
        .unwrap();
    let err = assert_clean_failure(&o, 1);
    assert!(err.contains("other.sqlite"), "{err}");
    let o = run_in(
        &b,
        &xdg,
        &[
            "query",
            "--db",
            other.to_str().unwrap(),
            "--puzzle",
            "six",
            "--longest",
        ],
    );
    let err = assert_clean_failure(&o, 1);
    assert!(err.contains("other.sqlite"), "{err}");
}

#[test]
fn an_unknown_puzzle_gets_the_nearest_name_and_what_the_file_holds() {
    let db = shared_db().to_str().unwrap();
    let err = refused(db, &["--puzzle", "eigth", "--start"], 2);
    assert!(err.contains("did you mean \"eight\""), "{err}");
    assert!(err.contains("this file holds six, seven, eight"), "{err}");
    // Built-in puzzles the file lacks are offered, those of the default run unmarked.
    assert!(err.contains("fourteen (on request)"), "{err}");
    assert!(err.contains("french37 (on request)"), "{err}");
    assert!(!err.contains("eleven (on request)"), "{err}");
    let err = assert_clean_failure(&run(&["verify", "--db", db, "--puzzle", "sevn"]), 2);
    assert!(err.contains("did you mean \"seven\""), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("p.sqlite");
    let err = assert_clean_failure(
        &run(&[
            "generate",
            "--db",
            fresh.to_str().unwrap(),
            "--puzzle",
            "hopers",
        ]),
        2,
    );
    assert!(err.contains("did you mean \"hoppers\""), "{err}");
    // Nothing near: no guess, but the list.
    let err = refused(db, &["--puzzle", "zzzzzz", "--start"], 2);
    assert!(!err.contains("did you mean"), "{err}");
    assert!(err.contains("this file holds"), "{err}");

    // A user's puzzle is listed, and guessed, from the file that holds it.
    let mine = dir.path().join("mine.sqlite");
    generate_example(&mine, "guarini");
    let mine = mine.to_str().unwrap();
    let err = refused(mine, &["--puzzle", "guarrini", "--start"], 2);
    assert!(err.contains("did you mean \"guarini\""), "{err}");
    assert!(err.contains("this file holds guarini"), "{err}");
}

#[test]
fn an_option_that_does_not_apply_names_those_that_do() {
    let db = shared_db().to_str().unwrap();
    let err = refused(db, &["--puzzle", "eight", "--start"], 2);
    // The library's words, then the command's options.
    assert!(
        err.contains(
            "eight (sliding puzzle) does not answer the start's distance and path; it answers \
             a position's distance and path, the farthest positions, the histogram, a random \
             position or a scrambled position (query --state, --longest, --histogram, \
             --random or --scramble N)"
        ),
        "{err}"
    );
    let err = refused(db, &["--puzzle", "magic-triangle", "--longest"], 2);
    assert!(err.contains("--all, --sum N or --histogram"), "{err}");
    let err = refused(db, &["--puzzle", "hoppers", "--all"], 2);
    assert!(
        err.contains("--state, --start, --longest, --histogram, --matrix or --layers"),
        "{err}"
    );
}

#[test]
fn cells_above_nine_run_together_get_the_comma_hint() {
    let db = shared_db().to_str().unwrap();
    let err = refused(db, &["--puzzle", "eleven", "--state", "032187654111090"], 2);
    assert!(err.contains("expected 12 cells, found 15"), "{err}");
    assert!(err.contains("cells above 9 need commas"), "{err}");
    // Not offered where every cell is one digit.
    let err = refused(db, &["--puzzle", "eight", "--state", "12345678"], 2);
    assert!(!err.contains("commas"), "{err}");
}

#[test]
fn check_definition_refuses_a_built_in_name_as_generate_does() {
    let dir = tempfile::tempdir().unwrap();
    let builtin = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/puzzles/seven.toml");
    let text = std::fs::read_to_string(&builtin).unwrap();
    // The user's own seven: the same puzzle with another start.
    let mine = dir.path().join("seven.toml");
    std::fs::write(&mine, format!("{text}\n# my own\n")).unwrap();
    let err = assert_clean_failure(&run(&["check-definition", mine.to_str().unwrap()]), 1);
    assert!(
        err.contains("is a built-in puzzle; choose another name"),
        "{err}"
    );
    let generated = run(&[
        "generate",
        "--db",
        dir.path().join("p.sqlite").to_str().unwrap(),
        "--definitions",
        dir.path().to_str().unwrap(),
    ]);
    let err2 = assert_clean_failure(&generated, 1);
    assert!(
        err2.contains("is a built-in puzzle; choose another name"),
        "{err2}"
    );
    // The built-in file itself is what it says.
    stdout(&run(&["check-definition", builtin.to_str().unwrap()]));
}

#[test]
fn list_columns_stay_aligned_and_say_what_they_count() {
    let text = stdout(&run(&["list", "--db", every_kind().to_str().unwrap()]));
    let lines: Vec<&str> = text.lines().collect();
    let table: Vec<&str> = lines
        .iter()
        .take_while(|l| !l.is_empty())
        .copied()
        .collect();
    assert!(table.len() > 3, "{text}");
    // Right-aligned counts: every row's "max" column ends where the header's does.
    let end = table[0].find("max").unwrap() + 3;
    for l in &table {
        assert!(
            l.len() > end && l.as_bytes()[end] == b' ' && l.as_bytes()[end - 1] != b' ',
            "column `max` ends at {end}: {l:?}\n{text}"
        );
    }
    let fifteen = table.iter().find(|l| l.starts_with("fifteen")).unwrap();
    assert!(fifteen.contains("10,461,394,944,000"), "{fifteen}");
    assert!(text.contains("pattern-table entries"), "{text}");
}

#[test]
fn completions_for_each_shell_name_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let text = stdout(&run(&["completions", shell]));
        for sub in ["generate", "query", "export", "man", "check-definition"] {
            assert!(text.contains(sub), "{shell}: {sub}");
        }
    }
    assert!(stdout(&run(&["completions", "bash"])).contains("_puzzlebase"));
    // A shell clap does not know is a usage error, with the "see --help" line of every
    // command-line error.
    let o = run(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("possible values: bash"));
}

#[test]
fn the_manual_page_is_roff_for_man() {
    let page = stdout(&run(&["man"]));
    assert!(page.starts_with(".ie") || page.starts_with(".TH"), "{page}");
    assert!(page.contains(".TH puzzlebase 1"), "{page}");
    for sub in ["generate", "query", "export", "serve"] {
        assert!(page.contains(sub), "{sub}");
    }
    let dir = tempfile::tempdir().unwrap();
    stdout(&run(&["man", "--dir", dir.path().to_str().unwrap()]));
    for name in ["puzzlebase.1", "puzzlebase-query.1", "puzzlebase-export.1"] {
        let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(text.contains(".TH"), "{name}");
    }
}

#[test]
fn generate_json_is_one_object_per_puzzle() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    let db = db.to_str().unwrap();
    let text = stdout(&run(&[
        "generate", "--db", db, "--puzzle", "six", "--puzzle", "seven", "--json",
    ]));
    let objects: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objects.len(), 2, "{text}");
    assert_eq!(objects[0]["puzzle"], "six");
    assert_eq!(objects[0]["states"], 5040);
    assert_eq!(objects[0]["max_distance"], 15);
    assert_eq!(objects[0]["reused"], false);
    assert_eq!(objects[1]["puzzle"], "seven");
    assert_eq!(objects[1]["max_distance"], 36);
    // A second run keeps both, and says so; with --verify, an object saying what it
    // checked: nothing was built, so nothing is re-derived and both are checked by
    // checksum.
    let lines = |args: &[&str]| -> Vec<serde_json::Value> {
        let text = stdout(&run(args));
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let objects = lines(&[
        "generate", "--db", db, "--puzzle", "six", "--json", "--verify",
    ]);
    assert!(
        objects
            .iter()
            .any(|o| o["puzzle"] == "seven" && o["reused"] == true)
    );
    assert!(
        !objects.iter().any(|o| o["verified"] == true),
        "{objects:?}"
    );
    let scope = serde_json::json!({"rederived": [], "by_checksum": ["six", "seven"]});
    assert!(objects.iter().any(|o| o["verify"] == scope), "{objects:?}");
    // With --force, what is rebuilt is re-derived, a line per check.
    let objects = lines(&[
        "generate", "--db", db, "--puzzle", "six", "--force", "--json", "--verify",
    ]);
    assert!(
        objects
            .iter()
            .any(|o| o["verified"] == true && o["puzzle"] == "six"),
        "{objects:?}"
    );
    let scope = serde_json::json!({"rederived": ["six"], "by_checksum": ["seven"]});
    assert!(objects.iter().any(|o| o["verify"] == scope), "{objects:?}");
}

/// CSV rows of `export --puzzle name`, header first.
fn export(db: &Path, name: &str) -> Vec<csv::StringRecord> {
    let o = run(&["export", "--db", db.to_str().unwrap(), "--puzzle", name]);
    let text = stdout(&o);
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    r.records().map(Result::unwrap).collect()
}

#[test]
fn export_writes_every_stored_position_as_csv() {
    // Rows (seven), packed (eight-packed), a peg board's rows (hoppers), its layers twin.
    for (db, name) in [
        (shared_db(), "seven"),
        (shared_db(), "eight-packed"),
        (every_kind(), "hoppers"),
        (every_kind(), "hoppers-layers"),
    ] {
        let rows = export(db, name);
        assert_eq!(
            &rows[0],
            vec!["rank", "state", "distance", "solutions", "next"],
            "{name}"
        );
        let with_distance = rows[1..].iter().filter(|r| !r[2].is_empty()).count() as u64;
        // Positions stored with a distance: every one that reaches the goal, a peg
        // board's one per symmetry class.
        let classes: u64 = if name.starts_with("hoppers") {
            crate::util::query_json_in(db, &["--puzzle", name, "--layers"])["layers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["can_finish_classes"].as_u64().unwrap())
                .sum()
        } else {
            crate::util::query_json_in(db, &["--puzzle", name, "--histogram"])["histogram"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h.as_u64().unwrap())
                .sum()
        };
        assert_eq!(
            with_distance, classes,
            "{name}: one row per stored position"
        );
        // Every exported distance is the one `query` gives for that state.
        for r in rows[1..].iter().filter(|r| !r[2].is_empty()).step_by(997) {
            let a = crate::util::query_json_in(db, &["--puzzle", name, "--state", &r[1]]);
            assert_eq!(a["distance"].to_string(), r[2], "{name}: {}", &r[1]);
        }
    }
    // Solution counts where the file keeps them.
    let seven = export(shared_db(), "seven");
    assert!(seven[1..].iter().all(|r| !r[3].is_empty()));
    assert_eq!(seven.len() as u64 - 1, histogram_total("seven"));
    // Enumerations export their solutions.
    let magic = export(shared_db(), "magic-triangle");
    assert_eq!(&magic[0], vec!["rank", "state", "value", "canonical"]);
    assert_eq!(magic.len() - 1, 864);
    assert_eq!(magic[1..].iter().filter(|r| &r[3] == "1").count(), 18);
    // fifteen has no table of positions: refused as a usage error, with the reason.
    let err = assert_clean_failure(
        &run(&[
            "export",
            "--db",
            every_kind().to_str().unwrap(),
            "--puzzle",
            "fifteen",
        ]),
        2,
    );
    assert!(err.contains("answered by search"), "{err}");
}
