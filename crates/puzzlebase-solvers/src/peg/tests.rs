//! Tests of the peg boards and solver against the seeds' figures and against
//! independent brute-force formulations (single jumps with a "free continuation" hole).

use super::*;
use puzzlebase_core::progress::Silent;
use std::collections::HashMap;
use std::sync::OnceLock;

fn boards() -> Vec<Board> {
    puzzlebase_families::catalog::builtin_boards()
        .iter()
        .map(local)
        .collect()
}

/// A built-in board, by name, as this crate's own [`Board`].
pub fn builtin_board(name: &str) -> Option<Board> {
    puzzlebase_families::catalog::builtin_board(name).map(|b| local(&b))
}

/// `board`, which the catalog built in the crate above, rebuilt as this crate's own
/// [`Board`]: these tests link a second copy of this crate through the catalog (a
/// dev-dependency), whose types are not this copy's.
fn local(board: &puzzlebase_families::peg::Board) -> Board {
    let jumps = board
        .jumps
        .iter()
        .map(|j| Jump {
            from: j.from,
            over: j.over,
            to: j.to,
        })
        .collect();
    let empty_at_start = (!board.start).trailing_zeros() as usize;
    let mut own = Board::new(
        board.name,
        board.holes,
        jumps,
        empty_at_start,
        board.finish.trailing_zeros() as usize,
        board.tabulate,
        board.coordinates.clone(),
    );
    own.matrix = board.matrix;
    own.layers = board.layers;
    assert_eq!((own.start, own.finish), (board.start, board.finish));
    own
}

fn board(name: &str) -> Board {
    boards().into_iter().find(|b| b.name == name).unwrap()
}

/// Each small board is solved once and shared by the tests.
fn table(name: &str) -> &'static (Board, PegTable) {
    static TABLES: OnceLock<Vec<(Board, PegTable)>> = OnceLock::new();
    let all = TABLES.get_or_init(|| {
        ["chinese-checkers", "hoppers", "triangle21"]
            .iter()
            .map(|n| {
                let b = board(n);
                let t = solve(&b, &Silent).unwrap();
                (b, t)
            })
            .collect()
    });
    all.iter().find(|(b, _)| b.name == name).unwrap()
}

/// (position, last-moved peg) pairs per peg count, counted a second, plain way: every
/// position of the board as it is (no symmetry, no canonical forms), and for each
/// layer the set of (position after, landing hole) of every jump from every position
/// of the layer above, built forward and deduplicated by sorting. Indexed by peg
/// count; the start's layer is the start alone, with no last peg. Stops after
/// `max_layers` layers (the start's included).
pub fn pairs_built_forward(b: &Board, max_layers: usize) -> Vec<u64> {
    use rayon::prelude::*;
    let top = b.start.count_ones() as usize;
    let mut pairs = vec![0u64; top + 1];
    pairs[top] = 1;
    let mut layer = vec![b.start];
    let mut k = top;
    while k > 1 && pairs.len() - k < max_layers && !layer.is_empty() {
        // A pair is `after << 6 | landing hole`: 37 holes and 6 bits fit a u64.
        let mut set: Vec<u64> = layer
            .par_chunks(1 << 14)
            .flat_map_iter(|chunk| {
                let mut out = Vec::new();
                for &p in chunk {
                    for j in &b.jumps {
                        let (f, o, t) = (1u64 << j.from, 1u64 << j.over, 1u64 << j.to);
                        if p & f != 0 && p & o != 0 && p & t == 0 {
                            out.push((p ^ f ^ o ^ t) << 6 | j.to as u64);
                        }
                    }
                }
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        set.par_sort_unstable();
        set.dedup();
        k -= 1;
        pairs[k] = set.len() as u64;
        layer = set.iter().map(|&x| x >> 6).collect();
        drop(set);
        layer.dedup();
    }
    pairs
}

/// The solver's pair counts per layer against [`pairs_built_forward`].
pub fn assert_pairs_built_forward(b: &Board, layers: &[LayerStats]) {
    let want = pairs_built_forward(b, usize::MAX);
    for l in layers {
        assert_eq!(
            l.reachable_pairs, want[l.pegs as usize],
            "{}: (position, last peg) pairs with {} pegs",
            b.name, l.pegs
        );
    }
    let reached = want.iter().filter(|&&n| n > 0).count();
    assert_eq!(layers.len(), reached, "{}: layers with pairs", b.name);
}

#[test]
fn peg_pairs_with_the_last_peg_match_a_count_built_forward() {
    for name in ["chinese-checkers", "hoppers", "triangle21"] {
        let (b, t) = table(name);
        assert_pairs_built_forward(b, &t.layers);
        // The start alone at the top, and every position has at least one last peg.
        assert_eq!(t.layers.last().unwrap().reachable_pairs, 1, "{name}");
        for l in &t.layers {
            assert!(l.reachable_pairs >= l.reachable, "{name}: {} pegs", l.pegs);
        }
    }
}

/// Deterministic pseudo-random positions.
fn positions(b: &Board, count: usize) -> Vec<u64> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let full = (1u64 << b.holes) - 1;
    (0..count)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x & full
        })
        .collect()
}

