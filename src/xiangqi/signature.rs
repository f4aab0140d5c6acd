//! Xiangqi table signatures: each side's pieces, the attacking side first (`KRvKAABB`,
//! `KNPvKAA`, `KCvKA`), in the letters K A B N R C P (WXF's E and H read as B and N). A
//! table holds its first side as Red; a position whose Black has that material is read
//! through the colour-flipped table.

use super::position::{Position, Role};
use crate::side::{BySide, Side};
use std::fmt;
use std::str::FromStr;

/// The order of roles in a written signature: king, then the attacking pieces from the
/// strongest, then the defenders.
pub(super) const WRITTEN_ORDER: [Role; 7] = [
    Role::King,
    Role::Chariot,
    Role::Horse,
    Role::Cannon,
    Role::Soldier,
    Role::Advisor,
    Role::Elephant,
];

/// The place of `role` in `WRITTEN_ORDER`.
fn written(role: Role) -> usize {
    WRITTEN_ORDER.iter().position(|&x| x == role).unwrap_or(0)
}

/// How many pieces of `role` a side may have.
fn most(role: Role) -> u8 {
    match role {
        Role::King => 1,
        Role::Soldier => 5,
        _ => 2,
    }
}

/// The pieces of a table: per side (the first written first), a count per role in
/// `WRITTEN_ORDER`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Signature {
    counts: BySide<[u8; 7]>,
}

/// What is wrong with a signature.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// Not two sides joined by one `v`.
    #[error("a signature is two sides joined by v, as KRvKAABB")]
    Sides,
    /// A letter that names no piece.
    #[error("unknown piece letter {0:?}")]
    Letter(char),
    /// A side without exactly one king.
    #[error("each side has exactly one king")]
    King,
    /// More pieces of a kind than a side has.
    #[error("more than {most} of {letter}")]
    TooMany {
        /// The piece's letter.
        letter: char,
        /// The most a side has.
        most: u8,
    },
}

impl Signature {
    /// How many pieces of `role` side `side` (white: the first written, Red in the table)
    /// has.
    pub fn count(&self, side: Side, role: Role) -> u8 {
        self.counts[side][written(role)]
    }

    /// The material of `pos`, Red first.
    pub fn of(pos: &Position) -> Signature {
        let mut counts = BySide::<[u8; 7]>::default();
        for side in Side::ALL {
            for (_, role) in pos.pieces(side) {
                counts[side][written(role)] += 1;
            }
        }
        Signature { counts }
    }

    /// The signatures one capture leads to: one piece other than a king fewer on a side.
    pub fn captures(&self) -> Vec<Signature> {
        let mut out = Vec::new();
        for side in Side::ALL {
            for r in 1..7 {
                if self.counts[side][r] > 0 {
                    let mut counts = self.counts;
                    counts[side][r] -= 1;
                    out.push(Signature { counts });
                }
            }
        }
        out
    }

    /// The number of pieces, kings included.
    pub fn pieces(&self) -> u32 {
        (self.counts.as_array().into_iter().flatten())
            .map(|&n| u32::from(n))
            .sum()
    }

    /// Whether the table is kept under this signature rather than the flipped one: the
    /// side with more (compared piece by piece in written order) first.
    pub fn is_canonical(&self) -> bool {
        self.counts.white >= self.counts.black
    }

    /// A number of the signature, distinct for distinct signatures: its counts (each below
    /// 16) four bits each.
    pub fn key(&self) -> u64 {
        (self.counts.as_array().into_iter().flatten())
            .fold(0u64, |k, &c| k << 4 | u64::from(c & 15))
    }

    /// The signature with its sides swapped.
    pub fn flipped(&self) -> Signature {
        Signature {
            counts: self.counts.swapped(),
        }
    }

    /// The signature the table is kept under: this one or the flipped one.
    pub fn canonical(&self) -> Signature {
        if self.is_canonical() {
            *self
        } else {
            self.flipped()
        }
    }
}

impl FromStr for Signature {
    type Err = SignatureError;

    fn from_str(s: &str) -> Result<Signature, SignatureError> {
        let mut sides = s.split('v');
        let (Some(a), Some(b), None) = (sides.next(), sides.next(), sides.next()) else {
            return Err(SignatureError::Sides);
        };
        let mut counts = BySide::<[u8; 7]>::default();
        for (side, text) in Side::ALL.into_iter().zip([a, b]) {
            for c in text.chars() {
                let role = match c {
                    'E' => Role::Elephant,
                    'H' => Role::Horse,
                    c if c.is_ascii_uppercase() => {
                        Role::from_letter(c).ok_or(SignatureError::Letter(c))?
                    }
                    c => return Err(SignatureError::Letter(c)),
                };
                let r = written(role);
                counts[side][r] += 1;
                if counts[side][r] > most(role) && role != Role::King {
                    return Err(SignatureError::TooMany {
                        letter: role.letter(),
                        most: most(role),
                    });
                }
            }
            if counts[side][0] != 1 {
                return Err(SignatureError::King);
            }
        }
        Ok(Signature { counts })
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (side, counts) in self.counts.as_array().into_iter().enumerate() {
            if side == 1 {
                f.write_str("v")?;
            }
            for (role, &n) in WRITTEN_ORDER.iter().zip(counts) {
                for _ in 0..n {
                    write!(f, "{}", role.letter())?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_read_back_in_written_order_and_name_their_faults() {
        for sig in [
            "KRvKAABB",
            "KNPvKAA",
            "KCvKA",
            "KRNvKAABB",
            "KCPvKAABB",
            "KPPPPPvK",
        ] {
            assert_eq!(sig.parse::<Signature>().unwrap().to_string(), sig);
        }
        let s: Signature = "KAABBvKNR".parse().unwrap();
        assert_eq!(s.to_string(), "KAABBvKRN");
        assert_eq!("KHEvK".parse::<Signature>().unwrap().to_string(), "KNBvK");
        assert_eq!(s.count(Side::Black, Role::Chariot), 1);
        assert_eq!(s.flipped().to_string(), "KRNvKAABB");
        let bad = |t: &str| t.parse::<Signature>().unwrap_err();
        assert_eq!(bad("KRKA"), SignatureError::Sides);
        assert_eq!(bad("KRvKvK"), SignatureError::Sides);
        assert_eq!(bad("KQvK"), SignatureError::Letter('Q'));
        assert_eq!(bad("KrvK"), SignatureError::Letter('r'));
        assert_eq!(bad("RvK"), SignatureError::King);
        assert_eq!(bad("KKvK"), SignatureError::King);
        assert_eq!(
            bad("KRRRvK"),
            SignatureError::TooMany {
                letter: 'R',
                most: 2
            }
        );
    }
}
