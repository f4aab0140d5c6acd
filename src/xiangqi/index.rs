//! Numbering the positions of a xiangqi table: the two kings as one digit, then each group
//! of like pieces as the rank of its set of squares, in mixed radix. Pieces only stand
//! where they can ever stand (a king in its palace, an advisor on the palace's five
//! points, an elephant on its seven, a soldier on its 55), and the left-right mirror halves
//! the kings (Red's king on the d- or e-file; both on the e-file, Black's on d or e):
//! KRvKAABB has 45 x 90 x 10 x 21 = 850,500 indices per side to move, against 90^6 / 2
//! for every square.
//!
//! An index whose pieces share a square names no position (`decode` says None); the kings
//! facing each other, and the side not to move in check, are for the rules to refuse.

use super::position::{Piece, Position, Role, Square};
use super::signature::{Signature, WRITTEN_ORDER};
use crate::index::combinations::{binomial, rank_sorted, unrank_sorted};
use crate::index::divisor::Divisor;
use crate::side::Side;

/// Where a piece of `color` and `role` can ever stand.
pub fn reachable(color: Side, role: Role, sq: Square) -> bool {
    // Ranks counted from `color`'s side.
    let rank = match color {
        Side::White => sq.rank(),
        Side::Black => 9 - sq.rank(),
    };
    let file = sq.file();
    let palace = (3..=5).contains(&file) && rank <= 2;
    match role {
        Role::King => palace,
        // The palace's centre and corners.
        Role::Advisor => palace && (file + rank) % 2 == 1,
        // Two steps diagonally from c0, on its own side.
        Role::Elephant => rank <= 4 && rank % 2 == 0 && (file + rank) % 4 == 2,
        // Forward from its start, sideways across the river.
        Role::Soldier => rank >= 5 || (rank >= 3 && file % 2 == 0),
        Role::Horse | Role::Chariot | Role::Cannon => true,
    }
}

/// A group of like pieces: one digit of the index.
#[derive(Clone, Debug)]
struct Group {
    piece: Piece,
    count: usize,
    /// The squares the pieces may stand on, in order; `place[0][sq]` is a square's place
    /// among them (u8::MAX where none stands), `place[1][sq]` its mirror image's.
    squares: Vec<Square>,
    place: [[u8; 90]; 2],
    /// C(squares, count).
    size: u64,
    /// The same, to split an index into digits by multiplication.
    div: Divisor,
}

/// The numbering of one table's positions (either side to move).
#[derive(Clone, Debug)]
pub struct XiangqiIndex {
    signature: Signature,
    /// Red's and Black's king squares of each king digit.
    kings: Vec<(Square, Square)>,
    /// The king digit of Red's and Black's king squares (`red * 90 + black`), u16::MAX for
    /// pairs the mirror maps elsewhere.
    king_digit: Vec<u16>,
    groups: Vec<Group>,
    /// The group of each piece other than the kings (`piece_slot`), u8::MAX for none.
    group_of: [u8; 14],
    /// What a unit of each group's digit is worth in the index: the product of the sizes
    /// of the groups after it.
    weights: Vec<u64>,
    size: u64,
}

/// Most pieces of one group: five soldiers.
const GROUP_MAX: usize = 5;

/// Most groups: every role but the king's, of both sides.
const GROUPS_MAX: usize = 12;

/// A position's index taken apart, so that a quiet move of one of its pieces other than a
/// king is numbered by changing one digit (`XiangqiIndex::moved`): the solver numbers
/// every move and un-move of every position, and this spares it a walk over the board
/// for each.
#[derive(Clone, Debug)]
pub struct Digits {
    idx: u64,
    /// 1 where the position is numbered through the mirror.
    flip: usize,
    /// Per group, its pieces' places among its squares, sorted.
    places: [[u8; GROUP_MAX]; GROUPS_MAX],
    /// Per group, its digit: the rank of its places.
    ranks: [u64; GROUPS_MAX],
}

/// A number for each piece: colour, then role in FEN order.
fn piece_slot(p: Piece) -> usize {
    p.color.index() * 7 + p.role.index()
}

/// Whether the mirror is the canonical view of kings on `red` and `black`.
fn mirrored_kings(red: Square, black: Square) -> bool {
    red.file() > 4 || (red.file() == 4 && black.file() > 4)
}

impl XiangqiIndex {
    /// The index of `signature`'s table (its first side Red).
    ///
    /// # Panics
    /// If the table has 2^64 indices or more (`try_new` says None).
    pub fn new(signature: Signature) -> XiangqiIndex {
        XiangqiIndex::try_new(signature).expect("fewer than 2^64 indices")
    }

