//! The processes of an MPI job as the solver's peers (`peers::Peers`): a table's
//! parts are split across them (`mpirun -np N retrobook gen SIG`).

use super::Cluster;
use crate::peers::Peers;
use mpi::datatype::{Partition, PartitionMut};
use mpi::traits::*;
use mpi::Count;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// Bytes at most that one process sends another in one collective call: MPI counts are
/// 32-bit, and smaller rounds keep the buffers small.
const ROUND: usize = 64 << 20;

/// How often a process that came early to a collective call looks at most, once its
/// first quick looks found others still working.
const LONGEST_PAUSE: Duration = Duration::from_millis(1);

/// Quick looks before the first pause: most calls of a solve's levels find every process
/// there within microseconds.
const QUICK_LOOKS: u32 = 64;

/// The job's processes, every one of which solves the same tables in step.
pub struct MpiPeers {
    cluster: Cluster,
    sent: AtomicU64,
}

// SAFETY: MPI is initialised for calls from any thread, one at a time
// (`Threading::Serialized`, `Cluster::join`), and the solver makes its collective calls
// from the one thread that drives the solve, never from its workers: the handle is only
// moved between threads, never used by two at once.
unsafe impl Send for MpiPeers {}
unsafe impl Sync for MpiPeers {}

impl MpiPeers {
    /// The peers of `cluster`'s job.
    pub fn new(cluster: Cluster) -> MpiPeers {
        MpiPeers {
            cluster,
            sent: AtomicU64::new(0),
        }
    }

    /// The job.
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    fn count_sent(&self, bytes: u64) {
        self.sent.fetch_add(bytes, Relaxed);
    }

    /// Returns once every process has come to this call, asleep between looks. A process
    /// in a blocking call polls without pause, so that on a machine with fewer cores than
    /// processes (`mpirun --oversubscribe`) those that wait would take the cores from one
    /// that works alone, as process 0 does while it compresses a stream. Each collective
    /// call begins here, so that its blocking rounds find every process there.
    fn meet(&self) {
        let mut request = self.cluster.world().immediate_barrier();
        let mut looks = 0;
        let mut pause = Duration::from_micros(20);
        loop {
            match request.test() {
                Ok(_) => return,
                Err(waiting) => request = waiting,
            }
            looks += 1;
            if looks > QUICK_LOOKS {
                std::thread::sleep(pause);
                pause = (pause * 2).min(LONGEST_PAUSE);
            }
        }
    }
}

/// The lengths of `parts`, as MPI counts them.
fn sizes(parts: &[&[u8]]) -> Vec<Count> {
    parts.iter().map(|b| b.len() as Count).collect()
}

/// One collective round: sends `outgoing[r]` to process r, with what this process sends
/// each (`counts`, the lengths of `outgoing`) and what each sends it known beforehand, and
/// returns what each process sent this one, laid end to end. Every part must be under 2
/// GiB.
fn all_to_all_counted(
    cluster: &Cluster,
    outgoing: &[&[u8]],
    counts: &[Count],
    incoming_counts: &[Count],
) -> Vec<u8> {
    let world = cluster.world();
    let displs = offsets(counts);
    let incoming_displs = offsets(incoming_counts);
    // One byte more on each side than the parts take: Open MPI refuses a send and a
    // receive buffer at one address, which two empty buffers would share.
    let mut send: Vec<u8> = outgoing.concat();
    send.push(0);
    let total = incoming_counts.iter().map(|&c| c as usize).sum::<usize>();
    let mut incoming = vec![0u8; total + 1];
    {
        let send = Partition::new(&send[..], counts, &displs[..]);
        let mut recv = PartitionMut::new(&mut incoming[..], incoming_counts, &incoming_displs[..]);
        world.all_to_all_varcount_into(&send, &mut recv);
    }
    incoming.pop();
    incoming
}

/// Where each part starts when parts of `counts` bytes are laid end to end.
fn offsets(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let start = *at;
            *at += c;
            Some(start)
        })
        .collect()
}

impl Peers for MpiPeers {
    fn rank(&self) -> usize {
        self.cluster.rank() as usize
    }

