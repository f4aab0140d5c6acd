//! Attack sets of every piece. The tables are computed by `const fn` at compile time (nothing
//! typed in by hand); sliding pieces use ray tables and an obstruction difference per line,
//! which needs no magic numbers, no large table and no branch.

use super::bitboard::Bitboard;
use super::role::Role;
use super::square::Square;
use crate::side::Side;

const fn step_table(deltas: &[(i32, i32)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut i = 0;
        while i < deltas.len() {
            let (nf, nr) = (f + deltas[i].0, r + deltas[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                table[sq] |= 1 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

const KNIGHT: [u64; 64] = step_table(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);
const KING: [u64; 64] = step_table(&[
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
]);
const PAWN: [[u64; 64]; 2] = [
    step_table(&[(-1, 1), (1, 1)]),
    step_table(&[(-1, -1), (1, -1)]),
];

/// Ray directions as (file step, rank step); the first four increase the square index.
const DIRS: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (-1, 1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (1, -1),
];

const fn ray_table() -> [[u64; 64]; 8] {
    let mut table = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 64 {
            let (mut f, mut r) = ((sq % 8) as i32, (sq / 8) as i32);
            loop {
                f += DIRS[d].0;
                r += DIRS[d].1;
                if f < 0 || f >= 8 || r < 0 || r >= 8 {
                    break;
                }
                table[d][sq] |= 1 << (r * 8 + f);
            }
            sq += 1;
        }
        d += 1;
    }
    table
}

const RAYS: [[u64; 64]; 8] = ray_table();

/// For each square, the union of the rays in directions `dirs` (an empty board's attacks).
const fn rays_union(dirs: [usize; 4]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut i = 0;
        while i < 4 {
            table[sq] |= RAYS[dirs[i]][sq];
            i += 1;
        }
        sq += 1;
    }
    table
}

/// For each pair of squares on one line: the squares strictly between them (table 0,
/// `between`) and the whole line through them (table 1, `line`); 0 for squares on no
/// common line.
const fn line_tables() -> [[[u64; 64]; 64]; 2] {
    let mut t = [[[0u64; 64]; 64]; 2];
    let mut a = 0;
    while a < 64 {
        let mut d = 0;
        while d < 8 {
            let line = RAYS[d][a] | RAYS[(d + 4) % 8][a] | 1 << a;
            let mut rest = RAYS[d][a];
            while rest != 0 {
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                t[0][a][b] = RAYS[d][a] & !RAYS[d][b] & !(1 << b);
                t[1][a][b] = line;
            }
            d += 1;
        }
        a += 1;
    }
    t
}

static LINES: [[[u64; 64]; 64]; 2] = line_tables();

/// The squares strictly between `a` and `b` when they share a rank, file or diagonal, else
/// none.
#[inline]
pub(super) fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES[0][a.index()][b.index()])
}

/// The whole rank, file or diagonal through `a` and `b`, or none if they share no line.
#[inline]
pub(super) fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES[1][a.index()][b.index()])
}

const ROOK_RAYS: [u64; 64] = rays_union([0, 2, 4, 6]);
const BISHOP_RAYS: [u64; 64] = rays_union([1, 3, 5, 7]);

/// Squares a rook on `sq` attacks on an empty board: a cheap test of whether a rook or
/// queen could attack `sq` at all.
#[inline]
pub(super) fn rook_rays(sq: Square) -> Bitboard {
    Bitboard(ROOK_RAYS[sq.index()])
}

/// Squares a bishop on `sq` attacks on an empty board.
#[inline]
pub(super) fn bishop_rays(sq: Square) -> Bitboard {
    Bitboard(BISHOP_RAYS[sq.index()])
}

/// The squares a slider on `sq` attacks along the line of directions `up` and `up + 4`,
/// given the occupied squares, without a branch (Hoffmann's obstruction difference): the
/// nearest blocker below `sq` is the highest occupied bit of the lower ray (bit 0 when
/// there is none), the nearest above is the lowest of the upper ray, and the subtraction
/// sets every bit from the one to the other.
#[inline]
fn line_attacks(up: usize, sq: Square, occupied: u64) -> u64 {
    let (upper, lower) = (RAYS[up][sq.index()], RAYS[up + 4][sq.index()]);
    let above = upper & occupied;
    let below = 0x8000_0000_0000_0000u64 >> ((lower & occupied) | 1).leading_zeros();
    (upper | lower) & (above ^ above.wrapping_sub(below))
}

/// Squares a knight on `sq` attacks.
#[inline]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

/// Squares a king on `sq` attacks.
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline]
pub fn pawn_attacks(color: Side, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.index()][sq.index()])
}

/// Squares a rook on `sq` attacks, given the occupied squares.
#[inline]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let o = occupied.0;
    Bitboard(line_attacks(0, sq, o) | line_attacks(2, sq, o))
}

/// Squares a bishop on `sq` attacks, given the occupied squares.
#[inline]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let o = occupied.0;
    Bitboard(line_attacks(1, sq, o) | line_attacks(3, sq, o))
}

