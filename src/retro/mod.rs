//! Retrograde analysis: a game-generic solver (`solver`) and its chess specialisation
//! (`chess`), plus the statistics a finished table reports.

mod chess;
mod solver;
mod stats;

pub use chess::{ChessGame, SubTables};
pub use solver::{solve, Observer, RetroGame, Silent, Solution, Successor, NO_EXIT};
pub use stats::{compute as compute_stats, SideStats, TableStats};
