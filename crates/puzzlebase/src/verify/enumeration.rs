//! Enumerations (the magic triangle, knight's tours): the whole enumeration is re-run (it
//! is cheap) and compared with the rows one by one, so a missing, extra or changed
//! solution is named; a row unlike the enumeration's is first checked against the rule,
//! so that a broken one is named by the rule it breaks. (Rows equal to the enumeration's
//! keep the rule by construction, so the rule is not re-checked on each.)

use crate::store::Reader;

use super::check::{Check, Derived, Fail, bad, show_opt};
use super::stored::{int, int_in, none_in, text};
use crate::core::progress::Silent;
use crate::core::rank::FACT;
use crate::families::magic::Magic;
use crate::families::tour::TourBoard;
use crate::solvers::enumerate::Solution;
use crate::store::audit::Table;

/// Which enumeration a puzzle is, with its rules.
pub(super) enum Enumeration<'a> {
    Magic(&'a Magic),
    Tour(&'a TourBoard),
}

/// Checks the puzzle's rows against the enumeration, which runs on the pool while this
/// thread reads the rows, taking their checksum as it goes (one read, not one for the
/// rows and one for the checksum, and the other tables' emptiness told by the same
/// read). Returns what the rows give and their checksum.
pub(super) fn enumeration(
    conn: &Reader,
    name: &str,
    e: Enumeration<'_>,
) -> Check<(Derived, String)> {
    let mut want = Vec::new();
    let read = rayon::in_place_scope(|scope| {
        scope.spawn(|_| {
            want = match e {
                Enumeration::Magic(m) => m.solve(&Silent),
                Enumeration::Tour(board) => crate::families::tour::closed_tours(board, &Silent),
            };
        });
        stored_solutions(conn, name)
    });
    let (stored, sum) = read?;
    Ok((compare(&e, &stored, &want)?, sum))
}

/// The puzzle's `solutions` rows and the checksum of its rows, every other table of rows
/// checked empty.
fn stored_solutions(conn: &Reader, name: &str) -> Check<(Vec<Solution>, String)> {
    let mut stored: Vec<Solution> = Vec::new();
    let columns = ["rank", "state", "value", "canonical"];
    let (sum, counts) = conn.checksum_with_rows(name, Some(Table::Solutions), columns, |row| {
        let rank = int_in(row[0], 0, i64::MAX, &|| "solutions.rank".to_string())?;
        let at = || format!("rank {rank}");
        let state = text(row[1], &|| format!("{}: state", at()))?.unwrap_or_default();
        let at = || format!("rank {rank} (state {state})");
        let value = int(row[2], &|| format!("{}: value", at()))?;
        let canonical = int_in(row[3], 0, 1, &|| format!("{}: canonical", at()))? == 1;
        stored.push(Solution {
            rank: rank as u64,
            state,
            value,
            canonical,
        });
        Ok::<_, Fail>(())
    })?;
    none_in((Table::ALL.into_iter().zip(counts)).filter(|(t, _)| *t != Table::Solutions))?;
    Ok((stored, sum))
}

/// The stored solutions against the enumeration's `want`: a missing, extra or changed
/// one is named, by the rule it breaks where it breaks one.
fn compare(e: &Enumeration<'_>, stored: &[Solution], want: &[Solution]) -> Check<Derived> {
    for (i, w) in want.iter().enumerate() {
        let at = format!("rank {} (state {})", w.rank, w.state);
        if let Some(s) = stored.get(i).filter(|&s| s != w) {
            rule(e, s)?;
        }
        match stored.get(i) {
            Some(s) if s == w => {}
            Some(s) if s.rank < w.rank => {
                return bad(format!(
                    "rank {} (state {}): stored, but not a solution the enumeration finds",
                    s.rank, s.state
                ));
            }
            Some(s) if s.rank == w.rank && s.state != w.state => {
                return bad(format!("{at}: state text {:?} stored instead", s.state));
            }
            Some(s) if s.rank == w.rank && s.canonical != w.canonical => {
                return bad(if w.canonical {
                    format!("{at}: its class's one representative, but not marked canonical")
                } else {
                    format!("{at}: marked canonical, but its class's representative is another row")
                });
            }
            Some(s) if s.rank == w.rank => {
                return bad(format!(
                    "{at}: value {} stored, {} expected",
                    show_opt(s.value),
                    show_opt(w.value)
                ));
            }
            _ => return bad(format!("{at}: a solution, but it is missing")),
        }
    }
    if let Some(s) = stored.get(want.len()) {
        rule(e, s)?;
        return bad(format!(
            "rank {} (state {}): stored, but not a solution the enumeration finds",
            s.rank, s.state
        ));
    }
    let states = match e {
        Enumeration::Magic(m) => FACT[m.positions()],
        Enumeration::Tour(_) => want.len() as u64,
    };
    Ok(Derived {
        entries: want.len() as u64,
        states,
        solvable: want.len() as u64,
        max_distance: None,
    })
}

/// The rule itself, for one stored row: a row that breaks it is named by the rule it
/// breaks, rather than only as unlike the enumeration's.
fn rule(e: &Enumeration<'_>, s: &Solution) -> Check<()> {
    let (rank, state, value) = (s.rank, &s.state, s.value);
    let at = || format!("rank {rank} (state {state})");
    match e {
        Enumeration::Magic(m) => {
            let Ok(digits) = m.parse(state) else {
                return bad(format!("{}: not an arrangement of 1..9", at()));
            };
            let Some(sum) = m.side_sum(&digits) else {
                return bad(format!("{}: its three sides have different sums", at()));
            };
            if value != Some(sum) {
                return bad(format!(
                    "{}: side sum {} stored, its sides sum to {sum}",
                    at(),
                    show_opt(value)
                ));
            }
            let r = m.rank(&digits);
            if r != rank || crate::families::magic::format_magic(&digits) != *state {
                return bad(format!("{}: the arrangement's rank is {r}", at()));
            }
        }
        Enumeration::Tour(board) => {
            if let Err(err) = board.parse_tour(state) {
                return bad(format!("{}: not a closed knight's tour: {err}", at()));
            }
            if value.is_some() {
                return bad(format!("{}: a value is stored, but tours have none", at()));
            }
        }
    }
    Ok(())
}
