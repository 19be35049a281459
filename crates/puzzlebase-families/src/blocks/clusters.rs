//! Rush Hour as a puzzle of the catalogue (family `rush-hour`): any 6x6 board in Michael
//! Fogleman's notation, walls included, answered by searching the board's cluster
//! ([`rush::solve_bounded`]). Nothing is tabulated: the complete table of the 6x6
//! layouts ([`super::layouts`] ranks them) is not built yet, so every answer is a
//! search, as `fifteen`'s are.

use serde::Deserialize;
use serde_json::json;

use super::rush::{self, Board, RushError, Solved};
use super::spec::grid_layout;
use crate::spec::{Problem, Spec, common, problem};
use crate::{Family, Puzzle};
use puzzlebase_core::definition::Source;
use puzzlebase_core::space::StateError;
use puzzlebase_solvers::search::{Stop, Stopped};

/// The `rush-hour` family in the registry.
pub const FAMILY: Family = Family {
    name: "rush-hour",
    keys: &["start"],
    build: |spec| Ok(Puzzle::Clusters(rush_hour(spec)?)),
};

/// The family reads no keys of its own: `start` is a shared one.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {}

/// Every board one slide from `board` (a checked board), with its move.
fn next_boards(board: &Board) -> Vec<(rush::Move, Board)> {
    let mut out = Vec::new();
    for piece in &board.pieces {
        for by in -5..=5i8 {
            let mv = rush::Move {
                piece: piece.letter,
                by,
            };
            if by != 0
                && let Ok(next) = board.apply(mv)
            {
                out.push((mv, next));
            }
        }
    }
    out
}

/// Rush Hour boards, each answered by a search of its cluster.
pub struct RushHour {
    name: String,
    /// The board the page shows first, in notation.
    start: String,
    source: Source,
}

/// A board's answer: its distance, an optimal path and its cluster's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterAnswer {
    /// The board as [`Board::notation`] writes it (`o` empty, `x` a wall).
    pub state: String,
    /// Moves to the nearest solved position.
    pub distance: u32,
    /// The positions from the board to a solved one, both included.
    pub path: Vec<String>,
    /// The moves along `path`, in Fogleman's notation (`B+2`: `B` two cells right or
    /// down).
    pub moves: Vec<String>,
    /// The positions reachable from the board, the board included.
    pub cluster: u64,
}

/// Why a board's search gives no answer: the board is none or cannot be solved (one
/// line), or the search was stopped (its deadline passed, its caller went away).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClusterError {
    /// The board is malformed, its cluster too large, or it cannot be solved.
    #[error(transparent)]
    State(#[from] StateError),
    /// The search gave up.
    #[error(transparent)]
    Stopped(Stopped),
}

fn malformed(text: &str, e: RushError) -> StateError {
    StateError::malformed(text, e.to_string())
}

fn refused(text: &str, e: RushError) -> ClusterError {
    match e {
        RushError::Stopped(why) => ClusterError::Stopped(why),
        e => ClusterError::State(malformed(text, e)),
    }
}

impl RushHour {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The board the page shows first.
    pub fn start(&self) -> &str {
        &self.start
    }

    /// The board written `text`, or why it is none (one line, never a panic).
    pub fn read(&self, text: &str) -> Result<Board, StateError> {
        let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        Board::parse(&squeezed).map_err(|e| malformed(text, e))
    }

    /// The board written `text` in the notation every answer uses.
    pub fn normalized(&self, text: &str) -> Result<String, StateError> {
        self.read(text).map(|b| b.notation())
    }

