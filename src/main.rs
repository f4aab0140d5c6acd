//! The `retrobook` command line: parses arguments, calls the library, prints results.
//! Exit status: 0 success, 1 runtime failure, 2 usage error.

mod cli;

use clap::{Parser, Subcommand};
use cli::plan::{Limit, Plan};
use indicatif::{MultiProgress, ProgressBar, ProgressState};
use retrobook::chess::{Color, Position};
use retrobook::generate::{estimate, generate, plan, remove_stale_temporaries, Report};
use retrobook::index::TableIndex;
use retrobook::material::{sort_for_generation, Material};
use retrobook::probe::verify_table;
use retrobook::retro::Observer;
use retrobook::table::{table_path, TableFile};
use retrobook::{Dtm, Tablebase};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    name = "retrobook",
    version,
    about = "Distance-to-mate endgame tables and opening books: generate, inspect, probe, verify, build"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build tables (sub-tables first). Without signatures: every table of up to 4 pieces.
    Gen {
        /// Signatures such as KQvKR.
        signatures: Vec<String>,
        /// Build every table of up to N pieces.
        #[arg(long, value_name = "N")]
        all: Option<u32>,
        #[arg(long, value_name = "DIR", default_value = "tables")]
        tables: PathBuf,
        /// Worker threads (default: all cores).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// Refuse to start if a table's estimated peak memory exceeds this many MiB
        /// (default: the memory available when the run starts).
        #[arg(long, value_name = "MIB")]
        memory: Option<u64>,
        /// Print the tables to build with their estimated time and peak memory, and stop.
        #[arg(long)]
        plan: bool,
        /// One JSON object per table on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Show a table's statistics (from its header).
    Info {
        /// A signature (KRvKN) or a table file.
        table: String,
        #[arg(long, value_name = "DIR", default_value = "tables")]
        tables: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Probe positions: value and every legal move's value, best first.
    Probe {
        /// Positions as FEN or EPD.
        #[arg(required = true)]
        fens: Vec<String>,
        #[arg(long, value_name = "DIR", default_value = "tables")]
        tables: PathBuf,
        /// One JSON object per position (JSON Lines).
        #[arg(long)]
        json: bool,
    },
    /// Re-check tables one ply deep against their successors. Without signatures: all tables.
    Verify {
        signatures: Vec<String>,
        #[arg(long, value_name = "DIR", default_value = "tables")]
        tables: PathBuf,
    },
    /// Opening books: build from PGN archives, probe, merge, export, back up values.
    #[command(subcommand)]
    Book(BookCommand),
    /// Explicit game graphs with repetitions (graph history interaction).
    #[command(subcommand)]
    Graph(GraphCommand),
}

#[derive(Subcommand)]
enum GraphCommand {
    /// Exact value of every node (or the root) from an empty history, and whether some path
    /// reaching it changes it.
    Solve {
        /// A graph file (`node`, `edge` and `repetition` lines).
        file: PathBuf,
        /// Report this node only.
        #[arg(long, value_name = "NODE")]
        root: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum BookCommand {
    /// Build a book from PGN archives (.pgn, .pgn.zst, or - for stdin).
    Build {
        #[arg(required = true)]
        archives: Vec<PathBuf>,
        #[arg(long, value_name = "FILE", default_value = cli::book::DEFAULT_BOOK)]
        out: PathBuf,
        /// Plies of each game taken into the book.
        #[arg(long, value_name = "N", default_value_t = 40)]
        max_ply: u32,
        /// Leave out moves and positions seen in fewer games.
        #[arg(long, value_name = "N", default_value_t = 1)]
        min_games: u32,
        /// Skip games unless both players' Elo tags are at least N.
        #[arg(long, value_name = "N")]
        min_elo: Option<u32>,
        /// Memory for statistics before spilling sorted runs to disk, in MiB.
        #[arg(long, value_name = "MIB", default_value_t = 1024)]
        memory: usize,
        /// Worker threads (default: all cores).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// The summary as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// The book's moves for positions, best first.
    Probe {
        #[arg(required = true)]
        fens: Vec<String>,
        #[arg(long, value_name = "FILE", default_value = cli::book::DEFAULT_BOOK)]
        book: PathBuf,
        /// One JSON object per position (JSON Lines).
        #[arg(long)]
        json: bool,
    },
    /// Merge books built from disjoint archives (exact sums).
    Merge {
        #[arg(required = true)]
        books: Vec<PathBuf>,
        #[arg(long, value_name = "FILE", required = true)]
        out: PathBuf,
    },
    /// Export a book to another format (Polyglot .bin).
    Export {
        /// Output format: polyglot.
        #[arg(long, value_name = "FORMAT")]
        format: String,
        #[arg(long, value_name = "FILE", default_value = cli::book::DEFAULT_BOOK)]
        book: PathBuf,
        #[arg(long, value_name = "FILE", required = true)]
        out: PathBuf,
    },
    /// Back values up through the book graph from the start position (negamax, repetitions
    /// scored as draws) and store them, with path-dependence marks, in the book.
    Backup {
        #[arg(long, value_name = "FILE", default_value = cli::book::DEFAULT_BOOK)]
        book: PathBuf,
        /// Follow only moves played in at least N games (others get no value).
        #[arg(long, value_name = "N", default_value_t = 1)]
        min_games: u32,
        /// The summary as one JSON object.
        #[arg(long)]
        json: bool,
    },
}

/// A failure to report: a message and an exit status.
struct Failure(String, u8);

fn runtime(msg: impl Into<String>) -> Failure {
    Failure(msg.into(), 1)
}

fn usage(msg: impl Into<String>) -> Failure {
    Failure(msg.into(), 2)
}

/// A failed write to stdout: a closed pipe (`retrobook ... | head`) ends the run quietly.
fn write_failed(e: std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Failure(String::new(), 0)
    } else {
        runtime(format!("cannot write the output: {e}"))
    }
}

/// Sizes the global worker pool from `--threads` (default: all cores).
fn set_threads(threads: Option<usize>) -> Result<(), Failure> {
    match threads {
        None => Ok(()),
        Some(0) => Err(usage("--threads must be at least 1")),
        Some(t) => rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .map_err(|e| runtime(e.to_string())),
    }
}

/// Writes one line to stdout.
fn say(line: impl std::fmt::Display) -> Result<(), Failure> {
    writeln!(std::io::stdout().lock(), "{line}").map_err(write_failed)
}

/// Keeps glibc's allocator from holding on to freed blocks of a megabyte or more: `gen`
/// packs and unpacks a table's sides in pieces of a few megabytes, and glibc, which raises
/// its threshold for mapping blocks apart as large ones are freed, would keep those pieces
/// in its heaps, fragmented (KRPvKR peaked 1,179 MiB instead of 910 MiB).
fn release_freed_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator; called before any thread
    // starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

fn main() -> ExitCode {
    release_freed_blocks();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            // One line, as for every other error: clap's first line without its "error: ".
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            eprintln!(
                "retrobook: {} (see retrobook --help)",
                first.trim_start_matches("error: ")
            );
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Gen {
            signatures,
            all,
            tables,
            threads,
            memory,
            plan,
            json,
        } => cmd_gen(&signatures, all, &tables, threads, memory, plan, json),
        Command::Info {
            table,
            tables,
            json,
        } => cmd_info(&table, &tables, json),
        Command::Probe { fens, tables, json } => cmd_probe(&fens, &tables, json),
        Command::Verify { signatures, tables } => cmd_verify(&signatures, &tables),
        Command::Book(BookCommand::Build {
            archives,
            out,
            max_ply,
            min_games,
            min_elo,
            memory,
            threads,
            json,
        }) => {
            let opts = retrobook::book::BuildOptions {
                max_ply,
                min_games,
                min_elo,
                memory: memory << 20,
            };
            cli::book::cmd_build(&archives, &out, &opts, threads, json)
        }
        Command::Book(BookCommand::Probe { fens, book, json }) => {
            cli::book::cmd_probe(&fens, &book, json)
        }
        Command::Graph(GraphCommand::Solve { file, root, json }) => {
            cli::graph::cmd_solve(&file, root.as_deref(), json)
        }
        Command::Book(BookCommand::Merge { books, out }) => cli::book::cmd_merge(&books, &out),
        Command::Book(BookCommand::Export { format, book, out }) => {
            cli::book::cmd_export(&format, &book, &out)
        }
        Command::Book(BookCommand::Backup {
            book,
            min_games,
            json,
        }) => cli::book::cmd_backup(&book, min_games, json),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(_, 0)) => ExitCode::SUCCESS,
        Err(Failure(msg, code)) => {
            eprintln!("retrobook: {msg}");
            ExitCode::from(code)
        }
    }
}

fn parse_signature(s: &str) -> Result<Material, Failure> {
    let m: Material = s
        .parse()
        .map_err(|e: retrobook::material::MaterialError| usage(e.to_string()))?;
    if m.is_bare_kings() {
        return Err(usage(format!(
            "{s}: two bare kings need no table (always a draw)"
        )));
    }
    Ok(m)
}

/// Progress on stderr: bars for an interactive terminal, lines for a log file.
struct Bars {
    multi: MultiProgress,
    total: ProgressBar,
    table: ProgressBar,
    log: Option<cli::progress::LogLines>,
    /// When the run is expected to end, as last estimated (none before an estimate).
    end: Arc<Mutex<Option<Instant>>>,
}

impl Bars {
    /// Bars (drawn when `show` and stderr is a terminal) for a run of `indices` indices in
    /// all (the whole run's ETA is weighted by table size, not by table count).
    fn new(show: bool, indices: u64) -> Bars {
        let multi = MultiProgress::with_draw_target(cli::progress::target(show));
        let total = multi.add(ProgressBar::new(indices));
        let end = Arc::new(Mutex::new(None::<Instant>));
        let expected = end.clone();
        // Time left counts down from each table's estimate, between tables too.
        let left = move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
            let Some(end) = *expected.lock().unwrap_or_else(|e| e.into_inner()) else {
                return;
            };
            let _ = match end.checked_duration_since(Instant::now()) {
                Some(d) => write!(w, ", about {} left", cli::plan::duration(d.as_secs_f64())),
                None => write!(w, ", past the estimate"),
            };
        };
        total.set_style(
            cli::progress::style(
                "{prefix:>8} [{bar:30}] {percent:>3}% of {human_len} indices  {elapsed} elapsed, {msg}{left}",
            )
            .with_key("left", left),
        );
        total.set_prefix("all");
        let table = multi.add(ProgressBar::new(1));
        // Passes count steps of their own (levels, chunks): a rate of them means nothing.
        table.set_style(cli::progress::style(
            "{prefix:>8} [{bar:30}] {msg:<24} {elapsed:>4} on it, ETA {eta}",
        ));
        // The bars move between updates too: a long level or a long write still shows time.
        total.enable_steady_tick(Duration::from_secs(1));
        table.enable_steady_tick(Duration::from_secs(1));
        Bars {
            multi,
            total,
            table,
            log: cli::progress::LogLines::new(show, Duration::from_secs(60)),
            end,
        }
    }

    /// Starts table `m`, the `i`-th of `n`, with `left` seconds expected left in the run.
    fn start(&self, m: &Material, i: usize, n: usize, left: Option<f64>) {
        self.table.set_prefix(m.to_string());
        self.table.reset();
        self.total.set_message(format!("table {i}/{n}"));
        *self.end.lock().unwrap_or_else(|e| e.into_inner()) =
            left.map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
        if let Some(log) = &self.log {
            log.start(&format!("{m} (table {i} of {n})"));
        }
    }
}