#[test]
fn peg_board_names_in_order() {
    let names: Vec<&str> = boards().iter().map(|b| b.name).collect();
    assert_eq!(
        names,
        [
            "chinese-checkers",
            "hoppers",
            "triangle21",
            "english33",
            "french37",
            "french37-c1",
            "board41"
        ]
    );
    let tab: Vec<bool> = boards().iter().map(|b| b.tabulate).collect();
    assert_eq!(tab, [true, true, true, true, true, true, false]);
}

#[test]
fn peg_symmetry_counts() {
    let counts: Vec<(&str, usize)> = boards()
        .iter()
        .map(|b| (b.name, b.symmetries().len()))
        .collect();
    assert_eq!(
        counts[..4],
        [
            ("chinese-checkers", 2),
            ("hoppers", 8),
            ("triangle21", 2),
            ("english33", 8)
        ]
    );
}

#[test]
fn peg_jump_tables_are_reversible() {
    for b in boards() {
        for j in &b.jumps {
            assert!(
                b.jumps
                    .iter()
                    .any(|k| k.from == j.to && k.over == j.over && k.to == j.from),
                "{}: {j:?} has no reverse",
                b.name
            );
        }
    }
}

#[test]
fn peg_symmetries_are_automorphisms_fixing_start_and_finish() {
    for b in boards() {
        let syms = b.symmetries();
        assert!(
            syms[0].iter().enumerate().all(|(i, &x)| i == x as usize),
            "{}",
            b.name
        );
        for (s, p) in syms.iter().enumerate() {
            let mut sorted = p.clone();
            sorted.sort();
            assert!(
                sorted.iter().enumerate().all(|(i, &x)| i == x as usize),
                "not a bijection"
            );
            for j in &b.jumps {
                let image = Jump {
                    from: p[j.from as usize],
                    over: p[j.over as usize],
                    to: p[j.to as usize],
                };
                assert!(
                    b.jumps.contains(&image),
                    "{}: sym {s} maps {j:?} off the board",
                    b.name
                );
            }
            assert_eq!(b.apply_symmetry(b.start, s), b.start);
            assert_eq!(b.apply_symmetry(b.finish, s), b.finish);
        }
    }
}

#[test]
fn peg_canonical_is_idempotent_and_constant_on_orbits() {
    for b in boards() {
        for bits in positions(&b, 2000) {
            let (c, g) = b.canonical(bits);
            assert_eq!(b.apply_symmetry(bits, g), c);
            assert_eq!(b.canonical(c).0, c);
            for s in 0..b.symmetries().len() {
                assert_eq!(b.canonical(b.apply_symmetry(bits, s)).0, c);
            }
            assert_eq!(b.class_size(bits) as usize, {
                let mut v: Vec<u64> = (0..b.symmetries().len())
                    .map(|s| b.apply_symmetry(bits, s))
                    .collect();
                v.sort();
                v.dedup();
                v.len()
            });
        }
    }
}

/// [`Flips::canonical`] gives what [`Board::canonical`] gives for the position with the
/// mask flipped, on every board, for every jump's holes and for other masks.
#[test]
fn peg_flips_give_the_canonical_form_of_each_flip() {
    for b in boards() {
        check_flips(&b);
    }
    // More symmetries than `Flips` keeps images for: hole 0 alone (the start's empty hole
    // and the finish) and three lines of three holes, each jumped both ways. The lines
    // can be permuted and each reversed: 3! * 2^3 = 48 symmetries, so each flip goes
    // through `Board::canonical`.
    let mut table = vec![Vec::new(); 10];
    for first in [1u8, 4, 7] {
        table[first as usize].push((first + 1, first + 2));
        table[first as usize + 2].push((first + 1, first));
    }
    let lines = Board::from_table("three-lines", &table, 0, 0, false);
    assert_eq!(lines.symmetries().len(), 48);
    check_flips(&lines);
}

