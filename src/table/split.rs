//! The writer's work split across the processes of a job (`peers`), each holding
//! its share of the solution alone (`Owners`: a share of each part's indices): no process
//! holds the whole table.
//!
//! A stream is cut into jobs, ranges of a layout's numbers each given to one process to
//! fill and compress. Every process walks each job's numbers in the layout's order (every
//! process can: the layout is known to all), makes the choices (`Choices::at`) of the
//! indices it holds and sends them, in that order, to the job's process, with their count
//! per fill chunk; that process walks the numbers again and takes each index's choices
//! from its holder's list, in turn. No index travels, only two bytes of choices an index
//! (and a count per chunk), and each chunk is filled (`fill`) from the choices one process
//! would have had: the values, and so the file, are those of one process.
//!
//! A stream cut into segments (`codec::segments`) gives each process its own segments in
//! turn, a batch at a time, and process 0 joins the compressed segments; a stream whole is
//! filled and compressed by process 0, its choices coming a batch of segments' worth at a
//! time. The layout trials compress their samples, spread over the processes the same way,
//! and every process learns every size, so that all choose the same layouts.

use super::codec::Symbol;
use super::fill::FILL_CHUNK;
use super::writer::{any, compress, fill_into, Choices, Job, Kind, WriteOptions, PREFETCH_AHEAD};
use crate::index::Layout;
use crate::peers::{each, put_all, put_block, Reader, Wire};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::ops::Range;

/// The fill chunks of `range`, from its start (as one process fills it).
fn chunks(range: &Range<u64>) -> impl IndexedParallelIterator<Item = Range<u64>> {
    let n = (range.end - range.start).div_ceil(FILL_CHUNK as u64) as usize;
    let range = range.clone();
    (0..n).into_par_iter().map(move |c| {
        let start = range.start + (c * FILL_CHUNK) as u64;
        start..(start + FILL_CHUNK as u64).min(range.end)
    })
}

