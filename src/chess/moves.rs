//! Moves and legal move generation (pseudo-legal generation filtered by a king-safety check on
//! the position after the move).

use super::attacks;
use super::bitboard::Bitboard;
use super::position::{Castling, Position};
use super::role::{Piece, Role};
use super::square::Square;
use crate::side::Side;
use std::mem::MaybeUninit;

/// What kind of move, beyond from, to and promotion.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum MoveKind {
    /// Any move not listed below.
    Normal,
    /// A pawn's two-square advance (gives the opponent an en-passant right).
    DoublePush,
    /// An en-passant capture.
    EnPassant,
    /// Castling on the king side (king e-file to g-file).
    CastleKing,
    /// Castling on the queen side (king e-file to c-file).
    CastleQueen,
}

/// A move of the side to move.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct Move {
    /// The role of the moving piece before the move.
    pub role: Role,
    /// Origin square (the king's square for castling).
    pub from: Square,
    /// Destination square (the king's destination for castling).
    pub to: Square,
    /// Role of the captured piece, if any (a pawn for en passant).
    pub capture: Option<Role>,
    /// Role promoted to, if any.
    pub promotion: Option<Role>,
    /// Special kinds.
    pub kind: MoveKind,
}

impl Move {
    /// A move of a piece (not a pawn, not castling), capturing `capture` if any.
    #[inline]
    pub(crate) fn piece(role: Role, from: Square, to: Square, capture: Option<Role>) -> Move {
        Move {
            role,
            from,
            to,
            capture,
            promotion: None,
            kind: MoveKind::Normal,
        }
    }

    /// Captures and promotions change the material: they leave the current table.
    #[inline]
    pub fn is_conversion(&self) -> bool {
        self.capture.is_some() || self.promotion.is_some()
    }

    /// Captures and pawn moves reset the 50-move count (promotions are pawn moves).
    #[inline]
    pub fn is_zeroing(&self) -> bool {
        self.capture.is_some() || self.role == Role::Pawn
    }

    /// The square of the pawn taken by an en-passant capture, or the destination otherwise.
    #[inline]
    pub fn capture_square(&self) -> Square {
        if self.kind == MoveKind::EnPassant {
            Square::from_coords(self.to.file(), self.from.rank())
        } else {
            self.to
        }
    }
}

/// A fixed-capacity list of moves on the stack (no allocation on hot paths). The slots
/// past `len` stay uninitialised, so that making a list costs nothing.
pub struct MoveList {
    moves: [MaybeUninit<Move>; 256],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        Self::new()
    }
}

impl MoveList {
    /// An empty list.
    pub fn new() -> MoveList {
        MoveList {
            moves: [const { MaybeUninit::uninit() }; 256],
            len: 0,
        }
    }

    /// Empties the list.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    #[inline]
    pub(crate) fn push(&mut self, m: Move) {
        // 218 is the most legal moves any chess position has; pseudo-legal lists from sane
        // positions stay far below 256, and a malformed one is cut rather than overrun.
        if self.len < self.moves.len() {
            self.moves[self.len] = MaybeUninit::new(m);
            self.len += 1;
        }
    }

    /// Number of moves.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there is no move.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: the first `len` slots were written by `push` (or moved by `retain`), and
        // MaybeUninit<Move> has the layout of Move.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }

    /// Keeps the moves for which `keep` returns true.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&Move) -> bool) {
        let mut j = 0;
        for i in 0..self.len {
            // SAFETY: i < len, so slot i is initialised.
            let m = unsafe { self.moves[i].assume_init() };
            if keep(&m) {
                self.moves[j] = MaybeUninit::new(m);
                j += 1;
            }
        }
        self.len = j;
    }
}

