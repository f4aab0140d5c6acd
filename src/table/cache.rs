//! A bounded cache of decoded blocks, shared by all threads probing a set of tables.
//!
//! Two-way set-associative: a block's key hashes to one set of two slots, each set behind its
//! own small lock on its own cache line, so threads probing different blocks rarely wait for
//! each other and there is no global lock. A hit copies one byte out under the set's lock; a
//! miss decodes into the least recently used slot's buffer, which is reused, so probes do not
//! allocate once the cache is warm.

use std::sync::Mutex;

const EMPTY: u64 = u64::MAX;

/// Default memory budget of a cache, in bytes.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

struct Slot {
    key: u64,
    data: Vec<u8>,
}

struct Set {
    slots: [Slot; 2],
    /// Which slot a miss replaces (the one not used last).
    victim: usize,
}

#[repr(align(64))]
struct Line(Mutex<Set>);

/// Decoded blocks of up to `budget / block_bytes` distinct keys.
pub struct BlockCache {
    lines: Box<[Line]>,
    mask: usize,
}

impl BlockCache {
    /// A cache of about `budget` bytes for blocks of `block_bytes` bytes (at least one slot).
    pub fn new(budget: usize, block_bytes: usize) -> BlockCache {
        let sets = (budget / block_bytes.max(1) / 2).max(1);
        // A power of two at most `sets`, so the budget is never exceeded.
        let sets = 1usize << (usize::BITS - 1 - sets.leading_zeros());
        let empty = || Slot {
            key: EMPTY,
            data: Vec::new(),
        };
        let lines = (0..sets)
            .map(|_| {
                Line(Mutex::new(Set {
                    slots: [empty(), empty()],
                    victim: 0,
                }))
            })
            .collect();
        BlockCache {
            lines,
            mask: sets - 1,
        }
    }

    /// Number of slots (blocks the cache can hold).
    pub fn slots(&self) -> usize {
        2 * self.lines.len()
    }

    /// Byte `offset` of the block `key`, decoding the block with `fill` (which gets an empty
    /// buffer to fill) if it is not cached. A failed fill leaves the slot empty.
    #[inline]
    pub fn get<E>(
        &self,
        key: u64,
        offset: usize,
        fill: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
    ) -> Result<u8, E> {
        let h = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & self.mask;
        let mut set = self.lines[h].0.lock().unwrap_or_else(|e| e.into_inner());
        let way = match set.slots.iter().position(|s| s.key == key) {
            Some(way) => way,
            None => {
                let way = set.victim;
                let slot = &mut set.slots[way];
                slot.key = EMPTY;
                slot.data.clear();
                fill(&mut slot.data)?;
                slot.key = key;
                way
            }
        };
        set.victim = 1 - way;
        // `fill` checks the decoded length, and `offset` lies inside the block.
        Ok(set.slots[way].data[offset])
    }

    /// Forgets every cached block (the memory stays reserved for reuse).
    pub fn clear(&self) {
        for line in self.lines.iter() {
            let mut set = line.0.lock().unwrap_or_else(|e| e.into_inner());
            for slot in &mut set.slots {
                slot.key = EMPTY;
            }
        }
    }
}
