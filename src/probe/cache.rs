//! A bounded cache of distance-to-mate answers, shared by all threads probing a set of
//! tables.
//!
//! A DTM probe of the side a table does not store searches one ply over the stored side, so
//! a root probe and its move list ask for the same positions again and again: they are
//! remembered here. Direct-mapped and lock-free: one 64-bit atomic word per slot holds the
//! whole key (table, side to move, index) and the answer, so a read never sees half an
//! entry; a newer answer simply replaces an older one. WDL probes never use it: they are
//! answered from the mapped file without a search.

use crate::side::Side;
use crate::value::Dtm;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Default memory budget of a cache, in bytes.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

/// Most indices a key holds (2^35: every index of a 6-piece table).
const INDEX_BITS: u32 = 35;

/// Slots a cache starts with in use (512 KiB): it doubles the slots in use as answers
/// come, up to its budget, so that a process that probes little touches few of its pages.
/// Each page is zeroed by the system when first written; across the whole default budget
/// that cost a fresh process 8 us per DTZ probe in 20,000 cold probes.
const FIRST_SLOTS: u64 = 1 << 16;

/// One answer in this many is counted towards growing (the count is shared by threads).
const COUNT_EVERY: u64 = 64;

/// Remembered DTM answers, about `bytes` bytes of them.
pub(super) struct DtmCache {
    slots: Box<[AtomicU64]>,
    /// The slots in use, less one: a power of two, at most the budget's.
    live: AtomicU64,
    /// Answers put, one counted in `COUNT_EVERY`, since the slots in use last doubled.
    counted: AtomicU64,
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
    pub(super) fn new(bytes: usize) -> Result<DtmCache, CacheTooLarge> {
        let memory = crate::zeroed::physical_memory();
        let too_large = CacheTooLarge { bytes, memory };
        if memory.is_some_and(|m| bytes as u64 > m) {
            return Err(too_large);
        }
        let slots = (bytes / 8).max(1);
        let slots = 1usize << (usize::BITS - 1 - slots.leading_zeros());
        let slots = crate::zeroed::try_zeroed::<AtomicU64>(slots).ok_or(too_large)?;
        Ok(DtmCache {
            live: AtomicU64::new(FIRST_SLOTS.min(slots.len() as u64) - 1),
            counted: AtomicU64::new(0),
            slots: slots.into_boxed_slice(),
        })
    }

    /// The key of a position: table number (below 2048), side to move, index.
    #[inline]
    pub(super) fn key(table: u32, side: Side, idx: u64) -> Option<u64> {
        (table < 2048 && idx < 1 << INDEX_BITS).then(|| {
            (u64::from(table) << (INDEX_BITS + 1) | (side.index() as u64) << INDEX_BITS | idx) + 1
        })
    }

    /// The key of a position's distance to zeroing: as `key`, in a space of its own.
    #[inline]
    pub(super) fn dtz_key(table: u32, side: Side, idx: u64) -> Option<u64> {
        Self::key(table, side, idx).map(|k| k | 1 << (INDEX_BITS + 12))
    }

    #[inline]
    fn hash(key: u64) -> u64 {
        key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20
    }

    /// The slot of `key` among those in use. A key whose slot moved when they doubled is
    /// not found, as if replaced: every slot holds its whole key.
    #[inline]
    fn slot(&self, h: u64) -> &AtomicU64 {
        &self.slots[(h & self.live.load(Relaxed)) as usize]
    }

    /// The remembered answer for `key`, if any.
    #[inline]
    pub(super) fn get(&self, key: u64) -> Option<Dtm> {
        let e = self.slot(Self::hash(key)).load(Relaxed);
        (e >> 16 == key).then(|| unpack(e & 0xFFFF))
    }

    /// Remembers `value` for `key`.
    #[inline]
    pub(super) fn put(&self, key: u64, value: Dtm) {
        let h = Self::hash(key);
        self.slot(h).store(key << 16 | pack(value), Relaxed);
        if (h >> 38) & (COUNT_EVERY - 1) == 0 {
            self.count_one();
        }
    }

    /// Counts a put; once as many answers as slots in use have come, doubles them.
    #[cold]
    fn count_one(&self) {
        let live = self.live.load(Relaxed);
        if live as usize + 1 == self.slots.len() {
            return;
        }
        if (self.counted.fetch_add(1, Relaxed) + 1) * COUNT_EVERY > live {
            let grown = live << 1 | 1;
            if self
                .live
                .compare_exchange(live, grown, Relaxed, Relaxed)
                .is_ok()
            {
                self.counted.store(0, Relaxed);
            }
        }
    }

    /// The slots in use.
    #[cfg(test)]
    fn in_use(&self) -> usize {
        self.live.load(Relaxed) as usize + 1
    }

    /// Forgets everything (writing only the slots that hold an answer, so that pages never
    /// filled stay untouched).
    pub(super) fn clear(&self) {
        for s in self.slots.iter() {
            if s.load(Relaxed) != 0 {
                s.store(0, Relaxed);
            }
        }
        let first = FIRST_SLOTS.min(self.slots.len() as u64);
        self.live.store(first - 1, Relaxed);
        self.counted.store(0, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_and_forgets() {
        let c = DtmCache::new(1 << 10).unwrap();
        let k = DtmCache::key(7, Side::Black, 123_456).unwrap();
        assert_eq!(c.get(k), None);
        for v in [Dtm::Win(1), Dtm::Loss(0), Dtm::Draw, Dtm::Loss(254)] {
            c.put(k, v);
            assert_eq!(c.get(k), Some(v));
        }
        assert_eq!(c.get(DtmCache::key(7, Side::White, 123_456).unwrap()), None);
        c.clear();
        assert_eq!(c.get(k), None);
        assert_eq!(DtmCache::key(2048, Side::White, 0), None);
        // Sizes no machine has are refused, not a panic or an abort.
        for bytes in [usize::MAX, usize::MAX / 2 + 1] {
            assert_eq!(DtmCache::new(bytes).err().map(|e| e.bytes), Some(bytes));
        }
        assert_eq!(DtmCache::new(0).unwrap().slots.len(), 1);
    }

    #[test]
    fn grows_to_its_budget_as_answers_come_and_keeps_the_recent_ones() {
        let c = DtmCache::new(8 << 20).unwrap();
        assert_eq!(c.in_use(), FIRST_SLOTS as usize);
        let key = |i: u64| DtmCache::key(3, Side::from_index((i % 2) as usize), i).unwrap();
        let value = |i: u64| Dtm::Win((i % 1000) as u32 * 2 + 1);
        let n = 4 * c.slots.len() as u64;
        for i in 0..n {
            c.put(key(i), value(i));
            // Whatever is found is the answer put for that key.
            let j = i.saturating_sub(i % 7919);
            if let Some(v) = c.get(key(j)) {
                assert_eq!(v, value(j));
            }
        }
        assert_eq!(c.in_use(), c.slots.len());
        let found = (n - 1000..n)
            .filter(|&i| c.get(key(i)) == Some(value(i)))
            .count();
        assert!(found > 990, "{found} of the last 1,000 answers kept");
        c.clear();
        assert_eq!(c.in_use(), FIRST_SLOTS as usize);
        assert_eq!(c.get(key(n - 1)), None);
    }
}
