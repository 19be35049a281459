//! Peg boards: every stored position in canonical form, the set of stored positions tied
//! to the reachable set (recomputed, since `peg_layers` needs it anyway), and distances,
//! moves and counts checked over moves (chains of jumps) by the same local conditions as
//! a move puzzle's ranks; then the histogram, the layers by peg count and the
//! start-finish matrix, recomputed.

use crate::store::Reader;
use rayon::prelude::*;

use super::check::{Check, Derived, bad, first_failure, show_count, show_dist, show_opt};
use super::stored::{int, int_in, int_rows, must_be_empty, same_rows, text};
use crate::core::format::{COUNT_OVERFLOW, UNREACHED, add_counts};
use crate::core::progress::{Progress, Silent};
use crate::solvers::peg::{self, Board};
use crate::store::audit::Table;

/// A peg board's `positions` rows, sorted by rank (the canonical bitboard).
struct PegRows {
    bits: Vec<u64>,
    /// [`UNREACHED`] where NULL (cannot finish).
    dist: Vec<u8>,
    next: Vec<Option<u64>>,
    /// [`COUNT_OVERFLOW`] where NULL.
    count: Vec<u64>,
    moves: Vec<Option<String>>,
}

pub(super) fn peg_board(
    conn: &Reader,
    name: &str,
    board: &Board,
    progress: &dyn Progress,
) -> Check<Derived> {
    // The start-finish matrix needs nothing from the rows, and on the boards small
    // enough to have one its searches take as long as all the rest: they run on the
    // pool while this thread reads the rows, so they use the cores that reading leaves
    // idle.
    let mut matrix = None;
    let derived = rayon::in_place_scope(|scope| {
        if board.matrix {
            scope.spawn(|_| matrix = Some(peg::matrix(board, &Silent)));
        }
        rows_and_counts(conn, name, board, progress)
    })?;
    let matrix: Vec<Vec<Option<i64>>> = (matrix.unwrap_or_default().iter().enumerate())
        .flat_map(|(s, row)| {
            row.iter()
                .enumerate()
                .map(move |(f, &d)| vec![Some(s as i64), Some(f as i64), d.map(i64::from)])
        })
        .collect();
    let stored = int_rows(conn, Table::PegMatrix, name)?;
    let key = |r: &[Option<i64>]| format!("start {} finish {}", show_opt(r[0]), show_opt(r[1]));
    same_rows("peg_matrix", &key, &stored, &matrix)?;
    Ok(derived)
}