/// Castling rights kept when a move leaves or lands on each square: they vanish when a
/// king or rook leaves (or a rook is taken on) its starting square.
const CASTLING_KEPT: [u8; 64] = {
    let mut t = [0xffu8; 64];
    t[4] = !(Castling::WHITE_KING | Castling::WHITE_QUEEN);
    t[7] = !Castling::WHITE_KING;
    t[0] = !Castling::WHITE_QUEEN;
    t[60] = !(Castling::BLACK_KING | Castling::BLACK_QUEEN);
    t[63] = !Castling::BLACK_KING;
    t[56] = !Castling::BLACK_QUEEN;
    t
};

/// Appends a pawn move, as four moves (one per promotion piece) when it reaches the last
/// rank.
#[inline]
fn push_pawn_move(
    list: &mut MoveList,
    from: Square,
    to: Square,
    capture: Option<Role>,
    kind: MoveKind,
) {
    let m = Move {
        role: Role::Pawn,
        from,
        to,
        capture,
        promotion: None,
        kind,
    };
    if to.rank() == 0 || to.rank() == 7 {
        for p in Role::PROMOTIONS {
            list.push(Move {
                promotion: Some(p),
                ..m
            });
        }
    } else {
        list.push(m);
    }
}

impl Position {
    /// Appends every legal move of the side to move to `list` (which is cleared first).
    pub fn legal_moves(&self, list: &mut MoveList) {
        list.clear();
        self.pseudo_legal_moves(list);
        self.keep_legal(list);
    }

    /// The legal moves of the side to move, the quiet moves of its knights, bishops, rooks
    /// and queens only counted and those of its king returned as a set of squares: the
    /// other moves (captures, pawn moves, castling) go to `list` (cleared first). Returns
    /// the number of those quiet moves and the squares the king may step to without a
    /// capture. Retrograde setup needs no more than how many moves stay inside a table,
    /// and counting a bitboard costs less than listing and filtering its moves.
    pub fn legal_moves_counting_quiet(&self, list: &mut MoveList) -> (u32, Bitboard) {
        let (mut counted, mut king_to) = (0, Bitboard::EMPTY);
        self.legal_moves_by_quiet_sets(list, |role, _, squares| {
            if role == Role::King {
                king_to = squares;
            } else {
                counted += squares.count();
            }
        });
        (counted, king_to)
    }

