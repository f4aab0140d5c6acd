//! Building a book from PGN archives: games are parsed and replayed in parallel, each game
//! yields one entry per position and per (position, move) it reached (a repeated position
//! counts once), entries are gathered in memory up to a budget, then sorted, summed and
//! spilled as runs to disk; the runs are merged into the book. Memory stays bounded whatever
//! the archive size.

use super::file::{BookInfo, BookWriter, Entry, ENTRY_LEN};
use super::pgn::{replay, PgnReader, RawGame};
use super::polyglot_key::polyglot_key;
use super::polyglot_move::encode_move;
use rayon::prelude::*;
use std::collections::{BTreeMap, BinaryHeap};
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Settings of a build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Plies of each game taken into the book (positions at plies 0..=max_ply).
    pub max_ply: u32,
    /// Entries with fewer games are left out of the book.
    pub min_games: u32,
    /// Games where either player's Elo tag is missing or lower are skipped.
    pub min_elo: Option<u32>,
    /// Memory for entries before they are spilled to disk, in bytes.
    pub memory: usize,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            max_ply: 40,
            min_games: 1,
            min_elo: None,
            memory: 1 << 30,
        }
    }
}

/// What a build read, used and skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildSummary {
    /// Games read.
    pub games_read: u64,
    /// Games that went into the book.
    pub games_used: u64,
    /// Games skipped, by reason: count and the first one's location (`file:line: detail`).
    pub skipped: BTreeMap<String, (u64, String)>,
    /// Entries written.
    pub entries: u64,
    /// Book size in bytes.
    pub bytes: u64,
    /// Runs spilled to disk.
    pub runs: u64,
}

impl BuildSummary {
    fn skip(&mut self, reason: String, location: String) {
        let e = self.skipped.entry(reason).or_insert((0, location));
        e.0 += 1;
    }

    fn absorb(&mut self, o: BuildSummary) {
        self.games_read += o.games_read;
        self.games_used += o.games_used;
        for (reason, (n, loc)) in o.skipped {
            let e = self.skipped.entry(reason).or_insert((0, loc));
            e.0 += n;
        }
    }
}

/// Told how far a build has come.
pub trait BuildProgress: Sync {
    /// `bytes` more input bytes read (compressed bytes for compressed input).
    fn bytes(&self, bytes: u64);
    /// `n` more games done.
    fn games(&self, n: u64);
}

/// Ignores progress.
pub struct NoProgress;

impl BuildProgress for NoProgress {
    fn bytes(&self, _: u64) {}
    fn games(&self, _: u64) {}
}

/// Counts the bytes read through it.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Relaxed);
        Ok(n)
    }
}

/// Opens an archive: a PGN file, a zstd-compressed `.zst` file, or `-` for stdin.
fn open_archive(path: &Path, count: Arc<AtomicU64>) -> io::Result<Box<dyn BufRead>> {
    if path == Path::new("-") {
        return Ok(Box::new(BufReader::new(io::stdin())));
    }
    let file = Counting {
        inner: File::open(path)?,
        count,
    };
    if path.extension().is_some_and(|e| e == "zst") {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            zstd::stream::read::Decoder::new(file)?,
        )))
    } else {
        Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
    }
}

/// The outcome for white: 1 win, 0 draw, -1 loss; None for an unfinished game.
fn white_score(raw: &RawGame) -> Option<i8> {
    let result = raw.result.as_deref().or(raw.tag("Result"));
    match result {
        Some("1-0") => Some(1),
        Some("0-1") => Some(-1),
        Some("1/2-1/2") => Some(0),
        _ => None,
    }
}

fn elo(raw: &RawGame, tag: &str) -> Option<u32> {
    raw.tag(tag)?.trim().parse().ok()
}

