//! The processes one solve, or one table's writing, is split across (`Peers`): each holds
//! an equal share of every part's positions (`Shares`), takes back the moves of the
//! positions it holds, and passes the un-moves that land in another's share to that
//! process, a batch per pass. An MPI job (`cluster`) provides the collective calls across
//! machines, `InProcess` between threads of one process (for tests), `Alone` for the one
//! process of a plain run.

mod wire;

pub use wire::{each, nth, put_all, put_block, Reader, Wire};

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Barrier, Mutex};

/// Processes that take part in every collective call in the same order. A call is
/// collective: it returns once every process has made it.
pub trait Peers: Send + Sync {
    /// This process's place, `0..count()`.
    fn rank(&self) -> usize;

    /// How many processes there are.
    fn count(&self) -> usize;

    /// Sends `outgoing[r]` to process `r` (this process's own part back to it) and returns
    /// what every process sent this one, in rank order.
    fn all_to_all(&self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>>;

    /// Every process's `mine`, in rank order.
    fn all_gather(&self, mine: Vec<u8>) -> Vec<Vec<u8>>;

    /// Process `root`'s `data` (the others' is not read), in every process.
    fn broadcast(&self, root: usize, data: Vec<u8>) -> Vec<u8>;

    /// Bytes this process has sent to the others so far.
    fn bytes_sent(&self) -> u64;

    /// For each of `flags`, whether it is true in any process (every process passes as
    /// many).
    fn any_of(&self, flags: &[bool]) -> Vec<bool> {
        let all = self.all_gather(flags.iter().map(|&f| u8::from(f)).collect());
        (0..flags.len())
            .map(|k| all.iter().any(|a| a[k] == 1))
            .collect()
    }

    /// Every process's `mine`, words of 64 bits, in rank order.
    fn all_gather_words(&self, mine: &[u64]) -> Vec<Vec<u64>> {
        let mut bytes = Vec::with_capacity(8 * mine.len());
        put_all(&mut bytes, mine.iter().copied());
        (self.all_gather(bytes).iter())
            .map(|theirs| each(theirs).collect())
            .collect()
    }

    /// Returns once every process has called it.
    fn barrier(&self) {
        self.all_gather(Vec::new());
    }
}

/// The one process of a run that is not split.
pub struct Alone;

impl Peers for Alone {
    fn rank(&self) -> usize {
        0
    }

    fn count(&self) -> usize {
        1
    }

    fn all_to_all(&self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        vec![outgoing.into_iter().next().unwrap_or_default()]
    }

    fn all_gather(&self, mine: Vec<u8>) -> Vec<Vec<u8>> {
        vec![mine]
    }

    fn broadcast(&self, _root: usize, data: Vec<u8>) -> Vec<u8> {
        data
    }

    fn bytes_sent(&self) -> u64 {
        0
    }
}

/// Positions per unit of a share: shares start on whole words of a bitmap, so that the
/// shares' bitmaps join word by word.
const ALIGN: u64 = 64;

/// How a part's indices are shared: equal ranges in rank order, each a multiple of
/// `ALIGN` from the part's start (the last takes what is left).
#[derive(Clone, Debug)]
pub struct Shares {
    part: Range<u64>,
    each: u64,
}

impl Shares {
    /// The shares of `part` among `count` processes.
    pub fn new(part: Range<u64>, count: usize) -> Shares {
        let len = part.end - part.start;
        let each = len.div_ceil(count as u64).div_ceil(ALIGN).max(1) * ALIGN;
        Shares { part, each }
    }

    /// The indices process `rank` holds (empty when the part is too small for it).
    pub fn of(&self, rank: usize) -> Range<u64> {
        let start = (self.part.start + rank as u64 * self.each).min(self.part.end);
        start..(start + self.each).min(self.part.end)
    }

    /// The process that holds `idx`, an index of the part.
    #[inline]
    pub fn owner(&self, idx: u64) -> usize {
        ((idx - self.part.start) / self.each) as usize
    }

    /// The most indices any process holds.
    pub fn largest(&self) -> u64 {
        self.each.min(self.part.end - self.part.start)
    }
}

/// Which process holds each index of a game whose parts are each shared among the
/// processes (`Shares`): what each keeps of a game solved part by part.
#[derive(Clone, Debug)]
pub struct Owners {
    /// Each part's first index, in order, and its shares.
    parts: Vec<(u64, Shares)>,
}

impl Owners {
    /// The owners of the indices of `parts` (consecutive, from 0) among `count` processes.
    pub fn new(parts: &[Range<u64>], count: usize) -> Owners {
        let parts = parts
            .iter()
            .map(|p| (p.start, Shares::new(p.clone(), count)));
        Owners {
            parts: parts.collect(),
        }
    }

    /// The process that holds `idx`.
    #[inline]
    pub fn owner(&self, idx: u64) -> usize {
        let k = self.parts.partition_point(|(start, _)| *start <= idx);
        self.parts[k.saturating_sub(1)].1.owner(idx)
    }

    /// The indices process `rank` holds, a range per part (some may be empty).
    pub fn of(&self, rank: usize) -> Vec<Range<u64>> {
        self.parts.iter().map(|(_, s)| s.of(rank)).collect()
    }
}

/// Processes simulated by the threads of one process: each thread holds one of a group
/// (`InProcess::group`) and makes the calls a process would. The solver's results do not
/// depend on where the processes run, so tests compare split solves with whole ones here.
pub struct InProcess {
    rank: usize,
    shared: Arc<Shared>,
    sent: AtomicU64,
}

struct Shared {
    /// `cells[from][to]`: what `from` sends `to` in the call under way.
    cells: Mutex<Vec<Vec<Vec<u8>>>>,
    barrier: Barrier,
}

impl InProcess {
    /// `count` processes, the one of rank r at r.
    pub fn group(count: usize) -> Vec<InProcess> {
        let shared = Arc::new(Shared {
            cells: Mutex::new(vec![vec![Vec::new(); count]; count]),
            barrier: Barrier::new(count),
        });
        (0..count)
            .map(|rank| InProcess {
                rank,
                shared: shared.clone(),
                sent: AtomicU64::new(0),
            })
            .collect()
    }

