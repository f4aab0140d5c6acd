//! Un-moves and moves agree on random legal endgame positions: every un-move's forward move
//! returns to the position, and every legal move's reverse is among the un-moves of the
//! position it leads to.

use retrobook::chess::{MoveKind, MoveList, Piece, Position, Role, Square, UnMoveKind};
use retrobook::Side;

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random legal position with both kings and up to 4 other pieces (pawns included, with an
/// en-passant square when one could be legal).
fn random_position(rng: &mut Rng) -> Position {
    loop {
        let turn = if rng.below(2) == 0 {
            Side::White
        } else {
            Side::Black
        };
        let mut pos = Position::empty(turn);
        if rng.below(3) == 0 {
            // A pawn on its home rank beside an enemy pawn that could take it en passant.
            let file = rng.below(8) as u32;
            let side_file = if file == 0 || (file < 7 && rng.below(2) == 0) {
                file + 1
            } else {
                file - 1
            };
            let (home, enemy_rank) = if turn == Side::White { (1, 3) } else { (6, 4) };
            pos.put(
                Square::from_coords(file, home),
                Piece {
                    color: turn,
                    role: Role::Pawn,
                },
            );
            pos.put(
                Square::from_coords(side_file, enemy_rank),
                Piece {
                    color: !turn,
                    role: Role::Pawn,
                },
            );
        }
        let extra = 1 + rng.below(4);
        let mut ok = true;
        let mut pieces = vec![
            Piece {
                color: Side::White,
                role: Role::King,
            },
            Piece {
                color: Side::Black,
                role: Role::King,
            },
        ];
        for _ in 0..extra {
            let color = if rng.below(2) == 0 {
                Side::White
            } else {
                Side::Black
            };
            let role = Role::ALL[rng.below(5) as usize];
            pieces.push(Piece { color, role });
        }
        for p in pieces {
            let sq = Square::from_index(rng.below(64) as u32);
            if pos.occupied().count() >= 6 {
                break;
            }
            if pos.occupied().contains(sq)
                || (p.role == Role::Pawn && (sq.rank() == 0 || sq.rank() == 7))
            {
                ok = false;
                break;
            }
            pos.put(sq, p);
        }
        if !ok || pos.validate().is_err() {
            continue;
        }
        return pos;
    }
}

/// Placement and side to move (clocks and rights do not matter here).
fn key(p: &Position) -> String {
    format!("{} {}", p.board_fen(), p.turn().fen_char())
}

const ALL_ROLES: [Role; 5] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
];

#[test]
fn every_unmove_leads_back_by_a_legal_move() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut count = 0;
    for _ in 0..3000 {
        let pos = random_position(&mut rng);
        pos.for_each_unmove(&ALL_ROLES, true, |u| {
            let before = pos.unplay(&u);
            assert!(before.validate().is_ok(), "{before} from {pos} by {u:?}");
            let mut list = MoveList::new();
            before.legal_moves(&mut list);
            let back = list
                .as_slice()
                .iter()
                .find(|m| key(&before.play(m)) == key(&pos));
            assert!(
                back.is_some(),
                "no move of {before} returns to {pos} (un-move {u:?})"
            );
            let back = back.unwrap();
            assert_eq!(
                u.kind == UnMoveKind::EnPassant,
                back.kind == MoveKind::EnPassant,
                "{u:?} {back:?}"
            );
            assert_eq!(
                u.kind == UnMoveKind::DoublePush,
                back.kind == MoveKind::DoublePush,
                "{u:?} {back:?}"
            );
            assert_eq!(u.uncapture, back.capture, "{before} -> {pos}");
            assert_eq!(u.unpromotion, back.promotion.is_some(), "{before} -> {pos}");
            count += 1;
        });
    }
    assert!(count > 50_000, "only {count} un-moves checked");
}

#[test]
fn every_move_is_among_the_unmoves_of_its_result() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut count, mut en_passant) = (0, 0);
    for _ in 0..4000 {
        let pos = random_position(&mut rng);
        // Also positions right after a double push, so en-passant captures are covered.
        let mut sources = vec![pos];
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        sources.extend(
            list.as_slice()
                .iter()
                .filter(|m| m.kind == MoveKind::DoublePush)
                .map(|m| pos.play(m)),
        );
        for src in sources {
            src.legal_moves(&mut list);
            for m in list.as_slice() {
                let after = src.play(m);
                let mut found = false;
                after.for_each_unmove(&ALL_ROLES, true, |u| {
                    let before = after.unplay(&u);
                    let same_ep =
                        m.kind != MoveKind::EnPassant || before.ep_square() == src.ep_square();
                    if key(&before) == key(&src)
                        && same_ep
                        && (u.kind == UnMoveKind::EnPassant) == (m.kind == MoveKind::EnPassant)
                    {
                        found = true;
                    }
                });
                assert!(
                    found,
                    "move {m} of {src} (to {after}) is not among the un-moves"
                );
                en_passant += (m.kind == MoveKind::EnPassant) as u32;
                count += 1;
            }
        }
    }
    assert!(count > 20_000, "only {count} moves checked");
    assert!(
        en_passant > 20,
        "only {en_passant} en-passant captures checked"
    );
}

#[test]
fn quiet_unmove_sets_are_the_quiet_unmoves_of_pieces() {
    let mut rng = Rng(0x6a09_e667_f3bc_c908);
    let mut count = 0;
    for _ in 0..6000 {
        let pos = random_position(&mut rng);
        let mut listed = Vec::new();
        pos.for_each_unmove(&[], false, |u| {
            if u.role != Role::Pawn {
                listed.push((u.role, u.from, u.to));
            }
        });
        let mut from_sets = Vec::new();
        pos.for_each_quiet_unmove_set(|role, from, squares| {
            assert!(
                !squares.is_empty(),
                "an empty set for {role:?} on {from} of {pos}"
            );
            from_sets.extend(squares.map(|to| (role, from, to)));
        });
        // The same un-moves in the same order (retrograde analysis relies on the order).
        assert_eq!(from_sets, listed, "{pos}");
        count += listed.len();
    }
    assert!(count > 40_000, "only {count} un-moves checked");
}
