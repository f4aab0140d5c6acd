//! A move's colour under the Asian rules (`docs/xiangqi-rules.md`): it checks, it chases
//! some of the other side's pieces, or it is idle. The loop judge (`judge`) reads the
//! colours of a repetition's moves.
//!
//! Everything is asked of legal moves on whole positions, so that pins, the kings' file
//! and blocked legs and eyes weigh as the rules weigh them: a piece is attacked where a
//! legal capture takes it, protected where the other side can legally take back on its
//! square, and a side's threats are its captures as if the other side passed.

use super::moves::Move;
use super::position::{Position, Role, Square};
use crate::side::Side;

/// A set of squares, one bit each (`Square::index`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Squares(u128);

impl Squares {
    /// No square.
    pub const EMPTY: Squares = Squares(0);
    /// Every square.
    pub const ALL: Squares = Squares((1 << 90) - 1);

    /// Whether `sq` is in the set.
    #[inline]
    pub fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 == 1
    }

    /// Whether the set holds no square.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The set with `sq` in it.
    #[inline]
    pub fn with(self, sq: Square) -> Squares {
        Squares(self.0 | 1 << sq.index())
    }

    /// The set without `sq`.
    #[inline]
    pub fn without(self, sq: Square) -> Squares {
        Squares(self.0 & !(1 << sq.index()))
    }

    /// The squares in both sets.
    #[inline]
    pub fn and(self, other: Squares) -> Squares {
        Squares(self.0 & other.0)
    }

    /// The squares, a0 first (file by file along each rank).
    pub fn iter(self) -> impl Iterator<Item = Square> {
        (0..90)
            .filter(move |&i| self.0 >> i & 1 == 1)
            .filter_map(Square::from_index)
    }

    /// The set after a piece went from `from` to `to`: a piece followed as it moves.
    #[inline]
    pub fn moved(self, from: Square, to: Square) -> Squares {
        match self.contains(from) {
            true => self.without(from).with(to),
            false => self,
        }
    }
}

/// What a move does to the other side, as the Asian rules see it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Colour {
    /// The move gives check.
    Check,
    /// The move chases the other side's pieces on these squares (after the move): it
    /// threatens to take each with gain where it did not before.
    Chase(Squares),
    /// The move neither checks nor chases.
    Idle,
}

/// The colour of the legal move `m` of `before`'s side to move.
pub fn colour(before: &Position, m: Move) -> Colour {
    let us = before.turn();
    let after = before.play(&m);
    if after.in_check(!us) {
        return Colour::Check;
    }
    // A move of the king or of a soldier never chases, nor what it lets other pieces
    // threaten: the king may chase with another piece (R28, D68), soldiers likewise (R29).
    if before.at(m.from).is_some_and(|p| !chases(p.role)) {
        return Colour::Idle;
    }
    let was = threats(before, us);
    let mut chased = Squares::EMPTY;
    for (attacker, target) in threats(&after, us) {
        // The moved piece threatens anew from where it lands, unless it only slid along
        // the line of a threat it already made; the others where they did not threaten.
        let old = match attacker == m.to {
            true => in_line(m.from, m.to, target) && was.contains(&(m.from, target)),
            false => was.contains(&(attacker, target)),
        };
        if !old {
            chased = chased.with(target);
        }
    }
    match chased.is_empty() {
        true => Colour::Idle,
        false => Colour::Chase(chased),
    }
}

/// Whether `c` lies on the file or rank through `a` and `b`.
fn in_line(a: Square, b: Square, c: Square) -> bool {
    (a.file() == b.file() && b.file() == c.file()) || (a.rank() == b.rank() && b.rank() == c.rank())
}

