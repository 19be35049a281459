//! Answers as text for a terminal: the lines `query`, `list`, `verify`,
//! `check-definition` and `generate` print. Each function returns the lines; the CLI
//! only writes them. The JSON forms are in [`crate::answers::json`].

use crate::answers::{
    Database, Histogram, ListAnswer, LongestAnswer, SearchAnswer, Solutions, StateAnswer,
    counts_absent,
};
use crate::catalog::plan::Plan;
use crate::core::records::{PegLayerRow, PuzzleInfo};
use crate::families::layout;
use crate::generate::Summary;
use crate::render::draw;
use crate::solvers::peg::Board;
use crate::verify::Report;

/// A distance lookup: the figures, the moves (peg), and the path, each step drawn as a
/// board under it unless `plain` (boards come from the puzzle's layout in `db`).
pub fn state(db: &Database, a: &StateAnswer, plain: bool) -> Vec<String> {
    let absent = || match db.puzzle(&a.puzzle) {
        Ok((p, _)) => format!("not stored: {}", counts_absent(&p)),
        Err(_) => "not stored".to_string(),
    };
    let mut out = vec![
        format!("puzzle:    {}", a.puzzle),
        format!("state:     {}", a.state),
        format!("distance:  {}", a.distance),
        format!(
            "solutions: {}",
            match a.solutions {
                Solutions::Exactly(n) => n.to_string(),
                Solutions::Overflow => "more than 2^63-1".to_string(),
                Solutions::NotStored => absent(),
            }
        ),
    ];
    if let Some(cluster) = a.cluster {
        out.push(format!(
            "cluster:   {cluster} positions reachable from it (itself included)"
        ));
    }
    if let Some(moves) = &a.moves {
        out.push(format!("moves:     {}", Board::format_moves(moves)));
    }
    if let Some(names) = &a.move_names {
        out.push(format!("moves:     {}", move_sequence(names)));
    }
    out.push(format!("path ({} moves):", a.distance));
    let drawing = (!plain).then(|| board_drawer(db, &a.puzzle));
    for (i, s) in a.path.iter().enumerate() {
        let mv = match (&a.moves, &a.move_names, i) {
            (Some(m), _, 1..) if !plain => format!("  {}", Board::format_moves(&m[i - 1..i])),
            (_, Some(n), 1..) if !plain => format!("  {}", n[i - 1]),
            _ => String::new(),
        };
        out.push(format!("{i:>4}  {s}{mv}"));
        if let Some(draw) = &drawing {
            out.extend(draw(s).into_iter().map(|line| format!("      {line}")));
        }
    }
    out
}

/// Named moves in a row: `R U2 F'` as a cuber writes them, or, where a name has a space
/// of its own (`press 1,2`, `1: A→C`), separated by semicolons; none at the goal.
fn move_sequence(names: &[String]) -> String {
    if names.is_empty() {
        "(none: this is the goal)".to_string()
    } else if names.iter().any(|n| n.contains(' ')) {
        names.join("; ")
    } else {
        names.join(" ")
    }
}

/// Draws positions of `name` as boards, on the layout of its definition (a user's
/// puzzle's comes from the definition stored in the file); no drawing without one.
fn board_drawer(db: &Database, name: &str) -> impl Fn(&str) -> Vec<String> {
    let found = (db.puzzle(name).ok())
        .and_then(|(p, _)| Some((p.family().to_string(), layout::layout(&p)?)));
    move |state| match &found {
        Some((family, l)) => draw::board(family, l, state),
        None => Vec::new(),
    }
}

/// The longest positions.
pub fn longest(a: &LongestAnswer) -> Vec<String> {
    let mut out = vec![format!(
        "{}: maximum distance {} moves, {} position(s){}",
        a.puzzle,
        a.distance,
        a.count,
        if a.states.is_empty() && a.count > 0 {
            " (too many for the file to keep them; `query --histogram` counts them)"
        } else {
            ":"
        }
    )];
    out.extend(a.states.iter().map(|s| format!("  {s}")));
    out
}

/// The text bars after each histogram count (none with `plain`).
fn bars_for(plain: bool, counts: &[u64]) -> Vec<String> {
    if plain {
        return vec![String::new(); counts.len()];
    }
    draw::bars(counts, 50)
        .into_iter()
        .map(|b| format!("  {b}"))
        .collect()
}

/// Positions per distance, or solutions per side sum, with a bar each unless `plain`.
pub fn histogram(h: &Histogram, plain: bool) -> Vec<String> {
    let (head, rows): (&str, Vec<(String, u64)>) = match h {
        Histogram::ByDistance(h) => (
            "distance  positions",
            h.iter()
                .map(|r| (r.distance.to_string(), r.positions))
                .collect(),
        ),
        Histogram::ByValue(h) => (
            "side sum  solutions",
            h.iter().map(|(v, n)| (v.to_string(), *n)).collect(),
        ),
    };
    let mut out = vec![head.to_string()];
    let bars = bars_for(plain, &rows.iter().map(|r| r.1).collect::<Vec<_>>());
    for ((label, n), bar) in rows.iter().zip(bars) {
        out.push(format!("{label:>8}  {n:>9}{bar}"));
    }
    out.push(format!(
        "   total  {:>9}",
        rows.iter().map(|r| r.1).sum::<u64>()
    ));
    out
}

