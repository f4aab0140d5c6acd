//! Board symmetries and the placements of the two kings that the index keeps.
//!
//! Without pawns all 8 symmetries of the square apply: the white king is brought into the
//! triangle a1-d1-d4 and, when it stands on the a1-h8 diagonal, the black king onto or below
//! that diagonal (462 king pairs). With pawns only the left-right mirror applies: the white
//! king is brought onto files a-d (1806 king pairs). Adjacent kings are left out.

use crate::chess::{king_attacks, Bitboard, Square};
use crate::side::Side;
use std::sync::OnceLock;

/// One of the 8 board symmetries: mirror across a1-h8 first, then left-right, then top-bottom.
#[derive(Copy, Clone, Eq, PartialEq, Debug, Default)]
pub struct Symmetry {
    /// Mirror across the a1-h8 diagonal.
    pub diagonal: bool,
    /// Mirror a-file <-> h-file.
    pub horizontal: bool,
    /// Mirror first rank <-> eighth rank.
    pub vertical: bool,
}

impl Symmetry {
    /// All 8 symmetries, the identity first.
    pub fn all() -> impl Iterator<Item = Symmetry> {
        (0..8u8).map(|b| Symmetry {
            diagonal: b & 4 != 0,
            horizontal: b & 1 != 0,
            vertical: b & 2 != 0,
        })
    }

    /// Applies the mirrors this symmetry is made of, in its order, to anything that has them.
    #[inline]
    fn apply<T>(
        self,
        x: T,
        diagonal: fn(T) -> T,
        horizontal: fn(T) -> T,
        vertical: fn(T) -> T,
    ) -> T {
        let x = if self.diagonal { diagonal(x) } else { x };
        let x = if self.horizontal { horizontal(x) } else { x };
        if self.vertical {
            vertical(x)
        } else {
            x
        }
    }

    /// The image of a square.
    #[inline]
    pub fn square(self, sq: Square) -> Square {
        self.apply(
            sq,
            Square::flip_diagonal,
            Square::flip_horizontal,
            Square::flip_vertical,
        )
    }

    /// The image of a set of squares.
    #[inline]
    pub fn bitboard(self, b: Bitboard) -> Bitboard {
        self.apply(
            b,
            Bitboard::flip_diagonal,
            Bitboard::flip_horizontal,
            Bitboard::flip_vertical,
        )
    }
}

const NONE: u16 = u16::MAX;

/// The king pairs of one scheme, numbered densely, with the symmetry that brings any pair
/// into the scheme.
pub struct KingPairs {
    pairs: Vec<(Square, Square)>,
    number: Vec<u16>,  // [wk * 64 + bk] -> pair number or NONE
    to_canon: Vec<u8>, // [wk * 64 + bk] -> symmetry code (bits: 1 horizontal, 2 vertical, 4 diagonal)
    /// [color][other king's square]: where the king of `color` stands in a pair already in
    /// canonical form.
    canonical: [[Bitboard; 64]; 2],
    /// [color][other king's square]: where the king of `color` stands when each of its
    /// steps (to squares not next to the other king) reaches a pair of its own number,
    /// none the number of the pair it leaves.
    steps_apart: [[Bitboard; 64]; 2],
}

fn code(s: Symmetry) -> u8 {
    s.horizontal as u8 | (s.vertical as u8) << 1 | (s.diagonal as u8) << 2
}

fn from_code(c: u8) -> Symmetry {
    Symmetry {
        horizontal: c & 1 != 0,
        vertical: c & 2 != 0,
        diagonal: c & 4 != 0,
    }
}

impl KingPairs {
    fn build(keep: impl Fn(Square, Square) -> bool, symmetries: &[Symmetry]) -> KingPairs {
        let mut pairs = Vec::new();
        let mut number = vec![NONE; 64 * 64];
        for wk in Square::all() {
            for bk in Square::all() {
                if wk.distance(bk) > 1 && keep(wk, bk) {
                    number[wk.index() * 64 + bk.index()] = pairs.len() as u16;
                    pairs.push((wk, bk));
                }
            }
        }
        let mut to_canon = vec![0u8; 64 * 64];
        for wk in Square::all() {
            for bk in Square::all() {
                if let Some(&s) = symmetries.iter().find(|s| keep(s.square(wk), s.square(bk))) {
                    to_canon[wk.index() * 64 + bk.index()] = code(s);
                }
            }
        }
        let mut canonical = [[Bitboard::EMPTY; 64]; 2];
        for &(wk, bk) in &pairs {
            canonical[Side::White.index()][bk.index()].add(wk);
            canonical[Side::Black.index()][wk.index()].add(bk);
        }
        let mut kings = KingPairs {
            pairs,
            number,
            to_canon,
            canonical,
            steps_apart: [[Bitboard::EMPTY; 64]; 2],
        };
        for color in [Side::White, Side::Black] {
            for other in Square::all() {
                for king in Square::all() {
                    if king.distance(other) > 1 && kings.steps_stay_apart(color, king, other) {
                        kings.steps_apart[color.index()][other.index()].add(king);
                    }
                }
            }
        }
        kings
    }

