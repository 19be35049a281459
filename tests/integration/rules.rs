//! Rules that live in one place, seen from every command: a definition's choices are
//! honoured alike by `generate`, `verify`, `query` and the server.

use std::path::Path;

use serde_json::Value;

use crate::serve::{raw_at, start_server};
use crate::util::{assert_clean_failure, run};

/// A small peg board whose definition turns the start-by-finish matrix off: `generate`
/// builds it without one, `verify` passes the file, `query --matrix` says the option does
/// not apply, and the server's page of it has no matrix (and answers 200).
#[test]
fn a_board_without_a_matrix_is_built_verified_queried_and_served_alike() {
    let dir = tempfile::tempdir().unwrap();
    let defs = dir.path().join("defs");
    std::fs::create_dir(&defs).unwrap();
    let hoppers = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/puzzles/hoppers.toml"),
    )
    .unwrap()
    .replace(
        "name = \"hoppers\"",
        "name = \"hoppers-plain\"\nmatrix = false",
    );
    std::fs::write(defs.join("hoppers-plain.toml"), hoppers).unwrap();
    let path = dir.path().join("plain.sqlite");
    let db = path.to_str().unwrap();
    let defs = defs.to_str().unwrap();

    let ok = |args: &[&str]| {
        let o = run(args);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    ok(&[
        "generate",
        "-q",
        "--db",
        db,
        "--definitions",
        defs,
        "--puzzle",
        "hoppers-plain",
    ]);
    ok(&["verify", "--db", db, "--puzzle", "hoppers-plain"]);

    let err = assert_clean_failure(
        &run(&["query", "--db", db, "--puzzle", "hoppers-plain", "--matrix"]),
        2,
    );
    assert!(err.contains("does not answer"), "{err}");
    // Everything else about the board is answered as for the built-in Hoppers.
    let start: Value = serde_json::from_str(&ok(&[
        "query",
        "--db",
        db,
        "--puzzle",
        "hoppers-plain",
        "--start",
        "--json",
    ]))
    .unwrap();
    assert_eq!(start["distance"], 7);
    assert_eq!(start["solutions"], 72);

    let addr = start_server(&path);
    let (status, _, body) = raw_at(addr, b"/api/puzzles/hoppers-plain", "GET");
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let page: Value = serde_json::from_slice(&body).unwrap();
    assert!(page.get("matrix").is_none(), "{page}");
    assert!(page["layers"].is_array(), "{page}");
}