    fn count(&self) -> usize {
        self.cluster.size() as usize
    }

    fn all_to_all(&self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let me = self.rank();
        let others: usize = (outgoing.iter().enumerate())
            .filter(|&(to, _)| to != me)
            .map(|(_, b)| b.len())
            .sum();
        self.count_sent(others as u64);
        self.meet();
        // Every process learns what each sends each: the rounds follow from that alone.
        let count = outgoing.len();
        let lengths: Vec<u64> = outgoing.iter().map(|b| b.len() as u64).collect();
        let mut matrix = vec![0u64; count * count];
        (self.cluster.world()).all_gather_into(&lengths[..], &mut matrix[..]);
        let longest = matrix.iter().copied().max().unwrap_or(0) as usize;
        let mut from: Vec<Vec<u8>> = (0..count)
            .map(|f| Vec::with_capacity(matrix[f * count + me] as usize))
            .collect();
        let round = |len: usize, at: usize| len.min(at + ROUND).saturating_sub(at);
        let mut at = 0;
        while at < longest {
            let part: Vec<&[u8]> = (outgoing.iter())
                .map(|b| &b[at.min(b.len())..(at + ROUND).min(b.len())])
                .collect();
            let counts: Vec<Count> = (0..count)
                .map(|f| round(matrix[f * count + me] as usize, at) as Count)
                .collect();
            let incoming = all_to_all_counted(&self.cluster, &part, &sizes(&part), &counts);
            let mut rest = &incoming[..];
            for (f, &c) in from.iter_mut().zip(&counts) {
                let (head, tail) = rest.split_at(c as usize);
                f.extend_from_slice(head);
                rest = tail;
            }
            at += ROUND;
        }
        from
    }

    fn all_gather(&self, mine: Vec<u8>) -> Vec<Vec<u8>> {
        let world = self.cluster.world();
        let count = self.count();
        self.count_sent((mine.len() * (count - 1)) as u64);
        self.meet();
        let mut lens = vec![0u64; count];
        world.all_gather_into(&(mine.len() as u64), &mut lens[..]);
        let mut all: Vec<Vec<u8>> = lens
            .iter()
            .map(|&l| Vec::with_capacity(l as usize))
            .collect();
        let longest = lens.iter().copied().max().unwrap_or(0) as usize;
        let mut at = 0;
        // Rounds of at most `ROUND` bytes from each, until the longest is sent (none when
        // all are empty: the lengths' gather was the collective call).
        while at < longest {
            let part = &mine[at.min(mine.len())..(at + ROUND).min(mine.len())];
            let counts: Vec<Count> = (lens.iter())
                .map(|&l| ((l as usize).min(at + ROUND).saturating_sub(at)) as Count)
                .collect();
            let displs = offsets(&counts);
            let total = counts.iter().map(|&c| c as usize).sum::<usize>();
            // One byte more on each side (see `all_to_all_counted`).
            let mut send = part.to_vec();
            send.push(0);
            let mut recv = vec![0u8; total + 1];
            {
                let mut into = PartitionMut::new(&mut recv[..], &counts[..], &displs[..]);
                world.all_gather_varcount_into(&send[..part.len()], &mut into);
            }
            for ((a, &c), &d) in all.iter_mut().zip(&counts).zip(&displs) {
                a.extend_from_slice(&recv[d as usize..(d + c) as usize]);
            }
            at += ROUND;
        }
        all
    }

    fn broadcast(&self, root: usize, data: Vec<u8>) -> Vec<u8> {
        let world = self.cluster.world();
        let from = world.process_at_rank(root as i32);
        let mine = self.rank() == root;
        let mut len = data.len() as u64;
        self.meet();
        from.broadcast_into(&mut len);
        if mine {
            self.count_sent(len * (self.count() as u64 - 1));
        }
        let mut got = if mine { data } else { vec![0u8; len as usize] };
        for chunk in got.chunks_mut(ROUND) {
            from.broadcast_into(chunk);
        }
        got
    }

    fn bytes_sent(&self) -> u64 {
        self.sent.load(Relaxed)
    }
}
