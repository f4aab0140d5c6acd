//! `book build` split across the processes of a job. Every process reads every archive
//! (with its threads, as one process does), but counts only its share of the games
//! (`Share`: a game goes to one process by its archive and first line; reading the text
//! is a small part of a build, replaying the moves and counting the rest). Each process
//! then sums its records into sorted entries, and the entries travel by key range: the
//! key space is cut into as many equal ranges as processes, and each process receives
//! every other's entries of its range, in rounds of at most `CHUNK` entries to each
//! process, spilled to files as they come. Each process merges and sums its range (the
//! `--min-games` filter applies to these whole sums), and rank 0 writes the book: its own
//! range, then each other process's in turn. The entries are the sums one process makes,
//! in the same order, so the book is byte for byte the one process's book.

use super::peers::{all_done, all_to_all_round, offsets, sizes};
use super::Cluster;
use crate::atomic_file::prepare_folder_of;
use crate::book::build::{count, BuildOptions, BuildSummary, Share};
use crate::book::format::ENTRY_LEN;
use crate::book::pgn::SkipReason;
use crate::book::runs::{merge_into, read_run, EntryStream, Runs};
use crate::book::{BookError, BookInfo, BookWriter, Entry};
use crate::progress::Observer;
use mpi::traits::*;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Entries sent to one process in one round of the exchange (1 MiB).
const CHUNK: usize = 1 << 15;

/// What a split build did, as rank 0 tells it.
#[derive(Clone, Debug)]
pub struct ClusterSummary {
    /// The whole build's summary (games read, used and skipped over all processes; the
    /// entries and bytes of the book).
    pub build: BuildSummary,
    /// Processes in the job.
    pub processes: u32,
    /// Bytes of entries sent from one process to another, in the exchange by key range
    /// and to rank 0 for writing.
    pub bytes_sent: u64,
}

/// What a process counted, for rank 0's summary.
#[derive(serde::Serialize, serde::Deserialize)]
struct Report {
    games_read: u64,
    games_used: u64,
    runs: u64,
    skipped: Vec<(SkipReason, u64, String)>,
    bytes_sent: u64,
}

/// The process that receives the entries of `key`: the key space in `size` equal ranges.
fn owner(key: u64, size: u32) -> usize {
    ((u128::from(key) * u128::from(size)) >> 64) as usize
}

/// Builds the book `out` from `archives` across the processes of `cluster` (each calls
/// it with the same arguments). Rank 0 writes the book and gets the summary; the others
/// get None. A process that fails says why and ends the job.
pub fn build(
    cluster: &Cluster,
    archives: &[PathBuf],
    out: &Path,
    opts: &BuildOptions,
    progress: &dyn Observer,
) -> Result<Option<ClusterSummary>, BookError> {
    let (rank, size) = (cluster.rank(), cluster.size());
    let opts = BuildOptions {
        share: Share {
            part: rank,
            parts: size,
        },
        ..opts.clone()
    };
    // Runs and received entries go to each machine's own temporary folder, not beside
    // the book: the book's folder may be shared by machines, whose disks would all write
    // to one place.
    let own = |what: &str| {
        let name = out
            .file_name()
            .map_or("book".into(), |n| n.to_string_lossy());
        std::env::temp_dir().join(format!("{name}.{what}{rank}"))
    };
    if cluster.is_root() {
        // Before any game is read, so that a book that cannot be written fails at once.
        prepare_folder_of(out).map_err(|e| BookError::write(out, e))?;
    }
    let mut counted = count(archives, &own("rank"), &opts, progress)?;
    let mut received = Runs::new(&own("received"));
    let sent = {
        let (streams, _) = counted.streams(1)?;
        exchange(cluster, streams, &mut received).map_err(|e| BookError::io(received.place(), e))?
    };
    let mut streams: Vec<EntryStream<'_>> = Vec::new();
    for f in &received.files {
        streams.push(read_run(f).map_err(|e| BookError::io(f, e))?);
    }
    let s = &counted.summary;
    let mine = Report {
        games_read: s.games_read,
        games_used: s.games_used,
        runs: s.runs,
        skipped: s
            .skipped
            .iter()
            .map(|(r, (n, at))| (r.clone(), *n, at.clone()))
            .collect(),
        bytes_sent: sent,
    };
    let world = cluster.world();
    let root = world.process_at_rank(0);
    if !cluster.is_root() {
        root.send(&serde_json::to_vec(&mine).expect("a summary serialises")[..]);
        let mut chunk = Vec::with_capacity(CHUNK * ENTRY_LEN);
        let mut sent_to_root = 0;
        merge_into(streams, opts.min_games, &mut |e| {
            chunk.extend_from_slice(&e.to_bytes());
            if chunk.len() == CHUNK * ENTRY_LEN {
                root.send(&chunk[..]);
                sent_to_root += chunk.len() as u64;
                chunk.clear();
            }
            Ok(())
        })
        .map_err(|e| BookError::io(received.place(), e))?;
        sent_to_root += chunk.len() as u64;
        if !chunk.is_empty() {
            root.send(&chunk[..]);
        }
        root.send(&[0u8; 0][..]);
        root.send(&sent_to_root);
        return Ok(None);
    }
    // Rank 0: every process's summary, then the book, range by range.
    let mut shares = vec![mine];
    for r in 1..size {
        let (bytes, _) = world.process_at_rank(r as i32).receive_vec::<u8>();
        shares.push(serde_json::from_slice(&bytes).expect("a summary from a process of this job"));
    }
    let mut summary = combine(&shares, archives);
    // Before the book is created: no book of nothing (the job then ends, as on any error).
    summary.check_used()?;
    let mut writer = BookWriter::create(out).map_err(|e| BookError::write(out, e))?;
    // The book counts every game of each archive, as one process's would.
    let whole = |s: &crate::book::Source| crate::book::Source {
        part: 0,
        parts: 1,
        ..s.clone()
    };
    writer.set_sources(counted.sources.iter().map(whole).collect());
    let mut entries = merge_into(streams, opts.min_games, &mut |e| writer.push(e))
        .map_err(|e| BookError::write(out, e))?;
    let mut bytes_sent: u64 = shares.iter().map(|s| s.bytes_sent).sum();
    for r in 1..size {
        let from = world.process_at_rank(r as i32);
        loop {
            let (chunk, _) = from.receive_vec::<u8>();
            if chunk.is_empty() {
                break;
            }
            for b in chunk.chunks_exact(ENTRY_LEN) {
                writer
                    .push(&Entry::from_bytes(b))
                    .map_err(|e| BookError::write(out, e))?;
                entries += 1;
            }
        }
        let (to_root, _) = from.receive::<u64>();
        bytes_sent += to_root;
    }
    let info = BookInfo {
        game: opts.game,
        games: summary.games_used,
        max_ply: opts.max_ply,
        min_games: opts.min_games,
    };
    summary.entries = entries;
    summary.bytes = writer.finish(info).map_err(|e| BookError::write(out, e))?;
    Ok(Some(ClusterSummary {
        build: summary,
        processes: size,
        bytes_sent,
    }))
}

