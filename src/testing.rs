//! Helpers for the unit tests.

/// A fixed pseudo-random sequence (xorshift64) from `seed` (not 0): tests draw their
/// inputs from it, so that every run checks the same cases.
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
