//! A hint to the processor: the cache line that holds a value, wanted soon.
//!
//! Walks over a large array in an order of their own (the writer gathering a stream in its
//! layout's order) wait on memory at almost every step; asking for the line some steps
//! ahead lets those waits overlap.

/// Asks for the cache line that holds `r`; a hint only, which reads nothing.
#[inline(always)]
pub(crate) fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and faults on no address; `r` is a valid reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((r as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// `prefetch` of element `i` of `v`, if it has one.
#[inline(always)]
pub(crate) fn prefetch_at<T>(v: &[T], i: usize) {
    if let Some(r) = v.get(i) {
        prefetch(r);
    }
}
