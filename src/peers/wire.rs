//! What processes send each other, as typed values: each type's fixed little-endian
//! encoding (`Wire`), written after one another into a message (`put`) and read back in
//! place, without a copy (`Reader`, `nth`, `each`).

/// A value of fixed size in a message between processes.
pub trait Wire: Sized {
    /// The bytes of its encoding.
    const BYTES: usize;

    /// Appends its encoding to `out`.
    fn put(&self, out: &mut Vec<u8>);

    /// The value `bytes` (`BYTES` of them) encode.
    fn read(bytes: &[u8]) -> Self;
}

macro_rules! wire_int {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            const BYTES: usize = std::mem::size_of::<$t>();

            #[inline]
            fn put(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }

            #[inline]
            fn read(bytes: &[u8]) -> $t {
                <$t>::from_le_bytes(bytes[..Self::BYTES].try_into().expect("a whole value"))
            }
        }
    )*};
}

wire_int!(u8, u16, u32, u64);

impl<A: Wire, B: Wire> Wire for (A, B) {
    const BYTES: usize = A::BYTES + B::BYTES;

    #[inline]
    fn put(&self, out: &mut Vec<u8>) {
        self.0.put(out);
        self.1.put(out);
    }

    #[inline]
    fn read(bytes: &[u8]) -> (A, B) {
        (A::read(bytes), B::read(&bytes[A::BYTES..]))
    }
}

/// Appends every one of `values` to `out`.
pub fn put_all<T: Wire>(out: &mut Vec<u8>, values: impl IntoIterator<Item = T>) {
    for v in values {
        v.put(out);
    }
}

/// Appends `bytes` after their length, to be read back by `Reader::block`.
pub fn put_block(out: &mut Vec<u8>, bytes: &[u8]) {
    (bytes.len() as u64).put(out);
    out.extend_from_slice(bytes);
}

/// The `k`-th value of a message of values of one type.
#[inline]
pub fn nth<T: Wire>(bytes: &[u8], k: usize) -> T {
    T::read(&bytes[k * T::BYTES..])
}

/// Every value of a message of values of one type.
pub fn each<T: Wire + 'static>(bytes: &[u8]) -> impl ExactSizeIterator<Item = T> + '_ {
    bytes.chunks_exact(T::BYTES).map(T::read)
}

/// Reads the values of a message in the order they were put.
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    /// The next value.
    #[inline]
    pub fn take<T: Wire>(&mut self) -> T {
        let v = T::read(self.bytes);
        self.bytes = &self.bytes[T::BYTES..];
        v
    }

    /// The next `len` bytes, as they are.
    pub fn bytes(&mut self, len: usize) -> &'a [u8] {
        let (head, tail) = self.bytes.split_at(len);
        self.bytes = tail;
        head
    }

    /// The next bytes put by `put_block`.
    pub fn block(&mut self) -> &'a [u8] {
        let len = self.take::<u64>() as usize;
        self.bytes(len)
    }

    /// What is left to read.
    pub fn rest(&self) -> &'a [u8] {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_back_as_put() {
        let mut out = Vec::new();
        7u8.put(&mut out);
        (3u16, u64::MAX - 1).put(&mut out);
        put_block(&mut out, b"ab");
        put_all(&mut out, [1u32, 2, 3]);
        assert_eq!(out.len(), 1 + 10 + 10 + 12);
        let mut r = Reader::new(&out);
        assert_eq!(r.take::<u8>(), 7);
        assert_eq!(r.take::<(u16, u64)>(), (3, u64::MAX - 1));
        assert_eq!(r.block(), b"ab");
        assert_eq!(nth::<u32>(r.rest(), 2), 3);
        assert_eq!(each::<u32>(r.rest()).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(r.bytes(4), 1u32.to_le_bytes());
        assert_eq!(r.rest().len(), 8);
    }
}
