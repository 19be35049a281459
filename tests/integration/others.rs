//! knight-swap, oshidori, the magic triangle and the knight's tours from the file.

use serde_json::json;

use crate::util::{
    assert_clean_failure, assert_legal_path, histogram_total, query_json, run, shared_db,
};

#[test]
fn knight_swap_start_takes_16_moves() {
    let a = query_json(&["--puzzle", "knight-swap", "--start"]);
    assert_eq!(a["state"], "BBB------WWW");
    assert_eq!(a["distance"], 16);
    let path = a["path"].as_array().unwrap();
    assert_eq!(path.len(), 17);
    assert_eq!(path.last().unwrap(), "WWW------BBB");
    assert_legal_path("knight-swap", path);
    let l = query_json(&["--puzzle", "knight-swap", "--longest"]);
    assert_eq!(
        l["count"].as_u64().unwrap() as usize,
        l["states"].as_array().unwrap().len()
    );
    let total = histogram_total("knight-swap");
    assert_eq!(
        total, 18_480,
        "every arrangement of 3+3 knights on the 3x4 board is stored"
    );
}

#[test]
fn oshidori_takes_4_moves_over_140_arrangements() {
    let a = query_json(&["--puzzle", "oshidori", "--start"]);
    assert_eq!(
        (a["state"].as_str(), a["distance"].as_u64()),
        (Some("BWBWBW--"), Some(4))
    );
    assert_legal_path("oshidori", a["path"].as_array().unwrap());
    let total = histogram_total("oshidori");
    assert_eq!(total, 140);
    let err = assert_clean_failure(
        &run(&[
            "query",
            "--db",
            shared_db().to_str().unwrap(),
            "--puzzle",
            "oshidori",
            "--state",
            "BW-BWBW-",
        ]),
        2,
    );
    assert!(err.contains("adjacent"), "{err}");
}

#[test]
fn magic_triangle_sums_and_histogram() {
    let a = query_json(&["--puzzle", "magic-triangle", "--sum", "20"]);
    assert_eq!(
        a,
        json!({"puzzle":"magic-triangle","count":6,
               "states":["168524937","249516837","267534819","348526719","429518637","438527619"]})
    );
    let h = query_json(&["--puzzle", "magic-triangle", "--histogram"]);
    assert_eq!(
        h,
        json!({"puzzle":"magic-triangle","histogram":{"17":2,"19":4,"20":6,"21":4,"23":2}})
    );
    let all = query_json(&["--puzzle", "magic-triangle", "--all"]);
    assert_eq!(all["count"], 18);
    // The file holds every arrangement, 48 per class, exactly one canonical.
    let conn = rusqlite::Connection::open(shared_db()).unwrap();
    let (rows, canon): (i64, i64) = conn
        .query_row(
            "SELECT count(*), sum(canonical) FROM solutions WHERE puzzle = 'magic-triangle'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((rows, canon), (864, 18));
}

#[test]
fn knight_tours() {
    let a = query_json(&["--puzzle", "knight-tour", "--all"]);
    assert_eq!(
        a,
        json!({"puzzle":"knight-tour","count":1,"states":["0 6 12 11 4 9 2 1 7 13 8 3 10 5"]})
    );
    let six = query_json(&["--puzzle", "knight-tour-6x6", "--all"]);
    assert_eq!(
        six["count"], 9862,
        "closed tours of the 6x6 board, up to direction"
    );
}

#[test]
fn options_that_make_no_sense_are_usage_errors() {
    let db = shared_db().to_str().unwrap();
    for args in [
        ["--puzzle", "magic-triangle", "--longest"],
        ["--puzzle", "knight-tour", "--histogram"],
        ["--puzzle", "eight", "--all"],
        ["--puzzle", "eight", "--sum=20"],
        ["--puzzle", "magic-triangle", "--start"],
        ["--puzzle", "eight", "--start"],
    ] {
        let mut all = vec!["query", "--db", db];
        all.extend_from_slice(&args);
        let err = assert_clean_failure(&run(&all), 2);
        assert!(err.contains("does not answer"), "{args:?}: {err}");
    }
}