/// A peg board's start-by-finish matrix.
pub fn matrix(name: &str, m: &[Vec<Option<u8>>]) -> Vec<String> {
    let cell = |d: &Option<u8>| d.map_or("-".to_string(), |d| d.to_string());
    let mut out = vec![
        format!(
            "{name}: minimum moves from start (row: empty hole) to finish (column: last peg); - = impossible"
        ),
        format!(
            "     {}",
            (0..m.len()).map(|f| format!("{f:>3}")).collect::<String>()
        ),
    ];
    for (s, row) in m.iter().enumerate() {
        out.push(format!(
            "{s:>3}  {}",
            row.iter()
                .map(|d| format!("{:>3}", cell(d)))
                .collect::<String>()
        ));
    }
    out
}

/// A peg board's layers, with their totals. "with last peg" counts the reachable
/// (position, hole of the peg that moved last) pairs, Meyrignac's positions.
pub fn layers(rows: &[PegLayerRow]) -> Vec<String> {
    let mut out = vec![
        "pegs     reachable    can finish  with last peg   (up to symmetry:  reachable  can finish)"
            .into(),
    ];
    for l in rows {
        out.push(format!(
            "{:>4}  {:>12}  {:>12}  {:>13}                     {:>10}  {:>10}",
            l.pegs,
            l.reachable,
            l.can_finish,
            l.reachable_pairs,
            l.reachable_classes,
            l.can_finish_classes
        ));
    }
    let (r, c, p) = rows.iter().fold((0, 0, 0), |(r, c, p), l| {
        (r + l.reachable, c + l.can_finish, p + l.reachable_pairs)
    });
    out.push(format!("total {r:>12}  {c:>12}  {p:>13}"));
    out
}

/// A list of solutions.
pub fn list(a: &ListAnswer) -> Vec<String> {
    let mut out = vec![format!("{}: {} solution(s)", a.puzzle, a.states.len())];
    out.extend(a.states.iter().map(|s| format!("  {s}")));
    out
}

/// A solution found by search: the path, and what the search cost; each step drawn as
/// a grid under it unless `plain` (as [`state`] draws them).
pub fn search(db: &Database, a: &SearchAnswer, plain: bool) -> Vec<String> {
    let mut out = vec![
        format!("puzzle:    {}", a.puzzle),
        format!("state:     {}", a.state),
        format!(
            "distance:  {} (optimal: IDA* over admissible pattern databases)",
            a.distance
        ),
        format!(
            "tables:    partition {}{}, read in {:.3} s",
            a.partition,
            if a.reflected {
                " with the reflected lookup"
            } else {
                ""
            },
            a.load_seconds
        ),
        format!(
            "search:    {} nodes expanded ({} generated) in {:.4} s",
            a.expanded, a.generated, a.seconds
        ),
        format!("path ({} moves):", a.distance),
    ];
    let drawing = (!plain).then(|| board_drawer(db, &a.puzzle));
    for (i, s) in a.path.iter().enumerate() {
        out.push(format!("{i:>4}  {s}"));
        if let Some(draw) = &drawing {
            out.extend(draw(s).into_iter().map(|line| format!("      {line}")));
        }
    }
    out
}

/// The table `list` prints: a header, a line per stored puzzle, each column as wide as
/// its widest entry, and a legend saying what the two counts count.
pub fn puzzles(infos: &[PuzzleInfo]) -> Vec<String> {
    let header = [
        "puzzle",
        "family",
        "storage",
        "stored",
        "solvable",
        "max",
        "generated at",
    ];
    let rows: Vec<[String; 7]> = infos
        .iter()
        .map(|i| {
            [
                i.name.clone(),
                i.family.clone(),
                i.storage.as_str().to_string(),
                group_thousands(i.states),
                group_thousands(i.solvable),
                i.max_distance.map_or("-".to_string(), |d| d.to_string()),
                i.generated_at.clone(),
            ]
        })
        .collect();
    let width = |c: usize| {
        rows.iter()
            .map(|r| r[c].chars().count())
            .chain([header[c].len()])
            .max()
            .unwrap_or(0)
    };
    let w: Vec<usize> = (0..7).map(width).collect();
    let line = |cols: [&str; 7]| {
        format!(
            "{:<w0$}  {:<w1$}  {:<w2$}  {:>w3$}  {:>w4$}  {:>w5$}  {}",
            cols[0],
            cols[1],
            cols[2],
            cols[3],
            cols[4],
            cols[5],
            cols[6],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3],
            w4 = w[4],
            w5 = w[5],
        )
    };
    let mut out = vec![line(header)];
    for r in &rows {
        out.push(line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5], &r[6]]));
    }
    out.push(String::new());
    out.push(
        "stored: entries of the puzzle's table (rank space of a move puzzle, pattern-table \
         entries for patterns, positions reachable on a peg board, arrangements examined by \
         an enumeration); solvable: positions that reach the goal (solutions of an \
         enumeration); max: the largest distance"
            .to_string(),
    );
    out
}

