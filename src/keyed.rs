//! Hash maps keyed by integers that need no more than one multiplication to spread: table
//! keys, pair codes. The standard hasher resists adversaries these keys do not have, at
//! several times the cost.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map from integer keys, hashed by `KeyHasher`.
pub(crate) type KeyedMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// One multiplication, its high half folded into the low one: the map picks buckets by the
/// low bits, which a product alone takes from the key's low bits only.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01B3);
        }
    }
    fn write_u32(&mut self, k: u32) {
        self.write_u64(u64::from(k));
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differing_in_high_bits_only_spread_over_low_bits() {
        let low = |k: u64| {
            let mut h = KeyHasher::default();
            h.write_u64(k);
            h.finish() & 0xFFF
        };
        let buckets: std::collections::HashSet<u64> = (0..1024u64).map(|a| low(a << 16)).collect();
        assert!(buckets.len() > 600, "{} buckets", buckets.len());
    }
}
