//! Un-moves, for retrograde analysis: the moves that took nothing and could have led to a
//! position, each undone into a position the rules allow (the side that did not move not
//! in check, the kings not facing).
//!
//! Every piece moves back as it moves forward, but the horse (its leg stands beside the
//! square it came from) and the soldier (never back, sideways only across the river).

use super::index::reachable;
use super::moves::{Move, DIAGONAL, HORSE, ORTHOGONAL};
use super::position::{Position, Role, Square};
use crate::side::Side;

impl Position {
    /// The squares the piece on `to`, of `color` and `role`, can have come from by a
    /// move that took nothing (to empty squares, with the way it passed open).
    fn origins(&self, color: Side, role: Role, to: Square, out: &mut Vec<Move>) {
        let empty = |sq: Square| self.at(sq).is_none();
        let mut push = |from: Square| {
            if empty(from) && reachable(color, role, from) {
                out.push(Move { from, to });
            }
        };
        match role {
            Role::King => ORTHOGONAL
                .iter()
                .filter_map(|&(df, dr)| to.offset(df, dr))
                .for_each(&mut push),
            Role::Advisor => DIAGONAL
                .iter()
                .filter_map(|&(df, dr)| to.offset(df, dr))
                .for_each(&mut push),
            Role::Elephant => DIAGONAL
                .iter()
                .filter(|&&(df, dr)| to.offset(df, dr).is_some_and(empty))
                .filter_map(|&(df, dr)| to.offset(2 * df, 2 * dr))
                .for_each(&mut push),
            Role::Horse => {
                for ((df, dr), (lf, lr)) in HORSE {
                    // From `to - jump`, past the leg beside that origin.
                    let Some(from) = to.offset(-df, -dr) else {
                        continue;
                    };
                    if from.offset(lf, lr).is_some_and(empty) {
                        push(from);
                    }
                }
            }
            Role::Chariot | Role::Cannon => {
                for (df, dr) in ORTHOGONAL {
                    let mut sq = to;
                    while let Some(from) = sq.offset(df, dr).filter(|&s| empty(s)) {
                        push(from);
                        sq = from;
                    }
                }
            }
            Role::Soldier => {
                let back = match color {
                    Side::White => -1,
                    Side::Black => 1,
                };
                let sideways = match to.on_own_side(color) {
                    true => [None, None],
                    false => [to.offset(1, 0), to.offset(-1, 0)],
                };
                [to.offset(0, back)]
                    .into_iter()
                    .chain(sideways)
                    .flatten()
                    .for_each(push);
            }
        }
    }

    /// The quiet moves of the side not to move that can have led here, each from a
    /// position the rules allow.
    pub fn unmoves(&self) -> Vec<Move> {
        let mut out = self.pseudo_unmoves();
        self.retain_legal(&mut out, false);
        out
    }

    /// The quiet moves of the side not to move that end where its pieces stand, whether
    /// or not the position before allows them.
    pub(super) fn pseudo_unmoves(&self) -> Vec<Move> {
        let mover = !self.turn();
        let mut out = Vec::with_capacity(64);
        for (to, role) in self.pieces(mover) {
            self.origins(mover, role, to, &mut out);
        }
        out
    }

    /// The position before the un-move `m`: its piece back on `m.from`, its side to move.
    pub fn unplay(&self, m: &Move) -> Position {
        let mut before = self.clone();
        before.apply(m.to, m.from);
        before
    }
}

#[cfg(test)]
mod tests {
    use super::super::moves::along_random_games;
    use super::*;

    /// Positions along pseudo-random games from the start and from endgames: for each,
    /// every quiet legal move is undone by an un-move of the position it leads to, and
    /// every un-move undone is a quiet legal move of the position it leads back to.
    #[test]
    fn unmoves_undo_exactly_the_quiet_legal_moves() {
        let starts = [
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            "3ak4/4a4/4b4/9/2P6/9/9/4B4/4A4/3AK1N1C w",
            "4kab2/4a4/4b4/9/9/9/9/2R6/4A4/3K5 w",
            "3k5/9/9/4P4/9/p8/9/9/4A4/4KC3 b",
        ];
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut checked = 0;
        for fen in starts {
            along_random_games(fen, 30, 60, &mut next, |pos, moves| {
                for m in moves.iter().filter(|m| pos.at(m.to).is_none()) {
                    let after = pos.play(m);
                    assert!(after.unmoves().contains(m), "{m} from {}", pos.to_fen());
                }
                for u in pos.unmoves() {
                    let before = pos.unplay(&u);
                    assert!(before.legal_moves().contains(&u), "{u} to {}", pos.to_fen());
                    assert_eq!(&before.play(&u), pos);
                    // Never to a square the piece cannot stand on (a soldier behind its
                    // start, an elephant across the river).
                    let piece = before.at(u.from).unwrap();
                    assert!(reachable(piece.color, piece.role, u.from), "{u}");
                    checked += 1;
                }
            });
        }
        assert!(checked > 20_000, "{checked}");
    }

    /// Along pseudo-random games with every kind of piece on both sides, the moves and
    /// un-moves kept without being played out (clear of the king's lines, legs and horses'
    /// squares) leave the very lists that playing every one out leaves.
    #[test]
    fn moves_kept_unplayed_are_those_every_test_keeps() {
        let starts = [
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            "2bak4/4a4/2n1b1c2/p3p3p/2r6/6R2/P3P1n1P/2N1C4/4A4/2BAK1B2 w",
            "3k5/4a4/2n6/9/2c1N4/9/4p4/9/4C4/3AK4 b",
            "4k4/9/3P1n3/9/9/9/9/4p4/r8/3K1R3 w",
        ];
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        let (mut moves_seen, mut unmoves_seen) = (0, 0);
        for fen in starts {
            along_random_games(fen, 40, 80, &mut next, |pos, moves| {
                let mut scratch = pos.clone();
                let us = pos.turn();
                let mut every = pos.pseudo_moves_from(pos.pieces(us));
                every.retain(|m| !scratch.after(m.from, m.to, |p| p.in_check(us)));
                assert_eq!(moves, &every[..], "{}", pos.to_fen());
                moves_seen += moves.len();
                let mut every = pos.pseudo_unmoves();
                every.retain(|m| !scratch.after(m.to, m.from, |p| p.in_check(us)));
                assert_eq!(pos.unmoves(), every, "{}", pos.to_fen());
                unmoves_seen += every.len();
            });
        }
        assert!(
            moves_seen > 50_000 && unmoves_seen > 50_000,
            "{moves_seen} {unmoves_seen}"
        );
    }
}
