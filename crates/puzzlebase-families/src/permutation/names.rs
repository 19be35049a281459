//! Points and pieces in the puzzle's own terms, for refusals a user can act on: a
//! definition drawn with stickers names each point by the colours it shows when solved
//! (cube2's corners `URF`, `UFL`, ...: its `faces` and `stickers` keys), and a piece by
//! its number of stickers (three: a corner, two: an edge). A definition written in
//! numbers keeps the old words (`point 6`, `piece 3`).

use super::{Notation, Permutation, Position};

impl Permutation {
    /// The name of point `a`: the colours its stickers show in the goal, facet by facet
    /// (`URF`); `None` without stickers.
    fn point_name(&self, a: usize) -> Option<String> {
        let Notation::Stickers { colours, .. } = &self.notation else {
            return None;
        };
        let m = self.modulus[a].max(1) as usize;
        let q = self.goal_pieces[a] as usize;
        let o = self.goal_orient[a] as usize;
        Some((0..m).map(|f| colours[q][(f + m - o) % m]).collect())
    }

    /// Piece `q` by its colours (`DBL`); `None` without stickers.
    fn piece_colours(&self, q: usize) -> Option<String> {
        let Notation::Stickers { colours, .. } = &self.notation else {
            return None;
        };
        Some(colours[q].iter().collect())
    }

    /// What a piece at `a` is called: by its stickers where they are drawn.
    fn piece_word(&self, a: usize) -> &'static str {
        match (&self.notation, self.modulus[a]) {
            (Notation::Stickers { .. }, 3) => "corner",
            (Notation::Stickers { .. }, 2) => "edge",
            _ => "piece",
        }
    }

    /// `URF` or `point 0`.
    pub(super) fn point(&self, a: usize) -> String {
        self.point_name(a).unwrap_or_else(|| format!("point {a}"))
    }

    /// Piece `q` sitting at point `a` is outside the orbit the moves keep it in.
    pub(super) fn wrong_orbit(&self, q: usize, a: usize) -> String {
        match (self.piece_colours(q), self.point_name(a)) {
            (Some(piece), Some(at)) => format!(
                "the {} {piece} is at {at}, where no sequence of moves takes it (its place is {})",
                self.piece_word(a),
                self.point(
                    self.goal_pieces
                        .iter()
                        .position(|&g| g as usize == q)
                        .unwrap_or(q)
                )
            ),
            _ => format!("piece {q} is at point {a}, where no sequence of moves takes it"),
        }
    }

    /// The permutation's parity is not one the moves make.
    pub(super) fn wrong_parity(&self) -> String {
        match &self.notation {
            Notation::Stickers { .. } => "two pieces are swapped: its permutation parity is \
                                          not one the moves make"
                .to_string(),
            Notation::Numbers => "its permutation parities are not those the moves allow".into(),
        }
    }

    /// The orientations of orbit `o` add up to `sum` where the moves keep `kept` (mod
    /// `step`): with stickers, "a corner is twisted", naming it when it is the only one
    /// turned at all.
    pub(super) fn wrong_twist(
        &self,
        p: &Position,
        o: usize,
        sum: u8,
        kept: u8,
        step: u8,
    ) -> String {
        let orbit = &self.analysis.orbits[o];
        let m = orbit.modulus;
        if self.point_name(orbit.points[0] as usize).is_none() {
            return format!(
                "the orientations of points {:?} sum to {sum} mod {m}; the moves keep that sum at {kept} mod {step}",
                orbit.points
            );
        }
        let word = self.piece_word(orbit.points[0] as usize);
        let turned: Vec<usize> = (orbit.points.iter().map(|&a| a as usize))
            .filter(|&a| p.orient[a] != self.goal_orient[a])
            .collect();
        let names: Vec<String> = orbit
            .points
            .iter()
            .map(|&a| self.point(a as usize))
            .collect();
        let lead = match turned[..] {
            [a] => format!("the {word} at {} is twisted", self.point(a)),
            _ => format!("a {word} is twisted"),
        };
        format!(
            "{lead}: the twists of the {word}s at {} add up to {sum} mod {m}, and every move keeps them at {kept} mod {step}",
            names.join(", ")
        )
    }
}
