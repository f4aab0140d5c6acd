//! Bitmaps of one bit per index that any thread sets and reads.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// One bit per index, set and cleared by any thread.
pub(crate) struct AtomicBits(Vec<AtomicU64>);

impl AtomicBits {
    /// All clear. The words come zeroed from the allocator, so that pages never set are
    /// never touched (a table's 50-move classes are set part by part, most never).
    pub(crate) fn new(n: usize) -> AtomicBits {
        AtomicBits(crate::zeroed::zeroed(n.div_ceil(64)))
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> bool {
        self.0[i / 64].load(Relaxed) >> (i % 64) & 1 == 1
    }

    #[inline]
    pub(crate) fn set(&self, i: usize) {
        self.0[i / 64].fetch_or(1 << (i % 64), Relaxed);
    }

    #[inline]
    pub(crate) fn clear(&self, i: usize) {
        self.0[i / 64].fetch_and(!(1 << (i % 64)), Relaxed);
    }

    /// The words, bit `i % 64` of word `i / 64` for index i.
    pub(crate) fn words(&self) -> &[AtomicU64] {
        &self.0
    }

    /// The words, without a pass over them: pages never set stay untouched.
    pub(crate) fn into_words(self) -> Vec<u64> {
        crate::zeroed::from_atomic::<u64>(self.0)
    }
}
