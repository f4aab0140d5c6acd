//! Position keys of xiangqi: 64-bit Zobrist hashes in a scheme of our own, fixed so that
//! books written by one build are read by every other.
//!
//! The keys are the outputs of SplitMix64 started from state 0 (each step adds
//! 0x9E3779B97F4A7C15 to the state and mixes it), taken in this order: for Red then Black,
//! for each role in FEN letter order K A B N R C P, for each square 0-89 (a0, b0, ..., i9:
//! `rank * 9 + file`), one key; then one key for Black to move. A position's key is the
//! exclusive or of the keys of its pieces on their squares, and of the side key when Black
//! is to move.
//!
//! ```
//! use retrobook::xiangqi::{position_key, Position};
//! let start = Position::start();
//! let after = start.play(&start.parse_move("h2e2").unwrap());
//! assert_ne!(position_key(&start), position_key(&after));
//! ```

use super::moves::Move;
use super::position::{Position, Role};
use crate::side::Side;

/// Piece-square keys (2 sides x 7 roles x 90 squares), then the side key.
const KEYS: [u64; 2 * 7 * 90 + 1] = {
    let mut keys = [0u64; 2 * 7 * 90 + 1];
    let mut state = 0u64;
    let mut i = 0;
    while i < keys.len() {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        keys[i] = z ^ (z >> 31);
        i += 1;
    }
    keys
};

/// The key of `color`'s `role` on square `sq` (0-89).
fn piece_key(color: Side, role: Role, sq: usize) -> u64 {
    KEYS[(color.index() * 7 + role.index()) * 90 + sq]
}

/// The key of `pos` (module documentation).
pub fn position_key(pos: &Position) -> u64 {
    let pieces = Side::ALL.into_iter().flat_map(|c| {
        pos.pieces(c)
            .map(move |(sq, role)| piece_key(c, role, sq.index()))
    });
    let side = match pos.turn() {
        Side::White => 0,
        Side::Black => KEYS[2 * 7 * 90],
    };
    pieces.fold(side, |k, p| k ^ p)
}

/// The key after `m`, legal in `pos` of key `key`: the mover's piece off its square and
/// onto the other, what it takes off, the side to move changed.
pub fn key_after(key: u64, pos: &Position, m: &Move) -> u64 {
    let Some(piece) = pos.at(m.from) else {
        return key;
    };
    let taken = pos
        .at(m.to)
        .map_or(0, |t| piece_key(t.color, t.role, m.to.index()));
    key ^ piece_key(piece.color, piece.role, m.from.index())
        ^ piece_key(piece.color, piece.role, m.to.index())
        ^ taken
        ^ KEYS[2 * 7 * 90]
}

#[cfg(test)]
mod tests {
    use super::super::moves::along_random_games;
    use super::*;

    /// The first outputs of SplitMix64 from state 0, as its reference implementation
    /// prints them, are the first keys (Red's king on a0, b0, c0).
    #[test]
    fn keys_are_splitmix64_from_zero() {
        assert_eq!(
            KEYS[..3],
            [
                0xE220_A839_7B1D_CDAF,
                0x6E78_9E6A_A1B9_65F4,
                0x06C4_5D18_8009_454F
            ]
        );
    }

    #[test]
    fn keys_tell_positions_and_sides_apart() {
        let start = Position::start();
        let black = Position::from_fen(&start.to_fen().replace(" w ", " b ")).unwrap();
        assert_eq!(
            position_key(&start) ^ position_key(&black),
            KEYS[2 * 7 * 90]
        );
        // A transposition reaches the same key.
        let play = |p: &Position, m: &str| p.play(&p.parse_move(m).unwrap());
        let a = play(&play(&play(&play(&start, "h2e2"), "h9g7"), "b0c2"), "b9c7");
        let b = play(&play(&play(&play(&start, "b0c2"), "b9c7"), "h2e2"), "h9g7");
        assert_eq!(a, b);
        assert_eq!(position_key(&a), position_key(&b));
        assert_ne!(position_key(&a), position_key(&start));
    }

    #[test]
    fn keys_follow_moves_incrementally() {
        let mut next = crate::testing::xorshift(7);
        along_random_games(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            20,
            150,
            &mut next,
            |pos, moves| {
                for m in moves {
                    let next = pos.play(m);
                    assert_eq!(key_after(position_key(pos), pos, m), position_key(&next));
                }
            },
        );
    }
}
