//! A bounded cache of distance-to-mate answers, shared by all threads probing a set of
//! tables.
//!
//! A DTM probe of the side a table does not store searches one ply over the stored side, so
//! a root probe and its move list ask for the same positions again and again: they are
//! remembered here. Direct-mapped and lock-free: one 64-bit atomic word per slot holds the
//! whole key (table, side to move, index) and the answer, so a read never sees half an
//! entry; a newer answer simply replaces an older one. WDL probes never use it: they are
//! answered from the mapped file without a search.

use crate::value::Dtm;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Default memory budget of a cache, in bytes.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

/// Most indices a key holds (2^35: every index of a 6-piece table).
const INDEX_BITS: u32 = 35;

/// Remembered DTM answers, about `bytes` bytes of them.
pub struct DtmCache {
    slots: Box<[AtomicU64]>,
    mask: u64,
}

fn pack(value: Dtm) -> u64 {
    match value {
        Dtm::Draw => 0,
        Dtm::Win(p) | Dtm::Loss(p) => u64::from(p.min(0xFFFE)) + 1,
    }
}

fn unpack(code: u64) -> Dtm {
    match code {
        0 => Dtm::Draw,
        c => {
            let p = (c - 1) as u32;
            if p % 2 == 1 {
                Dtm::Win(p)
            } else {
                Dtm::Loss(p)
            }
        }
    }
}

/// A cache larger than the machine's memory, or than the system would give.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a cache of {bytes} bytes is more than this machine can give{}", match memory {
    Some(m) => format!(" (it has {m} bytes of memory)"),
    None => String::new(),
})]
pub struct CacheTooLarge {
    /// The bytes asked for.
    pub bytes: usize,
    /// The machine's memory, where known.
    pub memory: Option<u64>,
}

impl DtmCache {
    /// A cache of about `bytes` bytes (at least one slot; a power of two of them, at most
    /// `bytes` unless that is below one slot). The memory comes zeroed and is touched only
    /// as answers fill it; more than the machine's memory is refused.
    pub fn new(bytes: usize) -> Result<DtmCache, CacheTooLarge> {
        let memory = crate::zeroed::physical_memory();
        let too_large = CacheTooLarge { bytes, memory };
        if memory.is_some_and(|m| bytes as u64 > m) {
            return Err(too_large);
        }
        let slots = (bytes / 8).max(1);
        let slots = 1usize << (usize::BITS - 1 - slots.leading_zeros());
        let slots = crate::zeroed::try_zeroed::<AtomicU64>(slots).ok_or(too_large)?;
        Ok(DtmCache {
            mask: slots.len() as u64 - 1,
            slots: slots.into_boxed_slice(),
        })
    }

    /// The key of a position: table number (below 2048), side to move, index.
    #[inline]
    pub fn key(table: u32, side: usize, idx: u64) -> Option<u64> {
        (table < 2048 && idx < 1 << INDEX_BITS)
            .then(|| (u64::from(table) << (INDEX_BITS + 1) | (side as u64) << INDEX_BITS | idx) + 1)
    }

    /// The key of a position's distance to zeroing: as `key`, in a space of its own.
    #[inline]
    pub fn dtz_key(table: u32, side: usize, idx: u64) -> Option<u64> {
        Self::key(table, side, idx).map(|k| k | 1 << (INDEX_BITS + 12))
    }

    #[inline]
    fn slot(&self, key: u64) -> &AtomicU64 {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20;
        &self.slots[(h & self.mask) as usize]
    }

    /// The remembered answer for `key`, if any.
    #[inline]
    pub fn get(&self, key: u64) -> Option<Dtm> {
        let e = self.slot(key).load(Relaxed);
        (e >> 16 == key).then(|| unpack(e & 0xFFFF))
    }

    /// Remembers `value` for `key`.
    #[inline]
    pub fn put(&self, key: u64, value: Dtm) {
        self.slot(key).store(key << 16 | pack(value), Relaxed);
    }

    /// Forgets everything (writing only the slots that hold an answer, so that pages never
    /// filled stay untouched).
    pub fn clear(&self) {
        for s in self.slots.iter() {
            if s.load(Relaxed) != 0 {
                s.store(0, Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_and_forgets() {
        let c = DtmCache::new(1 << 10).unwrap();
        let k = DtmCache::key(7, 1, 123_456).unwrap();
        assert_eq!(c.get(k), None);
        for v in [Dtm::Win(1), Dtm::Loss(0), Dtm::Draw, Dtm::Loss(254)] {
            c.put(k, v);
            assert_eq!(c.get(k), Some(v));
        }
        assert_eq!(c.get(DtmCache::key(7, 0, 123_456).unwrap()), None);
        c.clear();
        assert_eq!(c.get(k), None);
        assert_eq!(DtmCache::key(2048, 0, 0), None);
        // Sizes no machine has are refused, not a panic or an abort.
        for bytes in [usize::MAX, usize::MAX / 2 + 1] {
            assert_eq!(DtmCache::new(bytes).err().map(|e| e.bytes), Some(bytes));
        }
        assert_eq!(DtmCache::new(0).unwrap().slots.len(), 1);
    }
}