/// [`Flips::canonical`] gives what [`Board::canonical`] does for every jump of `b`, and a
/// few other masks, flipped in 500 positions; [`Flips::canonical2`] for every two of
/// them, and [`Flips::class_size`] what [`Board::class_size`] does.
fn check_flips(b: &Board) {
    let mut masks: Vec<u64> = (b.jumps.iter())
        .map(|j| 1 << j.from | 1 << j.over | 1 << j.to)
        .collect();
    masks.extend([0, 1, b.start, b.finish, (1 << b.holes) - 1]);
    let flips = b.flips(masks.iter().copied());
    // Positions fixed by symmetries too, whose classes are smaller.
    let full = (1u64 << b.holes) - 1;
    let fixed = [0, full, b.start, b.finish, full ^ b.start ^ b.finish];
    for bits in positions(b, 500).into_iter().chain(fixed) {
        let images = flips.of(bits);
        for (j, &m) in masks.iter().enumerate() {
            assert_eq!(
                flips.canonical(&images, j),
                b.canonical(bits ^ m).0,
                "{}: {bits:#x} ^ {m:#x}",
                b.name
            );
            for (k, &n) in masks.iter().enumerate() {
                assert_eq!(
                    flips.canonical2(&images, j, k),
                    b.canonical(bits ^ m ^ n).0,
                    "{}: {bits:#x} ^ {m:#x} ^ {n:#x}",
                    b.name
                );
            }
        }
        assert_eq!(
            flips.class_size(&images),
            b.class_size(bits),
            "{}: {bits:#x}",
            b.name
        );
    }
}

#[test]
fn peg_map_move_commutes_with_symmetries() {
    for b in boards().into_iter().take(4) {
        for bits in positions(&b, 300) {
            for (mv, after) in b.moves(bits) {
                for s in 0..b.symmetries().len() {
                    let gm = b.map_move(&mv, s, false);
                    assert_eq!(
                        b.apply_move(b.apply_symmetry(bits, s), &gm),
                        Some(b.apply_symmetry(after, s))
                    );
                    assert_eq!(b.map_move(&gm, s, true), mv);
                }
            }
        }
    }
}

#[test]
fn peg_geometry_of_grid_boards() {
    let e = board("english33");
    assert_eq!((e.holes, e.jumps.len()), (33, 76));
    assert_eq!(e.start, ((1u64 << 33) - 1) & !(1 << 16));
    assert_eq!(e.coordinates.as_ref().unwrap()[16], (3, 3));
    // Jump lines are runs of three consecutive holes in a row or column, two directions
    // each: a row of width w has w-2 runs.
    let runs = |widths: &[usize]| 2 * widths.iter().map(|w| w.saturating_sub(2)).sum::<usize>();
    let f = board("french37");
    assert_eq!(f.holes, 37);
    assert_eq!(f.jumps.len(), 2 * runs(&[3, 5, 7, 7, 7, 5, 3]));
    assert_eq!(f.jumps.len(), 92);
    assert_eq!(f.automorphisms().len(), 8);
    let d = board("board41");
    assert_eq!(d.holes, 41);
    assert_eq!(d.jumps.len(), 2 * runs(&[1, 3, 5, 7, 9, 7, 5, 3, 1]));
    assert_eq!(d.automorphisms().len(), 8);
    assert_eq!(e.automorphisms().len(), 8);
}

/// The position-class invariant of a grid position (see the module docs).
fn position_class(b: &Board, bits: u64) -> [u8; 4] {
    let (mut a, mut d) = ([0u8; 3], [0u8; 3]);
    for (i, &(r, c)) in b.coordinates.as_ref().unwrap().iter().enumerate() {
        if bits >> i & 1 == 1 {
            a[(r as usize + c as usize) % 3] ^= 1;
            d[(r as usize + 6 - c as usize) % 3] ^= 1;
        }
    }
    [a[0] ^ a[1], a[1] ^ a[2], d[0] ^ d[1], d[1] ^ d[2]]
}

#[test]
fn peg_grid_starts_and_finishes_share_a_position_class() {
    for name in ["english33", "french37", "board41"] {
        let b = board(name);
        assert_eq!(
            position_class(&b, b.start),
            position_class(&b, b.finish),
            "{name}"
        );
        let full = (1u64 << b.holes) - 1;
        let complement_possible = position_class(&b, full) == [0; 4];
        assert_eq!(complement_possible, name == "english33");
    }
}

