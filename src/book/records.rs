//! Records: one game's contribution to one book entry, before counts are summed. A build
//! gathers them in memory, then sorts them by (key, move) and sums equal ones into entries.

use super::file::Entry;
use rayon::prelude::*;

/// One game's contribution to an entry, before counts are summed: 16 bytes instead of an
/// entry's 32, so twice as many fit in the memory budget and sorting moves half the bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Record {
    pub key: u64,
    /// Move code << 16 | flags (`WIN`, `DRAW`, `LOSS`, `REPEATS`).
    pub code: u32,
}

pub const WIN: u32 = 1;
pub const DRAW: u32 = 2;
pub const LOSS: u32 = 4;
/// Move entry: the game played the move into a position it had already reached.
/// Position entry: the game ended in a draw by threefold repetition.
pub const REPEATS: u32 = 8;

impl Record {
    /// One game's record of position `key` (move 0) or of move `mv` played there.
    pub fn new(key: u64, mv: u16, flags: u32) -> Record {
        Record {
            key,
            code: (mv as u32) << 16 | flags,
        }
    }

    /// The move (0 for the position's own record).
    pub fn mv(&self) -> u16 {
        (self.code >> 16) as u16
    }

    /// The record as an entry counting one game.
    pub fn entry(&self) -> Entry {
        let bit = |f: u32| (self.code & f != 0) as u32;
        Entry {
            key: self.key,
            mv: self.mv(),
            games: 1,
            win: bit(WIN),
            draw: bit(DRAW),
            loss: bit(LOSS),
            repeats: bit(REPEATS),
            backup: None,
        }
    }
}

/// Records gathered in 256 buckets by their key's top byte. Keys are Zobrist keys, spread
/// evenly, so sorting is 256 independent sorts of cache-sized buckets, done in parallel:
/// much faster than one sort of the whole, and the spreading costs one store per record
/// while the games are still being read.
pub struct Records {
    buckets: Vec<Vec<Record>>,
}

impl Default for Records {
    fn default() -> Self {
        Records {
            buckets: vec![Vec::new(); 256],
        }
    }
}

impl Records {
    /// Adds `records`.
    pub fn extend(&mut self, records: &[Record]) {
        for r in records {
            let b = &mut self.buckets[(r.key >> 56) as usize];
            if b.len() == b.capacity() {
                // Grown by a quarter, not doubled: memory held stays close to memory used.
                b.reserve_exact(b.len() / 4 + 256);
            }
            b.push(*r);
        }
    }

    /// Bytes held, spare capacity included.
    pub fn bytes(&self) -> usize {
        self.buckets.iter().map(|b| b.capacity()).sum::<usize>() * std::mem::size_of::<Record>()
    }

    /// Sorts the records by (key, move) and sums equal ones into entries, emptying `self`.
    pub fn sort_and_sum(&mut self) -> impl Iterator<Item = Entry> {
        let buckets = std::mem::take(&mut self.buckets);
        self.buckets = vec![Vec::new(); 256];
        let summed: Vec<Vec<Entry>> = buckets
            .into_par_iter()
            .map(|mut b| {
                sort_bucket(&mut b);
                sum_sorted(&b)
            })
            .collect();
        summed.into_iter().flatten()
    }
}

/// Sorts one bucket: spread again by the key's second byte, then each small group sorted by
/// comparison.
fn sort_bucket(records: &mut Vec<Record>) {
    let group = |r: &Record| (r.key >> 48) as usize & 0xff;
    let mut starts = [0usize; 257];
    for r in records.iter() {
        starts[group(r) + 1] += 1;
    }
    for g in 0..256 {
        starts[g + 1] += starts[g];
    }
    let mut spread = vec![Record::default(); records.len()];
    let mut at = starts;
    for r in records.iter() {
        let g = group(r);
        spread[at[g]] = *r;
        at[g] += 1;
    }
    for g in 0..256 {
        spread[starts[g]..starts[g + 1]].sort_unstable();
    }
    *records = spread;
}

/// Sums runs of equal (key, move) in sorted records.
fn sum_sorted(records: &[Record]) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::with_capacity(records.len() / 2);
    for r in records {
        match out.last_mut() {
            Some(e) if e.key == r.key && e.mv == r.mv() => e.add(&r.entry()),
            _ => out.push(r.entry()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_and_sums_like_a_plain_sort() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            seed
        };
        let records: Vec<Record> = (0..50_000)
            .map(|_| {
                let k = next();
                // Few distinct keys and moves, so that many records sum.
                let key = k & 0xff00_0000_0000_0007;
                Record::new(
                    key,
                    (k >> 20) as u16 % 3,
                    [WIN, DRAW, LOSS][(k >> 30) as usize % 3],
                )
            })
            .collect();
        let mut plain = records.clone();
        plain.sort_unstable();
        let mut expected: Vec<Entry> = Vec::new();
        for r in &plain {
            match expected.last_mut() {
                Some(e) if (e.key, e.mv) == (r.key, r.mv()) => e.add(&r.entry()),
                _ => expected.push(r.entry()),
            }
        }
        let mut gathered = Records::default();
        for part in records.chunks(777) {
            gathered.extend(part);
        }
        let got: Vec<Entry> = gathered.sort_and_sum().collect();
        assert_eq!(gathered.bytes(), 0);
        assert_eq!(got, expected);
        assert!(got.len() < 50_000 && got.iter().map(|e| e.games).sum::<u32>() == 50_000);
    }
}
