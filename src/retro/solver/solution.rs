//! The solver's output (`Solution`), and the bitmaps it keeps per index.

use crate::prefetch::prefetch_at;
use crate::side::{BySide, Side};
use crate::value::{Dtm, LongDistances, Wdl5};
use crate::zeroed::zeroed;
use rayon::prelude::*;

/// The solver's output: one encoded value (see `Dtm::encode`) per index and side to move;
/// illegal and broken indices hold 0 and are marked in `illegal`. Its bitmaps are plain
/// words, not `bitvec` (the solve's are, `retro::bits`): they are read a bit at a time only
/// through `bit`, and otherwise packed, placed at a part's offset and sent between
/// processes word by word, where a bit view adds nothing.
#[derive(Clone)]
pub struct Solution {
    /// The index of the first value held: 0 for a whole solution, the first index of a
    /// process's share where each holds its own (`PartByPart::split_across`). Arrays and
    /// bitmaps hold the indices from it; long distances are listed by their indices in
    /// the game.
    pub first: u64,
    /// Values with each side to move.
    pub values: BySide<Vec<u8>>,
    /// One bit per index (bit `i % 64` of word `i / 64`), set where the index is not a legal
    /// position of the graph: its value is never read, so a writer may store anything there.
    pub illegal: BySide<Vec<u64>>,
    /// One bit per index, set where the best of the moves that leave the graph
    /// (`Successor::Fixed`) has the position's own value: a conversion reaches it, so a
    /// writer may store any value no better there. A bit, not the exit, because that is
    /// all a writer asks of the exit.
    pub exit_decides: BySide<Vec<u64>>,
    /// One bit per index, set where the best of the moves that leave the graph wins, draws
    /// or loses as the position does, at whatever distance.
    pub exit_same_wdl: BySide<Vec<u64>>,
    /// Plies of the longest best exit of any position (0 without one).
    pub longest_exit: u32,
    /// One bit per index, set where the win or loss does not hold under the 50-move rule
    /// (a cursed win or a blessed loss); empty until the rule is applied (`fifty::Rule`).
    pub cursed: BySide<Vec<u64>>,
    /// One bit per index, set where the best exit under the 50-move rule is a cursed win
    /// or a blessed loss; empty until the rule is applied.
    pub exit_cursed: BySide<Vec<u64>>,
    /// The distances of the values that are `Dtm::LONG`.
    pub long: BySide<LongDistances>,
}

/// Bit `idx` of a bitmap of one bit per index; an empty bitmap holds no bit.
#[inline]
pub(crate) fn bit(bits: &[u64], idx: u64) -> bool {
    bits.get((idx / 64) as usize)
        .is_some_and(|w| w >> (idx % 64) & 1 == 1)
}

impl Solution {
    /// A solution from its parts, with no exit deciding a value (for writers fed from
    /// elsewhere than `solve`).
    pub fn from_parts(values: BySide<Vec<u8>>, illegal: BySide<Vec<u64>>) -> Solution {
        Solution {
            first: 0,
            values,
            illegal,
            exit_decides: Default::default(),
            exit_same_wdl: Default::default(),
            longest_exit: 0,
            cursed: Default::default(),
            exit_cursed: Default::default(),
            long: Default::default(),
        }
    }

    /// A solution of `n` indices a side where nothing is found yet, to place parts in
    /// (`place`): its memory comes zeroed and untouched until written.
    pub(crate) fn empty_whole(n: u64) -> Solution {
        let words = n.div_ceil(64) as usize;
        let mut s =
            Solution::from_parts(BySide::new_with(|_| zeroed(n as usize)), BySide::default());
        s.exit_decides = BySide::new_with(|_| zeroed(words));
        s
    }

    /// Writes `share` (a part's solution, or a process's share of one: its indices from
    /// `share.first`) into this whole solution: values, exits deciding, long distances.
    pub(crate) fn place(&mut self, share: Solution) {
        debug_assert_eq!(self.first, 0);
        let at = share.first as usize;
        for side in Side::ALL {
            let values = &share.values[side];
            self.values[side][at..at + values.len()].copy_from_slice(values);
            or_bits_at(
                &mut self.exit_decides[side],
                share.first,
                &share.exit_decides[side],
            );
            let mut long = std::mem::take(&mut self.long[side]).entries().to_vec();
            long.extend_from_slice(share.long[side].entries());
            self.long[side] = LongDistances::new(long);
        }
        self.longest_exit = self.longest_exit.max(share.longest_exit);
    }

