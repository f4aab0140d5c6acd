//! Un-move generation for retrograde analysis: the moves that could have led to a position.
//!
//! The side that just moved is the side *not* to move. An un-move takes one of its pieces back
//! (possibly restoring a captured piece of the side to move, turning a promoted piece back into
//! a pawn, or undoing an en-passant capture) and hands the move back to it. Only predecessors
//! that are legal positions are produced (the side that is then not to move is not in check).

use super::attacks;
use super::bitboard::Bitboard;
use super::position::Position;
use super::role::{Piece, Role};
use super::square::Square;
use crate::side::Side;

/// What kind of un-move.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum UnMoveKind {
    /// Any un-move not listed below.
    Normal,
    /// Takes back a pawn's two-square advance; the position it leads to had an en-passant right.
    DoublePush,
    /// Takes back an en-passant capture; the predecessor has an en-passant right.
    EnPassant,
}

/// An un-move: the piece on `from` goes back to `to`.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct UnMove {
    /// Role of the piece as it stands now (the promoted role for an un-promotion).
    pub role: Role,
    /// Where the piece stands now.
    pub from: Square,
    /// Where it stood before its move.
    pub to: Square,
    /// A piece of the side to move that the move had captured, put back.
    pub uncapture: Option<Role>,
    /// The move was a promotion: the piece goes back as a pawn.
    pub unpromotion: bool,
    /// Special kinds.
    pub kind: UnMoveKind,
}

impl UnMove {
    /// A quiet un-move of a piece from `from` back to `to`.
    pub fn quiet(role: Role, from: Square, to: Square) -> UnMove {
        UnMove {
            role,
            from,
            to,
            uncapture: None,
            unpromotion: false,
            kind: UnMoveKind::Normal,
        }
    }
}

/// What the un-moves of the side that just moved (the mover) have in common: the king of
/// the side to move, which must not stand in check in the predecessor, and the lines on it.
#[derive(Copy, Clone)]
struct Screen {
    mover: Side,
    occ: Bitboard,
    /// The side to move's king.
    king: Option<Square>,
    /// The mover's pieces that give check now.
    checkers: Bitboard,
    /// The squares alone between the king and a slider of the mover.
    sole: Bitboard,
    /// Where an un-move can only be illegal through the moved piece's own attack.
    quiet_lines: Bitboard,
}

impl Screen {
    /// The empty squares the mover's `role` piece on `from` may have come from, and, where
    /// the square it leaves opens no line, the squares among them that leave a legal
    /// predecessor for a plain un-move and for an un-capture (None: each is to be looked at,
    /// `Position::unmove_is_legal`). Such a piece's un-moves are legal or not by where they
    /// go, one set of squares for all of them: not where the piece gives check (a square
    /// that a piece of its role on the king's square reaches), and, against a check now, on
    /// the checker's line unless the checker itself goes back.
    #[inline]
    fn piece(&self, role: Role, from: Square) -> (Bitboard, Option<(Bitboard, Bitboard)>) {
        let (mover, occ, checkers) = (self.mover, self.occ, self.checkers);
        let targets = attacks::attacks(role, mover, from, occ) & !occ;
        let screen = match self.king {
            Some(k) if !self.sole.contains(from) => {
                let reach = |o: Bitboard| attacks::attacks(role, mover, k, o);
                match checkers.first() {
                    // With `from` empty or filled (an un-capture) alike: a target beyond
                    // `from` on a line from the king would make the piece a checker now.
                    None => {
                        let ok = !reach(occ);
                        Some((ok, ok))
                    }
                    Some(_) if checkers.count() > 1 => None,
                    Some(c) if c == from => {
                        Some((!reach(occ & !Bitboard::from_square(from)), !reach(occ)))
                    }
                    Some(c) => {
                        let ok = attacks::between(k, c) & !reach(occ);
                        Some((ok, ok))
                    }
                }
            }
            _ => None,
        };
        (targets, screen)
    }
}

