//! Engine values for a book's positions, found off-line (`book analyse`): a UCI engine is
//! asked about every position the book reaches from the start position with at least
//! `min_games` games, most played first, one engine process per thread, and its score,
//! depth, best move and line are kept per position (`evals`).
//!
//! Each position is searched to a fixed depth or node count by an engine started for it, on
//! one thread with the hash given, so that the answer is the one the same engine gives
//! alone on that position with those settings, whatever the order and the threads. (An
//! engine kept from position to position need not answer so: Stockfish's `ucinewgame`
//! clears its hash table but keeps the count of searches its entries are aged by, which
//! steers what the table keeps; a start costs about 50 ms of CPU.) An engine that dies,
//! hangs past
//! the time limit or answers out of form (a best move that is not legal, a line without
//! a score) is stopped and the position asked again of a new one; after a second failure
//! the position is skipped and counted, and the run goes on. Each answer is in the journal
//! before the next is asked, so a killed run resumes where it stopped.
//!
//! Not here: the engine's protocol (`crate::engine`), the file (`evals`).

use super::error::BookError;
use super::evals::{Eval, EvalsOf, Journal, LINE};
use super::graph::walk;
use super::reader::Book;
use super::rules::{BookRules, Chess, Xiangqi};
use crate::engine::{Analysis, Engine, EngineError, EngineSpec, Limit};
use crate::game::Game;
use crate::progress::Observer;
use crate::threads::{inner, lock};
use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What `book analyse` runs, and over which positions.
#[derive(Clone, Debug)]
pub struct AnalyseOptions {
    /// The engine's program and arguments (its options: `hash_mib` and one thread, after
    /// the game's own).
    pub program: std::path::PathBuf,
    /// Arguments of the program.
    pub args: Vec<String>,
    /// How far each position is searched.
    pub limit: Limit,
    /// Positions played in fewer games are left out.
    pub min_games: u32,
    /// Engine processes run at once, each on one thread.
    pub threads: usize,
    /// Each engine's hash table, in MiB.
    pub hash_mib: u32,
    /// The longest wait for one position's answer.
    pub timeout: Duration,
}

impl Default for AnalyseOptions {
    fn default() -> Self {
        AnalyseOptions {
            program: "stockfish".into(),
            args: Vec::new(),
            limit: Limit::Depth(12),
            min_games: 1,
            threads: 1,
            hash_mib: 16,
            timeout: Duration::from_secs(60),
        }
    }
}

/// What a run found and wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnalyseSummary {
    /// The engine's name.
    pub engine: String,
    /// Positions reached from the start position with at least `min_games` games.
    pub positions: u64,
    /// Of those, positions valued by an earlier run (its journal or evals file).
    pub earlier: u64,
    /// Positions valued by this run.
    pub analysed: u64,
    /// Positions asked again after an engine failed on them.
    pub retried: u64,
    /// Positions skipped after two failures.
    pub skipped: u64,
    /// The first failure, in words, if any.
    pub first_failure: Option<String>,
    /// Bytes of the evals file.
    pub bytes: u64,
    /// Wall time.
    pub seconds: f64,
}

/// Analyses the book at `book` with `opts` (see the module documentation) and writes its
/// evals file beside it. An engine that cannot be started at all ends the run with an
/// error, its finished work kept in the journal.
pub fn analyse(
    book: &Path,
    opts: &AnalyseOptions,
    progress: &dyn Observer,
) -> Result<AnalyseSummary, BookError> {
    let opened = Book::open(book)?;
    match opened.info().game {
        Game::Chess => analyse_as::<Chess>(&opened, opts, progress),
        Game::Xiangqi => analyse_as::<Xiangqi>(&opened, opts, progress),
    }
}

/// A position to analyse.
struct Asked<P> {
    key: u64,
    pos: P,
}

fn analyse_as<R: BookRules>(
    book: &Book,
    opts: &AnalyseOptions,
    progress: &dyn Observer,
) -> Result<AnalyseSummary, BookError>
where
    R::Position: Sync,
{
    let clock = Instant::now();
    let mut asked: Vec<(u32, Asked<R::Position>)> = Vec::new();
    walk::<R>(book, 1, progress, &mut |pos, key, own| {
        let games = book.entry(own).games;
        if games >= opts.min_games {
            let pos = pos.clone();
            asked.push((games, Asked { key, pos }));
        }
    })?;
    // Most played first; ties by key, so that every run asks in one order.
    asked.sort_by_key(|(games, a)| (std::cmp::Reverse(*games), a.key));
    let spec = spec::<R>(opts);
    // An engine that cannot start, or gives no name, ends the run before it begins.
    let engine = Engine::start(&spec).map_err(BookError::Engine)?.name();
    let info = book.info();
    let of = EvalsOf {
        book: (book.len() as u64, info.games),
        game: R::GAME,
        engine,
        limit: opts.limit,
    };
    let journal = Journal::open(book.path(), &of)?;
    let known: HashSet<u64> = journal.done().iter().map(|e| e.key).collect();
    let todo: Vec<&Asked<R::Position>> = asked
        .iter()
        .map(|(_, a)| a)
        .filter(|a| !known.contains(&a.key))
        .collect();
    let mut summary = AnalyseSummary {
        engine: of.engine.clone(),
        positions: asked.len() as u64,
        earlier: (asked.len() - todo.len()) as u64,
        ..Default::default()
    };
    progress.pass("analyse", todo.len() as u64);
    let run = Run {
        spec: &spec,
        limit: opts.limit,
        next: AtomicUsize::new(0),
        journal: Mutex::new(journal),
        stop: AtomicBool::new(false),
        fatal: Mutex::new(None),
        retried: AtomicU64::new(0),
        skipped: AtomicU64::new(0),
        analysed: AtomicU64::new(0),
        first_failure: Mutex::new(None),
    };
    std::thread::scope(|s| {
        for _ in 0..opts.threads.max(1) {
            let (run, todo) = (&run, &todo);
            s.spawn(move || run.work::<R>(todo, progress));
        }
    });
    if let Some(e) = inner(run.fatal) {
        return Err(e);
    }
    summary.bytes = inner(run.journal).finish()?;
    summary.analysed = run.analysed.into_inner();
    summary.retried = run.retried.into_inner();
    summary.skipped = run.skipped.into_inner();
    summary.first_failure = inner(run.first_failure);
    summary.seconds = clock.elapsed().as_secs_f64();
    Ok(summary)
}