    /// Lets go of what side `side` holds (values, bitmaps and long distances).
    pub fn let_go(&mut self, side: Side) {
        self.values[side] = Vec::new();
        self.long[side] = LongDistances::default();
        for bits in [
            &mut self.illegal,
            &mut self.exit_decides,
            &mut self.exit_same_wdl,
            &mut self.cursed,
            &mut self.exit_cursed,
        ] {
            bits[side] = Vec::new();
        }
    }

    /// True when index `idx` with `side` to move is not a legal position.
    #[inline]
    pub fn is_illegal(&self, side: Side, idx: u64) -> bool {
        bit(&self.illegal[side], idx - self.first)
    }

    /// The value of `idx` with its class under the 50-move rule.
    #[inline]
    pub fn value(&self, side: Side, idx: u64) -> (Dtm, Wdl5) {
        self.value_of(side, idx, self.values[side][(idx - self.first) as usize])
    }

    /// The same for `code`, the byte `values` holds or held for `idx` (its long distance,
    /// if any, and its class are read here).
    #[inline]
    pub fn value_of(&self, side: Side, idx: u64, code: u8) -> (Dtm, Wdl5) {
        let v = self.long[side].value(code, idx);
        (
            v,
            Wdl5::new(v.wdl(), bit(&self.cursed[side], idx - self.first)),
        )
    }

    /// Asks for the cache lines of everything held of `idx` with `side` to move: a
    /// reader that walks the indices in an order of its own calls this some steps ahead.
    #[inline]
    pub(crate) fn prefetch(&self, side: Side, idx: u64) {
        let idx = idx - self.first;
        prefetch_at(&self.values[side], idx as usize);
        for bits in [
            &self.illegal,
            &self.cursed,
            &self.exit_decides,
            &self.exit_same_wdl,
            &self.exit_cursed,
        ] {
            prefetch_at(&bits[side], (idx / 64) as usize);
        }
    }

    /// True when some value held, or some best exit, takes more than `plies`.
    pub fn reaches_beyond(&self, plies: u32) -> bool {
        let beyond = |c: &u8| *c == Dtm::LONG || Dtm::decode(*c).plies() > Some(plies);
        self.longest_exit > plies || self.values.iter().any(|(_, v)| v.par_iter().any(beyond))
    }

    /// True when the best move of `idx` that leaves the graph (chess: a capture or a
    /// promotion) has the position's value.
    #[inline]
    pub fn exit_decides(&self, side: Side, idx: u64) -> bool {
        bit(&self.exit_decides[side], idx - self.first)
    }

    /// True when the best move of `idx` that leaves the graph has class `class` under the
    /// 50-move rule, `class` being the position's own.
    #[inline]
    pub fn exit_has_class(&self, side: Side, idx: u64, class: Wdl5) -> bool {
        let i = idx - self.first;
        bit(&self.exit_same_wdl[side], i)
            && Wdl5::new(class.wdl(), bit(&self.exit_cursed[side], i)) == class
    }
}

/// A bitmap of one bit per index below `n` (bit `i % 64` of word `i / 64`), set where
/// `set(i)` holds.
pub(crate) fn bitmap(n: usize, set: impl Fn(usize) -> bool + Sync) -> Vec<u64> {
    (0..n.div_ceil(64))
        .into_par_iter()
        .map(|w| {
            (w * 64..(w * 64 + 64).min(n))
                .fold(0u64, |bits, i| bits | u64::from(set(i)) << (i % 64))
        })
        .collect()
}

/// Sets in `dst` the bits of `src` moved up by `offset` bits (a part's bitmap into the
/// whole's), a word at a time.
pub(super) fn or_bits_at(dst: &mut [u64], offset: u64, src: &[u64]) {
    let first = (offset / 64) as usize;
    let last = (first + src.len() + 1).min(dst.len());
    let word = |i: usize| src.get(i).copied().unwrap_or(0);
    let shift = offset % 64;
    dst[first..last]
        .par_iter_mut()
        .enumerate()
        .for_each(|(k, w)| {
            // Word k of `dst` from `first` takes the high bits of `src` word k - 1 and the
            // low bits of word k.
            let low = word(k) << shift;
            let high = match (k, shift) {
                (0, _) | (_, 0) => 0,
                _ => word(k - 1) >> (64 - shift),
            };
            // Pages nothing sets stay unwritten, and take no memory (`Packed::unpack_words`).
            if low | high != 0 {
                *w |= low | high;
            }
        });
}