    /// The index of `signature`'s table, or None if it has 2^64 indices or more.
    pub fn try_new(signature: Signature) -> Option<XiangqiIndex> {
        let palace = |c: Side| Square::all().filter(move |&s| reachable(c, Role::King, s));
        let kings: Vec<(Square, Square)> = palace(Side::White)
            .flat_map(|r| palace(Side::Black).map(move |b| (r, b)))
            .filter(|&(r, b)| !mirrored_kings(r, b))
            .collect();
        let mut king_digit = vec![u16::MAX; 90 * 90];
        for (i, &(r, b)) in kings.iter().enumerate() {
            king_digit[r.index() * 90 + b.index()] = i as u16;
        }
        let mut groups = Vec::new();
        for color in Side::ALL {
            for &role in &WRITTEN_ORDER[1..] {
                let count = signature.count(color, role) as usize;
                if count == 0 {
                    continue;
                }
                let squares: Vec<Square> = Square::all()
                    .filter(|&s| reachable(color, role, s))
                    .collect();
                let mut place = [[u8::MAX; 90]; 2];
                for (i, s) in squares.iter().enumerate() {
                    place[0][s.index()] = i as u8;
                    place[1][s.mirror().index()] = i as u8;
                }
                let size = binomial(squares.len() as u32, count as u32);
                groups.push(Group {
                    piece: Piece { color, role },
                    count,
                    size,
                    div: Divisor::new(size),
                    squares,
                    place,
                });
            }
        }
        let size = groups
            .iter()
            .try_fold(kings.len() as u64, |n, g| n.checked_mul(g.size))?;
        let mut group_of = [u8::MAX; 14];
        for (i, g) in groups.iter().enumerate() {
            group_of[piece_slot(g.piece)] = i as u8;
        }
        let weights = (0..groups.len())
            .map(|i| groups[i + 1..].iter().map(|g| g.size).product())
            .collect();
        debug_assert!(groups.len() <= GROUPS_MAX);
        debug_assert!(groups.iter().all(|g| g.count <= GROUP_MAX));
        Some(XiangqiIndex {
            signature,
            kings,
            king_digit,
            groups,
            group_of,
            weights,
            size,
        })
    }

    /// Whether `pos` is numbered as it stands, not through the mirror.
    pub fn is_canonical(pos: &Position) -> bool {
        match (pos.king(Side::White), pos.king(Side::Black)) {
            (Some(r), Some(b)) => !mirrored_kings(r, b),
            _ => false,
        }
    }

    /// Whether `pos` and its mirror image share an index: unless both kings stand on the
    /// e-file, where each view has its own.
    pub fn shares_index_with_mirror(pos: &Position) -> bool {
        let file = |c| pos.king(c).map(Square::file);
        !(file(Side::White) == Some(4) && file(Side::Black) == Some(4))
    }

    /// The table's signature.
    pub fn signature(&self) -> Signature {
        self.signature
    }

    /// Indices per side to move.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The index of `pos` (of this table's material, Red the first side), seen in the
    /// mirror if that is the canonical view; None for other material.
    pub fn encode(&self, pos: &Position) -> Option<u64> {
        self.digits(pos).map(|d| d.idx)
    }

    /// `encode`, taken apart for `moved`.
    pub fn digits(&self, pos: &Position) -> Option<Digits> {
        let (red, black) = (pos.king(Side::White)?, pos.king(Side::Black)?);
        let flip = mirrored_kings(red, black);
        let view = |s: Square| if flip { s.mirror() } else { s };
        let mut idx = u64::from(
            *self
                .king_digit
                .get(view(red).index() * 90 + view(black).index())?,
        );
        let flip = usize::from(flip);
        if idx == u64::from(u16::MAX) {
            return None;
        }
        // One pass over the board: each piece's place in its group.
        let mut places = [[0u8; GROUP_MAX]; GROUPS_MAX];
        let mut found = [0usize; GROUPS_MAX];
        let mut kings = 0;
        for sq in pos.occupied_squares() {
            let Some(piece) = pos.at(sq) else {
                continue;
            };
            if piece.role == Role::King {
                kings += 1;
                continue;
            }
            let g = *self.group_of.get(piece_slot(piece))?;
            let group = self.groups.get(usize::from(g))?;
            let p = group.place[flip][sq.index()];
            if p == u8::MAX || found[usize::from(g)] == group.count {
                return None;
            }
            places[usize::from(g)][found[usize::from(g)]] = p;
            found[usize::from(g)] += 1;
        }
        let mut ranks = [0u64; GROUPS_MAX];
        for (i, g) in self.groups.iter().enumerate() {
            if found[i] != g.count {
                return None;
            }
            let places = &mut places[i][..g.count];
            places.sort_unstable();
            ranks[i] = rank_sorted(places);
            idx = idx * g.size + ranks[i];
        }
        (kings == 2).then_some(Digits {
            idx,
            flip,
            places,
            ranks,
        })
    }