/// Everything but the matrix: the rows, the histogram and the layers.
fn rows_and_counts(
    conn: &Reader,
    name: &str,
    board: &Board,
    progress: &dyn Progress,
) -> Check<Derived> {
    must_be_empty(
        conn,
        name,
        &[
            Table::Solutions,
            Table::PackedTables,
            Table::PackedChunks,
            Table::Farthest,
        ],
    )?;
    let at = |b: u64| format!("rank {b} (state {})", board.format(b));
    // Reading is one thread's work: the reachable positions are searched on the pool
    // meanwhile.
    let (
        peg::Reachable {
            layers: forward,
            counts: pairs,
        },
        rows,
    ) = std::thread::scope(|scope| {
        let forward = scope.spawn(|| peg::reachable_layers(board, usize::MAX, progress));
        let rows = read_rows(conn, name, board);
        let forward = forward
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        (forward, rows)
    });
    let rows = rows?;
    // Each row's place by its rank: the move check looks up every successor of every
    // row, and a binary search over millions of ranks costs a cache miss per step.
    // (`rows.bits` is sorted and distinct: the rows are read in key order.)
    let index = peg::Lookup::new(&rows.bits);
    let find = |b: u64| index.position(b);

    // Canonical form first: every later lookup relies on it.
    let n = rows.bits.len() as u64;
    progress.phase("canonical forms", n);
    first_failure(n, progress, |i, _| {
        let b = rows.bits[i as usize];
        let c = board.canonical(b).0;
        if c != b {
            return bad(format!(
                "{}: not in canonical form (rank {c} is its class's)",
                at(b)
            ));
        }
        Ok(())
    })?;

    let classes: u64 = forward.iter().map(|l| l.len() as u64).sum();
    let all_reachable = classes <= peg::STORE_ALL_LIMIT;
    let start = board.canonical(board.start).0;
    let finish = board.canonical(board.finish).0;
    for (what, b) in [("start", start), ("finish", finish)] {
        match find(b) {
            Some(i) if rows.dist[i] != UNREACHED => {}
            Some(_) => return bad(format!("{}: the {what}, but no distance is stored", at(b))),
            None => return bad(format!("{}: the {what}, but it is missing", at(b))),
        }
    }
    let lookups: Vec<peg::Lookup> = forward.iter().map(|l| peg::Lookup::new(l)).collect();
    let in_forward = |b: u64| {
        lookups
            .get(b.count_ones() as usize)
            .is_some_and(|l| l.contains(b))
    };
    if all_reachable {
        // Every reachable position is a row, and nothing else is.
        let mut all: Vec<u64> = forward.concat();
        all.par_sort_unstable();
        if let Some(i) =
            (0..all.len().max(rows.bits.len())).find(|&i| all.get(i) != rows.bits.get(i))
        {
            return match (all.get(i), rows.bits.get(i)) {
                (Some(&w), Some(&s)) if s < w => bad(format!(
                    "{}: stored, but not reachable from the start",
                    at(s)
                )),
                (Some(&w), _) => bad(format!("{}: reachable from the start, but missing", at(w))),
                (None, Some(&s)) => bad(format!(
                    "{}: stored, but not reachable from the start",
                    at(s)
                )),
                (None, None) => unreachable!(),
            };
        }
    } else {
        // Only the positions that can finish are rows: each must be reachable and have a
        // distance, and every reachable single-jump predecessor of a row can finish
        // through it, so it must be a row too. Any reachable position that can finish
        // has a path from the start through such predecessors, so none is left out.
        progress.phase("rows reachable", n);
        first_failure(n, progress, |i, _| {
            let b = rows.bits[i as usize];
            if !in_forward(b) {
                return bad(format!(
                    "{}: stored, but not reachable from the start",
                    at(b)
                ));
            }
            if rows.dist[i as usize] == UNREACHED {
                return bad(format!(
                    "{}: no distance stored, but only positions that can finish are kept for this board",
                    at(b)
                ));
            }
            Ok(())
        })?;
        let mut by_pegs: Vec<Vec<u64>> = vec![Vec::new(); forward.len()];
        for &b in &rows.bits {
            by_pegs[b.count_ones() as usize].push(b);
        }
        if let Some((p, through)) = missing_predecessor(board, &by_pegs, &lookups, progress) {
            return bad(format!(
                "{}: reachable, and it can finish through rank {through}, but it is missing",
                at(p)
            ));
        }
    }

    // Distances, next moves and counts over moves (chains of jumps).
    let dist_of = |b: u64| find(b).map_or(UNREACHED, |i| rows.dist[i]);
    progress.phase("checking moves", n);
    first_failure(n, progress, |i, _| {
        let i = i as usize;
        let (b, d) = (rows.bits[i], rows.dist[i]);
        let (next, count, mv) = (rows.next[i], rows.count[i], rows.moves[i].as_deref());
        if b == finish {
            if d != 0 || count != 1 || next.is_some() || mv.is_some() {
                return bad(format!(
                    "{}: the finish, but distance {}, {} solutions, next rank {}, move {}",
                    at(b),
                    show_dist(Some(d).filter(|&d| d != UNREACHED)),
                    show_count(count),
                    show_opt(next),
                    mv.unwrap_or("NULL")
                ));
            }
            return Ok(());
        }
        // The rows of the successors that are stored; the first move (in enumeration
        // order) of the least distance, kept as it goes.
        let mut succ: Vec<usize> = Vec::with_capacity(16);
        let mut first: Option<(Vec<u8>, u64)> = None;
        let mut least = UNREACHED;
        board.for_each_move(b, |m, after| {
            let c = board.canonical(after).0;
            let row = find(c);
            succ.extend(row);
            let dd = row.map_or(UNREACHED, |j| rows.dist[j]);
            if dd != UNREACHED && (least == UNREACHED || dd < least) {
                least = dd;
                first = Some((m.to_vec(), c));
            }
        });
        let min = first.is_some().then_some(least);
        if d == UNREACHED {
            if min.is_some() {
                let (m, c, dd) = (board.moves(b).into_iter())
                    .map(|(m, after)| {
                        let c = board.canonical(after).0;
                        (m, c, dist_of(c))
                    })
                    .find(|s| s.2 != UNREACHED)
                    .expect("a successor with a distance");
                return bad(format!(
                    "{}: no distance stored, but move {} reaches rank {c} at distance {dd}",
                    at(b),
                    Board::format_moves(std::slice::from_ref(&m))
                ));
            }
            if count != 0 || next.is_some() || mv.is_some() {
                return bad(format!(
                    "{}: cannot finish, but {} solutions, next rank {}, move {} are stored",
                    at(b),
                    show_count(count),
                    show_opt(next),
                    mv.unwrap_or("NULL")
                ));
            }
            return Ok(());
        }
        if d == 0 {
            return bad(format!("{}: distance 0 but it is not the finish", at(b)));
        }
        let Some(min) = min else {
            return bad(format!(
                "{}: distance {d} but no move leads to a position that can finish",
                at(b)
            ));
        };
        if d != min + 1 {
            return bad(format!(
                "{}: distance {d} but its successors' minimum is {min}",
                at(b)
            ));
        }
        let (first, first_next) = first.expect("attained");
        let Some(text) = mv else {
            return bad(format!("{}: no move stored", at(b)));
        };
        let Some(after) = board.parse_move(text).and_then(|m| board.apply_move(b, &m)) else {
            return bad(format!("{}: move {text} is not a legal move", at(b)));
        };
        let after = board.canonical(after).0;
        if next != Some(after) {
            return bad(format!(
                "{}: move {text} leads to rank {after}, but next rank {} is stored",
                at(b),
                show_opt(next)
            ));
        }
        if dist_of(after) != min {
            return bad(format!(
                "{}: move {text} is not one step closer (it leads to distance {})",
                at(b),
                show_dist(Some(dist_of(after)).filter(|&d| d != UNREACHED))
            ));
        }
        let want = Board::format_moves(std::slice::from_ref(&first));
        if text != want || next != Some(first_next) {
            return bad(format!(
                "{}: move {text} is not the first optimal move in enumeration order ({want} is)",
                at(b)
            ));
        }
        // The seeds' counting: every optimal move contributes its result's count.
        let sum = (succ.iter())
            .filter(|&&j| rows.dist[j] == min)
            .fold(0, |s, &j| add_counts(s, rows.count[j]));
        if count != sum {
            return bad(format!(
                "{}: {} shortest solutions stored but its optimal moves' counts add up to {}",
                at(b),
                show_count(count),
                show_count(sum)
            ));
        }
        Ok(())
    })?;

    // Histogram by distance and layers by peg count, recomputed.
    let sizes: Vec<u32> = rows.bits.par_iter().map(|&b| board.class_size(b)).collect();
    let max = rows.dist.iter().copied().filter(|&d| d != UNREACHED).max();
    let mut histogram = vec![[0u64; 2]; max.map_or(0, |m| m as usize + 1)];
    let mut can_finish = vec![[0u64; 2]; forward.len()];
    for (i, &b) in rows.bits.iter().enumerate() {
        let d = rows.dist[i];
        if d != UNREACHED {
            histogram[d as usize][0] += sizes[i] as u64;
            histogram[d as usize][1] += 1;
            let k = b.count_ones() as usize;
            if let Some(slot) = can_finish.get_mut(k) {
                slot[0] += sizes[i] as u64;
                slot[1] += 1;
            }
        }
    }
    histogram_is(conn, name, &histogram)?;

    let layers: Vec<[u64; 6]> = (forward.iter().enumerate())
        .filter(|(_, l)| !l.is_empty())
        .map(|(k, l)| {
            [
                k as u64,
                pairs[k].positions,
                can_finish[k][0],
                l.len() as u64,
                can_finish[k][1],
                pairs[k].pairs,
            ]
        })
        .collect();
    layers_are(conn, name, &layers)?;

    let sum = |col: usize| layers.iter().map(|l| l[col]).sum();
    Ok(Derived {
        entries: rows.bits.len() as u64,
        states: sum(1),
        solvable: sum(2),
        max_distance: max.map(u32::from),
    })
}

