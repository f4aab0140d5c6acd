//! Graph history interaction: exact values of game graphs whose repetitions end the game by
//! rule, with marks on the values that depend on the path (`docs/design.md`, Graph history
//! interaction).

mod graph;
mod solve;

pub use graph::{Colour, Graph, GraphError, Kind, Repetition, Value};
pub(crate) use solve::{components_of, solve_within};
pub use solve::{solve, solve_with, ByLoop, ByMover, Moves, Repetitions, Solution, Solved};