impl Observer for Bars {
    fn pass(&self, name: &str, total: u64) {
        self.table.set_length(total);
        self.table.set_position(0);
        self.table.reset_eta();
        self.table.set_message(name.to_string());
        if let Some(line) = self.log.as_ref().and_then(|l| l.pass_line(name)) {
            eprintln!("{line}");
        }
    }

    fn advance(&self, n: u64) {
        self.table.inc(n);
        let Some(log) = &self.log else { return };
        let steps = || (self.table.position(), self.table.length().unwrap_or(0));
        if let Some(line) = log.progress_line(steps) {
            eprintln!("{line}");
        }
    }
}

/// The header of the summary table `report_line` fills.
const REPORT_HEADER: &str =
    "table         indices  seconds  M idx/s  peak MiB       bytes  longest mate (plies)";

fn report_line(r: &Report) -> String {
    format!(
        "{:<8} {:>12} {:>8.2} {:>8.2} {:>9} {:>11}  {}",
        r.material.to_string(),
        r.indices,
        r.seconds,
        r.indices as f64 / r.seconds.max(1e-9) / 1e6,
        r.peak_memory >> 20,
        r.bytes,
        r.stats.max_plies
    )
}

fn report_json(r: &Report) -> serde_json::Value {
    json!({
        "signature": r.material.to_string(),
        "indices": r.indices,
        "seconds": r.seconds,
        "positions_per_second": r.indices as f64 / r.seconds.max(1e-9),
        "peak_memory_bytes": r.peak_memory,
        "bytes": r.bytes,
        "file": r.path.display().to_string(),
        "max_dtm_plies": r.stats.max_plies,
    })
}

