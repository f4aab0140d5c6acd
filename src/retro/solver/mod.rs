//! The game-generic retrograde solver: distance to mate for every position of a game graph
//! whose positions are numbered densely for each of two sides to move.
//!
//! Level by level (level = plies to mate), positions found at the previous level are taken
//! back by un-moves: the predecessors of a loss in n-1 plies win in n; the predecessors of a
//! win in n-1 may lose in n. Moves that leave the graph (captures and promotions into
//! sub-tables) have fixed values, classed once per position before the levels start (win,
//! draw or loss: two bits). Whatever is never resolved is a draw.
//!
//! What the solver asks of a game (`game`); its output (`solution`), held packed between
//! phases (`packed`); the driver that solves a game part by part, each part split across
//! processes (`parts`); one part's working state, its set-up, its level loop, its search
//! for losses and its exchanges with the other processes (`state`).

mod game;
mod packed;
mod parts;
mod solution;
mod state;
#[cfg(test)]
mod tests;

pub(crate) use game::LossSearch;
pub use game::{RetroGame, Successor};
pub(crate) use packed::{Packed, PackedShares, PackedSide};
pub(crate) use parts::PartByPart;
pub(crate) use solution::bit;
#[cfg(test)]
pub(crate) use solution::bitmap;
pub use solution::Solution;

use crate::progress::Observer;
use crate::value::Dtm;

/// Solves `game`: distance to mate for every position, both sides to move.
pub fn solve<G: RetroGame>(game: &G, observer: &dyn Observer) -> Solution {
    solve_within(game, Dtm::MAX_PLIES, LossSearch::Counters, observer)
}

/// Solves `game` up to `max_plies`, finding losses by `search`: wins and losses that take
/// longer stay draws.
pub(crate) fn solve_within<G: RetroGame>(
    game: &G,
    max_plies: u32,
    search: LossSearch,
    observer: &dyn Observer,
) -> Solution {
    let mut parts = PartByPart::new(game, max_plies, search);
    for k in 0..parts.count() {
        parts.solve_next(game, observer);
        debug_assert_eq!(parts.solved(), k + 1);
    }
    parts.into_solution()
}