/// The engine's start for game `R`: the game's options, then one thread and the hash.
fn spec<R: BookRules>(opts: &AnalyseOptions) -> EngineSpec {
    let game = R::ENGINE_OPTIONS
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()));
    let ours = [
        ("Threads".to_string(), "1".to_string()),
        ("Hash".to_string(), opts.hash_mib.to_string()),
    ];
    EngineSpec {
        program: opts.program.clone(),
        args: opts.args.clone(),
        options: game.chain(ours).collect(),
        timeout: opts.timeout,
    }
}

/// A run's shared state: the positions handed out, the journal, and the counts.
struct Run<'a> {
    spec: &'a EngineSpec,
    limit: Limit,
    next: AtomicUsize,
    journal: Mutex<Journal>,
    /// Set when a thread met an error that ends the run.
    stop: AtomicBool,
    fatal: Mutex<Option<BookError>>,
    retried: AtomicU64,
    skipped: AtomicU64,
    analysed: AtomicU64,
    first_failure: Mutex<Option<String>>,
}

impl Run<'_> {
    /// One thread's work: positions in turn, each asked of an engine started for it.
    fn work<R: BookRules>(&self, todo: &[&Asked<R::Position>], progress: &dyn Observer) {
        while !self.stop.load(Relaxed) {
            let i = self.next.fetch_add(1, Relaxed);
            let Some(asked) = todo.get(i) else { break };
            let mut found = None;
            for attempt in 0..2 {
                let answer = match Engine::start(self.spec) {
                    Ok(mut engine) => ask::<R>(&mut engine, asked, self.limit),
                    Err(e @ EngineError::Start { .. }) => return self.end(BookError::Engine(e)),
                    Err(e) => Err(e),
                };
                match answer {
                    Ok(eval) => {
                        found = Some(eval);
                        break;
                    }
                    Err(err) => {
                        let mut first = lock(&self.first_failure);
                        first.get_or_insert_with(|| format!("{}: {err}", R::fen(&asked.pos)));
                        if attempt == 0 {
                            self.retried.fetch_add(1, Relaxed);
                        }
                    }
                }
            }
            match found {
                Some(eval) => {
                    // (The lock is let go before `end` takes another.)
                    let pushed = lock(&self.journal).push(eval);
                    if let Err(e) = pushed {
                        return self.end(e);
                    }
                    self.analysed.fetch_add(1, Relaxed);
                }
                None => {
                    self.skipped.fetch_add(1, Relaxed);
                }
            }
            progress.advance(1);
        }
    }

    /// Ends the run with `e` (the first such error is the one reported).
    fn end(&self, e: BookError) {
        self.stop.store(true, Relaxed);
        lock(&self.fatal).get_or_insert(e);
    }
}

/// The engine's value of the position `asked`, its moves checked and coded as the book codes
/// them.
fn ask<R: BookRules>(
    engine: &mut Engine,
    asked: &Asked<R::Position>,
    limit: Limit,
) -> Result<Eval, EngineError> {
    let pos = &asked.pos;
    let Analysis {
        score,
        depth,
        best,
        line,
    } = engine.analyse(&R::fen(pos), limit)?;
    let best = R::engine_move(pos, &best).ok_or_else(|| EngineError::Garbage {
        program: engine.program().to_path_buf(),
        what: format!("best move {best:?} is not legal in {}", R::fen(pos)),
    })?;
    // The line as far as its moves are legal.
    let mut at = pos.clone();
    let mut codes = Vec::new();
    for text in line.iter().take(LINE) {
        let Some(m) = R::engine_move(&at, text) else {
            break;
        };
        codes.push(R::encode(&m));
        at = R::play(&at, &m);
    }
    Ok(Eval {
        key: asked.key,
        score,
        depth: depth.min(u32::from(u16::MAX)) as u16,
        best: R::encode(&best),
        line: codes,
    })
}
