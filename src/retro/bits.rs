//! Bitmaps of one bit per index that any thread sets and reads.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// One bit per index, set and cleared by any thread.
pub(crate) struct AtomicBits(Vec<AtomicU64>);

impl AtomicBits {
    pub(crate) fn new(n: usize) -> AtomicBits {
        AtomicBits((0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
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

    pub(crate) fn into_words(self) -> Vec<u64> {
        self.0.into_iter().map(AtomicU64::into_inner).collect()
    }
}
