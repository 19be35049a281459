//! The puzzle definitions: each is data (a graph, a goal, a notation) for a shared solver.

pub mod sliding;