    /// The index after `piece`, not a king, goes from `from` to the empty square `to` in
    /// the position of `digits` (a quiet move or un-move): the kings stay, and so does
    /// the view, and only the piece's group's digit changes. None where the piece cannot
    /// stand on `to`, or is not on `from`.
    pub fn moved(&self, digits: &Digits, piece: Piece, from: Square, to: Square) -> Option<u64> {
        debug_assert_ne!(piece.role, Role::King);
        let g = usize::from(*self.group_of.get(piece_slot(piece))?);
        let group = self.groups.get(g)?;
        let place = |sq: Square| group.place[digits.flip][sq.index()];
        let (gone, come) = (place(from), place(to));
        if come == u8::MAX {
            return None;
        }
        let mut places = digits.places[g];
        let places = &mut places[..group.count];
        *places.iter_mut().find(|p| **p == gone)? = come;
        places.sort_unstable();
        let w = self.weights[g];
        Some(digits.idx - digits.ranks[g] * w + rank_sorted(places) * w)
    }

    /// The position of index `idx` with `turn` to move; None if two pieces share a square.
    pub fn decode(&self, idx: u64, turn: Side) -> Option<Position> {
        let mut pieces = arrayvec::ArrayVec::<(Square, Piece), 32>::new();
        let mut rest = idx;
        let mut places = [0u8; GROUP_MAX];
        for g in self.groups.iter().rev() {
            let digit;
            (rest, digit) = g.div.div_rem(rest);
            unrank_sorted(digit, g.squares.len() as u32, &mut places[..g.count]);
            pieces.extend(
                places[..g.count]
                    .iter()
                    .map(|&p| (g.squares[p as usize], g.piece)),
            );
        }
        let &(red, black) = self.kings.get(rest as usize)?;
        pieces.push((
            red,
            Piece {
                color: Side::White,
                role: Role::King,
            },
        ));
        pieces.push((
            black,
            Piece {
                color: Side::Black,
                role: Role::King,
            },
        ));
        Position::from_pieces(turn, pieces)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The squares a lone piece reaches from its start squares by its own moves, the kings
    /// standing where they block none of them (e0 and d9, or d0 and e9).
    fn reached(color: Side, role: Role, starts: &[&str]) -> Vec<Square> {
        let king = |s: &str, color| {
            (
                s.parse::<Square>().unwrap(),
                Piece {
                    color,
                    role: Role::King,
                },
            )
        };
        let kings = match color {
            Side::White => [king("e0", Side::White), king("d9", Side::Black)],
            Side::Black => [king("d0", Side::White), king("e9", Side::Black)],
        };
        let mut seen: Vec<Square> = starts.iter().map(|s| s.parse().unwrap()).collect();
        let mut i = 0;
        while i < seen.len() {
            let from = seen[i];
            i += 1;
            if kings.iter().any(|&(s, _)| s == from) {
                continue; // taking a king: reached, but not a square to go on from
            }
            let pieces = kings.into_iter().chain([(from, Piece { color, role })]);
            let pos = Position::from_pieces(color, pieces).unwrap();
            for m in pos.legal_moves().into_iter().filter(|m| m.from == from) {
                if !seen.contains(&m.to) {
                    seen.push(m.to);
                }
            }
        }
        seen.sort();
        seen
    }

    #[test]
    fn pieces_stand_where_their_moves_reach() {
        let set = |c, r| -> Vec<Square> { Square::all().filter(|&s| reachable(c, r, s)).collect() };
        let cases: [(Side, Role, &[&str], usize); 6] = [
            (Side::White, Role::Advisor, &["d0", "f0"], 5),
            (Side::Black, Role::Advisor, &["d9", "f9"], 5),
            (Side::White, Role::Elephant, &["c0", "g0"], 7),
            (Side::Black, Role::Elephant, &["c9", "g9"], 7),
            (
                Side::White,
                Role::Soldier,
                &["a3", "c3", "e3", "g3", "i3"],
                55,
            ),
            (
                Side::Black,
                Role::Soldier,
                &["a6", "c6", "e6", "g6", "i6"],
                55,
            ),
        ];
        for (color, role, starts, n) in cases {
            let s = set(color, role);
            assert_eq!(s.len(), n, "{color:?} {role:?}");
            assert_eq!(reached(color, role, starts), s, "{color:?} {role:?}");
        }
        assert_eq!(set(Side::White, Role::King).len(), 9);
    }

    #[test]
    fn every_index_decodes_and_encodes_back() {
        for sig in ["KCvKA", "KPvKB", "KRvKAA"] {
            let index = XiangqiIndex::new(sig.parse().unwrap());
            let (mut whole, mut clashes) = (0, 0);
            for idx in 0..index.size() {
                match index.decode(idx, Side::Black) {
                    Some(pos) => {
                        assert_eq!(index.encode(&pos), Some(idx), "{sig} {}", pos.to_fen());
                        // The mirror has an index of its own only with both kings on the
                        // e-file, where it is no less canonical.
                        let m = index.encode(&pos.mirrored()).unwrap();
                        let back = index.decode(m, Side::Black).unwrap();
                        assert!(back == pos || back == pos.mirrored(), "{sig}");
                        assert_eq!(m == idx, back == pos, "{sig}");
                        whole += 1;
                    }
                    None => clashes += 1,
                }
            }
            assert!(whole > clashes, "{sig}");
        }
        let index = XiangqiIndex::new("KRvKAABB".parse().unwrap());
        assert_eq!(index.size(), 45 * 90 * 10 * 21);
        // Other material has no index here.
        let start = Position::start();
        assert_eq!(index.encode(&start), None);
    }

    /// A digit changed for a quiet move or un-move of a piece other than a king numbers the
    /// position after it as `encode` does, for every position of tables with groups of
    /// one, two and three pieces (each piece's place among its group's re-sorted).
    #[test]
    fn a_digit_changed_numbers_a_move_as_encode_does() {
        for sig in ["KRAvKB", "KCvKAA", "KPPPvKA"] {
            let index = XiangqiIndex::new(sig.parse().unwrap());
            let (mut moves, mut unmoves) = (0, 0);
            for idx in (0..index.size()).step_by(7) {
                for turn in [Side::White, Side::Black] {
                    let Some(pos) = index.decode(idx, turn) else {
                        continue;
                    };
                    let digits = index.digits(&pos).unwrap();
                    let quiet = |from: Square, to: Square| {
                        let piece = pos.at(from).unwrap();
                        (piece.role != Role::King && pos.at(to).is_none()).then_some(piece)
                    };
                    for m in pos.legal_moves() {
                        if let Some(piece) = quiet(m.from, m.to) {
                            let next = pos.play(&m);
                            let moved = index.moved(&digits, piece, m.from, m.to);
                            assert_eq!(moved, index.encode(&next), "{sig} {}", next.to_fen());
                            moves += 1;
                        }
                    }
                    for u in pos.unmoves() {
                        if let Some(piece) = quiet(u.to, u.from) {
                            let mut before = pos.clone();
                            let back = before.after(u.to, u.from, |b| index.encode(b));
                            assert_eq!(index.moved(&digits, piece, u.to, u.from), back, "{sig}");
                            unmoves += 1;
                        }
                    }
                }
            }
            assert!(
                moves > 10_000 && unmoves > 10_000,
                "{sig}: {moves} {unmoves}"
            );
        }
    }

    /// Placements of KCvKA counted square by square (kings in their palaces, the advisor
    /// on its points, no two on a square): a placement and its mirror share one index,
    /// unless both kings stand on the e-file, where each has its own.
    #[test]
    fn indices_count_the_placements() {
        let index = XiangqiIndex::new("KCvKA".parse().unwrap());
        let (mut placements, mut both_central) = (0u64, 0u64);
        let red_king = Square::all().filter(|&s| reachable(Side::White, Role::King, s));
        for rk in red_king {
            for bk in Square::all().filter(|&s| reachable(Side::Black, Role::King, s)) {
                for c in Square::all().filter(|&s| s != rk && s != bk) {
                    for a in Square::all().filter(|&s| reachable(Side::Black, Role::Advisor, s)) {
                        if a == rk || a == bk || a == c {
                            continue;
                        }
                        placements += 1;
                        both_central += u64::from(rk.file() == 4 && bk.file() == 4);
                    }
                }
            }
        }
        let decodable = (0..index.size())
            .filter(|&i| index.decode(i, Side::White).is_some())
            .count() as u64;
        assert_eq!(2 * decodable, placements + both_central);
    }
}
