//! The order in which a table file lays out one side's values: a mixed-radix number over the
//! white king, the black king and each piece group, most significant part first.
//!
//! The solver numbers positions king pair first; a file may choose any order of the parts,
//! because which order compresses best depends on the material (measured per table when it
//! is written). Kings are separate parts here, the white king over the squares its canonical
//! form allows (10 without pawns, 32 with), the black king over all 64, so some numbers are
//! holes (kings adjacent, or a king pair that is not canonical): holes are never probed.

use super::{Digits, TableIndex};
use crate::chess::Square;

/// One part of a layout.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// The white king's square.
    WhiteKing,
    /// The black king's square.
    BlackKing,
    /// The rank of piece group `.0` (in the index's group order).
    Group(u8),
}

impl Part {
    fn code(self) -> u8 {
        match self {
            Part::WhiteKing => 0,
            Part::BlackKing => 1,
            Part::Group(g) => 2 + g,
        }
    }
}

/// Where the white king may stand in canonical positions: the a1-d1-d4 triangle without
/// pawns, files a-d with pawns.
fn white_king_domain(pawns: bool) -> Vec<Square> {
    Square::all()
        .filter(|s| {
            if pawns {
                s.file() < 4
            } else {
                s.file() < 4 && s.rank() <= s.file()
            }
        })
        .collect()
}

/// A layout of one table's values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    parts: Vec<Part>,
    radix: Vec<u64>,
    size: u64,
    /// Digit of each square of the white king's domain (unused elsewhere).
    white_king: [u8; 64],
    /// The white king's domain, by digit.
    domain: Vec<Square>,
}

/// The parts of `index`'s layouts in index order: the kings, then the groups.
fn index_parts(index: &TableIndex) -> Vec<Part> {
    let mut parts = vec![Part::WhiteKing, Part::BlackKing];
    parts.extend((0..index.groups() as u8).map(Part::Group));
    parts
}

/// Bytes a layout takes in a file header.
pub const LAYOUT_BYTES: usize = 8;

/// Parts that are not each king and each piece group of a table exactly once.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("layout {parts:?} does not name every part once")]
pub struct LayoutError {
    /// The parts given.
    pub parts: Vec<Part>,
}

impl Layout {
    /// The layout with `parts` in this order (most significant first); an error unless they
    /// name each king and each group of `index` exactly once.
    pub fn new(index: &TableIndex, parts: &[Part]) -> Result<Layout, LayoutError> {
        let expected = index_parts(index);
        let mut sorted = parts.to_vec();
        sorted.sort_by_key(|p| p.code());
        if sorted != expected {
            return Err(LayoutError {
                parts: parts.to_vec(),
            });
        }
        let domain = white_king_domain(index.material().has_pawns());
        let mut white_king = [0u8; 64];
        for (i, s) in domain.iter().enumerate() {
            white_king[s.index()] = i as u8;
        }
        let radix: Vec<u64> = parts
            .iter()
            .map(|p| match p {
                Part::WhiteKing => domain.len() as u64,
                Part::BlackKing => 64,
                Part::Group(g) => index.group_size(*g as usize),
            })
            .collect();
        Ok(Layout {
            parts: parts.to_vec(),
            size: radix.iter().product(),
            radix,
            white_king,
            domain,
        })
    }

    /// Every order of the parts of `index`'s layouts.
    pub fn all_orders(index: &TableIndex) -> Vec<Vec<Part>> {
        let mut parts = index_parts(index);
        let mut out = Vec::new();
        permute(&mut parts, 0, &mut out);
        out
    }

    /// Numbers in every layout of `index` (holes included; the same for every order).
    pub fn size_for(index: &TableIndex) -> u64 {
        Layout::new(index, &index_parts(index))
            .expect("the parts in index order")
            .size()
    }

    /// The parts, most significant first.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// Numbers in the layout (holes included).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The number of the position with these digits.
    #[inline]
    pub fn index(&self, d: &Digits) -> u64 {
        self.parts.iter().zip(&self.radix).fold(0, |acc, (p, &r)| {
            let digit = match p {
                Part::WhiteKing => self.white_king[d.kings.0.index()] as u64,
                Part::BlackKing => d.kings.1.index() as u64,
                Part::Group(g) => d.groups[*g as usize],
            };
            acc * r + digit
        })
    }

    /// The kings and group ranks at number `j` (< `size()`), whether or not the kings
    /// form a pair `index` numbers.
    fn split(&self, mut j: u64) -> ((Square, Square), [u64; super::MAX_GROUPS]) {
        let mut groups = [0u64; super::MAX_GROUPS];
        let (mut wk, mut bk) = (Square::from_index(0), Square::from_index(0));
        for (p, &r) in self.parts.iter().zip(&self.radix).rev() {
            let digit = j % r;
            j /= r;
            match p {
                Part::WhiteKing => wk = self.domain[digit as usize],
                Part::BlackKing => bk = Square::from_index(digit as u32),
                Part::Group(g) => groups[*g as usize] = digit,
            }
        }
        ((wk, bk), groups)
    }

    /// The digits at number `j` (< `size()`), or None for a hole (a king pair `index` does
    /// not number). Broken positions (pieces overlapping) are not detected here.
    pub fn digits(&self, index: &TableIndex, j: u64) -> Option<Digits> {
        let ((wk, bk), groups) = self.split(j);
        let pair = index.king_pairs().number(wk, bk)? as u32;
        Some(Digits {
            pair,
            kings: (wk, bk),
            groups,
        })
    }

