//! Retrograde analysis: a game-generic solver (`solver`) and its chess specialisation
//! (`chess`), with the 50-move rule's classes (`fifty`), and xiangqi's graph (`xiangqi`).

mod bits;
mod chess;
pub(crate) mod dtz;
pub(crate) mod fifty;
mod first_error;
mod loops;
pub(crate) mod perpetual;
mod solver;
mod xiangqi;

#[cfg(test)]
pub(crate) use chess::AllDrawn;
pub use chess::{ChessGame, SubTables};
pub use loops::Ruled;
pub(crate) use solver::bit;
#[cfg(test)]
pub(crate) use solver::bitmap;
pub use solver::{solve, RetroGame, Solution, Successor};
pub(crate) use solver::{LossSearch, PartByPart};
pub(crate) use solver::{Packed, PackedShares, PackedSide};
pub use xiangqi::{by_rule, GraphTooLarge, Rulings, Solved, Verdict, XiangqiTables};
pub(crate) use xiangqi::{solve_table, SolveError};
