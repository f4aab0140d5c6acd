//! The two sides of a board game, and a value for each: shared by chess and Chinese chess,
//! so that neither game's rules borrow the other's.

use std::ops::{Index, IndexMut, Not};

/// A side. Both games' FEN write the side that moves first `w`: white in chess, red in
/// Chinese chess.
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug)]
#[repr(u8)]
pub enum Side {
    /// The side that moves first (red in Chinese chess).
    White = 0,
    /// The other side.
    Black = 1,
}

impl Side {
    /// Both sides, white first.
    pub const ALL: [Side; 2] = [Side::White, Side::Black];

    /// 0 for white, 1 for black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The side with index 0 (white) or 1 (black).
    #[inline]
    pub const fn from_index(i: usize) -> Side {
        if i & 1 == 0 {
            Side::White
        } else {
            Side::Black
        }
    }

    /// The side with index 0 (white) or 1 (black), or None for another number (a file's
    /// side field that is neither).
    #[inline]
    pub const fn try_from_index(i: usize) -> Option<Side> {
        match i {
            0 => Some(Side::White),
            1 => Some(Side::Black),
            _ => None,
        }
    }

    /// `w` or `b`, as in FEN.
    pub const fn fen_char(self) -> char {
        match self {
            Side::White => 'w',
            Side::Black => 'b',
        }
    }
}

impl Not for Side {
    type Output = Side;
    #[inline]
    fn not(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
}

/// A value for each side, read and written by `Side`.
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug, Default)]
pub struct BySide<T> {
    /// White's (red's in Chinese chess).
    pub white: T,
    /// Black's.
    pub black: T,
}

impl<T> BySide<T> {
    /// Each side's value, `f` of the side.
    pub fn new_with(mut f: impl FnMut(Side) -> T) -> BySide<T> {
        BySide {
            white: f(Side::White),
            black: f(Side::Black),
        }
    }

    /// The values, white's first.
    pub fn as_array(&self) -> [&T; 2] {
        [&self.white, &self.black]
    }

    /// A reference to each side's value.
    pub fn as_ref(&self) -> BySide<&T> {
        BySide {
            white: &self.white,
            black: &self.black,
        }
    }

    /// The values, white's first, as they are.
    pub fn into_array(self) -> [T; 2] {
        [self.white, self.black]
    }

    /// Each side with its value, white first.
    pub fn iter(&self) -> std::array::IntoIter<(Side, &T), 2> {
        [(Side::White, &self.white), (Side::Black, &self.black)].into_iter()
    }

    /// Each side with its value to change, white first.
    pub fn iter_mut(&mut self) -> std::array::IntoIter<(Side, &mut T), 2> {
        [
            (Side::White, &mut self.white),
            (Side::Black, &mut self.black),
        ]
        .into_iter()
    }

    /// The values with the sides exchanged.
    pub fn swapped(self) -> BySide<T> {
        BySide {
            white: self.black,
            black: self.white,
        }
    }

    /// Each value through `f`.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> BySide<U> {
        BySide {
            white: f(self.white),
            black: f(self.black),
        }
    }
}

impl<T> IntoIterator for BySide<T> {
    type Item = (Side, T);
    type IntoIter = std::iter::Zip<std::array::IntoIter<Side, 2>, std::array::IntoIter<T, 2>>;

    /// Each side with its value, white first.
    fn into_iter(self) -> Self::IntoIter {
        Side::ALL.into_iter().zip(self.into_array())
    }
}

impl<T> From<[T; 2]> for BySide<T> {
    /// White's value first.
    fn from([white, black]: [T; 2]) -> BySide<T> {
        BySide { white, black }
    }
}

impl<T> Index<Side> for BySide<T> {
    type Output = T;
    #[inline]
    fn index(&self, side: Side) -> &T {
        match side {
            Side::White => &self.white,
            Side::Black => &self.black,
        }
    }
}

impl<T> IndexMut<Side> for BySide<T> {
    #[inline]
    fn index_mut(&mut self, side: Side) -> &mut T {
        match side {
            Side::White => &mut self.white,
            Side::Black => &mut self.black,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_side_reads_its_own_value() {
        let mut by = BySide::new_with(|s| s.index() * 10);
        assert_eq!((by[Side::White], by[Side::Black]), (0, 10));
        by[!Side::White] += 1;
        assert_eq!(by.map(|v| v + 1).as_array(), [&1, &12]);
        assert_eq!(by.swapped().as_array(), [&11, &0]);
        assert_eq!(Side::ALL.map(|s| s.fen_char()), ['w', 'b']);
        assert_eq!(Side::from_index(3), Side::Black);
        let mut by = BySide::from(["w", "b"]);
        for (side, v) in by.iter_mut() {
            *v = if side == Side::White {
                "white"
            } else {
                "black"
            };
        }
        let sides: Vec<_> = by.iter().map(|(s, v)| (s.fen_char(), *v)).collect();
        assert_eq!(sides, [('w', "white"), ('b', "black")]);
        assert_eq!(by.as_ref().map(|v| v.len()).into_array(), [5, 5]);
        let owned: Vec<_> = by.into_iter().collect();
        assert_eq!(owned, [(Side::White, "white"), (Side::Black, "black")]);
        assert_eq!(
            Side::ALL.map(|s| Side::try_from_index(s.index())),
            [Some(Side::White), Some(Side::Black)]
        );
        assert_eq!(Side::try_from_index(2), None);
    }
}
