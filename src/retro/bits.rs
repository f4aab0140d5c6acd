//! Bitmaps of one bit per index that any thread sets and reads.

use bitvec::prelude::{BitSlice, BitVec, Lsb0};
use std::sync::atomic::AtomicU64;

/// One bit per index, set and cleared by any thread: `bitvec` over atomic words.
pub(crate) struct AtomicBits(BitVec<AtomicU64, Lsb0>);

impl AtomicBits {
    /// All clear. The words come zeroed from the allocator, so that pages never set are
    /// never touched (a table's 50-move classes are set part by part, most never).
    pub(crate) fn new(n: usize) -> AtomicBits {
        AtomicBits(BitVec::from_vec(crate::zeroed::zeroed(n.div_ceil(64))))
    }

    #[inline]
    fn bits(&self) -> &BitSlice<AtomicU64, Lsb0> {
        self.0.as_bitslice()
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> bool {
        self.bits()[i]
    }

    #[inline]
    pub(crate) fn set(&self, i: usize) {
        self.bits().set_aliased(i, true);
    }

    #[inline]
    pub(crate) fn clear(&self, i: usize) {
        self.bits().set_aliased(i, false);
    }

    /// The words, bit `i % 64` of word `i / 64` for index i.
    pub(crate) fn words(&self) -> &[AtomicU64] {
        self.0.as_raw_slice()
    }

    /// The words, without a pass over them: pages never set stay untouched.
    pub(crate) fn into_words(self) -> Vec<u64> {
        crate::zeroed::from_atomic::<u64>(self.0.into_vec())
    }
}
