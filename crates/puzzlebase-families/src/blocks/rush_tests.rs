//! Tests of Rush Hour's notation and cluster search: Fogleman's two hardest boards,
//! small hand-checked boards, every refusal, and no panic on random text.

use super::rush::*;
use proptest::prelude::*;
use puzzlebase_solvers::search::Stop;

fn solved(text: &str) -> Solved {
    solve(&Board::parse(text).unwrap()).unwrap()
}

/// Checks that `moves` are legal from `text` and end solved; gives the distance.
fn check_solution(text: &str) -> (u32, usize) {
    let board = Board::parse(text).unwrap();
    match solve(&board).unwrap() {
        Solved::Solution {
            distance,
            moves,
            cluster,
        } => {
            assert_eq!(moves.len(), distance as usize);
            let positions = path(&board, &moves).unwrap();
            let last = Board::parse(positions.last().unwrap()).unwrap();
            assert!(last.is_solved(), "{text}: path ends at {}", last.notation());
            for p in &positions[..positions.len() - 1] {
                assert!(!Board::parse(p).unwrap().is_solved() || distance == 0);
            }
            (distance, cluster)
        }
        Solved::Unsolvable { cluster } => panic!("{text} unsolvable, cluster {cluster}"),
    }
}

#[test]
fn fogleman_hardest_without_walls_is_51_moves_cluster_4780() {
    assert_eq!(
        check_solution("BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM."),
        (51, 4780)
    );
}

#[test]
fn fogleman_hardest_with_a_wall_is_60_moves_cluster_2332() {
    assert_eq!(
        check_solution("IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM"),
        (60, 2332)
    );
}

fn rows(r: [&str; 6]) -> String {
    r.concat()
}

const E: &str = "......";

#[test]
fn solved_board_is_distance_0() {
    // A alone at the exit: its 5 places are the cluster.
    assert_eq!(check_solution(&rows([E, E, "....AA", E, E, E])), (0, 5));
}

#[test]
fn red_alone_at_the_left_is_one_move() {
    assert_eq!(check_solution(&rows([E, E, "AA....", E, E, E])), (1, 5));
}

#[test]
fn blocked_by_a_vertical_car_is_two_moves() {
    // B on rows 3-4 of the last column: B down one or two, then A. Cluster: 5 x 5
    // places less A at the exit with B covering row 3 (B at places 1 and 2): 23.
    assert_eq!(
        check_solution(&rows([E, E, "AA...B", ".....B", E, E])),
        (2, 23)
    );
}

#[test]
fn horizontal_piece_right_of_red_is_unsolvable() {
    let rows = ["......", "......", "AA..BB", "......", "......", "......"];
    match solved(&rows.concat()) {
        Solved::Unsolvable { cluster } => assert_eq!(cluster, 3 + 2 + 1),
        s => panic!("{s:?}"),
    }
}

#[test]
fn moves_print_with_a_sign() {
    assert_eq!(Move { piece: 'B', by: 2 }.to_string(), "B+2");
    assert_eq!(Move { piece: 'C', by: -1 }.to_string(), "C-1");
}

#[test]
fn notation_round_trips() {
    for text in [
        "BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM.",
        "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM",
    ] {
        let b = Board::parse(text).unwrap();
        assert_eq!(b.notation(), text.replace('.', "o"));
        assert_eq!(Board::parse(&b.notation()).unwrap(), b);
    }
}

