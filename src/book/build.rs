//! Building a book from PGN archives: each archive is cut into pieces that worker threads
//! parse and replay (`pieces`), each game yields one record per position and per
//! (position, move) it reached (a repeated position counts once), records are gathered in
//! memory up to a budget, then sorted, summed and spilled as runs to disk; the runs are
//! merged into the book. Memory stays bounded whatever the archive size.
//!
//! Besides wins, draws and losses, a move's `repeats` counts the games that played it into
//! a position they had already reached, and a position's `repeats` the games through it
//! that ended in a draw whose final position occurred for the third time (positions told
//! apart as Polyglot keys tell them: pieces, side to move, castling rights, en-passant file
//! when a pawn stands ready to take). Every move of a game is checked, also past
//! `--max-ply`, so a game with an illegal move anywhere is skipped whole.

use super::archive::{open_archive, Tally};
use super::error::BookError;
use super::format::{BookInfo, Source};
use super::pgn::{PgnState, RawGame, SkipReason, Skipped};
use super::pieces::{parse_in_order, PIECE};
use super::records::{Batch, Record, Records, DRAW, LOSS, REPEATS, WIN};
use super::rules::{replay_from, BookRules, Chess, Xiangqi};
use super::runs::{merge_into, read_run, EntryStream, Runs};
use super::writer::BookWriter;
use crate::atomic_file::prepare_folder_of;
use crate::game::Game;
use crate::progress::Observer;
use crate::threads::Threads;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
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
    /// Threads reading and counting games.
    pub threads: Threads,
    /// The game the archives hold.
    pub game: Game,
    /// The games this process counts: all, or one process's share of a build split
    /// across processes.
    pub share: Share,
}

/// A share of the games of a build split across `parts` processes: each game goes to one
/// of them, by its archive and first line (which every reading of the archive agrees on,
/// however it is cut into pieces), so the shares' sums are the whole build's counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    /// This process's part, `0..parts`.
    pub part: u32,
    /// Processes sharing the build.
    pub parts: u32,
}

impl Default for Share {
    /// The whole build: every game.
    fn default() -> Self {
        Share { part: 0, parts: 1 }
    }
}

impl Share {
    /// Whether this share counts the game of archive number `archive` starting at `line`.
    pub fn owns(&self, archive: usize, line: u64) -> bool {
        if self.parts <= 1 {
            return true;
        }
        // SplitMix64's finaliser: lines a fixed number apart still spread over the parts.
        let mut z = ((archive as u64) << 48 ^ line).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        z % u64::from(self.parts) == u64::from(self.part)
    }
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            max_ply: 40,
            min_games: 1,
            min_elo: None,
            memory: 1 << 30,
            threads: Threads::PerCore,
            game: Game::Chess,
            share: Share::default(),
        }
    }
}

/// What a build read, used and skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildSummary {
    /// Games found in the archives (text with a tag pair or a final result), this
    /// process's share or not: an archive where none is found is not PGN.
    pub games_found: u64,
    /// Games read (of this process's share).
    pub games_read: u64,
    /// Games that went into the book.
    pub games_used: u64,
    /// Games skipped, by reason: count and the first one's location (`file:line: detail`).
    pub skipped: BTreeMap<SkipReason, (u64, String)>,
    /// Entries written.
    pub entries: u64,
    /// Book size in bytes.
    pub bytes: u64,
    /// Runs spilled to disk.
    pub runs: u64,
}

impl BuildSummary {
    fn skip(&mut self, reason: SkipReason, location: String) {
        let e = self.skipped.entry(reason).or_insert((0, location));
        e.0 += 1;
    }

    /// An error if no game could be counted (every one skipped): a book of nothing is a
    /// mistake to say, not a file to write.
    pub(crate) fn check_used(&self) -> Result<(), BookError> {
        if self.games_used > 0 {
            return Ok(());
        }
        let reasons: Vec<String> = self
            .skipped
            .iter()
            .map(|(reason, (n, first))| format!("{n} {reason}, first at {first}"))
            .collect();
        Err(BookError::NothingCounted {
            read: self.games_read,
            reasons: reasons.join("; "),
        })
    }