impl Choices<'_> {
    /// The choices of the indices this process holds at the numbers `range` of `layout`,
    /// in the layout's order.
    fn own_choices(&self, kind: Kind, layout: &Layout, range: Range<u64>) -> Vec<u16> {
        let me = self.peers.rank();
        let mut out = Vec::new();
        // The indices asked for and not yet read, oldest first.
        let mut ahead = VecDeque::with_capacity(PREFETCH_AHEAD);
        layout.for_each_index(self.index, range, |idx| {
            let Some(i) = idx.filter(|&i| self.owners.owner(i) == me) else {
                return;
            };
            self.prefetch(kind, i);
            if ahead.len() == PREFETCH_AHEAD {
                out.push(self.at(kind, ahead.pop_front().expect("full")));
            }
            ahead.push_back(i);
        });
        out.extend(ahead.into_iter().map(|i| self.at(kind, i)));
        out
    }

    /// The filled values of the jobs given to this process, in their order, empty for the
    /// others' (collective: every process passes the same jobs).
    pub(super) fn filled_at<S: Symbol>(
        &self,
        kind: Kind,
        jobs: &[Job],
        conversion_cost: u32,
    ) -> Vec<Vec<S>> {
        let (me, count) = (self.peers.rank(), self.peers.count());
        // To each process, per job of its: the count of this process's choices in each
        // chunk (4 bytes), then the choices (2 bytes).
        let mut outgoing = vec![Vec::new(); count];
        for job in jobs {
            let mine: Vec<Vec<u16>> = chunks(&job.range)
                .map(|r| self.own_choices(kind, job.layout, r))
                .collect();
            let out = &mut outgoing[job.to];
            put_all(out, mine.iter().map(|c| c.len() as u32));
            put_all(out, mine.iter().flatten().copied());
        }
        let received = self.peers.all_to_all(outgoing);
        let mine: Vec<&Job> = jobs.iter().filter(|j| j.to == me).collect();
        // Per job of this process, per sender: where in what the sender sent each chunk's
        // choices start (read in place: no copy of them is made).
        let mut from: Vec<Vec<Vec<usize>>> = vec![Vec::new(); mine.len()];
        for received in &received {
            let mut at = 0;
            for (job, from) in mine.iter().zip(&mut from) {
                let n = chunks(&job.range).len();
                let counts = &received[at..at + u32::BYTES * n];
                at += counts.len();
                let mut starts = Vec::with_capacity(n);
                for c in each::<u32>(counts) {
                    starts.push(at);
                    at += u16::BYTES * c as usize;
                }
                from.push(starts);
            }
        }
        let mut filled = vec![Vec::new(); jobs.len()];
        for ((job, from), k) in mine.iter().zip(from).zip(jobs_of(jobs, me)) {
            let len = (job.range.end - job.range.start) as usize;
            let mut out = vec![S::from_usize(0); len];
            out.par_chunks_mut(FILL_CHUNK)
                .zip(chunks(&job.range))
                .enumerate()
                .for_each(|(c, (out, range))| {
                    let mut next: Vec<usize> = from.iter().map(|starts| starts[c]).collect();
                    let mut choices = Vec::with_capacity(out.len());
                    job.layout.for_each_index(self.index, range, |idx| {
                        choices.push(match idx {
                            None => any(kind),
                            Some(i) => {
                                let sender = self.owners.owner(i);
                                let at = &mut next[sender];
                                let choice = u16::read(&received[sender][*at..]);
                                *at += u16::BYTES;
                                choice
                            }
                        });
                    });
                    fill_into(kind, &mut choices, conversion_cost, out);
                });
            filled[k] = out;
        }
        filled
    }

    /// The compressed bytes of each job, made by its process: at process 0, every job's;
    /// elsewhere, empty (collective).
    fn compressed_at_root<S: Symbol>(
        &self,
        kind: Kind,
        jobs: &[Job],
        opts: &WriteOptions,
    ) -> Vec<Vec<u8>> {
        let me = self.peers.rank();
        let filled = self.filled_at::<S>(kind, jobs, opts.conversion_cost);
        let streams: Vec<Vec<u8>> = filled
            .into_par_iter()
            .zip(jobs)
            .map(|(values, job)| match job.to == me {
                true => compress(kind, values, opts),
                false => Vec::new(),
            })
            .collect();
        // To process 0: this process's streams, each after its length.
        let mut outgoing = vec![Vec::new(); self.peers.count()];
        for k in jobs_of(jobs, me) {
            put_block(&mut outgoing[0], &streams[k]);
        }
        drop(streams);
        let received = self.peers.all_to_all(outgoing);
        if me != 0 {
            return vec![Vec::new(); jobs.len()];
        }
        let mut out = vec![Vec::new(); jobs.len()];
        for (sender, received) in received.iter().enumerate() {
            let mut said = Reader::new(received);
            for k in jobs_of(jobs, sender) {
                out[k] = said.block().to_vec();
            }
        }
        out
    }

    /// The compressed size of each job's values, known to every process (collective).
    pub(super) fn sizes_split(&self, kind: Kind, jobs: &[Job], opts: &WriteOptions) -> Vec<u64> {
        // This process's sizes, in the order of its jobs.
        let mine = match self.wide(kind) {
            true => self.sized::<u16>(kind, jobs, opts),
            false => self.sized::<u8>(kind, jobs, opts),
        };
        let mut sizes = vec![0; jobs.len()];
        for (sender, theirs) in self.peers.all_gather_words(&mine).iter().enumerate() {
            for (k, &size) in jobs_of(jobs, sender).zip(theirs) {
                sizes[k] = size;
            }
        }
        sizes
    }

    /// The compressed sizes of this process's jobs, in their order.
    fn sized<S: Symbol>(&self, kind: Kind, jobs: &[Job], opts: &WriteOptions) -> Vec<u64> {
        let me = self.peers.rank();
        let filled = self.filled_at::<S>(kind, jobs, opts.conversion_cost);
        (filled.into_par_iter().zip(jobs))
            .filter(|(_, job)| job.to == me)
            .map(|(values, _)| compress(kind, values, opts).len() as u64)
            .collect()
    }

    /// The filled values of the whole stream of `kind` in `layout`'s order, at process 0
    /// (empty elsewhere), their choices coming a batch of segments' worth at a time
    /// (collective).
    pub(super) fn whole_at_root<S: Symbol>(
        &self,
        kind: Kind,
        layout: &Layout,
        opts: &WriteOptions,
    ) -> Vec<S> {
        let (n, len, batch) = (layout.size(), 1u64 << opts.segment_log, batch(opts));
        assert!(len >= FILL_CHUNK as u64, "pieces of whole fill chunks");
        let mut values: Vec<S> = match self.peers.rank() {
            0 => Vec::with_capacity(n as usize),
            _ => Vec::new(),
        };
        for first in (0..n).step_by(batch as usize) {
            let jobs: Vec<Job> = pieces(first..n.min(first + batch), len)
                .map(|range| Job {
                    layout,
                    range,
                    to: 0,
                })
                .collect();
            for piece in self.filled_at::<S>(kind, &jobs, opts.conversion_cost) {
                values.extend_from_slice(&piece);
            }
        }
        values
    }

    /// The stream of `kind` in `layout`'s order, at process 0 (empty elsewhere): as
    /// `Choices::written` makes it, its work spread over the processes (collective).
    pub(super) fn written_split(
        &self,
        kind: Kind,
        layout: &Layout,
        opts: &WriteOptions,
    ) -> Vec<u8> {
        match self.wide(kind) {
            true => self.written_as::<u16>(kind, layout, opts),
            false => self.written_as::<u8>(kind, layout, opts),
        }
    }

    fn written_as<S: Symbol>(&self, kind: Kind, layout: &Layout, opts: &WriteOptions) -> Vec<u8> {
        let (n, log, count) = (layout.size(), opts.segment_log, self.peers.count());
        let (len, batch) = (1u64 << log, batch(opts));
        if !opts.is_cut(n) {
            let values = self.whole_at_root::<S>(kind, layout, opts);
            return match self.peers.rank() {
                0 => compress(kind, values, opts),
                _ => Vec::new(),
            };
        }
        assert!(len >= FILL_CHUNK as u64, "segments of whole fill chunks");
        // Each process a batch of segments at a time, in turn.
        let mut segments = Vec::new();
        for first in (0..n).step_by((batch * count as u64) as usize) {
            let jobs: Vec<Job> = pieces(first..n.min(first + batch * count as u64), len)
                .enumerate()
                .map(|(k, range)| Job {
                    layout,
                    range,
                    to: k % count,
                })
                .collect();
            segments.extend(self.compressed_at_root::<S>(kind, &jobs, opts));
        }
        match self.peers.rank() {
            0 => super::codec::join(n, log, segments),
            _ => Vec::new(),
        }
    }
}

