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

/// The legal move of `pos` that `code` encodes, if any. Only the moves of the piece on the
/// origin square to the destination are generated, or the castling moves when the
/// destination holds an own piece (the king taking its own rook).
pub fn decode_move(pos: &Position, code: u16) -> Option<Move> {
    let own = |sq: Square| pos.piece_at(sq).filter(|p| p.color == pos.turn());
    let (from, to) = (
        Square::from_index(u32::from(code >> 6 & 63)),
        Square::from_index(u32::from(code & 63)),
    );
    let piece = own(from)?;
    let mut list = MoveList::new();
    if own(to).is_some() {
        pos.castling_moves(&mut list);
    } else {
        pos.legal_moves_to(piece.role, to, &mut list);
    }
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

    #[test]
    fn decoding_finds_the_same_move_as_a_search_of_all_moves() {
        let mut positions: Vec<Position> = [
            "r3k2r/pppq1ppp/2n2n2/3pp3/1b1PP1b1/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1",
            "r3k2r/pppq1ppp/2n2n2/3pp3/1b1PP1b1/2N2N2/PPPQ1PPP/R3K2R b KQkq - 0 1",
            "8/1P4k1/8/3pP3/8/8/6p1/K4R2 w - d6 0 1",
            "4k3/8/8/8/8/8/6p1/K4R2 b - - 0 1",
            "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1",
        ]
        .iter()
        .map(|f| f.parse().unwrap())
        .collect();
        // And positions along a long line of first legal moves from the start.
        let mut p = Position::start();
        for ply in 0..60 {
            let mut list = MoveList::new();
            p.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            p = p.play(&list.as_slice()[ply * 7 % list.len()]);
            positions.push(p);
        }
        for pos in &positions {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            for code in 0..=u16::MAX {
                let by_search = list
                    .as_slice()
                    .iter()
                    .copied()
                    .find(|m| encode_move(m) == code);
                assert_eq!(decode_move(pos, code), by_search, "{pos} code {code:#x}");
            }
        }
    }
}
