//! Graph history interaction: exact values of game graphs whose repetitions end the game by
//! rule, with marks on the values that depend on the path (DESIGN.md §7).

mod graph;
mod solve;

pub use graph::{Graph, GraphError, Kind, Repetition, Value};
pub use solve::{solve, solve_with, Moves, Solution, Solved};