/// The numbers of a stream filled at once: a batch of segments' worth.
fn batch(opts: &WriteOptions) -> u64 {
    opts.segments_at_once.max(1) as u64 * (1 << opts.segment_log)
}

/// The ranges of segments' length (`len`, from 0) that cover `range`.
fn pieces(range: Range<u64>, len: u64) -> impl Iterator<Item = Range<u64>> {
    (range.start.div_ceil(len)..range.end.div_ceil(len))
        .map(move |k| k * len..range.end.min((k + 1) * len))
}

/// The numbers of the jobs given to process `rank`, in order.
fn jobs_of<'a>(jobs: &'a [Job], rank: usize) -> impl Iterator<Item = usize> + 'a {
    (0..jobs.len()).filter(move |&k| jobs[k].to == rank)
}

#[cfg(test)]
mod tests {
    use super::super::writer::{write_table, write_table_sides, Sides};
    use super::super::{TableFile, TableStats, WriteOptions};
    use crate::index::TableIndex;
    use crate::material::Material;
    use crate::peers::{InProcess, Owners, Peers};
    use crate::progress::Silent;
    use crate::retro::{bitmap, solve, AllDrawn, ChessGame, Solution};
    use crate::side::{BySide, Side};
    use crate::value::{Dtm, LongDistances, Wdl};
    use std::ops::Range;

    /// The indices `own` of `s` (a whole solution), as a process holding them alone has
    /// them: bitmaps from the share's first index (a multiple of 64).
    fn share(s: &Solution, own: Range<u64>) -> Solution {
        let at = own.start as usize..own.end as usize;
        let words = |b: &[u64]| b[at.start / 64..at.end.div_ceil(64).min(b.len())].to_vec();
        let sides = |m: &BySide<Vec<u64>>| m.as_ref().map(|b| words(b));
        let long = |l: &LongDistances| {
            let listed = l.entries().iter().filter(|(i, _)| own.contains(i));
            LongDistances::new(listed.copied().collect())
        };
        Solution {
            first: own.start,
            values: s.values.as_ref().map(|v| v[at.clone()].to_vec()),
            illegal: sides(&s.illegal),
            exit_decides: sides(&s.exit_decides),
            exit_same_wdl: sides(&s.exit_same_wdl),
            longest_exit: s.longest_exit,
            cursed: sides(&s.cursed),
            exit_cursed: sides(&s.exit_cursed),
            long: s.long.as_ref().map(long),
        }
    }

