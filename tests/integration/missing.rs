//! A row or chunk deleted from a file, through a connection that keeps the page
//! checksums (an edit, not damaged pages): in a rank space where every position reaches
//! the goal, a missing rank is damage, told as such, never "cannot be solved".

use crate::util::{assert_clean_failure, generate_into, rank_of, run};

#[test]
fn a_deleted_position_is_damage_not_an_unsolvable_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    generate_into(&db, &["eight", "eight-packed"], false);
    let state = "867254301";
    let s = db.to_str().unwrap();
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let rank = rank_of(&conn, "eight", state);
        // The position and every neighbour: no neighbour is left to contradict it.
        let mut ranks = vec![rank];
        ranks.extend(
            ["867254031", "867204351", "867254310"]
                .iter()
                .filter_map(|n| {
                    conn.query_row(
                        "SELECT rank FROM positions WHERE puzzle = 'eight' AND state = ?1",
                        [n],
                        |r| r.get::<_, i64>(0),
                    )
                    .ok()
                }),
        );
        for r in ranks {
            conn.execute(
                "DELETE FROM positions WHERE puzzle = 'eight' AND rank = ?1",
                [r],
            )
            .unwrap();
        }
        // The chunk of the packed table that holds the goal (ranked as `eight` ranks it).
        let goal = rank_of(&conn, "eight", "123456780");
        conn.execute(
            "DELETE FROM packed_chunks WHERE puzzle = 'eight-packed' AND chunk = ?1 /
             (SELECT ranks_per_chunk FROM packed_tables WHERE puzzle = 'eight-packed'
              AND kind = 'distance')",
            [goal],
        )
        .unwrap();
    }
    for (puzzle, st) in [("eight", state), ("eight-packed", "123456780")] {
        for args in [
            vec!["query", "--db", s, "--puzzle", puzzle, "--state", st],
            vec![
                "query", "--db", s, "--puzzle", puzzle, "--state", st, "--json",
            ],
        ] {
            let err = assert_clean_failure(&run(&args), 1);
            assert!(
                !err.contains("cannot be solved")
                    && (err.contains("damaged") || err.contains("inconsistent")),
                "{args:?}: {err}"
            );
        }
    }
}