/// Every `positions` row of the board, checked one by one as read: ranks within the
/// board, the state text the notation of the rank, values in range.
fn read_rows(conn: &Reader, name: &str, board: &Board) -> Check<PegRows> {
    let at = |b: u64| format!("rank {b} (state {})", board.format(b));
    let limit = if board.holes >= 63 {
        i64::MAX
    } else {
        (1i64 << board.holes) - 1
    };
    let mut rows = PegRows {
        bits: Vec::new(),
        dist: Vec::new(),
        next: Vec::new(),
        count: Vec::new(),
        moves: Vec::new(),
    };
    conn.for_each_row(Table::Positions, name, |row| -> Check<()> {
        let b = int_in(row[0], 0, limit, &|| "positions.rank".to_string())? as u64;
        let state = text(row[1], &|| format!("{}: state", at(b)))?;
        if state.as_deref() != Some(board.format(b).as_str()) {
            return bad(format!(
                "{}: state text {:?} is not the notation of the rank",
                at(b),
                state.unwrap_or_default()
            ));
        }
        let d = int(row[2], &|| format!("{}: distance", at(b)))?;
        rows.dist.push(match d {
            None => UNREACHED,
            Some(d) if (0..UNREACHED as i64).contains(&d) => d as u8,
            Some(d) => return bad(format!("{}: distance {d} is out of range", at(b))),
        });
        let next = int(row[3], &|| format!("{}: next_rank", at(b)))?;
        if next.is_some_and(|x| !(0..=limit).contains(&x)) {
            return bad(format!(
                "{}: next rank {} is not a position",
                at(b),
                show_opt(next)
            ));
        }
        rows.next.push(next.map(|x| x as u64));
        rows.count
            .push(match int(row[4], &|| format!("{}: solutions", at(b)))? {
                None => COUNT_OVERFLOW,
                Some(c) if c >= 0 => c as u64,
                Some(c) => return bad(format!("{}: {c} shortest solutions", at(b))),
            });
        rows.moves
            .push(text(row[5], &|| format!("{}: move", at(b)))?);
        rows.bits.push(b);
        Ok(())
    })?;
    Ok(rows)
}

