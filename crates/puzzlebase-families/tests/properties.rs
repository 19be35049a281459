//! Property tests over every notation parser and rank/unrank pair: random and
//! near-valid text never panics (every failure is a `StateError` of one line), and
//! parse ∘ format is the identity on every rank drawn. Case counts are modest so the
//! whole file runs in seconds.

use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::sample::Index;

use puzzlebase_core::rank::{comb_rank, comb_unrank, perm_rank, perm_unrank};
use puzzlebase_core::space::{GraphPuzzle, StateError};
use puzzlebase_families::Puzzle;
use puzzlebase_families::catalog;
use puzzlebase_families::catalog::builtin_boards;
use puzzlebase_families::catalog::builtin_tours as tour_boards;
use puzzlebase_families::magic::Magic;
use puzzlebase_families::magic::format_magic;
use puzzlebase_families::tour::TourBoard;
use puzzlebase_families::tour::format_tour;
use puzzlebase_solvers::peg::Board;

const CASES: u32 = 64;

/// Every move puzzle's definition, built once.
fn graphs() -> &'static [Box<dyn GraphPuzzle>] {
    static G: OnceLock<Vec<Box<dyn GraphPuzzle>>> = OnceLock::new();
    G.get_or_init(|| {
        catalog::registry()
            .into_iter()
            .filter_map(|p| match p {
                Puzzle::Graph(g) => Some(g),
                _ => None,
            })
            .collect()
    })
}

/// The built-in magic triangle, from its definition file.
fn magic() -> &'static Magic {
    static M: OnceLock<Magic> = OnceLock::new();
    M.get_or_init(|| match catalog::find("magic-triangle") {
        Some(Puzzle::Magic(m)) => m,
        _ => panic!("magic-triangle is a built-in puzzle"),
    })
}

/// Every peg board, the untabulated ones included (their notation is the same parser).
fn boards() -> &'static [Board] {
    static B: OnceLock<Vec<Board>> = OnceLock::new();
    B.get_or_init(builtin_boards)
}

fn tours() -> &'static [TourBoard] {
    static T: OnceLock<Vec<TourBoard>> = OnceLock::new();
    T.get_or_init(tour_boards)
}

/// A failure is a `StateError` whose message is one line naming what was wrong.
fn one_line(e: &StateError) {
    let text = e.to_string();
    assert!(!text.contains('\n'), "{text:?}");
    assert!(
        text.starts_with("malformed state") || text.starts_with("state "),
        "{text}"
    );
}

/// Characters every notation uses, plus some that none accepts.
fn notation_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => prop::sample::select(vec![
            '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'B', 'W', '-', ',', ' ',
        ]),
        1 => any::<char>(),
    ]
}

fn near_valid_text() -> impl Strategy<Value = String> {
    prop::collection::vec(notation_char(), 0..40).prop_map(|v| v.into_iter().collect())
}

/// One small edit of a valid text: a character replaced, removed, inserted or
/// duplicated, or two swapped.
#[derive(Debug, Clone)]
enum Edit {
    Replace(Index, char),
    Remove(Index),
    Insert(Index, char),
    Swap(Index, Index),
    Repeat(Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), notation_char()).prop_map(|(i, c)| Edit::Replace(i, c)),
        any::<Index>().prop_map(Edit::Remove),
        (any::<Index>(), notation_char()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, j)| Edit::Swap(i, j)),
        any::<Index>().prop_map(Edit::Repeat),
    ]
}

fn apply(text: &str, e: &Edit) -> String {
    let mut v: Vec<char> = text.chars().collect();
    if v.is_empty() {
        return String::new();
    }
    let n = v.len();
    match e {
        Edit::Replace(i, c) => v[i.index(n)] = *c,
        Edit::Remove(i) => {
            v.remove(i.index(v.len()));
        }
        Edit::Insert(i, c) => v.insert(i.index(v.len() + 1), *c),
        Edit::Swap(i, j) => {
            let (a, b) = (i.index(v.len()), j.index(v.len()));
            v.swap(a, b)
        }
        Edit::Repeat(i) => {
            let at = i.index(v.len());
            v.insert(at, v[at]);
        }
    }
    v.into_iter().collect()
}