fn cmd_gen(
    signatures: &[String],
    all: Option<u32>,
    dir: &Path,
    threads: Option<usize>,
    memory: Option<u64>,
    show_plan: bool,
    json: bool,
) -> Result<(), Failure> {
    set_threads(threads)?;
    let mut targets = Vec::new();
    for s in signatures {
        targets.push(parse_signature(s)?);
    }
    if let Some(n) = all {
        if !(3..=retrobook::material::MAX_PIECES).contains(&n) {
            return Err(usage(format!(
                "--all takes 3 to {} pieces, not {n}",
                retrobook::material::MAX_PIECES
            )));
        }
        targets.extend(Material::all_up_to(n));
    } else if signatures.is_empty() {
        targets.extend(Material::all_up_to(4));
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        runtime(format!(
            "cannot create tables folder {}: {e}",
            dir.display()
        ))
    })?;
    let mut tb = Tablebase::new();
    for problem in tb.add_dir_lenient(dir).map_err(runtime)? {
        eprintln!("retrobook: {problem}; it will be rebuilt");
    }
    let stale = remove_stale_temporaries(dir);
    if stale > 0 {
        eprintln!("retrobook: removed {stale} unfinished file(s) of an interrupted run");
    }
    let todo = plan(&targets, &tb);
    let estimates = Plan::new(&todo, &tb);
    let threads = rayon::current_num_threads();
    if show_plan {
        if json {
            estimates.json().try_for_each(say)?;
        } else if todo.is_empty() {
            say(format!(
                "nothing to build: every table asked for is in {}",
                dir.display()
            ))?;
        } else {
            estimates.lines(threads).try_for_each(say)?;
        }
        return Ok(());
    }
    let limit = Limit::new(memory);
    if let Some(msg) = limit.as_ref().and_then(|l| estimates.refused(l)) {
        return Err(runtime(msg));
    }
    let needed = plan(&targets, &Tablebase::new()).len();
    if !json && !todo.is_empty() {
        say(estimates.summary(threads, needed - todo.len()))?;
    }
    if let Some(warning) = limit.as_ref().and_then(|l| estimates.at_risk(l)) {
        eprintln!("retrobook: {warning}");
    }
    let bars = Bars::new(!json, estimates.indices());
    if !json && !todo.is_empty() {
        say(REPORT_HEADER)?;
    }
    let (mut total_secs, mut total_indices) = (0.0, 0u64);
    for (i, m) in todo.iter().enumerate() {
        bars.start(
            m,
            i + 1,
            todo.len(),
            Some(estimates.left(i, total_secs, threads)),
        );
        let e = estimate(*m, &tb);
        if let Some(l) = limit.as_ref().filter(|l| e.peak_bytes > l.bytes) {
            let kept = "the tables built before it are kept";
            return Err(runtime(cli::plan::over(*m, &e, l, kept)));
        }
        let report = generate(*m, &tb, dir, &bars).map_err(|e| {
            runtime(format!(
                "{e} (finished tables are kept; run the same command again to resume)"
            ))
        })?;
        tb.add_file(&report.path).map_err(runtime)?;
        total_secs += report.seconds;
        total_indices += report.indices;
        let line = if json {
            report_json(&report).to_string()
        } else {
            report_line(&report)
        };
        bars.multi.suspend(|| say(line))?;
        bars.total.inc(report.indices);
    }
    bars.table.finish_and_clear();
    bars.total.finish_and_clear();
    if !json {
        say(format!(
            "built {} tables ({} already present) in {:.2} s, {} indices, into {}",
            todo.len(),
            needed - todo.len(),
            total_secs,
            total_indices,
            dir.display()
        ))?;
    }
    Ok(())
}

