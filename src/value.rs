//! Game values: distance to mate in plies, from the side to move's view (DESIGN.md §2), and
//! the one-byte encoding the solver and the table files use.

use std::cmp::Ordering;
use std::fmt;

/// Win, draw or loss, from the side to move's view.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum Wdl {
    /// The side to move loses with best play.
    Loss,
    /// Neither side can force mate.
    Draw,
    /// The side to move mates with best play.
    Win,
}

impl Wdl {
    /// `win`, `draw` or `loss`, as in the JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Distance to mate in plies with best play, from the side to move's view. A win has an odd
/// number of plies (mate in 1 = 1 ply), a loss an even number (checkmated now = 0 plies).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum Dtm {
    /// The side to move mates in this many plies.
    Win(u32),
    /// No mate can be forced by either side.
    Draw,
    /// The side to move is mated in this many plies.
    Loss(u32),
}

impl Dtm {
    /// Most plies the one-byte encoding holds.
    pub const MAX_PLIES: u32 = 254;

    /// The value of a position whose side to move has no move: mated when in check,
    /// stalemated otherwise.
    pub fn without_moves(in_check: bool) -> Dtm {
        if in_check {
            Dtm::Loss(0)
        } else {
            Dtm::Draw
        }
    }

    /// The win/draw/loss part.
    pub fn wdl(self) -> Wdl {
        match self {
            Dtm::Win(_) => Wdl::Win,
            Dtm::Draw => Wdl::Draw,
            Dtm::Loss(_) => Wdl::Loss,
        }
    }

    /// Plies to mate, or None for a draw.
    pub fn plies(self) -> Option<u32> {
        match self {
            Dtm::Win(p) | Dtm::Loss(p) => Some(p),
            Dtm::Draw => None,
        }
    }

    /// Mate in n moves as people count it: (plies + 1) / 2.
    pub fn moves(self) -> Option<u32> {
        self.plies().map(|p| p.div_ceil(2))
    }

    /// The value of a move into a position of value `self`, for the side making that move:
    /// one ply further from mate, seen from the other side.
    ///
    /// ```
    /// use retrobook::Dtm;
    /// assert_eq!(Dtm::Loss(0).back(), Dtm::Win(1));
    /// assert_eq!(Dtm::Win(1).back(), Dtm::Loss(2));
    /// ```
    pub fn back(self) -> Dtm {
        match self {
            Dtm::Win(p) => Dtm::Loss(p + 1),
            Dtm::Draw => Dtm::Draw,
            Dtm::Loss(p) => Dtm::Win(p + 1),
        }
    }

    /// A number that orders values by preference of the side to move: faster wins first,
    /// slower losses last.
    pub fn preference(self) -> i32 {
        match self {
            Dtm::Win(p) => 1000 - p as i32,
            Dtm::Draw => 0,
            Dtm::Loss(p) => -1000 + p as i32,
        }
    }

    /// One byte: 0 = draw, plies + 1 otherwise (wins are the odd plies).
    #[inline]
    pub fn encode(self) -> u8 {
        match self {
            Dtm::Draw => 0,
            Dtm::Win(p) | Dtm::Loss(p) => (p.min(Self::MAX_PLIES) + 1) as u8,
        }
    }

    /// The value of an encoded byte.
    #[inline]
    pub fn decode(code: u8) -> Dtm {
        match code {
            0 => Dtm::Draw,
            c => {
                let p = c as u32 - 1;
                if p % 2 == 1 {
                    Dtm::Win(p)
                } else {
                    Dtm::Loss(p)
                }
            }
        }
    }
}

impl Ord for Dtm {
    /// Greater is better for the side to move.
    fn cmp(&self, other: &Dtm) -> Ordering {
        self.preference().cmp(&other.preference())
    }
}

impl PartialOrd for Dtm {
    fn partial_cmp(&self, other: &Dtm) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Dtm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dtm::Win(p) => write!(f, "win in {p} plies"),
            Dtm::Draw => f.write_str("draw"),
            Dtm::Loss(p) => write!(f, "loss in {p} plies"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips() {
        for code in 0..=255u8 {
            assert_eq!(Dtm::decode(code).encode(), code);
        }
    }

    #[test]
    fn ordering() {
        assert!(Dtm::Win(1) > Dtm::Win(3));
        assert!(Dtm::Win(99) > Dtm::Draw);
        assert!(Dtm::Draw > Dtm::Loss(100));
        assert!(Dtm::Loss(10) > Dtm::Loss(0));
    }
}