#[test]
fn peg_notation() {
    let b = board("hoppers");
    assert_eq!(b.format(b.start), "1111110111111");
    assert_eq!(b.parse("1111110111111"), Ok(b.start));
    assert_eq!(b.parse(" 1111110111111\n"), Ok(b.start));
    assert!(b.parse("111111011111").is_err());
    assert!(b.parse("11111101111112").is_err());
    assert!(b.parse("111111x111111").is_err());
    for bits in positions(&b, 100) {
        assert_eq!(b.parse(&b.format(bits)), Ok(bits));
    }
    assert_eq!(
        Board::format_moves(&[vec![10, 12], vec![3, 10, 12, 3]]),
        "[10,12][3,10,12,3]"
    );
    let def = b.definition();
    assert_eq!(def["holes"], 13);
    assert_eq!(def["symmetries"].as_array().unwrap().len(), 8);
    assert_eq!(def, b.definition());
}

#[test]
fn peg_apply_move_rejects_illegal_moves() {
    let b = board("chinese-checkers");
    assert_eq!(
        b.apply_move(b.start, &[3, 12]),
        Some(b.start ^ (1 << 3) ^ (1 << 7) ^ (1 << 12))
    );
    assert_eq!(b.apply_move(b.start, &[3, 5]), None); // landing hole full
    assert_eq!(b.apply_move(b.start, &[0, 12]), None); // not a jump line
    assert_eq!(b.apply_move(b.start, &[3]), None);
    assert_eq!(b.apply_move(b.start, &[3, 12, 3]), None); // second jump lands on a peg
    assert_eq!(b.apply_move(b.start, &[99, 12]), None);
}

#[test]
fn peg_chinese_checkers_nine_moves_and_seed_solution() {
    let (b, t) = table("chinese-checkers");
    assert_eq!(t.max_distance, 9);
    let seed: Vec<Vec<u8>> = vec![
        vec![10, 12],
        vec![13, 11],
        vec![3, 10, 12, 3],
        vec![1, 6],
        vec![5, 3],
        vec![6, 1],
        vec![14, 5],
        vec![2, 9, 7],
        vec![0, 3, 12],
    ];
    let end = seed
        .iter()
        .try_fold(b.start, |bits, mv| b.apply_move(bits, mv))
        .unwrap();
    assert_eq!(end, b.finish);
    assert_eq!(seed.len() as u8, t.max_distance);
}

/// Solutions of the start whose first move begins with the jump `from -> to`.
fn solutions_starting_with(b: &Board, t: &PegTable, from: u8, to: u8) -> u64 {
    let d = t.max_distance;
    b.moves(b.start)
        .into_iter()
        .filter(|(mv, _)| mv[0] == from && mv[1] == to)
        .filter_map(|(_, after)| t.row(b.canonical(after).0))
        .filter(|r| r.distance == Some(d - 1))
        .map(|r| r.solutions.unwrap())
        .sum()
}

#[test]
fn peg_hoppers_seven_moves_72_solutions() {
    let (b, t) = table("hoppers");
    assert_eq!(t.max_distance, 7);
    let start = t.row(b.canonical(b.start).0).unwrap();
    assert_eq!(start.solutions, Some(72));
    assert_eq!(solutions_starting_with(b, t, 0, 6), 18);
}

#[test]
fn peg_triangle21_twelve_moves_192_solutions() {
    let (b, t) = table("triangle21");
    assert_eq!(t.max_distance, 12);
    let start = t.row(b.canonical(b.start).0).unwrap();
    assert_eq!(start.solutions, Some(192));
    assert_eq!(solutions_starting_with(b, t, 14, 6), 96);
}