    /// `s` whole, as a process that holds the indices `owners` gives `rank` sees it: the
    /// values of the others changed to draws.
    fn others_changed(s: &Solution, owners: &Owners, rank: usize) -> Solution {
        let mut mine = s.clone();
        for (_, values) in mine.values.iter_mut() {
            for (idx, v) in values.iter_mut().enumerate() {
                if owners.owner(idx as u64) != rank {
                    *v = 0;
                }
            }
        }
        mine
    }

    /// Three processes (threads), each holding its share of a solution alone, write the
    /// file one process writes from the whole: streams whole and cut into segments (more
    /// segments than processes, and a batch of several each), layouts sampled, 50-move
    /// classes and distances beyond 255 moves among the values; a table of one part and
    /// one of several (pawns), whose processes hold a share of each part, the values of
    /// the others' shares changed (read, they would change the file); each process with
    /// its own count of segments compressed at once.
    #[test]
    fn a_table_written_by_three_processes_is_the_one_process_table() {
        for m in ["KRvKN", "KRvKP"] {
            written_by_three_is_written_by_one(m.parse().unwrap());
        }
    }

    fn written_by_three_is_written_by_one(m: Material) {
        let index = TableIndex::new(m);
        let mut s = solve(&ChessGame::new(index.clone(), &AllDrawn), &Silent);
        let n = index.size() as usize;
        // Classes and long distances the writer reads as it would the rule's and the
        // solver's: some wins and losses cursed, some exits too, some wins 300 moves long
        // (in the first process's share alone).
        let decided =
            |s: &Solution, side: Side, i: usize| s.value(side, i as u64).0.wdl() != Wdl::Draw;
        for side in Side::ALL {
            s.cursed[side] = bitmap(n, |i| decided(&s, side, i) && i % 7 == 0);
            s.exit_cursed[side] = bitmap(n, |i| i % 5 == 0);
        }
        let first = Owners::new(&index.parts(), 3);
        for side in Side::ALL {
            let won = |i: usize| matches!(s.value(side, i as u64).0, Dtm::Win(_));
            let long: Vec<(u64, u32)> = (0..n)
                .filter(|&i| won(i) && i % 11 == 0 && first.owner(i as u64) == 0)
                .map(|i| (i as u64, 599))
                .collect();
            for &(i, _) in &long {
                s.values[side][i as usize] = Dtm::LONG;
            }
            s.long[side] = LongDistances::new(long);
        }
        assert!(s.cursed.white.iter().any(|&w| w != 0));
        assert!(s.long.iter().any(|(_, l)| !l.entries().is_empty()), "{m}");
        let stats = TableStats::default();
        for (whole_log, segment_log, segments_at_once) in [(28, 25, 2), (20, 16, 2)] {
            let opts = WriteOptions {
                whole_log,
                segment_log,
                segments_at_once,
                ..WriteOptions::default()
            };
            let one = tempfile::tempdir().unwrap();
            let (path, _) = write_table(one.path(), &m, s.clone(), stats, &opts).unwrap();
            let want = std::fs::read(&path).unwrap();
            let three = tempfile::tempdir().unwrap();
            let parts = index.parts();
            let owners = Owners::new(&parts, 3);
            std::thread::scope(|scope| {
                for p in InProcess::group(3) {
                    let (s, opts, dir, owners) = (&s, &opts, three.path(), &owners);
                    let parts = &parts;
                    scope.spawn(move || {
                        let mine = match parts.len() {
                            1 => share(s, owners.of(p.rank())[0].clone()),
                            _ => others_changed(s, owners, p.rank()),
                        };
                        // Each with its own count of segments at once (its threads).
                        let opts = WriteOptions {
                            segments_at_once: opts.segments_at_once + p.rank(),
                            ..opts.clone()
                        };
                        let phases = &mut crate::phases::Phases::unread();
                        write_table_sides(
                            dir,
                            &m,
                            mine,
                            Sides::Whole,
                            None,
                            stats,
                            &opts,
                            &p,
                            phases,
                        )
                        .unwrap();
                    });
                }
            });
            let got = std::fs::read(three.path().join(path.file_name().unwrap())).unwrap();
            let file = TableFile::open(&path).unwrap();
            assert_eq!(file.header().segmented, whole_log == 20, "{m}");
            assert!(
                got == want,
                "{m}, segments of 2^{segment_log}: the files differ"
            );
        }
    }
}
