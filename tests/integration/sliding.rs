//! The sliding puzzles from the file: the seeds' figures, legal paths, the distance
//! invariant over every stored row.

use rusqlite::Connection;

use crate::util::{assert_legal_path, graph, histogram_total, query_json, shared_db};

#[test]
fn eight_seed_position_has_31_moves_and_40_solutions() {
    let a = query_json(&["--puzzle", "eight", "--state", "867254301"]);
    assert_eq!(a["puzzle"], "eight");
    assert_eq!(a["state"], "867254301");
    assert_eq!(a["distance"], 31);
    assert_eq!(a["solutions"], 40);
    let path = a["path"].as_array().unwrap();
    assert_eq!(path.len(), 32);
    assert_eq!(path.last().unwrap(), "123456780");
    assert_legal_path("eight", path);
}

#[test]
fn six_seed_figures() {
    let a = query_json(&["--puzzle", "six", "--state", "1526340"]);
    assert_eq!(a["distance"], 11);
    assert_legal_path("six", a["path"].as_array().unwrap());
    let l = query_json(&["--puzzle", "six", "--longest"]);
    assert_eq!(
        (l["distance"].as_u64(), l["count"].as_u64()),
        (Some(15), Some(24))
    );
    let total = histogram_total("six");
    assert_eq!(
        total, 5040,
        "every arrangement of the hexagonal puzzle is solvable"
    );
}

#[test]
fn seven_longest_is_36_only_at_07214365() {
    let l = query_json(&["--puzzle", "seven", "--longest"]);
    assert_eq!(
        l,
        serde_json::json!({"puzzle":"seven","distance":36,"count":1,"states":["07214365"]})
    );
    let a = query_json(&["--puzzle", "seven", "--state", "0 7 2 1 4 3 6 5"]);
    assert_eq!(a["distance"], 36);
    assert_legal_path("seven", a["path"].as_array().unwrap());
}

#[test]
fn every_stored_distance_is_one_more_than_the_best_neighbour() {
    let conn = Connection::open(shared_db()).unwrap();
    // The sliding puzzles stored as rows; eight is packed (see `packed.rs`).
    for name in ["six", "seven"] {
        let g = graph(name);
        let mut dist = vec![u8::MAX; g.size() as usize];
        // -1: no next rank stored (NULL), which no neighbour's rank equals.
        let mut next = vec![-1i64; g.size() as usize];
        let mut count = vec![0i64; g.size() as usize];
        let mut st = conn
            .prepare("SELECT rank, state, distance, next_rank, solutions FROM positions WHERE puzzle = ?1")
            .unwrap();
        let mut rows = st.query([name]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let rank: i64 = r.get(0).unwrap();
            let state: String = r.get(1).unwrap();
            assert_eq!(
                g.parse(&state),
                Ok(rank as u64),
                "state column matches the rank"
            );
            dist[rank as usize] = r.get(2).unwrap();
            next[rank as usize] = r.get::<_, Option<i64>>(3).unwrap().unwrap_or(-1);
            count[rank as usize] = r.get(4).unwrap();
        }
        let mut nbs = Vec::new();
        for r in 0..g.size() {
            let d = dist[r as usize];
            assert_ne!(
                d,
                u8::MAX,
                "{name}: every rank of the solvable half is stored"
            );
            nbs.clear();
            g.neighbors(r, &mut nbs);
            if d == 0 {
                assert_eq!(count[r as usize], 1);
                continue;
            }
            let best = nbs.iter().map(|&n| dist[n as usize]).min().unwrap();
            assert_eq!(d, best + 1, "{name} rank {r}");
            let closer: Vec<u64> = nbs
                .iter()
                .copied()
                .filter(|&n| dist[n as usize] == d - 1)
                .collect();
            assert!(
                closer.contains(&(next[r as usize] as u64)),
                "next is one move closer"
            );
            let sum: i64 = closer.iter().map(|&n| count[n as usize]).sum();
            assert_eq!(
                count[r as usize], sum,
                "{name} rank {r}: solutions = sum over closer neighbours"
            );
        }
    }
}

#[test]
fn text_output_prints_the_path() {
    let db = shared_db().to_str().unwrap();
    let o = crate::util::run(&[
        "query",
        "--db",
        db,
        "--puzzle",
        "eight",
        "--state",
        "8,6,7,2,5,4,3,0,1",
        "--plain",
    ]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("distance:  31") && text.contains("solutions: 40"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("123456780"));
}

/// Without `--plain`, each step of the path is drawn as a grid under its line.
#[test]
fn text_output_draws_each_step() {
    let db = shared_db().to_str().unwrap();
    let o = crate::util::run(&[
        "query",
        "--db",
        db,
        "--puzzle",
        "eight",
        "--state",
        "867254301",
    ]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("distance:  31"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim() == "0  867254301")
        .unwrap();
    assert_eq!(
        &lines[start + 1..start + 4],
        ["       8 6 7", "       2 5 4", "       3 · 1"]
    );
    assert_eq!(
        &lines[lines.len() - 4..],
        [
            "  31  123456780",
            "       1 2 3",
            "       4 5 6",
            "       7 8 ·"
        ]
    );
    assert_eq!(
        lines.iter().filter(|l| l.contains('·')).count(),
        32,
        "a board per step"
    );
}
