//! Material signatures such as `KRvKN`: parsing, canonical (Syzygy) orientation, colour flip
//! and the sub-table graph (which tables a table's captures and promotions lead into).

use crate::chess::{Position, Role};
use crate::side::{BySide, Side};
use std::fmt;
use std::str::FromStr;

/// Most pieces (kings included) a table may have: DTM plies of 5-piece chess fit one byte.
pub const MAX_PIECES: u32 = 6;

/// The non-king roles in naming order (strongest first).
const NAMING_ORDER: [Role; 5] = [
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];

/// Piece counts of both sides; each side always has exactly one king.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Ord, PartialOrd)]
pub struct Material {
    counts: BySide<[u8; 6]>,
}

/// Why a signature was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaterialError(pub String);

impl fmt::Display for MaterialError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MaterialError {}

impl Material {
    /// The material of a position (its kings are counted as one each).
    pub fn from_position(pos: &Position) -> Material {
        let counts = BySide::new_with(|side| {
            let mut c = pos.counts(side);
            c[Role::King.index()] = 1;
            c
        });
        Material { counts }
    }

    /// A number naming this material (counts as 4-bit digits), for fast table look-ups.
    #[inline]
    pub fn key(&self) -> u64 {
        (self.counts.as_array().into_iter().flatten())
            .fold(0u64, |k, &c| k << 4 | u64::from(c & 15))
    }

    /// Number of pieces of `color` and `role`.
    #[inline]
    pub fn count(&self, color: Side, role: Role) -> u8 {
        self.counts[color][role.index()]
    }

    /// All pieces, kings included.
    pub fn pieces(&self) -> u32 {
        self.counts
            .as_array()
            .into_iter()
            .flatten()
            .map(|&c| c as u32)
            .sum()
    }

    /// Pieces of one side, its king included.
    pub fn side_pieces(&self, color: Side) -> u32 {
        self.counts[color].iter().map(|&c| c as u32).sum()
    }

    /// Pawns of both sides.
    pub fn pawns(&self) -> u32 {
        (self.count(Side::White, Role::Pawn) + self.count(Side::Black, Role::Pawn)) as u32
    }

    /// True when either side has a pawn.
    pub fn has_pawns(&self) -> bool {
        self.pawns() > 0
    }

    /// Only the two kings: always a draw, no table needed.
    pub fn is_bare_kings(&self) -> bool {
        self.pieces() == 2
    }

    /// The same material with the colours exchanged.
    pub fn flipped(&self) -> Material {
        Material {
            counts: self.counts.swapped(),
        }
    }

    /// (pieces, counts strongest role first): comparing these keys compares the sides piece
    /// by piece, strongest first, as Syzygy's naming does.
    fn strength_key(&self, color: Side) -> (u32, [u8; 5]) {
        let c = &self.counts[color];
        let counts = NAMING_ORDER.map(|r| c[r.index()]);
        (self.side_pieces(color), counts)
    }

    /// True when white is the side Syzygy names first (more pieces, or on equal counts the
    /// stronger pieces, comparing Q > R > B > N > P piece by piece).
    #[inline]
    pub fn is_canonical(&self) -> bool {
        self.strength_key(Side::White) >= self.strength_key(Side::Black)
    }

    /// The canonical orientation of this material.
    pub fn canonical(&self) -> Material {
        if self.is_canonical() {
            *self
        } else {
            self.flipped()
        }
    }

    /// Materials (canonical, bare kings excluded) that one capture and/or promotion leads to.
    pub fn subtables(&self) -> Vec<Material> {
        let mut out = Vec::new();
        for mover in Side::ALL {
            for (m, _) in self.conversions(mover) {
                if !out.contains(&m) {
                    out.push(m);
                }
            }
        }
        out
    }

    /// Where the captures and promotions of `mover` lead: each canonical material (bare
    /// kings excluded) with the side to move there in its canonical orientation.
    pub fn conversions(&self, mover: Side) -> Vec<(Material, Side)> {
        self.conversions_promoting(mover)
            .into_iter()
            .map(|(m, side, _)| (m, side))
            .collect()
    }

