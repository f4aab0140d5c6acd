//! Squares, files and ranks. A `Square` always holds a value in 0..64 (a1 = 0, h8 = 63),
//! so code that receives one never has to check it.

use std::fmt;
use std::str::FromStr;

/// A square of the board, a1 = 0, b1 = 1, ..., h8 = 63.
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug)]
pub struct Square(u8);

impl Square {
    /// The square with index `i`, if `i < 64`.
    pub const fn new(i: u32) -> Option<Square> {
        if i < 64 {
            Some(Square(i as u8))
        } else {
            None
        }
    }

    /// The square with index `i & 63` (for indices already known to be in range).
    #[inline]
    pub const fn from_index(i: u32) -> Square {
        Square((i & 63) as u8)
    }

    /// The square on `file` (0 = a) and `rank` (0 = first rank), both taken modulo 8.
    #[inline]
    pub const fn from_coords(file: u32, rank: u32) -> Square {
        Square(((rank & 7) * 8 + (file & 7)) as u8)
    }

    /// Index 0..64.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File 0..8 (0 = a).
    #[inline]
    pub const fn file(self) -> u32 {
        (self.0 & 7) as u32
    }

    /// Rank 0..8 (0 = first rank).
    #[inline]
    pub const fn rank(self) -> u32 {
        (self.0 >> 3) as u32
    }

    /// Mirror across the horizontal mid-line (a1 <-> a8).
    #[inline]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// Mirror across the vertical mid-line (a1 <-> h1).
    #[inline]
    pub const fn flip_horizontal(self) -> Square {
        Square(self.0 ^ 7)
    }

    /// Mirror across the a1-h8 diagonal (b1 <-> a2).
    #[inline]
    pub const fn flip_diagonal(self) -> Square {
        Square(((self.0 >> 3) | (self.0 << 3)) & 63)
    }

    /// The square `delta` steps away in index space, if still on the board.
    #[inline]
    pub const fn offset(self, delta: i32) -> Option<Square> {
        let i = self.0 as i32 + delta;
        if i >= 0 && i < 64 {
            Some(Square(i as u8))
        } else {
            None
        }
    }

    /// The square halfway between two squares of one file two ranks apart (the square a
    /// double pawn push passes).
    #[inline]
    pub const fn midpoint(self, other: Square) -> Square {
        Square((self.0 + other.0) / 2)
    }

    /// Chebyshev (king-move) distance.
    pub const fn distance(self, other: Square) -> u32 {
        let df = self.file().abs_diff(other.file());
        let dr = self.rank().abs_diff(other.rank());
        if df > dr {
            df
        } else {
            dr
        }
    }

    /// All 64 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(|i| Square(i as u8))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file() as u8) as char,
            (b'1' + self.rank() as u8) as char
        )
    }
}

/// A square name that is not `a1`..`h8`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseSquareError;

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid square name")
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// ```
    /// use retrobook::chess::Square;
    /// assert_eq!("e4".parse::<Square>().unwrap().index(), 28);
    /// assert!("i9".parse::<Square>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        match s.as_bytes() {
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
                Ok(Square::from_coords((f - b'a') as u32, (r - b'1') as u32))
            }
            _ => Err(ParseSquareError),
        }
    }
}
