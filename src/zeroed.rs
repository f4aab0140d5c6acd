//! Large zeroed arrays and the casts between a vector of integers and one of their atomics.
//!
//! The memory comes zeroed from the allocator (fresh pages from the system for large
//! arrays), so that pages never written are never touched, and a solver's atomic arrays
//! become plain ones with no pass over them.

use std::sync::atomic::{AtomicU16, AtomicU64, AtomicU8, Ordering::Relaxed};

/// Types whose all-zero bytes are a valid value.
///
/// # Safety
/// Implementors must be valid when every byte is zero.
pub(crate) unsafe trait Zeroed: Sized {}

// SAFETY: integers and their atomics are valid as zero bytes.
unsafe impl Zeroed for u8 {}
unsafe impl Zeroed for u64 {}
unsafe impl Zeroed for AtomicU8 {}
unsafe impl Zeroed for AtomicU16 {}
unsafe impl Zeroed for AtomicU64 {}
unsafe impl<T: Zeroed, const N: usize> Zeroed for [T; N] {}

/// An integer type and its atomic.
///
/// # Safety
/// `Atomic` must have the size and bit validity of `Self` (its alignment may be larger:
/// `from_atomic` checks it).
pub(crate) unsafe trait Atomic: Sized {
    type Atomic: Zeroed + Sync;
    fn into_inner(a: Self::Atomic) -> Self;
    /// Stores `v` in `a` (relaxed: the threads write apart, and join before reading).
    fn set(a: &Self::Atomic, v: Self);
}

/// `Atomic` for an integer type and its atomic.
macro_rules! atomic {
    ($int:ty, $atomic:ty) => {
        // SAFETY: each standard atomic integer has the size and bit validity of its integer.
        unsafe impl Atomic for $int {
            type Atomic = $atomic;
            fn into_inner(a: $atomic) -> $int {
                a.into_inner()
            }
            fn set(a: &$atomic, v: $int) {
                a.store(v, Relaxed)
            }
        }
    };
}

atomic!(u8, AtomicU8);
atomic!(u16, AtomicU16);
atomic!(u64, AtomicU64);

/// `n` zeroed values, the memory not touched until used.
pub(crate) fn zeroed<T: Zeroed>(n: usize) -> Vec<T> {
    let layout = std::alloc::Layout::array::<T>(n).expect("an array that fits in memory");
    try_zeroed(n).unwrap_or_else(|| std::alloc::handle_alloc_error(layout))
}

/// `zeroed`, or None if the system has not the memory (or the size overflows): for sizes
/// a caller asks for, which are refused rather than ending the process.
pub(crate) fn try_zeroed<T: Zeroed>(n: usize) -> Option<Vec<T>> {
    let layout = std::alloc::Layout::array::<T>(n).ok()?;
    if layout.size() == 0 {
        return Some(Vec::new());
    }
    // SAFETY: the layout is not empty.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
    if ptr.is_null() {
        return None;
    }
    // SAFETY: allocated by the global allocator with the layout of `n` values of T, all
    // zero, which is a valid T (`Zeroed`).
    Some(unsafe { Vec::from_raw_parts(ptr, n, n) })
}

/// The machine's memory in bytes, where the system says it.
pub(crate) fn physical_memory() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysconf has no preconditions.
        let (pages, size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        if pages > 0 && size > 0 {
            return Some(pages as u64 * size as u64);
        }
    }
    None
}

/// Gives the whole pages inside `bytes` back to the system, for an array part of which is
/// held elsewhere (compressed) until it is written again whole: they read as zero
/// afterwards on Linux; elsewhere nothing happens.
pub(crate) fn release_pages<T: Zeroed>(items: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        let bytes = std::mem::size_of_val(items);
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(0);
        if page == 0 {
            return;
        }
        let start = items.as_mut_ptr() as usize;
        let (first, end) = (start.next_multiple_of(page), (start + bytes) / page * page);
        if end > first {
            // SAFETY: [first, end) lies inside `items`, borrowed mutably, so nothing else
            // reads it meanwhile; the allocator's memory is private and anonymous, whose
            // pages MADV_DONTNEED replaces by zero pages, as a write of zeros would, and
            // zero bytes are a valid T (`Zeroed`).
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_DONTNEED) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = items;
}

/// Hands the allocator's free memory back to the system: glibc keeps the blocks freed
/// below its mapping threshold (a build's many small ones: decoders, layout trials) in its
/// arenas, where they count against the peak of whatever phase comes next (KRPvKR: 30 to
/// 40 MiB). Called between the phases of a build; a no-op elsewhere.
pub(crate) fn give_back_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of the allocator to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The plain values of `v`, with no pass over them: pages never written stay untouched.
pub(crate) fn from_atomic<T: Atomic>(v: Vec<T::Atomic>) -> Vec<T> {
    if std::mem::align_of::<T>() != std::mem::align_of::<T::Atomic>() {
        // (32-bit x86 aligns u64 to 4 bytes and AtomicU64 to 8.)
        return v.into_iter().map(T::into_inner).collect();
    }
    let mut v = std::mem::ManuallyDrop::new(v);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: the same size (`Atomic`) and alignment (checked above), so the allocation's
    // layout is unchanged; ownership moves and no other reference remains.
    unsafe { Vec::from_raw_parts(ptr.cast::<T>(), len, cap) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_are_zero_and_usable_at_every_size() {
        for n in [0, 1, 1000, 1 << 24] {
            let mut v: Vec<u64> = zeroed(n);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == 0));
            if let Some(last) = v.last_mut() {
                *last = 7;
            }
            v.push(9);
            assert_eq!(v.len(), n + 1);
            assert_eq!(v[n], 9);
        }
    }

    /// Pages given back read as zero on Linux; the bytes around them keep their values.
    #[test]
    fn pages_given_back_spare_the_bytes_around_them() {
        let n = 1 << 22;
        let mut v = vec![7u8; n];
        let (from, to) = (12_345, n - 54_321);
        release_pages(&mut v[from..to]);
        assert!(v[..from].iter().chain(&v[to..]).all(|&b| b == 7));
        let zeros = v.iter().filter(|&&b| b == 0).count();
        if cfg!(target_os = "linux") {
            assert!(zeros > (to - from) - 2 * 65_536, "{zeros} zeros");
        }
        v[from..to].fill(9);
        assert!(v[from..to].iter().all(|&b| b == 9));
    }

    #[test]
    fn atomics_keep_what_was_stored_when_made_plain() {
        for n in [0, 5, 1 << 24] {
            let a: Vec<AtomicU8> = zeroed(n);
            if n > 0 {
                a[n - 1].store(200, Relaxed);
            }
            let mut plain: Vec<u8> = from_atomic::<u8>(a);
            assert_eq!(plain.len(), n);
            assert_eq!(
                plain.iter().map(|&b| b as usize).sum::<usize>(),
                200 * (n > 0) as usize
            );
            plain.push(1);
            let w: Vec<AtomicU64> = zeroed(n);
            if n > 0 {
                w[0].fetch_or(1 << 63, Relaxed);
            }
            let words: Vec<u64> = from_atomic::<u64>(w);
            assert_eq!(words.first().copied(), (n > 0).then_some(1 << 63));
        }
    }
}