/// A reachable position that is not among `rows` though it has a single jump to one of
/// them (and so can finish), with that row; `None` when every reachable single-jump
/// predecessor of a row is a row. `rows` and `reachable` hold canonical positions by peg
/// count, `rows` sorted and reachable; checked layer by layer, from the predecessors of
/// the rows with fewest pegs.
fn missing_predecessor(
    board: &Board,
    rows: &[Vec<u64>],
    reachable: &[peg::Lookup],
    progress: &dyn Progress,
) -> Option<(u64, u64)> {
    progress.phase("predecessors of rows", rows.len() as u64);
    for k in 0..rows.len() {
        progress.advance(1);
        let (Some(above), Some(reachable)) = (rows.get(k + 1), reachable.get(k + 1)) else {
            break;
        };
        if rows[k].is_empty() {
            continue;
        }
        let above = peg::Lookup::new(above);
        let preds = peg::single_jump_predecessors(board, &rows[k]);
        let missing =
            (preds.par_iter()).find_first(|&&p| !above.contains(p) && reachable.contains(p));
        if let Some(&p) = missing {
            let through = (board.moves(p).into_iter())
                .map(|(_, after)| board.canonical(after).0)
                .find(|c| rows[k].binary_search(c).is_ok())
                .expect("a predecessor has a jump to a row");
            return Some((p, through));
        }
    }
    None
}

/// The stored `histogram` of a peg board is `histogram`: (positions, classes) per
/// distance from 0.
pub(super) fn histogram_is(conn: &Reader, name: &str, histogram: &[[u64; 2]]) -> Check<()> {
    let want: Vec<Vec<Option<i64>>> = (histogram.iter().enumerate())
        .map(|(d, h)| vec![Some(d as i64), Some(h[0] as i64), Some(h[1] as i64)])
        .collect();
    let stored = int_rows(conn, Table::Histogram, name)?;
    let key = |r: &[Option<i64>]| format!("distance {}", show_opt(r[0]));
    same_rows("histogram", &key, &stored, &want)
}