    /// The distance, an optimal path and the cluster of the board written `text`,
    /// searching at most `limit` positions until `stop` says to give up:
    /// [`StateError::Unsolvable`] when no position of its cluster is solved,
    /// [`StateError::Malformed`] for a board that is none or a cluster above `limit`,
    /// [`ClusterError::Stopped`] when stopped.
    pub fn solve(
        &self,
        text: &str,
        limit: usize,
        stop: &Stop,
    ) -> Result<ClusterAnswer, ClusterError> {
        let board = self.read(text)?;
        match rush::solve_bounded(&board, limit, stop).map_err(|e| refused(text, e))? {
            Solved::Solution {
                distance,
                moves,
                cluster,
            } => Ok(ClusterAnswer {
                state: board.notation(),
                distance,
                path: rush::path(&board, &moves).map_err(|e| refused(text, e))?,
                moves: moves.iter().map(|m| m.to_string()).collect(),
                cluster: cluster as u64,
            }),
            Solved::Unsolvable { cluster } => Err(StateError::unsolvable(
                &board.notation(),
                format!(
                    "none of the {cluster} positions of its cluster has the red car A at the exit"
                ),
            )
            .into()),
        }
    }

    /// The boards one move from the board written `text`, with their moves.
    pub fn next(&self, text: &str) -> Result<Vec<(String, String)>, StateError> {
        let board = self.read(text)?;
        board.check().map_err(|e| malformed(text, e))?;
        Ok((next_boards(&board).into_iter())
            .map(|(mv, next)| (mv.to_string(), next.notation()))
            .collect())
    }

    /// [`RushHour::next`] with each next board's distance (`None`: it cannot be solved),
    /// from one search of the board's cluster (bounded as [`RushHour::solve`] is): the
    /// next boards are in the same cluster.
    pub fn next_with_distances(
        &self,
        text: &str,
        limit: usize,
        stop: &Stop,
    ) -> Result<Vec<(String, String, Option<u32>)>, ClusterError> {
        let board = self.read(text)?;
        let table = rush::cluster_distances(&board, limit, stop).map_err(|e| refused(text, e))?;
        Ok((next_boards(&board).into_iter())
            .map(|(mv, next)| (mv.to_string(), next.notation(), table.distance(&next)))
            .collect())
    }

    pub fn notation(&self) -> String {
        "Michael Fogleman's: 36 characters, the 6x6 board row by row; '.' or 'o' empty, 'x' a wall, 'A' the red car on the third row (its exit at the right), any other letter a car (2 cells) or truck (3) along its row or column; a move slides one piece any distance; answered by searching the board's cluster".to_string()
    }

    pub fn definition(&self) -> serde_json::Value {
        let mut d = json!({
            "name": self.name,
            "rows": rush::SIDE,
            "cols": rush::SIDE,
            "start": self.start,
            "goal": "the red car A on the last two cells of the third row",
            "move": "one piece slides any distance along its row or column",
            "notation": self.notation(),
            "max_cluster": rush::MAX_CLUSTER,
        });
        self.source.annotate(&mut d);
        d
    }
}