    fn absorb(&mut self, o: BuildSummary) {
        self.games_found += o.games_found;
        self.games_read += o.games_read;
        self.games_used += o.games_used;
        for (reason, (n, loc)) in o.skipped {
            let e = self.skipped.entry(reason).or_insert((0, loc));
            e.0 += n;
        }
    }
}

/// The outcome for white of `result`: 1 win, 0 draw, -1 loss; None for an unfinished game.
fn white_score(result: Option<&str>) -> Option<i8> {
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

/// Buffers a worker reuses from game to game.
#[derive(Default)]
struct Scratch {
    keys: Vec<u64>,
    moves: Vec<u16>,
    /// Keys of the positions since the last irreversible move (a capture, a pawn or
    /// soldier move): the only ones the final position can repeat. Keys tell the side to
    /// move apart.
    stretch: Vec<u64>,
}

/// The records of one game (each position and (position, move) once), or why it is
/// skipped. Every move of the game is checked, also past `max_ply`.
fn game_records<R: BookRules>(
    raw: &RawGame,
    opts: &BuildOptions,
    out: &mut Vec<Record>,
    scratch: &mut Scratch,
) -> Result<(), (SkipReason, String)> {
    let written = raw.recorded_result();
    let Some(white) = white_score(written) else {
        let r = written.unwrap_or("none");
        return Err((SkipReason::Unfinished(r.to_string()), String::new()));
    };
    if let Some(min) = opts.min_elo {
        if elo(raw, "WhiteElo").is_none_or(|e| e < min)
            || elo(raw, "BlackElo").is_none_or(|e| e < min)
        {
            return Err((SkipReason::BelowMinElo, String::new()));
        }
    }
    let skipped = |s: Skipped| (s.reason, format!("{}: {}", s.line, s.detail));
    let start = R::setup(raw).map_err(skipped)?;
    let plies = raw.moves().len().min(opts.max_ply as usize);
    let Scratch {
        keys,
        moves,
        stretch,
    } = scratch;
    keys.clear();
    moves.clear();
    stretch.clear();
    let mut n = 0;
    let first_to_move = R::first_to_move(&start);
    let mut key = R::key(&start);
    replay_from::<R>(raw, start, |pos, m, next| {
        // Positions at plies 0..=plies, each seen before its move.
        if n <= plies {
            keys.push(key);
        }
        if n < plies {
            moves.push(R::encode(m));
        }
        // Only a draw can have ended by repetition: its keys are followed to the end.
        if white == 0 {
            if R::irreversible(pos, m) {
                stretch.clear();
            } else {
                stretch.push(key);
            }
        }
        if n < plies || white == 0 {
            key = R::key_after(key, pos, m, next);
        }
        n += 1;
    })
    .map_err(skipped)?;
    if keys.len() == plies {
        keys.push(key);
    }
    // The final position occurs for at least the third time: it and two before it.
    let threefold = white == 0 && stretch.iter().filter(|&&k| k == key).count() >= 2;
    let first = out.len();
    // Positions seen so far, as a 256-bit filter on their keys: most positions of a game
    // are new, and the filter says so without a scan.
    let mut filter = [0u64; 4];
    let bit = |key: u64| ((key >> 6) as usize & 3, 1u64 << (key & 63));
    let may_have_seen = |filter: &[u64; 4], key: u64| {
        let (w, b) = bit(key);
        filter[w] & b != 0
    };
    for ply in 0..=plies {
        let key = keys[ply];
        let mover_white = (ply % 2 == 0) == first_to_move;
        let result = match if mover_white { white } else { -white } {
            1 => WIN,
            0 => DRAW,
            _ => LOSS,
        };
        let seen = may_have_seen(&filter, key) && keys[..ply].contains(&key);
        if !seen {
            let (w, b) = bit(key);
            filter[w] |= b;
            out.push(Record::new(
                key,
                0,
                result | if threefold { REPEATS } else { 0 },
            ));
        }
        if ply < plies {
            let mv = moves[ply];
            let after = keys[ply + 1];
            let repeats = if may_have_seen(&filter, after) && keys[..=ply].contains(&after) {
                REPEATS
            } else {
                0
            };
            // Only a position seen before can have the move recorded already.
            let earlier = if seen {
                out[first..]
                    .iter_mut()
                    .find(|r| r.key == key && r.mv() == mv)
            } else {
                None
            };
            match earlier {
                Some(r) => r.code |= repeats,
                None => out.push(Record::new(key, mv, result | repeats)),
            }
        }
    }
    Ok(())
}

/// Reads the games of `bytes` on from `state` (and the game under way, `at_end`): their
/// records and what was read and skipped.
fn read_games<R: BookRules>(
    state: &mut PgnState,
    bytes: &[u8],
    at_end: bool,
    opts: &BuildOptions,
    (archive, name): (usize, &str),
) -> (Batch, BuildSummary) {
    thread_local! {
        /// The records of a piece before they are grouped: a buffer each thread keeps.
        static RECORDS: std::cell::RefCell<Vec<Record>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    RECORDS.with_borrow_mut(|records| {
        records.clear();
        let mut s = BuildSummary::default();
        let mut scratch = Scratch::default();
        let mut count = |raw: &RawGame| {
            if raw.looks_like_a_game() {
                s.games_found += 1;
            }
            if !opts.share.owns(archive, raw.line) {
                return;
            }
            s.games_read += 1;
            match game_records::<R>(raw, opts, records, &mut scratch) {
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
        };
        state.feed(bytes, &mut count);
        if at_end {
            state.end(&mut count);
        }
        (Batch::new(records), s)
    })
}

/// Bytes per piece for `archive`: [`PIECE`], smaller for small archives so that every thread
/// gets several pieces.
fn piece_size(archive: &Path, threads: usize) -> usize {
    let size = std::fs::metadata(archive).map_or(u64::MAX, |m| m.len());
    let per_thread = size / (threads as u64 * 16).max(1);
    per_thread.clamp(64 << 10, PIECE as u64) as usize
}

/// Builds the book `out` from `archives`, on `opts.threads` threads.
pub fn build(
    archives: &[PathBuf],
    out: &Path,
    opts: &BuildOptions,
    progress: &dyn Observer,
) -> Result<BuildSummary, BookError> {
    let mut counted = count(archives, out, opts, progress)?;
    counted.summary.check_used()?;
    let mut writer = BookWriter::create(out).map_err(|e| BookError::write(out, e))?;
    writer.set_sources(counted.sources.clone());
    let (streams, min_games) = counted.streams(opts.min_games)?;
    // On an error the writer, dropped unfinished, removes its temporary.
    let entries = merge_into(streams, min_games, &mut |e| writer.push(e))
        .map_err(|e| BookError::write(out, e))?;
    let info = BookInfo {
        game: opts.game,
        games: counted.summary.games_used,
        max_ply: opts.max_ply,
        min_games: opts.min_games,
    };
    let mut summary = counted.summary;
    summary.entries = entries;
    summary.bytes = writer.finish(info).map_err(|e| BookError::write(out, e))?;
    Ok(summary)
}

/// What the counting half of a build leaves: what was read and skipped, and the records
/// counted, partly in memory, partly spilled as runs next to the output.
pub(crate) struct Counted {
    pub(crate) summary: BuildSummary,
    records: Records,
    runs: Runs,
    /// The archives read, with the share counted.
    pub(crate) sources: Vec<Source>,
}

impl Counted {
    /// The entries counted, as sorted streams of summed entries, and the least games an
    /// entry needs once the streams are merged and summed: alone, the records can be
    /// filtered while they are summed, in parallel; with runs, only the merged sums can.
    pub(crate) fn streams(
        &mut self,
        min_games: u32,
    ) -> Result<(Vec<EntryStream<'_>>, u32), BookError> {
        let mut streams: Vec<EntryStream<'_>> = Vec::new();
        for f in &self.runs.files {
            streams.push(read_run(f).map_err(|e| BookError::io(f, e))?);
        }
        let keep = if streams.is_empty() { min_games } else { 1 };
        streams.push(Box::new(self.records.sort_and_sum(keep).map(Ok)));
        Ok((streams, min_games))
    }
}

/// Reads and counts the games of `archives` (this process's share of them), on
/// `opts.threads` threads, spilling runs next to `out`.
pub(crate) fn count(
    archives: &[PathBuf],
    out: &Path,
    opts: &BuildOptions,
    progress: &dyn Observer,
) -> Result<Counted, BookError> {
    opts.threads.run(|| match opts.game {
        Game::Chess => count_in_pool::<Chess>(archives, out, opts, progress),
        Game::Xiangqi => count_in_pool::<Xiangqi>(archives, out, opts, progress),
    })
}

/// `count`, in the pool of its threads, by the rules `R`.
fn count_in_pool<R: BookRules>(
    archives: &[PathBuf],
    out: &Path,
    opts: &BuildOptions,
    progress: &dyn Observer,
) -> Result<Counted, BookError> {
    // Before any game is read, so that an output folder that cannot be written fails at
    // once (the writer prepares it again later, for its own callers).
    prepare_folder_of(out).map_err(|e| BookError::write(out, e))?;
    let mut summary = BuildSummary::default();
    let mut records = Records::default();
    let mut runs = Runs::new(out);
    let mut sources = Vec::new();
    // A quarter of the budget for records: summing them into entries (32 bytes for 16) can
    // take up to twice that more while they are freed.
    let limit = (opts.memory / 4).max(1 << 20);
    let io_fail = |what: &Path, e: io::Error| BookError::io(what, e);
    let threads = rayon::current_num_threads();
    // Steps are input bytes as read (compressed bytes for compressed input); 0 for stdin.
    let total = archives
        .iter()
        .filter_map(|a| std::fs::metadata(a).ok())
        .map(|m| m.len())
        .sum();
    progress.pass("reading games", total);
    for (number, archive) in archives.iter().enumerate() {
        let tally = Arc::new(Tally::default());
        let reader =
            open_archive(archive, tally.clone(), R::GAME).map_err(|e| io_fail(archive, e))?;
        let name = archive.display().to_string();
        let mut reported = 0;
        let work = |mut state: PgnState, bytes: &[u8]| {
            let out = read_games::<R>(&mut state, bytes, false, opts, (number, &name));
            (out, state)
        };
        let finish =
            |mut state: PgnState| read_games::<R>(&mut state, &[], true, opts, (number, &name));
        let found_before = summary.games_found;
        let mut accept = |(batch, s): (Batch, BuildSummary)| {
            progress.items(s.games_read);
            summary.absorb(s);
            records.add(batch);
            let now = tally.bytes.load(Relaxed);
            progress.advance(now - reported);
            reported = now;
            if records.bytes() >= limit {
                runs.spill(&mut records)
                    .map_err(|e| io_fail(&runs.place(), e))?;
            }
            Ok(())
        };
        let mut read_error = None;
        parse_in_order(
            reader,
            threads,
            piece_size(archive, threads),
            &work,
            &finish,
            &mut accept,
            &mut |e, line| read_error = Some((e, line)),
        )?;
        // A damaged archive fails the build: what it decoded to near the damage cannot be
        // trusted, and a book silently missing the rest would look whole.
        if let Some((source, line)) = read_error {
            return Err(BookError::Archive {
                path: archive.clone(),
                line,
                source,
            });
        }
        if summary.games_found == found_before {
            return Err(BookError::NoGames {
                path: archive.clone(),
            });
        }
        sources.push(Source {
            bytes: tally.bytes.load(Relaxed),
            crc: tally.crc(),
            part: opts.share.part,
            parts: opts.share.parts,
        });
    }
    summary.runs = runs.files.len() as u64;
    Ok(Counted {
        summary,
        records,
        runs,
        sources,
    })
}
