//! The 50-move rule (`docs/design.md`, Values): which wins and losses of a solved chess table
//! hold when 100 plies without a capture or pawn move draw, Syzygy's cursed wins and blessed losses.
//! They are those whose distance to zeroing (`dtz`) is beyond 100 plies; a part's classes
//! are kept as soon as its distances are found, for the parts after it, whose pawn moves
//! lead into it, and for the writer.

use super::bits::AtomicBits;
use super::dtz::PartDtz;
use super::solver::Solution;
use crate::side::{BySide, Side};
use crate::value::{Wdl, Wdl5};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;

/// The classes under the 50-move rule of a table's wins and losses, and of each position's
/// best conversion, kept a part at a time as each part's distances to zeroing are found
/// (`PartByPart`): a part's search reads the classes of the parts before it.
pub(crate) struct Rule {
    /// The indices classed here: the whole table, or this process's share where each
    /// process holds its own (`PartByPart::holds_share`). The bitmaps hold them from 0.
    held: Range<u64>,
    /// Set where a win or loss does not hold under the rule, once its part is classed.
    cursed: BySide<AtomicBits>,
    /// Set where the best conversion is a cursed win or a blessed loss.
    exit_cursed: BySide<AtomicBits>,
}

impl Rule {
    /// Nothing classed yet, of the indices `held` (as the solution of a `PartByPart`
    /// holds them: `PartByPart::held`).
    pub(crate) fn over(held: Range<u64>) -> Rule {
        let n = (held.end - held.start) as usize;
        let bits = || BySide::new_with(|_| AtomicBits::new(n));
        Rule {
            held,
            cursed: bits(),
            exit_cursed: bits(),
        }
    }

    /// Keeps the classes of the indices `dtz` holds (a part, or this process's share of
    /// it), its distances to zeroing found: a win or loss beyond 100 plies of a reset or
    /// mate is cursed. A pawn table's parts start anywhere in a word of the bitmaps (a
    /// part is a whole number of placements of the pieces, 3,612 king pairs each).
    pub(crate) fn class_part(&self, dtz: &PartDtz) {
        let own = dtz.own();
        debug_assert!(self.held.start <= own.start && own.end <= self.held.end);
        let offset = own.start - self.held.start;
        let (at, shift) = ((offset / 64) as usize, (offset % 64) as u32);
        for side in Side::ALL {
            let bits = [&self.cursed[side], &self.exit_cursed[side]].map(AtomicBits::words);
            dtz.class_words(side).enumerate().for_each(|(w, words)| {
                for (bits, word) in bits.iter().zip(words) {
                    // Pages nothing sets stay untouched.
                    if word != 0 {
                        bits[at + w].fetch_or(word << shift, Relaxed);
                        if shift > 0 && word >> (64 - shift) != 0 {
                            bits[at + w + 1].fetch_or(word >> (64 - shift), Relaxed);
                        }
                    }
                }
            });
        }
    }

    /// Adds the classes of side `side` to `solution`, every part classed, and lets them
    /// go here: the sides are made whole one at a time (`PartByPart::into_sides`).
    pub(crate) fn finish_side(&mut self, solution: &mut Solution, side: Side) {
        debug_assert_eq!(solution.first, self.held.start);
        let take = |bits: &mut AtomicBits| std::mem::replace(bits, AtomicBits::new(0)).into_words();
        solution.cursed[side] = take(&mut self.cursed[side]);
        solution.exit_cursed[side] = take(&mut self.exit_cursed[side]);
    }

    /// The class under the rule of `idx` (of a part classed), whose value without the rule
    /// is `wdl`.
    pub(crate) fn class_of(&self, side: Side, idx: u64, wdl: Wdl) -> Wdl5 {
        Wdl5::new(wdl, self.is_cursed(side, idx))
    }

    /// Whether `idx`'s win or loss is cursed under the rule, its part classed.
    #[inline]
    fn is_cursed(&self, side: Side, idx: u64) -> bool {
        self.cursed[side].get((idx - self.held.start) as usize)
    }
}