#[test]
fn refusals_name_the_problem() {
    let ok = "BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM.";
    let set = |at: usize, ch: char| {
        let mut c: Vec<char> = ok.chars().collect();
        c[at] = ch;
        c.into_iter().collect::<String>()
    };
    let cases: Vec<(String, RushError)> = vec![
        (ok[..35].to_string(), RushError::WrongLength(35)),
        (format!("{ok}."), RushError::WrongLength(37)),
        (set(5, '#'), RushError::UnknownCharacter { ch: '#', at: 5 }),
        (set(5, 'b'), RushError::UnknownCharacter { ch: 'b', at: 5 }),
        (set(5, 'Z'), RushError::BadLength { piece: 'Z', len: 1 }),
        (set(34, 'H'), RushError::Bent { piece: 'H' }),
        (
            "AAAA..".to_string() + &".".repeat(30),
            RushError::BadLength { piece: 'A', len: 4 },
        ),
        (".".repeat(36), RushError::RedMissing),
        (
            "......".repeat(2) + "A....." + "A....." + &"......".repeat(2),
            RushError::RedVertical,
        ),
        (
            "AA....".to_string() + &".".repeat(30),
            RushError::RedNotThirdRow { row: 1 },
        ),
        (
            "......".repeat(2) + "AAA..." + &"......".repeat(3),
            RushError::RedNotCar { len: 3 },
        ),
        (
            "......".repeat(2) + "AA.BB." + "...B.." + &"......".repeat(2),
            RushError::Bent { piece: 'B' },
        ),
        (
            "......".repeat(2) + "AA.B.B" + &"......".repeat(3),
            RushError::Bent { piece: 'B' },
        ),
    ];
    for (text, want) in cases {
        let got = Board::parse(&text).unwrap_err();
        assert_eq!(got, want, "{text}");
        assert!(!got.to_string().contains('\n'));
    }
}

#[test]
fn a_bad_move_is_refused() {
    let b = Board::parse("BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM.").unwrap();
    assert!(b.apply(Move { piece: 'A', by: 1 }).is_err());
    assert!(b.apply(Move { piece: 'Q', by: 1 }).is_err());
    assert!(b.apply(Move { piece: 'E', by: -1 }).is_err());
}

#[test]
fn a_board_built_by_hand_is_checked_before_a_search() {
    let board = Board {
        walls: 0,
        pieces: Vec::new(),
    };
    assert!(!board.is_solved());
    assert_eq!(solve(&board), Err(RushError::RedMissing));
    let good = Board::parse(&rows([E, E, "AA...B", ".....B", E, E])).unwrap();
    assert_eq!(good.check(), Ok(()));
    let mut b = good.clone();
    b.pieces[1].row = 5;
    assert_eq!(solve(&b), Err(RushError::OffBoard { piece: 'B' }));
    b.pieces[1].row = usize::MAX;
    let _ = b.notation();
    assert_eq!(
        b.apply(Move { piece: 'A', by: 1 }),
        Err(RushError::OffBoard { piece: 'B' })
    );
    b.pieces[1].row = 2;
    b.pieces[1].col = 1;
    assert_eq!(solve(&b), Err(RushError::Overlap { piece: 'B' }));
    b.pieces[1].letter = 'A';
    assert_eq!(b.check(), Err(RushError::Overlap { piece: 'A' }));
    let mut b = good.clone();
    b.pieces[1].len = 7;
    assert_eq!(solve(&b), Err(RushError::BadLength { piece: 'B', len: 7 }));
    let mut b = good;
    b.pieces[0].row = 0;
    assert_eq!(solve(&b), Err(RushError::RedNotThirdRow { row: 1 }));
}

#[test]
fn a_bounded_search_gives_up() {
    let b = Board::parse("BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM.").unwrap();
    assert_eq!(
        solve_bounded(&b, 100, &Stop::default()),
        Err(RushError::ClusterTooLarge(100))
    );
}

proptest! {
    #[test]
    fn parse_never_panics(text in "[.oxABCDEFGHIJKLMNOPQRSTUVWXYZa#é]{30,40}") {
        if let Ok(b) = Board::parse(&text) {
            prop_assert_eq!(Board::parse(&b.notation()).unwrap(), b.clone());
            let _ = solve_bounded(&b, 200_000, &Stop::default());
        }
    }

    #[test]
    fn parse_never_panics_on_any_text(text in "\\PC{0,40}") {
        let _ = Board::parse(&text);
    }
}
