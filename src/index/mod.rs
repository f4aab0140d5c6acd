//! Dense numbering of the positions of one material signature, with symmetry reduction.
//!
//! index = king_pair * (product of group sizes) + mixed-radix digits of the piece groups,
//! where a group is all pieces of one colour and role (identical pieces are ranked as a set,
//! so they are counted once). Pawns range over the 48 squares of ranks 2-7, other pieces over
//! all 64. Indices whose pieces overlap are "broken": they decode to nothing. The side to move
//! is not part of the index: a table holds one array per side to move.

mod combinations;
mod symmetry;

pub use symmetry::{KingPairs, Symmetry};

use crate::chess::{Bitboard, Color, Piece, Position, Role};
use crate::material::Material;

#[derive(Copy, Clone, Debug)]
struct Group {
    color: Color,
    role: Role,
    count: u32,
    /// Squares are shifted down by this much (8 for pawns: a2 becomes 0).
    shift: u32,
    /// Number of squares in the domain.
    domain: u32,
    /// C(domain, count).
    size: u64,
}

/// The index of one material signature (in its canonical orientation).
#[derive(Clone)]
pub struct TableIndex {
    material: Material,
    kings: &'static KingPairs,
    groups: Vec<Group>,
    per_king_pair: u64,
    size: u64,
}

impl TableIndex {
    /// The index scheme of `material` (as given: callers pass canonical material).
    pub fn new(material: Material) -> TableIndex {
        let pawns = material.has_pawns();
        let kings = if pawns { KingPairs::with_pawns() } else { KingPairs::pawnless() };
        let mut groups = Vec::new();
        for color in Color::ALL {
            for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn] {
                let count = material.count(color, role) as u32;
                if count > 0 {
                    let (shift, domain) = if role == Role::Pawn { (8, 48) } else { (0, 64) };
                    let size = combinations::binomial(domain, count);
                    groups.push(Group { color, role, count, shift, domain, size });
                }
            }
        }
        let per_king_pair = groups.iter().map(|g| g.size).product();
        let size = per_king_pair * kings.len() as u64;
        TableIndex { material, kings, groups, per_king_pair, size }
    }

    /// The material this index numbers.
    pub fn material(&self) -> Material {
        self.material
    }

    /// Number of indices per side to move.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The symmetry that brings `pos` into the indexed form.
    #[inline]
    fn canonicalizer(&self, pos: &Position) -> Option<Symmetry> {
        let wk = pos.king(Color::White)?;
        let bk = pos.king(Color::Black)?;
        Some(self.kings.canonicalizer(wk, bk))
    }

    /// The index of `pos`, which must have this material (in this orientation). Returns None
    /// for positions the index leaves out (adjacent kings, missing kings).
    #[inline]
    pub fn encode(&self, pos: &Position) -> Option<u64> {
        let sym = self.canonicalizer(pos)?;
        let wk = sym.square(pos.king(Color::White)?);
        let bk = sym.square(pos.king(Color::Black)?);
        let pair = self.kings.number(wk, bk)? as u64;
        let mut idx = pair;
        for g in &self.groups {
            let b = sym.bitboard(pos.pieces(g.color, g.role));
            idx = idx * g.size + combinations::rank(b.0 >> g.shift);
        }
        Some(idx)
    }

    /// Calls `f` with every index of `pos`'s symmetry class: one, or two for pawnless
    /// positions whose kings both stand on the a1-h8 diagonal (the class then also holds the
    /// mirror image across it). Retrograde analysis must reach both.
    #[inline]
    pub fn for_each_encoding(&self, pos: &Position, mut f: impl FnMut(u64)) {
        let Some(idx) = self.encode(pos) else { return };
        f(idx);
        if self.material.has_pawns() {
            return;
        }
        let (Some(wk), Some(bk)) = (pos.king(Color::White), pos.king(Color::Black)) else { return };
        let sym = self.kings.canonicalizer(wk, bk);
        let (cw, cb) = (sym.square(wk), sym.square(bk));
        if cw.file() == cw.rank() && cb.file() == cb.rank() {
            let canon = pos.transformed(sym.diagonal, sym.horizontal, sym.vertical);
            if let Some(other) = self.encode(&canon.transformed(true, false, false)) {
                if other != idx {
                    f(other);
                }
            }
        }
    }

    /// The position with index `idx` and `turn` to move, or None if the index is broken
    /// (pieces overlap) or out of range. The position may still be illegal (side not to move
    /// in check).
    #[inline]
    pub fn decode(&self, idx: u64, turn: Color) -> Option<Position> {
        if idx >= self.size {
            return None;
        }
        let mut pos = Position::empty(turn);
        let mut rest = idx % self.per_king_pair;
        let (wk, bk) = self.kings.pair((idx / self.per_king_pair) as usize);
        pos.put(wk, Piece { color: Color::White, role: Role::King });
        pos.put(bk, Piece { color: Color::Black, role: Role::King });
        let mut occupied = pos.occupied();
        for g in self.groups.iter().rev() {
            let digit = rest % g.size;
            rest /= g.size;
            let set = Bitboard(combinations::unrank(digit, g.count, g.domain) << g.shift);
            if !(set & occupied).is_empty() {
                return None;
            }
            occupied |= set;
            for sq in set {
                pos.put(sq, Piece { color: g.color, role: g.role });
            }
        }
        Some(pos)
    }

    /// How many positions `idx` (decoding to `pos`) counts for in the statistics, in the
    /// convention Syzygy publishes: each symmetry class once, identical pieces told apart
    /// (k identical pieces give k! labelled positions, fewer when a symmetry of the position
    /// swaps them). 0 for the second index of a class (pawnless, both kings on the a1-h8
    /// diagonal: the index also holds the mirror image across it).
    pub fn class_weight(&self, idx: u64, pos: &Position) -> u64 {
        let labelled: u64 = self.groups.iter().map(|g| (1..=g.count as u64).product::<u64>()).product();
        if self.material.has_pawns() {
            return labelled;
        }
        let (Some(wk), Some(bk)) = (pos.king(Color::White), pos.king(Color::Black)) else {
            return 0;
        };
        if wk.file() != wk.rank() || bk.file() != bk.rank() {
            return labelled;
        }
        let mirrored = pos.transformed(true, false, false);
        match self.encode(&mirrored) {
            Some(other) if other < idx => 0,
            Some(other) if other == idx => {
                // The position is its own mirror image: the mirror swaps the identical pieces
                // that stand off the diagonal, so their labellings pair up.
                const DIAGONAL: u64 = 0x8040_2010_0804_0201;
                if (pos.occupied().0 & !DIAGONAL) != 0 {
                    labelled / 2
                } else {
                    labelled
                }
            }
            _ => labelled,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        let idx = TableIndex::new("KQvKR".parse().unwrap());
        assert_eq!(idx.size(), 462 * 64 * 64);
        let idx = TableIndex::new("KPPvK".parse().unwrap());
        assert_eq!(idx.size(), 1806 * 48 * 47 / 2);
    }
}