    /// The legal moves of the side to move, the quiet moves of its king, knights, bishops,
    /// rooks and queens given to `f` piece by piece as (role, from, set of target squares),
    /// the king's first; the other moves (captures, pawn moves, castling) go to `list`
    /// (cleared first). A retrograde solver turns a set of squares into indices by
    /// arithmetic, with no move built.
    pub fn legal_moves_by_quiet_sets(
        &self,
        list: &mut MoveList,
        mut f: impl FnMut(Role, Square, Bitboard),
    ) {
        list.clear();
        let us = self.turn();
        let Some(king) = self.king(us) else {
            self.legal_moves(list);
            return;
        };
        let (own, enemy, occ) = (self.by_color(us), self.by_color(!us), self.occupied());
        self.pawn_moves(list);
        self.castling_moves(list);
        let checkers = self.attackers(king, !us, occ);
        let pinned = self.pinned(king, occ);
        self.filter_legal(list, king, !checkers.is_empty(), pinned);
        // The king's squares, attacked or not with the king itself off the board (so that
        // a slider's line through it counts).
        let mut king_to = attacks::king_attacks(king) & !own;
        if !king_to.is_empty() {
            king_to &= !self.attacked_squares(!us, occ & !Bitboard::from_square(king));
        }
        for to in king_to & enemy {
            list.push(Move::piece(Role::King, king, to, self.role_at(to)));
        }
        f(Role::King, king, king_to & !occ);
        // A pinned piece stays on its pin's line; in check, a piece takes the checker or
        // blocks its line, and against two checkers only the king moves.
        let (quiet, captures) = match checkers.count() {
            0 => (!occ, enemy),
            1 => (
                checkers
                    .first()
                    .map_or(Bitboard::EMPTY, |c| attacks::between(king, c)),
                checkers,
            ),
            _ => return,
        };
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            for from in self.pieces(us, role) {
                let mut targets = attacks::attacks(role, us, from, occ);
                if pinned.contains(from) {
                    targets &= attacks::line(king, from);
                }
                f(role, from, targets & quiet);
                for to in targets & captures {
                    list.push(Move::piece(role, from, to, self.role_at(to)));
                }
            }
        }
    }

    /// Drops the moves of `list` that leave the mover's king attacked.
    pub(crate) fn keep_legal(&self, list: &mut MoveList) {
        let Some(king) = self.king(self.turn()) else {
            return;
        };
        // Out of check, a piece moves legally unless it is pinned and leaves the pin's line
        // (en passant aside: it takes two pieces off a rank). In check, each move is looked at.
        let check = self.is_attacked(king, !self.turn());
        let pinned = if check {
            Bitboard::EMPTY
        } else {
            self.pinned(king, self.occupied())
        };
        self.filter_legal(list, king, check, pinned);
    }

    /// `keep_legal` for the king on `king`, whether it is in `check`, and (out of check)
    /// the `pinned` pieces, for callers that know them already.
    fn filter_legal(&self, list: &mut MoveList, king: Square, check: bool, pinned: Bitboard) {
        let occ = self.occupied();
        // Squares the king may not step on: attacked with the king itself off the board, so
        // that a slider's line through it counts (found once, at the first king move).
        let mut danger = None;
        list.retain(|m| match m.kind {
            MoveKind::CastleKing | MoveKind::CastleQueen => true, // checked when generated
            MoveKind::Normal if m.role == Role::King => !danger
                .get_or_insert_with(|| {
                    self.attacked_squares(!self.turn(), occ & !Bitboard::from_square(king))
                })
                .contains(m.to),
            MoveKind::Normal | MoveKind::DoublePush if !check => {
                !pinned.contains(m.from) || attacks::line(king, m.from).contains(m.to)
            }
            _ => self.leaves_king_safe(m, king),
        });
    }

    /// The pieces of the side to move that stand alone between their king (on `king`) and
    /// an enemy slider on the line through both.
    fn pinned(&self, king: Square, occupied: Bitboard) -> Bitboard {
        self.sole_blockers(king, !self.turn(), occupied) & self.by_color(self.turn())
    }

    /// The squares that stand alone between the king on `king` and a slider of `by` on a
    /// line through it: out of check, only a piece leaving one of them can expose the king.
    pub(super) fn sole_blockers(&self, king: Square, by: Side, occ: Bitboard) -> Bitboard {
        let queens = self.pieces(by, Role::Queen);
        let snipers = (attacks::rook_rays(king) & (self.pieces(by, Role::Rook) | queens))
            | (attacks::bishop_rays(king) & (self.pieces(by, Role::Bishop) | queens));
        let mut out = Bitboard::EMPTY;
        for s in snipers {
            let blockers = attacks::between(king, s) & occ;
            if blockers.count() == 1 {
                out |= blockers;
            }
        }
        out
    }

    /// Every square a piece of `by` attacks, with `occupied` as the blockers.
    fn attacked_squares(&self, by: Side, occupied: Bitboard) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for role in Role::ALL {
            for sq in self.pieces(by, role) {
                out |= attacks::attacks(role, by, sq, occupied);
            }
        }
        out
    }

    /// True when `m` does not leave the mover's king (on `king`) attacked. Works on the
    /// occupancy after the move instead of a copy of the position: the legality filter is
    /// the move generator's hot path.
    #[inline]
    fn leaves_king_safe(&self, m: &Move, king: Square) -> bool {
        let us = self.turn();
        let mut occupied =
            (self.occupied() & !Bitboard::from_square(m.from)) | Bitboard::from_square(m.to);
        let mut theirs = self.by_color(!us);
        if m.capture.is_some() {
            let victim = m.capture_square();
            theirs.discard(victim);
            if m.kind == MoveKind::EnPassant {
                occupied.discard(victim);
            }
        }
        let k = if m.role == Role::King { m.to } else { king };
        let role = |r: Role| self.by_role(r) & theirs;
        if !((attacks::knight_attacks(k) & role(Role::Knight))
            | (attacks::king_attacks(k) & role(Role::King))
            | (attacks::pawn_attacks(us, k) & role(Role::Pawn)))
        .is_empty()
        {
            return false;
        }
        // Sliders only where one stands on a line through the king.
        let diagonal = (role(Role::Bishop) | role(Role::Queen)) & attacks::bishop_rays(k);
        let straight = (role(Role::Rook) | role(Role::Queen)) & attacks::rook_rays(k);
        (diagonal.is_empty() || (attacks::bishop_attacks(k, occupied) & diagonal).is_empty())
            && (straight.is_empty() || (attacks::rook_attacks(k, occupied) & straight).is_empty())
    }

    /// Appends to `list` (cleared first) the legal moves of a `role` piece of the side to
    /// move that land on `to`, castling aside: what a SAN move names, found without
    /// generating every move.
    pub fn legal_moves_to(&self, role: Role, to: Square, list: &mut MoveList) {
        self.pseudo_legal_moves_to(role, to, list);
        self.keep_legal(list);
    }

    /// `legal_moves_to` before the legality filter: callers that narrow the list further
    /// (by a SAN's disambiguation) filter fewer moves.
    pub(crate) fn pseudo_legal_moves_to(&self, role: Role, to: Square, list: &mut MoveList) {
        list.clear();
        let us = self.turn();
        if role == Role::Pawn {
            self.pawn_moves_to(to, list);
        } else if !self.by_color(us).contains(to) {
            let capture = self.role_at(to);
            // Pieces other than pawns attack symmetrically: the origins are the squares a
            // piece of that role on `to` would attack.
            for from in attacks::attacks(role, us, to, self.occupied()) & self.pieces(us, role) {
                list.push(Move::piece(role, from, to, capture));
            }
        }
    }

    /// The pawn moves landing on `to`, found from `to` backwards.
    fn pawn_moves_to(&self, to: Square, list: &mut MoveList) {
        let us = self.turn();
        let pawns = self.pieces(us, Role::Pawn);
        let back: i32 = if us == Side::White { -8 } else { 8 };
        if self.by_color(!us).contains(to) {
            let capture = self.role_at(to);
            for from in attacks::pawn_attacks(!us, to) & pawns {
                push_pawn_move(list, from, to, capture, MoveKind::Normal);
            }
        } else if Some(to) == self.ep_square() {
            for from in attacks::pawn_attacks(!us, to) & pawns {
                push_pawn_move(list, from, to, Some(Role::Pawn), MoveKind::EnPassant);
            }
        } else if !self.occupied().contains(to) {
            let Some(one) = to.offset(back) else { return };
            if pawns.contains(one) {
                push_pawn_move(list, one, to, None, MoveKind::Normal);
            } else if !self.occupied().contains(one) && to.rank() == if back < 0 { 3 } else { 4 } {
                if let Some(two) = one.offset(back).filter(|&two| pawns.contains(two)) {
                    push_pawn_move(list, two, to, None, MoveKind::DoublePush);
                }
            }
        }
    }

    /// Appends to `list` (cleared first) the legal captures and promotions of the side to
    /// move: the moves that change the material, found without generating the others.
    pub fn conversion_moves(&self, list: &mut MoveList) {
        list.clear();
        let us = self.turn();
        let enemy = self.by_color(!us);
        let occ = self.occupied();
        for role in Role::PIECES {
            for from in self.pieces(us, role) {
                for to in attacks::attacks(role, us, from, occ) & enemy {
                    list.push(Move::piece(role, from, to, self.role_at(to)));
                }
            }
        }
        let (forward, last_rank): (i32, u32) = if us == Side::White { (8, 7) } else { (-8, 0) };
        for from in self.pieces(us, Role::Pawn) {
            self.pawn_captures(list, from);
            if let Some(one) = from.offset(forward) {
                if one.rank() == last_rank && !occ.contains(one) {
                    push_pawn_move(list, from, one, None, MoveKind::Normal);
                }
            }
        }
        self.keep_legal(list);
    }

    /// True when the side to move is checkmated.
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_move()
    }

    /// True when the side to move has at least one legal move. The pieces' quiet moves
    /// are looked at as sets of squares, never listed: probes ask this of every position
    /// a check leads to, to find mates.
    pub fn has_legal_move(&self) -> bool {
        // Most often the king can step somewhere: found first, alone.
        let us = self.turn();
        if let Some(king) = self.king(us) {
            let steps = attacks::king_attacks(king) & !self.by_color(us);
            let occ = self.occupied() & !Bitboard::from_square(king);
            if !steps.is_empty() && !(steps & !self.attacked_squares(!us, occ)).is_empty() {
                return true;
            }
        }
        let mut list = MoveList::new();
        let mut quiet = false;
        self.legal_moves_by_quiet_sets(&mut list, |_, _, squares| quiet |= !squares.is_empty());
        quiet || !list.is_empty()
    }

    fn pseudo_legal_moves(&self, list: &mut MoveList) {
        let us = self.turn();
        let them = !us;
        let own = self.by_color(us);
        let enemy = self.by_color(them);
        let occ = self.occupied();
        for role in Role::PIECES {
            for from in self.pieces(us, role) {
                for to in attacks::attacks(role, us, from, occ) & !own {
                    let capture = if enemy.contains(to) {
                        self.role_at(to)
                    } else {
                        None
                    };
                    list.push(Move::piece(role, from, to, capture));
                }
            }
        }
        self.pawn_moves(list);
        self.castling_moves(list);
    }

    fn pawn_moves(&self, list: &mut MoveList) {
        let us = self.turn();
        let occ = self.occupied();
        let (forward, start_rank): (i32, u32) = if us == Side::White { (8, 1) } else { (-8, 6) };
        for from in self.pieces(us, Role::Pawn) {
            self.pawn_captures(list, from);
            if let Some(one) = from.offset(forward) {
                if !occ.contains(one) {
                    push_pawn_move(list, from, one, None, MoveKind::Normal);
                    if from.rank() == start_rank {
                        if let Some(two) = one.offset(forward) {
                            if !occ.contains(two) {
                                push_pawn_move(list, from, two, None, MoveKind::DoublePush);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The captures (en passant included) of the side to move's pawn on `from`.
    #[inline]
    fn pawn_captures(&self, list: &mut MoveList, from: Square) {
        let us = self.turn();
        let enemy = self.by_color(!us);
        for to in attacks::pawn_attacks(us, from) {
            if enemy.contains(to) {
                push_pawn_move(list, from, to, self.role_at(to), MoveKind::Normal);
            } else if Some(to) == self.ep_square() {
                push_pawn_move(list, from, to, Some(Role::Pawn), MoveKind::EnPassant);
            }
        }
    }

    pub(crate) fn castling_moves(&self, list: &mut MoveList) {
        let rights = self.castling();
        if rights.is_empty() {
            return;
        }
        let us = self.turn();
        let (flags, rank) = match us {
            Side::White => ((Castling::WHITE_KING, Castling::WHITE_QUEEN), 0),
            Side::Black => ((Castling::BLACK_KING, Castling::BLACK_QUEEN), 7),
        };
        let king = Square::from_coords(4, rank);
        if self.pieces(us, Role::King) != Bitboard::from_square(king) || self.is_attacked(king, !us)
        {
            return;
        }
        let occ = self.occupied();
        let rook_ok = |file: u32| {
            self.pieces(us, Role::Rook)
                .contains(Square::from_coords(file, rank))
        };
        let empty = |files: &[u32]| {
            files
                .iter()
                .all(|&f| !occ.contains(Square::from_coords(f, rank)))
        };
        let safe = |files: &[u32]| {
            files
                .iter()
                .all(|&f| !self.is_attacked(Square::from_coords(f, rank), !us))
        };
        if rights.has(flags.0) && rook_ok(7) && empty(&[5, 6]) && safe(&[5, 6]) {
            list.push(Move {
                role: Role::King,
                from: king,
                to: Square::from_coords(6, rank),
                capture: None,
                promotion: None,
                kind: MoveKind::CastleKing,
            });
        }
        if rights.has(flags.1) && rook_ok(0) && empty(&[1, 2, 3]) && safe(&[2, 3]) {
            list.push(Move {
                role: Role::King,
                from: king,
                to: Square::from_coords(2, rank),
                capture: None,
                promotion: None,
                kind: MoveKind::CastleQueen,
            });
        }
    }

    /// The position after `m`, which must be a legal move of this position.
    pub fn play(&self, m: &Move) -> Position {
        let us = self.turn();
        let mut p = *self;
        p.remove(m.from);
        if m.capture.is_some() {
            p.remove(m.capture_square());
        }
        let role = m.promotion.unwrap_or(m.role);
        p.put(m.to, Piece { color: us, role });
        let rank = m.from.rank();
        // Castling also moves the rook: (from file, to file).
        let rook = match m.kind {
            MoveKind::CastleKing => Some((7, 5)),
            MoveKind::CastleQueen => Some((0, 3)),
            _ => None,
        };
        if let Some((from_file, to_file)) = rook {
            p.remove(Square::from_coords(from_file, rank));
            let piece = Piece {
                color: us,
                role: Role::Rook,
            };
            p.put(Square::from_coords(to_file, rank), piece);
        }
        // Castling rights vanish when a king or rook leaves (or a rook is taken on) its square.
        let c = p.castling().0;
        if c != 0 {
            let keep = CASTLING_KEPT[m.from.index()] & CASTLING_KEPT[m.to.index()];
            p.set_castling(Castling(c & keep));
        }
        let ep = (m.kind == MoveKind::DoublePush).then(|| m.from.midpoint(m.to));
        // The counts stop at their largest: a count past it would wrap to a fresh one.
        let halfmoves = if m.is_zeroing() {
            0
        } else {
            self.halfmoves().saturating_add(1)
        };
        let fullmoves = self.fullmoves().saturating_add((us == Side::Black) as u32);
        p.set_turn(!us);
        p.set_ep_square(ep);
        p.set_clocks(halfmoves, fullmoves);
        p
    }

    /// The legal en-passant captures of the side to move (at most two), found without
    /// generating the other moves: retrograde analysis asks this for every double push.
    pub fn en_passant_moves(&self) -> impl Iterator<Item = Move> + '_ {
        let us = self.turn();
        let target = self
            .ep_square()
            .filter(|ep| !self.by_color(!us).contains(*ep));
        let king = self.king(us);
        let pawns = match target {
            Some(ep) => attacks::pawn_attacks(!us, ep) & self.pieces(us, Role::Pawn),
            None => Bitboard::EMPTY,
        };
        pawns.filter_map(move |from| {
            let m = Move {
                role: Role::Pawn,
                from,
                to: target?,
                capture: Some(Role::Pawn),
                promotion: None,
                kind: MoveKind::EnPassant,
            };
            king.is_none_or(|k| self.leaves_king_safe(&m, k))
                .then_some(m)
        })
    }

    /// True when the side to move can legally capture en passant (so the en-passant square
    /// matters to the value of the position).
    pub fn has_legal_ep_capture(&self) -> bool {
        self.en_passant_moves().next().is_some()
    }
}
