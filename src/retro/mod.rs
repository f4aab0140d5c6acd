//! Retrograde analysis: a game-generic solver (`solver`) and its chess specialisation
//! (`chess`), plus the statistics a finished table reports.

mod bits;
mod chess;
pub mod fifty;
mod packed;
mod solver;
mod stats;

#[cfg(test)]
pub(crate) use chess::AllDrawn;
pub use chess::{ChessGame, SubTables};
pub(crate) use packed::{Packed, PackedSide};
pub(crate) use solver::bit;
pub use solver::{
    solve, solve_within, LossSearch, Observer, PartByPart, RetroGame, Silent, Solution, Successor,
};
pub use stats::{
    combine as combine_stats, compute as compute_stats, count_side, SideStats, TableStats,
};
