//! Records: one game's contribution to one book entry, before counts are summed. A build
//! gathers them in memory, then sorts them by (key, move) and sums equal ones into entries.

use super::format::Entry;
use rayon::prelude::*;

/// One game's contribution to an entry, before counts are summed: 16 bytes instead of an
/// entry's 32, so twice as many fit in the memory budget and sorting moves half the bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Record {
    pub key: u64,
    /// Move code << 16 | flags (`WIN`, `DRAW`, `LOSS`, `REPEATS`).
    pub code: u32,
}

pub(super) const WIN: u32 = 1;
pub(super) const DRAW: u32 = 2;
pub(super) const LOSS: u32 = 4;
/// Move entry: the game played the move into a position it had already reached.
/// Position entry: the game ended in a draw by threefold repetition.
pub(super) const REPEATS: u32 = 8;

impl Record {
    /// One game's record of position `key` (move 0) or of move `mv` played there.
    pub(crate) fn new(key: u64, mv: u16, flags: u32) -> Record {
        Record {
            key,
            code: (mv as u32) << 16 | flags,
        }
    }

    /// The move (0 for the position's own record).
    pub(crate) fn mv(&self) -> u16 {
        (self.code >> 16) as u16
    }

    /// The record as an entry counting one game.
    pub(crate) fn entry(&self) -> Entry {
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

/// One piece's records, grouped by their key's top byte (bucket `b` is
/// `records[starts[b]..starts[b + 1]]`). Grouped by the worker that read the piece, so the
/// gathering thread only keeps the batch.
pub(crate) struct Batch {
    records: Vec<Record>,
    starts: Box<[usize; 257]>,
}

/// Copies `records` into `out` grouped by the byte of their key at bit `shift` (a counting
/// sort on that byte, stable); returns where each group starts, and its end at index 256.
fn group_by_byte(records: &[Record], shift: u32, out: &mut Vec<Record>) -> [usize; 257] {
    let byte = |r: &Record| (r.key >> shift) as usize & 0xff;
    let mut starts = [0usize; 257];
    for r in records {
        starts[byte(r) + 1] += 1;
    }
    for b in 0..256 {
        starts[b + 1] += starts[b];
    }
    out.clear();
    out.resize(records.len(), Record::default());
    let mut at = starts;
    for r in records {
        let b = byte(r);
        out[at[b]] = *r;
        at[b] += 1;
    }
    starts
}

impl Batch {
    /// Groups `records` by bucket (their key's top byte).
    pub(crate) fn new(records: &[Record]) -> Batch {
        let mut grouped = Vec::new();
        let starts = Box::new(group_by_byte(records, 56, &mut grouped));
        Batch {
            records: grouped,
            starts,
        }
    }

    fn bucket(&self, b: usize) -> &[Record] {
        &self.records[self.starts[b]..self.starts[b + 1]]
    }
}

/// Records gathered batch by batch. Keys are Zobrist keys, spread evenly, so sorting is 256
/// independent sorts of cache-sized buckets, done in parallel: much faster than one sort
/// of the whole.
#[derive(Default)]
pub(crate) struct Records {
    batches: Vec<Batch>,
    bytes: usize,
}

impl Records {
    /// Adds a batch.
    pub(crate) fn add(&mut self, batch: Batch) {
        self.bytes += batch.records.capacity() * std::mem::size_of::<Record>();
        self.batches.push(batch);
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Sorts the records by (key, move) and sums equal ones into entries with at least
    /// `min_games` games, emptying `self`.
    pub(crate) fn sort_and_sum(&mut self, min_games: u32) -> impl Iterator<Item = Entry> {
        thread_local! {
            static GATHERED: std::cell::RefCell<Vec<Record>> =
                const { std::cell::RefCell::new(Vec::new()) };
        }
        let batches = std::mem::take(&mut self.batches);
        self.bytes = 0;
        let summed: Vec<Vec<Entry>> = (0..256)
            .into_par_iter()
            .map(|b| {
                GATHERED.with_borrow_mut(|all| {
                    all.clear();
                    for batch in &batches {
                        all.extend_from_slice(batch.bucket(b));
                    }
                    sort_bucket(all);
                    let mut summed = sum_sorted(all);
                    summed.retain(|e| e.games >= min_games);
                    summed
                })
            })
            .collect();
        drop(batches);
        summed.into_iter().flatten()
    }
}

/// Sorts one bucket: spread again by the key's second byte (into a buffer each thread
/// keeps), then each small group sorted by comparison.
fn sort_bucket(records: &mut [Record]) {
    thread_local! {
        static SPREAD: std::cell::RefCell<Vec<Record>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    SPREAD.with_borrow_mut(|spread| {
        let starts = group_by_byte(records, 48, spread);
        for g in 0..256 {
            spread[starts[g]..starts[g + 1]].sort_unstable();
        }
        records.copy_from_slice(spread);
    });
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
                // Few distinct keys and moves, so that many records sum; both bytes the
                // sort groups by vary.
                let key = k & 0xff0f_0000_0000_0007;
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
            gathered.add(Batch::new(part));
        }
        let got: Vec<Entry> = gathered.sort_and_sum(1).collect();
        assert_eq!(gathered.bytes(), 0);
        assert_eq!(got, expected);
        assert!(got.len() < 50_000 && got.iter().map(|e| e.games).sum::<u32>() == 50_000);
    }
}