/// The entries of one game (each position and (position, move) once), or why it is skipped.
fn game_entries(
    raw: &RawGame,
    opts: &BuildOptions,
    out: &mut Vec<Entry>,
) -> Result<(), (String, String)> {
    let Some(white) = white_score(raw) else {
        let r = raw
            .result
            .as_deref()
            .or(raw.tag("Result"))
            .unwrap_or("none");
        return Err((format!("unfinished or no result ({r})"), String::new()));
    };
    if let Some(min) = opts.min_elo {
        if elo(raw, "WhiteElo").is_none_or(|e| e < min)
            || elo(raw, "BlackElo").is_none_or(|e| e < min)
        {
            return Err(("below --min-elo".into(), String::new()));
        }
    }
    let game =
        replay(raw).map_err(|s| (s.reason.to_string(), format!("{}: {}", s.line, s.detail)))?;
    let start = out.len();
    let mut pos = game.start;
    let plies = game.moves.len().min(opts.max_ply as usize);
    for ply in 0..=plies {
        let key = polyglot_key(&pos);
        let mover_white = pos.turn() == crate::chess::Color::White;
        let score = if mover_white { white } else { -white };
        let mut e = Entry {
            key,
            mv: 0,
            games: 1,
            ..Entry::default()
        };
        match score {
            1 => e.win = 1,
            0 => e.draw = 1,
            _ => e.loss = 1,
        }
        let seen =
            |out: &[Entry], k: u64, m: u16| out[start..].iter().any(|x| x.key == k && x.mv == m);
        if !seen(out, key, 0) {
            out.push(e);
        }
        if ply < plies {
            let m = &game.moves[ply];
            let code = encode_move(m);
            if !seen(out, key, code) {
                out.push(Entry { mv: code, ..e });
            }
            pos = pos.play(m);
        }
    }
    Ok(())
}

/// Sorts entries by (key, move) and sums equal ones, in place.
fn sort_and_sum(entries: &mut Vec<Entry>) {
    entries.par_sort_unstable_by_key(|e| (e.key, e.mv));
    let mut w = 0;
    for r in 0..entries.len() {
        if w > 0 && (entries[w - 1].key, entries[w - 1].mv) == (entries[r].key, entries[r].mv) {
            let e = entries[r];
            entries[w - 1].add(&e);
        } else {
            entries[w] = entries[r];
            w += 1;
        }
    }
    entries.truncate(w);
}

/// A sorted stream of entries: a run file or a book.
pub type EntryStream<'a> = Box<dyn Iterator<Item = io::Result<Entry>> + 'a>;

/// Reads a run file written by `spill`.
fn read_run(path: &Path) -> io::Result<EntryStream<'static>> {
    let mut r = BufReader::with_capacity(1 << 16, File::open(path)?);
    Ok(Box::new(std::iter::from_fn(move || {
        let mut b = [0u8; ENTRY_LEN];
        match r.read_exact(&mut b) {
            Ok(()) => Some(Ok(Entry::from_bytes(&b))),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => None,
            Err(e) => Some(Err(e)),
        }
    })))
}

/// Merges sorted streams, summing equal (key, move) entries, into `writer`, leaving out
/// entries with fewer than `min_games` games; returns the number written.
pub fn merge_into(
    streams: Vec<EntryStream<'_>>,
    writer: &mut BookWriter,
    min_games: u32,
) -> io::Result<u64> {
    let mut streams = streams;
    let mut heap = BinaryHeap::new();
    for (i, s) in streams.iter_mut().enumerate() {
        if let Some(e) = s.next() {
            let e = e?;
            heap.push(std::cmp::Reverse((e.key, e.mv, i, e)));
        }
    }
    let mut written = 0;
    let mut current: Option<Entry> = None;
    while let Some(std::cmp::Reverse((_, _, i, e))) = heap.pop() {
        if let Some(next) = streams[i].next() {
            let n = next?;
            heap.push(std::cmp::Reverse((n.key, n.mv, i, n)));
        }
        match &mut current {
            Some(c) if (c.key, c.mv) == (e.key, e.mv) => c.add(&e),
            _ => {
                if let Some(c) = current.replace(e) {
                    if c.games >= min_games {
                        writer.push(&c)?;
                        written += 1;
                    }
                }
            }
        }
    }
    if let Some(c) = current {
        if c.games >= min_games {
            writer.push(&c)?;
            written += 1;
        }
    }
    Ok(written)
}

/// Temporary run files next to the output, removed when dropped.
struct Runs {
    dir: PathBuf,
    files: Vec<PathBuf>,
}

