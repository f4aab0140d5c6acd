//! `retrobook book build | probe | merge | export | backup`.

use super::progress;
use crate::output::{runtime, say, usage, Failure, Failures};
use crate::shown::{book_json, Shown};
use indicatif::ProgressBar;
use retrobook::book::evals::{evals_path, Evals};
use retrobook::book::rules::{Chess, Xiangqi};
use retrobook::book::{
    analyse, backup, build, AnalyseOptions, Backup, BackupSummary, Book, BookError, BuildOptions,
    BuildSummary,
};
use retrobook::progress::Observer;
use retrobook::Game;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Progress of a book command on stderr: the phase and its steps (a build's steps are
/// input bytes, with an ETA when the input sizes are known), then the games read so far.
struct BookBar {
    bar: ProgressBar,
    games: AtomicU64,
}

impl BookBar {
    fn new(bar: ProgressBar) -> BookBar {
        BookBar {
            bar,
            games: AtomicU64::new(0),
        }
    }
}

impl Observer for BookBar {
    fn pass(&self, name: &str, total: u64) {
        if total > 0 {
            self.bar.set_length(total);
        }
        self.bar.set_position(0);
        self.bar.set_message(name.to_string());
    }
    fn advance(&self, n: u64) {
        self.bar.inc(n);
    }
    fn items(&self, n: u64) {
        let games = self.games.fetch_add(n, Relaxed) + n;
        self.bar.set_message(format!("{games} games"));
    }
}

fn summary_json(s: &BuildSummary, out: &Path) -> serde_json::Value {
    let skipped: serde_json::Map<String, serde_json::Value> = s
        .skipped
        .iter()
        .map(|(reason, (n, first))| (reason.to_string(), json!({"games": n, "first": first})))
        .collect();
    json!({
        "book": out.display().to_string(),
        "games_read": s.games_read,
        "games_used": s.games_used,
        "skipped": skipped,
        "entries": s.entries,
        "bytes": s.bytes,
        "runs_spilled": s.runs,
    })
}

/// `book build`.
pub fn cmd_build(
    archives: &[PathBuf],
    out: &Path,
    opts: &BuildOptions,
    json: bool,
) -> Result<(), Failure> {
    if archives.is_empty() {
        return Err(usage(
            "book build needs at least one archive (or - for stdin)",
        ));
    }
    for a in archives {
        match std::fs::metadata(a) {
            _ if a == Path::new("-") => {}
            Ok(m) if m.is_dir() => {
                return Err(runtime(format!(
                    "{}: a folder, not an archive (name its files)",
                    a.display()
                )))
            }
            // A regular file, or a pipe (`<(zstdcat ...)`).
            Ok(_) => {}
            Err(e) => return Err(runtime(format!("{}: {e}", a.display()))),
        }
    }
    #[cfg(feature = "mpi")]
    if let Some(cluster) = retrobook::cluster::Cluster::join() {
        return build_across(cluster, archives, out, opts, json);
    }
    let progress = build_bar(json);
    let summary = build(archives, out, opts, &progress).map_err(runtime)?;
    progress.bar.finish_and_clear();
    report_build(&summary, out, json, None)
}

/// The progress of a build on stderr, unless JSON is asked for.
fn build_bar(json: bool) -> BookBar {
    BookBar::new(progress::bar(
        None,
        !json,
        "[{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}), {msg}  {elapsed} elapsed, ETA {eta}",
    ))
}

/// A build's summary on stdout; for a build across processes, their number and the
/// bytes they sent one another.
fn report_build(
    summary: &BuildSummary,
    out: &Path,
    json: bool,
    across: Option<(u32, u64)>,
) -> Result<(), Failure> {
    if json {
        let mut o = summary_json(summary, out);
        if let Some((processes, bytes)) = across {
            o["processes"] = json!(processes);
            o["bytes_exchanged"] = json!(bytes);
        }
        return say(o);
    }
    say(format!(
        "{}: {} games read, {} used, {} skipped; {} entries, {} bytes",
        out.display(),
        summary.games_read,
        summary.games_used,
        summary.games_read - summary.games_used,
        summary.entries,
        summary.bytes
    ))?;
    for (reason, (n, first)) in &summary.skipped {
        say(format!("  skipped {n:>8}  {reason} (first at {first})"))?;
    }
    if let Some((processes, bytes)) = across {
        say(format!(
            "  built by {processes} processes, {bytes} bytes of entries sent between them"
        ))?;
    }
    Ok(())
}

/// `book build` as one process of an MPI job: rank 0 shows the progress and the summary;
/// a process that fails names itself and ends the job.
#[cfg(feature = "mpi")]
fn build_across(
    cluster: retrobook::cluster::Cluster,
    archives: &[PathBuf],
    out: &Path,
    opts: &BuildOptions,
    json: bool,
) -> Result<(), Failure> {
    if archives.iter().any(|a| a == Path::new("-")) {
        return Err(usage(
            "a build across processes reads files, not stdin (-): every process reads them",
        ));
    }
    let progress = build_bar(json || !cluster.is_root());
    let peers = retrobook::cluster::peers::MpiPeers::new(cluster);
    match retrobook::book::split::build(&peers, archives, out, opts, &progress) {
        Ok(None) => Ok(()),
        Ok(Some(s)) => {
            progress.bar.finish_and_clear();
            report_build(&s.build, out, json, Some((s.processes, s.bytes_sent)))
        }
        Err(e) => {
            let cluster = peers.cluster();
            eprintln!(
                "retrobook: process {} of {}: {e}",
                cluster.rank(),
                cluster.size()
            );
            cluster.abort(1)
        }
    }
}

/// The progress of a book command in steps (positions, entries) with an ETA, on stderr
/// unless JSON is asked for.
fn steps_bar(json: bool) -> BookBar {
    BookBar::new(progress::bar(
        None,
        !json,
        "{msg:<7} [{bar:30}] {human_pos}/{human_len}  {elapsed} elapsed, ETA {eta}",
    ))
}

/// `book analyse`.
pub fn cmd_analyse(book: &Path, opts: &AnalyseOptions, json: bool) -> Result<(), Failure> {
    let progress = steps_bar(json);
    let s = analyse(book, opts, &progress).map_err(runtime)?;
    progress.bar.finish_and_clear();
    let evals = evals_path(book);
    if json {
        return say(json!({
            "evals": evals.display().to_string(),
            "engine": s.engine,
            "limit": opts.limit.to_string(),
            "positions": s.positions,
            "earlier": s.earlier,
            "analysed": s.analysed,
            "retried": s.retried,
            "skipped": s.skipped,
            "first_failure": s.first_failure,
            "bytes": s.bytes,
            "seconds": s.seconds,
        }));
    }
    say(format!(
        "{}: {} positions with at least {} games, {} analysed by {} at {}, {} from before, \
         {} skipped ({} asked again); {} bytes; {:.1} s",
        evals.display(),
        s.positions,
        opts.min_games,
        s.analysed,
        s.engine,
        opts.limit,
        s.earlier,
        s.skipped,
        s.retried,
        s.bytes,
        s.seconds
    ))?;
    if let Some(f) = &s.first_failure {
        say(format!("  first failure: {f}"))?;
    }
    Ok(())
}

/// A back-up in words, for the text output.
fn backup_text(b: Option<Backup>) -> String {
    b.map_or("value -".into(), |b| {
        let mark = if b.path_dependent {
            " (path-dependent)"
        } else {
            ""
        };
        format!("value {:.1}%{mark}", 100.0 * b.value())
    })
}

/// `book probe`: positions of `game` (default: the book's game).
pub fn cmd_probe(
    fens: &[String],
    book: &Path,
    game: Option<Game>,
    json: bool,
) -> Result<(), Failure> {
    let book = Book::open(book).map_err(runtime)?;
    let evals = Evals::beside(book.path()).map_err(runtime)?;
    let found = book.info().game;
    let game = game.unwrap_or(found);
    if game != found {
        return Err(runtime(BookError::WrongGame {
            path: book.path().to_path_buf(),
            found,
            expected: game,
        }));
    }
    match game {
        Game::Chess => probe_all::<Chess>(fens, &book, evals.as_ref(), json),
        Game::Xiangqi => probe_all::<Xiangqi>(fens, &book, evals.as_ref(), json),
    }
}

/// `book probe` by the rules `R`.
fn probe_all<R: Shown>(
    fens: &[String],
    book: &Book,
    evals: Option<&Evals>,
    json: bool,
) -> Result<(), Failure> {
    let mut failures = Failures::default();
    for fen in fens {
        let Some(pos) = failures.read(fen, R::read(fen).map_err(|e| other_game::<R>(fen, e, book)))
        else {
            continue;
        };
        let a = book.probe_by::<R>(&pos);
        let shown = book_json::<R>(fen, &pos, &a, evals);
        if json {
            say(shown)?;
            continue;
        }
        say(format!(
            "{fen}\n  key 0x{:016x}, {} games, {} ended by threefold repetition, {}",
            a.key,
            a.games,
            a.threefold,
            backup_text(a.backup)
        ))?;
        if let Some(e) = &shown.eval {
            say(format!(
                "  engine {} at depth {}, best {}, line {}  ({}, {})",
                e.score,
                e.depth,
                e.best,
                e.line.join(" "),
                e.engine,
                e.limit
            ))?;
        }
        for m in &a.moves {
            let e = &m.entry;
            say(format!(
                "  {:<8} {:>8} games  +{} ={} -{}  score {:.1}%  goodness {:.3}  repetitions {}  {}",
                R::text(&pos, &m.mv),
                e.games,
                e.win,
                e.draw,
                e.loss,
                100.0 * m.score(),
                m.goodness(),
                e.repeats,
                backup_text(e.backup)
            ))?;
        }
    }
    failures.end(fens.len())
}

/// Why `fen` cannot be read by the rules of `book`'s game (`R`): `e`, or that it is a
/// position of the other game.
fn other_game<R: Shown>(fen: &str, e: String, book: &Book) -> String {
    let (ours, theirs) = match R::GAME {
        Game::Chess => ("chess", Xiangqi::read(fen).ok().map(|_| "xiangqi")),
        Game::Xiangqi => ("xiangqi", Chess::read(fen).ok().map(|_| "chess")),
    };
    match theirs {
        Some(theirs) => format!(
            "a {theirs} position, but {} is a {ours} book",
            book.path().display()
        ),
        None => e,
    }
}

/// `book merge`.
pub fn cmd_merge(books: &[PathBuf], out: &Path) -> Result<(), Failure> {
    let (entries, bytes) = retrobook::book::merge(books, out).map_err(runtime)?;
    say(format!(
        "{}: merged {} books, {entries} entries, {bytes} bytes",
        out.display(),
        books.len()
    ))
}

/// `book export`.
pub fn cmd_export(format: &str, book: &Path, out: &Path) -> Result<(), Failure> {
    if format != "polyglot" {
        return Err(usage(format!(
            "unknown export format {format:?} (known: polyglot)"
        )));
    }
    let book = Book::open(book).map_err(runtime)?;
    let n = retrobook::book::polyglot::export(&book, out).map_err(runtime)?;
    say(format!("{}: {n} Polyglot entries", out.display()))
}

fn backup_json_summary(s: &BackupSummary, book: &Path) -> serde_json::Value {
    json!({
        "book": book.display().to_string(),
        "positions": s.positions,
        "unreached": s.unreached,
        "edges": s.edges,
        "leaf_moves": s.leaf_moves,
        "cyclic_components": s.cyclic_components,
        "largest_component": s.largest_component,
        "path_dependent": s.path_dependent,
        "entries_valued": s.entries_valued,
        "start_value": s.start_value.map(|v| f64::from(v) / 1000.0),
        "bytes": s.bytes,
        "seconds": s.seconds,
    })
}

/// `book backup`.
pub fn cmd_backup(book: &Path, min_games: u32, json: bool) -> Result<(), Failure> {
    let progress = steps_bar(json);
    let s = backup(book, min_games, &progress).map_err(runtime)?;
    progress.bar.finish_and_clear();
    if json {
        return say(backup_json_summary(&s, book));
    }
    let start = s.start_value.map_or("not in the book".to_string(), |v| {
        format!("{:.1}% for the first player", f64::from(v) / 10.0)
    });
    say(format!(
        "{}: {} positions, {} edges ({} to leaves), {} cyclic components (largest {} positions), \
         {} path-dependent positions, {} entries valued, {} unreached; start position {start}; {:.2} s",
        book.display(),
        s.positions,
        s.edges,
        s.leaf_moves,
        s.cyclic_components,
        s.largest_component,
        s.path_dependent,
        s.entries_valued,
        s.unreached,
        s.seconds
    ))
}