/// What any parser result must satisfy: an error is one line; a success formats back
/// to text that parses to the same rank.
fn graph_parse_is_sound(g: &dyn GraphPuzzle, text: &str) {
    match g.parse(text) {
        Ok(r) => {
            assert!(r < g.size(), "{}: {text:?} -> rank {r}", g.name());
            assert_eq!(g.parse(&g.format(r)), Ok(r), "{}: {text:?}", g.name());
        }
        Err(e) => one_line(&e),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn move_puzzles_format_then_parse_is_the_identity(which: Index, at: Index) {
        let g = &graphs()[which.index(graphs().len())];
        let r = at.index(g.size() as usize) as u64;
        prop_assert_eq!(g.parse(&g.format(r)), Ok(r), "{}", g.name());
    }

    #[test]
    fn move_puzzle_parsers_survive_random_text(which: Index, text in near_valid_text()) {
        graph_parse_is_sound(graphs()[which.index(graphs().len())].as_ref(), &text);
    }

    #[test]
    fn move_puzzle_parsers_survive_near_valid_text(
        which: Index,
        at: Index,
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let g = &graphs()[which.index(graphs().len())];
        let mut text = g.format(at.index(g.size() as usize) as u64);
        for e in &edits {
            text = apply(&text, e);
        }
        graph_parse_is_sound(g.as_ref(), &text);
    }

    #[test]
    fn peg_notation_round_trips_and_canonical_forms_are_fixed(which: Index, bits: u64) {
        let b = &boards()[which.index(boards().len())];
        let bits = bits & ((1u64 << b.holes) - 1);
        prop_assert_eq!(b.parse(&b.format(bits)), Ok(bits), "{}", b.name);
        let (c, _) = b.canonical(bits);
        prop_assert_eq!(b.canonical(c).0, c);
        prop_assert_eq!(c.count_ones(), bits.count_ones());
    }

    #[test]
    fn peg_parsers_survive_random_and_near_valid_text(
        which: Index,
        bits: u64,
        text in near_valid_text(),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let b = &boards()[which.index(boards().len())];
        let mut near = b.format(bits & ((1u64 << b.holes) - 1));
        for e in &edits {
            near = apply(&near, e);
        }
        for t in [text, near] {
            match b.parse(&t) {
                Ok(bits) => prop_assert_eq!(b.parse(&b.format(bits)), Ok(bits)),
                Err(e) => one_line(&e),
            }
        }
    }

    #[test]
    fn magic_notation_and_rank_round_trip(perm in Just((1u8..=9).collect::<Vec<u8>>()).prop_shuffle()) {
        let m = magic();
        let digits: [u8; 9] = perm.try_into().unwrap();
        prop_assert_eq!(m.parse(&format_magic(&digits)), Ok(digits.to_vec()));
        let mut back = [0u8; 9];
        perm_unrank(m.rank(&digits), &mut back);
        prop_assert_eq!(back.map(|d| d + 1), digits);
    }

    #[test]
    fn magic_parser_survives_random_and_near_valid_text(
        perm in Just((1u8..=9).collect::<Vec<u8>>()).prop_shuffle(),
        text in near_valid_text(),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let digits: [u8; 9] = perm.try_into().unwrap();
        let mut near = format_magic(&digits);
        for e in &edits {
            near = apply(&near, e);
        }
        for t in [text, near] {
            match magic().parse(&t) {
                Ok(d) => prop_assert_eq!(magic().parse(&format_magic(&d)), Ok(d)),
                Err(e) => one_line(&e),
            }
        }
    }

    #[test]
    fn tour_parser_survives_random_and_near_valid_text(
        which: Index,
        rotate: Index,
        reverse: bool,
        text in near_valid_text(),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        // Seed 000's tour, turned to start anywhere and run either way: still that tour.
        let seed: Vec<u8> = vec![0, 6, 12, 11, 4, 9, 2, 1, 7, 13, 8, 3, 10, 5];
        let board = tours().iter().find(|t| t.squares() == seed.len()).unwrap();
        let mut turned = seed.clone();
        if reverse {
            turned.reverse();
        }
        let by = rotate.index(turned.len());
        turned.rotate_left(by);
        let parsed = board.parse_tour(&format_tour(&turned)).unwrap();
        let mut want = seed.clone();
        if reverse {
            want[1..].reverse();
        }
        prop_assert_eq!(&parsed, &want);
        let b = &tours()[which.index(tours().len())];
        let mut near = format_tour(&seed);
        for e in &edits {
            near = apply(&near, e);
        }
        for t in [text, near] {
            match b.parse_tour(&t) {
                Ok(tour) => prop_assert_eq!(b.parse_tour(&format_tour(&tour)), Ok(tour.clone())),
                Err(e) => one_line(&e),
            }
        }
    }

    #[test]
    fn permutation_ranks_round_trip(n in 1usize..=12, at: Index) {
        const FACT: [u64; 13] = [1, 1, 2, 6, 24, 120, 720, 5040, 40320, 362880, 3628800, 39916800, 479001600];
        let r = at.index(FACT[n] as usize) as u64;
        let mut perm = vec![0u8; n];
        perm_unrank(r, &mut perm);
        prop_assert_eq!(perm_rank(&perm), r);
    }

    #[test]
    fn combination_ranks_round_trip(set in 0u64..(1 << 20)) {
        let k = set.count_ones() as usize;
        prop_assert_eq!(comb_unrank(comb_rank(set), k), set);
    }
}