    /// Calls `f` with the solver index at each number of `range`, in order (None for a
    /// hole): what `digits` and `TableIndex::index_of` give, found a row (the numbers
    /// that differ in the last part only) at a time: the digits once per row, and each
    /// step along it by index arithmetic (a piece group's rank, or a king's pair number).
    pub fn for_each_index(
        &self,
        index: &TableIndex,
        range: std::ops::Range<u64>,
        mut f: impl FnMut(Option<u64>),
    ) {
        let (Some(&last), Some(&row)) = (self.parts.last(), self.radix.last()) else {
            return;
        };
        let (pairs, stride) = (index.king_pairs(), index.king_pair_stride());
        let mut j = range.start;
        while j < range.end {
            let digit = j % row;
            let len = (row - digit).min(range.end - j);
            let ((wk, bk), groups) = self.split(j);
            let at = |pair: u32, kings| {
                index.index_of(&Digits {
                    pair,
                    kings,
                    groups,
                })
            };
            match last {
                Part::Group(g) => match pairs.number(wk, bk) {
                    Some(pair) => {
                        let first = at(pair as u32, (wk, bk));
                        (0..len).for_each(|k| f(Some(index.group_step(g as usize, first, k))))
                    }
                    None => (0..len).for_each(|_| f(None)),
                },
                // The pair's number is the only digit of the index that moves.
                Part::WhiteKing | Part::BlackKing => {
                    let base = at(0, (wk, bk));
                    for d in digit..digit + len {
                        let (wk, bk) = match last {
                            Part::WhiteKing => (self.domain[d as usize], bk),
                            _ => (wk, Square::from_index(d as u32)),
                        };
                        f(pairs.number(wk, bk).map(|p| base + p as u64 * stride));
                    }
                }
            }
            j += len;
        }
    }

    /// The layout as stored in a file header: one code per part (0 white king, 1 black
    /// king, 2 + g group g), then 0xFF.
    pub fn to_bytes(&self) -> [u8; LAYOUT_BYTES] {
        let mut b = [0xFF; LAYOUT_BYTES];
        for (o, p) in b.iter_mut().zip(&self.parts) {
            *o = p.code();
        }
        b
    }

    /// The layout stored as `bytes` for a table of `index`.
    pub fn from_bytes(index: &TableIndex, bytes: &[u8]) -> Result<Layout, LayoutError> {
        let parts: Vec<Part> = bytes
            .iter()
            .take_while(|&&c| c != 0xFF)
            .map(|&c| match c {
                0 => Part::WhiteKing,
                1 => Part::BlackKing,
                g => Part::Group(g - 2),
            })
            .collect();
        Layout::new(index, &parts)
    }
}

fn permute(parts: &mut Vec<Part>, k: usize, out: &mut Vec<Vec<Part>>) {
    if k == parts.len() {
        out.push(parts.clone());
        return;
    }
    for i in k..parts.len() {
        parts.swap(k, i);
        permute(parts, k + 1, out);
        parts.swap(k, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::side::Side;

    #[test]
    fn layouts_number_every_position_once() {
        for sig in ["KRvK", "KPvK", "KNNvK", "KRvKP"] {
            let index = TableIndex::new(sig.parse().unwrap());
            for parts in Layout::all_orders(&index) {
                let layout = Layout::new(&index, &parts).unwrap();
                assert_eq!(
                    Layout::from_bytes(&index, &layout.to_bytes()),
                    Ok(layout.clone())
                );
                let mut seen = vec![false; layout.size() as usize];
                for idx in 0..index.size() {
                    if index.decode(idx, Side::White).is_none() {
                        continue;
                    }
                    let d = index.split(idx);
                    let j = layout.index(&d) as usize;
                    assert!(!seen[j], "{sig} {parts:?}: two indices at {j}");
                    assert_eq!(layout.digits(&index, j as u64), Some(d));
                    seen[j] = true;
                }
            }
        }
    }

    /// Walking a range of numbers gives, at each, what `digits` and `index_of` give: every
    /// order of the parts (a group last or a king last), ranges that start and end inside
    /// a row.
    #[test]
    fn walking_numbers_agrees_with_digits() {
        for sig in ["KRvKN", "KPPvK"] {
            let index = TableIndex::new(sig.parse().unwrap());
            for parts in Layout::all_orders(&index) {
                let layout = Layout::new(&index, &parts).unwrap();
                let range = 1_000..layout.size().min(200_000) - 7;
                let mut walked = Vec::new();
                layout.for_each_index(&index, range.clone(), |i| walked.push(i));
                let direct: Vec<Option<u64>> = range
                    .map(|j| layout.digits(&index, j).map(|d| index.index_of(&d)))
                    .collect();
                assert_eq!(walked, direct, "{sig} {parts:?}");
            }
        }
    }

    #[test]
    fn digits_agree_with_split() {
        let index = TableIndex::new("KRvKN".parse().unwrap());
        for idx in (0..index.size()).step_by(97) {
            if let Some(pos) = index.decode(idx, Side::White) {
                if index.is_canonical(idx, &pos) {
                    assert_eq!(index.digits(&pos), Some(index.split(idx)));
                }
            }
        }
    }

    #[test]
    fn bad_layouts_are_refused() {
        let index = TableIndex::new("KQvKR".parse().unwrap());
        assert!(Layout::new(&index, &[Part::WhiteKing, Part::BlackKing]).is_err());
        let twice = [
            Part::WhiteKing,
            Part::WhiteKing,
            Part::Group(0),
            Part::Group(1),
        ];
        assert!(Layout::new(&index, &twice).is_err());
        assert!(Layout::from_bytes(&index, &[0, 1, 2, 9, 0xFF]).is_err());
    }
}
