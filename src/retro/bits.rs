//! Bitmaps of one bit per index that any thread sets and reads.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// One bit per index, set and cleared by any thread.
pub(crate) struct AtomicBits(Vec<AtomicU64>);

impl AtomicBits {
    /// All clear. The words come zeroed from the allocator, so that pages never set are
    /// never touched (a table's 50-move classes are set part by part, most never).
    pub(crate) fn new(n: usize) -> AtomicBits {
        let words = n.div_ceil(64);
        if std::mem::align_of::<AtomicU64>() != std::mem::align_of::<u64>() {
            return AtomicBits((0..words).map(|_| AtomicU64::new(0)).collect());
        }
        let mut v = std::mem::ManuallyDrop::new(vec![0u64; words]);
        let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
        // SAFETY: AtomicU64 has the size of u64 and here its alignment, and zeroed memory is
        // a valid AtomicU64(0); ownership moves from the u64 vector to the atomic one.
        AtomicBits(unsafe { Vec::from_raw_parts(ptr.cast::<AtomicU64>(), len, cap) })
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
        if std::mem::align_of::<AtomicU64>() != std::mem::align_of::<u64>() {
            return self.0.into_iter().map(AtomicU64::into_inner).collect();
        }
        let mut v = std::mem::ManuallyDrop::new(self.0);
        let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
        // SAFETY: the same layout as in `new`; no other reference remains.
        unsafe { Vec::from_raw_parts(ptr.cast::<u64>(), len, cap) }
    }
}