impl Runs {
    fn new(out: &Path) -> Runs {
        let name = out
            .file_name()
            .map_or("book".into(), |n| n.to_string_lossy());
        Runs {
            dir: out.with_file_name(format!(".{name}.runs.{}", std::process::id())),
            files: Vec::new(),
        }
    }

    /// Sorts, sums and writes `entries` as one more run, then empties it.
    fn spill(&mut self, entries: &mut Vec<Entry>) -> io::Result<()> {
        sort_and_sum(entries);
        std::fs::create_dir_all(&self.dir)?;
        let path = self.dir.join(format!("run-{}", self.files.len()));
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        for e in entries.iter() {
            w.write_all(&e.to_bytes())?;
        }
        w.flush()?;
        self.files.push(path);
        entries.clear();
        Ok(())
    }
}

impl Drop for Runs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Games handed to the workers at a time.
const BATCH: usize = 512;

/// Builds the book `out` from `archives`.
pub fn build(
    archives: &[PathBuf],
    out: &Path,
    opts: &BuildOptions,
    progress: &dyn BuildProgress,
) -> Result<BuildSummary, String> {
    let mut summary = BuildSummary::default();
    let mut entries: Vec<Entry> = Vec::new();
    let mut runs = Runs::new(out);
    let limit = (opts.memory / 2 / ENTRY_LEN).max(1 << 16);
    let io_fail = |what: &Path, e: io::Error| format!("{}: {e}", what.display());
    for archive in archives {
        let count = Arc::new(AtomicU64::new(0));
        let reader = open_archive(archive, count.clone()).map_err(|e| io_fail(archive, e))?;
        let mut games = PgnReader::new(reader);
        let name = archive.display().to_string();
        let mut reported = 0;
        loop {
            let mut batch = Vec::with_capacity(BATCH * rayon::current_num_threads() * 2);
            for _ in 0..batch.capacity() {
                match games.next_game().map_err(|e| format!("{name}: {e}"))? {
                    Some(g) => batch.push(g),
                    None => break,
                }
            }
            if batch.is_empty() {
                break;
            }
            let parts: Vec<(Vec<Entry>, BuildSummary)> = batch
                .par_chunks(BATCH)
                .map(|chunk| {
                    let mut local = Vec::new();
                    let mut s = BuildSummary::default();
                    for raw in chunk {
                        s.games_read += 1;
                        match game_entries(raw, opts, &mut local) {
                            Ok(()) => s.games_used += 1,
                            Err((reason, detail)) => {
                                let at = if detail.is_empty() {
                                    format!("{name}:{}", raw.line)
                                } else {
                                    format!("{name}:{detail}")
                                };
                                s.skip(reason, at);
                            }
                        }
                    }
                    (local, s)
                })
                .collect();
            for (local, s) in parts {
                entries.extend_from_slice(&local);
                summary.absorb(s);
            }
            progress.games(batch.len() as u64);
            let now = count.load(Relaxed);
            progress.bytes(now - reported);
            reported = now;
            if entries.len() >= limit {
                runs.spill(&mut entries)
                    .map_err(|e| io_fail(&runs.dir, e))?;
            }
        }
    }
    summary.runs = runs.files.len() as u64;
    let mut writer = BookWriter::create(out).map_err(|e| io_fail(out, e))?;
    let result = (|| -> io::Result<u64> {
        let mut streams: Vec<EntryStream<'_>> = Vec::new();
        for f in &runs.files {
            streams.push(read_run(f)?);
        }
        sort_and_sum(&mut entries);
        streams.push(Box::new(entries.drain(..).map(Ok)));
        merge_into(streams, &mut writer, opts.min_games)
    })();
    match result {
        Ok(n) => {
            summary.entries = n;
            let info = BookInfo {
                games: summary.games_used,
                max_ply: opts.max_ply,
                min_games: opts.min_games,
            };
            summary.bytes = writer.finish(info).map_err(|e| io_fail(out, e))?;
            Ok(summary)
        }
        Err(e) => {
            writer.abandon();
            Err(io_fail(out, e))
        }
    }
}