impl Position {
    /// Calls `f` with every un-move whose predecessor (`unplay`) is legal. `uncaptures` lists
    /// the roles of the side to move that may be restored by un-captures (empty: quiet
    /// un-moves only); `unpromotions` allows un-promotions. The position's en-passant square
    /// is ignored. The predecessor is not built: retrograde analysis often needs only its
    /// index, and legality is read from this position's bitboards.
    pub fn for_each_unmove(
        &self,
        uncaptures: &[Role],
        unpromotions: bool,
        mut f: impl FnMut(UnMove),
    ) {
        let screen_of = self.unmove_screen();
        let Screen {
            mover,
            occ,
            king,
            quiet_lines,
            ..
        } = screen_of;
        // `screened`: known legal already.
        let mut emit = |u: UnMove, screened: bool| {
            if screened || king.is_none_or(|k| self.unmove_is_legal(&u, k, quiet_lines)) {
                f(u);
            }
        };
        let restorable = |sq: Square| {
            uncaptures.iter().copied().filter(move |&r| {
                r != Role::King && (r != Role::Pawn || (1..=6).contains(&sq.rank()))
            })
        };
        let (back, last_rank, ep_rank): (i32, u32, u32) = if mover == Side::White {
            (-8, 7, 5)
        } else {
            (8, 0, 2)
        };

        for role in Role::PIECES {
            for from in self.pieces(mover, role) {
                let (targets, screen) = screen_of.piece(role, from);
                for to in targets {
                    let base = UnMove::quiet(role, from, to);
                    // Known legal (Some(true)), known illegal, or to be looked at.
                    let (plain, uncapture) = match screen {
                        Some((p, u)) => (Some(p.contains(to)), Some(u.contains(to))),
                        None => (None, None),
                    };
                    if plain != Some(false) {
                        emit(base, plain.is_some());
                    }
                    if uncapture != Some(false) {
                        for r in restorable(from) {
                            emit(
                                UnMove {
                                    uncapture: Some(r),
                                    ..base
                                },
                                uncapture.is_some(),
                            );
                        }
                    }
                }
                if unpromotions && role != Role::King && from.rank() == last_rank {
                    let Some(straight) = from.offset(back) else {
                        continue;
                    };
                    if !occ.contains(straight) {
                        emit(
                            UnMove {
                                role,
                                from,
                                to: straight,
                                uncapture: None,
                                unpromotion: true,
                                kind: UnMoveKind::Normal,
                            },
                            false,
                        );
                    }
                    for to in attacks::pawn_attacks(!mover, from) & !occ {
                        for r in restorable(from) {
                            emit(
                                UnMove {
                                    role,
                                    from,
                                    to,
                                    uncapture: Some(r),
                                    unpromotion: true,
                                    kind: UnMoveKind::Normal,
                                },
                                false,
                            );
                        }
                    }
                }
            }
        }

        // A pawn on its second rank has not moved yet; one on its fourth may have come from
        // the second in one double push.
        let (home_rank, double_from) = if mover == Side::White { (1, 3) } else { (6, 4) };
        for from in self.pieces(mover, Role::Pawn) {
            let Some(one) = from.offset(back) else {
                continue;
            };
            if from.rank() == home_rank {
                continue;
            }
            if !occ.contains(one) {
                let base = UnMove {
                    role: Role::Pawn,
                    from,
                    to: one,
                    uncapture: None,
                    unpromotion: false,
                    kind: UnMoveKind::Normal,
                };
                emit(base, false);
                if from.rank() == double_from {
                    if let Some(two) = one.offset(back) {
                        if !occ.contains(two) {
                            emit(
                                UnMove {
                                    to: two,
                                    kind: UnMoveKind::DoublePush,
                                    ..base
                                },
                                false,
                            );
                        }
                    }
                }
            }
            // `from` is past its second rank, so `to` is never on a back rank.
            for to in attacks::pawn_attacks(!mover, from) & !occ {
                for r in restorable(from) {
                    emit(
                        UnMove {
                            role: Role::Pawn,
                            from,
                            to,
                            uncapture: Some(r),
                            unpromotion: false,
                            kind: UnMoveKind::Normal,
                        },
                        false,
                    );
                }
                if from.rank() == ep_rank && uncaptures.contains(&Role::Pawn) {
                    // The captured pawn stood beside `to`, having just passed `from`.
                    let victim = Square::from_coords(from.file(), to.rank());
                    let origin =
                        Square::from_coords(from.file(), if mover == Side::White { 6 } else { 1 });
                    if !occ.contains(victim) && !occ.contains(origin) {
                        emit(
                            UnMove {
                                role: Role::Pawn,
                                from,
                                to,
                                uncapture: Some(Role::Pawn),
                                unpromotion: false,
                                kind: UnMoveKind::EnPassant,
                            },
                            false,
                        );
                    }
                }
            }
        }
    }

