//! Moves in Polyglot's 16-bit encoding: bits 0-2 destination file, 3-5 destination rank,
//! 6-8 origin file, 9-11 origin rank, 12-14 promotion (0 none, 1 knight, 2 bishop, 3 rook,
//! 4 queen). Castling is written as the king taking its own rook (e1h1, e1a1, e8h8, e8a8).

use crate::chess::{Move, MoveKind, MoveList, Position, Role, Square};

/// Polyglot's promotion code: 0 none, 1 knight, 2 bishop, 3 rook, 4 queen.
pub(crate) fn promotion_code(role: Option<Role>) -> u16 {
    match role {
        None => 0,
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(_) => 4,
    }
}

/// The Polyglot encoding of a legal move.
pub fn encode_move(m: &Move) -> u16 {
    let to = match m.kind {
        MoveKind::CastleKing => Square::from_coords(7, m.from.rank()),
        MoveKind::CastleQueen => Square::from_coords(0, m.from.rank()),
        _ => m.to,
    };
    (to.file() | to.rank() << 3 | m.from.file() << 6 | m.from.rank() << 9) as u16
        | promotion_code(m.promotion) << 12
}

/// The legal move of `pos` that `code` encodes, if any.
pub fn decode_move(pos: &Position, code: u16) -> Option<Move> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.as_slice()
        .iter()
        .copied()
        .find(|m| encode_move(m) == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_as_polyglot_does() {
        let p = Position::start();
        // e2e4: to e4 (file 4, rank 3), from e2 (file 4, rank 1).
        assert_eq!(
            encode_move(&p.parse_uci("e2e4").unwrap()),
            4 | 3 << 3 | 4 << 6 | 1 << 9
        );
        let castle: Position = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".parse().unwrap();
        let short = castle.parse_uci("e1g1").unwrap();
        let long = castle.parse_uci("e1c1").unwrap();
        assert_eq!(encode_move(&short), 7 | 4 << 6);
        assert_eq!(encode_move(&long), 4 << 6);
        assert_eq!(decode_move(&castle, 7 | 4 << 6), Some(short));
        let promo: Position = "8/1P6/8/8/8/8/8/k1K5 w - - 0 1".parse().unwrap();
        let q = promo.parse_uci("b7b8q").unwrap();
        assert_eq!(encode_move(&q), 1 | 7 << 3 | 1 << 6 | 6 << 9 | 4 << 12);
        assert_eq!(decode_move(&promo, encode_move(&q)), Some(q));
        assert_eq!(decode_move(&promo, 0), None);
    }
}