    /// `conversions`, each with the role a promotion puts on the board there (None for a
    /// capture alone). No material is reached both ways: a capture takes a piece off the
    /// board, a promotion alone does not, and a capture that promotes changes a pawn too
    /// (a colour flip, which could make two materials alike, also changes the side).
    pub fn conversions_promoting(&self, mover: Side) -> Vec<(Material, Side, Option<Role>)> {
        let mut out: Vec<(Material, Side, Option<Role>)> = Vec::new();
        let mut add = |m: Material, promoted: Option<Role>| {
            let (m, side) = m.after_move_by(mover);
            if !m.is_bare_kings() && !out.iter().any(|e| (e.0, e.1) == (m, side)) {
                out.push((m, side, promoted));
            }
        };
        let victim = !mover;
        let captures = std::iter::once(None).chain(
            NAMING_ORDER
                .iter()
                .filter(|&&r| self.count(victim, r) > 0)
                .map(|&r| Some(r)),
        );
        for cap in captures {
            let mut base = *self;
            if let Some(r) = cap {
                base.counts[victim][r.index()] -= 1;
                add(base, None);
            }
            if self.count(mover, Role::Pawn) > 0 && cap != Some(Role::Pawn) {
                for p in Role::PROMOTIONS {
                    let mut m = base;
                    m.counts[mover][Role::Pawn.index()] -= 1;
                    m.counts[mover][p.index()] += 1;
                    add(m, Some(p));
                }
            }
        }
        out
    }

    /// The side reached when `mover` takes a pawn en passant (canonical material, side to
    /// move), where both colours have pawns: one of `conversions(mover)`, the one a search
    /// of the other side reads after that side's double push.
    pub fn en_passant(&self, mover: Side) -> Option<(Material, Side)> {
        if self.count(Side::White, Role::Pawn) == 0 || self.count(Side::Black, Role::Pawn) == 0 {
            return None;
        }
        let mut m = *self;
        m.counts[!mover][Role::Pawn.index()] -= 1;
        Some(m.after_move_by(mover))
    }

    /// This material with the other side than `mover` to move, as a canonical table's side:
    /// colours flipped where it is not canonical.
    fn after_move_by(self, mover: Side) -> (Material, Side) {
        if self.is_canonical() {
            (self, !mover)
        } else {
            (self.flipped(), mover)
        }
    }

    /// Every table needed before this one, in an order that builds each after its own
    /// sub-tables (this one not included).
    pub fn dependencies(&self) -> Vec<Material> {
        let mut all = Vec::new();
        let mut stack = self.canonical().subtables();
        while let Some(m) = stack.pop() {
            if !all.contains(&m) {
                stack.extend(m.subtables());
                all.push(m);
            }
        }
        sort_for_generation(&mut all);
        all
    }

    /// Every canonical table of 3 to `max_pieces` pieces, in generation order.
    pub fn all_up_to(max_pieces: u32) -> Vec<Material> {
        let mut out = Vec::new();
        let mut king = [0u8; 6];
        king[Role::King.index()] = 1;
        let mut counts = BySide::new_with(|_| king);
        fn rec(out: &mut Vec<Material>, counts: &mut BySide<[u8; 6]>, slot: usize, left: u32) {
            if slot == 10 {
                let m = Material { counts: *counts };
                if m.pieces() >= 3 && m.is_canonical() && !out.contains(&m) {
                    out.push(m);
                }
                return;
            }
            let (c, r) = (Side::from_index(slot / 5), slot % 5);
            for n in 0..=left {
                counts[c][r] = n as u8;
                rec(out, counts, slot + 1, left - n);
            }
            counts[c][r] = 0;
        }
        rec(&mut out, &mut counts, 0, max_pieces.saturating_sub(2));
        sort_for_generation(&mut out);
        out
    }
}

/// Sorts tables so that each comes after all of its sub-tables: captures lower the piece
/// count and promotions the pawn count.
pub fn sort_for_generation(list: &mut [Material]) {
    list.sort_by_key(|m| (m.pieces(), m.pawns(), m.to_string()));
}

impl fmt::Display for Material {
    /// ```
    /// use retrobook::material::Material;
    /// let m: Material = "KNvKR".parse().unwrap();
    /// assert_eq!(m.to_string(), "KNvKR");
    /// assert_eq!(m.canonical().to_string(), "KRvKN");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in Side::ALL.into_iter().enumerate() {
            if i == 1 {
                f.write_str("v")?;
            }
            f.write_str("K")?;
            for r in NAMING_ORDER {
                for _ in 0..self.count(c, r) {
                    write!(f, "{}", r.upper_char())?;
                }
            }
        }
        Ok(())
    }
}

