//! Which moves can give check, told without playing them: a probe that looks for mates
//! among a position's moves plays only those.

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, MoveKind};
use super::position::Position;
use super::role::Role;
use super::square::Square;

/// What a move of the side to move needs to give check, found once per position.
#[derive(Copy, Clone, Debug)]
pub struct CheckFilter {
    /// The enemy king; None without one (then every move may check).
    king: Option<Square>,
    /// By role: the squares from which a piece of the side to move attacks that king.
    /// Found with the origin still occupied: a piece whose origin stands on the line from
    /// the king to its destination moves along that line, so it attacks the king already
    /// (it is not the side to move's turn then).
    direct: [Bitboard; 6],
    /// The mover's pieces that stand alone between one of its sliders and the enemy
    /// king: moving one off that line checks.
    discoverers: Bitboard,
}

impl Position {
    /// The filter of the moves of the side to move that can give check.
    pub fn check_filter(&self) -> CheckFilter {
        let us = self.turn();
        let king = self.king(!us);
        let occupied = self.occupied();
        let (mut direct, mut discoverers) = ([Bitboard::EMPTY; 6], Bitboard::EMPTY);
        if let Some(k) = king {
            discoverers = self.sole_blockers(k, us, occupied) & self.by_color(us);
            for role in [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook] {
                // A piece attacks the king from where the king would attack it; a pawn
                // from where an enemy pawn on the king's square would.
                let color = if role == Role::Pawn { !us } else { us };
                direct[role as usize] = attacks::attacks(role, color, k, occupied);
            }
            direct[Role::Queen as usize] =
                direct[Role::Bishop as usize] | direct[Role::Rook as usize];
        }
        CheckFilter {
            king,
            direct,
            discoverers,
        }
    }
}

impl CheckFilter {
    /// False only when `m` (a legal move of the position the filter was made from) cannot
    /// give check; true when it may.
    #[inline]
    pub fn may_check(&self, m: &Move) -> bool {
        if self.king.is_none() {
            return true;
        }
        if self.discoverers.contains(m.from) || m.promotion.is_some() {
            return true;
        }
        match m.kind {
            // The rook's square is not looked at; an en-passant capture opens two lines.
            MoveKind::CastleKing | MoveKind::CastleQueen | MoveKind::EnPassant => true,
            MoveKind::Normal | MoveKind::DoublePush => self.direct[m.role as usize].contains(m.to),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::MoveList;

    /// Every position of a few plies from positions rich in pins, promotions and en
    /// passant: each move that checks passes the filter, and the filter drops many others;
    /// `has_legal_move` agrees with the move list (mates among them).
    #[test]
    fn every_checking_move_passes_and_most_quiet_ones_do_not() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "8/8/8/4k3/8/8/2BR4/K7 w - - 0 1",
        ];
        let (mut checks, mut dropped, mut mates) = (0u64, 0u64, 0u64);
        for fen in fens {
            let root: Position = fen.parse().unwrap();
            let mut frontier = vec![root];
            for _ in 0..3 {
                let mut next = Vec::new();
                for pos in frontier {
                    let filter = pos.check_filter();
                    let mut list = MoveList::new();
                    pos.legal_moves(&mut list);
                    for m in list.as_slice() {
                        let after = pos.play(m);
                        let mut replies = MoveList::new();
                        after.legal_moves(&mut replies);
                        assert_eq!(after.has_legal_move(), !replies.is_empty(), "{after}");
                        mates += u64::from(replies.is_empty() && after.is_check());
                        if after.is_check() {
                            checks += 1;
                            assert!(filter.may_check(m), "{pos} {m:?}");
                        } else if !filter.may_check(m) {
                            dropped += 1;
                        }
                        next.push(after);
                    }
                }
                frontier = next;
            }
        }
        assert!(checks > 2_000, "{checks} checks");
        assert!(mates > 0, "no mate among the positions");
        assert!(dropped > 10 * checks, "{dropped} dropped, {checks} checks");
    }
}
