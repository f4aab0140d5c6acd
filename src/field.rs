//! The one byte codec of the file formats: fixed-width integers at fixed offsets.
//!
//! Table and book files are little-endian throughout; Polyglot books are big-endian by
//! their own specification, hence the `_be` pair. Callers check lengths before they read
//! (a reader refuses a short file first), so an out-of-range offset is a bug and panics.

/// An integer the formats store: `u16`, `u32` or `u64`.
pub(crate) trait Field: Copy {
    /// Its width in bytes.
    const LEN: usize;
    fn from_le(b: &[u8]) -> Self;
    fn from_be(b: &[u8]) -> Self;
    fn write_le(self, b: &mut [u8]);
    fn write_be(self, b: &mut [u8]);
}

macro_rules! field {
    ($($t:ty),*) => {$(
        impl Field for $t {
            const LEN: usize = std::mem::size_of::<$t>();
            fn from_le(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("field width"))
            }
            fn from_be(b: &[u8]) -> Self {
                <$t>::from_be_bytes(b.try_into().expect("field width"))
            }
            fn write_le(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_le_bytes());
            }
            fn write_be(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_be_bytes());
            }
        }
    )*};
}

field!(u16, u32, u64);

/// The little-endian `T` at byte `at` of `b`.
pub(crate) fn get<T: Field>(b: &[u8], at: usize) -> T {
    T::from_le(&b[at..at + T::LEN])
}

/// Writes `v` little-endian at byte `at` of `b`.
pub(crate) fn put<T: Field>(b: &mut [u8], at: usize, v: T) {
    v.write_le(&mut b[at..at + T::LEN]);
}

/// Appends `v` little-endian to `out`.
pub(crate) fn push<T: Field>(out: &mut Vec<u8>, v: T) {
    let at = out.len();
    out.resize(at + T::LEN, 0);
    put(out, at, v);
}

/// The big-endian `T` at byte `at` of `b`.
pub(crate) fn get_be<T: Field>(b: &[u8], at: usize) -> T {
    T::from_be(&b[at..at + T::LEN])
}

/// Writes `v` big-endian at byte `at` of `b`.
pub(crate) fn put_be<T: Field>(b: &mut [u8], at: usize, v: T) {
    v.write_be(&mut b[at..at + T::LEN]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_in_both_orders() {
        let mut b = [0u8; 16];
        put(&mut b, 1, 0x0102_0304u32);
        assert_eq!(b[1..5], [4, 3, 2, 1]);
        assert_eq!(get::<u32>(&b, 1), 0x0102_0304);
        put_be(&mut b, 8, 0x0a0bu16);
        assert_eq!(b[8..10], [0x0a, 0x0b]);
        assert_eq!(get_be::<u16>(&b, 8), 0x0a0b);
        let mut v = vec![9u8];
        push(&mut v, u64::MAX - 1);
        assert_eq!(v.len(), 9);
        assert_eq!(get::<u64>(&v, 1), u64::MAX - 1);
    }
}