/// Builds the puzzle from its definition: the `start` must be a board of the notation.
pub fn rush_hour(spec: &Spec) -> Result<RushHour, Problem> {
    common(spec, FAMILY.keys)?;
    let _: Keys = spec.own_keys(FAMILY.keys)?;
    let start = spec.start.as_deref().ok_or_else(|| {
        problem(
            "start",
            "missing: the board the page shows first, in Fogleman's notation",
        )
    })?;
    let board = Board::parse(start)
        .and_then(|b| b.check().map(|_| b))
        .map_err(|e| problem("start", format!("start {start:?}: {e}")))?;
    Ok(RushHour {
        name: spec.name.clone(),
        start: board.notation(),
        source: Source::new(
            serde_json::to_value(spec).unwrap_or(serde_json::Value::Null),
            // Walls differ from board to board: the drawing is the bare grid.
            grid_layout(rush::SIDE, rush::SIDE, &[false; rush::CELLS]),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_text(text: &str) -> Result<RushHour, Problem> {
        rush_hour(&crate::catalog::parse("t.toml", text).unwrap())
    }

    fn built_in() -> RushHour {
        let path = format!(
            "{}/../../data/puzzles/rush-hour.toml",
            env!("CARGO_MANIFEST_DIR")
        );
        from_text(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn the_built_in_start_is_foglemans_hardest_board() {
        let r = built_in();
        let a = r
            .solve(r.start(), rush::MAX_CLUSTER, &Stop::default())
            .unwrap();
        assert_eq!((a.distance, a.cluster), (51, 4_780));
        assert_eq!(a.path.len(), 52);
        assert_eq!(a.moves.len(), 51);
        // Each move of the path is one of the board's next boards, one move closer by
        // the cluster's table; the others are at most one move farther.
        for (i, mv) in a.moves.iter().enumerate() {
            let next = r.next(&a.path[i]).unwrap();
            assert!(next.contains(&(mv.clone(), a.path[i + 1].clone())), "{mv}");
            let d = 51 - i as u32;
            let with = r.next_with_distances(&a.path[i], rush::MAX_CLUSTER, &Stop::default());
            let with = with.unwrap();
            assert_eq!(with.len(), next.len());
            for (m, board, distance) in with {
                let distance = distance.unwrap();
                assert!(
                    distance + 1 >= d && distance <= d + 1,
                    "{m}: {distance} from {d}"
                );
                if m == *mv {
                    assert_eq!((board.as_str(), distance), (a.path[i + 1].as_str(), d - 1));
                }
            }
        }
    }

    #[test]
    fn next_boards_are_one_slide_each_way_until_blocked() {
        // The red car at columns 1-2 of the third row, a truck B standing in column 0
        // on rows 0-2: A cannot go left (B holds column 0 of its row) and slides 1 to 3
        // cells right; B cannot go up and slides 1 to 3 cells down.
        let mut cells = ['o'; 36];
        for at in [0, 6, 12] {
            cells[at] = 'B';
        }
        cells[13] = 'A';
        cells[14] = 'A';
        let board: String = cells.iter().collect();
        let r = built_in();
        let mut moves: Vec<String> = r.next(&board).unwrap().into_iter().map(|m| m.0).collect();
        moves.sort();
        assert_eq!(moves, ["A+1", "A+2", "A+3", "B+1", "B+2", "B+3"]);
    }

    #[test]
    fn unsolvable_and_malformed_boards_are_told_apart() {
        let r = built_in();
        let stuck = "oooooooooooooAABBBoooooooooooooooooo";
        match r.solve(stuck, rush::MAX_CLUSTER, &Stop::default()) {
            Err(ClusterError::State(StateError::Unsolvable { reason, .. })) => {
                assert!(reason.contains("cluster"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
        match r.solve("AA", rush::MAX_CLUSTER, &Stop::default()) {
            Err(ClusterError::State(StateError::Malformed { reason, .. })) => {
                assert!(reason.contains("36 characters"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_search_past_its_deadline_is_stopped_not_answered() {
        let r = built_in();
        let past = Stop::new(Some(std::time::Instant::now()));
        assert_eq!(
            r.solve(r.start(), rush::MAX_CLUSTER, &past),
            Err(ClusterError::Stopped(Stopped::Deadline))
        );
        assert_eq!(
            r.next_with_distances(r.start(), rush::MAX_CLUSTER, &past),
            Err(ClusterError::Stopped(Stopped::Deadline))
        );
        // A malformed board is told as such before any search.
        assert!(matches!(
            r.solve("AA", rush::MAX_CLUSTER, &past),
            Err(ClusterError::State(StateError::Malformed { .. }))
        ));
    }

    #[test]
    fn a_bad_definition_is_refused_naming_its_key() {
        let ok = "name = \"r\"\nfamily = \"rush-hour\"\n";
        let e = from_text(ok).err().unwrap();
        assert_eq!(e.key, "start");
        let e = from_text(&format!("{ok}start = \"AA\"\n")).err().unwrap();
        assert_eq!(e.key, "start");
        assert!(e.message.contains("36 characters"), "{e}");
        let e = from_text(&format!(
            "{ok}start = \"BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM.\"\nrows = 6\n"
        ))
        .err()
        .unwrap();
        assert_eq!(e.key, "rows", "{e}");
    }
}