impl FromStr for Material {
    type Err = MaterialError;

    fn from_str(s: &str) -> Result<Material, MaterialError> {
        let bad =
            |why: &str| MaterialError(format!("bad signature {s:?}: {why} (expected e.g. KRvKN)"));
        let sides: Vec<&str> = s.split(['v', 'V']).collect();
        if sides.len() != 2 {
            return Err(bad("need exactly one 'v' between the sides"));
        }
        let mut counts = BySide::<[u8; 6]>::default();
        for (c, side) in Side::ALL.into_iter().zip(&sides) {
            let mut chars = side.chars();
            if chars.next().map(|ch| ch.to_ascii_uppercase()) != Some('K') {
                return Err(bad("each side starts with its king K"));
            }
            counts[c][Role::King.index()] = 1;
            for ch in chars {
                match Role::from_char(ch) {
                    Some(Role::King) => return Err(bad("a side has two kings")),
                    Some(r) => counts[c][r.index()] += 1,
                    None => return Err(bad(&format!("unknown piece letter {ch:?}"))),
                }
            }
        }
        let m = Material { counts };
        if m.pieces() > MAX_PIECES {
            return Err(MaterialError(format!(
                "signature {s:?} has {} pieces; at most {MAX_PIECES} are supported",
                m.pieces()
            )));
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_names() {
        for (given, canon) in [
            ("KNvKR", "KRvKN"),
            ("KRvKRP", "KRPvKR"),
            ("KQvKRP", "KRPvKQ"),
            ("KNvKB", "KBvKN"),
            ("KvKQ", "KQvK"),
            ("KPvKN", "KNvKP"),
        ] {
            let m: Material = given.parse().unwrap();
            assert_eq!(m.canonical().to_string(), canon);
        }
    }

    #[test]
    fn counts_of_tables() {
        assert_eq!(Material::all_up_to(3).len(), 5);
        assert_eq!(Material::all_up_to(4).len(), 35);
        assert_eq!(Material::all_up_to(5).len(), 145);
    }

    #[test]
    fn subtables_of_krpvkr() {
        let m: Material = "KRPvKR".parse().unwrap();
        let mut names: Vec<String> = m.subtables().iter().map(|m| m.to_string()).collect();
        names.sort();
        // captures: KPvKR? (R taken) -> KRvKP canonical, KRvKR (P taken), KRPvK (black R taken);
        // promotions: KQRvKR, KRRvKR, KRBvKR, KRNvKR; promotion with capture: KQRvK...
        for n in [
            "KRvKP", "KRvKR", "KRPvK", "KQRvKR", "KRNvKR", "KQRvK", "KRRvK",
        ] {
            assert!(names.contains(&n.to_string()), "{n} missing from {names:?}");
        }
    }

    #[test]
    fn en_passant_takes_a_pawn_of_the_other_colour() {
        let m = |s: &str| s.parse::<Material>().unwrap();
        let ep = |sig: &str, mover| m(sig).en_passant(mover);
        // White takes Black's pawn; Black moves next.
        assert_eq!(ep("KQPvKP", Side::White), Some((m("KQPvK"), Side::Black)));
        // Black takes White's pawn: KQvKP, Black's pawn now White's in the canonical form.
        assert_eq!(ep("KQPvKP", Side::Black), Some((m("KQvKP"), Side::White)));
        assert_eq!(ep("KPvKP", Side::Black), Some((m("KPvK"), Side::Black)));
        assert_eq!(ep("KPPvK", Side::White), None);
        for (sig, mover) in [("KPPvKP", Side::White), ("KRPvKP", Side::Black)] {
            let found = ep(sig, mover).unwrap();
            assert!(m(sig).conversions(mover).contains(&found), "{sig}");
        }
    }

    #[test]
    fn rejects_bad_signatures() {
        for s in ["", "KQ", "KQvKvK", "QvK", "KXvK", "KKvK", "KQQQQQvK"] {
            assert!(s.parse::<Material>().is_err(), "{s}");
        }
    }
}