fn open_info_table(arg: &str, dir: &Path) -> Result<TableFile, Failure> {
    let as_path = Path::new(arg);
    if as_path.is_file() {
        return TableFile::open(as_path).map_err(runtime);
    }
    let m = parse_signature(arg)?.canonical();
    let path = table_path(dir, &m);
    if !path.exists() {
        if !dir.is_dir() {
            return Err(runtime(format!(
                "tables folder {} does not exist",
                dir.display()
            )));
        }
        return Err(runtime(format!("no table for {m} in {}", dir.display())));
    }
    TableFile::open(&path).map_err(runtime)
}

/// Names of the sides to move, by index.
const SIDE_NAMES: [&str; 2] = ["white", "black"];

fn cmd_info(arg: &str, dir: &Path, json: bool) -> Result<(), Failure> {
    let t = open_info_table(arg, dir)?;
    let h = t.header();
    let st = &h.stats;
    let index = t.index();
    let fen = (index.from_record_number(st.max_index))
        .and_then(|idx| index.decode(idx, Color::from_index(st.max_side as usize)))
        .filter(|_| st.max_plies > 0)
        .map_or("-".to_string(), |p| p.to_string());
    let side = |s: usize| {
        let x = &st.sides[s];
        json!({
            "positions": x.positions,
            "win": x.win,
            "draw": x.draw,
            "loss": x.loss,
            "cursed_win": x.cursed_win,
            "cursed_loss": x.cursed_loss,
        })
    };
    if json {
        let v = json!({
            "signature": h.material.to_string(),
            "pieces": h.material.pieces(),
            "bytes": t.bytes(),
            "wdl_bytes": t.layer_bytes().0,
            "dtm_bytes": t.layer_bytes().1,
            "dtm_side": SIDE_NAMES[t.dtm_side()],
            "white": side(0),
            "black": side(1),
            "max_dtm": {"plies": st.max_plies, "moves": st.max_plies.div_ceil(2), "fen": fen},
        });
        say(format!("{v}"))?;
    } else {
        say(format!(
            "{} ({} pieces, {} bytes, {})",
            h.material,
            h.material.pieces(),
            t.bytes(),
            t.path().display()
        ))?;
        let (wdl, dtm) = t.layer_bytes();
        say(format!(
            "  layers: WDL {wdl} bytes, DTM {dtm} bytes ({} to move stored)",
            SIDE_NAMES[t.dtm_side()]
        ))?;
        for (s, name) in [(0, "white to move"), (1, "black to move")] {
            let x = &st.sides[s];
            say(format!(
                "  {name}: {} positions, {} win ({} cursed), {} draw, {} loss ({} blessed)",
                x.positions, x.win, x.cursed_win, x.draw, x.loss, x.cursed_loss
            ))?;
        }
        say(format!(
            "  longest mate: {} plies ({} moves), e.g. {fen}",
            st.max_plies,
            st.max_plies.div_ceil(2)
        ))?;
    }
    Ok(())
}