/// `1234567` as `1,234,567`.
fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `generate`'s line for one puzzle.
pub fn summary(s: &Summary) -> String {
    let max = s.max_distance.map_or("-".to_string(), |d| d.to_string());
    let how = if s.reused {
        "  (unchanged, reused)".to_string()
    } else {
        // States examined per second of wall time, and the peak memory of the run
        // while this puzzle was built.
        let rate = s.states as f64 / s.seconds.max(1e-9);
        let peak = s.peak_memory.map_or("-".to_string(), |b| {
            format!("{:.0} MiB", b as f64 / (1 << 20) as f64)
        });
        format!("  {:>7.2} M states/s  peak {peak:>9}", rate / 1e6)
    };
    // Wide enough for fifteen's 14-digit count of positions, so the columns stay put.
    format!(
        "{:<18} states {:>12}  solvable {:>14}  max distance {:>3}  {:>8.3} s{how}",
        s.name, s.states, s.solvable, max, s.seconds
    )
}

/// `verify`'s line for one puzzle that passed.
pub fn verified(r: &Report) -> String {
    format!(
        "{:<18} ok  {:<9} stored {:>13}  solvable {:>18}  max distance {:>3}  {:>8.3} s",
        r.puzzle,
        r.storage.as_str(),
        group_thousands(r.stored),
        group_thousands(r.solvable),
        r.max_distance.map_or("-".to_string(), |d| d.to_string()),
        r.seconds
    )
}

/// `generate --verify`'s line on what it checked: the puzzles re-derived, and those
/// carried over that were checked by checksum (e.g. `verify: english33 re-derived; 15
/// carried puzzles checked by checksum, and the file as a whole`).
pub fn verify_scope(c: &crate::verify::Checked) -> String {
    let names: Vec<&str> = c.reports.iter().map(|r| r.puzzle.as_str()).collect();
    let rederived = if names.is_empty() {
        "nothing built, nothing re-derived".to_string()
    } else {
        format!("{} re-derived", names.join(", "))
    };
    let n = c.by_checksum.len();
    let carried = match n {
        0 => "no carried puzzles".to_string(),
        1 => "1 carried puzzle checked by checksum".to_string(),
        _ => format!("{n} carried puzzles checked by checksum"),
    };
    let hint = if n > 0 {
        " (`puzzlebase verify` re-derives every puzzle)"
    } else {
        ""
    };
    format!("verify: {rederived}; {carried}, and the file as a whole{hint}")
}

/// `verify --key`'s line for a good signature, aligned with the puzzles' lines.
/// (minisign's own comments hold tabs: shown as spaces).
pub fn signature(key_id: &str, trusted_comment: &str) -> String {
    let comment: String = (trusted_comment.chars())
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!("{:<18} ok  key {key_id}  {comment}", "signature")
}

/// What `check-definition` says of a definition file that builds.
pub fn plan(file: &str, plan: &Plan) -> Vec<String> {
    let states = match plan.states {
        Some(n) if plan.states_exact => n.to_string(),
        Some(n) => format!("at most {n} (the solve finds the reachable positions)"),
        None => "found by the search".to_string(),
    };
    let bound = if plan.states_exact { "" } else { "at most " };
    let seconds = plan
        .seconds
        .map_or("time unknown before building".to_string(), |s| {
            format!("{bound}{s:.3} s")
        });
    let memory = plan.memory_bytes.map_or("memory unknown".to_string(), |b| {
        format!("{bound}{:.1} MiB", b as f64 / (1 << 20) as f64)
    });
    let mut out = vec![
        format!("{file}: ok"),
        format!("puzzle:    {}", plan.name),
        format!("family:    {}", plan.family),
    ];
    if plan.tables.is_empty() {
        out.push(format!("states:    {states}"));
    } else {
        // Answered by search: the figure is what building the default tables examines.
        out.push(format!(
            "states:    {states} (ranks the default tables' breadth-first searches examine)"
        ));
    }
    out.push(format!("storage:   {}", plan.storage));
    out.push(format!(
        "estimate:  {seconds}, {memory} (rates measured on the development machine)"
    ));
    if !plan.tabulate {
        out.push("generate:  not built (tabulate = false): a definition only".into());
    } else if !plan.nightly {
        out.push(format!(
            "generate:  built when named (`generate --puzzle {}`), not by the default run",
            plan.name
        ));
    }
    for t in &plan.tables {
        let tiles: Vec<String> = t.tiles.iter().map(u8::to_string).collect();
        out.push(format!(
            "table:     partition {} pattern {} (tiles {}): {} entries, a byte each{}",
            t.partition,
            t.pattern,
            tiles.join(","),
            t.entries,
            if t.default {
                ""
            } else {
                " (built with --partition)"
            }
        ));
    }
    out
}