/// The stored `peg_layers` rows are `layers`: (pegs, reachable, can finish, reachable
/// classes, can-finish classes, reachable pairs) per peg count present.
pub(super) fn layers_are(conn: &Reader, name: &str, layers: &[[u64; 6]]) -> Check<()> {
    let want: Vec<Vec<Option<i64>>> = (layers.iter())
        .map(|l| l.map(|v| Some(v as i64)).to_vec())
        .collect();
    let stored = int_rows(conn, Table::PegLayers, name)?;
    let key = |r: &[Option<i64>]| format!("pegs {}", show_opt(r[0]));
    same_rows("peg_layers", &key, &stored, &want)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog;
    use crate::families::Puzzle;

    /// The check of boards that keep only the positions that can finish, on a board small
    /// enough to keep them all: its can-finish positions pass, and with one taken out,
    /// that one is named.
    #[test]
    fn a_missing_position_that_can_finish_is_named() {
        let Some(Puzzle::Peg(board)) = catalog::find("triangle21") else {
            panic!("triangle21 is a peg board")
        };
        let table = peg::solve(&board, &Silent).unwrap();
        let forward = peg::reachable_layers(&board, usize::MAX, &Silent).layers;
        let reachable: Vec<peg::Lookup> = forward.iter().map(|l| peg::Lookup::new(l)).collect();
        let mut rows = vec![Vec::new(); forward.len()];
        for r in table.rows.iter().filter(|r| r.distance.is_some()) {
            rows[r.pegs as usize].push(r.bits);
        }
        assert_eq!(
            missing_predecessor(&board, &rows, &reachable, &Silent),
            None
        );
        let (start, finish) = (
            board.canonical(board.start).0,
            board.canonical(board.finish).0,
        );
        let mut taken = 0;
        for k in 0..rows.len() {
            let Some(&gone) = rows[k].iter().find(|&&b| b != start && b != finish) else {
                continue;
            };
            let mut damaged = rows.clone();
            damaged[k].retain(|&b| b != gone);
            let (p, through) = missing_predecessor(&board, &damaged, &reachable, &Silent)
                .expect("the missing position is found");
            assert_eq!(p, gone, "{k} pegs");
            assert_eq!(through.count_ones() as usize, k - 1);
            assert!(
                board
                    .moves(p)
                    .iter()
                    .any(|(_, a)| board.canonical(*a).0 == through)
            );
            taken += 1;
        }
        assert!(taken >= 8, "positions taken out of {taken} layers");
    }

    /// Both French boards' reachable layers from 36 pegs down to 22, counted again by the
    /// small boards' solver (sorted vectors of canonical positions, a method of its own),
    /// against the `peg_layers` rows of a file that holds both boards. About a minute and
    /// 5 GiB per board: `PUZZLEBASE_FRENCH_DB=path cargo test --release -p puzzlebase
    /// --lib french37_layers -- --ignored`.
    #[test]
    #[ignore = "heavy: needs a file holding french37 and french37-c1 (PUZZLEBASE_FRENCH_DB); .ci/run runs it with PUZZLEBASE_CI_HEAVY=1"]
    fn french37_layers_agree_with_the_hash_set_solver() {
        let Some(db) = std::env::var_os("PUZZLEBASE_FRENCH_DB") else {
            panic!("set PUZZLEBASE_FRENCH_DB to a file holding french37 and french37-c1");
        };
        let database = crate::Database::open(std::path::Path::new(&db)).unwrap();
        for name in ["french37", "french37-c1"] {
            let Some(Puzzle::Peg(board)) = catalog::find(name) else {
                panic!("{name} is a peg board")
            };
            let stored = database.layers(name).unwrap();
            let mut seen = 0;
            peg::for_each_reachable_layer(&board, 15, &Silent, |pegs, layer, counts| {
                let positions: u64 = layer.iter().map(|&b| board.class_size(b) as u64).sum();
                assert_eq!(counts.positions, positions, "{name}: {pegs} pegs");
                let row = stored.iter().find(|l| l.pegs as usize == pegs).unwrap();
                assert_eq!(
                    (row.reachable, row.reachable_classes),
                    (positions, layer.len() as u64),
                    "{name}: {pegs} pegs"
                );
                seen += 1;
            });
            assert_eq!(seen, 15);
        }
    }
}