    /// True when the steps of the king of `color` from `king` (to squares not next to the
    /// king on `other`) reach pairs of distinct numbers, none that of the pair it leaves.
    fn steps_stay_apart(&self, color: Side, king: Square, other: Square) -> bool {
        let number = |king: Square| match color {
            Side::White => self.canonical_number(king, other),
            Side::Black => self.canonical_number(other, king),
        };
        let mut seen = vec![number(king)];
        for to in king_attacks(king) {
            if to.distance(other) <= 1 {
                continue;
            }
            let n = number(to);
            if n.is_none() || seen.contains(&n) {
                return false;
            }
            seen.push(n);
        }
        true
    }

    /// Scheme without pawns (462 pairs).
    pub fn pawnless() -> &'static KingPairs {
        static CELL: OnceLock<KingPairs> = OnceLock::new();
        CELL.get_or_init(|| {
            let syms: Vec<Symmetry> = Symmetry::all().collect();
            KingPairs::build(
                |wk, bk| {
                    wk.file() < 4
                        && wk.rank() <= wk.file()
                        && (wk.rank() != wk.file() || bk.rank() <= bk.file())
                },
                &syms,
            )
        })
    }

    /// Scheme with pawns (white king on files a-d).
    pub fn with_pawns() -> &'static KingPairs {
        static CELL: OnceLock<KingPairs> = OnceLock::new();
        CELL.get_or_init(|| {
            let syms = [
                Symmetry::default(),
                Symmetry {
                    horizontal: true,
                    ..Symmetry::default()
                },
            ];
            KingPairs::build(|wk, _| wk.file() < 4, &syms)
        })
    }

    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Always false: a scheme has pairs.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The pair with number `n`.
    #[inline]
    pub fn pair(&self, n: usize) -> (Square, Square) {
        self.pairs[n]
    }

    /// The number of a pair already in canonical form (None for adjacent kings).
    #[inline]
    pub fn number(&self, wk: Square, bk: Square) -> Option<usize> {
        match self.number[wk.index() * 64 + bk.index()] {
            NONE => None,
            n => Some(n as usize),
        }
    }

    /// The squares where the king of `color` forms a pair in canonical form with the other
    /// king on `other`: moves of that king to them need no symmetry, and reach pairs of
    /// distinct numbers.
    #[inline]
    pub fn canonical_squares(&self, color: Side, other: Square) -> Bitboard {
        self.canonical[color.index()][other.index()]
    }

    /// The number of the pair the kings on `wk` and `bk` form once brought into canonical
    /// form (None for adjacent kings).
    #[inline]
    pub fn canonical_number(&self, wk: Square, bk: Square) -> Option<usize> {
        let sym = self.canonicalizer(wk, bk);
        self.number(sym.square(wk), sym.square(bk))
    }

    /// The squares where the king of `color`, the other king on `other`, can count its
    /// steps by their number: each reaches a pair of its own number, none the number of the
    /// pair it leaves (so no step's index equals another's or that of a move of another
    /// piece).
    #[inline]
    pub fn steps_apart(&self, color: Side, other: Square) -> Bitboard {
        self.steps_apart[color.index()][other.index()]
    }

    /// The symmetry that brings the pair into canonical form.
    #[inline]
    pub fn canonicalizer(&self, wk: Square, bk: Square) -> Symmetry {
        from_code(self.to_canon[wk.index() * 64 + bk.index()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A king with a step that is the mirror image of where it stands (b1 to a2, the other
    /// king on the a1-h8 diagonal), or of another step, is not apart; one away from every
    /// mirror line is.
    #[test]
    fn steps_apart_where_no_step_meets_another() {
        let kings = KingPairs::pawnless();
        let sq = |s: &str| s.parse::<Square>().unwrap();
        assert!(!kings.steps_apart(Side::White, sq("h8")).contains(sq("b1")));
        // With the white king on the diagonal, the black king's steps to f7 and g6 mirror.
        assert!(!kings.steps_apart(Side::Black, sq("c3")).contains(sq("g7")));
        assert!(kings.steps_apart(Side::Black, sq("c1")).contains(sq("f6")));
        // With pawns a step across the middle mirrors the other king too.
        let kings = KingPairs::with_pawns();
        assert!(kings.steps_apart(Side::White, sq("a8")).contains(sq("d4")));
    }

    #[test]
    fn pair_counts() {
        assert_eq!(KingPairs::pawnless().len(), 462);
        assert_eq!(KingPairs::with_pawns().len(), 1806);
    }

    #[test]
    fn every_pair_has_a_canonical_image() {
        for kp in [KingPairs::pawnless(), KingPairs::with_pawns()] {
            for wk in Square::all() {
                for bk in Square::all() {
                    if wk.distance(bk) > 1 {
                        assert!(kp.canonical_number(wk, bk).is_some());
                    }
                }
            }
        }
    }
}
