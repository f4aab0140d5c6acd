//! `book build` split across processes (`Peers`: an MPI job's, or threads' in tests).
//! Every process reads every archive
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

use super::build::{count, BuildOptions, BuildSummary, Share};
use super::format::ENTRY_LEN;
use super::pgn::SkipReason;
use super::runs::{merge_into, read_run, EntryStream, Runs};
use super::{BookError, BookInfo, BookWriter, Entry};
use crate::atomic_file::prepare_folder_of;
use crate::peers::Peers;
use crate::progress::Observer;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Entries sent to one process in one round of the exchange (1 MiB).
const CHUNK: usize = 1 << 15;

/// What a split build did, as rank 0 tells it.
#[derive(Clone, Debug)]
pub struct SplitSummary {
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

/// Builds the book `out` from `archives` across `peers` (each process calls it with the
/// same arguments; collective). Rank 0 writes the book and gets the summary; the others
/// get None. A process that fails returns its error, and its job is expected to end (the
/// others would wait for it in the next collective call).
pub fn build(
    peers: &dyn Peers,
    archives: &[PathBuf],
    out: &Path,
    opts: &BuildOptions,
    progress: &dyn Observer,
) -> Result<Option<SplitSummary>, BookError> {
    let (rank, size) = (peers.rank() as u32, peers.count() as u32);
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
    if rank == 0 {
        // Before any game is read, so that a book that cannot be written fails at once.
        prepare_folder_of(out).map_err(|e| BookError::write(out, e))?;
    }
    let mut counted = count(archives, &own("rank"), &opts, progress)?;
    let mut received = Runs::new(&own("received"));
    let sent = {
        let (streams, _) = counted.streams(1)?;
        exchange(peers, streams, &mut received).map_err(|e| BookError::io(received.place(), e))?
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
    // Every process's summary, at rank 0 (the others read none).
    let reports = peers.all_gather(serde_json::to_vec(&mine).expect("a summary serialises"));
    let shares: Vec<Report> = (reports.iter())
        .map(|r| serde_json::from_slice(r).expect("a summary from a process of this job"))
        .collect();
    if rank != 0 {
        // This range's entries go to rank 0 in its turn, in rounds of `CHUNK` entries; in
        // the others' turns, this process takes part in their rounds.
        let mut sent_to_root = 0;
        let mut streams = Some(streams);
        for turn in 1..size {
            let mine = if turn == rank { streams.take() } else { None };
            let Some(streams) = mine else {
                while round_to_root(peers, Vec::new()).1 {}
                continue;
            };
            let mut chunk = Vec::with_capacity(CHUNK * ENTRY_LEN);
            merge_into(streams, opts.min_games, &mut |e| {
                chunk.extend_from_slice(&e.to_bytes());
                if chunk.len() == CHUNK * ENTRY_LEN {
                    sent_to_root += chunk.len() as u64;
                    round_to_root(peers, std::mem::take(&mut chunk));
                }
                Ok(())
            })
            .map_err(|e| BookError::io(received.place(), e))?;
            sent_to_root += chunk.len() as u64;
            if !chunk.is_empty() {
                round_to_root(peers, chunk);
            }
            // The round that carries nothing ends the turn.
            round_to_root(peers, Vec::new());
        }
        peers.all_gather_words(&[sent_to_root]);
        return Ok(None);
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
    // Then each other process's range, in rank order.
    for _turn in 1..size {
        loop {
            let (came, more) = round_to_root(peers, Vec::new());
            for b in came.chunks_exact(ENTRY_LEN) {
                writer
                    .push(&Entry::from_bytes(b))
                    .map_err(|e| BookError::write(out, e))?;
                entries += 1;
            }
            if !more {
                break;
            }
        }
    }
    let to_root: u64 = (peers.all_gather_words(&[0]).iter()).map(|w| w[0]).sum();
    let bytes_sent = shares.iter().map(|s| s.bytes_sent).sum::<u64>() + to_root;
    let info = BookInfo {
        game: opts.game,
        games: summary.games_used,
        max_ply: opts.max_ply,
        min_games: opts.min_games,
    };
    summary.entries = entries;
    summary.bytes = writer.finish(info).map_err(|e| BookError::write(out, e))?;
    Ok(Some(SplitSummary {
        build: summary,
        processes: size,
        bytes_sent,
    }))
}

/// One round of the entries' way to rank 0: `chunk` goes to rank 0 (empty from every
/// process but the one whose turn it is); rank 0 gets what came, and every process whether
/// the round carried any (collective).
fn round_to_root(peers: &dyn Peers, chunk: Vec<u8>) -> (Vec<u8>, bool) {
    let carried = !chunk.is_empty();
    let mut outgoing = vec![Vec::new(); peers.count()];
    outgoing[0] = chunk;
    let came = peers.all_to_all(outgoing).concat();
    (came, peers.any_of(&[carried])[0])
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
    peers: &dyn Peers,
    streams: Vec<EntryStream<'_>>,
    received: &mut Runs,
) -> io::Result<u64> {
    let size = peers.count();
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
        let me = peers.rank();
        let mut round = |outgoing: &mut Vec<Vec<u8>>, done: bool| -> io::Result<bool> {
            sent += (outgoing.iter().enumerate())
                .filter(|&(to, _)| to != me)
                .map(|(_, b)| b.len() as u64)
                .sum::<u64>();
            let parts = std::mem::replace(outgoing, vec![Vec::new(); size]);
            for (file, came) in files.iter_mut().zip(peers.all_to_all(parts)) {
                file.write_all(&came)?;
            }
            // Every process done: none is not.
            Ok(!peers.any_of(&[!done])[0])
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
    use super::*;
    use crate::peers::InProcess;
    use crate::progress::Silent;
    use crate::Threads;

    /// A book split across three processes (threads here, each with its peers) is the one
    /// process's book byte for byte, and its summary counts what the one process counted.
    #[test]
    fn a_book_split_three_ways_is_the_one_process_book() {
        let dir = tempfile::tempdir().unwrap();
        let openings = [
            "1. e4 e5 2. Nf3 Nc6",
            "1. d4 d5 2. c4 e6",
            "1. e4 c5 2. Nf3 d6",
        ];
        let mut pgn = String::new();
        for g in 0..60 {
            let result = ["1-0", "0-1", "1/2-1/2"][g % 3];
            let tail = ["3. Bb5 a6", "3. Nc3 Nf6", "3. d4 cxd4"][g / 20];
            let opening = openings[g % 3];
            pgn += &format!("[Event \"{g}\"]\n\n{opening} {tail} {result}\n\n");
        }
        let archive = dir.path().join("games.pgn");
        std::fs::write(&archive, pgn).unwrap();
        let archives = vec![archive];
        let opts = BuildOptions {
            min_games: 2,
            threads: Threads::new(1),
            ..Default::default()
        };
        let alone = dir.path().join("alone.bin");
        let one = crate::book::build::build(&archives, &alone, &opts, &Silent).unwrap();
        let split = dir.path().join("split.bin");
        let group = InProcess::group(3);
        let summaries: Vec<Option<SplitSummary>> = std::thread::scope(|s| {
            let handles: Vec<_> = (group.iter())
                .map(|p| s.spawn(|| build(p, &archives, &split, &opts, &Silent).unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(summaries[1].is_none() && summaries[2].is_none());
        let three = summaries[0].clone().unwrap();
        assert_eq!(
            std::fs::read(&split).unwrap(),
            std::fs::read(&alone).unwrap()
        );
        assert_eq!(three.processes, 3);
        assert!(three.bytes_sent > 0);
        let (a, b) = (&one, &three.build);
        assert_eq!(
            (a.games_read, a.games_used, a.entries, a.bytes),
            (b.games_read, b.games_used, b.entries, b.bytes)
        );
        // The tails that cannot follow their opening are skipped, alike.
        assert_eq!(a.skipped, b.skipped);
        assert!(a.games_used >= 30 && a.games_read == 60, "{a:?}");
    }

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