fn dtm_json(v: Dtm) -> serde_json::Value {
    json!({"wdl": v.wdl().as_str(), "dtm_plies": v.plies()})
}

fn cmd_probe(fens: &[String], dir: &Path, json: bool) -> Result<(), Failure> {
    if !dir.is_dir() {
        return Err(runtime(format!(
            "tables folder {} does not exist",
            dir.display()
        )));
    }
    let tb = Tablebase::open(dir).map_err(runtime)?;
    let mut failures = 0;
    let mut stdout = std::io::stdout().lock();
    for fen in fens {
        let answer = fen
            .parse::<Position>()
            .map_err(|e| e.to_string())
            .and_then(|pos| {
                let v = tb.probe_dtm(&pos).map_err(|e| e.to_string())?;
                let rule = tb.probe_wdl5(&pos).map_err(|e| e.to_string())?;
                let moves = tb.best_moves(&pos).map_err(|e| e.to_string())?;
                Ok((v, rule, moves))
            });
        let (v, rule, moves) = match answer {
            Ok(a) => a,
            Err(e) => {
                eprintln!("retrobook: {fen:?}: {e}");
                failures += 1;
                continue;
            }
        };
        let line = if json {
            let mut o = dtm_json(v);
            o["fen"] = json!(fen);
            o["wdl50"] = json!(rule.as_str());
            o["moves"] = moves
                .iter()
                .map(|(m, mv)| {
                    let mut x = dtm_json(*mv);
                    x["uci"] = json!(m.to_string());
                    x
                })
                .collect();
            o.to_string()
        } else {
            let mut s = format!("{fen}\n  {v}");
            if let Some(n) = v.moves() {
                s += &format!(" (mate in {n})");
            }
            if rule.is_cursed() {
                s += &format!(
                    ", a {} (drawn by the 50-move rule)",
                    rule.as_str().replace('-', " ")
                );
            }
            for (m, mv) in &moves {
                s += &format!("\n    {m:<6} {}", mv.back());
            }
            s
        };
        writeln!(stdout, "{line}").map_err(write_failed)?;
    }
    if failures > 0 {
        return Err(runtime(format!(
            "{failures} of {} positions could not be probed",
            fens.len()
        )));
    }
    Ok(())
}

