//! Large zeroed arrays backed by transparent huge pages where the system offers them.
//!
//! The solver and the writer touch arrays of hundreds of megabytes or more at random
//! indices. With 4 KiB pages nearly every such access also misses the TLB; 2 MiB pages cut
//! those misses to a few, as Syzygy's generator asks of the kernel too. Linux grants huge
//! pages to a region advised so (`madvise(MADV_HUGEPAGE)`) when memory allows; elsewhere,
//! or when refused, the arrays are ordinary zeroed memory.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8};

/// Types whose all-zero bytes are a valid value.
///
/// # Safety
/// Implementors must be valid when every byte is zero.
pub(crate) unsafe trait Zeroed: Sized {}

// SAFETY: integers and their atomics are valid as zero bytes.
unsafe impl Zeroed for u8 {}
unsafe impl Zeroed for u16 {}
unsafe impl Zeroed for u32 {}
unsafe impl Zeroed for u64 {}
unsafe impl Zeroed for AtomicU8 {}
unsafe impl Zeroed for AtomicU32 {}
unsafe impl Zeroed for AtomicU64 {}
unsafe impl<T: Zeroed, const N: usize> Zeroed for [T; N] {}

/// Arrays smaller than this keep ordinary pages: the advice would gain nothing.
const ADVISE_FROM: usize = 8 << 20;

/// Size and alignment of a huge page on the systems that have them (x86-64, aarch64).
const HUGE_PAGE: usize = 2 << 20;

/// `n` zeroed values, the memory not touched until used and advised for huge pages.
pub(crate) fn zeroed<T: Zeroed>(n: usize) -> Vec<T> {
    let layout = std::alloc::Layout::array::<T>(n).expect("an array that fits in memory");
    if layout.size() == 0 {
        return Vec::new();
    }
    // SAFETY: the layout is not empty.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if ptr.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    advise_huge(ptr as *mut u8, layout.size());
    // SAFETY: allocated by the global allocator with the layout of `n` values of T, all
    // zero, which is a valid T (`Zeroed`).
    unsafe { Vec::from_raw_parts(ptr, n, n) }
}

/// Asks for huge pages over the whole huge pages inside `len` bytes from `ptr`.
fn advise_huge(ptr: *mut u8, len: usize) {
    if len < ADVISE_FROM {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize + len) / HUGE_PAGE * HUGE_PAGE;
    if start < end {
        advise(start, end - start);
    }
}

#[cfg(target_os = "linux")]
fn advise(start: usize, len: usize) {
    // SAFETY: the range lies inside an allocation this process owns; the advice changes
    // how it is backed, not its contents. A refusal (no huge pages) changes nothing.
    unsafe {
        libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_start: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_are_zero_and_usable_at_every_size() {
        for n in [0, 1, 1000, ADVISE_FROM + 3] {
            let mut v: Vec<u32> = zeroed(n);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == 0));
            if let Some(last) = v.last_mut() {
                *last = 7;
            }
            v.push(9);
            assert_eq!(v.len(), n + 1);
        }
        let a: Vec<AtomicU8> = zeroed(ADVISE_FROM);
        assert!(a
            .iter()
            .all(|x| x.load(std::sync::atomic::Ordering::Relaxed) == 0));
    }
}