    fn cells(&self) -> std::sync::MutexGuard<'_, Vec<Vec<Vec<u8>>>> {
        self.shared.cells.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Peers for InProcess {
    fn rank(&self) -> usize {
        self.rank
    }

    fn count(&self) -> usize {
        self.cells().len()
    }

    fn all_to_all(&self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let others: usize = (outgoing.iter().enumerate())
            .filter(|&(to, _)| to != self.rank)
            .map(|(_, b)| b.len())
            .sum();
        self.sent.fetch_add(others as u64, Relaxed);
        self.cells()[self.rank] = outgoing;
        self.shared.barrier.wait();
        let received = {
            let mut cells = self.cells();
            let count = cells.len();
            (0..count)
                .map(|from| std::mem::take(&mut cells[from][self.rank]))
                .collect()
        };
        // No process writes its cells again before every one has read them.
        self.shared.barrier.wait();
        received
    }

    fn all_gather(&self, mine: Vec<u8>) -> Vec<Vec<u8>> {
        let count = self.count();
        self.sent
            .fetch_add((mine.len() * (count - 1)) as u64, Relaxed);
        self.cells()[self.rank][0] = mine;
        self.shared.barrier.wait();
        let all = self.cells().iter().map(|c| c[0].clone()).collect();
        self.shared.barrier.wait();
        all
    }

    fn broadcast(&self, root: usize, data: Vec<u8>) -> Vec<u8> {
        let count = self.count();
        if self.rank == root {
            self.sent
                .fetch_add((data.len() * (count - 1)) as u64, Relaxed);
            self.cells()[root][0] = data;
        }
        self.shared.barrier.wait();
        let got = self.cells()[root][0].clone();
        self.shared.barrier.wait();
        got
    }

    fn bytes_sent(&self) -> u64 {
        self.sent.load(Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_cover_the_part_in_aligned_ranges() {
        for (part, count) in [(0..10_000u64, 3), (64..65, 4), (7..1_000_003, 5), (5..5, 2)] {
            let shares = Shares::new(part.clone(), count);
            let mut next = part.start;
            for rank in 0..count {
                let own = shares.of(rank);
                assert_eq!(own.start, next, "{part:?} {rank}");
                assert!(own.start == part.end || (own.start - part.start) % ALIGN == 0);
                for idx in [own.start, own.end.saturating_sub(1)] {
                    if own.contains(&idx) {
                        assert_eq!(shares.owner(idx), rank);
                    }
                }
                next = own.end;
            }
            assert_eq!(next, part.end);
        }
    }

    #[test]
    fn owners_are_the_shares_of_each_part() {
        let parts = [0..100u64, 100..100, 100..1_000, 1_000..1_003];
        for count in [1, 2, 3] {
            let owners = Owners::new(&parts, count);
            let mut held = vec![0; 1_003];
            for rank in 0..count {
                for (own, part) in owners.of(rank).into_iter().zip(&parts) {
                    assert!(own.start >= part.start && own.end <= part.end);
                    for idx in own {
                        assert_eq!(owners.owner(idx), rank, "{idx}");
                        held[idx as usize] += 1;
                    }
                }
            }
            assert!(held.iter().all(|&h| h == 1), "each index held once");
        }
    }

    /// Runs `f` in each process of a group of three, each on a thread of its own.
    fn in_group_of_three(f: impl Fn(&InProcess) + Sync) {
        let group = InProcess::group(3);
        std::thread::scope(|s| {
            for p in &group {
                let f = &f;
                s.spawn(move || f(p));
            }
        });
    }

    #[test]
    fn a_group_exchanges_and_gathers_in_rank_order() {
        in_group_of_three(|p| {
            for round in 0..3u8 {
                let out = (0..3)
                    .map(|to| vec![p.rank as u8, to as u8, round])
                    .collect();
                let got = p.all_to_all(out);
                let want: Vec<Vec<u8>> = (0..3)
                    .map(|from| vec![from as u8, p.rank as u8, round])
                    .collect();
                assert_eq!(got, want);
                let all = p.all_gather(vec![p.rank as u8; p.rank + round as usize]);
                for (r, a) in all.iter().enumerate() {
                    assert_eq!(a, &vec![r as u8; r + round as usize]);
                }
                let root = round as usize;
                let data = vec![p.rank as u8 + 10; 4];
                assert_eq!(p.broadcast(root, data), vec![root as u8 + 10; 4]);
            }
            // Rank r sent 3 + 3 + 3 bytes to each other, gathered r, r + 1 and
            // r + 2 bytes to each, and broadcast 4 to each once.
            assert_eq!(p.bytes_sent(), 18 + 2 * (3 * p.rank as u64 + 3) + 8);
        });
    }

    /// Words gathered come back whole, every process's in rank order, whatever their bytes.
    #[test]
    fn words_are_gathered_in_rank_order() {
        in_group_of_three(|p| {
            let mine = [p.rank as u64, u64::MAX - p.rank as u64, 1 << 40];
            let all = p.all_gather_words(&mine[..p.rank + 1]);
            for (r, theirs) in all.iter().enumerate() {
                let want = [r as u64, u64::MAX - r as u64, 1 << 40];
                assert_eq!(theirs, &want[..r + 1]);
            }
            assert_eq!(Alone.all_gather_words(&mine), vec![mine.to_vec()]);
        });
    }
}
