//! Permutation puzzles defined as data, end to end through the file: the pocket cube
//! answers every kind of query (its face-turn histogram the published one), names its
//! moves, is re-derived by `verify` and listed; the pancake stack and TopSpin (stored at
//! two bits per position) answer too; the page draws them (`browser.rs` checks the SVG).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::serve::start_server;
use crate::util::{assert_clean_failure, assert_legal_path, generate_into, query_json_in, run};

/// cube2 (rows), pancake-6 (rows), pancake-10 and topspin (two-bit), built once.
pub fn permutation_db() -> &'static Path {
    static DB: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("permutation.sqlite");
        generate_into(
            &path,
            &["cube2", "pancake-6", "pancake-10", "topspin"],
            false,
        );
        (dir, path)
    });
    path
}

/// Wikipedia, "Pocket Cube" (en.wikipedia.org/wiki/Pocket_Cube, "Permutations": the
/// positions that need n face turns, half or quarter), 3,674,160 in all, God's number 11.
const POCKET_HTM: [u64; 12] = [
    1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644,
];

#[test]
fn cube2_answers_every_kind_of_query() {
    let db = permutation_db();
    let h = query_json_in(db, &["--puzzle", "cube2", "--histogram"]);
    let got: Vec<u64> = h["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(got, POCKET_HTM);

    let l = query_json_in(db, &["--puzzle", "cube2", "--longest"]);
    assert_eq!(l["distance"], 11);
    assert_eq!(l["count"], 2644);

    // The start is one of the antipodes: 11 face turns, a path of legal moves.
    let s = query_json_in(db, &["--puzzle", "cube2", "--start"]);
    assert_eq!(s["distance"], 11);
    assert_legal_path("cube2", s["path"].as_array().unwrap());

    // R U from solved is two turns away, by exactly one shortest solution (U' R').
    let a = query_json_in(
        db,
        &["--puzzle", "cube2", "--state", "UUFFUBRRRRFDDBDBFDLLLLUB"],
    );
    assert_eq!(a["distance"], 2, "{a}");
    assert_eq!(a["solutions"], 1);
    assert_legal_path("cube2", a["path"].as_array().unwrap());

    // A corner twisted in place cannot be solved (exit 1); a sticker string of the wrong
    // length is malformed (exit 2, as for every puzzle).
    let o = run(&[
        "query",
        "--db",
        db.to_str().unwrap(),
        "--puzzle",
        "cube2",
        "--state",
        "UUUFURRRFRFFDDDDLLLLBBBB",
    ]);
    let err = assert_clean_failure(&o, 1);
    assert!(
        err.contains("cannot be solved")
            && err.contains("the corner at URF is twisted")
            && err.contains("add up to 1 mod 3"),
        "{err}"
    );
    let o = run(&[
        "query",
        "--db",
        db.to_str().unwrap(),
        "--puzzle",
        "cube2",
        "--state",
        "UUUU",
    ]);
    let err = assert_clean_failure(&o, 2);
    assert!(err.contains("4 stickers; the puzzle has 24"), "{err}");
}

#[test]
fn pancakes_and_topspin_answer_from_rows_and_two_bit_codes() {
    let db = permutation_db();
    // OEIS A058986: 6 pancakes need at most 7 flips; A092113's row 6 ends with 2 stacks.
    let l = query_json_in(db, &["--puzzle", "pancake-6", "--longest"]);
    assert_eq!(
        (l["distance"].as_u64(), l["count"].as_u64()),
        (Some(7), Some(2))
    );
    let a = query_json_in(db, &["--puzzle", "pancake-6", "--state", "5,4,3,2,1,0"]);
    assert_eq!(a["distance"], 1, "the whole stack upside down is one flip");
    let t = query_json_in(db, &["--puzzle", "topspin", "--histogram"]);
    let total: u64 = t["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total, 1_814_400, "10!/2: the turns of four are even");
    let a = query_json_in(
        db,
        &["--puzzle", "topspin", "--state", "3,2,1,0,4,5,6,7,8,9"],
    );
    assert_eq!(a["distance"], 1);
    assert_legal_path("topspin", a["path"].as_array().unwrap());
}

#[test]
fn verify_rederives_them_and_list_shows_them() {
    let db = permutation_db();
    let p = db.to_str().unwrap();
    let o = run(&["verify", "--db", p]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["list", "--db", p]);
    let text = String::from_utf8(o.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("cube2 ")).unwrap();
    assert!(
        line.contains("permutation") && line.contains("3,674,160"),
        "{line}"
    );
}

#[test]
fn the_api_names_each_move_and_carries_the_layout() {
    let addr = start_server(permutation_db());
    let get = |path: &str| -> serde_json::Value {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut r = Vec::new();
        s.read_to_end(&mut r).unwrap();
        let end = r.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        serde_json::from_slice(&r[end + 4..]).unwrap()
    };
    let p = get("/api/puzzles/cube2");
    assert_eq!(p["family"], "permutation");
    assert_eq!(p["layout"]["cells"].as_array().unwrap().len(), 24);
    let a = get("/api/puzzles/cube2/positions/UUUURRRRFFFFDDDDLLLLBBBB");
    let names: Vec<&str> = a["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"]["name"].as_str().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["F", "F'", "F2", "R", "R'", "R2", "U", "U'", "U2"]);
    let a = get("/api/puzzles/pancake-6/positions/0,1,2,3,4,5");
    assert!(
        a["legal_moves"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["move"]["name"] == "flip 6")
    );
}

/// Every new built-in puzzle is a puzzle like the others: `--histogram`, `--longest`
/// (its distance the histogram's last, its count the last level's), `--start` (a path of
/// legal moves to the goal) and `--state` of the start (the same distance).
#[test]
fn every_classic_puzzle_answers_every_kind_of_query() {
    let perm = permutation_db();
    let lights = crate::lights_hanoi::db();
    for (db, name) in [
        (perm, "cube2"),
        (perm, "pancake-6"),
        (perm, "pancake-10"),
        (perm, "topspin"),
        (lights, "lights-out-3"),
        (lights, "lights-out-5"),
        (lights, "hanoi-3"),
    ] {
        let h = query_json_in(db, &["--puzzle", name, "--histogram"]);
        let levels: Vec<u64> = (h["histogram"].as_array().unwrap().iter())
            .map(|v| v.as_u64().unwrap())
            .collect();
        let l = query_json_in(db, &["--puzzle", name, "--longest"]);
        assert_eq!(
            l["distance"].as_u64(),
            Some(levels.len() as u64 - 1),
            "{name}"
        );
        assert_eq!(l["count"].as_u64(), levels.last().copied(), "{name}");
        let s = query_json_in(db, &["--puzzle", name, "--start"]);
        let path = s["path"].as_array().unwrap();
        assert_legal_path(name, path);
        assert_eq!(
            s["distance"].as_u64(),
            Some(path.len() as u64 - 1),
            "{name}"
        );
        let start = path[0].as_str().unwrap();
        let a = query_json_in(db, &["--puzzle", name, "--state", start]);
        assert_eq!(a["distance"], s["distance"], "{name}");
    }
    // OEIS A058986: ten pancakes need at most 11 flips; Don Woods's count of the stacks
    // that need 11 (A092113's row 10) is more than the file keeps by position.
    let l = query_json_in(perm, &["--puzzle", "pancake-10", "--longest"]);
    assert_eq!(
        (l["distance"].as_u64(), l["count"].as_u64()),
        (Some(11), Some(73_232))
    );
    assert_eq!(l["states"].as_array().map(Vec::len), Some(0));
}