/// The pairs (attacker's square, target's square) where `us` could take a piece of the
/// other side with gain on `pos`, as if it were `us` to move. A side in check threatens
/// what it could take but for the check: the check stops the capture for now, but the
/// threat stands, and a move that answers the check does not make it.
pub(crate) fn threats(pos: &Position, us: Side) -> Vec<(Square, Square)> {
    let ours = pos.with_turn(us);
    let captures = match ours.in_check(us) {
        false => ours.legal_moves(),
        true => {
            let before = checkers(&ours, us);
            let mut moves = ours.pseudo_moves_from(ours.pieces(us));
            // Captures that are legal, or in check after them only from pieces that checked
            // before them (only captures are threats: the others are not played out).
            moves.retain(|m| {
                ours.at(m.to).is_some() && {
                    let after = ours.play(m);
                    !after.in_check(us) || checkers(&after, us).iter().all(|c| before.contains(c))
                }
            });
            moves
        }
    };
    captures
        .into_iter()
        .filter(|m| {
            let (Some(attacker), Some(target)) = (ours.at(m.from), ours.at(m.to)) else {
                return false;
            };
            chases(attacker.role)
                && can_be_chased(target.role, target.color, m.to)
                && gains(&ours, *m, attacker.role, target.role)
        })
        .map(|m| (m.from, m.to))
        .collect()
}

/// The squares of the pieces that check `us`'s king on `pos`, the other king included where
/// the two face each other.
fn checkers(pos: &Position, us: Side) -> Vec<Square> {
    let Some(king) = pos.king(us) else {
        return Vec::new();
    };
    let theirs = pos.with_turn(!us);
    let mut found: Vec<Square> = (theirs.pseudo_moves_from(theirs.pieces(!us)).iter())
        .filter(|m| m.to == king)
        .map(|m| m.from)
        .collect();
    // The kings facing on an open file count as check.
    if let Some(other) = pos.king(!us) {
        let between = |a: i8, b: i8| a.min(b) + 1..a.max(b);
        let open = other.file() == king.file()
            && between(king.rank(), other.rank()).all(|r| {
                pos.at(Square::new(king.file(), r).expect("on the board"))
                    .is_none()
            });
        if open && !found.contains(&other) {
            found.push(other);
        }
    }
    found
}

/// Whether a piece of `role` chases by its attacks: the king and the soldiers do not.
fn chases(role: Role) -> bool {
    !matches!(role, Role::King | Role::Soldier)
}

/// Whether a piece of `role` and `color` on `sq` can be chased: not the king (that is
/// check), not a soldier on its own side of the river.
fn can_be_chased(role: Role, color: Side, sq: Square) -> bool {
    match role {
        Role::King => false,
        Role::Soldier => !sq.on_own_side(color),
        _ => true,
    }
}

/// Whether a piece of `attacker`'s role gains by taking one of `target`'s, protected or
/// not: a horse or a cannon taking a chariot, an advisor or an elephant taking any of the
/// three.
fn outranks(target: Role, attacker: Role) -> bool {
    let rank = |role| match role {
        Role::Chariot => 2,
        Role::Horse | Role::Cannon => 1,
        _ => 0,
    };
    rank(target) > rank(attacker)
}