/// Squares a piece of `role` and `color` on `sq` attacks, given the occupied squares.
#[inline]
pub fn attacks(role: Role, color: Side, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Pawn => pawn_attacks(color, sq),
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occupied),
        Role::Rook => rook_attacks(sq, occupied),
        Role::Queen => rook_attacks(sq, occupied) | bishop_attacks(sq, occupied),
        Role::King => king_attacks(sq),
    }
}

/// True when a piece of `role` and `color` on `sq` attacks `target`, given the occupied
/// squares: a table look for most pieces, and for a slider a look at the squares between,
/// cheaper than its whole attack set when only one square matters.
#[inline]
pub(super) fn attacks_square(
    role: Role,
    color: Side,
    sq: Square,
    target: Square,
    occupied: Bitboard,
) -> bool {
    let reach = match role {
        Role::Pawn => return pawn_attacks(color, sq).contains(target),
        Role::Knight => return knight_attacks(sq).contains(target),
        Role::King => return king_attacks(sq).contains(target),
        Role::Bishop => bishop_rays(sq),
        Role::Rook => rook_rays(sq),
        Role::Queen => rook_rays(sq) | bishop_rays(sq),
    };
    reach.contains(target) && (between(sq, target) & occupied).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_on_an_empty_board() {
        let e4: Square = "e4".parse().unwrap();
        let a1: Square = "a1".parse().unwrap();
        assert_eq!(knight_attacks(e4).count(), 8);
        assert_eq!(knight_attacks(a1).count(), 2);
        assert_eq!(king_attacks(a1).count(), 3);
        assert_eq!(rook_attacks(e4, Bitboard::EMPTY).count(), 14);
        assert_eq!(bishop_attacks(e4, Bitboard::EMPTY).count(), 13);
        assert_eq!(pawn_attacks(Side::White, a1).count(), 1);
    }

    /// `attacks_square` agrees with the attack sets on every square pair, for every role,
    /// over boards with a few blockers.
    #[test]
    fn one_square_tests_agree_with_attack_sets() {
        let boards = [
            0u64,
            0x0000_0010_2400_0000,
            0x0081_0000_1800_4200,
            0xff00_0000_0000_00ff,
        ];
        for occ in boards.map(Bitboard) {
            for role in Role::ALL {
                for color in Side::ALL {
                    for sq in (0..64).map(Square::from_index) {
                        let set = attacks(role, color, sq, occ);
                        for target in (0..64).map(Square::from_index) {
                            assert_eq!(
                                attacks_square(role, color, sq, target, occ),
                                set.contains(target),
                                "{role:?} {color:?} {sq:?} -> {target:?} on {occ:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// The squares a slider reaches square by square in direction `(df, dr)` from `sq`,
    /// up to and including the first occupied one.
    fn walk(sq: Square, (df, dr): (i32, i32), occupied: u64) -> u64 {
        let (mut f, mut r) = ((sq.index() % 8) as i32, (sq.index() / 8) as i32);
        let mut out = 0;
        loop {
            (f, r) = (f + df, r + dr);
            if !(0..8).contains(&f) || !(0..8).contains(&r) {
                return out;
            }
            out |= 1 << (r * 8 + f);
            if occupied >> (r * 8 + f) & 1 == 1 {
                return out;
            }
        }
    }

    /// Rook and bishop attacks agree with a walk along each direction, on every square of
    /// random boards from empty to crowded.
    #[test]
    fn sliders_agree_with_a_square_by_square_walk() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..3000 {
            // Sparse boards (as in endgames) as well as dense ones.
            let occ = match round % 3 {
                0 => next() & next() & next(),
                1 => next() & next(),
                _ => next(),
            };
            for sq in (0..64).map(Square::from_index) {
                let by_walk = |dirs: [(i32, i32); 4]| {
                    Bitboard(dirs.iter().fold(0, |a, &d| a | walk(sq, d, occ)))
                };
                let rook = by_walk([(0, 1), (1, 0), (0, -1), (-1, 0)]);
                let bishop = by_walk([(1, 1), (-1, 1), (-1, -1), (1, -1)]);
                assert_eq!(rook_attacks(sq, Bitboard(occ)), rook, "{sq:?} {occ:x}");
                assert_eq!(bishop_attacks(sq, Bitboard(occ)), bishop, "{sq:?} {occ:x}");
            }
        }
    }

    #[test]
    fn sliders_stop_at_blockers() {
        let d4: Square = "d4".parse().unwrap();
        let mut occ = Bitboard::EMPTY;
        for s in ["d6", "b4", "f2"] {
            occ.add(s.parse().unwrap());
        }
        // up: d5 d6; down: d3 d2 d1; left: c4 b4; right: e4..h4
        assert_eq!(rook_attacks(d4, occ).count(), 2 + 3 + 2 + 4);
        // f2 blocks the down-right diagonal after e3, f2.
        assert!(bishop_attacks(d4, occ).contains("f2".parse().unwrap()));
        assert!(!bishop_attacks(d4, occ).contains("g1".parse().unwrap()));
    }
}