#[test]
fn peg_small_tables_satisfy_their_recurrences() {
    for name in ["chinese-checkers", "hoppers", "triangle21"] {
        let (b, t) = table(name);
        assert!(t.all_reachable_stored);
        assert!(t.rows.windows(2).all(|w| w[0].bits < w[1].bits));
        for r in &t.rows {
            assert_eq!(b.canonical(r.bits).0, r.bits);
            assert_eq!(r.pegs as u32, r.bits.count_ones());
            assert_eq!(r.class_size, b.class_size(r.bits));
            // Every move from a stored position lands on a stored position.
            let results: Vec<(Vec<u8>, &PegRow)> = b
                .moves(r.bits)
                .into_iter()
                .map(|(mv, after)| (mv, t.row(b.canonical(after).0).expect("reachable")))
                .collect();
            if r.bits == b.canonical(b.finish).0 {
                assert_eq!((r.distance, r.solutions), (Some(0), Some(1)));
                continue;
            }
            let best = results.iter().filter_map(|(_, x)| x.distance).min();
            assert_eq!(
                r.distance,
                best.map(|d| d + 1),
                "{name} {}",
                b.format(r.bits)
            );
            let Some(d) = r.distance else {
                assert!(r.next_move.is_none() && r.next_bits.is_none() && r.solutions == Some(0));
                continue;
            };
            let mv = r.next_move.as_ref().unwrap();
            let after = b.apply_move(r.bits, mv).expect("next move is legal");
            assert_eq!(Some(b.canonical(after).0), r.next_bits);
            assert_eq!(t.row(r.next_bits.unwrap()).unwrap().distance, Some(d - 1));
            let count: u64 = results
                .iter()
                .filter(|(_, x)| x.distance == Some(d - 1))
                .map(|(_, x)| x.solutions.unwrap())
                .sum();
            assert_eq!(r.solutions, Some(count));
        }
        // Layer statistics agree with the rows.
        let classes: u64 = t.layers.iter().map(|l| l.reachable_classes).sum();
        assert_eq!(classes, t.rows.len() as u64);
        for l in &t.layers {
            let in_layer: Vec<&PegRow> = t.rows.iter().filter(|r| r.pegs == l.pegs).collect();
            let sizes = |f: &dyn Fn(&PegRow) -> bool| -> u64 {
                in_layer
                    .iter()
                    .filter(|r| f(r))
                    .map(|r| r.class_size as u64)
                    .sum()
            };
            assert_eq!(l.reachable, sizes(&|_| true));
            assert_eq!(l.can_finish, sizes(&|r| r.distance.is_some()));
            assert_eq!(
                l.can_finish_classes,
                in_layer.iter().filter(|r| r.distance.is_some()).count() as u64
            );
        }
        let start = t.row(b.canonical(b.start).0).unwrap();
        assert_eq!(start.distance, Some(t.max_distance));
    }
}

/// Memo of [`brute`]: (position, hole that may continue for free) -> (moves, count).
type Memo = HashMap<(u64, Option<u8>), Option<(u8, u64)>>;

/// Independent formulation: single jumps, carrying the hole the last jump landed on (a
/// jump from there continues the move for free). Returns (min moves, number of jump
/// sequences achieving it) from `bits` to the single peg `finish`, memoised.
fn brute(
    b: &Board,
    bits: u64,
    last: Option<u8>,
    finish: u64,
    memo: &mut Memo,
) -> Option<(u8, u64)> {
    if bits == finish {
        return Some((0, 1));
    }
    if let Some(&v) = memo.get(&(bits, last)) {
        return v;
    }
    let mut best: Option<(u8, u64)> = None;
    for j in &b.jumps {
        let (f, o, t) = (1u64 << j.from, 1u64 << j.over, 1u64 << j.to);
        if bits & f != 0 && bits & o != 0 && bits & t == 0 {
            let cost = if last == Some(j.from) { 0 } else { 1 };
            if let Some((d, n)) = brute(b, bits ^ f ^ o ^ t, Some(j.to), finish, memo) {
                let d = d + cost;
                best = match best {
                    Some((bd, bn)) if bd == d => Some((d, bn + n)),
                    Some((bd, _)) if bd < d => best,
                    _ => Some((d, n)),
                };
            }
        }
    }
    memo.insert((bits, last), best);
    best
}

#[test]
fn peg_matrix_diagonals_and_brute_force() {
    for (name, hole, d) in [
        ("chinese-checkers", 12, 9),
        ("hoppers", 6, 7),
        ("triangle21", 6, 12),
    ] {
        let b = board(name);
        let m = matrix(&b, &Silent);
        assert_eq!(m.len(), b.holes);
        assert_eq!(m[hole][hole], Some(d), "{name}");
        if name != "triangle21" {
            // Every entry of the small boards against the single-jump formulation.
            let full = (1u64 << b.holes) - 1;
            for (s, row) in m.iter().enumerate() {
                for (f, &entry) in row.iter().enumerate() {
                    let mut memo = HashMap::new();
                    let r = brute(&b, full & !(1 << s), None, 1 << f, &mut memo).map(|x| x.0);
                    assert_eq!(entry, r, "{name} {s}->{f}");
                }
            }
        }
    }
}

