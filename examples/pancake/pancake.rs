//! The pancake family, defined outside puzzlebase through its public API: a stack of
//! `pancakes` pancakes of different sizes (2 to 9), and a move, a flip, turns the top `k`
//! of them over (2 <= k <= the stack). The goal is the stack in order, smallest on top.
//!
//! A position is the sizes from the top down, `1` the smallest: with four pancakes
//! `2413` has the second-smallest on top and the smallest third; the goal is `1234`. A
//! flip of the top `k` is the move named `flip k`. Flips undo themselves, so the move
//! graph is the one puzzlebase's breadth-first search needs. Its positions are all n!
//! orders, ranked by their Lehmer codes (rank 0 is the goal).

use puzzlebase::{GraphFamily, GraphPuzzle, Problem, Spec, StateError, StateSpace};
use serde::Deserialize;
use serde_json::json;

/// The family as a program registers it (`puzzlebase::register_family(pancake::FAMILY)`).
pub const FAMILY: GraphFamily = GraphFamily {
    name: "pancake",
    keys: &["pancakes", "start"],
    build,
};

/// The family's own keys; `start` is a key every family shares ([`Spec::start`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    /// How many pancakes the stack has.
    pancakes: usize,
}

/// Checks a definition and builds its stack.
fn build(spec: &Spec) -> Result<Box<dyn GraphPuzzle>, Problem> {
    let keys: Keys = spec.own_keys(FAMILY.keys)?;
    if !(2..=9).contains(&keys.pancakes) {
        return Err(Problem::new(
            "pancakes",
            format!(
                "{} pancakes: a stack has 2 to 9 (a digit each)",
                keys.pancakes
            ),
        ));
    }
    let n = keys.pancakes;
    let mut stack = Stack {
        name: spec.name.clone(),
        n,
        size: (1..=n as u64).product(),
        start: None,
        spec: serde_json::to_value(spec).map_err(|e| Problem::new("name", e.to_string()))?,
    };
    if let Some(text) = &spec.start {
        stack.start = Some(
            stack
                .parse(text)
                .map_err(|e| Problem::new("start", e.to_string()))?,
        );
    }
    Ok(Box::new(stack))
}

/// A stack of `n` pancakes.
pub struct Stack {
    name: String,
    n: usize,
    /// n!, the number of orders.
    size: u64,
    start: Option<u64>,
    /// The definition's keys, stored with the puzzle so that a reader rebuilds it.
    spec: serde_json::Value,
}

impl Stack {
    /// The order of rank `rank`: sizes 0..n from the top, from its Lehmer code.
    fn order(&self, mut rank: u64) -> Vec<u8> {
        let mut left: Vec<u8> = (0..self.n as u8).collect();
        let mut order = Vec::with_capacity(self.n);
        for i in (0..self.n).rev() {
            let f: u64 = (1..=i as u64).product();
            order.push(left.remove((rank / f) as usize));
            rank %= f;
        }
        order
    }

    /// The rank of an order of the sizes 0..n (its Lehmer code).
    fn rank(&self, order: &[u8]) -> u64 {
        let mut rank = 0;
        for (i, &p) in order.iter().enumerate() {
            let smaller_after = order[i + 1..].iter().filter(|&&q| q < p).count() as u64;
            rank = rank * (self.n - i) as u64 + smaller_after;
        }
        rank
    }
}

impl StateSpace for Stack {
    fn size(&self) -> u64 {
        self.size
    }

    fn goals(&self) -> Vec<u64> {
        vec![0]
    }

    fn neighbors(&self, rank: u64, out: &mut Vec<u64>) {
        let order = self.order(rank);
        for k in 2..=self.n {
            let mut flipped = order.clone();
            flipped[..k].reverse();
            out.push(self.rank(&flipped));
        }
    }
}

impl GraphPuzzle for Stack {
    fn name(&self) -> &str {
        &self.name
    }

    fn family(&self) -> &str {
        FAMILY.name
    }

    fn definition(&self) -> serde_json::Value {
        // The pancakes drawn as a column, the top one first: cell i is the i-th from the
        // top, joined to the next one down.
        let cells: Vec<[f64; 2]> = (0..self.n).map(|i| [0.0, i as f64]).collect();
        let edges: Vec<[usize; 2]> = (1..self.n).map(|i| [i - 1, i]).collect();
        json!({
            "family": FAMILY.name,
            "pancakes": self.n,
            "goal": self.format(0),
            "moves": "flip k: the top k pancakes turned over, 2 <= k <= the stack",
            "spec": self.spec,
            "layout": {"cells": cells, "edges": edges},
        })
    }

    fn format(&self, rank: u64) -> String {
        self.order(rank)
            .iter()
            .map(|&p| char::from(b'1' + p))
            .collect()
    }

    fn parse(&self, text: &str) -> Result<u64, StateError> {
        let digits: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        if digits.len() != self.n {
            return Err(StateError::malformed(
                text,
                format!("{} sizes for a stack of {}", digits.len(), self.n),
            ));
        }
        let mut order = Vec::with_capacity(self.n);
        for c in digits {
            match c.to_digit(10) {
                Some(d) if (1..=self.n as u32).contains(&d) && !order.contains(&(d as u8 - 1)) => {
                    order.push(d as u8 - 1)
                }
                _ => {
                    return Err(StateError::malformed(
                        text,
                        format!("each size from 1 to {} once, top first", self.n),
                    ));
                }
            }
        }
        Ok(self.rank(&order))
    }

    fn start(&self) -> Option<u64> {
        self.start
    }

    fn move_name(&self, from: u64, to: u64) -> Option<String> {
        let order = self.order(from);
        (2..=self.n).find_map(|k| {
            let mut flipped = order.clone();
            flipped[..k].reverse();
            (self.rank(&flipped) == to).then(|| format!("flip {k}"))
        })
    }
}