    /// The quiet un-moves of the side that just moved by its pieces (pawns left out), as
    /// sets: `f(role, from, squares)` for each piece with the squares it may have come
    /// from, every predecessor legal. This is what `for_each_unmove(&[], false, ..)` gives
    /// for those pieces, in the same order, without an un-move built per square:
    /// retrograde analysis turns each square into an index by arithmetic.
    pub fn for_each_quiet_unmove_set(&self, mut f: impl FnMut(Role, Square, Bitboard)) {
        let screen_of = self.unmove_screen();
        for role in Role::PIECES {
            for from in self.pieces(screen_of.mover, role) {
                let (targets, screen) = screen_of.piece(role, from);
                let legal = match (screen, screen_of.king) {
                    (Some((plain, _)), _) => targets & plain,
                    (None, Some(k)) => {
                        let mut legal = Bitboard::EMPTY;
                        for to in targets {
                            let u = UnMove::quiet(role, from, to);
                            if self.unmove_is_legal(&u, k, screen_of.quiet_lines) {
                                legal.add(to);
                            }
                        }
                        legal
                    }
                    (None, None) => targets,
                };
                if !legal.is_empty() {
                    f(role, from, legal);
                }
            }
        }
    }

    /// What the un-moves of the side that just moved have in common (see `Screen`).
    fn unmove_screen(&self) -> Screen {
        let mover = !self.turn();
        let occ = self.occupied();
        // The checks the side to move's king stands in now, and the squares alone between
        // it and a slider of the mover (the only ones whose piece, leaving, opens a line).
        let king = self.king(self.turn());
        let (checkers, sole) = king.map_or((Bitboard::EMPTY, Bitboard::EMPTY), |k| {
            (
                self.attackers(k, mover, occ),
                self.sole_blockers(k, mover, occ),
            )
        });
        // Where an un-move can only be illegal through the moved piece's own attack.
        let quiet_lines = king.map_or(Bitboard::EMPTY, |k| match checkers.count() {
            0 => !sole,
            // A knight's square is on no line through the king.
            1 => checkers & !(attacks::rook_rays(k) | attacks::bishop_rays(k)),
            _ => Bitboard::EMPTY,
        });
        Screen {
            mover,
            occ,
            king,
            checkers,
            sole,
            quiet_lines,
        }
    }

    /// True when the predecessor of un-move `u` leaves the side to move here (its king on
    /// `king`; not to move there) out of check. A restored piece only blocks lines to its
    /// own king; the moved piece attacks from where it stood before. `quiet_lines`: squares
    /// whose piece, taken back, needs no look at the other pieces.
    #[inline]
    fn unmove_is_legal(&self, u: &UnMove, king: Square, quiet_lines: Bitboard) -> bool {
        let mover = !self.turn();
        let from = Bitboard::from_square(u.from);
        let mut occ = (self.occupied() & !from) | Bitboard::from_square(u.to);
        if u.uncapture.is_some() {
            occ |= Bitboard::from_square(match u.kind {
                UnMoveKind::EnPassant => Square::from_coords(u.from.file(), u.to.rank()),
                _ => u.from,
            });
        }
        let role = if u.unpromotion { Role::Pawn } else { u.role };
        !attacks::attacks_square(role, mover, u.to, king, occ)
            && (quiet_lines.contains(u.from)
                || (self.attackers(king, mover, occ) & !from).is_empty())
    }

    /// The predecessor given by un-move `u` (which must come from `for_each_unmove`).
    pub fn unplay(&self, u: &UnMove) -> Position {
        let mover = !self.turn();
        let mut q = *self;
        q.remove(u.from);
        let role = if u.unpromotion { Role::Pawn } else { u.role };
        q.put(u.to, Piece { color: mover, role });
        let mut ep = None;
        if let Some(r) = u.uncapture {
            let victim = Piece {
                color: self.turn(),
                role: r,
            };
            if u.kind == UnMoveKind::EnPassant {
                q.put(Square::from_coords(u.from.file(), u.to.rank()), victim);
                ep = Some(u.from);
            } else {
                q.put(u.from, victim);
            }
        }
        q.set_turn(mover);
        q.set_ep_square(ep);
        q
    }
}