#[test]
fn peg_solution_counts_match_single_jump_brute_force() {
    for name in ["chinese-checkers", "hoppers", "triangle21"] {
        let (b, t) = table(name);
        let mut memo = HashMap::new();
        let (d, n) = brute(b, b.start, None, b.finish, &mut memo).unwrap();
        let start = t.row(b.canonical(b.start).0).unwrap();
        assert_eq!(
            (Some(d), Some(n)),
            (start.distance, start.solutions),
            "{name}"
        );
    }
}

#[test]
fn peg_definition_only_boards_are_refused() {
    assert_eq!(
        solve(&board("board41"), &Silent).unwrap_err(),
        PegError::NotTabulated("board41".into())
    );
    // The French boards are the layer solver's: this one would need tens of gigabytes.
    assert_eq!(
        solve(&board("french37"), &Silent).unwrap_err(),
        PegError::Layers(
            "french37".into(),
            "stored as layers: the layer solver builds it".into()
        )
    );
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        layers::solve(&board("board41"), dir.path(), &Silent),
        Err(PegError::NotTabulated(_))
    ));
}

#[test]
#[ignore = "heavy: about 20 s and 1.2 GiB in release mode"]
fn peg_english33_central_game() {
    let b = board("english33");
    let t = solve(&b, &Silent).unwrap();
    let reachable: u64 = t.layers.iter().map(|l| l.reachable).sum();
    let can_finish: u64 = t.layers.iter().map(|l| l.can_finish).sum();
    assert_eq!(reachable, 187_636_299);
    assert_eq!(can_finish, 13_428_122);
    assert!(!t.all_reachable_stored);
    // The published minimum for the central game is 18 moves (Beasley, 1964 proof of
    // optimality of Bergholt's 1912 solution); the engine computes it.
    assert_eq!(t.max_distance, 18);
}

#[test]
fn peg_results_do_not_depend_on_thread_count() {
    let b = board("triangle21");
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| solve(&b, &Silent).unwrap());
    let (_, many) = table("triangle21");
    assert_eq!(one.rows, many.rows);
    assert_eq!(one.layers, many.layers);
    assert_eq!(one.max_distance, many.max_distance);
    let m1 = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| matrix(&b, &Silent));
    assert_eq!(m1, matrix(&b, &Silent));
}

/// The matrix searches one start per class of holes under the jump lines' symmetries;
/// every row must be what a search from that very start gives.
#[test]
fn peg_matrix_rows_by_symmetry_match_a_search_from_every_start() {
    for name in ["chinese-checkers", "hoppers", "triangle21"] {
        let b = board(name);
        assert!(b.automorphisms().len() > 1, "{name}: symmetric");
        let full = (1u64 << b.holes) - 1;
        let m = matrix(&b, &Silent);
        for (s, row) in m.iter().enumerate() {
            assert_eq!(
                row,
                &super::solve::matrix_row(&b, full & !(1u64 << s)),
                "{name}: start {s}"
            );
        }
    }
}

/// A line of `holes` holes (jumps along it), to parse moves against.
fn parse_move(text: &str, holes: usize) -> Option<Vec<u8>> {
    let rows: Vec<Vec<(u8, u8)>> = (0..holes)
        .map(|h| {
            let mut r = Vec::new();
            if h + 2 < holes {
                r.push((h as u8 + 1, h as u8 + 2));
            }
            if h >= 2 {
                r.push((h as u8 - 1, h as u8 - 2));
            }
            r
        })
        .collect();
    Board::from_table("moves", &rows, 0, 0, false).parse_move(text)
}

#[test]
fn stored_moves_must_name_holes_of_the_board() {
    assert_eq!(parse_move("[3,10,12,3]", 15), Some(vec![3, 10, 12, 3]));
    assert_eq!(parse_move("[3,10,15]", 15), None);
    assert_eq!(parse_move("[3,x]", 15), None);
    assert_eq!(parse_move("3,10", 15), None);
    // Exactly the notation format_moves writes: no spaces, no signs, nothing empty.
    assert_eq!(parse_move("[3, 10]", 15), None);
    assert_eq!(parse_move("[+3,10]", 15), None);
    assert_eq!(parse_move("[]", 15), None);
    assert_eq!(parse_move("[3,10,12,3]", 13), Some(vec![3, 10, 12, 3]));
    assert_eq!(parse_move("[3,13]", 13), None);
    assert_eq!(parse_move("3,10", 13), None);
    assert_eq!(parse_move("[3, 10]", 13), None);
    let m = vec![3, 10, 12, 3];
    assert_eq!(
        parse_move(&Board::format_moves(std::slice::from_ref(&m)), 15),
        Some(m)
    );
}