/// The processes' summaries as one: sums, and for each reason of skipping the first game
/// in the archives' order (each process names its own first).
fn combine(shares: &[Report], archives: &[PathBuf]) -> BuildSummary {
    let mut all = BuildSummary::default();
    let order = |at: &str| {
        archives
            .iter()
            .enumerate()
            .find_map(|(i, a)| {
                let rest = at
                    .strip_prefix(&a.display().to_string())?
                    .strip_prefix(':')?;
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                Some((i, digits.parse::<u64>().ok()?))
            })
            .unwrap_or((usize::MAX, u64::MAX))
    };
    for s in shares {
        all.games_read += s.games_read;
        all.games_used += s.games_used;
        all.runs += s.runs;
        for (reason, n, at) in &s.skipped {
            let e = all.skipped.entry(reason.clone()).or_insert((0, at.clone()));
            e.0 += n;
            if order(at) < order(&e.1) {
                e.1 = at.clone();
            }
        }
    }
    all
}

/// Sends each entry of `streams` (sorted and summed) to the process of its key range,
/// and writes what the others send this one to `received` (a sorted file per sender);
/// returns the bytes sent to other processes. Rounds are collective: every process takes
/// part in each until all have sent everything.
fn exchange(
    cluster: &Cluster,
    streams: Vec<EntryStream<'_>>,
    received: &mut Runs,
) -> io::Result<u64> {
    let size = cluster.size() as usize;
    let dir = received.folder()?;
    let mut files = Vec::with_capacity(size);
    for from in 0..size {
        let path = dir.join(format!("from-{from}"));
        files.push(BufWriter::with_capacity(1 << 20, File::create(&path)?));
        received.files.push(path);
    }
    let mut outgoing: Vec<Vec<u8>> = vec![Vec::new(); size];
    let mut sent = 0u64;
    {
        let mut round = |outgoing: &mut Vec<Vec<u8>>, done: bool| -> io::Result<bool> {
            let parts: Vec<&[u8]> = outgoing.iter().map(|b| &b[..]).collect();
            let (incoming, incoming_counts) = all_to_all_round(cluster, &parts);
            let counts = sizes(&parts);
            let incoming_displs = offsets(&incoming_counts);
            for (from, file) in files.iter_mut().enumerate() {
                let at = incoming_displs[from] as usize;
                file.write_all(&incoming[at..at + incoming_counts[from] as usize])?;
            }
            let me = cluster.rank() as usize;
            sent += counts
                .iter()
                .enumerate()
                .filter(|&(to, _)| to != me)
                .map(|(_, &c)| c as u64)
                .sum::<u64>();
            outgoing.iter_mut().for_each(Vec::clear);
            Ok(all_done(cluster, done))
        };
        let mut buffered = 0;
        merge_into(streams, 1, &mut |e| {
            outgoing[owner(e.key, size as u32)].extend_from_slice(&e.to_bytes());
            buffered += 1;
            if buffered == CHUNK {
                buffered = 0;
                round(&mut outgoing, false)?;
            }
            Ok(())
        })?;
        while !round(&mut outgoing, true)? {}
    }
    for f in &mut files {
        f.flush()?;
    }
    Ok(sent)
}

#[cfg(test)]
mod tests {
    use super::owner;

    #[test]
    fn key_ranges_are_equal_and_in_order() {
        for size in 1..9u32 {
            assert_eq!(owner(0, size), 0);
            assert_eq!(owner(u64::MAX, size), size as usize - 1);
            let mut last = 0;
            for i in 0..1000u64 {
                let o = owner(i.wrapping_mul(u64::MAX / 1000), size);
                assert!(o >= last && o < size as usize);
                last = o;
            }
        }
    }
}
