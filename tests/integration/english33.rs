//! The central game on the 33-hole English board, end to end through the file: the
//! known minimum of 18 moves, a full solution that replays, and the published sizes of
//! the reachable and can-finish sets.

use crate::util::{
    all_but_eleven, assert_clean_failure, assert_replays, generate_into, peg_board, query_json_in,
    run,
};

#[test]
#[ignore = "heavy: every puzzle of the nightly run but eleven and twelve, twice (about 1.5 minutes); .ci/run runs it"]
fn central_game_from_the_file_and_an_unchanged_nightly_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("english33.sqlite");
    // Every puzzle as the nightly job builds them, but for the 3x4 and the 2x6 (see util).
    let every = all_but_eleven();
    let first = generate_into(&db, &every, false);
    assert!(first.iter().all(|s| !s.reused));
    assert_eq!(first.len(), every.len());
    let bytes = std::fs::read(&db).unwrap();
    let second = generate_into(&db, &every, false);
    assert!(
        second.iter().all(|s| s.reused),
        "an unchanged nightly run recomputes nothing"
    );
    assert_eq!(
        std::fs::read(&db).unwrap(),
        bytes,
        "and leaves the file as it was"
    );

    let a = query_json_in(&db, &["--puzzle", "english33", "--start"]);
    assert_eq!(
        a["distance"], 18,
        "the central game's minimum number of moves"
    );
    let b = peg_board("english33");
    assert_replays(&b, &a);

    let l = query_json_in(&db, &["--puzzle", "english33", "--layers"]);
    let layers = l["layers"].as_array().unwrap();
    let sum = |k: &str| layers.iter().map(|x| x[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("reachable"), 187_636_299);
    assert_eq!(sum("can_finish"), 13_428_122);

    // A position that cannot finish is not stored; the answer says why.
    let stuck = "1".repeat(16) + "0" + &"1".repeat(14) + "00";
    let o = run(&[
        "query",
        "--db",
        db.to_str().unwrap(),
        "--puzzle",
        "english33",
        "--state",
        &stuck,
    ]);
    let err = assert_clean_failure(&o, 1);
    assert!(err.contains("cannot finish"), "{err}");
}