fn cmd_verify(signatures: &[String], dir: &Path) -> Result<(), Failure> {
    if !dir.is_dir() {
        return Err(runtime(format!(
            "tables folder {} does not exist",
            dir.display()
        )));
    }
    let mut targets = Vec::new();
    for s in signatures {
        targets.push(parse_signature(s)?.canonical());
    }
    let tb = Tablebase::open(dir).map_err(runtime)?;
    if targets.is_empty() {
        targets = tb.materials().collect();
        sort_for_generation(&mut targets);
    }
    if targets.is_empty() {
        return Err(runtime(format!("no tables in {}", dir.display())));
    }
    let sizes: Vec<u64> = targets
        .iter()
        .map(|m| 2 * TableIndex::new(*m).size())
        .collect();
    let all: u64 = sizes.iter().sum();
    let bars = Bars::new(true, all);
    let (start, mut done) = (Instant::now(), 0u64);
    for (i, (m, size)) in targets.iter().zip(&sizes).enumerate() {
        let left =
            (done > 0).then(|| start.elapsed().as_secs_f64() * (all - done) as f64 / done as f64);
        bars.start(m, i + 1, targets.len(), left);
        if tb.table(m).is_none() {
            return Err(runtime(format!("no table for {m} in {}", dir.display())));
        }
        verify_table(&tb, m, &bars).map_err(|e| runtime(format!("verify failed: {e}")))?;
        bars.multi.suspend(|| say(format!("{m:<8} ok")))?;
        bars.total.inc(*size);
        done += size;
    }
    bars.total.finish_and_clear();
    bars.table.finish_and_clear();
    say(format!("verified {} tables", targets.len()))?;
    Ok(())
}
