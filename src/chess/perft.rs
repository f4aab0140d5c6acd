//! Perft: the number of leaf nodes of the legal move tree, the standard check of a move
//! generator against published figures.

use super::moves::MoveList;
use super::position::Position;

/// Counts the legal move sequences of `depth` plies from `pos`.
///
/// ```
/// use retrobook::chess::{perft, Position};
/// assert_eq!(perft(&Position::start(), 3), 8_902);
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    list.as_slice()
        .iter()
        .map(|m| perft(&pos.play(m), depth - 1))
        .sum()
}