/// Whether the capture `m` on `ours` (the attacker's side to move) gains: the target
/// outranks the attacker, or it is not protected and, of the attacker's own kind, cannot
/// take the attacker first (an offer to exchange, not a chase).
fn gains(ours: &Position, m: Move, attacker: Role, target: Role) -> bool {
    if outranks(target, attacker) {
        return true;
    }
    if target == attacker {
        let theirs = ours.with_turn(!ours.turn());
        let back = Move {
            from: m.to,
            to: m.from,
        };
        if theirs.legal_moves_of(target).contains(&back) {
            return false;
        }
    }
    let taken = ours.play(&m);
    !taken.legal_moves().iter().any(|r| r.to == m.to)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The colour of `mv` (UCCI) on `fen`.
    fn colour_of(fen: &str, mv: &str) -> Colour {
        colour(&Position::from_fen(fen).unwrap(), mv.parse().unwrap())
    }

    fn chase(squares: &[&str]) -> Colour {
        let set = squares
            .iter()
            .fold(Squares::EMPTY, |s, sq| s.with(sq.parse().unwrap()));
        Colour::Chase(set)
    }

    #[test]
    fn a_soldier_is_chased_only_across_the_river() {
        // Rule 25: chasing a soldier that has not crossed the river is allowed.
        assert_eq!(
            colour_of("4k4/9/9/7R1/2p6/9/9/9/9/3K5 w", "h6h5"),
            Colour::Idle
        );
        assert_eq!(
            colour_of("4k4/9/9/9/9/7R1/2p6/9/9/3K5 w", "h4h3"),
            chase(&["c3"])
        );
    }

    #[test]
    fn a_protector_that_cannot_take_back_does_not_protect() {
        // The black rook on e7 protects the cannon on b7 unless the red rook on e3 pins it
        // to its king (a false root).
        assert_eq!(
            colour_of("4k4/9/1c2r4/9/9/9/4R4/R8/9/3K5 w", "a2b2"),
            chase(&["b7"])
        );
        assert_eq!(
            colour_of("4k4/9/1c2r4/9/9/9/9/R8/9/3K5 w", "a2b2"),
            Colour::Idle
        );
        // The black king takes back on d9 unless that would face the red king.
        assert_eq!(
            colour_of("3ck4/9/9/9/9/9/9/R8/9/3K5 w", "a2d2"),
            chase(&["d9"])
        );
        assert_eq!(
            colour_of("3ck4/9/9/9/9/9/9/R8/9/5K3 w", "a2d2"),
            Colour::Idle
        );
    }

    #[test]
    fn a_check_is_a_check_and_kings_and_soldiers_do_not_chase() {
        assert_eq!(
            colour_of("4k4/8R/9/9/9/9/9/9/9/3K5 w", "i8i9"),
            Colour::Check
        );
        // The red king steps beside the unprotected black horse on d2, the red soldier
        // before the one on c6.
        assert_eq!(
            colour_of("5k3/9/9/9/9/9/9/3n5/4K4/9 w", "e1d1"),
            Colour::Idle
        );
        assert_eq!(
            colour_of("4k4/9/9/2n6/9/2P6/9/9/9/3K5 w", "c4c5"),
            Colour::Idle
        );
        // Nor what they uncover: the black king steps aside and unpins its advisor on e8,
        // which then attacks the crossed soldier on d7 (a master game's loop).
        let fen = "4ka1r1/4a1c2/b2Pb4/4C3C/9/4c1p2/P4Rn1P/6N2/9/2BAKAB2 b";
        assert_eq!(colour_of(fen, "e9d9"), Colour::Idle);
    }

    #[test]
    fn a_rook_sliding_along_its_threat_does_not_chase_again() {
        // The rook threatened the cannon from h7 already; from g7 it makes the same threat.
        assert_eq!(
            colour_of("4k4/9/1c5R1/9/9/9/9/9/9/3K5 w", "h7g7"),
            Colour::Idle
        );
        // Coming round from another line, it threatens anew.
        assert_eq!(
            colour_of("4k4/9/1c7/7R1/9/9/9/9/9/3K5 w", "h6h7"),
            chase(&["b7"])
        );
    }

    #[test]
    fn a_threat_that_stood_through_a_check_is_not_made_by_answering_it() {
        // A master game's loop: the black cannon on h8 threatens the soldier on a8 over
        // the advisor on e8; the red rook checks from d3 and the black cannon on a5 blocks
        // on d5. Taking a8 was not legal while Black was in check, but the threat stood:
        // the block does not chase. The block that uncovers a threat does (d5a5, which
        // stands between the rook on a3 and the soldier it protected).
        let start =
            Position::from_fen("2bk1a3/P3a2c1/4b4/2p1C4/3c4r/2P3P2/R8/4B2C1/4A4/3A1KB2 b").unwrap();
        assert_eq!(colour(&start, "d5a5".parse().unwrap()), chase(&["a8"]));
        let checked = ["d5a5", "a3d3"]
            .iter()
            .fold(start, |pos, m| pos.play(&m.parse().unwrap()));
        assert!(checked.in_check(Side::Black));
        assert_eq!(colour(&checked, "a5d5".parse().unwrap()), Colour::Idle);
    }

    #[test]
    fn a_discovered_threat_chases() {
        // The red horse on e7 steps off the rank and uncovers the rook's threat on b7.
        assert_eq!(
            colour_of("3k5/9/1c2N2R1/9/9/9/9/9/9/4K4 w", "e7f5"),
            chase(&["b7"])
        );
    }
}
